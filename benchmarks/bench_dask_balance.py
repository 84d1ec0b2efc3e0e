"""A one-group search on every GPU: how it is split, and when it is sent.

Run on a machine with two or more GPUs (``nvidia-h200-x2``):
``python -m benchmarks.run dask_balance``. The workload is issue 17's: one
batched group, ``GridSearchCV(LogisticRegression())`` over 16 C values
(five decades), 5-fold, on 600,000 x 384 float32 with 6 classes: 5 tasks
unsplit, which do not divide evenly among 2 GPUs (3 and 2). Rows, data in
NumPy, median of ``repeat`` runs after a warm-up:

1. gpuml's search in process, on one GPU;
2. with a client of a ``dask_cuda.LocalCUDACluster`` (one worker per GPU),
   as a user gets it: sent to the workers, or kept in process where gpuml
   estimates that the cluster would not finish it sooner
   (``_dask.worth_dispatching``; the notes say which);
3. sent to the workers whatever the estimate, the tasks planned by
   ``_dask.plan_tasks`` (the fold left over for the last round split);
4. the same with no task split (whole batches).

The notes give the speed-up against row 1 and the largest difference of a
split score from the in-process search's. The rows run twice: with
LogisticRegression's default ``tol=1e-4`` (a search of about 0.2 s on one
H200) and with ``tol=1e-6`` (about 0.8 s).

Then the first searches at each tol (issue 35 item 3: a search through a
fresh cluster should never be slower than one GPU in process, first call
included):

5. the first search of a fresh process on one GPU (a child process, timed
   after CuPy's import and the CUDA context; the kernel cache as it is);
6. the first search with a client of a new ``LocalCUDACluster``, whose
   workers are fresh processes, as a user gets it;
7. the same, sent to the new workers whatever the estimate (what a cold
   worker costs: CuPy's and gpuml's imports, the context, the kernels and
   libraries, while the data travel).

Under a tree without ``plan_tasks`` (an earlier commit, for comparison)
rows 2 and 3 are the same, and row 4 turns its even split off.
"""

from __future__ import annotations

import contextlib
import json
import os
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
)
from benchmarks.bench_dask import _breakdown, _max_score_diff, cuda_cluster

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
                for label, settings in (
                    ("a client, as given", ()),
                    ("sent", (_SENT,)),
                    ("sent, whole batches", (_SENT, _WHOLE)),
                ):
                    sent = []
                    with _settings(_dask, settings, sent):
                        t, got = time_call(
                            lambda c=client, t=tol: search(t, c).fit(X, y), repeat
                        )
                    where = "in process" if sent and not any(sent) else "on the workers"
                    rows.append(
                        row(
                            workload(tol),
                            f"gpuml, Dask, {label}",
                            f"NumPy, LocalCUDACluster, {n_gpus} GPUs",
                            t,
                            f"{t_one / t:.2f}x in process; ran {where}; max |Δ "
                            f"split score| {_max_score_diff(got, one):.1e}",
                            compare=False,
                        )
                    )
            print(f"  breakdown, tol={TOLS[-1]:g}, sent:", flush=True)
            with _settings(_dask, (_SENT,), []):
                _breakdown(client, lambda c=client: search(TOLS[-1], c).fit(X, y))
        # BENCH_DASK_FIRST=0 skips the first searches (rows 5-7)
        first_tols = TOLS if os.environ.get("BENCH_DASK_FIRST", "1") != "0" else ()
        for tol in first_tols:
            t_child, _ = _first_in_fresh_process(n, tol, "")
            rows.append(
                row(
                    workload(tol),
                    "gpuml, in process, first search",
                    "NumPy, 1 GPU, fresh process",
                    t_child,
                    compare=False,
                )
            )
            for label, mode in (("as given", "cluster"), ("sent", "sent")):
                t_first, sent = _first_in_fresh_process(n, tol, mode)
                where = "in process" if sent is False else "on the workers"
                rows.append(
                    row(
                        workload(tol),
                        f"gpuml, Dask, first search, {label}",
                        f"NumPy, new LocalCUDACluster, {n_gpus} GPUs, fresh process",
                        t_first,
                        f"{t_child / t_first:.2f}x the first in-process search; "
                        f"ran {where}",
                        compare=False,
                    )
                )
    return rows


_SENT, _WHOLE = "sent", "whole"


@contextlib.contextmanager
def _settings(_dask, settings, sent: list):
    """``_dask`` with every search sent (``_SENT``) and no task split
    (``_WHOLE``), recording in ``sent`` each search's decision; under a
    tree without those settings, what it has."""
    saved = {
        name: getattr(_dask, name)
        for name in (
            "DISPATCH_SECONDS",
            "DISPATCH_SECONDS_PER_WORKER",
            "WARM_UP_SECONDS",
            "MAX_PIECES",
            "GOOD_BALANCE",
        )
        if hasattr(_dask, name)
    }
    worth = getattr(_dask, "worth_dispatching", None)
    try:
        if _SENT in settings and "DISPATCH_SECONDS" in saved:
            for name in ("DISPATCH_SECONDS", "DISPATCH_SECONDS_PER_WORKER"):
                if name in saved:
                    setattr(_dask, name, 0.0)
            _dask.WARM_UP_SECONDS = 0.0
        if _WHOLE in settings:
            if hasattr(_dask, "plan_tasks"):
                _dask.MAX_PIECES = 1
            else:
                _dask.GOOD_BALANCE = 0.0
        if worth is not None:
            from gpuml.model_selection import _search

            def recording(*args, **kwargs):
                sent.append(worth(*args, **kwargs))
                return sent[-1]

            _search.worth_dispatching = recording
        yield
    finally:
        for name, value in saved.items():
            setattr(_dask, name, value)
        if worth is not None:
            from gpuml.model_selection import _search

            _search.worth_dispatching = worth


def _first_in_fresh_process(n: int, tol: float, mode: str) -> tuple:
    """Seconds of the first search in a new process (after CuPy's import and
    the CUDA context; with ``mode`` "cluster" or "sent", after starting a
    ``LocalCUDACluster``, given as the search's client, "sent" sending it
    whatever gpuml's estimate), the kernel cache as it is; and whether it
    went to the workers (None: not known)."""
    args = [sys.executable, "-m", "benchmarks.bench_dask_balance", str(n), str(tol)]
    done = subprocess.run([*args, mode], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return out["first_s"], out["sent"]


def _child(n: int, tol: float, mode: str) -> dict:
    import cupy

    cupy.cuda.Device(0).use()
    cupy.empty(1)
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV, _dask

    X, y = make_data(n)
    sent: list = []
    with contextlib.ExitStack() as stack:
        client = None
        if mode:
            client = stack.enter_context(cuda_cluster())
            settings = (_SENT,) if mode == "sent" else ()
            stack.enter_context(_settings(_dask, settings, sent))
        time.sleep(0.3)  # the BLAS threads that made the data go idle
        with config_context(device="gpu"):
            search = GridSearchCV(
                LogisticRegression(tol=tol), GRID, cv=KFold(5), client=client
            )
            start = time.perf_counter()
            search.fit(X, y)
            cupy.cuda.Device().synchronize()
            elapsed = time.perf_counter() - start
    return {"first_s": elapsed, "sent": sent[0] if sent else None}


if __name__ == "__main__":
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    print(json.dumps(_child(int(sys.argv[1]), float(sys.argv[2]), mode)))
