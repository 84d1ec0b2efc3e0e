"""OneHotEncoder and OrdinalEncoder against scikit-learn, on every backend.

Fitted attributes, outputs (values, dtype, sparse format, family), warnings
and errors are compared with scikit-learn's classes on fresh random
categorical data with missing values, unknown categories in ``transform``,
dropped and infrequent categories; object (string) data and pandas frames
take scikit-learn's host code and must give its results too.
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
from gpuml._array import DEVICE, HOST
from gpuml.base import move_fitted_to_family
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV

ONE_HOT_CASES = [
    {},
    {"handle_unknown": "ignore"},
    {"handle_unknown": "ignore", "drop": "first"},
    {"handle_unknown": "ignore", "drop": "if_binary"},
    {"handle_unknown": "infrequent_if_exist", "min_frequency": 25},
    {"handle_unknown": "infrequent_if_exist", "max_categories": 3, "drop": "first"},
    {"handle_unknown": "warn", "min_frequency": 0.1},
    {"handle_unknown": "warn"},
    {"handle_unknown": "ignore", "dtype": np.float32},
    {"handle_unknown": "ignore", "dtype": np.int32},
    {"handle_unknown": "ignore", "dtype": bool},
]
ORDINAL_CASES = [
    {},
    {"handle_unknown": "use_encoded_value", "unknown_value": -1},
    {"handle_unknown": "use_encoded_value", "unknown_value": np.nan},
    {
        "handle_unknown": "use_encoded_value",
        "unknown_value": 20,
        "encoded_missing_value": -1,
        "max_categories": 3,
    },
    {"handle_unknown": "use_encoded_value", "unknown_value": -1, "min_frequency": 0.1},
    {"encoded_missing_value": -5, "dtype": np.int64},
    {"dtype": np.float32},
]


def case_id(case):
    return "-".join(f"{k}={getattr(v, '__name__', v)}" for k, v in case.items()) or (
        "default"
    )


def categorical(rng, n_samples, n_features=3, n_categories=6, nan=0.1):
    """Integer categories (as floats) with NaNs: some rare, some frequent."""
    weights = np.arange(1, n_categories + 1, dtype=float) ** 2
    X = rng.choice(
        n_categories, size=(n_samples, n_features), p=weights / weights.sum()
    )
    X = (X * 1.5 - 2).astype(np.float64)  # not the codes themselves
    X[:, -1] = np.where(X[:, -1] > 2, 7.0, -1.0)  # a binary feature
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X


def dense(array):
    return array.toarray() if sp.issparse(array) else np.asarray(array)


def record(method, *args):
    """``method(*args)`` and the messages of the warnings it gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = method(*args)
    return result, [str(w.message) for w in caught]


def assert_same_attributes(ours, theirs):
    assert len(ours.categories_) == len(theirs.categories_)
    for a, b in zip(ours.categories_, theirs.categories_, strict=True):
        assert type(a) is np.ndarray and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    for name in ("drop_idx_", "infrequent_categories_", "n_features_in_"):
        if hasattr(theirs, name):
            a, b = getattr(ours, name), getattr(theirs, name)
            if isinstance(b, list):
                assert len(a) == len(b)
                for x, z in zip(a, b, strict=True):
                    assert (x is None) == (z is None)
                    if z is not None:
                        assert x.dtype == z.dtype
                        np.testing.assert_array_equal(x, z)
            elif isinstance(b, np.ndarray):
                assert a.dtype == b.dtype and a.tolist() == b.tolist()
            else:
                assert a == b


def assert_same_output(backend, ours, theirs, dtype):
    if sp.issparse(theirs):
        module = type(ours).__module__.partition(".")[0]
        assert module in (("scipy",) if backend.family == HOST else ("cupyx",))
        host = backend.to_numpy(ours)
        assert host.format == "csr"
        if backend.family == HOST:
            assert type(host) is type(theirs)
            assert host.dtype == theirs.dtype
            assert host.indices.dtype == theirs.indices.dtype
            assert host.indptr.dtype == theirs.indptr.dtype
            np.testing.assert_array_equal(host.indptr, theirs.indptr)
            np.testing.assert_array_equal(host.indices, theirs.indices)
        else:  # cupyx holds floats and bools: integer values become float64
            kind = np.dtype(dtype).kind
            assert host.dtype == (np.float64 if kind in "iu" else theirs.dtype)
        np.testing.assert_array_equal(dense(host), dense(theirs))
    else:
        backend.assert_family(ours, dtype=theirs.dtype, shape=theirs.shape)
        np.testing.assert_array_equal(backend.to_numpy(ours), theirs)


@pytest.mark.parametrize("sparse_output", [True, False])
@pytest.mark.parametrize("params", ONE_HOT_CASES, ids=case_id)
def test_one_hot_matches_sklearn(backend, rng, params, sparse_output):
    X = categorical(rng, 300)
    X_new = categorical(rng, 80, n_categories=8)  # unknown categories too
    params = {**params, "sparse_output": sparse_output}
    theirs = skp.OneHotEncoder(**params).fit(X)
    ours = gp.OneHotEncoder(**params).fit(backend.asarray(X))
    assert_same_attributes(ours, theirs)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    data = X_new if params.get("handle_unknown", "error") != "error" else X
    expected, expected_warnings = record(theirs.transform, data)
    got, got_warnings = record(ours.transform, backend.asarray(data))
    assert got_warnings == expected_warnings
    assert_same_output(backend, got, expected, ours.dtype)
    # fit_transform, and the inverse of the encoding
    assert_same_output(
        backend, ours.fit_transform(backend.asarray(X)), theirs.transform(X), ours.dtype
    )
    if np.dtype(ours.dtype).kind == "f":
        inverse = ours.inverse_transform(got)
        expected_inverse = theirs.inverse_transform(expected)
        if expected_inverse.dtype.kind == "O":
            assert type(inverse) is np.ndarray and inverse.dtype.kind == "O"
        else:
            backend.assert_family(inverse, dtype=expected_inverse.dtype)
        np.testing.assert_array_equal(
            backend.to_numpy(inverse).astype(str), expected_inverse.astype(str)
        )


@pytest.mark.parametrize("params", ORDINAL_CASES, ids=case_id)
def test_ordinal_matches_sklearn(backend, rng, params):
    X = categorical(rng, 300)
    X_new = categorical(rng, 80, n_categories=8)
    if "unknown_value" not in params:
        X_new = X[:80]
    theirs = skp.OrdinalEncoder(**params).fit(X)
    ours = gp.OrdinalEncoder(**params).fit(backend.asarray(X))
    assert_same_attributes(ours, theirs)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    expected = theirs.transform(X_new)
    got = ours.transform(backend.asarray(X_new))
    assert_same_output(backend, got, expected, ours.dtype)
    try:
        expected_inverse = theirs.inverse_transform(expected)
    except IndexError as error:
        # scikit-learn's inverse of missing values among infrequent
        # categories indexes past the frequent ones (1.9.1): the same error
        with pytest.raises(IndexError, match=re.escape(str(error))):
            ours.inverse_transform(got)
        return
    inverse = ours.inverse_transform(got)
    np.testing.assert_array_equal(
        backend.to_numpy(inverse).astype(str), expected_inverse.astype(str)
    )


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.uint8])
def test_integer_and_float32_data(backend, rng, dtype):
    X = rng.integers(0, 9, size=(200, 4)).astype(dtype)
    X_new = rng.integers(0, 12, size=(60, 4)).astype(dtype)
    for ours, theirs in (
        (
            gp.OneHotEncoder(handle_unknown="ignore"),
            skp.OneHotEncoder(handle_unknown="ignore"),
        ),
        (
            gp.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
            skp.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        ),
    ):
        ours.fit(backend.asarray(X))
        theirs.fit(X)
        assert_same_attributes(ours, theirs)
        assert_same_output(
            backend,
            ours.transform(backend.asarray(X_new)),
            theirs.transform(X_new),
            ours.dtype,
        )


@pytest.mark.parametrize(
    "categories",
    [
        [[-2.0, 1.0, 4.0, 5.5], [-2.0, -0.5, 1.0], [-1.0, 7.0]],
        [[-2.0, 1.0, np.nan], [-0.5, 2.5, 4.0, np.nan], [-1.0, 7.0, np.nan]],
    ],
)
def test_given_categories(backend, rng, categories):
    X = categorical(rng, 200, nan=0.05)
    theirs = skp.OneHotEncoder(categories=categories, handle_unknown="ignore").fit(X)
    ours = gp.OneHotEncoder(categories=categories, handle_unknown="ignore")
    ours.fit(backend.asarray(X))
    assert_same_attributes(ours, theirs)
    assert_same_output(
        backend, ours.transform(backend.asarray(X)), theirs.transform(X), np.float64
    )
    theirs = skp.OrdinalEncoder(
        categories=categories, handle_unknown="use_encoded_value", unknown_value=-1
    ).fit(X)
    ours = gp.OrdinalEncoder(
        categories=categories, handle_unknown="use_encoded_value", unknown_value=-1
    ).fit(backend.asarray(X))
    assert_same_output(
        backend, ours.transform(backend.asarray(X)), theirs.transform(X), np.float64
    )


def message_of(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("Encoder", ["OneHotEncoder", "OrdinalEncoder"])
def test_unknown_categories_error_as_sklearn(backend, Encoder):
    X = np.array([[1.0, 2.0], [3.0, 2.0], [1.0, 5.0]])
    X_new = np.array([[1.0, 2.0], [1.0, 9.0], [np.nan, 8.0], [4.0, 5.0]])
    theirs = getattr(skp, Encoder)().fit(X)
    ours = getattr(gp, Encoder)().fit(backend.asarray(X))
    kind, message = message_of(lambda: theirs.transform(X_new))
    with pytest.raises(kind, match=re.escape(message)):
        ours.transform(backend.asarray(X_new))
    # NaN unknown, in the second column
    X_nan = np.array([[1.0, 2.0], [1.0, np.nan]])
    kind, message = message_of(lambda: theirs.transform(X_nan))
    with pytest.raises(kind, match=re.escape(message)):
        ours.transform(backend.asarray(X_nan))
    # infinity, the wrong number of features
    for bad in (np.array([[1.0, np.inf]]), np.array([[1.0, 2.0, 3.0]])):
        kind, message = message_of(lambda bad=bad: theirs.transform(bad))
        with pytest.raises(kind, match=re.escape(message)):
            ours.transform(backend.asarray(bad))


@pytest.mark.parametrize(
    "params",
    [
        {"drop": [1.0, 4.0]},  # 4.0 is not a category
        {"drop": [1.0]},  # wrong length
        {"drop": "last"},
        {"handle_unknown": "use"},
        {"max_categories": 0},
        {"categories": [[3.0, 1.0], [2.0, 5.0]]},  # unsorted numeric
        {"categories": [[1.0, 3.0], [2.0]]},  # 5.0 unknown in fit
        {"drop": [3.0, 2.0], "min_frequency": 2},  # drops an infrequent category
    ],
    ids=case_id,
)
def test_bad_parameters_error_as_sklearn(backend, params):
    X = np.array([[1.0, 2.0], [3.0, 2.0], [1.0, 5.0], [1.0, 2.0]])
    kind, message = message_of(lambda: skp.OneHotEncoder(**params).fit(X))
    with pytest.raises(kind, match=re.escape(message)):
        gp.OneHotEncoder(**params).fit(backend.asarray(X))


def test_ordinal_bad_parameters_error_as_sklearn(backend):
    X = np.array([[1.0, 2.0], [3.0, np.nan], [1.0, 5.0]])
    for params in (
        {"handle_unknown": "use_encoded_value", "unknown_value": 1},
        {"handle_unknown": "use_encoded_value"},
        {"unknown_value": -1},
        {"encoded_missing_value": 0},
        {"dtype": np.int64},
    ):
        kind, message = message_of(lambda p=params: skp.OrdinalEncoder(**p).fit(X))
        with pytest.raises(kind, match=re.escape(message)):
            gp.OrdinalEncoder(**params).fit(backend.asarray(X))


def test_inverse_transform_errors_as_sklearn(backend):
    X = np.array([[1.0, 2.0], [3.0, 2.0], [1.0, 5.0]])
    theirs = skp.OneHotEncoder(sparse_output=False).fit(X)
    ours = gp.OneHotEncoder(sparse_output=False).fit(backend.asarray(X))
    for bad in (np.zeros((2, 3)), np.zeros((2, 4))):
        kind, message = message_of(lambda bad=bad: theirs.inverse_transform(bad))
        with pytest.raises(kind, match=re.escape(message)):
            ours.inverse_transform(backend.asarray(bad))


def test_feature_names_and_combiner(backend, rng):
    X = categorical(rng, 100)
    params = {
        "feature_name_combiner": lambda feature, category: f"{feature}={category}",
        "max_categories": 3,
    }
    theirs = skp.OneHotEncoder(**params).fit(X)
    ours = gp.OneHotEncoder(**params).fit(backend.asarray(X))
    names = ["a", "b", "c"]
    np.testing.assert_array_equal(
        ours.get_feature_names_out(names), theirs.get_feature_names_out(names)
    )


def test_object_data_take_sklearns_code(rng):
    """Strings, None and NaN: scikit-learn's host code, its results."""
    values = np.array(["cat", "dog", "emu", None, np.nan], dtype=object)
    X = rng.choice(values, size=(150, 2))
    X_new = rng.choice(np.append(values, "fox"), size=(40, 2))
    for ours, theirs in (
        (
            gp.OneHotEncoder(handle_unknown="ignore", drop="first"),
            skp.OneHotEncoder(handle_unknown="ignore", drop="first"),
        ),
        (
            gp.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
            skp.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        ),
    ):
        ours.fit(X)
        theirs.fit(X)
        assert [c.tolist() for c in ours.categories_] == [
            c.tolist() for c in theirs.categories_
        ]
        a, wa = record(ours.transform, X_new)
        b, wb = record(theirs.transform, X_new)
        assert wa == wb
        np.testing.assert_array_equal(dense(a), dense(b))
        np.testing.assert_array_equal(
            ours.inverse_transform(a).astype(str),
            theirs.inverse_transform(b).astype(str),
        )


def test_pandas_frames_and_set_output(rng):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], size=50),
            "size": rng.integers(0, 3, size=50),
            "weight": rng.choice([0.5, 1.5, np.nan], size=50),
        }
    )
    ours = gp.OneHotEncoder(sparse_output=False).set_output(transform="pandas")
    theirs = skp.OneHotEncoder(sparse_output=False).set_output(transform="pandas")
    pd.testing.assert_frame_equal(
        ours.fit_transform(frame), theirs.fit_transform(frame)
    )
    np.testing.assert_array_equal(ours.feature_names_in_, theirs.feature_names_in_)
    ours = gp.OrdinalEncoder().set_output(transform="pandas")
    theirs = skp.OrdinalEncoder().set_output(transform="pandas")
    pd.testing.assert_frame_equal(
        ours.fit_transform(frame), theirs.fit_transform(frame)
    )
    # a numeric frame fitted, an array of it transformed: scikit-learn's warning
    numeric = frame[["size", "weight"]]
    ours = gp.OneHotEncoder().fit(numeric)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        ours.transform(numeric.to_numpy())
    with pytest.raises(ValueError, match="Pandas output does not support sparse"):
        gp.OneHotEncoder().set_output(transform="pandas").fit_transform(numeric)


def test_numeric_transform_is_gpumls(monkeypatch, rng):
    """Numeric arrays never reach scikit-learn's transform (the host code)."""
    X = categorical(rng, 50)
    encoders = [gp.OneHotEncoder().fit(X), gp.OrdinalEncoder().fit(X)]

    def refuse(self, X):
        raise AssertionError("scikit-learn's transform was called")

    monkeypatch.setattr(skp.OneHotEncoder, "transform", refuse)
    monkeypatch.setattr(skp.OrdinalEncoder, "transform", refuse)
    for encoder in encoders:
        encoder.transform(X)


def test_pickle_round_trip(backend, rng):
    X = categorical(rng, 120)
    for encoder in (
        gp.OneHotEncoder(handle_unknown="infrequent_if_exist", min_frequency=10),
        gp.OrdinalEncoder(encoded_missing_value=-1),
    ):
        encoder.fit(backend.asarray(X))
        before = encoder.transform(backend.asarray(X))  # fills the device cache
        loaded = pickle.loads(pickle.dumps(encoder))
        assert loaded._gpuml_cache == {}
        after = loaded.transform(backend.asarray(X))
        np.testing.assert_array_equal(
            dense(backend.to_numpy(after)), dense(backend.to_numpy(before))
        )


def test_categories_stay_on_the_host_when_moved(rng):
    """A search moving a fitted model to the device family leaves the
    encoders' host structures (read by scikit-learn's methods) alone."""
    encoder = gp.OneHotEncoder(drop="first").fit(categorical(rng, 60))
    categories, drop_idx = encoder.categories_, encoder.drop_idx_
    move_fitted_to_family(encoder, HOST)
    assert encoder.categories_ is categories and encoder.drop_idx_ is drop_idx
    assert set(gp.OneHotEncoder._host_attributes) >= {"categories_", "drop_idx_"}
    assert DEVICE != HOST


def test_grid_search_of_a_pipeline_matches_sklearn(backend, rng):
    X = categorical(rng, 160, nan=0.05)
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(size=160)) > 1).astype(int)
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}
    ours = GridSearchCV(
        make_pipeline(gp.OneHotEncoder(handle_unknown="ignore"), LogisticRegression()),
        grid,
        cv=4,
    ).fit(backend.asarray(X), backend.asarray(y))
    theirs = SkGridSearchCV(
        make_pipeline(
            skp.OneHotEncoder(handle_unknown="ignore"), SkLogisticRegression()
        ),
        grid,
        cv=4,
    ).fit(X, y)
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=0, atol=1e-10
        )
    assert ours.best_params_ == theirs.best_params_
    encoder = ours.best_estimator_[0]
    assert all(type(c) is np.ndarray for c in encoder.categories_)
    predicted = ours.predict(backend.asarray(X))
    backend.assert_family(predicted, shape=(160,))
    np.testing.assert_array_equal(backend.to_numpy(predicted), theirs.predict(X))
