"""gpuml's own search against dask-ml's search of gpuml's estimators.

``python -m benchmarks.bench_dask_ml`` on the GPU machine (dask-ml and
dask-cuda installed; ``--no-cpu`` skips the CPU rows). Two workloads, data
given as NumPy:

- Ridge over 20 alphas, 5 folds, 200,000 x 128 float32;
- LogisticRegression (binary) over 8 Cs, 5 folds, 200,000 x 64 float32.

Rows, each on the same data: gpuml's ``GridSearchCV`` in process (median of
3 after a warm-up); dask-ml's ``GridSearchCV`` of the same gpuml estimator
on a ``dask_cuda.LocalCUDACluster`` (one worker per GPU; one fit per task,
each copying its fold to the GPU; median of 2 after a warm-up); dask-ml's
search of scikit-learn's estimator on a CPU ``LocalCluster`` (one worker per
core) and scikit-learn's ``GridSearchCV(n_jobs=-1)`` (one run each). One
JSON line per row, with the best parameters.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from functools import partial

import numpy as np

N = 200_000


def workloads():
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.linear_model import Ridge as SkRidge

    from gpuml.linear_model import LogisticRegression, Ridge

    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, 128), dtype=np.float32)
    y = (X @ rng.standard_normal(128) + rng.standard_normal(N)).astype(np.float32)
    yield "ridge", Ridge, SkRidge, {"alpha": np.logspace(-3, 3, 20).tolist()}, X, y
    X = rng.standard_normal((N, 64), dtype=np.float32)
    y = (X @ rng.standard_normal(64) + rng.logistic(size=N) > 0).astype(np.int64)
    yield (
        "logistic",
        LogisticRegression,
        SkLogisticRegression,
        {"C": np.logspace(-3, 2, 8).tolist()},
        X,
        y,
    )


def search(search_class, estimator, grid, X, y, client=None, **kwargs):
    """One fitted search (under ``client`` as dask's current client)."""
    if client is None:
        return search_class(estimator(), grid, cv=5, **kwargs).fit(X, y)
    with client.as_current():
        return search_class(estimator(), grid, cv=5, scheduler=client).fit(X, y)


def timed(fit, repeat: int) -> tuple[float, object]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fitted = fit()
        times.append(time.perf_counter() - start)
    return statistics.median(times), fitted


def report(workload: str, way: str, seconds: float, fitted) -> None:
    row = {"workload": workload, "way": way, "seconds": round(seconds, 3)}
    row["best"] = {k: round(v, 6) for k, v in fitted.best_params_.items()}
    row["best_score"] = float(fitted.best_score_)
    print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-cpu", action="store_true")
    args = parser.parse_args()
    import dask_cuda
    import distributed
    from dask_ml.model_selection import GridSearchCV as DaskGridSearchCV
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    from gpuml.model_selection import GridSearchCV

    with (
        dask_cuda.LocalCUDACluster() as gpu_cluster,
        distributed.Client(gpu_cluster, set_as_default=False) as gpu_client,
    ):
        n_gpus = len(gpu_client.scheduler_info()["workers"])
        for name, ours, _, grid, X, y in workloads():
            in_process = partial(search, GridSearchCV, ours, grid, X, y)
            in_process()  # warm-up
            report(name, "gpuml GridSearchCV, one GPU", *timed(in_process, 3))
            dask_ml = partial(search, DaskGridSearchCV, ours, grid, X, y, gpu_client)
            dask_ml()  # warm-up: the worker's kernels and memory
            way = f"dask-ml GridSearchCV of gpuml's, LocalCUDACluster ({n_gpus} GPU)"
            report(name, way, *timed(dask_ml, 2))
    if args.no_cpu:
        return
    cores = os.cpu_count()
    with (
        distributed.LocalCluster(n_workers=cores, threads_per_worker=1) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        for name, _, theirs, grid, X, y in workloads():
            dask_ml = partial(search, DaskGridSearchCV, theirs, grid, X, y, client)
            way = f"dask-ml GridSearchCV of scikit-learn's, LocalCluster ({cores})"
            report(name, way, *timed(dask_ml, 1))
            sklearn = partial(search, SkGridSearchCV, theirs, grid, X, y, n_jobs=-1)
            way = f"scikit-learn GridSearchCV, n_jobs=-1 ({cores} cores)"
            report(name, way, *timed(sklearn, 1))


if __name__ == "__main__":
    main()
