"""Array namespaces, input and output families, and moving data between them.

Two ideas run through gpuml:

- The **compute namespace** ``xp`` is NumPy or CuPy, chosen once per call by
  the device policy (:func:`compute_namespace`) and passed down to pure kernel
  functions written against the NumPy API.
- The **family** of an input is ``"host"`` (NumPy, array-likes, pandas, SciPy
  sparse, CPU tensors) or ``"device"`` (CuPy, cupyx sparse, cuDF, and anything
  exposing ``__cuda_array_interface__`` or a CUDA ``__dlpack__``). Outputs are
  returned in the family of the input they were computed from, and fitted
  attributes in the family of the training input. Within the device family,
  a cuDF input gets cuDF output (:func:`to_output`): a Series or DataFrame
  with the input's index, where the output is dense.

Host arrays larger than a few tens of megabytes are copied to the GPU through
pinned staging buffers by several threads at once, which is several times
faster than CuPy's copy from pageable memory.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

import numpy as np
import scipy.sparse as sp

from gpuml import _cuda, _linalg
from gpuml._backend import (
    get_cupy,
    has_cuda_memory,
    import_cupyx,
    is_cudf_object,
    is_cupy_object,
    resolve_device,
)

HOST = "host"
DEVICE = "device"

# Transfers below this size go through one plain copy; above it, pinned chunks.
_PINNED_MIN_BYTES = 32 << 20
_CHUNK_BYTES = 4 << 20
_TRANSFER_THREADS = 8
# The pinned block that large copies stage through (see _run_threads) is
# taken under this lock, so that prefetch's reservation and a first copy
# never page-lock one each.
_staging_lock = threading.Lock()
_prefetch_lock = threading.Lock()
_prefetched: set[int] = set()


def input_family(obj: object) -> str:
    """Return ``"device"`` for GPU-resident inputs and ``"host"`` for the rest."""
    if is_cupy_object(obj) or is_cudf_object(obj) or has_cuda_memory(obj):
        return DEVICE
    return HOST


def to_output(result, X, columns=None):
    """``result`` as the output for the input ``X``: cuDF where ``X`` is a cuDF
    DataFrame or Series and ``result`` is a dense array (a Series for one
    dimension, else a DataFrame, with ``X``'s index and the column names
    that the callable ``columns`` returns, called only then); anything else
    unchanged (fitted attributes and sparse results
    stay CuPy and cupyx: cuDF has no sparse type).

    cuDF is taken from ``sys.modules``: a cuDF input means it is imported.
    """
    if not is_cudf_object(X) or is_sparse(result) or not hasattr(result, "ndim"):
        return result
    cudf = sys.modules["cudf"]
    index = getattr(X, "index", None)
    if result.ndim == 1:
        return cudf.Series(result, index=index)
    frame = cudf.DataFrame(result, index=index)
    names = None if columns is None else columns()
    if names is not None:
        frame.columns = list(names)
    return frame


def compute_namespace() -> ModuleType:
    """Return the namespace the current device policy computes with.

    On the GPU, the first call for a device also starts its set-up in the
    background (:func:`_prefetch`), so that a first fit's compiles and
    libraries' start-up overlap its data transfer.
    """
    if resolve_device() == "cpu":
        return np
    cupy = get_cupy()
    _prefetch(cupy.cuda.Device().id)
    return cupy


def _prefetch(device: int) -> None:
    """Once per process and device, start in background threads what a
    first fit on ``device`` waits for, and return at once: gpuml's kernel
    modules (:func:`gpuml._cuda.prefetch`), cuBLAS and cuSOLVER
    (:func:`gpuml._linalg.warm_libraries`) and the pinned staging block of
    large copies (:func:`reserve_staging`)."""
    with _prefetch_lock:
        if device in _prefetched:
            return
        _prefetched.add(device)
    _cuda.prefetch()
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gpuml-prefetch")
    pool.submit(reserve_staging)
    pool.submit(_linalg.warm_libraries, device)
    pool.shutdown(wait=False)


def namespace_of(array: object) -> ModuleType:
    """Return NumPy or CuPy: the namespace that holds ``array``."""
    return get_cupy() if is_cupy_object(array) else np


def input_namespace(*arrays: object) -> ModuleType:
    """CuPy when any input is device-family, else NumPy (``None`` is skipped).

    Metrics compute where their inputs live, whatever the device policy.
    """
    if any(a is not None and input_family(a) == DEVICE for a in arrays):
        return get_cupy()
    return np


def is_sparse(array: object) -> bool:
    """True for SciPy and cupyx sparse matrices and arrays."""
    if sp.issparse(array):
        return True
    # A cupyx sparse matrix exists only once its module is imported; asking
    # without importing it spares a first fit on dense data about 0.1 s.
    cusp = sys.modules.get("cupyx.scipy.sparse")
    return cusp is not None and is_cupy_object(array) and cusp.issparse(array)


def as_device_native(obj: object):
    """Return a device-family input as a CuPy array or cupyx sparse matrix.

    cuDF objects and ``__cuda_array_interface__`` / CUDA ``__dlpack__``
    producers (PyTorch CUDA tensors among them) are wrapped without a copy
    where their memory layout allows it.
    """
    if is_cupy_object(obj):
        return obj
    cupy = get_cupy()
    if is_cudf_object(obj):
        to_cupy = getattr(obj, "to_cupy", None)
        return to_cupy() if to_cupy is not None else cupy.asarray(obj.values)
    if hasattr(obj, "__cuda_array_interface__"):
        return cupy.asarray(obj)
    return cupy.from_dlpack(obj)


def to_namespace(array, xp: ModuleType):
    """Return ``array`` (dense or sparse, host or device) held by ``xp``.

    Nothing is copied when the array is already there.
    """
    if xp is np:
        if is_cupy_object(array):
            return array.get() if is_sparse(array) else device_to_host(array)
        return array
    if is_cupy_object(array):
        return array
    if sp.issparse(array) and array.format == "csr" and array.dtype.kind == "f":
        # The three arrays by gpuml's pinned copies, assembled without
        # CuPy's checks (which compile kernels on a new machine).
        parts = (array.data, array.indices, array.indptr)
        data, indices, indptr = (host_to_device(np.ascontiguousarray(a)) for a in parts)
        if indices.dtype != indptr.dtype:
            indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
        canonical = bool(array.has_canonical_format)
        return _cuda.csr_from_parts(data, indices, indptr, array.shape, canonical)
    if sp.issparse(array):
        cusp = import_cupyx("scipy.sparse")
        fmt = array.format if array.format in ("csr", "csc", "coo") else "csr"
        constructor = {
            "csr": cusp.csr_matrix,
            "csc": cusp.csc_matrix,
            "coo": cusp.coo_matrix,
        }[fmt]
        return constructor(array.asformat(fmt))
    return host_to_device(np.asarray(array))


def to_family(array, family: str):
    """Return ``array`` in the given family: NumPy/SciPy or CuPy/cupyx."""
    if family == HOST:
        return to_namespace(array, np)
    return to_namespace(array, get_cupy())


def into_input(result, X_in, copy: bool):
    """``result`` written into the caller's ``X_in``, and ``X_in`` returned,
    where scikit-learn's ``copy=False`` transforms ``X_in`` in place: a
    writeable NumPy array of ``result``'s dtype and shape, or a SciPy matrix
    of ``result``'s format, dtype and stored entries. A transform of host
    data computed on the GPU gives a new host array; this keeps the promise
    of ``copy=False`` (scikit-learn's code and users rely on it). Else, and
    with ``copy=True``, ``result``."""
    if copy or result is X_in:
        return result
    if isinstance(X_in, np.ndarray):
        if (
            type(result) is np.ndarray
            and X_in.shape == result.shape
            and X_in.dtype == result.dtype
            and X_in.flags.writeable
        ):
            X_in[...] = result
            return X_in
        return result
    if (
        sp.issparse(X_in)
        and sp.issparse(result)  # (a csr_array's result may be a csr_matrix)
        and X_in.format in ("csr", "csc")
        and X_in.format == result.format
        and X_in.shape == result.shape
        and X_in.dtype == result.dtype
        and X_in.data.flags.writeable
        and np.array_equal(X_in.indptr, result.indptr)
        and np.array_equal(X_in.indices, result.indices)
    ):
        X_in.data[...] = result.data
        return X_in
    return result


def to_family_attribute(value, family: str):
    """A fitted attribute in ``family``; a 0-d host array becomes a NumPy
    scalar, as scikit-learn stores scalar attributes."""
    value = to_family(value, family)
    if family == HOST and isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _chunk_ranges(n_bytes: int) -> list[tuple[int, int]]:
    """Split ``n_bytes`` into one chunk-aligned byte range per transfer thread."""
    n_chunks = -(-n_bytes // _CHUNK_BYTES)
    per_thread = -(-n_chunks // _TRANSFER_THREADS) * _CHUNK_BYTES
    return [(lo, min(lo + per_thread, n_bytes)) for lo in range(0, n_bytes, per_thread)]


def _run_threads(cupy: ModuleType, copy_range, n_bytes: int) -> None:
    """Run ``copy_range(lo, hi, buffers)`` in a thread per byte range of
    :func:`_chunk_ranges`, ``buffers`` being that thread's two pinned chunk
    buffers.

    The buffers are rows of one pinned block: one page-locking call (a
    process's first took 40 ms for 64 MiB on an H100, sixteen separate
    buffers twice that, usually made ahead by :func:`reserve_staging`), and
    CuPy's pinned pool hands the same block to every later transfer.
    """
    with _staging_lock:
        staging = cupy_pinned_bytes(cupy, _staging_bytes())
    staging = staging.reshape(_TRANSFER_THREADS, 2, _CHUNK_BYTES)
    ranges = _chunk_ranges(n_bytes)
    with ThreadPoolExecutor(max_workers=len(ranges)) as pool:
        futures = [
            pool.submit(copy_range, lo, hi, staging[i])
            for i, (lo, hi) in enumerate(ranges)
        ]
        for future in futures:
            future.result()


def _staged_copy(chunk: np.ndarray, buffer: np.ndarray, previous, dst, stream):
    """Copy the host bytes ``chunk`` to the device pointer ``dst`` through the
    pinned ``buffer``, asynchronously on ``stream``, once ``previous`` (the
    event of the buffer's last copy, or None) is over; the copy's event."""
    if previous is not None:
        previous.synchronize()
    np.copyto(buffer[: chunk.shape[0]], chunk)
    dst.copy_from_host_async(buffer.ctypes.data, chunk.shape[0], stream)
    return stream.record()


def host_to_device(array: np.ndarray):
    """Copy a NumPy array to the current GPU, pinned and chunked when large.

    Small arrays take one ``cupy.asarray``. Large ones are split into
    ``_TRANSFER_THREADS`` ranges; each thread stages its range through two
    pinned buffers and issues asynchronous copies on its own stream, so the
    host-side copies into pinned memory run in parallel and overlap the DMA.
    """
    cupy = get_cupy()
    if array.nbytes < _PINNED_MIN_BYTES or array.dtype.hasobject:
        return cupy.asarray(array)
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        array = np.ascontiguousarray(array)
    order = "C" if array.flags.c_contiguous else "F"
    out = cupy.empty(array.shape, dtype=array.dtype, order=order)
    src = array.reshape(-1, order=order).view(np.uint8)
    device_id = cupy.cuda.Device().id
    # The copies run on their own streams: let whatever the current stream
    # still does with this (possibly recycled) memory finish first.
    cupy.cuda.get_current_stream().synchronize()

    def copy_range(lo: int, hi: int, buffers) -> None:
        with cupy.cuda.Device(device_id):
            stream = cupy.cuda.Stream(non_blocking=True)
            done = [None, None]
            for i, start in enumerate(range(lo, hi, _CHUNK_BYTES)):
                k = i % 2
                chunk = src[start : min(start + _CHUNK_BYTES, hi)]
                dst = out.data + start
                done[k] = _staged_copy(chunk, buffers[k], done[k], dst, stream)
            stream.synchronize()

    _run_threads(cupy, copy_range, src.shape[0])
    return out


def pieces_to_device(pieces, out) -> bool:
    """Copy host byte arrays, one after another, into the CuPy uint8 array
    ``out``, as ``pieces`` (an iterator) makes them; stop early, returning
    False, when it yields None.

    Each piece goes through two pinned chunk buffers and an asynchronous copy
    on a stream of its own, so that making the next piece on the host (say,
    joining strings) overlaps the copy of the last.
    """
    cupy = get_cupy()
    with _staging_lock:
        staging = cupy_pinned_bytes(cupy, _staging_bytes())
    buffers = staging.reshape(-1, _CHUNK_BYTES)[:2]
    cupy.cuda.get_current_stream().synchronize()  # out may be recycled memory
    stream = cupy.cuda.Stream(non_blocking=True)
    done = [None, None]
    position = 0
    k = 0
    for piece in pieces:
        if piece is None:
            stream.synchronize()
            return False
        for start in range(0, piece.shape[0], _CHUNK_BYTES):
            chunk = piece[start : start + _CHUNK_BYTES]
            dst = out.data + position
            done[k] = _staged_copy(chunk, buffers[k], done[k], dst, stream)
            position += chunk.shape[0]
            k = 1 - k
    stream.synchronize()
    return True


def device_to_host(array) -> np.ndarray:
    """Copy a CuPy array to a new NumPy array, pinned and chunked when large.

    The mirror of :func:`host_to_device`: each thread has the GPU copy chunks
    of its range into two pinned buffers on its own stream and moves each
    finished chunk into the result while the next one is in flight.
    """
    cupy = get_cupy()
    if array.nbytes < _PINNED_MIN_BYTES:
        return array.get(order="A")  # an F-ordered array stays F-ordered
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        array = cupy.ascontiguousarray(array)
    order = "C" if array.flags.c_contiguous else "F"
    out = np.empty(array.shape, dtype=array.dtype, order=order)
    dst = out.reshape(-1, order=order).view(np.uint8)
    device_id = array.device.id
    cupy.cuda.get_current_stream().synchronize()  # the producer of `array`

    def copy_range(lo: int, hi: int, buffers) -> None:
        with cupy.cuda.Device(device_id):
            stream = cupy.cuda.Stream(non_blocking=True)
            pending = [None, None]  # (event, start, stop) per buffer

            def drain(k: int) -> None:
                event, start, stop = pending[k]
                event.synchronize()
                np.copyto(dst[start:stop], buffers[k][: stop - start])
                pending[k] = None

            for i, start in enumerate(range(lo, hi, _CHUNK_BYTES)):
                stop = min(start + _CHUNK_BYTES, hi)
                k = i % 2
                if pending[k] is not None:
                    drain(k)
                (array.data + start).copy_to_host_async(
                    buffers[k].ctypes.data, stop - start, stream
                )
                pending[k] = (stream.record(), start, stop)
            n_issued = -(-(hi - lo) // _CHUNK_BYTES)
            for i in range(n_issued, n_issued + 2):  # oldest first
                if pending[i % 2] is not None:
                    drain(i % 2)

    _run_threads(cupy, copy_range, dst.shape[0])
    return out


def _staging_bytes() -> int:
    """Two chunk buffers per transfer thread."""
    return 2 * _TRANSFER_THREADS * _CHUNK_BYTES


def reserve_staging() -> None:
    """Page-lock the staging block of large copies into CuPy's pinned pool,
    where the first copy finds it (a background task of
    :func:`_prefetch`: the 40 ms overlap the first fit's
    validation instead of delaying its copy)."""
    cupy = get_cupy()
    with _staging_lock:
        cupy_pinned_bytes(cupy, _staging_bytes())  # dropped at once: pooled


def cupy_pinned_bytes(cupy: ModuleType, n_bytes: int) -> np.ndarray:
    """A NumPy byte array backed by pinned host memory from CuPy's pool."""
    memory = cupy.cuda.alloc_pinned_memory(n_bytes)
    return np.frombuffer(memory, dtype=np.uint8, count=n_bytes)


def to_host(array):
    """Return ``array`` as NumPy / SciPy sparse (no-op for host arrays)."""
    return to_namespace(array, np)


def to_float(value) -> float:
    """Convert a 0-d array (NumPy or CuPy) or number to a Python float."""
    return float(value.item() if hasattr(value, "item") else value)


def take_rows(values, rows, xp: ModuleType):
    """``values[rows]`` (gpuml's gather kernel on the GPU, where the layout
    allows: no CuPy indexing kernel to compile)."""
    sparse_other = is_sparse(values) and getattr(values, "format", None) != "csr"
    if xp is not np and not sparse_other:
        taken = _cuda.take_rows(values, rows)
        if taken is not None:
            return taken
    return values[rows]
