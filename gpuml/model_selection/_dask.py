"""Distributed dispatch of a search through Dask's distributed scheduler.

gpuml does not run a cluster of its own: a search with a
``distributed.Client`` (passed as ``client=``, the one behind
``joblib.parallel_config(backend="dask")``, or the current one) submits its
work to that client's workers, one worker per GPU
(``dask_cuda.LocalCUDACluster`` on a node, ``dask cuda worker`` processes
across nodes). Without a client nothing here is imported and the search runs
in process.

How the work travels:

- **The data, once per worker.** ``X``, ``y``, the fit and score parameters
  and the folds' host index arrays go into one :class:`_Payload`, scattered
  to every worker with ``broadcast=True`` before any task runs. A task
  names the payload's future, never the arrays, so nothing is re-sent per
  task; a worker that joins later (or replaces a lost one) gets the payload
  from a peer when its first task needs it. Large arrays travel outside the
  payload when every worker can take them that way: from the caller's GPU
  through CUDA IPC (``_ipc.py``), else through shared-memory files
  (``_shm.py``); the payload then holds handles.
- **On the worker's GPU, once.** The first task of a search on a worker
  builds a :class:`~gpuml.model_selection._data.SearchData` from the payload
  and keeps it in a small per-process cache (:func:`_search_data`), so the
  upload to that worker's GPU happens once and every later task of the
  search indexes the resident copy. The cache is dropped when the search
  ends (:func:`_forget`).
- **Warm workers.** Before anything else, every worker starts, in a
  thread, the set-up its first task would wait for (CuPy's import, the
  CUDA context, gpuml's kernel compiles, cuBLAS and cuSOLVER:
  :func:`_warm_worker`), so that it overlaps the data's journey; a worker
  does it once, and tells the scheduler when it is done.
- **Small searches stay.** On a GPU, a search that its estimator estimates
  to finish sooner in the caller's process than through the cluster (a
  cold worker counted) runs in process (:func:`worth_dispatching`).
- **Tasks.** One pure task per unit of work (a candidate group, or the
  groups sharing a Pipeline prefix) and fold: :func:`run_task` runs the
  same :func:`~gpuml.model_selection._tasks.evaluate_unit` as the
  in-process search, under the caller's gpuml configuration, and returns
  its result records with the scores as floats (one device-to-host
  transfer per task). Keys are a hash of the payload's key, the unit, the
  fold and the settings: stable within a search (a task run again after a
  worker loss is the same task), and no unit and fold is computed twice.
  Tasks ask for ``resources={"GPU": 1}`` when the workers declare GPU
  resources.
- **Balance.** When there are too few tasks to keep every worker busy to
  the end (one batched group on 5 folds is 5 tasks: 3 and 2 on two GPUs),
  the tasks left over for the last round are split by candidates into
  sub-batches, as many and as finely as a cost model says finishes soonest
  (a task costs its candidates plus a fixed share: a sub-batch repeats its
  fold's set-up and data passes), and the workers take the tasks longest
  first (:func:`plan_tasks`); the data are never duplicated, and results
  are stored by candidate, in the unsplit search's order (their values may
  differ in the last digits: a narrower batch rounds differently on a
  GPU).
- **Collection.** Results are gathered as they complete. A worker lost mid-
  search costs only the tasks it was running: the scheduler runs them
  again on another worker (they are pure), and the search's results do not
  change. A task error is a fit error recorded by the task itself
  (``error_score``), or, with ``error_score="raise"``, the original
  exception re-raised in the caller.
- **Faults of the cluster** (:class:`_Tasks`): when every worker holding
  the payload is lost (restarted, replaced), the payload is scattered again
  and the tasks not yet collected are submitted again; a candidate whose
  fit kills its worker (``KilledWorker``) is found by running the suspect
  tasks again alone, one candidate each, and gets ``error_score`` (or a
  ``RuntimeError`` naming it with ``error_score="raise"``); a lost
  scheduler is reported at once (:func:`check_scheduler`), whether or not
  the client has noticed it yet (:func:`scheduler_answers`), and nothing is
  asked of a client without one when the search cleans up.

The refit of the best candidate is not a task: it runs in the caller's
process, on its compute device, where the caller's data already are.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import heapq
import os
import socket
import sys
import threading
import time
import uuid
from collections import OrderedDict, defaultdict
from concurrent.futures import CancelledError

import numpy as np
from sklearn import config_context as sk_config_context
from sklearn import get_config as sk_get_config

from gpuml._array import compute_namespace
from gpuml._config import config_context, get_config
from gpuml.base import accepts_device_input
from gpuml.model_selection import _ipc, _shm
from gpuml.model_selection._batch import cost_per_candidate, final_step
from gpuml.model_selection._data import SearchData, download
from gpuml.model_selection._results import (
    failed_result,
    print_end,
    resolve_deferred,
)
from gpuml.model_selection._tasks import evaluate_unit


@contextlib.contextmanager
def search_client(explicit=None):
    """The Dask client a search dispatches through, or None (in process).

    A scheduler address (given as ``client``, or in ``GPUML_CLIENT``) is
    connected to for the search and closed after it.
    """
    client = active_client(explicit)
    if not isinstance(client, str):
        yield client
        return
    from distributed import Client

    try:
        connected = Client(client, set_as_default=False)
    except OSError as error:
        given = explicit is not None and explicit is not False
        source = "client=" if given else "GPUML_CLIENT="
        fix = (
            "pass a running scheduler's address or client=False"
            if given
            else "start the scheduler, or unset GPUML_CLIENT to search in this process"
        )
        raise OSError(
            f"{source}{client!r}: no Dask scheduler answered there ({error}); {fix}"
        ) from error
    with connected:
        yield connected


def active_client(explicit=None):
    """The client (or scheduler address) to use, or None.

    In order: the ``client`` given to the search (``False``: none, the
    search runs in process); the client of an active
    ``joblib.parallel_config(backend="dask")``; the current
    ``distributed`` client, as Dask's own collections use it; the scheduler
    address in the environment variable ``GPUML_CLIENT`` (``python -m gpuml
    run --scheduler ADDRESS`` sets it), connected to for each search as a
    ``client=`` address is. Inside a Dask task (a worker running a search)
    neither a current client nor ``GPUML_CLIENT`` is used, so searches do not
    nest dispatch. Dask is only imported when one of these exists.
    """
    if explicit is False:
        return None
    if explicit is not None:
        return explicit
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    client = getattr(backend, "client", None)
    if client is not None and type(backend).__module__.startswith("joblib._dask"):
        return client
    address = os.environ.get("GPUML_CLIENT", "").strip() or None
    if "distributed" not in sys.modules and address is None:
        return None  # no client can exist without distributed imported
    try:
        import distributed
    except ImportError as error:
        raise ImportError(
            f"GPUML_CLIENT={address!r} asks for a Dask scheduler, but Dask's "
            "distributed is not installed: pip install 'gpuml[dask]', or unset "
            "GPUML_CLIENT to search in this process"
        ) from error

    try:
        distributed.get_worker()
        return None
    except ValueError:
        pass
    try:
        return distributed.Client.current()
    except ValueError:
        return address


def _packed_indices(rows: np.ndarray):
    """``rows`` (int64 indices) as ``(start, stop)`` when they are a run of
    consecutive indices, else as int32 when they fit."""
    if len(rows) and rows[-1] - rows[0] == len(rows) - 1:
        if np.array_equal(rows, np.arange(rows[0], rows[-1] + 1)):
            return int(rows[0]), int(rows[-1]) + 1
    if len(rows) and 0 <= rows.min() and rows.max() < 2**31:
        return rows.astype(np.int32)
    return rows


def _unpacked_indices(packed) -> np.ndarray:
    if isinstance(packed, tuple):
        return np.arange(*packed, dtype=np.int64)
    return packed.astype(np.int64, copy=False)


def pack_folds(folds: list) -> list:
    """The folds' host index arrays in fewer bytes, exactly recoverable
    (:func:`unpack_folds`): a test set that is a run of consecutive rows as
    its ends, other indices as int32, and a training set that is every other
    row in ascending order (as scikit-learn's KFold and StratifiedKFold
    give) as ``None``."""
    packed = []
    for train, test in folds:
        n = len(train) + len(test)
        rest = np.ones(n, dtype=bool)
        inside = len(test) == 0 or (0 <= test.min() and test.max() < n)
        if inside:
            rest[test] = False
        complement = inside and np.array_equal(np.flatnonzero(rest), train)
        train_packed = None if complement else _packed_indices(train)
        packed.append((n, train_packed, _packed_indices(test)))
    return packed


def unpack_folds(packed: list) -> list:
    """The folds that :func:`pack_folds` packed (int64 indices)."""
    folds = []
    for n, train, test in packed:
        test = _unpacked_indices(test)
        if train is None:
            rest = np.ones(n, dtype=bool)
            rest[test] = False
            train = np.flatnonzero(rest).astype(np.int64, copy=False)
        else:
            train = _unpacked_indices(train)
        folds.append((train, test))
    return folds


class _Payload:
    """Everything a worker needs from the caller, shipped once per search.

    ``values`` maps ``"X"``, ``"y"``, ``"fit-<name>"`` and ``"score-<name>"``
    to host data or to :class:`~gpuml.model_selection._shm.SharedArray`
    handles. ``received`` counts, per process and search, how many times a
    payload was unpickled there (a diagnostic: once per worker).
    """

    received: dict = defaultdict(int)

    def __init__(self, token: str, values: dict, folds: list):
        self.token, self.values, self.folds = token, values, folds
        self._packed = None

    def __getstate__(self):
        # The folds travel packed (pack_folds): a 5-fold split of 1,000,000
        # rows is 40 MB of indices, sent to every worker.
        if self._packed is None:
            self._packed = pack_folds(self.folds)
        return {"token": self.token, "values": self.values, "folds": self._packed}

    def __setstate__(self, state):
        self.token, self.values = state["token"], state["values"]
        self.folds, self._packed = unpack_folds(state["folds"]), None
        _Payload.received[self.token] += 1

    def resolved(self, *, aligned: bool) -> tuple:
        """``(X, y, fit_params, score_params)``, shared arrays mapped and
        the caller's device arrays copied to this process's GPU.

        With ``aligned``, arrays that arrived misaligned (a pickled buffer
        lands at any offset of a received frame) are copied once: NumPy and
        BLAS take slow paths on them, a third slower for a logistic search.
        A GPU worker uploads them as they are.
        """
        try:
            values = _ipc.load({k: _shm.resolve(v) for k, v in self.values.items()})
        except Exception as exc:
            raise RuntimeError(
                "This Dask worker cannot map the data that the search shared "
                "with the workers on the caller's machine (through CUDA IPC or "
                "/dev/shm). Add workers on other machines between searches."
            ) from exc
        if aligned:
            values = {
                k: v.copy() if isinstance(v, np.ndarray) and not v.flags.aligned else v
                for k, v in values.items()
            }
        for kind, counts in ((_shm.SharedArray, _SHARED), (_ipc.DeviceArray, _IPC)):
            counts[self.token] += sum(isinstance(v, kind) for v in self.values.values())

        def prefixed(prefix):
            return {
                k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix)
            }

        return values["X"], values["y"], prefixed("fit-"), prefixed("score-")


# Per-process cache of the searches' device-resident data (a worker keeps
# the two most recent searches; a finished search is dropped at its end).
_CACHE: OrderedDict = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 2
_BUILT: dict = defaultdict(int)
_SHARED: dict = defaultdict(int)
_IPC: dict = defaultdict(int)


def _search_data(payload: _Payload) -> SearchData:
    """The payload's SearchData on this process, built on first use."""
    with _CACHE_LOCK:
        entry = _CACHE.get(payload.token)
        if entry is None:
            xp = compute_namespace()
            X, y, fit_params, score_params = payload.resolved(aligned=xp is np)
            entry = SearchData(X, y, fit_params, xp, score_params)
            _CACHE[payload.token] = entry
            _BUILT[payload.token] += 1
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        else:
            _CACHE.move_to_end(payload.token)
        return entry


def _forget(token: str) -> None:
    with _CACHE_LOCK:
        _CACHE.pop(token, None)


def worker_stats() -> dict:
    """Per search token on this process: payloads unpickled, resident copies
    built, arrays mapped from shared memory, arrays copied from the caller's
    GPU (a diagnostic)."""
    return {
        "received": dict(_Payload.received),
        "built": dict(_BUILT),
        "shared": dict(_SHARED),
        "ipc": dict(_IPC),
    }


def run_task(
    payload, estimator, unit, split, scorer, options, config, sk_config
) -> list:
    """One unit of work on one fold, on a worker: ``[(candidate, split, record)]``.

    Pure: the same arguments give the same records (timings aside). It runs
    under the caller's gpuml and scikit-learn configurations (``config``,
    ``sk_config``: metadata routing, among others, is decided by the latter).
    """
    with config_context(**config), sk_config_context(**sk_config):
        data = _search_data(payload)
        table: dict = {}
        evaluate_unit(
            estimator,
            unit,
            data,
            payload.folds,
            [split],
            scorer,
            options,
            table,
        )
        records = list(table.values())
        resolve_deferred(records)
    return [(index, s, record) for (index, s), record in table.items()]


def _declares_gpus(client) -> bool:
    workers = client.scheduler_info().get("workers", {})
    return bool(workers) and all(
        "GPU" in (info.get("resources") or {}) for info in workers.values()
    )


def dispatch(
    client,
    estimator,
    units,
    data: SearchData,
    folds,
    scorer,
    options,
    progress,
) -> dict:
    """Run every (unit, fold) task on ``client``; ``table[candidate, split]``.

    The data go out first, once per worker (see :func:`_payload_values`).
    ``progress`` (a :class:`~gpuml.model_selection._progress.Progress`)
    counts the fits as the tasks complete.
    """
    check_scheduler(client)
    start = time.perf_counter()
    token = uuid.uuid4().hex
    config = get_config()
    files: list = []
    tasks = None
    try:
        values, how, files = _payload_values(client, estimator, data, token, config)
        tasks = _Tasks(
            client, _Payload(token, values, folds), estimator, scorer, options, config
        )
        if options.verbose > 0:
            n_workers = len(client.nthreads())
            print(
                f"[gpuml dask] data sent to {n_workers} workers{how} in "
                f"{time.perf_counter() - start:.2f} s; dashboard: "
                f"{client.dashboard_link} (client=False runs a search in "
                "this process)"
            )
        return tasks.run(units, progress)
    finally:
        # Release the tasks and the payload, drop the workers' copies and the
        # shared files. A cleanup error (a worker already gone) must not hide
        # the search's, and a client that lost its scheduler is not asked.
        lost = tasks is not None and tasks.scheduler_lost
        if tasks is not None:
            tasks.release()
        if client.status == "running" and not lost:
            with contextlib.suppress(Exception):
                client.run(_forget, token)
        _shm.remove(files)


#: What a search through the cluster costs beyond its tasks on the workers
#: (sending the data, scheduling the tasks, collecting their results): a
#: fixed part and a part per worker, about 0.15 s on two GPUs and 0.2 s on
#: four (issue 35 on two H200s; issue 41 on four H100s: the time before the
#: first task grows with the workers); and what a worker that has not
#: finished starting adds (importing CuPy and gpuml, its CUDA context,
#: loading the kernels, cuBLAS and cuSOLVER): :func:`worth_dispatching`
#: weighs them.
DISPATCH_SECONDS = 0.1
DISPATCH_SECONDS_PER_WORKER = 0.025
WARM_UP_SECONDS = 2.0


def worth_dispatching(client, estimator, candidates, data: SearchData, folds, options):
    """Whether a search should go to ``client``'s cluster. A search that
    goes tells the workers to warm up (:func:`warm_up`) before anything
    else is sent; one kept in this process leaves that to its caller, after
    the search (a new cluster's warm-up beside the search slows it: issue
    35, four GPUs).

    On a GPU, a search that its estimator (or a Pipeline's final step)
    estimates (its ``_search_seconds``) to finish sooner in this process
    than through the cluster (its time over the number of workers, plus
    :data:`DISPATCH_SECONDS` and :data:`DISPATCH_SECONDS_PER_WORKER` for
    each worker, plus :data:`WARM_UP_SECONDS` while a worker is still
    starting) runs in this process, and says so at ``verbose >=
    1``. Without an estimate, and on the CPU, every search goes.
    """
    send = _worth_dispatching(client, estimator, candidates, data, folds, options)
    if send:
        warm_up(client)
    return send


def warm_up(client) -> None:
    """Start each worker's warm-up (:func:`_warm_worker`) under this
    search's configuration, on a GPU; the workers' answers not awaited."""
    config = get_config()
    if config["device"] != "cpu":
        _start_warm_up(client, config)


def _worth_dispatching(client, estimator, candidates, data, folds, options) -> bool:
    name, step = final_step(estimator)
    estimate = getattr(step, "_search_seconds", None)
    shape = getattr(data.X, "shape", ())
    if estimate is None or len(shape) != 2 or not folds or not _on_gpu():
        return True
    prefix = f"{name}__" if name is not None else ""
    params = [
        {k[len(prefix) :]: v for k, v in c.items() if k.startswith(prefix)}
        for c in candidates
    ]
    n_train = int(np.mean([len(train) for train, _ in folds]))
    seconds = estimate(n_train, shape[1], params, len(folds))
    if seconds is None:
        return True
    n_workers = max(1, len(client.nthreads()))
    through_cluster = (
        seconds / n_workers + DISPATCH_SECONDS + DISPATCH_SECONDS_PER_WORKER * n_workers
    )
    starting = ""
    if seconds >= through_cluster and WARM_UP_SECONDS:
        if not _workers_ready(client):
            through_cluster += WARM_UP_SECONDS
            starting = ", some of its workers still starting"
    if seconds >= through_cluster:
        return True
    if options.verbose > 0:
        print(
            f"[gpuml dask] this search runs in this process, not on the Dask "
            f"cluster{starting}: gpuml estimates it at {seconds:.2f} s on one "
            f"GPU, against {through_cluster:.2f} s through the cluster"
        )
    return False


def _start_warm_up(client, config: dict) -> None:
    """``client.run(_warm_worker, config, wait=False)`` without waiting for
    the workers' answers: a fresh worker imports gpuml to unpickle the
    function before it answers (0.2 s on a new cluster of two GPUs, issue
    35), which a search kept in this process need not wait for. Errors are
    left for the search's tasks to meet."""
    coroutine = client.run(
        _warm_worker, config, wait=False, on_error="ignore", asynchronous=True
    )
    future = asyncio.run_coroutine_threadsafe(coroutine, client.loop.asyncio_loop)
    future.add_done_callback(lambda done: done.exception())  # read: no warning


def _on_gpu() -> bool:
    """Whether the search computes on a GPU (the rule above is the GPU's)."""
    return get_config()["device"] != "cpu" and compute_namespace() is not np


#: A worker process's warm-up: started once, done when ``_READY`` is set;
#: the workers (threads of the process, or the process) waiting to announce
#: it to their scheduler.
_READY = threading.Event()
_warm_lock = threading.Lock()
_warm_started: list = []
_warm_waiting: list = []
#: The scheduler's metadata under which each worker says it is warm.
READY_KEY = "gpuml-ready"


async def _warm_worker(config: dict, dask_worker=None) -> None:
    """On each worker (by ``client.run``, before the data are sent; a
    coroutine, which ``client.run`` may leave running without waiting):
    start in a thread what the worker's first task would otherwise wait
    for, and return at once. Under the search's configuration, the thread
    asks for the compute namespace (on a GPU: CuPy's import, the CUDA
    context, gpuml's kernel compiles or cache loads, cuBLAS and cuSOLVER,
    the pinned staging block: :func:`gpuml._array.compute_namespace`) and
    waits for the kernels and the libraries; then the worker tells its
    scheduler (metadata ``[READY_KEY, address]``, read by
    :func:`_workers_ready`). Once per worker process; a failure (no GPU) is
    left for the task to report."""

    def warm():
        with contextlib.suppress(Exception), config_context(**config):
            xp = compute_namespace()
            if xp is not np:
                from gpuml import _cuda, _linalg

                _cuda.ready()
                _linalg.warm_libraries(xp.cuda.Device().id)
        with _warm_lock:
            _READY.set()
            waiting = list(_warm_waiting)
            _warm_waiting.clear()
        for worker in waiting:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(
                    _announce(worker), worker.loop.asyncio_loop
                )

    with _warm_lock:
        done, start = _READY.is_set(), not _warm_started
        _warm_started.append(True)
        if not done and dask_worker is not None:
            _warm_waiting.append(dask_worker)
    if done:
        await _announce(dask_worker)
    elif start:
        threading.Thread(target=warm, name="gpuml-warm-worker", daemon=True).start()


async def _announce(worker) -> None:
    """Tell ``worker``'s scheduler that the worker is warm."""
    if worker is not None:
        with contextlib.suppress(Exception):
            await worker.scheduler.set_metadata(
                keys=[READY_KEY, worker.address], value=True
            )


def _workers_ready(client) -> bool:
    """Whether every worker of ``client`` has said it is warm (asked of the
    scheduler, not the workers: a worker still importing gpuml for its
    warm-up would make the caller wait)."""
    ready = client.get_metadata([READY_KEY], default={})
    return all(ready.get(address) for address in client.nthreads())


def check_scheduler(client, answers=None) -> None:
    """Raise a clear error when ``client`` has lost its scheduler: its status
    says so, or ``answers`` (:func:`scheduler_answers`) is False."""
    if client.status == "running" and answers is not False:
        return
    address = getattr(client.scheduler, "address", None) if client.scheduler else None
    where = f" at {address}" if address else ""
    why = (
        "its address refuses connections"
        if answers is False
        else f"client status {client.status!r}"
    )
    raise ConnectionError(
        f"The Dask client lost its scheduler{where} ({why}): the search's "
        "tasks and the workers' results are "
        "gone. Restart the scheduler and its workers, connect a new "
        "distributed.Client (pass it as client=, or make it current), and fit "
        "again; or fit without a Dask client to run in this process."
    )


# How long a search waits on a result's fetch, and on its tasks with none
# completing, before it asks the scheduler's address whether it is still
# there (and again as often while it waits); how long that question waits.
PROBE_AFTER = 1.0
IDLE_PROBE_AFTER = 5.0
PROBE_TIMEOUT = 1.0


def scheduler_answers(client):
    """Whether the scheduler's address accepts a TCP connection: True, False
    (refused: no process listens there, the scheduler is gone), or None when
    that cannot be told (not a TCP address, or no answer within
    :data:`PROBE_TIMEOUT`: a host down or unreachable, where the client's own
    timeouts decide).

    The client's status is not enough: a client notices a lost scheduler on
    its connection's close, at a moment of its own, and a result fetch it
    started in between retries its connection for distributed's connect
    timeout (30 s) before failing. The operating system accepts a connection
    for a scheduler however busy, so a slow scheduler is never taken for a
    lost one. The scheduler logs the connection (closed before distributed's
    handshake) at INFO level.
    """
    from distributed.comm.addressing import parse_address, parse_host_port

    address = getattr(client.scheduler, "address", None) if client.scheduler else None
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except (TypeError, ValueError):
        return None
    if scheme not in ("tcp", "tls"):
        return None
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT).close()
    except ConnectionRefusedError:
        return False
    except OSError:  # a timeout, an unreachable host
        return None
    return True


def _payload_values(client, estimator, data, token, config):
    """The payload's values, how the large arrays travel, the files to remove.

    Large arrays take the fastest way every worker can use: when the caller
    computes on a GPU, the caller's device copies through CUDA IPC (the
    compute view, which the refit uses too; see ``_ipc.py``); else, for
    workers on this machine, shared-memory files (``_shm.py``); else the
    payload itself.
    """

    def named(view) -> dict:
        return {
            "X": view.X,
            "y": view.y,
            **{f"fit-{k}": v for k, v in view.fit_params.items()},
            **{f"score-{k}": v for k, v in view.score_params.items()},
        }

    arrays = named(data)
    device: dict = {}
    if data.xp is not np and accepts_device_input(estimator, data.X):
        device = _ipc.share(named(data.view(True)))
        if device and not _ipc.usable(client, list(device.values()), config):
            device = {}
    values = {k: device[k] if k in device else download(v) for k, v in arrays.items()}
    shared, files = values, []
    if _shm.wanted(values) and _shm.reachable(client, token):
        shared, files = _shm.share(values, token)
    ways = [w for w, used in (("CUDA IPC", device), ("shared memory", files)) if used]
    how = f" (large arrays through {' and '.join(ways)})" if ways else ""
    return shared, how, files


# plan_tasks: the work of one task beyond its candidates' own fits (the
# fold's set-up, each L-BFGS iteration's data pass and synchronisations, the
# scoring), in candidates' worth; and the most sub-batches a task is split
# into. Measured on one H200 (issue 35, dask_balance's 600,000 x 384
# LogisticRegression, 16 C): a fold's task of k candidates took about
# 31 ms + 8.2 ms x k at tol=1e-6 (3.8 candidates' worth) and 16 ms + 2 ms x k
# at tol=1e-4 (8); 4 is the low end, where splitting is most tempting.
TASK_OVERHEAD = 4.0
MAX_PIECES = 8


def _makespan(costs, n_workers: int) -> float:
    """The finish time of ``costs`` run in the given order, each task on the
    first worker free (what the scheduler does with tasks queued by
    priority)."""
    loads = [0.0] * n_workers
    for cost in costs:
        heapq.heapreplace(loads, loads[0] + cost)
    return max(loads)


def _split(unit, pieces: int) -> list:
    """``unit`` (one batched group) as ``pieces`` sub-batches of consecutive
    candidates."""
    pipeline, [group] = unit
    parts = np.array_split(np.arange(len(group.members)), pieces)
    return [
        (pipeline, [dataclasses.replace(group, members=[group.members[i] for i in p])])
        for p in parts
    ]


def plan_tasks(estimator, units: list, n_splits: int, n_workers: int) -> list:
    """The search's tasks, ``(unit, split)``, in the order to run them.

    A unit is ``(pipeline, groups)``; one task runs a unit on one fold, and
    costs about :data:`TASK_OVERHEAD` plus its number of candidates. With
    several workers and a batched estimator whose batch costs about the sum
    of its candidates' fits
    (:func:`~gpuml.model_selection._batch.cost_per_candidate`), the tasks
    that would leave workers idle at the end (one batched group on 5 folds
    is 5 tasks: 3 and 2 on two GPUs) are split by candidates into
    sub-batches: the number of tasks split and their number of pieces are
    those that finish soonest by that cost (the fewest tasks on a tie), so a
    task is split only where the wait it saves outweighs the work a
    sub-batch repeats (its fold's set-up and data passes). The tasks are
    then ordered longest first, the order in which the workers take them.
    A sub-batch fits a subset of a group's candidates on the same fold:
    each candidate is still fitted once on each fold.
    """
    tasks = [(unit, split) for unit in units for split in range(n_splits)]

    def cost(unit) -> float:
        return TASK_OVERHEAD + len(_candidates(unit))

    def splittable(unit) -> bool:
        groups = unit[1]
        return len(groups) == 1 and groups[0].batched and len(groups[0].members) > 1

    def longest_first(tasks) -> list:
        return sorted(tasks, key=lambda task: -cost(task[0]))  # stable

    if n_workers <= 1 or not tasks or not cost_per_candidate(estimator):
        return tasks
    tasks = longest_first(tasks)
    best = (_makespan([cost(u) for u, _ in tasks], n_workers), len(tasks), tasks)
    candidates = [i for i, task in enumerate(tasks) if splittable(task[0])]
    # The tasks split are the last ones in the longest-first order (those
    # left over for the last round), at most two rounds' worth.
    for n_split in range(1, min(len(candidates), 2 * n_workers) + 1):
        split = set(candidates[-n_split:])
        chosen = [tasks[i] for i in candidates[-n_split:]]
        kept = [t for i, t in enumerate(tasks) if i not in split]
        for pieces in range(2, MAX_PIECES + 1):
            pieces_of = [
                (part, split)
                for unit, split in chosen
                for part in _split(unit, min(pieces, len(unit[1][0].members)))
            ]
            plan = longest_first(kept + pieces_of)
            finish = _makespan([cost(u) for u, _ in plan], n_workers)
            if (finish, len(plan)) < best[:2]:
                best = (finish, len(plan), plan)
    return best[2]


# How many times in a row (without a task finishing in between) a search
# sends its data again after the cluster lost them before it gives up.
MAX_RESENDS = 5

KILLED_MESSAGE = (
    "KilledWorker: the Dask worker process running this fit died {times} "
    "time(s) in a row (distributed's scheduler allows {allowed} failure(s) "
    "per task), with this candidate alone on its worker. The fit ends its "
    "process (a crash in native code, os._exit, the system's out-of-memory "
    "killer), so it cannot report an error of its own."
)


def _candidates(unit) -> list:
    """``[(index, params)]`` of the candidates a unit fits."""
    return [member for group in unit[1] for member in group.members]


def _one_by_one(unit) -> list:
    """``unit`` as units of one candidate each."""
    pipeline, groups = unit
    return [
        (pipeline, [dataclasses.replace(group, members=[member])])
        for group in groups
        for member in group.members
    ]


class _Tasks:
    """The tasks of one search on ``client``, sent again when the cluster fails.

    :meth:`run` submits one task per unit and fold and collects the records
    as the tasks complete. What can go wrong on the cluster is handled here:

    - **Data lost.** When every worker holding the scattered payload is lost
      (all workers killed and restarted by their nannies, replaced, or
      ``client.restart()``), the scheduler forgets the payload and cancels
      the tasks that needed it. The payload is scattered again, to the
      workers there are then, and the tasks not yet collected are submitted
      again: records already collected are kept, and the results are those
      of an undisturbed search. Up to :data:`MAX_RESENDS` times in a row.
    - **A fit that kills its worker.** The scheduler gives up on a task after
      its worker died ``allowed-failures + 1`` times (``KilledWorker``), and
      counts a death against every task the worker had been given, not only
      the one running. Such tasks are run again at the end, one at a time,
      one candidate per task: a candidate whose task still ends in
      ``KilledWorker`` alone on the cluster is the one killing its worker.
      It gets ``error_score`` with a ``fit_error`` that says so (reported,
      with its parameters, in the search's ``FitFailedWarning``), or, with
      ``error_score="raise"``, a ``RuntimeError`` naming it is raised.
    - **Scheduler lost.** The client cancels every future when it notices
      its connection closed, and the search raises :func:`check_scheduler`'s
      error without waiting for a reconnection. The search does not depend
      on the client noticing first: a result's fetch that fails or takes
      more than :data:`PROBE_AFTER`, or a wait with no task completing for
      :data:`IDLE_PROBE_AFTER`, asks the scheduler's address
      (:func:`scheduler_answers`), and a refused connection ends the search
      at once (the fetch is cancelled).
    """

    def __init__(self, client, payload, estimator, scorer, options, config):
        from dask.base import tokenize

        self.client, self.payload = client, payload
        self.estimator, self.scorer, self.options = estimator, scorer, options
        self.quiet = dataclasses.replace(options, verbose=0)  # the caller prints
        self.config, self.sk_config = config, sk_get_config()
        self.resources = {"GPU": 1} if _declares_gpus(client) else None
        self.tokenize = tokenize
        self.futures: dict = {}  # future -> (unit, split)
        self.payload_future = None
        self.resubmitted = 0
        self.scheduler_lost = False  # found by a probe; nothing more is asked
        self.send()

    def send(self) -> None:
        """Scatter the payload to every worker (again, after a loss)."""
        if self.payload_future is not None:
            with contextlib.suppress(Exception):
                self.payload_future.release()
        [self.payload_future] = self.client.scatter(
            [self.payload], broadcast=True, hash=False
        )
        self.common = self.tokenize(
            self.payload_future.key,
            self.estimator,
            self.scorer,
            self.quiet,
            self.config,
            self.sk_config,
        )

    def submit(self, unit, split: int, completed, priority: int = 0) -> None:
        """Submit the task of ``unit`` on fold ``split`` (a higher
        ``priority`` runs sooner)."""
        key = f"gpuml-search-{self.tokenize(self.common, unit)}-{split}"
        if self.resubmitted:  # a fresh key: the old one may still be known
            key += f"-{self.resubmitted}"
        future = self.client.submit(
            run_task,
            self.payload_future,
            self.estimator,
            unit,
            split,
            self.scorer,
            self.quiet,
            self.config,
            self.sk_config,
            key=key,
            resources=self.resources,
            priority=priority,
        )
        self.futures[future] = (unit, split)
        completed.add(future)

    def run(self, units, progress) -> dict:
        """Every (unit, fold) task's records: ``table[candidate, split]``."""
        from distributed import as_completed

        n_splits = len(self.payload.folds)
        tasks = plan_tasks(
            self.estimator, list(units), n_splits, len(self.client.nthreads())
        )
        members = dict(member for unit, _ in tasks for member in _candidates(unit))
        completed = as_completed(loop=self.client.loop)
        for rank, (unit, split) in enumerate(tasks):
            self.submit(unit, split, completed, priority=len(tasks) - rank)
        table: dict = {}
        lost: list = []  # tasks to submit again with the data sent again
        suspects: list = []  # tasks whose worker died too often
        resends = 0
        alone = False  # whether tasks now run one at a time
        while self.futures or lost or suspects:
            if not self.futures and not lost:
                # Suspects run one at a time: a death is then theirs alone.
                alone = True
                self.resubmitted += 1
                self.submit(*suspects.pop(0), completed)
            future = self._next(completed)
            task = self.futures.pop(future)
            outcome, value = self._outcome(future)
            if outcome == "done":
                resends = 0
                for index, split, record in value:
                    table[index, split] = record
                    print_end(record, members[index], self.options, index, split)
            elif outcome == "lost":
                lost.append(task)
            elif alone and len(_candidates(task[0])) == 1:
                table.update(self._killed(task, value))
            else:
                # Killed beside other tasks, or with several candidates:
                # again at the end, one candidate per task, alone.
                suspects += [(unit, task[1]) for unit in _one_by_one(task[0])]
            if lost and not completed.has_ready():
                resends += 1
                self._resend(lost, resends, completed)
                lost = []
            progress.advance_to(len(table))
        return table

    def _outcome(self, future) -> tuple:
        """``("done", records)``, ``("lost", None)`` or ``("killed", exc)``;
        a task's own error is raised (``error_score="raise"``).

        The status is not read first: a finished task whose worker died
        before its result was fetched is run again, and ends as any task.
        """
        from distributed import KilledWorker

        try:
            records = self._result(future)
        except KilledWorker as exc:
            future.release()
            return "killed", exc
        except CancelledError:
            self._check()
            future.release()
            return "lost", None
        except OSError:
            if self.scheduler_lost or future.status == "error":
                raise  # the scheduler's loss, or the task's own error
            # Fetching the result failed: the worker holding it or the
            # scheduler went away. Ask the scheduler's address; if that
            # cannot tell, the client notices a lost scheduler on its own
            # connection a moment later. Run the task again otherwise.
            answers = scheduler_answers(self.client)
            if answers is None:
                _settle(self.client)
            self._check(answers)
            future.release()
            return "lost", None
        future.release()
        return "done", records

    def _check(self, answers=None) -> None:
        """:func:`check_scheduler`, remembering a lost scheduler."""
        try:
            check_scheduler(self.client, answers)
        except ConnectionError:
            self.scheduler_lost = True
            raise

    def _probe(self) -> None:
        """Raise :func:`check_scheduler`'s error if the scheduler's address
        refuses connections (:func:`scheduler_answers`)."""
        self._check(scheduler_answers(self.client))

    def _next(self, completed):
        """The next completed task from ``completed``; while none completes,
        the scheduler is probed every :data:`IDLE_PROBE_AFTER` seconds."""
        condition = completed.thread_condition  # notified on each completion
        deadline = time.monotonic() + IDLE_PROBE_AFTER
        while not completed.has_ready() and not completed.is_empty():
            with condition:
                if not completed.has_ready():
                    condition.wait(timeout=0.1)
            if time.monotonic() >= deadline:
                self._probe()
                deadline = time.monotonic() + IDLE_PROBE_AFTER
        return next(completed)

    def _result(self, future):
        """``future.result()``, the scheduler probed every
        :data:`PROBE_AFTER` seconds while the fetch lasts: a fetch started
        just after the scheduler died, before the client noticed, retries
        its connection for distributed's connect timeout (30 s). It is
        cancelled when the search stops waiting for it."""
        fetch = asyncio.run_coroutine_threadsafe(
            self.client.gather(future, asynchronous=True),
            self.client.loop.asyncio_loop,
        )
        try:
            while not concurrent.futures.wait([fetch], timeout=PROBE_AFTER).done:
                self._probe()
            return fetch.result()
        finally:
            fetch.cancel()  # nothing when it is done

    def _resend(self, lost: list, resends: int, completed) -> None:
        """Send the data again if the cluster lost them; submit ``lost`` again."""
        if resends > MAX_RESENDS:
            raise RuntimeError(
                f"The Dask cluster lost the search's tasks {MAX_RESENDS} times "
                "in a row (workers restarted or replaced while the search "
                "ran), with no task finishing in between; the search stops. "
                "Check the workers' logs, and fit again once the workers stay "
                "up."
            )
        self._probe()  # the scatter would wait out a lost scheduler
        if self.payload_future.status != "finished":
            try:
                self.send()
            except OSError:
                self._probe()  # the scheduler went away
                raise
        self.resubmitted += 1
        for unit, split in lost:
            self.submit(unit, split, completed)

    def _killed(self, task, exc) -> dict:
        """The records of a candidate whose fit kills its worker, or the
        error naming it with ``error_score="raise"``."""
        unit, split = task
        [(index, params)] = _candidates(unit)
        times, allowed = exc.allowed_failures + 1, exc.allowed_failures
        if self.options.error_score == "raise":
            raise RuntimeError(
                f"The fit of candidate {index} {params!r} on split {split} "
                f"kills its Dask worker: the worker process running it died "
                f"{times} time(s) in a row (KilledWorker), with this candidate "
                "alone on the cluster. Such a fit (a crash in native code, "
                "os._exit, the out-of-memory killer) cannot report an error; "
                "see the worker's log, change the candidate, or set "
                "error_score to a number to give it that score and go on."
            ) from exc
        n_test = len(self.payload.folds[split][1])
        record = failed_result(self.scorer, self.options, 0.0, n_test)
        record["fit_error"] = KILLED_MESSAGE.format(times=times, allowed=allowed)
        print_end(record, params, self.options, index, split)
        return {(index, split): record}

    def release(self) -> None:
        """Let go of the tasks and the payload (see :func:`_release`)."""
        if self.scheduler_lost or self.client.status != "running":
            return
        futures = list(self.futures)
        if self.payload_future is not None:
            futures.append(self.payload_future)
        with contextlib.suppress(Exception):  # a worker already gone
            _release(futures, self.client)
        self.futures = {}


# How long a search waits for its client to notice that it lost its
# scheduler, after a failure to fetch a result.
SETTLE_SECONDS = 2.0


def _settle(client) -> None:
    """Wait until ``client`` has lost its scheduler, for at most
    :data:`SETTLE_SECONDS`."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while client.status == "running" and time.monotonic() < deadline:
        time.sleep(0.05)


def _release(futures, client) -> None:
    """Let go of ``futures``: the finished ones released, only those still
    pending (the search failed) cancelled. A cancel is reported to every
    client of the scheduler, and distributed's client handshake fails when
    that report meets a client connecting at the same moment (a search given
    the scheduler's address connects one), so finished work is not
    cancelled."""
    pending = [future for future in futures if not future.done()]
    for future in futures:
        if future.done():
            future.release()
    if pending:
        client.cancel(pending)
