"""A one-group search on every GPU: sub-batches against whole batches.

Run on a machine with two or more GPUs (``nvidia-h200-x2``):
``python -m benchmarks.run dask_balance``. The workload is issue 17's: one
batched group, ``GridSearchCV(LogisticRegression())`` over 16 C values,
5-fold, on 600,000 x 384 float32 with 6 classes: 5 tasks unsplit, which
do not divide evenly among 2 GPUs (3 and 2). Rows, data in NumPy, median of
``repeat`` runs after a warm-up:

1. gpuml's search in process, on one GPU;
2. through ``dask_cuda.LocalCUDACluster`` (one worker per GPU) with the
   batch split by candidates (``_dask.balance_units``, the default);
3. the same with splitting off (the tasks of before this change).

The notes give the speed-up against row 1 and whether every split score is
the in-process search's. The three rows run twice: with LogisticRegression's
default ``tol=1e-4`` (issue 17's search: 5-6 L-BFGS iterations, about 0.3 s
on one H200, so sending the data to the workers is a large part of a Dask
search) and with ``tol=1e-6`` (more iterations: the fits dominate, which is
where the balance between workers shows).

Then the first searches at each tol (issue 35 item 3: a search through a
fresh cluster should never be slower than one GPU in process, first call
included):

4. the first search of a fresh process on one GPU (a child process, timed
   after CuPy's import and the CUDA context; the kernel cache as it is);
5. the first search through a new ``LocalCUDACluster``, whose workers are
   fresh processes: they import CuPy and gpuml, create their contexts and
   load the kernels while the data travel (``_dask._warm_worker``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
from sklearn.model_selection import KFold

from benchmarks._timing import (
    cupy_or_none,
    no_gpu_reason,
    row,
    time_call,
    time_once,
)
from benchmarks.bench_dask import _max_score_diff, cuda_cluster

N, N_QUICK, P, CLASSES = 600_000, 60_000, 384, 6
GRID = {"C": np.logspace(-3, 2, 16)}
TOLS = (1e-4, 1e-6)


def make_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, P), dtype=np.float32)
    W = rng.standard_normal((P, CLASSES)).astype(np.float32) / np.sqrt(P)
    scores = X @ W + rng.gumbel(size=(n, CLASSES)).astype(np.float32)
    return X, scores.argmax(axis=1)


def run(quick: bool, repeat: int = 3) -> list[dict]:
    n = N_QUICK if quick else N

    def workload(tol):
        return (
            f"GridSearchCV LogisticRegression(tol={tol:g}), 16 Cs (one batched "
            f"group), {n:,}x{P} float32, {CLASSES} classes, 5-fold"
        )

    if cupy_or_none() is None:
        return [row(workload(TOLS[0]), "gpuml", "NumPy", None, no_gpu_reason())]
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV, _dask

    X, y = make_data(n)
    rows = []
    with config_context(device="gpu"):

        def search(tol, client=None):
            estimator = LogisticRegression(tol=tol)
            return GridSearchCV(estimator, GRID, cv=KFold(5), client=client)

        in_process = {
            tol: time_call(lambda t=tol: search(t).fit(X, y), repeat) for tol in TOLS
        }
        with cuda_cluster() as client:
            n_gpus = len(client.nthreads())
            good = _dask.GOOD_BALANCE
            for tol in TOLS:
                t_one, one = in_process[tol]
                rows.append(
                    row(
                        workload(tol),
                        "gpuml, in process",
                        "NumPy, 1 GPU",
                        t_one,
                        compare=False,
                    )
                )
                for label, balance in (("sub-batches", good), ("whole batches", 0.0)):
                    _dask.GOOD_BALANCE = balance
                    try:
                        t, got = time_call(
                            lambda c=client, t=tol: search(t, c).fit(X, y), repeat
                        )
                    finally:
                        _dask.GOOD_BALANCE = good
                    rows.append(
                        row(
                            workload(tol),
                            f"gpuml, Dask, {label}",
                            f"NumPy, LocalCUDACluster, {n_gpus} GPUs",
                            t,
                            f"{t_one / t:.2f}x in process; max |Δ split score| "
                            f"{_max_score_diff(got, one):.1e}",
                            compare=False,
                        )
                    )
        for tol in TOLS:
            t_child = _first_in_fresh_process(n, tol)
            rows.append(
                row(
                    workload(tol),
                    "gpuml, in process, first search",
                    "NumPy, 1 GPU, fresh process",
                    t_child,
                    compare=False,
                )
            )
            with cuda_cluster() as client:
                t_first, _ = time_once(lambda c=client, t=tol: search(t, c).fit(X, y))
            rows.append(
                row(
                    workload(tol),
                    "gpuml, Dask, first search",
                    f"NumPy, new LocalCUDACluster, {n_gpus} GPUs",
                    t_first,
                    f"{t_child / t_first:.2f}x the first in-process search",
                    compare=False,
                )
            )
    return rows


def _first_in_fresh_process(n: int, tol: float) -> float:
    """Seconds of the first search in a new process (after CuPy's import and
    the CUDA context), the kernel cache as it is."""
    args = [sys.executable, "-m", "benchmarks.bench_dask_balance", str(n), str(tol)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["first_s"]


def _child(n: int, tol: float) -> dict:
    import cupy

    cupy.cuda.Device(0).use()
    cupy.empty(1)
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    X, y = make_data(n)
    time.sleep(0.3)  # the BLAS threads that made the data go idle
    with config_context(device="gpu"):
        search = GridSearchCV(LogisticRegression(tol=tol), GRID, cv=KFold(5))
        start = time.perf_counter()
        search.fit(X, y)
        cupy.cuda.Device().synchronize()
    return {"first_s": time.perf_counter() - start}


if __name__ == "__main__":
    print(json.dumps(_child(int(sys.argv[1]), float(sys.argv[2]))))
