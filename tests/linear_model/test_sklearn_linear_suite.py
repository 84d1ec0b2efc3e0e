"""scikit-learn's own ``test_ridge.py``, ``test_logistic.py``,
``test_coordinate_descent.py``, ``test_sparse_coordinate_descent.py`` and
``test_base.py``, run against gpuml's linear models.

The files run in one subprocess with gpuml's classes swapped into
``sklearn.linear_model`` (``tests/sklearn_linear_plugin.py``). Not every
test passes: gpuml lacks some of scikit-learn's solvers and options. Each
failure must fall in one of the categories of :data:`KNOWN` (its reason is
written there and in ``docs/differences.rst``), no category may fail more
tests than measured, and each file must pass at least as many tests as
measured (scikit-learn 1.9.1, CPU), so that a test that passes now cannot
start failing unnoticed. A category matches a failure by the error gpuml
raised (found in the failure's traceback) or by the test's name.

When gpuml's ``linear_model`` exports another of scikit-learn's names, the
plugin swaps it in too and the counts change: measure them again and update
:data:`KNOWN`, :data:`PASSED` and ``docs/differences.rst`` (the assertion
messages print what was measured).

One test is deselected: ``test_lbfgs_solver_consistency`` calls only
scikit-learn's private ``_solve_lbfgs`` and ``_solve_svd`` (no class of
gpuml's) and takes about 55 s on two cores, more than the rest of
``test_ridge.py``'s fits. The five files then take about 2 minutes of CPU
time on two cores. The plugin formats
the failures' tracebacks natively (pytest's own formatting took 2.5
minutes more).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from gpuml._array import HOST, is_sparse
from gpuml.linear_model import LogisticRegression
from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

TESTS = SKLEARN / "linear_model" / "tests"
SUITES = {
    "test_ridge": TESTS / "test_ridge.py",
    "test_logistic": TESTS / "test_logistic.py",
    "test_coordinate_descent": TESTS / "test_coordinate_descent.py",
    "test_sparse_coordinate_descent": TESTS / "test_sparse_coordinate_descent.py",
    "test_base": TESTS / "test_base.py",
}
DESELECTED = "not test_lbfgs_solver_consistency"


# Refused by parameter validation: scikit-learn's solvers that gpuml's class
# does not have (the class named in the error, whichever gpuml class it is).
MISSING_SOLVER = r"InvalidParameterError: The 'solver' parameter of \w+ must be"

KNOWN = {
    "test_ridge": [
        Category(
            "positive=True is solved exactly (an active-set NNLS, finite, on "
            "which L-BFGS-B's max_iter has no hold): a fit that scikit-learn's "
            "lbfgs stops after max_iter=1 iteration with a ConvergenceWarning "
            "converges in gpuml, without the warning",
            most=1,
            name=r"test_lbfgs_solver_error",
        ),
        Category(
            "gpuml's cholesky solver fits sparse X with an intercept (the Gram "
            "matrix is centred implicitly), where scikit-learn's raises",
            most=2,
            name=r"test_ridge_fit_intercept_sparse_error\[\w+-cholesky\]",
        ),
    ],
    "test_logistic": [
        Category(
            "liblinear's dual coordinate descent visits the samples in a random "
            "order (random_state changes its result within tol); gpuml's "
            "proximal Newton method is deterministic",
            most=1,
            name=r"test_liblinear_dual_random_state\[\w+\]",
        ),
        Category(
            "scikit-learn's LogisticRegressionCV (its own class, liblinear or "
            "saga inside) against gpuml's LogisticRegression at the default "
            "tol=1e-4: liblinear's trust-region Newton and saga's epochs stop "
            "at other points within tol than gpuml's proximal Newton method "
            "(5e-6 and 4e-4 apart), more than the tests' 6 decimals and score "
            "tolerance; at tol=1e-10 they agree",
            most=3,
            name=r"test_logistic_cv\[.*\]|test_scores_attribute_layout_elasticnet",
        ),
        Category(
            "expects saga's grid-searched elastic net to score at least as well "
            "on a test split as its L1 and L2 fits: a property of saga's "
            "approximate solutions at tol=1e-4 on that split (0.816 against "
            "0.808 at the optimum gpuml reaches), not of the optimum",
            most=1,
            name=r"test_elastic_net_vs_l1_l2\[.*\]",
        ),
        Category(
            "scikit-learn's newton-cholesky falls back to lbfgs on a singular "
            "Hessian (its n_iter_ counts both); gpuml's Newton step solves it "
            "through a pseudo-inverse and does not fall back",
            most=1,
            name=r"test_newton_cholesky_fallback_to_lbfgs",
        ),
        Category(
            "LogisticRegressionCV, binary labels, every training fold of one "
            "class: no finite optimum (the intercept grows without bound); "
            "scikit-learn's coefficients are where its path, warm-started from "
            "C to C, stops (the same for every C, so the first C is chosen), "
            "gpuml fits every C from zero and stops elsewhere",
            most=2,
            name=r"test_logistic_cv_folds_with_classes_missing\[2-\w+\]",
        ),
    ],
    "test_coordinate_descent": [
        Category(
            "check_input=False with C-ordered X: scikit-learn's Cython solver "
            "needs Fortran order and raises; gpuml always checks its input "
            "and ignores the flag",
            most=1,
            name=r"test_check_input_false",
        ),
        Category(
            "the test monkeypatches scikit-learn's private "
            "sklearn.linear_model._coordinate_descent.Lasso to watch LassoCV's "
            "refit; gpuml's LassoCV refits gpuml's Lasso",
            most=3,
            name=r"test_lassoCV_does_not_set_precompute\[.*\]",
        ),
    ],
    "test_sparse_coordinate_descent": [],
    "test_base": [],
}
# Passed at least (scikit-learn 1.9.1, CPU, with gpuml's Ridge, RidgeCV,
# RidgeClassifier(CV), LogisticRegression(CV), LinearRegression, Lasso,
# ElasticNet, LassoCV and ElasticNetCV swapped in;
# test_lbfgs_solver_consistency's four cases deselected). test_base's count
# includes scikit-learn's 8 xpassed cases.
PASSED = {
    "test_ridge": 1081,
    "test_logistic": 289,
    "test_coordinate_descent": 285,
    "test_sparse_coordinate_descent": 159,
    "test_base": 84,
}


@sklearn19(
    SUITES, reason="the expected results are scikit-learn 1.9's linear-model tests"
)
def test_sklearn_linear_suites_fail_only_as_known(tmp_path):
    # On the CPU backend, where the categories were measured, also on a GPU
    # machine: the GPU run's further failures (28 on an H100, 2026-11-26)
    # are listed with their causes in docs/differences.rst, to be fixed.
    assert_fails_only_as_known(
        "tests.sklearn_linear_plugin",
        SUITES,
        tmp_path,
        KNOWN,
        PASSED,
        select=DESELECTED,
    )


# ----------------------------------------------------------------------------
# The behaviours the suites asked of LogisticRegression, against scikit-learn
# ----------------------------------------------------------------------------


def _classification(rng, n_classes, n_samples=60, n_features=4):
    X = rng.normal(size=(n_samples, n_features))
    scores = X @ rng.normal(size=(n_features, n_classes))
    y = np.argmax(scores + rng.gumbel(size=scores.shape), axis=1)
    y[:n_classes] = np.arange(n_classes)
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sparsify_densify_as_sklearn(backend, rng, n_classes):
    X, y = _classification(rng, n_classes)
    X_in = backend.asarray(X)
    model = LogisticRegression(tol=1e-10, max_iter=10_000).fit(X_in, backend.asarray(y))
    theirs = SkLogisticRegression(tol=1e-10, max_iter=10_000).fit(X, y).sparsify()
    dense = backend.to_numpy(model.decision_function(X_in))
    assert model.sparsify() is model
    backend.assert_family(model.coef_, dtype=np.float64, shape=theirs.coef_.shape)
    assert is_sparse(model.coef_) and model.coef_.format == "csr"
    if backend.family == HOST:
        assert type(model.coef_) is type(theirs.coef_)
    for X_test in (X_in, backend.as_format(X, "csr")):
        scores = model.decision_function(X_test)
        backend.assert_family(scores, dtype=np.float64, shape=dense.shape)
        np.testing.assert_allclose(backend.to_numpy(scores), dense, rtol=1e-12)
    # a warm start from sparsified coefficients; pickling
    # (tol 1e-6: from the optimum, a tolerance of 1e-10 can end the line
    # search abnormally, with a ConvergenceWarning)
    warm = clone(model).set_params(warm_start=True, tol=1e-6)
    warm.coef_, warm.intercept_ = model.coef_, model.intercept_
    warm.fit(X_in, backend.asarray(y))
    np.testing.assert_allclose(
        backend.to_numpy(warm.coef_), theirs.coef_.toarray(), rtol=1e-6, atol=1e-7
    )
    restored = pickle.loads(pickle.dumps(model))
    assert is_sparse(restored.coef_)
    assert model.densify() is model
    backend.assert_family(model.coef_, dtype=np.float64, shape=theirs.coef_.shape)
    np.testing.assert_allclose(backend.to_numpy(model.decision_function(X_in)), dense)
    assert model.densify() is model  # a no-op when dense
    backend.assert_family(model.coef_, dtype=np.float64)


def test_sparsify_needs_a_fit():
    for method, verb in (("sparsify", "sparsifying"), ("densify", "densifying")):
        message = f"Estimator, LogisticRegression, must be fitted before {verb}."
        with pytest.raises(NotFittedError, match=message):
            getattr(LogisticRegression(), method)()


@pytest.mark.parametrize("n_classes", [2, 3])
def test_predict_proba_lr_as_sklearn(backend, rng, n_classes):
    X, y = _classification(rng, n_classes)
    model = LogisticRegression(max_iter=1000).fit(
        backend.asarray(X), backend.asarray(y)
    )
    X[:3] *= 1e3  # saturated sigmoids
    theirs = SkLogisticRegression()
    theirs.classes_ = np.unique(y)
    for shift in (0.0, -1e4):  # -1e4: every sigmoid 0, uniform probabilities
        model.intercept_ = model.intercept_ + shift
        theirs.coef_ = backend.to_numpy(model.coef_)
        theirs.intercept_ = backend.to_numpy(model.intercept_)
        ours = model._predict_proba_lr(backend.asarray(X))
        backend.assert_family(ours, dtype=np.float64, shape=(X.shape[0], n_classes))
        np.testing.assert_allclose(
            backend.to_numpy(ours), theirs._predict_proba_lr(X), rtol=1e-12, atol=1e-15
        )


# (penalty, l1_ratio, C): scikit-learn's reading of the three, its warnings and
# its errors for the lbfgs solver
PENALTY_CASES = [
    ("deprecated", 0.0, 1.0),
    ("deprecated", None, 1.0),
    ("deprecated", 0.5, 1.0),
    ("deprecated", 1.0, 1.0),
    ("deprecated", 0.5, np.inf),
    ("deprecated", 1.0, np.inf),
    ("l2", 0.0, 1.0),
    ("l2", 0.5, 1.0),
    ("l2", None, 2.0),
    ("l1", 1.0, 1.0),
    ("elasticnet", 0.5, 1.0),
    (None, 0.0, 1.0),
    (None, 0.0, 4.0),
    (None, 0.5, 1.0),
]


def _outcome(model, X, y):
    """(warnings as (category, message), error as (type, message) or None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y)
            error = None
        except ValueError as exc:
            error = (type(exc), str(exc))
    # (an unpenalised fit may not converge: a warning of its own iterations)
    caught = [w for w in caught if w.category is not ConvergenceWarning]
    return [(w.category, str(w.message)) for w in caught], error


@pytest.mark.parametrize(("penalty", "l1_ratio", "C"), PENALTY_CASES)
def test_penalty_rules_as_sklearn(rng, penalty, l1_ratio, C):
    X, y = _classification(rng, 2)
    params = {"penalty": penalty, "l1_ratio": l1_ratio, "C": C, "max_iter": 1000}
    ours = _outcome(LogisticRegression(**params), X, y)
    theirs = _outcome(SkLogisticRegression(**params), X, y)
    assert ours[0] == theirs[0]
    if theirs[1] is None:
        assert ours[1] is None
    else:  # scikit-learn's type and message
        assert ours[1][0] is theirs[1][0]
        assert ours[1][1] == theirs[1][1]


@pytest.mark.skipif(
    not hasattr(SkLogisticRegression, "set_callbacks"),
    reason="scikit-learn < 1.9 has no callbacks",
)
def test_set_callbacks_warns_for_another_solver():
    from sklearn.callback.tests._utils import RecordingCallback

    for solver in ("lbfgs", "liblinear"):
        outcome = []
        for cls in (LogisticRegression, SkLogisticRegression):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model = cls(solver=solver).set_callbacks(RecordingCallback())
            assert isinstance(model, cls)
            outcome.append([(w.category, str(w.message)) for w in caught])
        assert outcome[0] == outcome[1]
        assert bool(outcome[0]) == (solver != "lbfgs")
