"""StandardScaler against scikit-learn, on every backend.

Fitted attributes, transforms and inverse transforms are compared with
:class:`sklearn.preprocessing.StandardScaler` on fresh random data (dense and
sparse, float64 and float32, with and without sample weights and NaNs); the
outputs' family, dtype and shape are checked together.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml._array import HOST
from gpuml.preprocessing import StandardScaler

ATTRIBUTES = ("mean_", "var_", "scale_", "n_samples_seen_")
RTOL = {np.float64: 1e-10, np.float32: 1e-5}
# Transforms of float32 data are rounded to float32.
TRANSFORM_TOL = {
    np.float64: dict(rtol=1e-10, atol=1e-10),
    np.float32: dict(rtol=1e-5, atol=1e-5),
}


def make_data(
    rng, n_samples=40, n_features=5, *, dtype=np.float64, nan=False, density=None
):
    """Features of very different scales and offsets, optionally with NaNs."""
    scales = 10.0 ** rng.uniform(-2, 3, size=n_features)
    offsets = rng.uniform(-50, 50, size=n_features)
    X = rng.normal(size=(n_samples, n_features)) * scales + offsets
    if density is not None:
        X[rng.random(X.shape) > density] = 0.0
    if nan:
        mask = rng.random(X.shape) < 0.15
        mask[0] = False  # every feature keeps a value
        X[mask] = np.nan
    return X.astype(dtype)


def assert_attributes_match(backend, got, expected, rtol):
    """Same attributes as scikit-learn: values, dtypes, None-ness and types."""
    for name in ATTRIBUTES:
        want = getattr(expected, name)
        have = getattr(got, name)
        if want is None:
            assert have is None, name
            continue
        backend.assert_family(have, dtype=np.asarray(want).dtype)
        if backend.family == HOST:
            assert type(have) is type(want), (name, type(have), type(want))
        np.testing.assert_allclose(
            backend.to_numpy(have), want, rtol=rtol, atol=1e-12, err_msg=name
        )


def assert_output_matches(backend, got, expected, dtype):
    backend.assert_family(got, dtype=expected.dtype, shape=expected.shape)
    got = backend.to_numpy(got)
    if sp.issparse(expected):
        assert got.format == expected.format
        got, expected = got.toarray(), expected.toarray()
    np.testing.assert_allclose(got, expected, **TRANSFORM_TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "with_mean, with_std", [(True, True), (False, True), (True, False), (False, False)]
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nan", [False, True])
def test_dense_matches_sklearn(backend, rng, dtype, with_mean, with_std, weighted, nan):
    X = make_data(rng, dtype=dtype, nan=nan)
    X_new = make_data(rng, n_samples=7, dtype=dtype, nan=nan)
    sample_weight = rng.uniform(0.1, 3.0, size=X.shape[0]) if weighted else None
    params = dict(with_mean=with_mean, with_std=with_std)

    expected = SkStandardScaler(**params).fit(X, sample_weight=sample_weight)
    got = StandardScaler(**params).fit(backend.asarray(X), sample_weight=sample_weight)
    assert_attributes_match(backend, got, expected, RTOL[dtype])
    assert got.n_features_in_ == 5

    X_tr = got.transform(backend.asarray(X_new))
    assert_output_matches(backend, X_tr, expected.transform(X_new), dtype)
    np.testing.assert_array_equal(np.isnan(backend.to_numpy(X_tr)), np.isnan(X_new))
    X_back = got.inverse_transform(backend.asarray(X_new))
    assert_output_matches(backend, X_back, expected.inverse_transform(X_new), dtype)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("with_std", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nan", [False, True])
def test_sparse_matches_sklearn(backend, rng, fmt, dtype, with_std, weighted, nan):
    X = make_data(rng, dtype=dtype, nan=nan, density=0.3)
    sample_weight = rng.uniform(0.1, 3.0, size=X.shape[0]) if weighted else None
    X_sp = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)

    expected = SkStandardScaler(with_mean=False, with_std=with_std)
    expected.fit(X_sp, sample_weight=sample_weight)
    got = StandardScaler(with_mean=False, with_std=with_std)
    got.fit(backend.as_format(X, fmt), sample_weight=sample_weight)
    assert_attributes_match(backend, got, expected, RTOL[dtype])

    # scikit-learn returns CSR for CSC input too.
    X_tr = got.transform(backend.as_format(X, fmt))
    assert_output_matches(backend, X_tr, expected.transform(X_sp), dtype)
    X_back = got.inverse_transform(backend.as_format(X, fmt))
    assert_output_matches(backend, X_back, expected.inverse_transform(X_sp), dtype)


@pytest.mark.parametrize("sparse_format", [None, "csr", "csc"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nan", [False, True])
def test_partial_fit_equals_fit(backend, rng, sparse_format, weighted, nan):
    X = make_data(rng, n_samples=60, nan=nan, density=0.4 if sparse_format else None)
    sample_weight = rng.uniform(0.1, 3.0, size=X.shape[0]) if weighted else None
    with_mean = sparse_format is None
    bounds = [0, 7, 25, 26, 60]
    # scikit-learn's update gives NaN for a feature without values in a batch
    # (see the next test): every batch keeps one value per feature.
    X[bounds[:-1]] = np.nan_to_num(X[bounds[:-1]], nan=1.5)

    def to_input(part):
        """(host input for scikit-learn, backend input for gpuml)."""
        if sparse_format is None:
            return part, backend.asarray(part)
        host = sp.csr_matrix(part) if sparse_format == "csr" else sp.csc_matrix(part)
        return host, backend.as_format(part, sparse_format)

    expected = SkStandardScaler(with_mean=with_mean)
    got = StandardScaler(with_mean=with_mean)
    for lo, hi in itertools.pairwise(bounds):
        weights = None if sample_weight is None else sample_weight[lo:hi]
        host_part, part = to_input(X[lo:hi])
        expected.partial_fit(host_part, sample_weight=weights)
        got.partial_fit(part, sample_weight=weights)
    assert_attributes_match(backend, got, expected, 1e-10)

    one_fit = StandardScaler(with_mean=with_mean)
    one_fit.fit(to_input(X)[1], sample_weight=sample_weight)
    for name in ATTRIBUTES:
        np.testing.assert_allclose(
            backend.to_numpy(getattr(got, name)),
            backend.to_numpy(getattr(one_fit, name)),
            rtol=1e-10,
            err_msg=name,
        )


def test_partial_fit_batch_without_values_for_a_feature(backend, rng):
    # A feature that is all NaN in one batch: scikit-learn's update gives NaN
    # (0/0) there; gpuml keeps the statistics of the other batches, which is
    # what fitting all the data at once gives.
    X = make_data(rng, n_samples=30)
    X[10:20, 1] = np.nan
    X[:10, 3] = np.nan
    got = StandardScaler()
    for lo in (0, 10, 20):
        got.partial_fit(backend.asarray(X[lo : lo + 10]))
    expected = SkStandardScaler().fit(X)
    assert_attributes_match(backend, got, expected, 1e-10)


def test_partial_fit_increments_and_fit_resets(backend, rng):
    X = make_data(rng, n_samples=20)
    scaler = StandardScaler()
    scaler.partial_fit(backend.asarray(X[:5]))
    scaler.partial_fit(backend.asarray(X[5:]))
    assert int(scaler.n_samples_seen_) == 20
    scaler.fit(backend.asarray(X[:8, :3]))
    assert int(scaler.n_samples_seen_) == 8
    assert scaler.n_features_in_ == 3


def test_constant_and_near_constant_features(backend, rng):
    X = make_data(rng, n_samples=30)
    X[:, 0] = 3.0
    X[:, 1] = 1e10 + rng.normal(size=30) * 1e-7  # variance below rounding
    X[:, 2] = 0.0
    expected = SkStandardScaler().fit(X)
    got = StandardScaler().fit(backend.asarray(X))
    assert_attributes_match(backend, got, expected, 1e-10)
    scale = backend.to_numpy(got.scale_)
    np.testing.assert_array_equal(scale[:3], 1.0)
    X_tr = backend.to_numpy(got.transform(backend.asarray(X)))
    np.testing.assert_allclose(X_tr[:, [0, 2]], 0.0, atol=0)
    np.testing.assert_allclose(X_tr, expected.transform(X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("sparse_format", [None, "csr", "csc"])
def test_inverse_transform_round_trip(backend, rng, sparse_format):
    X = make_data(rng, nan=True, density=0.3 if sparse_format else None)
    with_mean = sparse_format is None
    X_in = (
        backend.asarray(X)
        if sparse_format is None
        else backend.as_format(X, sparse_format)
    )
    scaler = StandardScaler(with_mean=with_mean).fit(X_in)
    back = scaler.inverse_transform(scaler.transform(X_in))
    back = backend.to_numpy(back)
    if sparse_format:
        back = back.toarray()
    np.testing.assert_allclose(back, X, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize(
    "dtype, expected_dtype",
    [(np.int64, np.float64), (np.float32, np.float32), (np.float16, np.float16)],
)
def test_output_dtype(backend, rng, dtype, expected_dtype):
    X = (rng.normal(size=(20, 3)) * 10).astype(dtype)
    scaler = StandardScaler().fit(backend.asarray(X))
    assert scaler.mean_.dtype == np.float64
    X_tr = scaler.transform(backend.asarray(X))
    backend.assert_family(X_tr, dtype=expected_dtype, shape=X.shape)
    assert SkStandardScaler().fit_transform(X).dtype == expected_dtype


def test_set_output_pandas_keeps_column_names(backend, rng):
    if backend.family != HOST:
        pytest.skip("pandas output is for host input")
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(make_data(rng, n_features=3), columns=["a", "b", "c"])
    scaler = StandardScaler().set_output(transform="pandas").fit(X)
    np.testing.assert_array_equal(scaler.feature_names_in_, ["a", "b", "c"])
    np.testing.assert_array_equal(scaler.get_feature_names_out(), ["a", "b", "c"])
    out = scaler.transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["a", "b", "c"]
    expected = SkStandardScaler().fit(X).transform(X)
    np.testing.assert_allclose(out.to_numpy(), expected, rtol=1e-10, atol=1e-10)


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def assert_same_error(got_fn, expected_fn):
    got, expected = _raised(got_fn), _raised(expected_fn)
    assert type(got) is type(expected)
    assert str(got) == str(expected)


def test_errors_match_sklearn(backend, rng):
    X = make_data(rng, n_features=4, density=0.5)
    X_sp = sp.csr_matrix(X)
    X_sp_b = backend.as_format(X, "csr")

    # Centering sparse input, in fit, transform and inverse_transform.
    assert_same_error(
        lambda: StandardScaler().fit(X_sp_b), lambda: SkStandardScaler().fit(X_sp)
    )
    got = StandardScaler().fit(backend.asarray(X))
    expected = SkStandardScaler().fit(X)
    assert_same_error(lambda: got.transform(X_sp_b), lambda: expected.transform(X_sp))
    assert_same_error(
        lambda: got.inverse_transform(X_sp_b),
        lambda: expected.inverse_transform(X_sp),
    )
    # Wrong number of features.
    assert_same_error(
        lambda: got.transform(backend.asarray(X[:, :3])),
        lambda: expected.transform(X[:, :3]),
    )
    assert_same_error(
        lambda: got.partial_fit(backend.asarray(X[:, :3])),
        lambda: expected.partial_fit(X[:, :3]),
    )
    # Not fitted.
    err = _raised(lambda: StandardScaler().transform(backend.asarray(X)))
    assert isinstance(err, NotFittedError)
    assert str(err) == str(_raised(lambda: SkStandardScaler().transform(X)))
    # Sample weights of the wrong length.
    assert_same_error(
        lambda: StandardScaler().fit(backend.asarray(X), sample_weight=np.ones(3)),
        lambda: SkStandardScaler().fit(X, sample_weight=np.ones(3)),
    )


def test_copy(backend, rng):
    X = make_data(rng)
    scaler = StandardScaler().fit(X)

    X_b = backend.asarray(X.copy())
    out = scaler.transform(X_b)
    np.testing.assert_array_equal(backend.to_numpy(X_b), X)  # copy=True: untouched
    out_inplace = StandardScaler(copy=False).fit(X).transform(X_b)
    np.testing.assert_allclose(backend.to_numpy(out_inplace), backend.to_numpy(out))
    # copy=False: into the caller's array, as scikit-learn (host data scaled
    # on the GPU are written back into it)
    assert out_inplace is X_b

    # Never in place on read-only input or when the dtype changes.
    X_ro = X.copy()
    X_ro.setflags(write=False)
    out_ro = StandardScaler(copy=False).fit(X).transform(X_ro)
    np.testing.assert_allclose(out_ro, backend.to_numpy(out))
    X_int = np.arange(12).reshape(4, 3)
    assert StandardScaler(copy=False).fit(X_int).transform(X_int).dtype == np.float64
    np.testing.assert_array_equal(X_int, np.arange(12).reshape(4, 3))

    # Sparse: the stored values of the caller's CSR matrix, when allowed.
    X_sp = make_data(rng, density=0.3)
    S = backend.as_format(X_sp, "csr")
    fitted = StandardScaler(with_mean=False, copy=False).fit(S)
    out_sp = fitted.transform(S)
    assert out_sp is S
    expected = StandardScaler(with_mean=False).fit(X_sp).transform(X_sp)
    np.testing.assert_allclose(backend.to_numpy(S).toarray(), expected)


def test_pickle_round_trip(backend, rng):
    X = make_data(rng, nan=True)
    scaler = StandardScaler().fit(backend.asarray(X))
    before = backend.to_numpy(scaler.transform(backend.asarray(X)))
    payload = pickle.dumps(scaler)
    if backend.family == HOST:
        # Fitted on host data: no device arrays, even after a GPU transform.
        assert b"cupy" not in payload
    loaded = pickle.loads(payload)
    after = backend.to_numpy(loaded.transform(backend.asarray(X)))
    np.testing.assert_array_equal(after, before)
    for name in ATTRIBUTES:
        np.testing.assert_array_equal(
            backend.to_numpy(getattr(loaded, name)),
            backend.to_numpy(getattr(scaler, name)),
        )


def test_all_nan_feature(backend, rng):
    # NaN statistics like scikit-learn, without RuntimeWarnings.
    X = make_data(rng, n_samples=10, n_features=3)
    X[:, 1] = np.nan
    got = StandardScaler().fit(backend.asarray(X))
    with pytest.warns(RuntimeWarning):
        expected = SkStandardScaler().fit(X)
    assert_attributes_match(backend, got, expected, 1e-10)
    X_tr = backend.to_numpy(got.transform(backend.asarray(X)))
    assert np.isnan(X_tr[:, 1]).all()


def test_scalar_sample_weight(backend, rng):
    X = make_data(rng)
    got = StandardScaler().fit(backend.asarray(X), sample_weight=2.0)
    expected = SkStandardScaler().fit(X, sample_weight=2.0)
    assert_attributes_match(backend, got, expected, 1e-10)
