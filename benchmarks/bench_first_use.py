"""First use: the two searches of issue 14 in fresh processes, cold and warm.

W1 is ``GridSearchCV(Ridge())`` over 20 alphas, ``KFold(5)``, ``scoring="r2"``
on 400,000 x 256 float32; W2 is ``GridSearchCV(LogisticRegression())`` over
8 C, ``KFold(5)``, ``scoring="accuracy"`` on 400,000 x 128 float32 with
binary labels. Data are NumPy, made before the clock starts (and
``SETTLE_S`` before it, so that the BLAS threads that made them are idle, as
for data loaded from disk). Each child
process first imports CuPy and creates the CUDA context (what any CuPy
program pays first; reported in the notes as "start-up"), then times
``fit`` to its return (the GPU synchronised): the libraries' start-up
(cuBLAS, cuSOLVER), the copy to the GPU and every kernel compile are inside
the time. Rows, each workload:

- a fresh process with ``CUPY_CACHE_DIR`` set to a new, empty folder (a new
  machine or container), and the number of kernels it compiled;
- three fresh processes on the cache that run filled (their median);
- in that process, the same search again (warm);
- a fresh process on that cache that first searches 5,000 rows, then the full
  size: a new size must compile nothing;
- a fresh process on an empty cache after ``gpuml.warmup()`` (in its own
  process), which must then compile nothing;
- scikit-learn, ``n_jobs=16``, in this process;
- the floor: a fresh process on a warm cache that does, with CuPy alone, the
  CUDA library work the workload cannot do without (the copy to the GPU, one
  fold's cuBLAS products and, for Ridge, cuSOLVER's ``eigh``): what any
  cuBLAS-based search of these data pays in a new process.

``--quick`` divides the rows by 10. Each child prints one JSON line; with
``GPUML_TRACE_COMPILES=1`` a child also lists, for each kernel it compiled,
the line of gpuml that was running (see :mod:`benchmarks.kernel_inventory`).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._timing import SKLEARN, cupy_or_none, no_gpu_reason, row, time_once

N_ROWS, SMALL_ROWS = 400_000, 5_000
# Making the data ends with a BLAS product, after which OpenBLAS's threads
# spin on every core for about 0.1 s; a fit started at once shares the CPUs
# with them (its copy to the GPU took 40-60 ms longer on the H100). Data
# loaded from disk or made earlier meet idle cores: wait this long first.
SETTLE_S = 0.3
N_JOBS = 16
WORKLOADS = {
    "W1": "GridSearchCV Ridge, 20 alphas x 5 folds, {n:,}x256 float32, r2",
    "W2": "GridSearchCV LogisticRegression, 8 C x 5 folds, {n:,}x128 float32, accuracy",
}


def make_workload(name: str, n_rows: int, sklearn: bool = False):
    """``(search, X, y)``: the search object (gpuml's or scikit-learn's)."""
    from sklearn.model_selection import KFold

    from benchmarks import bench_logistic, bench_search

    if sklearn:
        from sklearn.linear_model import LogisticRegression, Ridge
        from sklearn.model_selection import GridSearchCV

        extra = {"n_jobs": N_JOBS}
    else:
        from gpuml.linear_model import LogisticRegression, Ridge
        from gpuml.model_selection import GridSearchCV

        extra = {}
    if name == "W1":
        X, y = bench_search.make_data(n_rows, 256)
        estimator, grid, scoring = Ridge(), {"alpha": np.logspace(-3, 5, 20)}, "r2"
    else:
        X, y = bench_logistic.make_data(n_rows, 128)
        estimator, grid = LogisticRegression(), {"C": np.logspace(-3, 2, 8)}
        scoring = "accuracy"
    search = GridSearchCV(estimator, grid, cv=KFold(5), scoring=scoring, **extra)
    return search, X, y


def floor_child(name: str, n_rows: int) -> dict:
    """Run in a fresh process: the library work ``name`` needs, CuPy alone.

    After the same start-up as :func:`child`, times (GPU synchronised) the
    copy of the data (also on its own), one training fold's products in
    cuBLAS (W1: the Gram matrix ``X'X`` and ``X'y``; W2: the scores of 8
    candidates ``X W'`` and the gradient product ``X' R``) and, for W1,
    cuSOLVER's ``eigh`` of a (p + 2)-square float64 matrix; then the same
    again in the process.
    """
    out = {"workload": name}
    start = time.perf_counter()
    import cupy

    cupy.cuda.Device(0).use()
    cupy.empty(1)
    cupy.cuda.Device().synchronize()
    out["startup_s"] = time.perf_counter() - start
    _, X, y = make_workload(name, n_rows)
    rng = np.random.default_rng(0)
    n_train, p = n_rows * 4 // 5, X.shape[1]
    W = rng.standard_normal((8, p), dtype=np.float32)
    R = rng.standard_normal((n_train, 8), dtype=np.float32)
    A = rng.standard_normal((p + 2, p + 2))
    A = A @ A.T
    before = _cache_files(os.environ["CUPY_CACHE_DIR"])
    times, copies = [], []
    for _ in range(2):
        time.sleep(SETTLE_S)
        start = time.perf_counter()
        X_d, y_d = cupy.asarray(X), cupy.asarray(y.astype(np.float32))
        cupy.cuda.Device().synchronize()
        copies.append(time.perf_counter() - start)
        fold = X_d[:n_train]
        if name == "W1":
            fold.T @ fold
            fold.T @ y_d[:n_train]
            cupy.linalg.eigh(cupy.asarray(A))
        else:
            fold @ cupy.asarray(W).T
            fold.T @ cupy.asarray(R)
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - start)
    out["first_s"], out["again_s"] = times
    out["copy_s"], out["copy_again_s"] = copies
    out["compiled"] = len(_cache_files(os.environ["CUPY_CACHE_DIR"]) - before)
    return out


def _cache_files(folder: str) -> set[str]:
    return {p.name for p in Path(folder).iterdir() if p.suffix != ".cu"}


def child(name: str, sizes: list[int], warmup_first: bool) -> dict:
    """Run in a fresh process: time each size's search once, then again."""
    cache = os.environ["CUPY_CACHE_DIR"]
    Path(cache).mkdir(parents=True, exist_ok=True)
    trace = os.environ.get("GPUML_TRACE_COMPILES") == "1"
    if trace:  # before CuPy is imported: keep the sources, for kernel names
        os.environ["CUPY_CACHE_SAVE_CUDA_SOURCE"] = "1"
    profile = os.environ.get("GPUML_PROFILE_FIRST")
    from gpuml import config_context

    out = {"workload": name, "runs": []}
    start = time.perf_counter()  # what any CuPy program pays first
    import cupy

    cupy.cuda.Device(0).use()
    cupy.empty(1)
    cupy.cuda.Device().synchronize()
    out["startup_s"] = time.perf_counter() - start
    if warmup_first:
        import gpuml

        start = time.perf_counter()
        report = gpuml.warmup(verbose=False)
        out["warmup_s"] = time.perf_counter() - start
        out["warmup_compiled"] = report["compiled"]
    with config_context(device="gpu"):
        for n in sizes:
            search, X, y = make_workload(name, n)
            time.sleep(SETTLE_S)
            before = _cache_files(cache)
            if trace:
                from benchmarks.kernel_inventory import trace_compiles

                start = time.perf_counter()
                sites = trace_compiles(functools.partial(search.fit, X, y), Path(cache))
            elif profile:
                import cProfile
                import pstats

                sites = None
                profiler = cProfile.Profile()
                start = time.perf_counter()
                profiler.runcall(search.fit, X, y)
                with open(profile, "a") as stream:
                    stats = pstats.Stats(profiler, stream=stream)
                    stats.sort_stats("cumulative").print_stats(45)
                    stats.sort_stats("tottime").print_stats(30)
                profile = None
            else:
                sites = None
                start = time.perf_counter()
                search.fit(X, y)
            sys.modules["cupy"].cuda.Device().synchronize()
            wall = time.perf_counter() - start
            compiled = len(_cache_files(cache) - before)
            again = make_workload(name, SMALL_ROWS)[0]
            time.sleep(SETTLE_S)
            start = time.perf_counter()
            again.fit(X, y)
            sys.modules["cupy"].cuda.Device().synchronize()
            warm = time.perf_counter() - start
            out["runs"].append(
                {
                    "n": n,
                    "first_s": wall,
                    "compiled": compiled,
                    "again_s": warm,
                    "best": {k: float(v) for k, v in again.best_params_.items()},
                    "sites": sites,
                }
            )
    return out


def _spawn(name, sizes, cache, warmup_first=False, floor=False) -> dict:
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    args = [sys.executable, "-m", "benchmarks.bench_first_use", "--child", name]
    args += ["--sizes", ",".join(map(str, sizes))]
    if warmup_first:
        args.append("--warmup-first")
    if floor:
        args.append("--floor")
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(reports: list[dict], key: str) -> float:
    return float(np.median([report[key] for report in reports]))


def _listed(reports: list[dict], key: str) -> str:
    """The children's ``key`` values, in the order they ran."""
    return ", ".join(f"{report[key]:.3f}" for report in reports)


def run(quick: bool, repeat: int = 1) -> list[dict]:
    n = N_ROWS // 10 if quick else N_ROWS
    rows = []
    for name, label in WORKLOADS.items():
        workload = f"{name}: {label.format(n=n)}"
        search, X, y = make_workload(name, n, sklearn=True)
        t_sk, reference = time_once(lambda s=search, X=X, y=y: s.fit(X, y))
        rows.append(row(workload, SKLEARN, f"NumPy, n_jobs={N_JOBS}", t_sk))
        if cupy_or_none() is None:
            rows.append(row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason()))
            continue
        best = {k: float(v) for k, v in reference.best_params_.items()}
        with tempfile.TemporaryDirectory() as cache:
            cold_report = _spawn(name, [n], cache)
            warm_reports = [_spawn(name, [n], cache) for _ in range(3)]
            cold, cold_start = cold_report["runs"][0], cold_report["startup_s"]
            warms = [report["runs"][0] for report in warm_reports]
            warm, warm_start = warms[0], warm_reports[0]["startup_s"]
            sizes = _spawn(name, [SMALL_ROWS, n], cache)["runs"]
            _spawn(name, [n], cache, floor=True)  # fills the cache for CuPy's kernels
            floors = [_spawn(name, [n], cache, floor=True) for _ in range(3)]
        with tempfile.TemporaryDirectory() as cache:
            after = _spawn(name, [n], cache, warmup_first=True)
        same = "same best" if cold["best"] == best else f"best {cold['best']} != {best}"
        rows += [
            row(
                workload,
                "gpuml (GPU)",
                "fresh process, empty kernel cache",
                cold["first_s"],
                f"{cold['compiled']} compiles; {same}; start-up {cold_start:.2f} s",
            ),
            row(
                workload,
                "gpuml (GPU)",
                "fresh process, warm cache",
                _median(warms, "first_s"),
                f"median of 3 processes ({_listed(warms, 'first_s')}); "
                f"{sum(w['compiled'] for w in warms)} compiles; "
                f"start-up {warm_start:.2f} s",
            ),
            row(workload, "gpuml (GPU)", "same process, again", warm["again_s"], ""),
            row(
                workload,
                "gpuml (GPU)",
                f"warm cache, {SMALL_ROWS:,} rows then {n:,}",
                sizes[1]["first_s"],
                f"{sizes[0]['compiled']} then {sizes[1]['compiled']} compiles",
            ),
            row(
                workload,
                "gpuml (GPU)",
                "fresh process after gpuml.warmup() on an empty cache",
                after["runs"][0]["first_s"],
                f"{after['runs'][0]['compiled']} compiles; warmup "
                f"{after['warmup_s']:.1f} s, {after['warmup_compiled']} modules",
            ),
            row(
                workload,
                "CuPy alone",
                "floor: copy and library calls, fresh process, warm cache",
                _median(floors, "first_s"),
                f"median of 3 processes ({_listed(floors, 'first_s')}; of which "
                f"the copy {_listed(floors, 'copy_s')}); again in process "
                f"{floors[0]['again_s']:.3f} s (copy {floors[0]['copy_again_s']:.3f}); "
                f"{sum(f['compiled'] for f in floors)} compiles",
            ),
        ]
    return rows


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--child", required=True, choices=sorted(WORKLOADS))
    parser.add_argument("--sizes", default=str(N_ROWS))
    parser.add_argument("--warmup-first", action="store_true")
    parser.add_argument("--floor", action="store_true")
    args = parser.parse_args(argv)
    if args.floor:
        print(json.dumps(floor_child(args.child, int(args.sizes.split(",")[-1]))))
        return 0
    result = child(
        args.child, [int(s) for s in args.sizes.split(",")], args.warmup_first
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
