"""PolynomialFeatures against scikit-learn, on every backend.

Dense, CSR and CSC data of float64 and float32 (and integers, which become
float64), every degree form, interaction_only and include_bias; outputs must
keep the input's family, scikit-learn's dtype, shape and sparse format, and
sparse outputs scikit-learn's stored entries.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.preprocessing as skp
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils._param_validation import InvalidParameterError

from gpuml._array import HOST
from gpuml.base import accepts_device_input
from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV
from gpuml.preprocessing import PolynomialFeatures

DEGREES = [0, 1, 2, 3, 4, (2, 3), (0, 2), (3, 4), (2, 2)]
TOL = {np.float64: 1e-12, np.float32: 1e-5}


def params_id(params):
    return "-".join(f"{k}={v}" for k, v in params.items())


PARAMS = [
    {"degree": degree, "interaction_only": io, "include_bias": bias}
    for degree in DEGREES
    for io in (False, True)
    for bias in (True, False)
    if not (degree == 0 and not bias)
]


def make_data(rng, n_samples=20, n_features=4, *, dtype=np.float64, density=0.5):
    X = rng.normal(size=(n_samples, n_features))
    X[rng.random(X.shape) > density] = 0.0
    X[3] = 0.0  # an empty row
    return X.astype(dtype)


def as_dense(array):
    return array.toarray() if hasattr(array, "toarray") else np.asarray(array)


@pytest.mark.parametrize("params", PARAMS, ids=params_id)
@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_matches_sklearn(backend, rng, params, fmt):
    X = make_data(rng)
    ours = PolynomialFeatures(**params).fit(backend.as_format(X, fmt))
    theirs = skp.PolynomialFeatures(**params).fit(sp.csr_matrix(X))
    assert ours.n_output_features_ == theirs.n_output_features_
    np.testing.assert_array_equal(ours.powers_, theirs.powers_)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    X_new = make_data(rng, 9)
    host_new = X_new if fmt == "dense" else getattr(sp, f"{fmt}_matrix")(X_new)
    got = ours.transform(backend.as_format(X_new, fmt))
    want = theirs.transform(host_new)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    np.testing.assert_allclose(
        as_dense(backend.to_numpy(got)), as_dense(want), rtol=1e-13, atol=0
    )
    if fmt != "dense":
        host = backend.to_numpy(got)
        if backend.family == HOST:
            assert host.format == want.format
        host = host.asformat(want.format)
        want.sort_indices()
        np.testing.assert_array_equal(host.indptr, want.indptr)
        np.testing.assert_array_equal(host.indices, want.indices)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_dtypes_as_sklearn(backend, rng, dtype, fmt):
    X = (make_data(rng, density=1.0) * 3).astype(dtype)
    if fmt == "csr" and backend.family != HOST and dtype == np.int64:
        pytest.skip("cupyx sparse holds floats")
    ours = PolynomialFeatures(3).fit_transform(backend.as_format(X, fmt))
    want = skp.PolynomialFeatures(3).fit_transform(
        X if fmt == "dense" else sp.csr_matrix(X)
    )
    backend.assert_family(ours, dtype=want.dtype, shape=want.shape)
    tol = TOL.get(dtype, 1e-13)
    np.testing.assert_allclose(
        as_dense(backend.to_numpy(ours)), as_dense(want), rtol=tol, atol=0
    )


@pytest.mark.parametrize("order", ["C", "F"])
def test_order(backend, rng, order):
    X = make_data(rng, density=1.0)
    got = PolynomialFeatures(2, order=order).fit_transform(backend.asarray(X))
    assert got.flags[f"{order}_CONTIGUOUS"]
    np.testing.assert_allclose(
        backend.to_numpy(got),
        skp.PolynomialFeatures(2, order=order).fit_transform(X),
        rtol=1e-13,
    )


def test_explicit_zeros_and_unsorted_indices(backend, rng):
    """Every product of stored entries is stored (explicit zeros too)."""
    X = sp.csr_matrix(make_data(rng, 6, 3))
    X.data[::3] = 0.0  # explicit zeros
    ours = PolynomialFeatures(3).fit_transform(backend.asarray(X))
    want = skp.PolynomialFeatures(3).fit_transform(X)
    host = backend.to_numpy(ours)
    assert host.nnz == want.nnz
    np.testing.assert_allclose(host.toarray(), want.toarray(), rtol=1e-13)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"degree": 0, "include_bias": False}, "Setting degree to zero"),
        ({"degree": (0, 0), "include_bias": False}, "Setting both min_degree"),
        ({"degree": (3, 2)}, r"degree=\(min_degree, max_degree\) must"),
        ({"degree": (-1, 2)}, r"degree=\(min_degree, max_degree\) must"),
        ({"degree": (1, 2, 3)}, "degree must be a non-negative int or tuple"),
    ],
)
def test_errors_as_sklearn(params, message):
    X = np.ones((3, 2))
    for cls in (PolynomialFeatures, skp.PolynomialFeatures):
        with pytest.raises(ValueError, match=message):
            cls(**params).fit(X)


def test_invalid_parameters_and_features():
    with pytest.raises(InvalidParameterError):
        PolynomialFeatures(degree=-1).fit(np.ones((3, 2)))
    with pytest.raises(InvalidParameterError):
        PolynomialFeatures(order="K").fit(np.ones((3, 2)))
    poly = PolynomialFeatures().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X has 3 features"):
        poly.transform(np.ones((3, 3)))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        poly.transform(np.array([[np.nan, 1.0]]))


def test_feature_names_from_pandas():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    poly = PolynomialFeatures(2).fit(X)
    assert list(poly.get_feature_names_out()) == ["1", "a", "b", "a^2", "a b", "b^2"]
    out = poly.set_output(transform="pandas").transform(X)
    assert list(out.columns) == list(poly.get_feature_names_out())


def test_pickle_round_trip(backend, rng):
    X = backend.asarray(make_data(rng))
    poly = PolynomialFeatures((1, 3), interaction_only=True).fit(X)
    loaded = pickle.loads(pickle.dumps(poly))
    np.testing.assert_array_equal(
        backend.to_numpy(loaded.transform(X)), backend.to_numpy(poly.transform(X))
    )


def test_grid_search_of_a_pipeline_matches_sklearn(rng):
    X = rng.normal(size=(90, 3))
    y = X[:, 0] ** 2 - X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=90)
    grid = {
        "polynomialfeatures__degree": [1, 2, 3],
        "ridge__alpha": [0.01, 1.0, 100.0],
    }
    ours = GridSearchCV(make_pipeline(PolynomialFeatures(), Ridge()), grid, cv=3)
    theirs = SkGridSearchCV(
        make_pipeline(skp.PolynomialFeatures(), SkRidge()), grid, cv=3
    )
    ours.fit(X, y)
    theirs.fit(X, y)
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-9, atol=1e-10
        )
    assert ours.best_params_ == theirs.best_params_
    assert accepts_device_input(ours.estimator)
