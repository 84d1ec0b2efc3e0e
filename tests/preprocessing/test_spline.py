"""SplineTransformer against scikit-learn, on every backend.

Every extrapolation mode, degree, kind of knots, ``include_bias`` and
``sparse_output``; float64, float32 and integer data; ``sample_weight`` in
``fit``; missing values; scikit-learn's errors. Outputs must keep the
input's family and scikit-learn's dtype, shape and sparse format, and equal
its values to float64 rounding. Two documented differences (scikit-learn
1.9 bugs, docs/differences.rst) are checked against scikit-learn's own
results where they are right: one feature at a time, or its dense output.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.preprocessing as skp
from sklearn.utils._param_validation import InvalidParameterError

from gpuml._array import HOST
from gpuml.preprocessing import SplineTransformer

EXTRAPOLATIONS = ["error", "constant", "linear", "continue", "periodic"]
DEGREES = [0, 1, 2, 3]
KNOTS = ["uniform", "quantile", "array"]
N_KNOTS = 4


def as_dense(array):
    return array.toarray() if hasattr(array, "toarray") else np.asarray(array)


def make_knots(X, n_knots=N_KNOTS):
    """Sorted, distinct knots around the range of ``X`` (unevenly spaced)."""
    low, high = X.min(axis=0) - 0.3, X.max(axis=0) + 0.2
    steps = np.linspace(0.0, 1.0, n_knots) ** 1.3
    return low + steps[:, None] * (high - low)


def make_params(extrapolation, degree, knots, X, **params):
    if knots == "array":
        knots = make_knots(X)
    return dict(
        n_knots=N_KNOTS,
        degree=degree,
        knots=knots,
        extrapolation=extrapolation,
        **params,
    )


def new_data(rng, X, spline, extrapolation, n_samples=15):
    """Data to transform: beyond the knots, except for 'error'."""
    X_new = rng.normal(size=(n_samples, X.shape[1])) * 2.5
    if extrapolation == "error":
        knots = np.stack([s.t for s in spline.bsplines_], axis=1)
        k = spline.degree
        X_new = np.clip(X_new, knots[k], knots[-k - 1])
    return X_new


def sklearn_transform(params, X, X_new, sample_weight=None):
    """scikit-learn's result, each feature fitted alone where scikit-learn
    1.9 gets features after the first wrong (extrapolation='linear' with
    degree <= 1: docs/differences.rst)."""
    per_feature = params["extrapolation"] == "linear" and params["degree"] <= 1
    if not per_feature or X.shape[1] == 1:
        spline = skp.SplineTransformer(**params).fit(X, sample_weight=sample_weight)
        return spline.transform(X_new)
    parts = []
    for j in range(X.shape[1]):
        p = dict(params)
        if not isinstance(p["knots"], str):
            p["knots"] = p["knots"][:, j : j + 1]
        spline = skp.SplineTransformer(**p)
        spline.fit(X[:, j : j + 1], sample_weight=sample_weight)
        parts.append(spline.transform(X_new[:, j : j + 1]))
    if sp.issparse(parts[0]):
        return sp.hstack(parts, format="csr")
    return np.hstack(parts)


def assert_matches(backend, got, want, rtol=1e-12):
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    if sp.issparse(want):
        host = backend.to_numpy(got)
        assert host.format == "csr"
        if backend.family == HOST:
            assert type(host) is type(want)
    np.testing.assert_allclose(
        as_dense(backend.to_numpy(got)), as_dense(want), rtol=rtol, atol=0
    )


@pytest.mark.parametrize("sparse_output", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("include_bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("knots", KNOTS)
@pytest.mark.parametrize("degree", DEGREES)
@pytest.mark.parametrize("extrapolation", EXTRAPOLATIONS)
def test_matches_sklearn(
    backend, rng, extrapolation, degree, knots, include_bias, sparse_output
):
    X = rng.normal(size=(30, 3))
    params = make_params(
        extrapolation,
        degree,
        knots,
        X,
        include_bias=include_bias,
        sparse_output=sparse_output,
    )
    ours = SplineTransformer(**params).fit(backend.asarray(X))
    theirs = skp.SplineTransformer(**params).fit(X)
    assert ours.n_features_out_ == theirs.n_features_out_
    for a, b in zip(ours.bsplines_, theirs.bsplines_, strict=True):
        np.testing.assert_array_equal(a.t, b.t)
        np.testing.assert_array_equal(a.c, b.c)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    X_new = new_data(rng, X, theirs, extrapolation)
    try:
        want = sklearn_transform(params, X, X_new)
    except ValueError as error:  # degree 0: 'constant' beyond the range,
        # 'periodic' with sparse output (scikit-learn's code fails)
        with pytest.raises(type(error), match=re.escape(str(error))):
            ours.transform(backend.asarray(X_new))
        return
    assert_matches(backend, ours.transform(backend.asarray(X_new)), want)


@pytest.mark.parametrize("extrapolation", EXTRAPOLATIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_dtypes_as_sklearn(backend, rng, extrapolation, dtype):
    """Dense output in X's float dtype (float64 for integers): scikit-learn
    casts SciPy's float64 values, and so does gpuml."""
    X = (rng.normal(size=(40, 2)) * 4).astype(dtype)
    params = dict(extrapolation=extrapolation, degree=2, n_knots=5)
    ours = SplineTransformer(**params).fit(backend.asarray(X))
    theirs = skp.SplineTransformer(**params).fit(X)
    X_new = X[::-1] if extrapolation == "error" else (X * 1.5).astype(dtype)
    got = ours.transform(backend.asarray(X_new))
    want = theirs.transform(X_new)
    assert_matches(backend, got, want, rtol=1e-12 if dtype != np.float32 else 1e-6)


@pytest.mark.parametrize("extrapolation", ["constant", "linear", "continue"])
def test_sparse_float32_as_sklearn(backend, rng, extrapolation):
    """Sparse output is float64 whatever X's dtype (SciPy's design matrix)."""
    X = rng.normal(size=(40, 2))
    ours = SplineTransformer(extrapolation=extrapolation, sparse_output=True)
    ours.fit(backend.asarray(X))
    # inside the range: scikit-learn's substitution of xmin in float32 can
    # fall outside it (gpuml then raises scikit-learn's error)
    X_new = np.clip(X[:10] * 0.5, X.min(0), X.max(0)).astype(np.float32)
    want = skp.SplineTransformer(extrapolation=extrapolation, sparse_output=True)
    want = want.fit(X).transform(X_new)
    assert_matches(backend, ours.transform(backend.asarray(X_new)), want)


@pytest.mark.parametrize("knots", ["uniform", "quantile"])
def test_sample_weight(backend, rng, knots):
    X = rng.normal(size=(50, 2))
    weight = rng.random(50)
    weight[:5] = 0.0  # ignored by 'uniform'
    X[:5] *= 10
    params = dict(knots=knots, n_knots=6, extrapolation="linear", degree=3)
    ours = SplineTransformer(**params).fit(
        backend.asarray(X), sample_weight=backend.asarray(weight)
    )
    theirs = skp.SplineTransformer(**params).fit(X, sample_weight=weight)
    for a, b in zip(ours.bsplines_, theirs.bsplines_, strict=True):
        np.testing.assert_array_equal(a.t, b.t)
    X_new = rng.normal(size=(20, 2)) * 3
    got = ours.transform(backend.asarray(X_new))
    assert_matches(backend, got, theirs.transform(X_new))


@pytest.mark.parametrize("sparse_output", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("extrapolation", EXTRAPOLATIONS)
def test_missing_values_are_zeros(backend, rng, extrapolation, sparse_output):
    """handle_missing='zeros': a NaN's splines are zero, in every feature
    (scikit-learn 1.9's sparse output zeroes the first feature's only, so
    both outputs are checked against its dense one)."""
    X = rng.normal(size=(30, 3))
    X[[1, 4], 0] = np.nan
    X[[2, 4], 2] = np.nan
    params = dict(extrapolation=extrapolation, degree=2, handle_missing="zeros")
    ours = SplineTransformer(**params, sparse_output=sparse_output)
    ours.fit(backend.asarray(X))
    theirs = skp.SplineTransformer(**params).fit(X)
    X_new = X.copy() if extrapolation == "error" else X * 1.5
    X_new[:, 1] = np.nan  # an all-NaN column
    got = ours.transform(backend.asarray(X_new))
    want = theirs.transform(X_new)
    assert sp.issparse(backend.to_numpy(got)) == sparse_output
    np.testing.assert_allclose(
        as_dense(backend.to_numpy(got)), want, rtol=1e-12, atol=0
    )
    width = ours.n_features_out_ // X.shape[1]
    dense = as_dense(backend.to_numpy(got))
    assert not np.any(dense[np.repeat(np.isnan(X_new), width, axis=1)])


def test_linear_low_degree_every_feature_as_the_first(backend, rng):
    """scikit-learn 1.9 increments ``degree`` once per feature for
    'linear' with degree <= 1 (its later features use other boundaries);
    gpuml treats every feature as scikit-learn treats the first."""
    X = rng.normal(size=(30, 3))
    X_new = X * 2
    params = dict(extrapolation="linear", degree=1, n_knots=4)
    got = SplineTransformer(**params).fit(backend.asarray(X))
    got = backend.to_numpy(got.transform(backend.asarray(X_new)))
    for j in range(3):
        want = skp.SplineTransformer(**params).fit(X[:, [j]])
        want = want.transform(X_new[:, [j]])
        np.testing.assert_allclose(got[:, 4 * j : 4 * j + 4], want, rtol=1e-12)
    first = skp.SplineTransformer(**params).fit(X).transform(X_new)[:, :4]
    np.testing.assert_allclose(got[:, :4], first, rtol=1e-12)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("include_bias", [True, False])
def test_order(backend, rng, order, include_bias):
    X = rng.normal(size=(20, 2))
    params = dict(order=order, include_bias=include_bias)
    got = SplineTransformer(**params).fit_transform(backend.asarray(X))
    assert got.flags[f"{order}_CONTIGUOUS"]
    want = skp.SplineTransformer(**params).fit_transform(X)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-12)


def test_periodic_is_periodic(backend, rng):
    X = rng.uniform(0, 10, size=(40, 1))
    spline = SplineTransformer(
        degree=3, knots=np.linspace(0, 10, 6)[:, None], extrapolation="periodic"
    ).fit(backend.asarray(X))
    a = backend.to_numpy(spline.transform(backend.asarray(X)))
    b = backend.to_numpy(spline.transform(backend.asarray(X + 10.0)))
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("sparse_output", [False, True], ids=["dense", "sparse"])
def test_error_beyond_knots(backend, rng, sparse_output):
    """scikit-learn's errors: its own for dense output, SciPy's for sparse."""
    X = rng.normal(size=(20, 2))
    params = dict(extrapolation="error", sparse_output=sparse_output)
    ours = SplineTransformer(**params).fit(backend.asarray(X))
    message = "Out of bounds" if sparse_output else "beyond the limits of the knots"
    with pytest.raises(ValueError, match=message):
        ours.transform(backend.asarray(X * 3))


def test_host_cases_keep_the_family(backend, rng):
    """degree=0 with 'constant' runs scikit-learn's transform on the host;
    the result is in the input's family."""
    X = rng.normal(size=(20, 2))
    params = dict(degree=0, extrapolation="constant", n_knots=2)
    got = SplineTransformer(**params).fit(backend.asarray(X))
    got = got.transform(backend.asarray(X))
    want = skp.SplineTransformer(**params).fit(X).transform(X)
    assert_matches(backend, got, want)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(knots=[[1.0], [1.0]]), "sorted without duplicates"),
        (dict(knots=[[1.0]]), "Number of knots"),
        (dict(knots=[[0.0, 1.0], [1.0, 2.0]]), r"knots.shape\[1\] == n_features"),
        (dict(n_knots=3, degree=3, extrapolation="periodic"), "degree < n_knots"),
    ],
)
def test_fit_errors_as_sklearn(backend, rng, params, match):
    X = rng.normal(size=(10, 1))
    with pytest.raises(ValueError, match=match):
        SplineTransformer(**params).fit(backend.asarray(X))


def test_validation_errors_as_sklearn(backend, rng):
    X = rng.normal(size=(10, 2))
    with pytest.raises(InvalidParameterError):
        SplineTransformer(n_knots=1).fit(backend.asarray(X))
    with pytest.raises(InvalidParameterError):
        SplineTransformer(extrapolation="nope").fit(backend.asarray(X))
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="handle_missing='error'"):
        SplineTransformer().fit(backend.asarray(X_nan))
    spline = SplineTransformer().fit(backend.asarray(X))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        spline.transform(backend.asarray(X_nan))
    with pytest.raises(ValueError, match="features"):
        spline.transform(backend.asarray(X[:, :1]))


def test_pandas_names_and_pickle(rng):
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(rng.normal(size=(20, 2)), columns=["a", "b"])
    spline = SplineTransformer(n_knots=3, degree=2).fit(X)
    assert list(spline.get_feature_names_out()[:2]) == ["a_sp_0", "a_sp_1"]
    spline.set_output(transform="pandas")
    out = spline.transform(X)
    assert list(out.columns) == list(spline.get_feature_names_out())
    loaded = pickle.loads(pickle.dumps(spline))
    np.testing.assert_array_equal(loaded.transform(X).to_numpy(), out.to_numpy())


def test_in_a_searched_pipeline(backend, rng):
    """gpuml's search of a Pipeline led by the splines, as scikit-learn's."""
    from sklearn.linear_model import Ridge as SkRidge
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV
    from sklearn.pipeline import make_pipeline

    from gpuml.linear_model import Ridge
    from gpuml.model_selection import GridSearchCV

    X = rng.uniform(-3, 3, size=(60, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    grid = {"splinetransformer__n_knots": [4, 6], "ridge__alpha": [0.1, 1.0]}
    ours = GridSearchCV(make_pipeline(SplineTransformer(), Ridge()), grid, cv=3)
    ours.fit(backend.asarray(X), backend.asarray(y))
    theirs = SkGridSearchCV(
        make_pipeline(skp.SplineTransformer(), SkRidge()), grid, cv=3
    ).fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(
        backend.to_numpy(ours.cv_results_["mean_test_score"]),
        theirs.cv_results_["mean_test_score"],
        rtol=1e-8,
    )
