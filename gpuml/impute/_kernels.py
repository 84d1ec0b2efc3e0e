"""Column statistics of :class:`~gpuml.impute.SimpleImputer`, written once
against an array namespace ``xp`` (NumPy or CuPy).

Missing entries are given by a boolean mask of the shape of ``X``. The
median and the most frequent value sort every column on the device (missing
entries are moved to the end of their column first); the mode is then a
run-length count of the sorted columns, whose first longest run is the
smallest most frequent value: scikit-learn's tie rule
(``scipy.stats.mode``'s). Nothing here loops over columns in Python.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np


def missing_mask(X, missing_values, *, is_nan: bool, xp: ModuleType):
    """Boolean mask of the entries of the numeric dense ``X`` equal to
    ``missing_values`` (NaN when ``is_nan``)."""
    if is_nan:
        if X.dtype.kind in "fc":
            return xp.isnan(X)
        return xp.zeros(X.shape, dtype=bool)
    return X == missing_values


def _sorted_valid(X, mask, xp: ModuleType):
    """Each column of ``X`` sorted, its missing entries last, and the number
    of non-missing entries per column (int64)."""
    if X.dtype.kind == "f":
        filler = xp.nan  # NaNs sort last in NumPy and CuPy
    elif X.dtype.kind == "b":
        filler = True
    else:
        filler = np.iinfo(X.dtype).max
    # A valid entry equal to the filler sorts among the fillers; it is the
    # same value, so the first n_valid entries are still the valid multiset.
    filled = xp.where(mask, xp.asarray(filler, dtype=X.dtype), X)
    n_valid = X.shape[0] - xp.sum(mask, axis=0, dtype=xp.int64)
    return xp.sort(filled, axis=0), n_valid


def column_mean(X, mask, *, xp: ModuleType):
    """Per-column mean of the non-missing entries (float64; NaN where none).

    The sum is accumulated in ``X``'s dtype and divided by the count, as
    ``numpy.ma.mean`` does (scikit-learn's computation).
    """
    total = xp.sum(xp.where(mask, xp.zeros((), dtype=X.dtype), X), axis=0)
    count = X.shape[0] - xp.sum(mask, axis=0, dtype=xp.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / count
    return xp.where(count == 0, xp.nan, mean).astype(xp.float64, copy=False)


def column_median(X, mask, *, xp: ModuleType):
    """Per-column median of the non-missing entries, in ``X``'s dtype (NaN
    where none): the mean of the two middle values of the sorted column,
    computed as ``numpy.ma.median`` does, ``(low + high) / 2``."""
    S, n_valid = _sorted_valid(X, mask, xp)
    high = n_valid // 2
    low = xp.where(n_valid % 2 == 1, high, high - 1)
    low = xp.maximum(low, 0)
    high = xp.minimum(high, max(X.shape[0] - 1, 0))
    lo = xp.take_along_axis(S, low[None, :], axis=0)[0]
    hi = xp.take_along_axis(S, high[None, :], axis=0)[0]
    median = (lo + hi) / xp.asarray(2, dtype=S.dtype)
    return xp.where(n_valid == 0, xp.asarray(xp.nan, dtype=median.dtype), median)


def column_most_frequent(X, mask, *, xp: ModuleType):
    """Per-column most frequent non-missing value (float64; NaN where
    none); ties go to the smallest value."""
    n_samples, n_features = X.shape
    if n_samples == 0:
        return xp.full(n_features, xp.nan, dtype=xp.float64)
    S, n_valid = _sorted_valid(X, mask, xp)
    rows = xp.arange(n_samples)[:, None]
    valid = rows < n_valid[None, :]
    starts = xp.empty(S.shape, dtype=bool)
    starts[0] = True
    starts[1:] = S[1:] != S[:-1]
    starts &= valid
    # Run number of each entry within its column, then the length of every
    # run by one bincount over (column, run) pairs.
    run = xp.cumsum(starts, axis=0) - 1
    ids = (xp.arange(n_features)[None, :] * n_samples + run)[valid]
    lengths = bincount(ids.ravel(), None, n_samples * n_features, xp)
    lengths = lengths.reshape(n_features, n_samples)
    # The first longest run (the smallest value), by a minimum over run
    # numbers rather than argmax's order among ties.
    longest = xp.max(lengths, axis=1, keepdims=True)
    numbers = xp.arange(n_samples)[None, :]
    best_run = xp.min(xp.where(lengths == longest, numbers, n_samples), axis=1)
    at = starts & (run == best_run[None, :])
    best_row = xp.min(xp.where(at, rows, n_samples), axis=0)
    best_row = xp.minimum(best_row, n_samples - 1)  # columns without a value
    value = S[best_row, xp.arange(n_features)].astype(xp.float64)
    return xp.where(n_valid == 0, xp.nan, value)


def bincount(indices, weights, length: int, xp: ModuleType):
    """``xp.bincount`` with ``minlength=length`` (float64 weights), also for
    empty ``indices`` (which ``cupy.bincount`` refuses)."""
    if indices.shape[0] == 0:
        dtype = xp.int64 if weights is None else xp.float64
        return xp.zeros(length, dtype=dtype)
    if weights is not None:
        weights = weights.astype(xp.float64)
    return xp.bincount(indices, weights=weights, minlength=length)


def sparse_column_mean(data, cols, missing, n_samples: int, n_features: int, xp):
    """Per-column mean of a sparse matrix's values (implicit zeros count),
    missing stored values excluded (float64; NaN where none)."""
    values = xp.where(missing, xp.zeros((), dtype=data.dtype), data)
    total = bincount(cols, values, n_features, xp)
    n_missing = bincount(cols, missing, n_features, xp)
    count = n_samples - n_missing
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / count
    return xp.where(count == 0, xp.nan, mean)
