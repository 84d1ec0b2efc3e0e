"""Cross-validation splitters whose indices live where the data lives.

The folds are scikit-learn's own: each gpuml splitter is the scikit-learn
splitter of the same name (same parameters, same folds for the same
``random_state``), whose ``split`` hands scikit-learn only what decides the
folds (the number of samples, ``y`` and ``groups``, moved to the host; never
``X`` itself) and returns the index arrays in the family of ``X``: NumPy for
host data, CuPy for device data, so that a search can index device-resident
data without a round trip.

:func:`train_test_split` likewise draws scikit-learn's split and indexes each
array in its own family.
"""

from __future__ import annotations

import numpy as np
from sklearn import model_selection as sk
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_consistent_length

from gpuml._array import DEVICE, as_device_native, input_family, to_family, to_host
from gpuml._sklearn_compat import num_samples


def _host_labels(values):
    """``y`` or ``groups`` as scikit-learn can read them (None stays None)."""
    if values is None or input_family(values) != DEVICE:
        return values
    return to_host(as_device_native(values))


def split_indices(cv, X, y=None, groups=None):
    """Yield ``cv``'s (train, test) index pairs in the family of ``X``.

    ``cv`` is any scikit-learn splitter. ``X`` is only counted: a placeholder
    of its length (which costs no memory) stands in for it, so device data is
    never copied to the host to be split.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold
    >>> from gpuml.model_selection import split_indices
    >>> X = np.zeros((6, 2))
    >>> [test.tolist() for _, test in split_indices(KFold(3), X)]
    [[0, 1], [2, 3], [4, 5]]
    """
    family = input_family(X)
    placeholder = np.broadcast_to(np.float64(0), (num_samples(X), 1))
    for train, test in cv.split(placeholder, _host_labels(y), _host_labels(groups)):
        yield to_family(train, family), to_family(test, family)


def kfold_indices(cv, n_samples: int) -> list | None:
    """``cv.split``'s (train, test) pairs as host int64 arrays for an
    unshuffled ``KFold`` (scikit-learn's or gpuml's), made from each test
    fold's bounds: the arrays scikit-learn's split gives, without the
    boolean mask per fold that it builds and inverts (15 ms of a 1,000,000
    row search's 60 ms on an H100's host). None for any other splitter, or
    where scikit-learn's split raises (more folds than samples)."""
    if type(cv) not in (sk.KFold, KFold) or cv.shuffle or cv.n_splits > n_samples:
        return None
    sizes = np.full(cv.n_splits, n_samples // cv.n_splits, dtype=np.int64)
    sizes[: n_samples % cv.n_splits] += 1
    stops = np.cumsum(sizes)
    pairs = []
    for start, stop in zip(stops - sizes, stops, strict=True):
        train = np.empty(n_samples - (stop - start), dtype=np.int64)
        train[:start] = np.arange(start)
        train[start:] = np.arange(stop, n_samples)
        pairs.append((train, np.arange(start, stop, dtype=np.int64)))
    return pairs


class _FamilySplitMixin:
    """``split`` returns indices in the family of ``X`` (see module docstring)."""

    def split(self, X, y=None, groups=None):
        """Generate indices to split data into training and test set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (host or device). Only its length is used.
        y : array-like of shape (n_samples,), default=None
            The target, for stratified splitters.
        groups : array-like of shape (n_samples,), default=None
            Group labels, for group splitters.

        Yields
        ------
        train, test : ndarray
            Indices of the split, NumPy for host ``X``, CuPy for device ``X``.
        """
        return split_indices(super(), X, y, groups)


class KFold(_FamilySplitMixin, sk.KFold):
    """K-fold cross-validator: :class:`sklearn.model_selection.KFold`, whose
    indices follow the family of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import KFold
    >>> [test.tolist() for _, test in KFold(n_splits=3).split(np.zeros((6, 2)))]
    [[0, 1], [2, 3], [4, 5]]
    """


class StratifiedKFold(_FamilySplitMixin, sk.StratifiedKFold):
    """Stratified K-fold: :class:`sklearn.model_selection.StratifiedKFold`,
    whose indices follow the family of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import StratifiedKFold
    >>> X, y = np.zeros((6, 1)), np.array([0, 0, 0, 1, 1, 1])
    >>> [test.tolist() for _, test in StratifiedKFold(3).split(X, y)]
    [[0, 3], [1, 4], [2, 5]]
    """


class GroupKFold(_FamilySplitMixin, sk.GroupKFold):
    """Group K-fold: :class:`sklearn.model_selection.GroupKFold`, whose
    indices follow the family of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import GroupKFold
    >>> X, groups = np.zeros((4, 1)), np.array([0, 0, 1, 1])
    >>> folds = GroupKFold(2).split(X, groups=groups)
    >>> sorted(sorted(test.tolist()) for _, test in folds)
    [[0, 1], [2, 3]]
    """


class ShuffleSplit(_FamilySplitMixin, sk.ShuffleSplit):
    """Random permutation splits: :class:`sklearn.model_selection.ShuffleSplit`,
    whose indices follow the family of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import ShuffleSplit
    >>> splitter = ShuffleSplit(n_splits=2, test_size=2, random_state=0)
    >>> [len(test) for _, test in splitter.split(np.zeros((10, 1)))]
    [2, 2]
    """


class StratifiedShuffleSplit(_FamilySplitMixin, sk.StratifiedShuffleSplit):
    """Stratified random splits:
    :class:`sklearn.model_selection.StratifiedShuffleSplit`, whose indices
    follow the family of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import StratifiedShuffleSplit
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> splitter = StratifiedShuffleSplit(n_splits=1, test_size=4, random_state=0)
    >>> _, test = next(splitter.split(np.zeros((8, 1)), y))
    >>> np.bincount(y[test]).tolist()
    [2, 2]
    """


def train_test_split(
    *arrays,
    test_size=None,
    train_size=None,
    random_state=None,
    shuffle=True,
    stratify=None,
):
    """Split arrays into random train and test subsets, each in its family.

    The split is :func:`sklearn.model_selection.train_test_split`'s for the
    same arguments. Host arrays (NumPy, pandas, SciPy sparse, lists) are
    indexed as scikit-learn does; device arrays (CuPy, cupyx sparse, cuDF,
    CUDA tensors) are indexed on the device, with no copy to the host.

    Parameters
    ----------
    *arrays : sequence of indexables with the same length
    test_size, train_size : float or int, default=None
        As in scikit-learn (0.25 test when both are None).
    random_state : int, RandomState instance or None, default=None
    shuffle : bool, default=True
    stratify : array-like, default=None
        Class labels to stratify by (host or device).

    Returns
    -------
    splitting : list, length=2 * len(arrays)
        Train and test parts of each input, in the input's family.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.model_selection import train_test_split
    >>> X, y = np.arange(10).reshape(5, 2), np.arange(5)
    >>> X_train, X_test, y_train, y_test = train_test_split(
    ...     X, y, test_size=0.4, random_state=0)
    >>> y_train.tolist(), y_test.tolist()
    ([1, 3, 4], [2, 0])
    """
    if not arrays:
        raise ValueError("At least one array required as input")
    options = dict(
        test_size=test_size,
        train_size=train_size,
        random_state=random_state,
        shuffle=shuffle,
    )
    on_device = [a is not None and input_family(a) == DEVICE for a in arrays]
    if not any(on_device) and (stratify is None or input_family(stratify) != DEVICE):
        return sk.train_test_split(*arrays, stratify=stratify, **options)
    check_consistent_length(*arrays)
    train, test = sk.train_test_split(
        np.arange(num_samples(arrays[0])), stratify=_host_labels(stratify), **options
    )
    result = []
    for array, device in zip(arrays, on_device, strict=True):
        if device:
            array = as_device_native(array)
            result += [array[to_family(train, DEVICE)], array[to_family(test, DEVICE)]]
        else:
            result += [_safe_indexing(array, train), _safe_indexing(array, test)]
    return result
