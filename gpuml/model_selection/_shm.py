"""Large host arrays handed to same-host Dask workers through shared memory.

On one node (``dask_cuda.LocalCUDACluster``) every worker is a process on
the caller's machine, and sending the search's data to each of them over a
socket costs a full copy per worker (about 0.7 s per GB per worker on the
H200 machines). Instead, the caller writes each large array once to a file
in ``/dev/shm`` (memory, not disk), and the payload carries a
:class:`SharedArray` handle; a worker maps the file read-only, so no worker
copies the data before uploading it to its GPU.

It is used only when it can work: on a system with ``/dev/shm`` and room in
it, for contiguous numeric arrays of at least :data:`MIN_BYTES`, and when
every worker confirms (:func:`reachable`) that it sees the files, which
fails for workers on other machines. Otherwise the arrays travel in the
payload as usual. The caller removes the files when the search ends; a
worker's open mapping stays valid after that (POSIX ``unlink`` semantics).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np

SHM_DIR = "/dev/shm"
MIN_BYTES = 64 * 2**20


@dataclass(frozen=True)
class SharedArray:
    """A handle to an array written to a shared-memory file (C order)."""

    path: str
    shape: tuple
    dtype: str
    transposed: bool  # the file holds array.T (for Fortran-ordered arrays)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize

    def load(self) -> np.ndarray:
        """The array, mapped read-only (a plain ndarray view of the map)."""
        shape = self.shape[::-1] if self.transposed else self.shape
        mapped = np.asarray(np.memmap(self.path, self.dtype, "r", shape=shape))
        return mapped.T if self.transposed else mapped


def _worth_sharing(value) -> bool:
    return (
        isinstance(value, np.ndarray)
        and value.dtype.kind in "biuf"
        and value.nbytes >= MIN_BYTES
        and (value.flags.c_contiguous or value.flags.f_contiguous)
    )


def share(values: dict, token: str) -> tuple[dict, list[SharedArray]]:
    """``values`` with its large arrays written to shared memory.

    Returns the values with :class:`SharedArray` handles in place of the
    arrays written, and the handles (empty when nothing was written).
    """
    chosen = {k: v for k, v in values.items() if _worth_sharing(v)}
    if not chosen or not os.path.isdir(SHM_DIR):
        return values, []
    needed = sum(v.nbytes for v in chosen.values())
    stats = os.statvfs(SHM_DIR)
    if stats.f_bavail * stats.f_frsize < 1.25 * needed:
        return values, []
    handles: list[SharedArray] = []
    out = dict(values)
    try:
        for name, array in chosen.items():
            transposed = not array.flags.c_contiguous
            data = array.T if transposed else array
            path = os.path.join(SHM_DIR, f"gpuml-{token}-{name}")
            with open(path, "xb") as file:
                file.write(memoryview(data).cast("B"))
            handle = SharedArray(path, array.shape, array.dtype.str, transposed)
            handles.append(handle)
            out[name] = handle
    except OSError:
        remove(handles)
        return values, []
    return out, handles


def resolve(value):
    """The array behind a handle (anything else unchanged)."""
    return value.load() if isinstance(value, SharedArray) else value


def _sees(handles: list[SharedArray]) -> bool:
    try:
        return all(os.path.getsize(h.path) == h.nbytes for h in handles)
    except OSError:
        return False


def reachable(client, handles: list[SharedArray]) -> bool:
    """Whether every worker of ``client`` sees the shared files."""
    answers = client.run(_sees, handles)
    return bool(answers) and all(answers.values())


def remove(handles: list[SharedArray]) -> None:
    for handle in handles:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(handle.path)
