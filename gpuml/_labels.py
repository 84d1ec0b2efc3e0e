"""Integer labels on the GPU by gpuml's kernels (``_cuda/labels.cu``).

Their range, a histogram over it and a lookup table: no sort, and nothing
compiled per call or per size (the kernels are in the ``labels`` module,
which ``gpuml.warmup()`` compiles), where ``cupy.unique`` compiles a sort, a
scan and a mask on first use. Labels that are not 1-D-contiguous ``int32``
or ``int64`` values, or that span more than :data:`MAX_LABEL_SPAN` values,
are left to the callers' general path (``xp.unique``).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gpuml import _cuda

# Widest range of integer labels counted by a histogram on the GPU.
MAX_LABEL_SPAN = 1 << 22


def _label_type(labels) -> str | None:
    """The kernels' C type for ``labels``, or None when they do not apply."""
    if labels.size == 0 or not labels.flags.c_contiguous:
        return None
    t = _cuda.ctype(labels.dtype)
    return t if t in ("int", "long long") else None


def _histogram(labels, xp: ModuleType):
    """``(lo, counts)``: counts of the values ``lo, lo + 1, ...`` (a device
    uint64 array), or None (see the module's docstring)."""
    t = _label_type(labels)
    if t is None:
        return None
    flat = labels.reshape(-1)
    n = np.int64(flat.shape[0])
    bounds = xp.asarray(np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min]))
    _cuda.launch("labels", f"label_range<{t}>", flat.shape[0], (flat, n, bounds))
    lo, hi = (int(v) for v in bounds.get())
    span = hi - lo + 1
    if span > MAX_LABEL_SPAN:
        return None
    counts = xp.zeros(span, dtype=xp.uint64)
    args = (flat, n, np.int64(lo), counts)
    _cuda.launch("labels", f"label_histogram<{t}>", flat.shape[0], args)
    return lo, counts


def distinct_integer_labels(labels, xp: ModuleType):
    """The sorted distinct values of integer device ``labels`` (any shape),
    a host array of their dtype, or None (see the module's docstring)."""
    counted = _histogram(labels, xp)
    if counted is None:
        return None
    lo, counts = counted
    return (np.flatnonzero(counts.get()) + lo).astype(labels.dtype)


def encode_integer_labels(labels, xp: ModuleType):
    """``(classes, indices)`` of 1-D integer device labels: the sorted
    distinct values (device, the labels' dtype) and each label's position
    among them (device int64), or None (see the module's docstring)."""
    if labels.ndim != 1:
        return None
    counted = _histogram(labels, xp)
    if counted is None:
        return None
    lo, counts = counted
    present = np.flatnonzero(counts.get())
    table = np.full(counts.shape[0], -1, dtype=np.int64)
    table[present] = np.arange(present.shape[0])
    n = np.int64(labels.shape[0])
    indices = xp.empty(labels.shape[0], dtype=xp.int64)
    t = _label_type(labels)
    args = (labels, n, np.int64(lo), xp.asarray(table), indices)
    _cuda.launch("labels", f"label_encode<{t}>", labels.shape[0], args)
    return xp.asarray((present + lo).astype(labels.dtype)), indices
