"""TargetEncoder against scikit-learn, on every backend.

``fit_transform``'s cross-fitted encodings (scikit-learn's folds), the
fitted attributes, ``transform`` of known, unknown and missing categories
(values, dtype, family), feature names and errors are compared with
scikit-learn's class on fresh random categorical data; object data and
pandas frames take scikit-learn's host code.
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
import sklearn.preprocessing as skp
from sklearn.model_selection import KFold, StratifiedKFold

import gpuml.preprocessing as gp


def categorical(rng, n_samples, n_features=3, n_categories=6, nan=0.1):
    """Integer categories (as floats, not the codes) with NaNs."""
    X = rng.integers(0, n_categories, size=(n_samples, n_features)) * 1.5 - 2
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X


def target(rng, kind, n_samples):
    if kind == "continuous":
        return rng.normal(size=n_samples) * 3 + 1
    if kind == "binary":
        return rng.choice(["no", "yes"], size=n_samples)
    return rng.integers(0, 3, size=n_samples) * 2 + 1


def assert_same_attributes(ours, theirs):
    assert ours.target_type_ == theirs.target_type_
    for a, b in zip(ours.categories_, theirs.categories_, strict=True):
        assert type(a) is np.ndarray and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert len(ours.encodings_) == len(theirs.encodings_)
    for a, b in zip(ours.encodings_, theirs.encodings_, strict=True):
        assert type(a) is np.ndarray and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours.target_mean_, theirs.target_mean_)
    if theirs.classes_ is None:
        assert ours.classes_ is None
    else:
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)


@pytest.mark.parametrize("kind", ["continuous", "binary", "multiclass"])
@pytest.mark.parametrize("smooth", ["auto", 4.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_sklearn(backend, rng, kind, smooth, dtype):
    X = categorical(rng, 300).astype(dtype)
    X_new = categorical(rng, 80, n_categories=8).astype(dtype)  # unknown too
    y = target(rng, kind, 300)
    y_in = y if y.dtype.kind == "U" else backend.asarray(y)  # CuPy has no str
    # an integer cv shuffles at random (scikit-learn's default): seeded folds
    params = {"smooth": smooth, "cv": KFold(4, shuffle=True, random_state=3)}
    theirs = skp.TargetEncoder(**params)
    ours = gp.TargetEncoder(**params)
    expected = theirs.fit_transform(X, y)
    got = ours.fit_transform(backend.asarray(X), y_in)
    backend.assert_family(got, dtype=expected.dtype, shape=expected.shape)
    np.testing.assert_array_equal(backend.to_numpy(got), expected)
    assert_same_attributes(ours, theirs)
    expected = theirs.transform(X_new)
    got = ours.transform(backend.asarray(X_new))
    backend.assert_family(got, dtype=np.float64, shape=expected.shape)
    np.testing.assert_array_equal(backend.to_numpy(got), expected)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    # fit alone: the same encodings
    ours.fit(backend.asarray(X), y_in)
    assert_same_attributes(ours, theirs)


@pytest.mark.parametrize(
    "cv",
    [KFold(3, shuffle=True, random_state=7), StratifiedKFold(5)],
    ids=["kfold-shuffled", "stratified"],
)
@pytest.mark.parametrize("target_type", ["auto", "binary", "continuous"])
def test_cross_fitting_folds(backend, rng, cv, target_type):
    X = categorical(rng, 150, nan=0)
    y = rng.integers(0, 2, size=150)
    params = {"cv": cv, "target_type": target_type}
    expected = skp.TargetEncoder(**params).fit_transform(X, y)
    got = gp.TargetEncoder(**params).fit_transform(
        backend.asarray(X), backend.asarray(y)
    )
    backend.assert_family(got, dtype=np.float64, shape=expected.shape)
    np.testing.assert_array_equal(backend.to_numpy(got), expected)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_integer_data_and_given_categories(backend, rng, dtype):
    X = rng.integers(0, 6, size=(200, 2)).astype(dtype)
    X_new = rng.integers(0, 9, size=(50, 2)).astype(dtype)
    y = rng.normal(size=200)
    for categories in ("auto", [np.arange(5), np.array([0, 2, 4, 6])]):
        params = {"categories": categories, "target_type": "continuous"}
        theirs = skp.TargetEncoder(**params).fit(X, y)
        ours = gp.TargetEncoder(**params).fit(backend.asarray(X), backend.asarray(y))
        got = ours.transform(backend.asarray(X_new))
        backend.assert_family(got, dtype=np.float64)
        np.testing.assert_array_equal(backend.to_numpy(got), theirs.transform(X_new))


def test_object_data_and_pandas_take_sklearn_code(rng):
    pd = pytest.importorskip("pandas")
    X = rng.choice(["a", "b", "c", "d"], size=(100, 2)).astype(object)
    y = rng.normal(size=100)
    frame = pd.DataFrame(X, columns=["u", "v"])
    cv = KFold(3)
    theirs = skp.TargetEncoder(cv=cv).fit(frame, y)
    ours = gp.TargetEncoder(cv=cv)
    np.testing.assert_array_equal(
        ours.fit_transform(frame, y), skp.TargetEncoder(cv=cv).fit_transform(frame, y)
    )
    np.testing.assert_array_equal(ours.transform(frame), theirs.transform(frame))
    np.testing.assert_array_equal(ours.get_feature_names_out(), ["u", "v"])
    out = ours.set_output(transform="pandas").transform(frame)
    assert list(out.columns) == ["u", "v"]


def test_errors_match_sklearn(backend, rng):
    X = categorical(rng, 60)
    y = rng.normal(size=60)
    theirs = skp.TargetEncoder(target_type="continuous").fit(X, y)
    ours = gp.TargetEncoder(target_type="continuous").fit(
        backend.asarray(X), backend.asarray(y)
    )
    with pytest.raises(ValueError) as expected:
        theirs.transform(X[:, :2])
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        ours.transform(backend.asarray(X[:, :2]))
    y_bad = np.array([[1, 0], [0, 1]] * 30)  # multilabel-indicator
    with pytest.raises(ValueError) as expected:
        skp.TargetEncoder().fit(X, y_bad)
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        gp.TargetEncoder().fit(backend.asarray(X), backend.asarray(y_bad))
    for method in ("fit", "fit_transform"):
        with pytest.raises(ValueError) as expected:
            getattr(skp.TargetEncoder(smooth=-1.0), method)(X, y)
        with pytest.raises(ValueError, match=re.escape(str(expected.value))):
            getattr(gp.TargetEncoder(smooth=-1.0), method)(
                backend.asarray(X), backend.asarray(y)
            )
    with pytest.raises(ValueError) as expected:
        skp.TargetEncoder().fit(X, y[:50])
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        gp.TargetEncoder().fit(backend.asarray(X), backend.asarray(y[:50]))


def test_pickle_round_trip(backend, rng):
    X = categorical(rng, 120)
    y = rng.integers(0, 3, size=120)
    encoder = gp.TargetEncoder().fit(backend.asarray(X), backend.asarray(y))
    before = encoder.transform(backend.asarray(X))  # fills the device cache
    loaded = pickle.loads(pickle.dumps(encoder))
    assert loaded._gpuml_cache == {}
    after = loaded.transform(backend.asarray(X))
    np.testing.assert_array_equal(backend.to_numpy(after), backend.to_numpy(before))
