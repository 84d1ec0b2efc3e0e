"""Distributed search: one GPU in process against every GPU through Dask.

Run on a machine with two GPUs (device kind ``nvidia-h200-x2``):
``python -m benchmarks.run dask``. The workload is a search that takes more
than 10 s on one GPU: ``GridSearchCV(LogisticRegression(tol=1e-6))`` over
10 Cs x ``fit_intercept`` x ``class_weight`` (40 candidates, 4 batched
groups), 5-fold, on 1,000,000 x 256 float32 with 10 classes (multinomial).
Three ways, on the same data, timed end to end (data start in NumPy; the
two gpuml rows are the median of ``repeat`` runs after one full-size
warm-up run, which also grows the worker processes' memory: on the device
machines fresh memory is slow to fault in the first time):

1. gpuml's search in process, on one GPU;
2. gpuml's search through ``dask_cuda.LocalCUDACluster`` (one worker per
   GPU): 20 tasks (group x fold); the data are copied once to the caller's
   GPU and each worker copies them from there to its own GPU (CUDA IPC,
   see ``gpuml/model_selection/_ipc.py``);
3. scikit-learn's ``GridSearchCV`` with gpuml's ``LogisticRegression`` in
   ``joblib.parallel_config(backend="dask")`` on the same cluster: 200 fits,
   each a task that copies its fold to its worker's GPU and fits one C
   (one run: it is the slow one; ``BENCH_DASK_SKLEARN=0`` skips it).

The notes give the speed-ups against row 1 and whether the results are
identical (row 2: every ``cv_results_`` score; row 3: the best candidate).
"""

from __future__ import annotations

import contextlib
import os
import time

import numpy as np
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold

from benchmarks._timing import (
    cupy_or_none,
    no_gpu_reason,
    row,
    time_call,
    time_once,
)

N, N_QUICK, P, CLASSES = 1_000_000, 50_000, 256, 10
GRID = {
    "C": np.logspace(-3, 2, 10),
    "fit_intercept": [True, False],
    "class_weight": [None, "balanced"],
}


def make_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, P), dtype=np.float32)
    W = rng.standard_normal((P, CLASSES)).astype(np.float32) / np.sqrt(P)
    scores = X @ W + rng.gumbel(size=(n, CLASSES)).astype(np.float32)
    # Unequal class sizes, so that class_weight="balanced" matters.
    scores += np.linspace(0.0, 1.5, CLASSES, dtype=np.float32)
    return X, scores.argmax(axis=1)


@contextlib.contextmanager
def cuda_cluster():
    """A client of a new ``LocalCUDACluster`` (one worker per GPU, every
    worker started), not set as the default client."""
    from dask_cuda import LocalCUDACluster
    from distributed import Client

    with (
        # memory_limit=0: the machine's MemTotal grows as memory is used,
        # so Dask's automatic per-worker limit would be too small.
        LocalCUDACluster(
            host="127.0.0.1", dashboard_address="127.0.0.1:0", memory_limit=0
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        client.wait_for_workers(len(cluster.workers))
        yield client


def _max_score_diff(a, b) -> float:
    keys = [k for k in b.cv_results_ if k.startswith("split") and "test" in k]
    return max(float(np.max(np.abs(a.cv_results_[k] - b.cv_results_[k]))) for k in keys)


def _breakdown(client, fit) -> None:
    """Where a Dask search's time goes, from the task stream (worker clocks:
    the same host's): before the first task starts (data out, scheduling),
    each worker's busy time and span, after the last task ends (results
    in, the refit in the caller)."""
    from distributed import get_task_stream

    start = time.time()
    with get_task_stream(client=client) as stream:
        search = fit()
    end = time.time()
    busy: dict = {}
    for task in stream.data:
        if not str(task["key"]).startswith("gpuml-search-"):
            continue
        for part in task["startstops"]:
            if part["action"] == "compute":
                busy.setdefault(task["worker"], []).append(
                    (part["start"], part["stop"])
                )
    if not busy:
        print(f"  total {end - start:.2f} s, no task ran on the cluster")
        return
    for worker, spans in sorted(busy.items()):
        work = sum(b - a for a, b in spans)
        first, last = min(a for a, _ in spans), max(b for _, b in spans)
        print(
            f"  worker {worker}: {len(spans)} tasks, busy {work:.2f} s, "
            f"first start {first - start:.2f} s, last stop {last - start:.2f} s",
            flush=True,
        )
    first = min(a for spans in busy.values() for a, _ in spans)
    last = max(b for spans in busy.values() for _, b in spans)
    print(
        f"  total {end - start:.2f} s: before the first task {first - start:.2f} s, "
        f"tasks {last - first:.2f} s, after the last task {end - last:.2f} s "
        f"(refit {search.refit_time_:.2f} s)",
        flush=True,
    )


def run(quick: bool, repeat: int = 2) -> list[dict]:
    n = N_QUICK if quick else N
    workload = (
        f"GridSearchCV LogisticRegression(tol=1e-6), 40 candidates, "
        f"{n:,}x{P} float32, {CLASSES} classes, 5-fold"
    )
    if cupy_or_none() is None:
        return [row(workload, "gpuml", "NumPy", None, no_gpu_reason())]
    import joblib

    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    X, y = make_data(n)
    cv = KFold(5)
    estimator = LogisticRegression(tol=1e-6, max_iter=500)
    rows = []
    with config_context(device="gpu"):

        def search(client=None):
            return GridSearchCV(estimator, GRID, cv=cv, client=client)

        t_one, one = time_call(lambda: search().fit(X, y), repeat)
        print(f"  in process, 1 GPU: {t_one:.2f} s", flush=True)
        rows.append(
            row(
                workload,
                "gpuml, in process",
                "NumPy, 1 GPU",
                t_one,
                f"best {one.best_params_}",
                compare=False,
            )
        )
        with cuda_cluster() as client:
            n_gpus = len(client.scheduler_info()["workers"])
            t_dask, dask = time_call(lambda: search(client).fit(X, y), repeat)
            print(f"  Dask, {n_gpus} GPUs: {t_dask:.2f} s", flush=True)
            same = dask.best_params_ == one.best_params_
            rows.append(
                row(
                    workload,
                    "gpuml, Dask",
                    f"NumPy, LocalCUDACluster, {n_gpus} GPUs",
                    t_dask,
                    f"{t_one / t_dask:.2f}x row 1; best "
                    f"{'same' if same else 'DIFFERENT'}; max |Δ split score| "
                    f"{_max_score_diff(dask, one):.1e}",
                    compare=False,
                )
            )
            _breakdown(client, lambda: search(client).set_params(verbose=1).fit(X, y))
            if os.environ.get("BENCH_DASK_SKLEARN", "1") == "0":
                return rows  # the slow comparison row skipped (re-runs)
            sk = SkGridSearchCV(estimator, GRID, cv=cv, n_jobs=-1)
            with joblib.parallel_config(backend="dask", client=client):
                t_sk, sk = time_once(lambda: sk.fit(X, y))
            same = sk.best_params_ == one.best_params_
            rows.append(
                row(
                    workload,
                    "scikit-learn search, gpuml estimator, joblib Dask",
                    f"NumPy, LocalCUDACluster, {n_gpus} GPUs",
                    t_sk,
                    f"gpuml's Dask search {t_sk / t_dask:.1f}x faster; best "
                    f"{'same' if same else 'DIFFERENT'}",
                    compare=False,
                )
            )
    return rows
