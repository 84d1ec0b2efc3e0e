"""Ridge's lsqr, sag, saga and lbfgs (positive=True) solvers against
scikit-learn: coefficients, intercepts, n_iter_, dtypes, errors, warnings,
RidgeClassifier, and the search's one-by-one fits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import nnls
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge as SkRidge
from sklearn.linear_model import RidgeClassifier as SkRidgeClassifier
from sklearn.model_selection import GridSearchCV as SkGridSearchCV

from gpuml.base import BatchUnsupported
from gpuml.linear_model import Ridge, RidgeClassifier
from gpuml.model_selection import GridSearchCV

# scikit-learn's sag needs many epochs at a tight tolerance: small data.
SHAPES = {"tall": (40, 6), "wide": (12, 20)}


def _rel_err(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def _regression(rng, n_samples, n_features, n_targets, dtype=np.float64):
    """Features with distinct scales and non-zero means (tests centring)."""
    X = rng.normal(size=(n_samples, n_features)) * rng.uniform(0.3, 3, n_features)
    X += rng.uniform(-3, 3, n_features)
    coef = rng.normal(size=(n_features, n_targets))
    y = X @ coef + 0.3 * rng.normal(size=(n_samples, n_targets)) + 2.0
    y = y[:, 0] if n_targets == 1 else y
    return X.astype(dtype), y.astype(dtype)


def _fit(model, backend, X, y, sw=None):
    return model.fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )


def _reference(model, X, y, sw=None):
    """scikit-learn's fit, the reference (not the code under test): its
    L-BFGS-B may end its line search before reaching a tight tol, with a
    ConvergenceWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, sample_weight=sw)


def _check_against(backend, model, expected, X, rtol):
    backend.assert_family(
        model.coef_, dtype=expected.coef_.dtype, shape=expected.coef_.shape
    )
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < rtol
    intercept = np.asarray(backend.to_numpy(model.intercept_))
    np.testing.assert_allclose(intercept, expected.intercept_, rtol=rtol, atol=rtol)
    assert intercept.shape == np.shape(expected.intercept_)
    assert model.solver_ == expected.solver_


# ----------------------------------------------------------------------------
# lsqr, sag, saga: the unique optimum, as scikit-learn's
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("n_targets", [1, 3])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["icpt", "noicpt"])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("shape", ["tall", "wide"])
@pytest.mark.parametrize("solver", ["lsqr", "sag", "saga"])
def test_solver_matches_sklearn(
    backend, rng, solver, shape, fmt, fit_intercept, weighted, n_targets
):
    X, y = _regression(rng, *SHAPES[shape], n_targets)
    if fmt == "csr":
        X[rng.uniform(size=X.shape) < 0.5] = 0.0
    sw = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else None
    alpha = 0.8 if n_targets == 1 else rng.uniform(0.3, 3.0, n_targets)
    params = dict(alpha=alpha, solver=solver, fit_intercept=fit_intercept, tol=1e-12)
    if solver != "lsqr":
        params.update(max_iter=100_000, random_state=0)
    X_fit = X if fmt == "dense" else sp.csr_matrix(X)
    if fmt == "csr" and fit_intercept and solver == "saga":
        with pytest.raises(ValueError, match="solver='saga' does not support fitting"):
            SkRidge(**params).fit(X_fit, y, sample_weight=sw)
        with pytest.raises(ValueError, match="solver='saga' does not support fitting"):
            _fit(Ridge(**params), backend, X_fit, y, sw)
        return
    model = _fit(Ridge(**params), backend, X_fit, y, sw)
    # the exact optimum (scikit-learn's svd on the dense data)
    exact = SkRidge(alpha=alpha, solver="svd", fit_intercept=fit_intercept)
    exact.fit(X, y, sample_weight=sw)
    assert _rel_err(backend.to_numpy(model.coef_), exact.coef_) < 1e-7
    if solver == "lsqr":  # the same recurrences and stopping rules
        expected = SkRidge(**params).fit(X_fit, y, sample_weight=sw)
    else:
        # scikit-learn's sag at this tolerance takes thousands of epochs, and
        # overflows on some of these weighted wide problems: its exact
        # solvers' answer, with sag's attributes
        # (scikit-learn's rule: sparse sag with an intercept and a tol of
        # 1e-4 or less runs sparse_cg)
        expected = exact
        sparse_intercept = fmt == "csr" and fit_intercept
        expected.solver_ = "sparse_cg" if sparse_intercept else solver
    _check_against(backend, model, expected, X, rtol=1e-6)
    if model.solver_ == "sparse_cg":  # sparse sag with an intercept
        assert model.n_iter_ is None
    else:
        assert model.n_iter_.dtype == np.int32
        assert model.n_iter_.shape == (n_targets,)
    pred = model.predict(backend.asarray(X_fit))
    backend.assert_family(pred, dtype=np.float64, shape=y.shape)
    assert _rel_err(backend.to_numpy(pred), expected.predict(X_fit)) < 1e-6


@pytest.mark.parametrize("solver", ["sag", "saga"])
def test_sag_close_to_sklearn_sag(backend, rng, solver):
    X, y = _regression(rng, 40, 5, 2)
    params = dict(alpha=[0.5, 2.0], solver=solver, tol=1e-10, max_iter=100_000)
    expected = SkRidge(**params, random_state=0).fit(X, y)
    model = _fit(Ridge(**params), backend, X, y)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-7
    np.testing.assert_allclose(
        backend.to_numpy(model.intercept_), expected.intercept_, rtol=1e-7
    )
    assert model.n_iter_.dtype == expected.n_iter_.dtype
    assert model.n_iter_.shape == expected.n_iter_.shape


@pytest.mark.parametrize("solver", ["lsqr", "sag", "saga", "lbfgs"])
def test_float32_preserved(backend, rng, solver):
    X, y = _regression(rng, 50, 5, 2, dtype=np.float32)
    positive = solver == "lbfgs"
    params = dict(alpha=1.0, solver=solver, tol=1e-7, positive=positive)
    if solver != "lsqr":
        params["max_iter"] = 100_000
    model = _fit(Ridge(**params), backend, X, y)
    backend.assert_family(model.coef_, dtype=np.float32, shape=(2, 5))
    backend.assert_family(model.intercept_, dtype=np.float32, shape=(2,))
    if positive:
        # scikit-learn's L-BFGS-B may stop 5e-4 from the optimum here (seen
        # in about 1 draw of 100, in float32 and float64 alike): the oracle
        # is the exact optimum, NNLS on the augmented centred system
        X64 = X.astype(np.float64)
        Xc = X64 - X64.mean(axis=0)
        A = np.vstack([Xc, np.sqrt(params["alpha"]) * np.eye(X.shape[1])])
        expected_coef = np.array(
            [
                nnls(A, np.concatenate([yj - yj.mean(), np.zeros(X.shape[1])]))[0]
                for yj in y.T.astype(np.float64)
            ]
        )
    else:
        expected_coef = _reference(SkRidge(**params), X, y).coef_
    assert _rel_err(backend.to_numpy(model.coef_), expected_coef) < 1e-4
    pred = model.predict(backend.asarray(X))
    backend.assert_family(pred, dtype=np.float32, shape=y.shape)


def test_lsqr_n_iter_as_sklearn(backend, rng):
    """The same LSQR recurrences and stopping tests: the same iterations, but
    for one more or less where a stopping test sits within rounding of its
    threshold (the targets' recurrences run as one block, rounded otherwise
    than SciPy's one target at a time). Measured on 3,000 draws of this data
    (27,000 counts): never more than one apart; of the nine counts of a draw,
    0 differed in 86% of draws, 1 in 12%, 2 in 2.6%, 3 in 0.3%, never more."""
    X, y = _regression(rng, 80, 12, 3)
    differences = []
    for tol, max_iter in ((1e-4, None), (1e-8, None), (1e-12, 5)):
        params = dict(alpha=[0.1, 1.0, 10.0], solver="lsqr", tol=tol, max_iter=max_iter)
        expected = SkRidge(**params).fit(X, y)
        model = _fit(Ridge(**params), backend, X, y)
        assert model.n_iter_.dtype == expected.n_iter_.dtype
        difference = model.n_iter_.astype(int) - expected.n_iter_
        assert np.abs(difference).max() <= 1, (tol, model.n_iter_, expected.n_iter_)
        if max_iter is not None:  # capped: both stop at the cap
            np.testing.assert_array_equal(model.n_iter_, expected.n_iter_)
        differences.extend(difference)
    assert np.count_nonzero(differences) <= len(differences) // 2, differences


@pytest.mark.parametrize("solver", ["sag", "saga"])
def test_sag_max_iter_warns_as_sklearn(backend, rng, solver):
    X, y = _regression(rng, 60, 8, 2)
    for max_iter in (1, 3):
        model = Ridge(solver=solver, tol=1e-12, max_iter=max_iter)
        with pytest.warns(ConvergenceWarning, match="The max_iter was reached"):
            _fit(model, backend, X, y)
        np.testing.assert_array_equal(model.n_iter_, [max_iter, max_iter])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _fit(Ridge(solver=solver, tol=1e-10), backend, X, y)
    assert (model.n_iter_ < 1000).all()


def test_hard_data_lsqr_and_sag(backend, rng):
    """Ill-conditioned (correlated, badly scaled) features and outlying rows:
    the iterative solvers still reach the exact optimum."""
    n, p = 60, 6
    base = rng.normal(size=(n, 1))
    X = base + 1e-2 * rng.normal(size=(n, p))  # nearly collinear columns
    X *= np.logspace(-1, 2, p)  # scales over three decades
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    y[:3] += 1e3  # outliers
    X[3] *= 50
    exact = SkRidge(alpha=1e-2, solver="svd").fit(X, y)
    for solver in ("lsqr", "sag", "saga"):
        params = dict(alpha=1e-2, solver=solver, tol=1e-14, max_iter=10_000)
        model = _fit(Ridge(**params), backend, X, y)
        assert _rel_err(backend.to_numpy(model.coef_), exact.coef_) < 1e-6, solver


# ----------------------------------------------------------------------------
# positive=True: the bound-constrained optimum
# ----------------------------------------------------------------------------


def _positive_oracle(X, y, sw, alpha, fit_intercept):
    """NNLS on the augmented matrix [sqrt(w) Xc; sqrt(alpha) I] (SciPy's
    active-set method on the data, not on a Gram matrix)."""
    X = X.toarray() if sp.issparse(X) else X
    w = np.ones(X.shape[0]) if sw is None else sw
    Y = y.reshape(-1, 1) if y.ndim == 1 else y
    alphas = np.broadcast_to(alpha, (Y.shape[1],))
    if fit_intercept:
        x_mean, y_mean = np.average(X, axis=0, weights=w), np.average(Y, 0, w)
    else:
        x_mean, y_mean = np.zeros(X.shape[1]), np.zeros(Y.shape[1])
    root = np.sqrt(w)[:, None]
    coefs = []
    for j in range(Y.shape[1]):
        A = np.vstack([root * (X - x_mean), np.sqrt(alphas[j]) * np.eye(X.shape[1])])
        b = np.concatenate([root[:, 0] * (Y[:, j] - y_mean[j]), np.zeros(X.shape[1])])
        coefs.append(nnls(A, b)[0])
    coef = np.array(coefs)
    intercept = y_mean - coef @ x_mean
    if y.ndim == 1:
        return coef[0], intercept[0]
    return coef, intercept


def _objective(X, y, sw, alpha, coef, intercept):
    X = X.toarray() if sp.issparse(X) else X
    w = np.ones(X.shape[0]) if sw is None else sw
    resid = y - X @ coef - intercept
    return 0.5 * np.sum(w * resid**2) + 0.5 * alpha * np.sum(coef**2)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["icpt", "noicpt"])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("shape", ["tall", "wide"])
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 30.0])
def test_positive_matches_sklearn(
    backend, rng, alpha, shape, fmt, fit_intercept, weighted
):
    # half the true coefficients clearly negative: constraints active
    X, _ = _regression(rng, *SHAPES[shape], 1)
    if fmt == "csr":  # (zeros before y: y follows the stored X)
        X[rng.uniform(size=X.shape) < 0.5] = 0.0
    signs = np.resize([1.0, -1.0], X.shape[1])
    y = X @ (signs * rng.uniform(1, 2, X.shape[1])) + 0.3 * rng.normal(size=len(X))
    if fmt == "csr":
        X = sp.csr_matrix(X)
    sw = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else None
    params = dict(alpha=alpha, positive=True, fit_intercept=fit_intercept, tol=1e-12)
    expected = _reference(SkRidge(**params, max_iter=100_000), X, y, sw)
    model = _fit(Ridge(**params), backend, X, y, sw)
    coef = backend.to_numpy(model.coef_)
    intercept = float(backend.to_numpy(model.intercept_)) if fit_intercept else 0.0
    assert model.solver_ == "lbfgs" and model.n_iter_ is None
    backend.assert_family(model.coef_, dtype=np.float64, shape=(X.shape[1],))
    assert (coef >= 0).all()
    # the constraints bind: the unconstrained optimum has negative entries
    free = SkRidge(alpha=alpha, fit_intercept=fit_intercept, solver="svd")
    assert (free.fit(X.toarray() if fmt == "csr" else X, y, sw).coef_ < 0).any()
    oracle_coef, oracle_intercept = _positive_oracle(X, y, sw, alpha, fit_intercept)
    assert _rel_err(coef, oracle_coef) < 1e-6
    assert intercept == pytest.approx(oracle_intercept, rel=1e-6, abs=1e-8)
    # scikit-learn's L-BFGS-B reaches the optimum to its tolerance only:
    # close coefficients where the problem is well conditioned (it was 3%
    # off for alpha=1e-3 on wide data), and never a lower objective than ours
    if alpha >= 1.0:
        assert _rel_err(coef, expected.coef_) < 1e-3
    ours = _objective(X, y, sw, alpha, coef, intercept)
    theirs = _objective(X, y, sw, alpha, expected.coef_, expected.intercept_)
    assert ours <= theirs * (1 + 1e-12)


def test_positive_multi_target_float32_and_per_target_alpha(backend, rng):
    X, y = _regression(rng, 50, 7, 3, dtype=np.float32)
    alpha = np.array([1e-2, 1.0, 10.0])
    params = dict(alpha=alpha, positive=True, tol=1e-10)
    model = _fit(Ridge(**params), backend, X, y)
    backend.assert_family(model.coef_, dtype=np.float32, shape=(3, 7))
    backend.assert_family(model.intercept_, dtype=np.float32, shape=(3,))
    oracle, oracle_icpt = _positive_oracle(
        X.astype(np.float64), y.astype(np.float64), None, alpha, True
    )
    assert _rel_err(backend.to_numpy(model.coef_), oracle) < 1e-5
    np.testing.assert_allclose(
        backend.to_numpy(model.intercept_), oracle_icpt, rtol=1e-5, atol=1e-5
    )
    expected = _reference(SkRidge(**params, max_iter=100_000), X, y)
    assert expected.coef_.dtype == np.float32
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-3


def test_positive_hard_data(backend, rng):
    """Nearly collinear, badly scaled features, a tiny penalty and outliers:
    still the exact constrained optimum."""
    n, p = 80, 8
    X = rng.normal(size=(n, 1)) + 1e-3 * rng.normal(size=(n, p))
    X *= np.logspace(-1, 1.5, p)
    y = X @ rng.normal(size=p) + 0.1 * rng.normal(size=n)
    y[:2] *= 100
    for alpha in (1e-6, 1e-2):
        model = _fit(Ridge(alpha=alpha, positive=True), backend, X, y)
        oracle, oracle_icpt = _positive_oracle(X, y, None, alpha, True)
        coef = backend.to_numpy(model.coef_)
        # compare objectives: the optimum is ill-determined along the
        # collinear directions for the tiny penalty
        ours = _objective(X, y, None, alpha, coef, float(model.intercept_))
        best = _objective(X, y, None, alpha, oracle, oracle_icpt)
        assert ours == pytest.approx(best, rel=1e-9)
        if alpha == 1e-2:
            assert _rel_err(coef, oracle) < 1e-6


def test_positive_all_coefficients_clamped_and_unconstrained_case(backend, rng):
    # centred columns orthogonal to each other: every coefficient clamps
    Z = rng.normal(size=(40, 5))
    Z[:, 0] = 1.0
    X = np.linalg.qr(Z)[0][:, 1:] * rng.uniform(1, 5, 4) + rng.uniform(-3, 3, 4)
    y = -(X @ (1 + np.abs(rng.normal(size=4)))) + 0.01 * rng.normal(size=40)
    model = _fit(Ridge(alpha=1.0, positive=True), backend, X, y)
    np.testing.assert_array_equal(backend.to_numpy(model.coef_), np.zeros(4))
    assert float(model.intercept_) == pytest.approx(y.mean(), rel=1e-12)
    # positive ground truth: the unconstrained optimum
    y = X @ np.abs(rng.normal(size=4)) + 1.0 + 0.01 * rng.normal(size=40)
    free = _fit(Ridge(alpha=1.0), backend, X, y)
    model = _fit(Ridge(alpha=1.0, positive=True), backend, X, y)
    assert _rel_err(backend.to_numpy(model.coef_), backend.to_numpy(free.coef_)) < 1e-8


# ----------------------------------------------------------------------------
# scikit-learn's rules: errors, messages, warnings, resolved solvers
# ----------------------------------------------------------------------------


def _outcome(model, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y)
            error = None
        except (ValueError, TypeError) as exc:
            error = (type(exc), str(exc))
    caught = [(w.category, str(w.message)) for w in caught]
    return error, caught, getattr(model, "solver_", None)


RULES = [
    (dict(solver="lbfgs"), "dense", True),
    (dict(solver="lbfgs", positive=True), "csr", True),
    (dict(solver="lsqr", positive=True), "dense", False),
    (dict(solver="sag", positive=True), "dense", False),
    (dict(solver="auto", positive=True), "csr", False),
    (dict(solver="saga"), "csr", True),
    (dict(solver="saga"), "csr", False),
    (dict(solver="svd"), "csr", True),
    (dict(solver="sag"), "csr", True),  # sparse_cg, as scikit-learn
    (dict(solver="sag", tol=1e-3), "csr", True),  # its warning, then sag
    (dict(solver="sag", tol=1e-3, max_iter=50_000), "csr", True),
    (dict(solver="lsqr"), "csr", True),
    (dict(solver="auto"), "csr", True),
    (dict(solver="sag"), "csr", False),
]


@pytest.mark.parametrize(("params", "fmt", "fit_intercept"), RULES)
def test_solver_rules_as_sklearn(backend, rng, params, fmt, fit_intercept):
    X, y = _regression(rng, 30, 4, 1)
    X = np.abs(X)  # a positive fit with free coefficients
    X = sp.csr_matrix(X) if fmt == "csr" else X
    params = dict(params, fit_intercept=fit_intercept)
    theirs = _outcome(SkRidge(**params), X, y)
    ours = _outcome(Ridge(**params), backend.asarray(X), backend.asarray(y))
    assert ours[2] == theirs[2]  # solver_
    if theirs[0] is None:
        assert ours[0] is None
    else:
        assert ours[0][0] is theirs[0][0]
        assert ours[0][1].startswith(theirs[0][1])
    # (sag's epochs may not converge where the conjugate gradients do)
    sag_budget = [w for w in theirs[1] if w[0] is ConvergenceWarning]
    assert ours[1] == [w for w in theirs[1] if w not in sag_budget]


def test_svd_sparse_without_intercept_type_error(rng):
    X, y = _regression(rng, 30, 4, 1)
    X = sp.csr_matrix(X)
    with pytest.raises(TypeError, match="SVD solver does not support sparse inputs"):
        Ridge(solver="svd", fit_intercept=False).fit(X, y)


@pytest.mark.parametrize("solver", ["lsqr", "sag", "lbfgs"])
def test_negative_weights_raise(rng, solver):
    """scikit-learn returns NaN (lsqr), zeros (lbfgs) or a fit of another
    objective (sag); gpuml raises."""
    X, y = _regression(rng, 30, 4, 1)
    sw = np.ones(30)
    sw[0] = -1.0
    model = Ridge(solver=solver, positive=solver == "lbfgs")
    with pytest.raises(ValueError, match="Negative values in data passed"):
        model.fit(X, y, sample_weight=sw)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("case", ["X 1e308", "X 1e160", "y 1e308"])
@pytest.mark.parametrize("solver", ["lsqr", "sag", "saga", "lbfgs"])
def test_overflow_raises(backend, rng, solver, case, fit_intercept):
    """scikit-learn returns NaN (lsqr) or zeros (sag, saga, lbfgs), or sag
    raises its own overflow error; gpuml raises its cholesky solver's
    error rather than return a model of overflowed arithmetic."""
    X, y = _regression(rng, 30, 3, 1)
    if case == "X 1e308":
        X[0, 0] = 1e308
    elif case == "X 1e160":  # finite, but its square overflows
        X[2, 1] = 1e160
    else:
        y[0] = 1e308
    model = Ridge(
        solver=solver, positive=solver == "lbfgs", fit_intercept=fit_intercept
    )
    if solver == "lbfgs" and case == "y 1e308":
        # positive=True solves from the system (Xᵀ X, Xᵀ y) alone, as the
        # cholesky solver does: it raises where that system overflows (with
        # this X, depending on the draw), else its optimum is finite
        with np.errstate(over="ignore", invalid="ignore"):
            Xc = X - X.mean(axis=0) if fit_intercept else X
            yc = y - y.mean() if fit_intercept else y
            finite = np.isfinite(Xc.T @ yc).all()
        if finite:
            # finite, or the same error where the system's scaled right-hand
            # side overflows (seed 1363264717, fit_intercept=False)
            try:
                coef = backend.to_numpy(_fit(model, backend, X, y).coef_)
            except ValueError as error:
                assert str(error) == "array must not contain infs or NaNs"
            else:
                assert np.isfinite(coef).all() and (coef >= 0).all()
            return
    with pytest.raises(ValueError, match=r"^array must not contain infs or NaNs$"):
        _fit(model, backend, X, y)


# ----------------------------------------------------------------------------
# RidgeClassifier and the search
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        dict(solver="lsqr", tol=1e-12),
        dict(solver="sag", tol=1e-12, max_iter=100_000, random_state=0),
        dict(solver="saga", tol=1e-12, max_iter=100_000, random_state=0),
        dict(positive=True, tol=1e-12, max_iter=100_000),
    ],
    ids=["lsqr", "sag", "saga", "positive"],
)
def test_ridge_classifier_solvers(backend, rng, params):
    X = rng.normal(size=(60, 5)) + 1.0
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(5, 3)), axis=1)]
    expected = _reference(SkRidgeClassifier(alpha=0.5, **params), X, y)
    model = RidgeClassifier(alpha=0.5, **params).fit(backend.asarray(X), y)
    rtol = 1e-3 if params.get("positive") else 1e-6  # L-BFGS-B's accuracy
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < rtol
    assert model.solver_ == expected.solver_
    np.testing.assert_array_equal(
        model.predict(backend.asarray(X)), expected.predict(X)
    )
    if model.n_iter_ is not None:
        assert model.n_iter_.shape == expected.n_iter_.shape
    assert RidgeClassifier(**params)._batch_params() == frozenset()


@pytest.mark.parametrize(
    "params",
    [
        dict(solver="lsqr"),
        dict(solver="sag"),
        dict(solver="saga"),
        dict(solver="sparse_cg"),
        dict(positive=True),
        dict(solver="lbfgs", positive=True),
    ],
)
def test_search_fits_one_by_one(rng, params):
    """The iterative solvers and positive fits decline the batched fit; a
    search then fits each candidate as Ridge.fit does, as scikit-learn's."""
    X, y = _regression(rng, 60, 5, 1)
    X = np.abs(X)
    ridge = Ridge(tol=1e-10, max_iter=100_000, **params)
    assert ridge._batch_params() == frozenset()
    with pytest.raises(BatchUnsupported):
        ridge._fit_batch(X, y, [{"alpha": 1.0}])
    grid = {"alpha": [0.01, 1.0, 100.0]}
    ours = GridSearchCV(ridge, grid, cv=3).fit(X, y)
    # scikit-learn's search of the same estimator: one fit per candidate
    one_by_one = SkGridSearchCV(ridge, grid, cv=3).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["split0_test_score"],
        one_by_one.cv_results_["split0_test_score"],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        one_by_one.cv_results_["mean_test_score"],
        rtol=1e-12,
    )
    if not params.get("positive"):  # the exact optimum, by scikit-learn
        exact = SkGridSearchCV(SkRidge(solver="svd"), grid, cv=3).fit(X, y)
        np.testing.assert_allclose(
            ours.cv_results_["mean_test_score"],
            exact.cv_results_["mean_test_score"],
            rtol=1e-6,
        )
    assert ours.best_params_ == one_by_one.best_params_
