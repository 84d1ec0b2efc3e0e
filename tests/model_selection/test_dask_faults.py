"""Faults of a Dask search on worker processes, and its shared-memory files.

Each fault test starts its own process-based cluster (two workers of one
thread), breaks it mid-search (every worker restarted or killed, a
candidate that kills its worker, the scheduler gone) and checks the outcome
and that nothing is left behind: no task on the scheduler, no thread in this
process beyond those before the search, no ``/dev/shm`` file of this
process (the shared-memory path is taken on the tests' small data by
lowering ``_shm.MIN_BYTES``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

import dask  # noqa: E402

from gpuml import config_context  # noqa: E402
from gpuml.linear_model import Ridge  # noqa: E402
from gpuml.model_selection import GridSearchCV, _dask, _shm  # noqa: E402

# Classes defined here travel by value to worker processes.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

ALPHAS = [0.01, 0.1, 1.0, 10.0]

pytestmark = pytest.mark.skipif(
    not os.path.isdir(_shm.SHM_DIR) or not hasattr(signal, "SIGKILL"),
    reason="needs /dev/shm and POSIX signals",
)


class SlowRidge(Ridge):
    """A Ridge fitted one candidate at a time, each fit taking ``delay``
    seconds, that ends its process (``os._exit``) when ``alpha == poison``."""

    def __init__(self, alpha=1.0, delay=0.0, poison=None):
        super().__init__(alpha=alpha)
        self.delay = delay
        self.poison = poison

    def _batch_params(self):
        return frozenset()

    def fit(self, X, y, sample_weight=None):
        if self.poison is not None and self.alpha == self.poison:
            os._exit(1)
        time.sleep(self.delay)
        return super().fit(X, y, sample_weight=sample_weight)


def _data(rng, n=120, p=4):
    X = rng.normal(size=(n, p))
    return X, X @ rng.normal(size=p) + 0.1 * rng.normal(size=n)


# Workers are started by a fork server that has imported gpuml: a worker
# restarted by its nanny then costs a fork, not a Python start-up and
# gpuml's imports (seconds each, on a loaded 2-core CI machine).
PRELOAD = ["distributed", "numpy", "scipy", "sklearn", "gpuml.linear_model"]


@contextlib.contextmanager
def _cluster(**config):
    import multiprocessing

    from distributed.utils import get_mp_context

    config = {"distributed.worker.multiprocessing-method": "forkserver", **config}
    with dask.config.set(config):  # read again by each restart
        get_mp_context()  # distributed's preload first, then ours
        multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
        with (
            distributed.LocalCluster(
                n_workers=2,
                processes=True,
                threads_per_worker=1,
                dashboard_address="127.0.0.1:0",
                host="127.0.0.1",
            ) as cluster,
            distributed.Client(cluster, set_as_default=False) as client,
        ):
            _warm_up(client)
            yield cluster, client


@pytest.fixture(scope="module")
def process_cluster():
    """A process cluster of this module's own and its client, warmed up
    (the workers imported gpuml). The tests that break it leave it whole:
    nannies restart lost workers."""
    with _cluster() as cluster_and_client:
        yield cluster_and_client


@pytest.fixture(scope="module")
def fragile_cluster():
    """The same, with a scheduler that gives up on a task at its first
    worker death (``allowed-failures: 0``), to keep the tests short."""
    with _cluster(**{"distributed.scheduler.allowed-failures": 0}) as both:
        yield both


def _warm_up(client) -> None:
    """Fit once: the workers import gpuml, distributed starts its threads."""
    X, y = _data(np.random.default_rng(0))
    with config_context(device="cpu"):
        GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=2, client=client).fit(X, y)


def _own_shm_files() -> list:
    prefix = _shm._owner_prefix(os.getpid())
    return [name for name in os.listdir(_shm.SHM_DIR) if name.startswith(prefix)]


def _threads_settle(baseline: int, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while threading.active_count() > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    if threading.active_count() > baseline:
        print("threads:", [thread.name for thread in threading.enumerate()])
    return threading.active_count()


def _assert_nothing_left(cluster, thread_baseline: int) -> None:
    """No task on the scheduler, no extra thread, no shared file."""
    deadline = time.monotonic() + 10
    while cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not cluster.scheduler.tasks, list(cluster.scheduler.tasks)
    assert _threads_settle(thread_baseline) <= thread_baseline
    assert _own_shm_files() == []


def _baseline() -> int:
    """This process's threads before a search (those of lost workers'
    watchers gone)."""
    time.sleep(0.2)
    return threading.active_count()


def _on_first_record(monkeypatch, action):
    """Run ``action`` in this process when the first result comes back."""
    real = _dask.print_end
    done = []

    def hook(*args, **kwargs):
        if not done:
            done.append(True)
            action()
        return real(*args, **kwargs)

    monkeypatch.setattr(_dask, "print_end", hook)
    return done


def _grid_params(grid) -> list:
    from sklearn.model_selection import ParameterGrid

    return list(ParameterGrid(grid))


def _same_results(ours, theirs):
    assert sorted(ours.cv_results_) == sorted(theirs.cv_results_)
    for key in theirs.cv_results_:
        if "time" in key or key == "params" or key.startswith("param_"):
            continue
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=0, atol=1e-12
        )
    assert ours.best_params_ == theirs.best_params_


# -- every worker lost --------------------------------------------------------


def _restart(client):
    return lambda: client.restart()


def _kill_all(client):
    """SIGKILL every worker process: their nannies start new ones."""
    pids = list(client.run(os.getpid).values())

    def kill():
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    return kill


@pytest.mark.parametrize("fault", [_restart, _kill_all])
def test_search_sends_its_data_again_when_every_worker_is_lost(
    process_cluster, monkeypatch, rng, fault
):
    """Every worker restarted (``client.restart()``) or killed and restarted
    by its nanny mid-search: the scattered data are gone with them; the
    search sends them again and gives the undisturbed search's results."""
    cluster, client = process_cluster
    monkeypatch.setattr(_shm, "MIN_BYTES", 0)
    X, y = _data(rng)
    baseline = _baseline()
    estimator = SlowRidge(delay=0.05)
    grid = {"alpha": ALPHAS}
    with config_context(device="cpu"):
        theirs = GridSearchCV(estimator, grid, cv=3).fit(X, y)
        fired = _on_first_record(monkeypatch, fault(client))
        sent = []
        real_send = _dask._Tasks.send
        monkeypatch.setattr(
            _dask._Tasks, "send", lambda self: sent.append(1) or real_send(self)
        )
        ours = GridSearchCV(estimator, grid, cv=3, client=client).fit(X, y)
    assert fired and len(sent) >= 2  # the data did go out again
    _same_results(ours, theirs)
    _assert_nothing_left(cluster, baseline)


def test_client_without_scheduler_is_refused_at_once(process_cluster, rng):
    """A client that already lost its scheduler (here: closed) is refused
    before anything is sent, with the message naming the fix."""
    cluster, _ = process_cluster
    X, y = _data(rng)
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    client.close()
    start = time.monotonic()
    with (
        config_context(device="cpu"),
        pytest.raises(ConnectionError, match=r"connect a new distributed\.Client"),
    ):
        GridSearchCV(Ridge(), {"alpha": ALPHAS}, client=client).fit(X, y)
    assert time.monotonic() - start < 2
    assert _own_shm_files() == []


# -- a candidate that kills its worker ---------------------------------------


def test_candidate_that_kills_its_worker_gets_error_score(
    fragile_cluster, monkeypatch, rng
):
    """Its splits score ``error_score``, the warning names it, its
    parameters and the worker deaths; the other candidates' results are
    those of a search without it, even those that shared its worker."""
    cluster, client = fragile_cluster
    monkeypatch.setattr(_shm, "MIN_BYTES", 0)
    X, y = _data(rng)
    baseline = _baseline()
    grid = {"alpha": [0.1, 1.0, 10.0]}
    with config_context(device="cpu"):
        theirs = GridSearchCV(SlowRidge(), grid, cv=2, error_score=-123.0).fit(X, y)
        search = GridSearchCV(
            SlowRidge(poison=1.0), grid, cv=2, error_score=-123.0, client=client
        )
        with pytest.warns(FitFailedWarning) as record:
            search.fit(X, y)
    [warning] = [w for w in record if w.category is FitFailedWarning]
    message = str(warning.message)
    assert "2 fits failed out of a total of 6" in message
    assert "{'alpha': 1.0} on split(s) 0, 1" in message
    assert "KilledWorker" in message and "died" in message
    results = search.cv_results_
    for split in range(2):
        scores = results[f"split{split}_test_score"]
        assert scores[1] == -123.0
        np.testing.assert_allclose(
            scores[[0, 2]],
            theirs.cv_results_[f"split{split}_test_score"][[0, 2]],
            rtol=0,
            atol=1e-12,
        )
    means = theirs.cv_results_["mean_test_score"]
    assert search.best_params_ == _grid_params(grid)[0 if means[0] > means[2] else 2]
    _assert_nothing_left(cluster, baseline)


def test_candidate_that_kills_its_worker_is_named_with_error_score_raise(
    fragile_cluster, monkeypatch, rng
):
    cluster, client = fragile_cluster
    monkeypatch.setattr(_shm, "MIN_BYTES", 0)
    X, y = _data(rng)
    baseline = _baseline()
    grid = {"alpha": [0.1, 1.0, 10.0]}
    with config_context(device="cpu"):
        search = GridSearchCV(
            SlowRidge(poison=1.0), grid, cv=2, error_score="raise", client=client
        )
        with pytest.raises(RuntimeError) as info:
            search.fit(X, y)
    message = str(info.value)
    assert "candidate 1 {'alpha': 1.0} on split" in message
    assert "KilledWorker" in message and "error_score" in message
    assert isinstance(info.value.__cause__, distributed.KilledWorker)
    del info  # its traceback holds the search's futures
    _assert_nothing_left(cluster, baseline)


# -- the scheduler lost -------------------------------------------------------

_SCHEDULER = textwrap.dedent(
    """
    import sys

    import distributed

    import gpuml.linear_model  # noqa: F401  (the tasks' imports, done once)
    import gpuml.model_selection  # noqa: F401

    if __name__ == "__main__":
        # Workers in this process: killing it loses them with the scheduler.
        cluster = distributed.LocalCluster(
            n_workers=2, processes=False, threads_per_worker=1,
            dashboard_address="127.0.0.1:0", host="127.0.0.1", protocol="tcp://",
        )
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()
    """
)


def _late_notice(client, seconds):
    """The client cancels its futures ``seconds`` after it noticed that its
    scheduler's connection closed (a slow machine, where the search fetches
    a finished task's result first); its idle connections are dropped, so
    that the fetch connects anew (and distributed retries a refused connect
    until its connect timeout, 30 s)."""
    import asyncio

    reconnect = client._reconnect

    async def late():
        deadline = time.monotonic() + seconds
        while client.status == "connecting" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if client.status == "connecting":
            await reconnect()

    async def drop_idle():
        client.rpc.remove(client.scheduler.address)

    client._reconnect = late
    client.sync(drop_idle)


def _before_second_fetch(monkeypatch, action):
    """Run ``action`` in this process before the search fetches its second
    result (of a task that finished)."""
    real = _dask._Tasks._outcome
    calls = []

    def outcome(self, future):
        calls.append(future.status)
        if len(calls) == 2:
            action()
        return real(self, future)

    monkeypatch.setattr(_dask._Tasks, "_outcome", outcome)
    return calls


@pytest.mark.parametrize("order", ["client-first", "fetch-first"])
def test_lost_scheduler_is_reported_at_once(rng, monkeypatch, tmp_path, order):
    """The scheduler's process dies mid-search (a cluster in a process of
    its own, killed with its workers): the search raises at once, with a
    message naming the fix, and leaves nothing behind. Whether the client
    noticed the loss first (``client-first``: it cancels the futures) or
    the search was fetching a finished task's result when the scheduler
    died (``fetch-first``: distributed's fetch retries its connection for
    30 s, and the client cancels the futures late)."""
    script = tmp_path / "scheduler.py"
    script.write_text(_SCHEDULER)
    monkeypatch.setattr(_shm, "MIN_BYTES", 0)
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        # The workers unpickle this module's classes by reference.
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))},
    )
    try:
        address = process.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        X, y = _data(rng)
        killed = []

        def kill():
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()  # gone: its address refuses connections
            killed.append(time.monotonic())

        with (
            distributed.Client(address, set_as_default=False) as client,
            config_context(device="cpu"),
        ):
            GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=2, client=client).fit(X, y)
            baseline = _baseline()  # the client's threads included
            if order == "client-first":

                def kill_and_notice():
                    kill()
                    deadline = time.monotonic() + 5
                    while client.status == "running" and time.monotonic() < deadline:
                        time.sleep(0.01)
                    assert client.status != "running"

                _on_first_record(monkeypatch, kill_and_notice)
            else:

                def kill_unnoticed():
                    _late_notice(client, seconds=10)
                    kill()

                fetched = _before_second_fetch(monkeypatch, kill_unnoticed)
            search = GridSearchCV(
                SlowRidge(delay=0.2), {"alpha": ALPHAS}, cv=3, client=client
            )
            with pytest.raises(ConnectionError, match="lost its scheduler") as info:
                search.fit(X, y)
            elapsed = time.monotonic() - killed[0]
            assert "connect a new distributed.Client" in str(info.value)
            assert "without a Dask client" in str(info.value)
            assert elapsed < 5, elapsed
            if order == "fetch-first":
                assert fetched[1] == "finished", fetched
            del info
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()  # closes the pipes
    assert _threads_settle(baseline) <= baseline
    assert _own_shm_files() == []


# -- shared-memory files ------------------------------------------------------


def _share_one(monkeypatch, rng) -> list:
    monkeypatch.setattr(_shm, "MIN_BYTES", 0)
    _, handles = _shm.share({"X": rng.normal(size=(8, 2))}, "test-token")
    assert len(handles) == 1
    return handles


def test_shared_files_are_private_and_named_by_owner(monkeypatch, rng):
    previous = os.umask(0)  # the most permissive umask: still 0600
    try:
        handles = _share_one(monkeypatch, rng)
    finally:
        os.umask(previous)
    [handle] = handles
    try:
        name = os.path.basename(handle.path)
        assert name.startswith(f"gpuml-{os.getuid()}-")
        assert name.startswith(_shm._owner_prefix(os.getpid()))
        assert os.stat(handle.path).st_mode & 0o777 == 0o600
    finally:
        _shm.remove(handles)
    assert not os.path.exists(handle.path)


class _Hangup(Exception):
    pass


def _raise_hangup(signum, frame):
    raise _Hangup


def test_signal_handlers_chain_and_are_restored(monkeypatch, rng):
    """While files exist, SIGHUP's handler is wrapped: the previous one runs
    and, when it raises (the process would end), the files are removed.
    An ignored signal keeps them. The handlers are put back afterwards."""
    previous = signal.signal(signal.SIGHUP, _raise_hangup)
    previous_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        [handle] = _share_one(monkeypatch, rng)
        assert signal.getsignal(signal.SIGHUP) is _shm._on_signal
        os.kill(os.getpid(), signal.SIGTERM)  # ignored before: still ignored
        assert os.path.exists(handle.path)
        with pytest.raises(_Hangup):
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(1)  # the handler runs before this ends
        assert not os.path.exists(handle.path)
        assert signal.getsignal(signal.SIGHUP) is _raise_hangup
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert not _shm._LIVE and not _shm._PREVIOUS
    finally:
        signal.signal(signal.SIGHUP, previous)
        signal.signal(signal.SIGTERM, previous_term)


def test_files_registered_for_exit_and_no_handlers_off_the_main_thread(
    monkeypatch, rng
):
    """A search in another thread installs no handler; its files are still
    removed at exit (the ``atexit`` hook) if the search did not end."""
    before = {s: signal.getsignal(s) for s in _shm.SIGNALS}
    out = []
    thread = threading.Thread(target=lambda: out.append(_share_one(monkeypatch, rng)))
    thread.start()
    thread.join()
    [[handle]] = out
    assert {s: signal.getsignal(s) for s in _shm.SIGNALS} == before
    assert handle.path in _shm._LIVE
    _shm._remove_live()  # what atexit runs
    assert not os.path.exists(handle.path) and not _shm._LIVE


def test_stale_files_of_dead_processes_are_removed_at_the_next_search(monkeypatch):
    """Only this user's files whose process is gone, in this PID namespace,
    are removed; a live process's, another user's or namespace's stay."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    namespace = _shm._pid_namespace()
    uid = os.getuid()
    names = {
        "dead": f"gpuml-{uid}-{namespace}-{dead.pid}-token-X",
        "alive": f"gpuml-{uid}-{namespace}-{os.getppid()}-token-X",
        "other user": f"gpuml-{uid + 1}-{namespace}-{dead.pid}-token-X",
        "other namespace": f"gpuml-{uid}-1{namespace}-{dead.pid}-token-X",
        "unnamed": "gpuml-0123456789abcdef-X",
    }
    paths = {key: os.path.join(_shm.SHM_DIR, name) for key, name in names.items()}
    for path in paths.values():
        with open(path, "wb") as file:
            file.write(b"x")
    try:
        _shm.share({}, "next-search")  # every search starts with this
        assert not os.path.exists(paths["dead"])
        for key in ("alive", "other user", "other namespace", "unnamed"):
            assert os.path.exists(paths[key]), key
    finally:
        for path in paths.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


_SEARCH_IN_CHILD = textwrap.dedent(
    """
    import sys
    import time

    import distributed
    import numpy as np

    from gpuml import config_context
    from gpuml.linear_model import Ridge
    from gpuml.model_selection import GridSearchCV, _shm

    _shm.MIN_BYTES = 0
    share = _shm.share


    def reporting_share(values, token):
        out, handles = share(values, token)
        print(" ".join(h.path for h in handles), flush=True)
        return out, handles


    _shm.share = reporting_share


    class Sleepy(Ridge):
        def _batch_params(self):
            return frozenset()

        def fit(self, X, y, sample_weight=None):
            time.sleep(60)
            return super().fit(X, y, sample_weight=sample_weight)


    if __name__ == "__main__":
        X = np.random.default_rng(0).normal(size=(40, 3))
        with (
            distributed.LocalCluster(
                n_workers=1, processes=False, threads_per_worker=1,
                dashboard_address="127.0.0.1:0",
            ) as cluster,
            distributed.Client(cluster, set_as_default=False) as client,
            config_context(device="cpu"),
        ):
            GridSearchCV(Sleepy(), {"alpha": [1.0]}, cv=2, client=client).fit(
                X, X.sum(1)
            )
    """
)


def test_shared_files_removed_when_the_caller_is_terminated(tmp_path):
    """A search's caller ended by SIGTERM (default action) removes its
    files (created 0600) before it dies of the signal."""
    script = tmp_path / "search.py"
    script.write_text(_SEARCH_IN_CHILD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))}
    with subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as process:
        try:
            paths = process.stdout.readline().split()
            assert len(paths) == 2  # X and y
            for path in paths:
                assert os.stat(path).st_mode & 0o777 == 0o600
            time.sleep(0.5)  # the search is waiting on its tasks
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == -signal.SIGTERM
        finally:
            if process.poll() is None:
                process.kill()
    assert not any(os.path.exists(path) for path in paths)
