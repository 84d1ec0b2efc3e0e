"""The caller's device arrays handed to same-host GPU workers through CUDA IPC.

When the search's caller computes on a GPU, its data are on that GPU anyway
(the compute view, which the refit uses too). Workers on the same machine
then need no host copy at all: the caller exports each large array's device
allocation (``cudaIpcGetMemHandle``), and each worker maps it
(``cudaIpcOpenMemHandle``), copies the array to its own GPU (device to
device: over NVLink between two H200s, about 10 ms per GB) and unmaps it.
This replaces writing the data to shared memory and uploading them from
there (about 0.6 s per GB on the H200 machines, see ``_shm.py``).

It is used only when it can work: the caller's arrays are contiguous CuPy
arrays of at least ``_shm.MIN_BYTES`` in memory from ``cudaMalloc`` (CuPy's
default pool; not managed or stream-ordered memory), and every worker
opens the handles in a trial (:func:`usable`), which fails for workers on
other machines, workers without a GPU, and GPUs without peer access.
Otherwise the search falls back to shared memory or sockets.

Lifetime: the caller's arrays stay alive until the search has ended. A
worker copies under its per-process cache lock (see ``_dask.py``), and the
caller's cleanup at the end of the search (``_forget`` on every worker)
takes that lock, so no worker is reading when the caller lets go.
"""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass

import numpy as np

from gpuml.model_selection import _shm

_COPY_DEFAULT = 4  # cudaMemcpyDefault: the driver finds both devices (UVA)


@dataclass(frozen=True)
class DeviceArray:
    """A contiguous array inside another process's device allocation."""

    handle: bytes  # cudaIpcMemHandle_t of the allocation
    offset: int  # bytes from the allocation's start to the array's
    shape: tuple
    dtype: str
    order: str  # "C" or "F"

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize


def _allocation_start(pointer: int) -> int:
    """The start of the ``cudaMalloc`` allocation holding ``pointer``.

    CuPy's pool hands out pieces of larger allocations, and an IPC handle
    always names a whole allocation; the driver knows where it starts.
    """
    driver = ctypes.CDLL("libcuda.so.1")
    start, size = ctypes.c_uint64(), ctypes.c_size_t()
    status = driver.cuMemGetAddressRange_v2(
        ctypes.byref(start), ctypes.byref(size), ctypes.c_uint64(pointer)
    )
    if status != 0:
        raise OSError(f"cuMemGetAddressRange failed with CUDA error {status}")
    return start.value


def _worth_sharing(value) -> bool:
    cupy = sys.modules.get("cupy")
    return (
        cupy is not None
        and isinstance(value, cupy.ndarray)
        and value.nbytes >= _shm.MIN_BYTES  # one size rule for both ways
        and (value.flags.c_contiguous or value.flags.f_contiguous)
    )


def share(device_values: dict) -> dict[str, DeviceArray]:
    """Handles to the arrays of ``device_values`` (the caller's data on its
    GPU) that are worth sharing; empty when an allocation cannot be
    exported."""
    chosen = {k: v for k, v in device_values.items() if _worth_sharing(v)}
    if not chosen or not sys.platform.startswith("linux"):
        return {}
    import cupy

    shared = {}
    try:
        for name, array in chosen.items():
            with cupy.cuda.Device(array.device.id):
                start = _allocation_start(array.data.ptr)
                handle = bytes(cupy.cuda.runtime.ipcGetMemHandle(start))
            shared[name] = DeviceArray(
                handle,
                array.data.ptr - start,
                array.shape,
                array.dtype.str,
                "C" if array.flags.c_contiguous else "F",
            )
    except (OSError, cupy.cuda.runtime.CUDARuntimeError):
        return {}
    return shared


def load(values: dict) -> dict:
    """``values`` with each :class:`DeviceArray` copied to this process's
    current GPU (each allocation mapped once, unmapped when done)."""
    shared = {k: v for k, v in values.items() if isinstance(v, DeviceArray)}
    if not shared:
        return values
    import cupy

    runtime = cupy.cuda.runtime
    out = dict(values)
    opened: dict[bytes, int] = {}
    # The current stream, so that the copies are ordered after earlier work
    # on memory that the pool hands out again.
    stream = cupy.cuda.get_current_stream()
    try:
        for name, array in shared.items():
            if array.handle not in opened:
                opened[array.handle] = runtime.ipcOpenMemHandle(array.handle)
            copy = cupy.empty(array.shape, array.dtype, order=array.order)
            runtime.memcpyAsync(
                copy.data.ptr,
                opened[array.handle] + array.offset,
                array.nbytes,
                _COPY_DEFAULT,
                stream.ptr,
            )
            out[name] = copy
        stream.synchronize()  # the copies are done before the unmapping
    finally:
        for pointer in opened.values():
            runtime.ipcCloseMemHandle(pointer)
    return out


def _opens(handles: list[DeviceArray], config: dict) -> bool:
    """Whether this process computes on a GPU and can map every handle."""
    from gpuml._array import compute_namespace
    from gpuml._config import config_context

    try:
        with config_context(**config):
            if compute_namespace() is np:
                return False
        import cupy

        for handle in {h.handle for h in handles}:
            cupy.cuda.runtime.ipcCloseMemHandle(
                cupy.cuda.runtime.ipcOpenMemHandle(handle)
            )
    except Exception:  # any failure means: send the data instead
        return False
    return True


def usable(client, handles: list[DeviceArray], config: dict) -> bool:
    """Whether every worker of ``client`` can receive the arrays this way."""
    answers = client.run(_opens, handles, config)
    return bool(answers) and all(answers.values())
