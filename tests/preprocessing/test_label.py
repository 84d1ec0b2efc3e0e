"""LabelEncoder and LabelBinarizer against scikit-learn, on every backend.

Numeric device targets take gpuml's device kernels, whose NumPy versions
are also compared with scikit-learn here (so they are checked where no GPU
is); everything else is scikit-learn's code, whose results must come back
in the target's family.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sklearn.preprocessing as skp
from sklearn.exceptions import DataConversionWarning

from gpuml._array import DEVICE, HOST
from gpuml.preprocessing import LabelBinarizer, LabelEncoder
from gpuml.preprocessing._label import (
    binarize_labels,
    encode_labels,
    inverse_binarize,
    unique_labels,
)

TARGETS = {
    "int-multiclass": lambda rng: rng.integers(-3, 5, size=40),
    "int32-sparse-values": lambda rng: rng.choice([7, 1000, -20, 3], 30).astype(
        np.int32
    ),
    "float-integral": lambda rng: rng.integers(0, 4, size=25).astype(float),
    "binary": lambda rng: rng.choice([2, 9], size=20),
    "one-class": lambda rng: np.full(10, 4),
    "bool": lambda rng: rng.random(15) > 0.5,
}


def _target(name, rng):
    y = TARGETS[name](rng)
    if name == "bool":
        y[:2] = [True, False]
    return y


# --------------------------------------------------------------------------
# LabelEncoder
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_label_encoder_matches_sklearn(backend, rng, name):
    y = _target(name, rng)
    ours, theirs = LabelEncoder(), skp.LabelEncoder()
    codes = ours.fit_transform(backend.asarray(y))
    want = theirs.fit_transform(y)
    backend.assert_family(codes, shape=want.shape)
    np.testing.assert_array_equal(backend.to_numpy(codes), want)
    backend.assert_family(ours.classes_, dtype=theirs.classes_.dtype)
    np.testing.assert_array_equal(backend.to_numpy(ours.classes_), theirs.classes_)
    again = ours.fit(backend.asarray(y)).transform(backend.asarray(y[::-1]))
    np.testing.assert_array_equal(backend.to_numpy(again), want[::-1])
    back = ours.inverse_transform(backend.asarray(want))
    backend.assert_family(back, dtype=y.dtype)
    np.testing.assert_array_equal(backend.to_numpy(back), y)


def test_label_encoder_strings_stay_on_the_host(backend):
    y = np.array(["paris", "tokyo", "paris", "amsterdam"])
    le = LabelEncoder().fit(y)
    assert isinstance(le.classes_, np.ndarray)
    codes = le.transform(y)
    np.testing.assert_array_equal(codes, [1, 2, 1, 0])
    # codes of a device array come back on the device, labels on the host
    back = le.inverse_transform(backend.asarray(np.array([2, 0])))
    np.testing.assert_array_equal(back, ["tokyo", "amsterdam"])


def test_label_encoder_errors_as_sklearn(backend):
    le = LabelEncoder().fit(backend.asarray(np.array([1, 2, 6])))
    sk = skp.LabelEncoder().fit([1, 2, 6])
    for method, bad in (("transform", [1, 5, 7]), ("inverse_transform", [0, 3])):
        with pytest.raises(ValueError) as theirs:
            getattr(sk, method)(np.array(bad))
        with pytest.raises(ValueError) as ours:
            getattr(le, method)(backend.asarray(np.array(bad)))
        assert str(ours.value) == str(theirs.value)
        assert "previously unseen labels" in str(ours.value)


def test_label_encoder_empty_and_column_vector(backend):
    le = LabelEncoder().fit(backend.asarray(np.array([3, 1, 3])))
    empty = le.transform(backend.asarray(np.array([], dtype=np.int64)))
    assert backend.to_numpy(empty).shape == (0,)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        codes = le.transform(backend.asarray(np.array([[1], [3]])))
    np.testing.assert_array_equal(backend.to_numpy(codes), [0, 1])


def test_label_encoder_nan_as_sklearn(backend):
    y = np.array([1.0, np.nan, 2.0, np.nan])
    ours = LabelEncoder().fit_transform(backend.asarray(y))
    np.testing.assert_array_equal(
        backend.to_numpy(ours), skp.LabelEncoder().fit_transform(y)
    )


# --------------------------------------------------------------------------
# LabelBinarizer
# --------------------------------------------------------------------------

BINARIZER_PARAMS = [
    {},
    {"neg_label": -1, "pos_label": 2},
    {"neg_label": -2, "pos_label": 0},
]


@pytest.mark.parametrize("params", BINARIZER_PARAMS, ids=str)
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_label_binarizer_matches_sklearn(backend, rng, name, params):
    y = _target(name, rng)
    ours, theirs = LabelBinarizer(**params), skp.LabelBinarizer(**params)
    got = ours.fit_transform(backend.asarray(y))
    want = theirs.fit_transform(y)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    np.testing.assert_array_equal(backend.to_numpy(got), want)
    assert ours.y_type_ == theirs.y_type_
    assert ours.sparse_input_ == theirs.sparse_input_
    backend.assert_family(ours.classes_, dtype=theirs.classes_.dtype)
    np.testing.assert_array_equal(backend.to_numpy(ours.classes_), theirs.classes_)
    # scores: the inverse of the binarized labels and of noisy scores
    scores = want + rng.normal(scale=0.1, size=want.shape)
    for Y, threshold in ((want, None), (scores, None), (scores, 0.3)):
        back = ours.inverse_transform(backend.asarray(Y), threshold=threshold)
        backend.assert_family(back, shape=(y.shape[0],))
        np.testing.assert_array_equal(
            backend.to_numpy(back), theirs.inverse_transform(Y, threshold=threshold)
        )


def test_label_binarizer_unseen_labels_and_fit_types(backend):
    lb = LabelBinarizer().fit(backend.asarray(np.array([0, 1, 2])))
    sk = skp.LabelBinarizer().fit([0, 1, 2])
    y = np.array([0, 5, 2])  # 5 was not seen: a row of neg_label
    np.testing.assert_array_equal(
        backend.to_numpy(lb.transform(backend.asarray(y))), sk.transform(y)
    )
    # a binary fit given a third label: scikit-learn's two columns
    lb = LabelBinarizer().fit(backend.asarray(np.array([0, 1])))
    sk = skp.LabelBinarizer().fit([0, 1])
    np.testing.assert_array_equal(
        backend.to_numpy(lb.transform(backend.asarray(y))), sk.transform(y)
    )


def test_label_binarizer_multilabel_as_sklearn(backend, rng):
    Y = (rng.random((12, 4)) > 0.5).astype(np.int64)
    lb = LabelBinarizer().fit(backend.asarray(Y))
    sk = skp.LabelBinarizer().fit(Y)
    assert lb.y_type_ == sk.y_type_ == "multilabel-indicator"
    got = lb.transform(backend.asarray(Y))
    backend.assert_family(got)
    np.testing.assert_array_equal(backend.to_numpy(got), sk.transform(Y))
    back = lb.inverse_transform(backend.asarray(Y.astype(float)))
    np.testing.assert_array_equal(backend.to_numpy(back), sk.inverse_transform(Y))


@pytest.mark.parametrize(
    "params, y, message",
    [
        ({"neg_label": 1, "pos_label": 1}, [0, 1], "must be strictly less than"),
        ({"neg_label": -1, "sparse_output": True}, [0, 1], "Sparse binarization"),
        ({}, [0.5, 1.5, 2.0], "Unknown label type"),
        ({}, [[0, 1, 2], [1, 1, 0]], "Multioutput target data is not supported"),
    ],
)
def test_label_binarizer_errors_as_sklearn(backend, params, y, message):
    y = np.array(y)
    for lb, target in (
        (skp.LabelBinarizer(**params), y),
        (LabelBinarizer(**params), backend.asarray(y)),
    ):
        with pytest.raises(ValueError, match=message):
            lb.fit(target)


def test_label_binarizer_sparse_output_on_the_host(rng):
    y = rng.integers(0, 4, size=20)
    got = LabelBinarizer(sparse_output=True).fit_transform(y)
    want = skp.LabelBinarizer(sparse_output=True).fit_transform(y)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got.toarray(), want.toarray())


def test_pickle_round_trip(backend, rng):
    y = backend.asarray(rng.integers(0, 5, size=30))
    for est in (LabelEncoder().fit(y), LabelBinarizer().fit(y)):
        loaded = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(
            backend.to_numpy(loaded.transform(y)), backend.to_numpy(est.transform(y))
        )


# --------------------------------------------------------------------------
# The device kernels, on NumPy, against scikit-learn
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_kernels_match_sklearn(rng, name):
    y = _target(name, rng)
    classes, codes = unique_labels(y, np, return_inverse=True)
    le = skp.LabelEncoder()
    np.testing.assert_array_equal(codes, le.fit_transform(y))
    np.testing.assert_array_equal(classes, le.classes_)
    assert codes.dtype == np.int64
    got, known = encode_labels(y[::-1], classes, np)
    assert known
    np.testing.assert_array_equal(got, codes[::-1])
    assert not encode_labels(np.array([99], dtype=y.dtype), classes, np)[1] or (
        y.dtype == bool
    )
    for params in BINARIZER_PARAMS:
        lb = skp.LabelBinarizer(**params).fit(y)
        Y = binarize_labels(
            y, classes, params.get("neg_label", 0), params.get("pos_label", 1), np
        )
        want = lb.transform(y)
        assert Y.dtype == want.dtype
        np.testing.assert_array_equal(Y, want)
        scores = want + rng.normal(scale=0.2, size=want.shape)
        threshold = (lb.pos_label + lb.neg_label) / 2
        np.testing.assert_array_equal(
            inverse_binarize(scores, classes, lb.y_type_, threshold, np),
            lb.inverse_transform(scores),
        )


def test_inverse_binarize_refuses_wide_binary_scores():
    with pytest.raises(ValueError, match=r"output_type='binary', but y\.shape"):
        inverse_binarize(np.zeros((3, 3)), np.array([0, 1]), "binary", 0.5, np)


def test_labels_family_is_the_targets(backend, rng):
    y = rng.integers(0, 3, size=10)
    le = LabelEncoder().fit(backend.asarray(y))
    # a host target after a device fit: host codes
    codes = le.transform(y)
    assert isinstance(codes, np.ndarray)
    assert backend.family == HOST or type(le.classes_).__module__.startswith("cupy")


# --------------------------------------------------------------------------
# The device paths' logic, with NumPy arrays posing as device data
# --------------------------------------------------------------------------


@pytest.fixture
def numpy_as_device(monkeypatch):
    """NumPy arrays take the estimators' device paths (with NumPy as the
    namespace): their dispatch and bookkeeping are checked where no GPU is."""
    import gpuml.preprocessing._label as label

    def family(obj):
        return DEVICE if isinstance(obj, np.ndarray) else HOST

    monkeypatch.setattr(label, "input_family", family)
    monkeypatch.setattr(label, "as_device_native", lambda obj: obj)
    monkeypatch.setattr(label, "to_family", lambda obj, fam: obj)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_device_paths_match_sklearn(numpy_as_device, rng, name):
    y = _target(name, rng)
    le, sk_le = LabelEncoder(), skp.LabelEncoder()
    np.testing.assert_array_equal(le.fit_transform(y), sk_le.fit_transform(y))
    np.testing.assert_array_equal(le.classes_, sk_le.classes_)
    assert le.classes_.dtype == sk_le.classes_.dtype
    np.testing.assert_array_equal(le.transform(y[::-1]), sk_le.transform(y[::-1]))
    codes = sk_le.transform(y)
    np.testing.assert_array_equal(le.inverse_transform(codes), y)
    for params in BINARIZER_PARAMS:
        lb, sk_lb = LabelBinarizer(**params), skp.LabelBinarizer(**params)
        got, want = lb.fit_transform(y), sk_lb.fit_transform(y)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert (lb.y_type_, lb.sparse_input_) == (sk_lb.y_type_, sk_lb.sparse_input_)
        np.testing.assert_array_equal(lb.classes_, sk_lb.classes_)
        scores = want + rng.normal(scale=0.2, size=want.shape)
        np.testing.assert_array_equal(
            lb.inverse_transform(scores), sk_lb.inverse_transform(scores)
        )
        unseen = np.concatenate([y[:3], np.array([123], dtype=y.dtype)])
        if y.dtype != bool:
            np.testing.assert_array_equal(lb.transform(unseen), sk_lb.transform(unseen))


def test_device_paths_errors_as_sklearn(numpy_as_device):
    y = np.array([1, 2, 6])
    le, sk_le = LabelEncoder().fit(y), skp.LabelEncoder().fit(y)
    for method, bad in (("transform", [1, 5]), ("inverse_transform", [0, 3])):
        with pytest.raises(ValueError) as theirs:
            getattr(sk_le, method)(np.array(bad))
        with pytest.raises(ValueError) as ours:
            getattr(le, method)(np.array(bad))
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Unknown label type"):
        LabelBinarizer().fit(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match="must be strictly less than"):
        LabelBinarizer(neg_label=2, pos_label=1).fit(y)
    with pytest.raises(ValueError, match="sparse_output=True` is not supported"):
        LabelBinarizer(sparse_output=True).fit(y)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        LabelEncoder().fit(y[:, None])
