"""RidgeCV, RidgeClassifier and RidgeClassifierCV: parity with scikit-learn.

Leave-one-out results (alpha_, coef_, intercept_, best_score_, cv_results_)
are compared to 1e-6 relative in float64, on fresh random data, for tall
and wide, dense and sparse X; searches (``cv`` given) and classifiers too.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import linear_model as sk

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import RidgeClassifier, RidgeClassifierCV, RidgeCV

RTOL = 1e-6
ALPHAS = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]


def _rel_err(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def _regression(rng, n_samples, n_features, n_targets):
    X = rng.normal(size=(n_samples, n_features)) + rng.uniform(-2, 2, n_features)
    coef = rng.normal(size=(n_features, n_targets))
    noise = rng.uniform(0.1, 3.0, n_targets)  # a different best alpha per target
    y = X @ coef + noise * rng.normal(size=(n_samples, n_targets)) + 1.0
    return X, (y[:, 0] if n_targets == 1 else y)


def _assert_same_fit(model, expected, backend, *, stored=False):
    np.testing.assert_array_equal(
        backend.to_numpy(
            np.asarray(model.alpha_) if np.ndim(model.alpha_) == 0 else model.alpha_
        ),
        expected.alpha_,
    )
    backend.assert_family(
        model.coef_, dtype=expected.coef_.dtype, shape=expected.coef_.shape
    )
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL
    if type(expected.intercept_) is float:
        assert model.intercept_ == expected.intercept_ == 0.0
    else:
        intercept = backend.to_numpy(model.intercept_)
        assert np.shape(intercept) == np.shape(expected.intercept_)
        assert _rel_err(intercept, expected.intercept_) < RTOL
    best = np.asarray(backend.to_numpy(model.best_score_))
    assert best.shape == np.shape(expected.best_score_)
    assert _rel_err(best, expected.best_score_) < RTOL
    if stored:
        backend.assert_family(model.cv_results_, shape=expected.cv_results_.shape)
        assert (
            _rel_err(backend.to_numpy(model.cv_results_), expected.cv_results_) < RTOL
        )


@pytest.mark.parametrize("scoring", [None, "neg_mean_absolute_error"])
@pytest.mark.parametrize("gcv_mode", [None, "svd"])
@pytest.mark.parametrize("n_targets", [1, 3])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "fit_intercept", [True, False], ids=["intercept", "nointercept"]
)
@pytest.mark.parametrize("shape", [(50, 8), (20, 35)], ids=["tall", "wide"])
def test_ridge_cv_loo_matches_sklearn(
    backend, rng, shape, fit_intercept, weighted, n_targets, gcv_mode, scoring
):
    X, y = _regression(rng, *shape, n_targets)
    sw = rng.uniform(0.5, 2.0, shape[0]) if weighted else None
    params = dict(
        alphas=ALPHAS,
        fit_intercept=fit_intercept,
        gcv_mode=gcv_mode,
        scoring=scoring,
        store_cv_results=True,
    )
    expected = sk.RidgeCV(**params).fit(X, y, sample_weight=sw)
    model = RidgeCV(**params).fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )
    _assert_same_fit(model, expected, backend, stored=True)
    assert type(model.alpha_) is float
    X_test, _ = _regression(rng, 10, shape[1], n_targets)
    pred = model.predict(backend.asarray(X_test))
    backend.assert_family(pred, dtype=np.float64, shape=expected.predict(X_test).shape)
    assert _rel_err(backend.to_numpy(pred), expected.predict(X_test)) < RTOL


@pytest.mark.parametrize("scoring", [None, "r2"])
@pytest.mark.parametrize("shape", [(50, 8), (20, 35)], ids=["tall", "wide"])
def test_ridge_cv_alpha_per_target(backend, rng, shape, scoring):
    X, y = _regression(rng, *shape, 4)
    params = dict(
        alphas=ALPHAS, alpha_per_target=True, scoring=scoring, store_cv_results=True
    )
    expected = sk.RidgeCV(**params).fit(X, y)
    model = RidgeCV(**params).fit(backend.asarray(X), backend.asarray(y))
    backend.assert_family(model.alpha_, shape=(4,))
    _assert_same_fit(model, expected, backend, stored=True)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "fit_intercept", [True, False], ids=["intercept", "nointercept"]
)
@pytest.mark.parametrize("shape", [(60, 10), (15, 40)], ids=["tall", "wide"])
def test_ridge_cv_loo_sparse(backend, rng, shape, fit_intercept, weighted):
    X = sp.random(
        *shape,
        density=0.4,
        format="csr",
        random_state=rng,
        data_rvs=rng.standard_normal,
    )
    y = X @ rng.normal(size=shape[1]) + rng.normal(size=shape[0]) + 1.0
    sw = rng.uniform(0.5, 2.0, shape[0]) if weighted else None
    params = dict(alphas=ALPHAS, fit_intercept=fit_intercept, store_cv_results=True)
    expected = sk.RidgeCV(**params).fit(X, y, sample_weight=sw)
    model = RidgeCV(**params).fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )
    _assert_same_fit(model, expected, backend, stored=True)
    # The dense data's leave-one-out gives the same, too.
    dense = RidgeCV(**params).fit(X.toarray(), y, sample_weight=sw)
    assert dense.alpha_ == model.alpha_
    assert _rel_err(backend.to_numpy(model.coef_), dense.coef_) < RTOL


def test_ridge_cv_sparse_svd_falls_back(rng):
    X = sp.random(30, 5, density=0.5, format="csr", random_state=rng)
    y = rng.normal(size=30)
    with pytest.warns(FutureWarning, match="'svd' mode is not supported"):
        model = RidgeCV(gcv_mode="svd").fit(X, y)
    with pytest.warns(FutureWarning):
        expected = sk.RidgeCV(gcv_mode="svd").fit(X, y)
    assert model.alpha_ == expected.alpha_


def test_ridge_cv_float32_attributes(backend, rng):
    """Computed in float64, stored in the input's dtype (as scikit-learn)."""
    X, y = _regression(rng, 40, 6, 1)
    X, y = X.astype(np.float32), y.astype(np.float32)
    expected = sk.RidgeCV(store_cv_results=True).fit(X, y)
    model = RidgeCV(store_cv_results=True).fit(backend.asarray(X), backend.asarray(y))
    backend.assert_family(model.coef_, dtype=np.float32, shape=(6,))
    backend.assert_family(model.cv_results_, dtype=np.float32, shape=(40, 3))
    assert model.alpha_ == expected.alpha_
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-6
    if backend.family == "host":
        assert type(model.intercept_) is np.float32
        assert type(model.best_score_) is type(expected.best_score_)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("scoring", [None, "neg_mean_squared_error"])
@pytest.mark.parametrize("n_targets", [1, 2])
def test_ridge_cv_search_matches_sklearn(backend, rng, n_targets, scoring, weighted):
    X, y = _regression(rng, 60, 6, n_targets)
    sw = rng.uniform(0.5, 2.0, 60) if weighted else None
    params = dict(alphas=[0.0, 0.1, 1.0, 10.0, 100.0], cv=4, scoring=scoring)
    expected = sk.RidgeCV(**params).fit(X, y, sample_weight=sw)
    model = RidgeCV(**params).fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )
    assert model.alpha_ == expected.alpha_
    assert model.best_score_ == pytest.approx(expected.best_score_, rel=RTOL)
    backend.assert_family(model.coef_, shape=expected.coef_.shape)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL
    assert model.n_features_in_ == 6


def test_ridge_cv_search_sparse(backend, rng):
    """gpuml's search solves sparse folds exactly (scikit-learn's sparse_cg
    stops at tol=1e-4): it agrees with scikit-learn's dense search."""
    X = sp.random(
        80, 8, density=0.5, format="csr", random_state=rng, data_rvs=rng.standard_normal
    )
    y = X @ rng.normal(size=8) + rng.normal(size=80)
    expected = sk.RidgeCV(cv=3).fit(X.toarray(), y)
    model = RidgeCV(cv=3).fit(backend.asarray(X), backend.asarray(y))
    assert model.alpha_ == expected.alpha_
    assert model.best_score_ == pytest.approx(expected.best_score_, rel=RTOL)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL


def test_ridge_cv_feature_names(rng):
    pd = pytest.importorskip("pandas")
    X, y = _regression(rng, 30, 3, 1)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    for cv in (None, 3):
        model = RidgeCV(cv=cv).fit(frame, y)
        assert list(model.feature_names_in_) == ["a", "b", "c"]
        assert model.n_features_in_ == 3


# ---------------------------------------------------------------- classifiers


def _labels(rng, kind, n):
    # (every class with enough members for a 3-fold stratified split)
    if kind == "binary":
        return rng.permutation(np.arange(n) % 2)
    if kind == "multiclass":
        return rng.permutation(np.arange(n) % 3)
    if kind == "strings":
        return np.array(["ant", "bee", "cat"])[rng.permutation(np.arange(n) % 3)]
    return rng.integers(0, 2, (n, 3))  # multilabel


def _clf_data(rng, kind, shape):
    X = rng.normal(size=shape)
    y = _labels(rng, kind, shape[0])
    return X, y


def _as_labels(backend, y):
    return y if y.dtype.kind in "US" else backend.asarray(y)


def _assert_same_classifier(model, expected, backend, X, X_arg):
    backend.assert_family(model.coef_, shape=expected.coef_.shape)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL
    if type(expected.intercept_) is float:
        assert model.intercept_ == 0.0
    else:
        intercept = backend.to_numpy(model.intercept_)
        assert intercept.shape == expected.intercept_.shape
        assert _rel_err(intercept, expected.intercept_) < RTOL
    np.testing.assert_array_equal(backend.to_numpy(model.classes_), expected.classes_)
    decision = model.decision_function(X_arg)
    backend.assert_family(decision, shape=expected.decision_function(X).shape)
    assert _rel_err(backend.to_numpy(decision), expected.decision_function(X)) < RTOL
    np.testing.assert_array_equal(
        backend.to_numpy(model.predict(X_arg)), expected.predict(X)
    )


KINDS = ["binary", "multiclass", "strings", "multilabel"]


@pytest.mark.parametrize("class_weight", [None, "balanced", "dict"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "fit_intercept", [True, False], ids=["intercept", "nointercept"]
)
@pytest.mark.parametrize("kind", KINDS)
def test_ridge_classifier_matches_sklearn(
    backend, rng, kind, fit_intercept, weighted, class_weight
):
    if kind == "multilabel" and class_weight is not None:
        pytest.skip("class weights are for single-output labels")
    X, y = _clf_data(rng, kind, (50, 6))
    if class_weight == "dict":
        class_weight = {np.unique(y)[0]: 3.0}
    sw = rng.uniform(0.5, 2.0, 50) if weighted else None
    params = dict(alpha=0.7, fit_intercept=fit_intercept, class_weight=class_weight)
    expected = sk.RidgeClassifier(**params).fit(X, y, sample_weight=sw)
    X_arg = backend.asarray(X)
    model = RidgeClassifier(**params).fit(
        X_arg,
        _as_labels(backend, y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )
    _assert_same_classifier(model, expected, backend, X, X_arg)
    score = model.score(X_arg, _as_labels(backend, y))
    assert score == pytest.approx(expected.score(X, y))


@pytest.mark.parametrize("solver", ["cholesky", "svd", "sparse_cg"])
def test_ridge_classifier_solvers(rng, solver):
    X, y = _clf_data(rng, "multiclass", (40, 5))
    expected = sk.RidgeClassifier(solver=solver, tol=1e-12).fit(X, y)
    model = RidgeClassifier(solver=solver, tol=1e-12).fit(X, y)
    assert model.solver_ == solver
    assert _rel_err(model.coef_, expected.coef_) < RTOL


@pytest.mark.parametrize("scoring", [None, "accuracy"])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
@pytest.mark.parametrize("shape", [(60, 6), (20, 30)], ids=["tall", "wide"])
@pytest.mark.parametrize("kind", KINDS)
def test_ridge_classifier_cv_matches_sklearn(
    backend, rng, kind, shape, class_weight, scoring
):
    if kind == "multilabel" and class_weight is not None:
        pytest.skip("class weights are for single-output labels")
    X, y = _clf_data(rng, kind, shape)
    params = dict(
        alphas=ALPHAS,
        class_weight=class_weight,
        scoring=scoring,
        store_cv_results=True,
    )
    expected = sk.RidgeClassifierCV(**params).fit(X, y)
    X_arg = backend.asarray(X)
    model = RidgeClassifierCV(**params).fit(X_arg, _as_labels(backend, y))
    assert model.alpha_ == expected.alpha_
    assert np.asarray(backend.to_numpy(model.best_score_)) == pytest.approx(
        expected.best_score_, rel=RTOL
    )
    _assert_same_classifier(model, expected, backend, X, X_arg)
    backend.assert_family(model.cv_results_, shape=expected.cv_results_.shape)
    assert _rel_err(backend.to_numpy(model.cv_results_), expected.cv_results_) < RTOL


@pytest.mark.parametrize("class_weight", [None, "balanced"])
@pytest.mark.parametrize("kind", ["binary", "strings"])
def test_ridge_classifier_cv_search_matches_sklearn(backend, rng, kind, class_weight):
    """``cv`` given: a search of RidgeClassifier (one alpha at a time)."""
    X, y = _clf_data(rng, kind, (45, 5))
    params = dict(alphas=[0.1, 1.0, 10.0], class_weight=class_weight, cv=3)
    expected = sk.RidgeClassifierCV(**params).fit(X, y)
    X_arg = backend.asarray(X)
    model = RidgeClassifierCV(**params).fit(X_arg, _as_labels(backend, y))
    assert model.alpha_ == expected.alpha_
    assert model.best_score_ == pytest.approx(expected.best_score_, rel=RTOL)
    _assert_same_classifier(model, expected, backend, X, X_arg)


def test_ridge_classifier_cv_sparse(backend, rng):
    X = sp.random(
        50,
        30,
        density=0.3,
        format="csr",
        random_state=rng,
        data_rvs=rng.standard_normal,
    )
    y = rng.integers(0, 3, 50)
    expected = sk.RidgeClassifierCV(alphas=ALPHAS).fit(X, y)
    model = RidgeClassifierCV(alphas=ALPHAS).fit(backend.asarray(X), backend.asarray(y))
    assert model.alpha_ == expected.alpha_
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL


# --------------------------------------------------------------------- errors


def _same_error(make_sk, make_gpuml, fit_args, fit_kwargs=None):
    fit_kwargs = fit_kwargs or {}
    with pytest.raises(Exception) as expected:
        make_sk().fit(*fit_args, **fit_kwargs)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        make_gpuml().fit(*fit_args, **fit_kwargs)


@pytest.mark.parametrize(
    "params",
    [
        {"alphas": [1.0, 0.0]},
        {"alphas": [-1.0]},
        {"alphas": [1.0, "a"]},
        {"alphas": [1.0, -0.1], "cv": 3},
        {"cv": 3, "store_cv_results": True},
        {"cv": 3, "alpha_per_target": True},
    ],
)
def test_ridge_cv_errors_as_sklearn(rng, params):
    X, y = _regression(rng, 20, 3, 1)
    _same_error(lambda: sk.RidgeCV(**params), lambda: RidgeCV(**params), (X, y))


def test_ridge_cv_bad_parameters(rng):
    X, y = _regression(rng, 20, 3, 1)
    for params in ({"gcv_mode": "qr"}, {"scoring": "no-such-score"}, {"alphas": -1}):
        with pytest.raises(InvalidParameterError):
            RidgeCV(**params).fit(X, y)
    with pytest.raises(InvalidParameterError):
        RidgeClassifierCV(class_weight="even").fit(X, y > 0)
    with pytest.raises(InvalidParameterError):
        RidgeClassifier(solver="newton").fit(X, y > 0)


def test_ridge_cv_metadata_without_routing(rng):
    X, y = _regression(rng, 20, 3, 1)
    _same_error(sk.RidgeCV, RidgeCV, (X, y), {"foo": 1})


def test_ridge_classifier_regression_target(rng):
    X, y = _regression(rng, 20, 3, 1)
    for make_sk, make in (
        (sk.RidgeClassifier, RidgeClassifier),
        (sk.RidgeClassifierCV, RidgeClassifierCV),
    ):
        _same_error(make_sk, make, (X, y))


def test_ridge_cv_nan(rng):
    X, y = _regression(rng, 20, 3, 1)
    X[3, 1] = np.nan
    for cv in (None, 3):
        # (scikit-learn's leave-one-out names its private _RidgeGCV here)
        with pytest.raises(ValueError, match=r"Input X contains NaN\.\nRidgeCV does"):
            RidgeCV(cv=cv).fit(X, y)


@pytest.mark.parametrize("gcv_mode", [None, "svd"])
def test_ridge_cv_loo_outliers(backend, rng, gcv_mode):
    """An extreme row and an extreme weight: both of gpuml's decompositions
    agree with scikit-learn's SVD mode (its eigen mode of XᵀX forms
    (XᵀX + alpha I)⁻¹ and loses up to tens of percent here; gpuml's works
    from X V and does not)."""
    X, y = _regression(rng, 60, 8, 1)
    X[3] *= 1e4
    y[7] += 1e3
    sw = rng.uniform(0.5, 2.0, 60)
    sw[5] = 1e6
    params = dict(alphas=np.logspace(-3, 3, 7), store_cv_results=True)
    expected = sk.RidgeCV(gcv_mode="svd", **params).fit(X, y, sample_weight=sw)
    model = RidgeCV(gcv_mode=gcv_mode, **params).fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(sw)
    )
    assert model.alpha_ == expected.alpha_
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-8
    assert _rel_err(backend.to_numpy(model.cv_results_), expected.cv_results_) < 1e-5


@pytest.mark.parametrize("alpha_per_target", [False, True])
def test_ridge_cv_column_vector(backend, rng, alpha_per_target):
    """y of shape (n, 1): scikit-learn's shapes (a (1,) intercept, a
    (n, 1, n_alphas) cv_results_, a float alpha_)."""
    X, y = _regression(rng, 30, 4, 1)
    params = dict(alpha_per_target=alpha_per_target, store_cv_results=True)
    expected = sk.RidgeCV(**params).fit(X, y[:, None])
    model = RidgeCV(**params).fit(backend.asarray(X), backend.asarray(y[:, None]))
    assert type(model.alpha_) is float
    assert np.shape(model.intercept_) == np.shape(expected.intercept_) == (1,)
    assert np.shape(model.best_score_) == np.shape(expected.best_score_)
    _assert_same_fit(model, expected, backend, stored=True)


def test_ridge_cv_metadata_routing(rng):
    """With routing, the weights reach the leave-one-out's scorer."""
    from sklearn import config_context
    from sklearn.metrics import make_scorer, mean_squared_error

    X, y = _regression(rng, 30, 4, 1)
    sw = rng.uniform(0.5, 2.0, 30)
    with config_context(enable_metadata_routing=True):
        scoring = make_scorer(mean_squared_error, greater_is_better=False)
        scoring.set_score_request(sample_weight=True)
        expected = sk.RidgeCV(scoring=scoring).fit(X, y, sample_weight=sw)
        model = RidgeCV(scoring=scoring).fit(X, y, sample_weight=sw)
    assert model.alpha_ == expected.alpha_
    assert model.best_score_ == pytest.approx(expected.best_score_, rel=RTOL)


def test_ridge_cv_pickles(rng):
    X, y = _regression(rng, 30, 4, 1)
    for model in (RidgeCV().fit(X, y), RidgeClassifierCV().fit(X, y > 1)):
        model.predict(X)
        clone = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(clone.predict(X), model.predict(X))


@pytest.mark.parametrize("scoring", [None, "roc_auc", "f1_macro"])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "strings"])
def test_ridge_classifier_batched_search(backend, rng, kind, scoring, monkeypatch):
    """A gpuml search fits RidgeClassifier's alphas as one batch per fold,
    with scikit-learn's search's scores."""
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    from gpuml.model_selection import GridSearchCV

    if kind != "binary" and scoring == "roc_auc":
        scoring = "accuracy"
    X, y = _clf_data(rng, kind, (60, 5))
    grid = {"alpha": [0.01, 1.0, 100.0]}
    class_weight = {y[0]: 2.0}
    expected = SkGridSearchCV(
        sk.RidgeClassifier(class_weight=class_weight), grid, cv=3, scoring=scoring
    ).fit(X, y)
    fits = []
    original_fit = RidgeClassifier.fit
    monkeypatch.setattr(
        RidgeClassifier,
        "fit",
        lambda self, *a, **k: fits.append(1) or original_fit(self, *a, **k),
    )
    search = GridSearchCV(
        RidgeClassifier(class_weight=class_weight), grid, cv=3, scoring=scoring
    ).fit(backend.asarray(X), _as_labels(backend, y))
    assert len(fits) == 1  # the refit only
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"],
        expected.cv_results_["mean_test_score"],
        rtol=RTOL,
    )
    # scikit-learn's best, or a candidate whose score ties with it (roc_auc
    # often does: alphas that rank the rows alike), where rounding decides
    scores = expected.cv_results_["mean_test_score"]
    tied = np.isclose(scores, scores.max(), rtol=RTOL, atol=0)
    assert search.best_index_ in np.flatnonzero(tied), (search.best_index_, scores)
    if tied.sum() == 1:
        assert search.best_params_ == expected.best_params_


@pytest.mark.parametrize("Estimator", [RidgeCV, RidgeClassifierCV])
def test_negative_weights_raise(backend, rng, Estimator):
    """scikit-learn's leave-one-out raises (LinAlgError) for negative
    weights; gpuml's says why instead of returning a fit."""
    X = rng.normal(size=(30, 4))
    y = rng.normal(size=30) if Estimator is RidgeCV else np.arange(30) % 2
    with pytest.raises(ValueError, match="Negative values in data passed to"):
        Estimator().fit(
            backend.asarray(X), backend.asarray(y), sample_weight=-np.ones(30)
        )


@pytest.mark.parametrize("width", [4, 20], ids=["tall", "wide"])
@pytest.mark.parametrize("cls", ["RidgeCV", "RidgeClassifierCV"])
def test_values_whose_products_overflow_raise_as_sklearn(backend, rng, cls, width):
    """Features near 1e300: X Xᵀ and Xᵀ X overflow, and the eigen modes
    raise scikit-learn's LinAlgError (with the reason and the fix), where
    LAPACK's decomposition of the infinities came back as zeros: zero
    coefficients, a plausible wrong model. At 1e150 both fit alike."""
    X = rng.normal(size=(12, width))
    y = np.arange(12) % 2 if cls == "RidgeClassifierCV" else np.linspace(0, 1, 12)
    ours, theirs = globals()[cls], getattr(sk, cls)
    with np.errstate(over="ignore", invalid="ignore"):  # NumPy's, in both
        with pytest.raises(np.linalg.LinAlgError):
            theirs().fit(X * 1e300, y)
        with pytest.raises(np.linalg.LinAlgError, match=r"overflow.*Scale the"):
            ours().fit(backend.asarray(X * 1e300), backend.asarray(y))
    with np.errstate(divide="ignore"):  # interpolating folds: 0 in both
        expected = theirs().fit(X * 1e150, y)
        got = ours().fit(backend.asarray(X * 1e150), backend.asarray(y))
    assert got.alpha_ == expected.alpha_
    np.testing.assert_allclose(
        backend.to_numpy(got.decision_function(backend.asarray(X * 1e150)))
        if cls == "RidgeClassifierCV"
        else backend.to_numpy(got.predict(backend.asarray(X * 1e150))),
        expected.decision_function(X * 1e150)
        if cls == "RidgeClassifierCV"
        else expected.predict(X * 1e150),
        rtol=1e-6,
        atol=1e-9,
    )
