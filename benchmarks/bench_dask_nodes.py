"""Searches through workers that stand in for several machines (data over TCP).

Run on a machine of two or more GPUs (``nvidia-h100-x4``):
``python -m benchmarks.run dask_nodes``. A multi-node cluster is laid out on
one host: a scheduler (``python -m dask scheduler``) and "nodes", each a
``python -m dask cuda worker`` process that sees some of the GPUs
(``CUDA_VISIBLE_DEVICES``) and starts one worker per GPU, all against the
scheduler's file. Two layouts: two GPUs a node and one GPU a node (on four
GPUs: 2 nodes x 2 and 4 nodes x 1; on two: 1 x 2 and 2 x 1).

The search treats the workers as machines of their own: CUDA IPC and
shared memory are turned off in the caller (as their trials fail for
workers on other machines), so the data travel in the payload, scattered
to every worker over TCP (UCX is not installed on the device machines).
The host's loopback is faster than a network between machines: the
"before the first task" figure is a lower bound of what a cluster of
machines pays.

Workloads (data in NumPy, median of ``repeat`` runs after a warm-up, which
starts the workers' GPUs): bench_dask's search (40 candidates, 4 batched
groups, 1,000,000 x 256, 10 classes, tol=1e-6) and dask_balance's one-group
search (16 C, 600,000 x 384, 6 classes, tol=1e-6); each against one GPU in
process, with a breakdown of one more run (workers' busy time, time before
the first task and after the last).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.model_selection import KFold

from benchmarks import bench_dask, bench_dask_balance
from benchmarks._timing import cupy_or_none, no_gpu_reason, row, time_call
from benchmarks.bench_dask_balance import _SENT, _settings


def _gpu_count() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def layouts(n_gpus: int) -> list[tuple[int, int]]:
    """(nodes, GPUs a node) for a host of ``n_gpus``: two GPUs a node and one."""
    return [(n_gpus // 2, 2), (n_gpus, 1)] if n_gpus >= 2 else [(1, 1)]


@contextlib.contextmanager
def stand_in_cluster(nodes: int, per_node: int, *, cuda: bool = True):
    """A client of a scheduler and ``nodes`` worker processes started from
    the command line, each seeing ``per_node`` GPUs (``cuda=False``: plain
    ``dask worker`` processes of one thread each, for a run without GPUs)."""
    from distributed import Client

    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        file = os.path.join(folder, "scheduler.json")
        python = [sys.executable, "-m", "dask"]
        at = ["--host", "127.0.0.1", "--no-dashboard", "--scheduler-file", file]
        procs = [
            subprocess.Popen(
                [*python, "scheduler", "--port", "0", *at],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        ]
        try:
            deadline = time.monotonic() + 60
            while not os.path.exists(file):
                if time.monotonic() > deadline or procs[0].poll() is not None:
                    raise RuntimeError("the Dask scheduler did not start")
                time.sleep(0.1)
            for node in range(nodes):
                gpus = range(node * per_node, (node + 1) * per_node)
                command = (
                    ["cuda", "worker", "--memory-limit", "0"]
                    if cuda
                    else ["worker", "--nworkers", str(per_node), "--nthreads", "1"]
                )
                procs.append(
                    subprocess.Popen(
                        [*python, *command, *at],
                        env={**env, "CUDA_VISIBLE_DEVICES": ",".join(map(str, gpus))},
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            with Client(scheduler_file=file, set_as_default=False) as client:
                client.wait_for_workers(nodes * per_node, timeout=120)
                yield client
        finally:
            for proc in reversed(procs):
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()


@contextlib.contextmanager
def as_other_machines():
    """The caller's CUDA IPC and shared-memory trials answer no, as they do
    for workers on other machines: the data travel in the payload."""
    from gpuml.model_selection import _ipc, _shm

    saved = _ipc.usable, _shm.reachable
    _ipc.usable = lambda *args, **kwargs: False
    _shm.reachable = lambda *args, **kwargs: False
    try:
        yield
    finally:
        _ipc.usable, _shm.reachable = saved


def _workloads(quick: bool):
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    n_a = bench_dask.N_QUICK if quick else bench_dask.N
    n_b = bench_dask_balance.N_QUICK if quick else bench_dask_balance.N
    X_a, y_a = bench_dask.make_data(n_a)
    X_b, y_b = bench_dask_balance.make_data(n_b)

    def a(client=None):
        estimator = LogisticRegression(tol=1e-6, max_iter=500)
        return GridSearchCV(estimator, bench_dask.GRID, cv=KFold(5), client=client)

    def b(client=None):
        estimator = LogisticRegression(tol=1e-6)
        grid = bench_dask_balance.GRID
        return GridSearchCV(estimator, grid, cv=KFold(5), client=client)

    return [
        (
            f"bench_dask's search, 40 candidates, {n_a:,}x{bench_dask.P}, tol=1e-6",
            a,
            X_a,
            y_a,
        ),
        (
            f"dask_balance's one group, 16 C, {n_b:,}x{bench_dask_balance.P}, tol=1e-6",
            b,
            X_b,
            y_b,
        ),
    ]


def run(quick: bool, repeat: int = 2) -> list[dict]:
    if cupy_or_none() is None:
        return [row("dask_nodes", "gpuml", "NumPy", None, no_gpu_reason())]
    from gpuml import config_context
    from gpuml.model_selection import _dask

    n_gpus = _gpu_count()
    rows = []
    workloads = _workloads(quick)
    with config_context(device="gpu"):
        one = {}
        for name, search, X, y in workloads:
            t, fitted = time_call(lambda s=search, X=X, y=y: s().fit(X, y), repeat)
            one[name] = t, fitted
            rows.append(
                row(name, "gpuml, in process", "NumPy, 1 GPU", t, compare=False)
            )
        for nodes, per_node in layouts(n_gpus):
            with (
                stand_in_cluster(nodes, per_node) as client,
                as_other_machines(),
                _settings(_dask, (_SENT,), []),  # always sent
            ):
                for name, search, X, y in workloads:
                    t_one, fitted = one[name]
                    t, got = time_call(
                        lambda s=search, c=client, X=X, y=y: s(c).fit(X, y),
                        repeat,
                    )
                    same = got.best_params_ == fitted.best_params_
                    rows.append(
                        row(
                            name,
                            f"gpuml, Dask, {nodes} nodes x {per_node} GPU",
                            "NumPy, TCP, dask cuda worker",
                            t,
                            f"{t_one / t:.2f}x in process; best "
                            f"{'same' if same else 'DIFFERENT'}; max |Δ split "
                            f"score| {bench_dask._max_score_diff(got, fitted):.1e}",
                            compare=False,
                        )
                    )
                    print(f"  breakdown, {nodes} x {per_node}, {name}:", flush=True)
                    bench_dask._breakdown(
                        client,
                        lambda s=search, c=client, X=X, y=y: (
                            s(c).set_params(verbose=1).fit(X, y)
                        ),
                    )
    return rows


if __name__ == "__main__":  # a run of the layout without GPUs (a smoke test)
    with stand_in_cluster(2, 1, cuda=False) as client, as_other_machines():
        from gpuml.linear_model import Ridge
        from gpuml.model_selection import GridSearchCV

        X = np.random.default_rng(0).normal(size=(2000, 8))
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3, client=client)
        print(search.set_params(verbose=1).fit(X, X.sum(1)).best_params_)
