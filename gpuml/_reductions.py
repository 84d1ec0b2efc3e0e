"""Per-column weighted moments: one pass over a tall matrix, float64 sums.

Reductions over the rows of a C-ordered matrix (``X.sum(axis=0)``) are slow
in CuPy: a 2,000,000 x 256 float32 column mean took 47 ms on an H200, against
0.5 ms of memory traffic. :func:`column_moments` is a small CUDA kernel that
splits the rows into chunks, lets each thread walk one column of one chunk
(so a warp reads a contiguous run of a row), accumulates in float64, skips
NaN, and leaves a few partial sums per column to be added up. The NumPy
implementation of the same function is the CPU path and the test oracle.
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

from gpuml._backend import get_cupy

_SOURCE = r"""
extern "C" __global__ void column_moments_T(
    const T* X, const double* w, const double* shift, double* out,
    long long n, long long p, long long rows_per_chunk)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= p) return;
    long long start = (long long)blockIdx.y * rows_per_chunk;
    long long stop = start + rows_per_chunk;
    if (stop > n) stop = n;
    double s = shift ? shift[j] : 0.0;
    double c = 0.0, s1 = 0.0, s2 = 0.0;
    for (long long i = start; i < stop; ++i) {
        double x = (double)X[i * p + j];
        if (isnan(x)) continue;
        double wi = w ? w[i] : 1.0;
        double d = x - s;
        c += wi;
        s1 += wi * d;
        s2 += wi * d * d;
    }
    long long o = ((long long)blockIdx.y * p + j) * 3;
    out[o] = c;
    out[o + 1] = s1;
    out[o + 2] = s2;
}
"""

_CHUNKS = 1024  # row chunks: enough blocks to keep every multiprocessor busy
_MIN_ROWS_PER_CHUNK = 64


@functools.cache
def _kernel(ctype: str):
    cupy = get_cupy()
    name = f"column_moments_{ctype}"
    source = _SOURCE.replace("column_moments_T", name)
    source = source.replace("const T*", f"const {ctype}*")
    return cupy.RawKernel(source, name)


def column_moments(X, weights=None, shift=None, *, xp: ModuleType):
    """Per-column ``(count, sum, sum of squares)`` of ``X - shift``, in float64.

    ``count_j = sum_i w_i``, ``sum_j = sum_i w_i (x_ij - shift_j)`` and
    ``sumsq_j = sum_i w_i (x_ij - shift_j)^2``, over the rows where ``x_ij``
    is not NaN (``w_i = 1`` without weights).

    Parameters
    ----------
    X : dense array of shape (n_samples, n_features)
    weights : array of shape (n_samples,) or None
    shift : array of shape (n_features,) or None
    xp : the namespace of ``X``

    Returns
    -------
    count, total, total_sq : three float64 arrays of shape (n_features,)
    """
    if xp is np:
        return _column_moments_numpy(X, weights, shift)
    n, p = X.shape
    if X.dtype not in (xp.float32, xp.float64):
        X = X.astype(xp.float32)  # float16 and integers convert exactly
    X = xp.ascontiguousarray(X)
    w = None if weights is None else xp.ascontiguousarray(weights, dtype=xp.float64)
    s = None if shift is None else xp.ascontiguousarray(shift, dtype=xp.float64)
    n_chunks = max(1, min(_CHUNKS, -(-n // _MIN_ROWS_PER_CHUNK)))
    rows_per_chunk = -(-n // n_chunks)
    n_chunks = -(-n // rows_per_chunk)
    out = xp.empty((n_chunks, p, 3), dtype=xp.float64)
    threads = min(256, 32 * -(-p // 32))
    grid = (-(-p // threads), n_chunks)
    ctype = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}[X.dtype]
    null = 0  # a NULL pointer for the optional arguments
    _kernel(ctype)(
        grid,
        (threads,),
        (
            X,
            null if w is None else w,
            null if s is None else s,
            out,
            np.int64(n),
            np.int64(p),
            np.int64(rows_per_chunk),
        ),
    )
    totals = out.sum(axis=0)
    return totals[:, 0], totals[:, 1], totals[:, 2]


def _column_moments_numpy(X, weights, shift):
    D = X.astype(np.float64, copy=shift is None)
    if shift is not None:
        D = D - shift
    nan = np.isnan(D)
    has_nan = bool(nan.any())
    if has_nan:
        D[nan] = 0.0
    if weights is None:
        count = X.shape[0] - nan.sum(axis=0, dtype=np.float64)
        return count, D.sum(axis=0), np.einsum("ij,ij->j", D, D)
    weights = np.asarray(weights, dtype=np.float64)
    count = weights.sum() - (weights @ nan if has_nan else 0.0)
    count = np.broadcast_to(count, (X.shape[1],)).astype(np.float64)
    return count, weights @ D, weights @ (D * D)


def column_mean(X, weights=None, *, xp: ModuleType):
    """Weighted per-column mean of a dense ``X``, in ``X``'s dtype.

    NumPy follows scikit-learn's ``np.average``; CuPy uses
    :func:`column_moments` (float64 sums, one pass).
    """
    if xp is np:
        return np.average(X, axis=0, weights=weights).astype(X.dtype, copy=False)
    count, total, _ = column_moments(X, weights, xp=xp)
    return (total / count).astype(X.dtype)
