"""KBinsDiscretizer against scikit-learn, on every backend.

Fitted edges, outputs (values, dtype, sparse format, family), the inverse,
feature names, warnings and errors are compared with scikit-learn's class on
fresh random data (with ties, values on the edges and beyond the training
range); lists and pandas frames take scikit-learn's host code.
"""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.preprocessing as skp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

import gpuml.preprocessing as gp
from gpuml._array import HOST
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV


def data(rng, n_samples, dtype=np.float64):
    """Continuous, heavy-tailed and tied columns."""
    X = np.column_stack(
        [
            rng.normal(size=n_samples),
            rng.standard_t(2, size=n_samples) * 10,
            rng.integers(0, 4, size=n_samples),  # ties: narrow bins removed
        ]
    )
    return X.astype(dtype)


def dense(array):
    return array.toarray() if sp.issparse(array) else np.asarray(array)


def record(method, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = method(*args, **kwargs)
    return result, sorted(str(w.message) for w in caught)


def assert_same_output(backend, ours, theirs):
    if sp.issparse(theirs):
        host = backend.to_numpy(ours)
        assert host.format == "csr"
        module = type(ours).__module__.partition(".")[0]
        assert module == ("scipy" if backend.family == HOST else "cupyx")
        assert host.dtype == theirs.dtype
        if backend.family == HOST:
            assert type(host) is type(theirs)
            assert host.indices.dtype == theirs.indices.dtype
            np.testing.assert_array_equal(host.indptr, theirs.indptr)
            np.testing.assert_array_equal(host.indices, theirs.indices)
        np.testing.assert_array_equal(dense(host), dense(theirs))
    else:
        backend.assert_family(ours, dtype=theirs.dtype, shape=theirs.shape)
        np.testing.assert_array_equal(backend.to_numpy(ours), theirs)


@pytest.mark.parametrize("encode", ["onehot", "onehot-dense", "ordinal"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile", "kmeans"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("out_dtype", [None, np.float32, np.float64])
def test_matches_sklearn(backend, rng, encode, strategy, dtype, out_dtype):
    X = data(rng, 300, dtype)
    X_new = data(rng, 100, dtype) * 1.5  # beyond the training range too
    X_new[:5, 0] = X[:5, 0]  # training values
    params = dict(
        n_bins=[3, 5, 6],
        encode=encode,
        strategy=strategy,
        dtype=out_dtype,
        subsample=200,
        random_state=0,
    )
    theirs, expected_warnings = record(skp.KBinsDiscretizer(**params).fit, X)
    ours, got_warnings = record(gp.KBinsDiscretizer(**params).fit, backend.asarray(X))
    assert got_warnings == expected_warnings
    assert type(ours.n_bins_) is np.ndarray
    np.testing.assert_array_equal(ours.n_bins_, theirs.n_bins_)
    for a, b in zip(ours.bin_edges_, theirs.bin_edges_, strict=True):
        assert type(a) is np.ndarray and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    # values on the edges go to the bin on their right, as scikit-learn's
    X_new[5:8] = np.array([[e[1] for e in theirs.bin_edges_]], dtype=dtype)
    expected = theirs.transform(X_new)
    got = ours.transform(backend.asarray(X_new))
    assert_same_output(backend, got, expected)
    inverse = ours.inverse_transform(got)
    expected_inverse = theirs.inverse_transform(expected)
    backend.assert_family(inverse, dtype=expected_inverse.dtype)
    np.testing.assert_array_equal(backend.to_numpy(inverse), expected_inverse)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )


@pytest.mark.parametrize("quantile_method", ["linear", "inverted_cdf", "hazen"])
def test_quantile_methods_and_sample_weight(backend, rng, quantile_method):
    X = data(rng, 200)[:, :2]  # no ties: no bins removed
    weight = rng.random(200) if quantile_method == "inverted_cdf" else None
    params = dict(
        n_bins=4, encode="ordinal", quantile_method=quantile_method, subsample=None
    )
    theirs = skp.KBinsDiscretizer(**params).fit(X, sample_weight=weight)
    ours = gp.KBinsDiscretizer(**params).fit(
        backend.asarray(X),
        sample_weight=None if weight is None else backend.asarray(weight),
    )
    for a, b in zip(ours.bin_edges_, theirs.bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert_same_output(backend, ours.transform(backend.asarray(X)), theirs.transform(X))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_integer_data(backend, rng, dtype):
    X = rng.integers(0, 50, size=(120, 3)).astype(dtype)
    for encode in ("ordinal", "onehot"):
        params = dict(n_bins=4, encode=encode, strategy="uniform")
        theirs = skp.KBinsDiscretizer(**params).fit(X)
        ours = gp.KBinsDiscretizer(**params).fit(backend.asarray(X))
        assert_same_output(
            backend, ours.transform(backend.asarray(X)), theirs.transform(X)
        )


def test_host_inputs_take_sklearn_code(rng):
    """Lists and pandas frames: scikit-learn's transform (and set_output)."""
    pd = pytest.importorskip("pandas")
    X = data(rng, 60)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    params = dict(n_bins=3, encode="ordinal", strategy="uniform")
    ours = gp.KBinsDiscretizer(**params).fit(frame)
    theirs = skp.KBinsDiscretizer(**params).fit(frame)
    np.testing.assert_array_equal(ours.transform(frame), theirs.transform(frame))
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        listed = ours.transform(X.tolist())
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        np.testing.assert_array_equal(listed, theirs.transform(X.tolist()))
    np.testing.assert_array_equal(ours.get_feature_names_out(), ["a", "b", "c"])
    ours.set_output(transform="pandas")
    out = ours.transform(frame)
    assert list(out.columns) == ["a", "b", "c"]
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        ours.set_output(transform="default").transform(X)


def test_errors_match_sklearn(backend, rng):
    X = data(rng, 50)
    ours = gp.KBinsDiscretizer(n_bins=3, strategy="uniform").fit(backend.asarray(X))
    theirs = skp.KBinsDiscretizer(n_bins=3, strategy="uniform").fit(X)
    bad = X.copy()
    bad[0, 0] = np.nan
    for case in (bad, X[:, :2]):
        with pytest.raises(ValueError) as expected:
            theirs.transform(case)
        with pytest.raises(ValueError, match=re.escape(str(expected.value))):
            ours.transform(backend.asarray(case))
    for params in ({"n_bins": 1}, {"n_bins": [2, 3]}, {"strategy": "bad"}):
        with pytest.raises(ValueError) as expected:
            skp.KBinsDiscretizer(**params).fit(X)
        with pytest.raises(ValueError, match=re.escape(str(expected.value))):
            gp.KBinsDiscretizer(**params).fit(backend.asarray(X))


def test_pickle_round_trip(backend, rng):
    X = data(rng, 120)
    est = gp.KBinsDiscretizer(n_bins=4, encode="onehot-dense", strategy="uniform")
    est.fit(backend.asarray(X))
    before = est.transform(backend.asarray(X))  # fills the device cache
    loaded = pickle.loads(pickle.dumps(est))
    assert loaded._gpuml_cache == {}
    after = loaded.transform(backend.asarray(X))
    np.testing.assert_array_equal(backend.to_numpy(after), backend.to_numpy(before))


def test_grid_search_of_a_pipeline_matches_sklearn(backend, rng):
    X = data(rng, 160)
    y = (X[:, 0] + rng.normal(size=160) * 0.5 > 0).astype(int)
    grid = {"kbinsdiscretizer__n_bins": [2, 3, 5, 8]}
    ours = GridSearchCV(
        make_pipeline(gp.KBinsDiscretizer(strategy="uniform"), LogisticRegression()),
        grid,
        cv=4,
    ).fit(backend.asarray(X), backend.asarray(y))
    theirs = SkGridSearchCV(
        make_pipeline(skp.KBinsDiscretizer(strategy="uniform"), SkLogisticRegression()),
        grid,
        cv=4,
    ).fit(X, y)
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=0, atol=1e-10
        )
    assert ours.best_params_ == theirs.best_params_
    step = ours.best_estimator_[0]
    assert type(step.n_bins_) is np.ndarray
    predicted = ours.predict(backend.asarray(X))
    backend.assert_family(predicted, shape=(160,))
    np.testing.assert_array_equal(backend.to_numpy(predicted), theirs.predict(X))
