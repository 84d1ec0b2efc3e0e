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

from gpuml._reductions import sorted_column_median


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
    return sorted_column_median(S, n_valid, xp=xp)


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


def _sparse_sorted_nonzero(data, cols, missing, n_features: int, xp: ModuleType):
    """The stored values that are neither missing nor zero, sorted by column
    then value, with their columns, the number per column and each column's
    offset in them (scikit-learn's per-column ``column`` of its sparse fit)."""
    keep = ~missing & (data != 0)
    values, columns = data[keep], cols[keep]
    if values.shape[0]:
        keys = xp.stack([values.astype(xp.float64), columns.astype(xp.float64)])
        order = xp.lexsort(keys)  # by column, then value
        values, columns = values[order], columns[order]
    counts = bincount(columns, None, n_features, xp)
    offsets = xp.cumsum(counts) - counts
    return values, columns, counts, offsets


def sparse_column_median(data, cols, missing, n_samples: int, n_features: int, xp):
    """Per-column median of a sparse matrix's non-missing values, implicit
    zeros included (float64; NaN where none): scikit-learn's ``_get_median``
    for every column at once, in the data's dtype."""
    values, _, counts, offsets = _sparse_sorted_nonzero(
        data, cols, missing, n_features, xp
    )
    n_missing = bincount(cols, missing, n_features, xp).astype(xp.int64)
    n_elems = n_samples - n_missing
    n_zeros = n_elems - counts
    n_negative = bincount(cols[~missing & (data < 0)], None, n_features, xp)
    middle, odd = n_elems // 2, n_elems % 2 == 1

    def at_rank(rank):
        # sorted column: its negatives, its zeros, then its positives
        if values.shape[0] == 0:
            return xp.zeros(n_features, dtype=data.dtype)
        index = offsets + xp.where(rank < n_negative, rank, rank - n_zeros)
        index = xp.clip(index, 0, values.shape[0] - 1)
        is_zero = (rank >= n_negative) & (rank - n_negative < n_zeros)
        return xp.where(is_zero, xp.zeros((), dtype=data.dtype), values[index])

    high = at_rank(middle)
    low = at_rank(xp.maximum(middle - 1, 0))
    median = xp.where(odd, high, (low + high) / xp.asarray(2, dtype=data.dtype))
    return xp.where(n_elems == 0, xp.nan, median.astype(xp.float64))


def sparse_column_most_frequent(
    data, cols, missing, n_samples: int, n_features: int, xp
):
    """Per-column most frequent non-missing value of a sparse matrix,
    implicit zeros included (float64; NaN where none; ties to the smallest
    value): scikit-learn's ``_most_frequent(column, 0, n_zeros)``."""
    values, columns, counts, _ = _sparse_sorted_nonzero(
        data, cols, missing, n_features, xp
    )
    n_missing = bincount(cols, missing, n_features, xp).astype(xp.int64)
    n_zeros = n_samples - n_missing - counts
    best_value = xp.zeros(n_features, dtype=xp.float64)
    best_count = xp.zeros(n_features, dtype=xp.int64)
    if values.shape[0]:
        starts = xp.ones(values.shape[0], dtype=bool)
        starts[1:] = (columns[1:] != columns[:-1]) | (values[1:] != values[:-1])
        run = xp.cumsum(starts) - 1
        lengths = bincount(run, None, int(run[-1]) + 1, xp)
        run_column = columns[starts]
        run_value = values[starts].astype(xp.float64)
        # runs by column, the longest first, then the smallest value
        keys = xp.stack(
            [run_value, -lengths.astype(xp.float64), run_column.astype(xp.float64)]
        )
        order = xp.lexsort(keys)
        run_column, run_value = run_column[order], run_value[order]
        lengths = lengths[order]
        first = xp.ones(order.shape[0], dtype=bool)
        first[1:] = run_column[1:] != run_column[:-1]
        best_value[run_column[first]] = run_value[first]
        best_count[run_column[first]] = lengths[first]
    value = xp.where(best_count > n_zeros, best_value, 0.0)
    value = xp.where(best_count == n_zeros, xp.minimum(best_value, 0.0), value)
    return xp.where((best_count == 0) & (n_zeros == 0), xp.nan, value)
