"""TfidfTransformer against scikit-learn's, on every backend.

Fresh random count matrices (CSR, CSC, dense; integer, float64 and float32
counts; empty rows and columns, explicit zeros, duplicate entries) for every
setting: ``idf_`` and the transform are compared with
:class:`sklearn.feature_extraction.text.TfidfTransformer` (bit for bit on
the CPU, within 1e-12 for float64 on a GPU), together with the output's
family, type, dtype and sparsity structure.
"""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidfTransformer
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import normalize

from gpuml import config_context
from gpuml._array import HOST
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.feature_extraction import _tfidf
from gpuml.feature_extraction.text import TfidfTransformer
from gpuml.linear_model import LogisticRegression

SETTINGS = [
    dict(norm=norm, use_idf=use_idf, smooth_idf=smooth, sublinear_tf=sublinear)
    for norm, use_idf, smooth, sublinear in itertools.product(
        ["l2", "l1", None], [True, False], [True, False], [False, True]
    )
]
RTOL = {np.float64: 1e-12, np.float32: 1e-6}


def make_counts(rng, n_samples=60, n_features=40, *, dtype=np.int64):
    """A document-term count matrix with an empty row and an empty column."""
    X = rng.poisson(0.6, size=(n_samples, n_features)) * (
        rng.random((n_samples, n_features)) < 0.3
    )
    X[3] = 0  # a document without terms
    X[:, 5] = 0  # a term in no document
    return X.astype(dtype)


def assert_same_matrix(backend, got, expected, rtol):
    """Same family, type (on the host), dtype, shape, structure and values."""
    backend.assert_family(got, dtype=expected.dtype, shape=expected.shape)
    host = backend.to_numpy(got)
    if backend.family == HOST:
        assert type(got) is type(expected), (type(got), type(expected))
    assert host.format == "csr"
    np.testing.assert_array_equal(host.indptr, expected.indptr)
    np.testing.assert_array_equal(host.indices, expected.indices)
    if backend.device == "cpu":
        np.testing.assert_array_equal(host.data, expected.data)
    else:
        np.testing.assert_allclose(host.data, expected.data, rtol=rtol, atol=0)


def _settings_id(settings: dict) -> str:
    return "-".join(map(str, settings.values()))


@pytest.mark.parametrize("settings", SETTINGS, ids=_settings_id)
@pytest.mark.parametrize("fmt", ["csr", "csc", "dense"])
def test_matches_sklearn(backend, rng, settings, fmt):
    """Without smoothing, the term in no document gets an infinite idf (NumPy
    warns of the division by zero, in scikit-learn's fit as in gpuml's on the
    host); it weighs no stored value."""
    X = make_counts(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = SkTfidfTransformer(**settings).fit(X)
        ours = TfidfTransformer(**settings).fit(backend.as_format(X, fmt))
    if settings["use_idf"]:
        backend.assert_family(ours.idf_, dtype=np.float64, shape=expected.idf_.shape)
        np.testing.assert_allclose(
            backend.to_numpy(ours.idf_), expected.idf_, rtol=1e-15, atol=0
        )
    else:
        assert not hasattr(ours, "idf_")
    want = expected.transform(sp.csr_matrix(X))
    got = ours.transform(backend.as_format(X, fmt))
    assert_same_matrix(backend, got, want, RTOL[np.float64])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_counts_keep_their_dtype(backend, rng, dtype):
    """float32 counts give a float32 idf_ and output, as in scikit-learn."""
    X = make_counts(rng, dtype=dtype) * dtype(0.5)
    settings = dict(sublinear_tf=True)
    expected = SkTfidfTransformer(**settings).fit(sp.csr_matrix(X))
    ours = TfidfTransformer(**settings).fit(backend.as_format(X, "csr"))
    backend.assert_family(ours.idf_, dtype=dtype)
    np.testing.assert_allclose(
        backend.to_numpy(ours.idf_), expected.idf_, rtol=RTOL[dtype]
    )
    got = ours.transform(backend.as_format(X, "csr"))
    assert_same_matrix(backend, got, expected.transform(sp.csr_matrix(X)), RTOL[dtype])


def test_document_frequency_counts_stored_values(backend):
    """Explicit zeros and duplicate entries count, as scikit-learn counts them
    (its ``_document_frequency`` reads the stored structure)."""
    data = np.array([1.0, 0.0, 2.0, 1.0, 1.0])
    rows = np.array([0, 0, 1, 2, 2])
    cols = np.array([0, 1, 1, 2, 2])  # (0, 1) an explicit zero; (2, 2) twice
    X = sp.csr_matrix((data, (rows, cols)), shape=(4, 3))
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    X_dup = sp.csr_matrix(
        (data, np.array([0, 1, 1, 2, 2]), np.array([0, 2, 3, 5, 5])), shape=(4, 3)
    )
    for matrix in (X, X_dup):
        expected = SkTfidfTransformer().fit(matrix)
        ours = TfidfTransformer().fit(backend.asarray(matrix.copy()))
        np.testing.assert_allclose(
            backend.to_numpy(ours.idf_), expected.idf_, rtol=1e-15
        )


def test_copy(backend, rng):
    """``copy=False`` transforms a float CSR matrix in place and returns it,
    as scikit-learn's does (a host matrix computed on a GPU gets the values
    written back); the default leaves the input untouched."""
    X = backend.as_format(make_counts(rng).astype(np.float64), "csr")
    before = backend.to_numpy(X).copy()
    transformer = TfidfTransformer().fit(X)
    out = backend.to_numpy(transformer.transform(X))
    np.testing.assert_array_equal(backend.to_numpy(X).data, before.data)
    same = transformer.transform(X, copy=False)
    assert same is X  # a csr_array would come back as a matrix sharing values
    np.testing.assert_allclose(backend.to_numpy(X).data, out.data, rtol=1e-15)
    if backend.family == HOST:  # read-only values: transformed into a copy
        frozen = before.copy()
        frozen.data.flags.writeable = False
        got = transformer.transform(frozen, copy=False)
        assert got is not frozen
        np.testing.assert_array_equal(frozen.data, before.data)
        np.testing.assert_allclose(got.data, out.data, rtol=1e-15)


def test_no_smoothing_warns_of_unseen_terms(backend):
    """Without smoothing a term in no document gets an infinite idf, with
    NumPy's divide-by-zero warning on either device, as scikit-learn's."""
    X = backend.as_format(np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0]]), "csr")
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        idf = TfidfTransformer(smooth_idf=False).fit(X).idf_
    assert np.isinf(backend.to_numpy(idf)[2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TfidfTransformer(smooth_idf=True).fit(X)
        TfidfTransformer(smooth_idf=False).fit(backend.as_format(np.eye(3), "csr"))


@pytest.mark.parametrize("interface", ["spmatrix", "sparray"])
def test_host_output_follows_sklearn_sparse_interface(rng, interface):
    """The host output's type is scikit-learn's, under either setting of its
    ``sparse_interface`` (scikit-learn >= 1.9)."""
    import sklearn

    if "sparse_interface" not in sklearn.get_config():
        pytest.skip("scikit-learn < 1.9 has no sparse_interface")
    X = make_counts(rng)
    for X_in in (X, sp.csr_matrix(X), sp.csr_array(X)):
        with sklearn.config_context(sparse_interface=interface):
            want = SkTfidfTransformer().fit_transform(X_in)
            got = TfidfTransformer().fit_transform(X_in)
        assert type(got) is type(want)


@pytest.mark.gpu
def test_device_output_stays_on_the_device(rng):
    import cupy
    import cupyx.scipy.sparse as cusp

    X = make_counts(rng).astype(np.float64)
    with config_context(device="gpu"):
        ours = TfidfTransformer().fit(cusp.csr_matrix(sp.csr_matrix(X)))
        assert isinstance(ours.idf_, cupy.ndarray)
        assert isinstance(ours.transform(cupy.asarray(X)), cusp.csr_matrix)
        host = ours.transform(X)  # a device-fitted model, host data: host out
    assert sp.issparse(host)
    expected = SkTfidfTransformer().fit_transform(X)
    np.testing.assert_allclose(host.toarray(), expected.toarray(), rtol=1e-12)


def test_errors_as_sklearn(backend, rng):
    X = backend.as_format(make_counts(rng), "csr")
    with pytest.raises(InvalidParameterError, match="The 'norm' parameter"):
        TfidfTransformer(norm="l3").fit(X)
    with pytest.raises(NotFittedError):
        TfidfTransformer().transform(X)
    fitted = TfidfTransformer().fit(X)
    narrow = backend.as_format(make_counts(rng, n_features=7), "csr")
    with pytest.raises(ValueError, match="X has 7 features, but TfidfTransformer"):
        fitted.transform(narrow)
    bad = make_counts(rng).astype(np.float64)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        TfidfTransformer().fit(backend.as_format(bad, "csr"))


def test_pickle_and_pipeline(backend, rng):
    """A fitted transformer pickles; in a Pipeline before LogisticRegression
    it predicts as scikit-learn's pipeline does."""
    X = make_counts(rng, n_samples=120)
    y = (X[:, :10].sum(axis=1) > X[:, 10:20].sum(axis=1)).astype(int)
    fitted = TfidfTransformer().fit(backend.as_format(X, "csr"))
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(
        backend.to_numpy(restored.idf_), backend.to_numpy(fitted.idf_)
    )
    ours = make_pipeline(TfidfTransformer(), LogisticRegression(tol=1e-10))
    theirs = make_pipeline(SkTfidfTransformer(), SkLogisticRegression(tol=1e-10))
    ours.fit(backend.as_format(X, "csr"), backend.asarray(y))
    theirs.fit(sp.csr_matrix(X), y)
    got = backend.to_numpy(ours.predict_proba(backend.as_format(X, "csr")))
    np.testing.assert_allclose(got, theirs.predict_proba(sp.csr_matrix(X)), atol=1e-6)


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_row_norms_match_sklearn(rng, norm, dtype):
    """The GPU's row normalization (one float64 bincount), run with NumPy:
    scikit-learn's values, empty rows left alone, the dtype kept."""
    X = sp.csr_matrix((make_counts(rng) * rng.uniform(0.1, 3.0, 40)).astype(dtype))
    want = normalize(X, norm=norm)
    got = _tfidf._normalize_rows_by_bincount(X.copy(), norm, np)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_allclose(got.data, want.data, rtol=RTOL[dtype])
    empty = sp.csr_matrix((3, 4), dtype=dtype)
    assert _tfidf._normalize_rows_by_bincount(empty, norm, np).nnz == 0
