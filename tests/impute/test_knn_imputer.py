"""KNNImputer: parity with scikit-learn on every backend (weights, numbers of
neighbours, all-missing columns and rows, indicator, placeholders other than
NaN, float32), errors, ``copy=False``, pickling and a search over a pipeline.

scikit-learn's KNNImputer is the oracle; float64 values agree within 1e-12.
Data are continuous (no two donors at the same distance), so that the GPU's
``argpartition`` chooses the donors NumPy's does.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn import impute as sk_impute
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.metrics.pairwise import (
    nan_euclidean_distances as sk_nan_euclidean_distances,
)
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.impute import KNNImputer
from gpuml.impute._knn import nan_euclidean
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV


def _data(rng, n=50, p=6, missing=np.nan, dtype=np.float64, rate=0.25):
    X = rng.normal(size=(n, p))
    X[rng.random(X.shape) < rate] = np.nan
    X = X.astype(dtype)
    if not np.isnan(missing):
        X[np.isnan(X)] = missing
    return X


def _check(ours, theirs, backend, atol=1e-12):
    """Equal to scikit-learn's to float64 rounding: the GPU sums a distance's
    squares in another order, and 'distance' weights (1/d) carry that
    rounding into the means (seen: 5e-12 apart, 3e-11 relative, on an H100)."""
    backend.assert_family(ours, dtype=theirs.dtype, shape=theirs.shape)
    np.testing.assert_allclose(backend.to_numpy(ours), theirs, rtol=1e-10, atol=atol)


def _both(params, X_fit, X):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theirs = sk_impute.KNNImputer(**params).fit(X_fit).transform(X)
    return theirs


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("n_neighbors", [1, 3, 5, 60])
def test_matches_sklearn(backend, rng, weights, n_neighbors):
    X_fit, X = _data(rng), _data(rng, n=30, rate=0.4)
    params = {"n_neighbors": n_neighbors, "weights": weights}
    ours = KNNImputer(**params).fit(backend.asarray(X_fit))
    _check(ours.transform(backend.asarray(X)), _both(params, X_fit, X), backend)
    _check(
        KNNImputer(**params).fit_transform(backend.asarray(X_fit)),
        _both(params, X_fit, X_fit),
        backend,
    )


@pytest.mark.parametrize("keep_empty_features", [False, True])
@pytest.mark.parametrize("add_indicator", [False, True])
def test_all_missing_columns_and_rows(backend, rng, keep_empty_features, add_indicator):
    X_fit, X = _data(rng), _data(rng, n=20)
    X_fit[:, 2] = np.nan  # a column without any value at fit
    X[3] = np.nan  # a row without any value: the columns' means
    X[5, 1:] = np.nan
    X_fit[:4, :5] = np.nan  # rows with no feature in common with some
    X[7, :5] = np.nan
    params = {
        "keep_empty_features": keep_empty_features,
        "add_indicator": add_indicator,
        "n_neighbors": 4,
    }
    ours = KNNImputer(**params).fit(backend.asarray(X_fit))
    _check(ours.transform(backend.asarray(X)), _both(params, X_fit, X), backend)
    theirs = sk_impute.KNNImputer(**params).fit(X_fit)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )


def test_receivers_in_chunks_of_working_memory(backend, rng):
    """scikit-learn's chunks: 8 bytes a fitted row of ``working_memory``."""
    from sklearn import config_context

    X_fit, X = _data(rng), _data(rng, n=40, rate=0.4)
    params = {"weights": "distance", "n_neighbors": 3}
    with config_context(working_memory=7 * 8 * 50 / 2**20):  # 7 rows a chunk
        ours = KNNImputer(**params).fit(backend.asarray(X_fit))
        ours = ours.transform(backend.asarray(X))
        theirs = _both(params, X_fit, X)
    _check(ours, theirs, backend)


def test_no_missing_value_to_impute(backend, rng):
    X_fit = _data(rng)
    X_fit[:, 0] = np.nan
    X = rng.normal(size=(10, 6))
    params = {"keep_empty_features": True, "add_indicator": True}
    _check(
        KNNImputer(**params).fit(backend.asarray(X_fit)).transform(backend.asarray(X)),
        _both(params, X_fit, X),
        backend,
    )


@pytest.mark.parametrize("missing", [-1.0, 0.0])
def test_other_placeholders(backend, rng, missing):
    X_fit, X = _data(rng, missing=missing), _data(rng, n=25, missing=missing)
    params = {"missing_values": missing, "weights": "distance", "n_neighbors": 3}
    _check(
        KNNImputer(**params).fit(backend.asarray(X_fit)).transform(backend.asarray(X)),
        _both(params, X_fit, X),
        backend,
    )


def _exact_float32_data(rng, n, p=6):
    """float32 data on a grid of 1/64 in [-8, 8): every square and sum of
    the distances (scikit-learn's float64 expansion, then the float32
    subtraction of the missing coordinates' share) is exact, whatever the
    order of the additions."""
    X = rng.integers(-512, 512, size=(n, p)) / 64
    X[rng.random(X.shape) < 0.25] = np.nan
    return X.astype(np.float32)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_float32_stays_float32(backend, rng, weights):
    """float32 in, float32 out, scikit-learn's values to float32 rounding.

    On continuous float32 data the GPU's distances are not scikit-learn's:
    scikit-learn subtracts the missing coordinates' share in float32, where
    the order of the products' sums (cuBLAS's, not NumPy's BLAS's) moves
    close pairs' distances by far more than an ulp ('distance' means up to
    7e-3 apart in a CPU emulation, another donor on a near tie;
    docs/differences.rst). The
    data are drawn where that arithmetic is exact, with no two donors of a
    row at the same distance, so the comparison is of the imputation alone.
    """
    for _ in range(100):
        X_fit, X = _exact_float32_data(rng, 50), _exact_float32_data(rng, 30)
        dist = sk_nan_euclidean_distances(X, X_fit)
        if all(len(np.unique(d[~np.isnan(d)])) == np.sum(~np.isnan(d)) for d in dist):
            break
    else:
        pytest.fail("no data without tied donors in 100 draws")
    params = {"weights": weights, "n_neighbors": 3}
    _check(
        KNNImputer(**params).fit(backend.asarray(X_fit)).transform(backend.asarray(X)),
        _both(params, X_fit, X),
        backend,
        atol=1e-5,
    )


def test_integers_become_float64(backend, rng):
    X = rng.integers(0, 1000, size=(30, 4))
    X[rng.random(X.shape) < 0.2] = -1
    params = {"missing_values": -1}
    _check(
        KNNImputer(**params).fit_transform(backend.asarray(X)),
        _both(params, X, X),
        backend,
    )


def test_callables_on_the_host(backend, rng):
    X_fit, X = _data(rng), _data(rng, n=20)
    seen = set()

    def weights(dist):
        seen.add(type(dist).__module__.partition(".")[0])
        return np.exp(-dist)

    def metric(x, y, missing_values=np.nan):
        both = ~(np.isnan(x) | np.isnan(y))
        return np.abs(x[both] - y[both]).sum() if both.any() else np.nan

    for params in ({"weights": weights}, {"metric": metric}):
        ours = KNNImputer(**params).fit(backend.asarray(X_fit))
        _check(ours.transform(backend.asarray(X)), _both(params, X_fit, X), backend)
    assert seen == {"numpy"}


def test_nan_euclidean_matches_sklearn(rng):
    from sklearn.metrics.pairwise import nan_euclidean_distances

    X, Y = _data(rng, n=20), _data(rng, n=30)
    X[0] = np.nan
    ours = nan_euclidean(X, Y, np.isnan(X), np.isnan(Y), np)
    np.testing.assert_array_equal(ours, nan_euclidean_distances(X, Y))


def test_ties_as_sklearn():
    """Donors at the same distance: NumPy's argpartition, as scikit-learn."""
    X = np.array([[0, 0, 0], [1, 1, 1], [-1, -1, 3], [1, 1, 5], [np.nan, 0, 0]])
    for n_neighbors in (1, 2, 3):
        np.testing.assert_array_equal(
            KNNImputer(n_neighbors=n_neighbors).fit_transform(X),
            sk_impute.KNNImputer(n_neighbors=n_neighbors).fit_transform(X),
        )


def test_errors_are_scikit_learns(backend):
    X = backend.asarray(np.array([[1.0, np.nan], [3.0, 4.0]]))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        KNNImputer(missing_values=-1).fit(X)
    with pytest.raises(InvalidParameterError, match="'n_neighbors' parameter"):
        KNNImputer(n_neighbors=0).fit(X)
    with pytest.raises(InvalidParameterError, match="'weights' parameter"):
        KNNImputer(weights="closest").fit(X)
    with pytest.raises(InvalidParameterError, match="'metric' parameter"):
        KNNImputer(metric="euclidean").fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but KNNImputer"):
        KNNImputer().fit(X).transform(backend.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError, match="could not convert string to float"):
        KNNImputer().fit(np.array([["a", "b"], ["c", "d"]], dtype=object))
    import scipy.sparse as sp

    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense"):
        KNNImputer().fit(sp.csr_matrix(np.ones((2, 2))))


def test_copy(rng):
    X = _data(rng)
    expected = sk_impute.KNNImputer().fit_transform(X)
    Y = X.copy()
    KNNImputer().fit(Y).transform(Y)
    np.testing.assert_array_equal(np.isnan(Y), np.isnan(X))
    Xt = KNNImputer(copy=False).fit(Y).transform(Y)
    assert Xt is Y
    np.testing.assert_allclose(Y, expected, rtol=0, atol=1e-12)


def test_pickling_keeps_the_fit(backend, rng):
    X = backend.asarray(_data(rng))
    fitted = KNNImputer(add_indicator=True, weights="distance").fit(X)
    loaded = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(
        backend.to_numpy(loaded.transform(X)), backend.to_numpy(fitted.transform(X))
    )


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": [1.0, np.nan, 5.0, 2.0], "b": [np.nan, 2.0, 8.0, 1.0]})
    out = KNNImputer(n_neighbors=2, add_indicator=True).set_output(transform="pandas")
    out = out.fit_transform(X)
    theirs = sk_impute.KNNImputer(n_neighbors=2, add_indicator=True)
    theirs = theirs.set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == list(theirs.columns)
    np.testing.assert_array_equal(out.to_numpy(), theirs.to_numpy())


def test_search_over_n_neighbors_matches_sklearn(rng):
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    grid = {
        "knnimputer__n_neighbors": [1, 3, 10],
        "knnimputer__weights": ["uniform", "distance"],
    }
    ours = GridSearchCV(
        make_pipeline(KNNImputer(), LogisticRegression(tol=1e-10)), grid, cv=3
    ).fit(X, y)
    theirs = SkGridSearchCV(
        make_pipeline(
            sk_impute.KNNImputer(), SkLogisticRegression(tol=1e-10, max_iter=1000)
        ),
        grid,
        cv=3,
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-10,
    )
    assert ours.best_params_ == theirs.best_params_


def _proxy_namespace():
    """A namespace that is not NumPy but computes with it: the helpers'
    device branches (no ``xp is np`` shortcut) run where no GPU is."""
    import types

    proxy = types.ModuleType("proxy_xp")
    proxy.__getattr__ = lambda name: getattr(np, name)
    return proxy


@pytest.mark.parametrize("weights", ["uniform", "distance", "callable"])
def test_helpers_on_another_namespace(rng, weights):
    from gpuml.impute._knn import _impute_column

    xp = _proxy_namespace()
    X, Y = _data(rng, n=10), _data(rng, n=30)
    X[0] = np.nan
    dist = nan_euclidean(X, Y, np.isnan(X), np.isnan(Y), xp)
    np.testing.assert_array_equal(dist, nan_euclidean(X, Y, *map(np.isnan, (X, Y)), np))
    donors = np.flatnonzero(~np.isnan(Y[:, 1]))
    subset = dist[1:][:, donors]
    subset[0, :3] = 0.0  # donors at distance 0: weight 1, the others 0
    seen = []

    def callable_weights(d):
        seen.append(type(d))
        return 1 / (1 + d)

    w = callable_weights if weights == "callable" else weights
    ours = _impute_column(subset, 4, Y[donors, 1], w, xp)
    theirs = _impute_column(subset, 4, Y[donors, 1], w, np)
    np.testing.assert_array_equal(ours, theirs)
    assert set(seen) <= {np.ndarray}


def test_a_searchs_best_estimator_moves_the_training_data(monkeypatch):
    """``move_fitted_to_family`` (a search's ``best_estimator_`` fitted on
    device copies of host data) moves the private training data too."""
    import gpuml.base

    imputer = KNNImputer(add_indicator=True).fit([[1.0, np.nan], [2.0, 3.0]])
    moved = []

    def record(value, family):
        moved.append(value)
        return value

    monkeypatch.setattr(gpuml.base, "to_family_attribute", record)
    gpuml.base.move_fitted_to_family(make_pipeline(imputer), "host")
    assert any(value is imputer._fit_X for value in moved)
    assert any(value is imputer._mask_fit_X for value in moved)
    assert any(value is imputer.indicator_.features_ for value in moved)
