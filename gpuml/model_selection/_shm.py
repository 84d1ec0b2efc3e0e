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
every worker confirms (:func:`reachable`, asked with a small file before
the data are written) that it sees this process's files, which fails for
workers on other machines. Otherwise the arrays travel in the payload as
usual.

The files hold the training data, so they are private and short-lived:

- **Private.** A file is created with mode 0600 (readable by its owner and
  root only; a umask can only narrow that), never replacing an existing one.
- **Removed when the search ends**, normally or by an exception
  (``KeyboardInterrupt`` included); a worker's open mapping stays valid
  after that (POSIX ``unlink`` semantics).
- **Removed when the caller is ended by a signal it can catch.** While
  files exist, the main thread's handlers of SIGTERM, SIGINT and SIGHUP are
  wrapped (:func:`_install_handlers`): the previous handler runs first, and
  the files are removed when the process is about to end (the default
  action, or the previous handler raising, ``KeyboardInterrupt`` and
  ``SystemExit`` included); a handler that lets the process go on keeps
  them. The previous handlers are put back when the last file is removed.
  Searches run from other threads install nothing. An ``atexit`` hook
  removes what is left at interpreter exit.
- **Cleaned after a kill.** SIGKILL (the out-of-memory killer, ``kill
  -9``), a crash of the interpreter or ``os._exit`` cannot be caught: the
  files then stay in ``/dev/shm``, using memory, until a later search (on
  this machine, by the same user) removes them (:func:`clean_stale`), a
  reboot, or ``rm /dev/shm/gpuml-$(id -u)-*``. Each file's name carries its
  owner's user id, the caller's PID namespace and PID
  (``gpuml-<uid>-<pidns>-<pid>-<token>-<name>``), and a search removes only
  its own user's files whose process, in its own PID namespace, no longer
  exists (a container sharing ``/dev/shm`` with the host, as with
  ``--ipc=host``, sees other processes under other PID numbers, and its
  files are left alone). Workers that had mapped a file keep its memory
  until they drop the search's data.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from dataclasses import dataclass

import numpy as np

SHM_DIR = "/dev/shm"
MIN_BYTES = 64 * 2**20
PREFIX = "gpuml-"
# The signals whose default action ends the process and that a process can
# catch, for which the files are removed.
SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGINT", "SIGHUP")
    if hasattr(signal, name)
)


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


def _pid_namespace() -> str:
    """This process's PID namespace (its inode on Linux, else ``"0"``)."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


def _owner_prefix(pid: int | None = None) -> str:
    """The start of the names of this user's files, of ``pid`` if given."""
    prefix = f"{PREFIX}{os.getuid()}-{_pid_namespace()}-"
    return prefix if pid is None else f"{prefix}{pid}-"


def share(values: dict, token: str) -> tuple[dict, list[SharedArray]]:
    """``values`` with its large arrays written to shared memory.

    Returns the values with :class:`SharedArray` handles in place of the
    arrays written, and the handles (empty when nothing was written). Stale
    files of this user's dead processes are removed first
    (:func:`clean_stale`).
    """
    clean_stale()
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
            path = os.path.join(SHM_DIR, f"{_owner_prefix(os.getpid())}{token}-{name}")
            handle = SharedArray(path, array.shape, array.dtype.str, transposed)
            _write_private(path, memoryview(data).cast("B"), handle, handles)
            out[name] = handle
    except OSError:
        remove(handles)
        return values, []
    return out, handles


def _write_private(
    path: str, data: memoryview, handle: SharedArray, handles: list
) -> None:
    """Create ``path`` (mode 0600, not there before) holding ``data``; the
    file is added to ``handles`` and registered for removal (signals, exit)
    as soon as it exists."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    handles.append(handle)
    _register(handle)
    with open(descriptor, "wb") as file:
        file.write(data)


def resolve(value):
    """The array behind a handle (anything else unchanged)."""
    return value.load() if isinstance(value, SharedArray) else value


def _sees(handles: list[SharedArray]) -> bool:
    try:
        return all(os.path.getsize(h.path) == h.nbytes for h in handles)
    except OSError:
        return False


def wanted(values: dict) -> bool:
    """Whether any of ``values`` would be written to shared memory."""
    return os.path.isdir(SHM_DIR) and any(map(_worth_sharing, values.values()))


def reachable(client, token: str) -> bool:
    """Whether every worker of ``client`` sees this process's files in
    shared memory: a file of a few bytes is written, looked for by every
    worker, and removed. Asked before the data are written, so that a
    cluster with workers on other machines costs no write of the data."""
    path = os.path.join(SHM_DIR, f"{_owner_prefix(os.getpid())}{token}-probe")
    handles: list[SharedArray] = []
    try:
        _write_private(
            path, memoryview(bytes(8)), SharedArray(path, (8,), "|u1", False), handles
        )
        answers = client.run(_sees, handles)
    except OSError:
        return False
    finally:
        remove(handles)
    return bool(answers) and all(answers.values())


def remove(handles: list[SharedArray]) -> None:
    """Remove the files of ``handles`` (those already gone are skipped)."""
    for handle in handles:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(handle.path)
    _unregister(handles)


# --------------------------------------------------------------------------
# Removal at exit and on signals
# --------------------------------------------------------------------------

_LOCK = threading.RLock()
_LIVE: dict[str, SharedArray] = {}  # this process's files, by path
_PREVIOUS: dict[int, object] = {}  # signal -> the handler ours replaced


def _register(handle: SharedArray) -> None:
    with _LOCK:
        _LIVE[handle.path] = handle
        _install_handlers()


def _unregister(handles: list[SharedArray]) -> None:
    with _LOCK:
        for handle in handles:
            _LIVE.pop(handle.path, None)
        if not _LIVE:
            _restore_handlers()


def _remove_live() -> None:
    """Remove every file this process still has (at exit, on a signal)."""
    with _LOCK:
        remove(list(_LIVE.values()))


atexit.register(_remove_live)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install_handlers() -> None:
    """Wrap the handlers of :data:`SIGNALS` (main thread only; once)."""
    if _PREVIOUS or not _in_main_thread():
        return
    for signum in SIGNALS:
        previous = signal.getsignal(signum)
        if previous is None:  # a handler set outside Python: left alone
            continue
        _PREVIOUS[signum] = previous
        signal.signal(signum, _on_signal)


def _restore_handlers() -> None:
    """Put the previous handlers back, where ours is still installed."""
    if not _PREVIOUS or not _in_main_thread():
        return
    for signum, previous in _PREVIOUS.items():
        if signal.getsignal(signum) is _on_signal:
            signal.signal(signum, previous)
    _PREVIOUS.clear()


def _on_signal(signum, frame) -> None:
    """Run the previous handler; remove the files if the process ends."""
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    if previous == signal.SIG_IGN:
        return
    if callable(previous):
        try:
            previous(signum, frame)
        except BaseException:
            _remove_live()
            raise
        return
    # SIG_DFL: the default action of these signals ends the process.
    _remove_live()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process of the same number
    return True


def clean_stale() -> list[str]:
    """Remove this user's shared files whose process is gone; their paths.

    Only names of this user and PID namespace are considered
    (``gpuml-<uid>-<pidns>-<pid>-...``), and only files this user owns.
    """
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return []
    prefix = _owner_prefix()
    uid = os.getuid()
    removed = []
    for name in names:
        if not name.startswith(prefix):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        path = os.path.join(SHM_DIR, name)
        try:
            if os.lstat(path).st_uid != uid:
                continue
            os.unlink(path)
        except OSError:
            continue
        removed.append(path)
    return removed
