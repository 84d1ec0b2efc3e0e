"""Splitters: scikit-learn's folds, indices in the family of X."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import model_selection as skms

from gpuml import model_selection as gms

SPLITTERS = [
    ("KFold", dict(n_splits=4)),
    ("KFold", dict(n_splits=3, shuffle=True, random_state=7)),
    ("StratifiedKFold", dict(n_splits=3, shuffle=True, random_state=1)),
    ("GroupKFold", dict(n_splits=3)),
    ("ShuffleSplit", dict(n_splits=4, test_size=0.3, random_state=0)),
    ("StratifiedShuffleSplit", dict(n_splits=3, test_size=0.25, random_state=2)),
]


@pytest.mark.parametrize(("name", "params"), SPLITTERS)
def test_same_folds_as_sklearn_in_the_family_of_X(backend, rng, name, params):
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    groups = rng.integers(0, 8, 60) if name.startswith("Group") else None
    ours = getattr(gms, name)(**params)
    theirs = getattr(skms, name)(**params)
    assert repr(ours) == repr(theirs)
    assert ours.get_n_splits(X, y, groups) == theirs.get_n_splits(X, y, groups)
    got = list(
        ours.split(
            backend.asarray(X),
            backend.asarray(y),
            None if groups is None else backend.asarray(groups),
        )
    )
    expected = list(theirs.split(X, y, groups))
    assert len(got) == len(expected)
    for (train, test), (train_sk, test_sk) in zip(got, expected, strict=True):
        backend.assert_family(train)
        backend.assert_family(test)
        np.testing.assert_array_equal(backend.to_numpy(train), train_sk)
        np.testing.assert_array_equal(backend.to_numpy(test), test_sk)


def test_split_indices_wraps_any_sklearn_splitter(backend, rng):
    X = backend.asarray(rng.normal(size=(20, 2)))
    cv = skms.RepeatedKFold(n_splits=2, n_repeats=2, random_state=0)
    folds = list(gms.split_indices(cv, X))
    assert len(folds) == 4
    for train, test in folds:
        backend.assert_family(train)
        assert len(backend.to_numpy(train)) + len(backend.to_numpy(test)) == 20


def test_errors_are_sklearn_errors(backend, rng):
    X = backend.asarray(rng.normal(size=(4, 2)))
    with pytest.raises(ValueError, match="Cannot have number of splits n_splits=5"):
        list(gms.KFold(5).split(X))
    with pytest.raises(ValueError, match="The 'groups' parameter should not be None"):
        list(gms.GroupKFold(2).split(X))


@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("shuffle", [True, False])
def test_train_test_split_matches_sklearn(backend, rng, stratified, shuffle):
    if stratified and not shuffle:
        pytest.skip("scikit-learn requires shuffle=True to stratify")
    X = rng.normal(size=(50, 3))
    y = rng.integers(0, 2, 50)
    Xs = sp.csr_matrix(np.where(X > 0.5, X, 0))
    options = dict(test_size=0.3, random_state=3, shuffle=shuffle)
    expected = skms.train_test_split(
        X, y, Xs, stratify=y if stratified else None, **options
    )
    got = gms.train_test_split(
        backend.asarray(X),
        backend.asarray(y),
        backend.asarray(Xs),
        stratify=backend.asarray(y) if stratified else None,
        **options,
    )
    assert len(got) == 6
    for g, e in zip(got, expected, strict=True):
        backend.assert_family(g, shape=e.shape)
        g = backend.to_numpy(g)
        if sp.issparse(e):
            g, e = g.toarray(), e.toarray()
        np.testing.assert_array_equal(g, e)


def test_train_test_split_host_inputs_are_sklearns(rng):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rng.normal(size=(10, 2)), columns=["a", "b"])
    ours = gms.train_test_split(frame, list(range(10)), random_state=0)
    theirs = skms.train_test_split(frame, list(range(10)), random_state=0)
    assert ours[0].index.tolist() == theirs[0].index.tolist()
    assert ours[3] == theirs[3]
    with pytest.raises(ValueError, match="At least one array required"):
        gms.train_test_split()


@pytest.mark.parametrize("n_splits", [2, 3, 5, 7])
@pytest.mark.parametrize("n_samples", [7, 10, 11, 1_001])
@pytest.mark.parametrize("cls", [skms.KFold, gms.KFold])
def test_kfold_indices_are_sklearns(cls, n_samples, n_splits):
    from gpuml.model_selection._split import kfold_indices

    cv = cls(n_splits)
    got = kfold_indices(cv, n_samples)
    if n_splits > n_samples:
        assert got is None  # scikit-learn's split raises
        return
    expected = list(skms.KFold(n_splits).split(np.zeros((n_samples, 1))))
    assert len(got) == len(expected)
    for (train, test), (sk_train, sk_test) in zip(got, expected, strict=True):
        assert train.dtype == test.dtype == np.int64
        np.testing.assert_array_equal(train, sk_train)
        np.testing.assert_array_equal(test, sk_test)


def test_kfold_indices_leave_other_splitters_to_sklearn():
    from gpuml.model_selection._split import kfold_indices

    class MyKFold(skms.KFold):  # may split otherwise
        pass

    for cv in (
        skms.KFold(3, shuffle=True, random_state=0),
        MyKFold(3),
        skms.GroupKFold(3),
    ):
        assert kfold_indices(cv, 30) is None
