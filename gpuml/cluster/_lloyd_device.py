"""The device kernels of Lloyd's iteration (``gpuml/_cuda/kmeans.cu``).

:func:`assign` and :func:`cluster_sums` serve :mod:`gpuml.cluster._lloyd`'s
functions of the same names for dense float32/float64 CuPy data, and return
``None`` where a kernel does not apply (the caller then computes with
cuBLAS and CuPy, as on the host):

- the assignment computes each sample's score against every centre of every
  run in registers, from the centres held in shared memory, and keeps the
  smallest: nothing of size ``n_samples x n_runs x n_clusters`` is written
  to memory (the cuBLAS path writes and reads such a score matrix by
  blocks, four passes over it);
- the cluster sums are added in fixed blocks of rows, each in row order in
  shared memory, then the blocks' parts in order: the same bits at every
  call (no atomics), in one pass over the data.

Runs are split into groups whose centres (or sums) fit in a block's shared
memory; a single run too large for it takes the cuBLAS path.
"""

from __future__ import annotations

import functools

import numpy as np

from gpuml import _backend, _cuda
from gpuml._reductions import _sum_chunks

_MODULE = "kmeans"
# A block's shared memory: the 48 KiB every CUDA device gives without opting
# in to more.
_SHARED_BYTES = 48 * 1024
_GROUP = 8  # KM_GROUP of kmeans.cu: centres scored together
# Row blocks of the sums: at most this many (fixed by n_samples alone, so
# that the order of the additions, and the result, does not depend on the
# device).
_SUM_BLOCKS = 1024
_MIN_SUM_ROWS = 256


def prefetch() -> None:
    """Start compiling (or loading) the kernels in the background."""
    _cuda.prefetch_module(_MODULE)


def _applies(X) -> bool:
    return (
        getattr(X, "ndim", 0) == 2
        and not hasattr(X, "format")
        and _cuda.ctype(X.dtype) in ("float", "double")
        and X.flags.c_contiguous
        and X.shape[0] > 0
        and X.shape[1] > 0
    )


def _groups(n_runs: int, per_run: int, fixed: int) -> list[tuple[int, int]] | None:
    """Consecutive run ranges ``(start, stop)`` whose shared memory,
    ``fixed + runs * per_run`` bytes, fits a block; None when one run does
    not fit."""
    size = (_SHARED_BYTES - fixed) // per_run
    if size < 1:
        return None
    return [(r, min(r + size, n_runs)) for r in range(0, n_runs, size)]


@functools.cache
def _multiprocessors(device: int) -> int:
    return _backend.get_cupy().cuda.Device(device).attributes["MultiProcessorCount"]


def _blocks(n_tiles: int) -> int:
    """Blocks of the assignment: a few per multiprocessor (each loads the
    centres once), each looping over tiles of rows."""
    device = _backend.get_cupy().cuda.Device().id
    return max(1, min(n_tiles, 8 * _multiprocessors(device)))


def _assign_threads(item: int) -> int:
    """Rows a block of the assignment scores at once (its threads): fewer
    for float64, whose tile takes twice the shared memory."""
    return 128 if item == 4 else 64


def assign(X, centers, absent=None):
    """Labels ``(n_runs, n_samples)`` int32 of the runs' centres
    ``(n_runs, n_clusters, n_features)``: the centre of smallest
    ``||c||^2 - 2 x.c``, the first on a tie; ``absent`` ((n_runs,
    n_clusters), 0 or +inf) is added to the scores (``_lloyd.absent_scores``:
    a padding centre's +inf never wins). None where the kernel does not
    apply."""
    if not _applies(X):
        return None
    cupy = _backend.get_cupy()
    n_runs, n_clusters, p = centers.shape
    n = X.shape[0]
    item = X.dtype.itemsize
    threads = _assign_threads(item)
    # a group's width is padded to a multiple of _GROUP: up to _GROUP - 1
    # centres more than its runs hold, counted in the fixed part
    fixed = (p * (threads + 1) + (p + 1) * (_GROUP - 1)) * item
    groups = _groups(n_runs, (p + 1) * n_clusters * item, fixed)
    if groups is None:
        return None
    centers = centers.astype(X.dtype, copy=False)
    kernel = _cuda.kernel(_MODULE, f"kmeans_assign<{_cuda.ctype(X.dtype)}>")
    labels = cupy.empty((n_runs, n), dtype=cupy.int32)
    blocks = _blocks(-(-n // threads))
    for start, stop in groups:
        total = (stop - start) * n_clusters
        width = -(-total // _GROUP) * _GROUP
        flat = cupy.zeros((width, p), dtype=X.dtype)
        flat[:total] = centers[start:stop].reshape(total, p)
        c_sq = cupy.einsum("jf,jf->j", flat, flat)
        if absent is not None:
            c_sq[:total] += absent[start:stop].reshape(total).astype(X.dtype)
        # -2 c scales exactly, as in the cuBLAS path
        m2c = cupy.ascontiguousarray((-2 * flat).T)
        shared = ((p + 1) * width + p * (threads + 1)) * item
        args = (X, np.int64(n), np.int32(p), m2c, c_sq, np.int32(stop - start))
        args += (np.int32(n_clusters), np.int32(width), labels[start:stop])
        kernel((blocks,), (threads,), args, shared_mem=shared)
    return labels


def cluster_sums(X, labels, w, n_clusters: int):
    """Weighted sums ``(n_runs, n_clusters, n_features)`` and weights
    ``(n_runs, n_clusters)`` (both in ``X``'s dtype) of each run's clusters;
    None where the kernel does not apply."""
    if not _applies(X):
        return None
    cupy = _backend.get_cupy()
    n_runs, n = labels.shape
    p = X.shape[1]
    item = X.dtype.itemsize
    groups = _groups(n_runs, n_clusters * (p * item + 8), 0)
    if groups is None:
        return None
    t = _cuda.ctype(X.dtype)
    kernel = _cuda.kernel(_MODULE, f"kmeans_block_sums<{t}>")
    labels = cupy.ascontiguousarray(labels, dtype=cupy.int32)
    w = cupy.ascontiguousarray(w, dtype=X.dtype)
    chunk = max(_MIN_SUM_ROWS, -(-n // _SUM_BLOCKS))
    n_blocks = -(-n // chunk)
    sums = cupy.empty((n_runs, n_clusters, p), dtype=X.dtype)
    weights = cupy.empty((n_runs, n_clusters), dtype=cupy.float64)
    for start, stop in groups:
        runs = stop - start
        cells = runs * n_clusters
        sum_parts = cupy.empty((n_blocks, cells * p), dtype=X.dtype)
        weight_parts = cupy.empty((n_blocks, cells), dtype=cupy.float64)
        threads = min(1024, -(-(runs * p + runs) // 32) * 32)
        shared = cells * (p * item + 8)
        args = (X, np.int64(n), np.int32(p), labels[start:stop], w)
        args += (np.int32(runs), np.int32(n_clusters), np.int64(chunk))
        args += (sum_parts, weight_parts)
        kernel((n_blocks,), (threads,), args, shared_mem=shared)
        sums[start:stop] = _sum_chunks(sum_parts, cupy).reshape(runs, n_clusters, p)
        weights[start:stop] = _sum_chunks(weight_parts, cupy).reshape(runs, n_clusters)
    return sums, weights.astype(X.dtype, copy=False)
