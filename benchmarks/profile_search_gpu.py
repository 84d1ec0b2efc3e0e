"""Where the time of a GPU GridSearchCV(Ridge) goes (a diagnostic, not a benchmark).

Run on the GPU machine: ``python -m benchmarks.profile_search_gpu``. Prints
the GPU/CPU medians of the linear-algebra pieces a batched Ridge fold uses,
then a cProfile of one search on CuPy input (400,000 x 256 float32, 20
alphas, 5-fold KFold).
"""

from __future__ import annotations

import cProfile
import pstats
import time

import cupy
import numpy as np
from cupyx.profiler import benchmark
from sklearn.model_selection import KFold

from benchmarks.bench_search import ALPHAS, make_data
from gpuml import config_context
from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV


def _ms(func, *args, n_repeat=20):
    result = benchmark(func, args, n_repeat=n_repeat, n_warmup=3)
    gpu = float(np.median(result.gpu_times)) * 1e3
    cpu = float(np.median(result.cpu_times)) * 1e3
    return f"gpu {gpu:8.3f} ms  cpu {cpu:8.3f} ms"


def main() -> None:
    X, y = make_data(400_000, 256)
    p = X.shape[1]
    Xg, yg = cupy.asarray(X), cupy.asarray(y)
    G = Xg[:80_000].T @ Xg[:80_000]
    B = cupy.asarray(np.random.default_rng(0).standard_normal((p, 1), np.float32))
    stacked = cupy.stack([G] * 5)
    shifted = cupy.stack([G + a * cupy.eye(p, dtype=G.dtype) for a in ALPHAS])
    print("eigh 256 float32          ", _ms(cupy.linalg.eigh, G))
    print("eigh 256 float64          ", _ms(cupy.linalg.eigh, G.astype(cupy.float64)))
    print("eigh 5x256 float32 stacked", _ms(cupy.linalg.eigh, stacked))
    print("cholesky 20x256 stacked   ", _ms(cupy.linalg.cholesky, shifted))
    print(
        "solve 20x256 stacked      ",
        _ms(cupy.linalg.solve, shifted, cupy.stack([B] * 20)),
    )
    print("Gram 400k x 256           ", _ms(lambda: Xg.T @ Xg))
    print("gather 80k rows           ", _ms(lambda: Xg[cupy.arange(80_000)]))

    def search(X, y):
        return GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=KFold(5)).fit(X, y)

    with config_context(device="gpu"):
        search(Xg, yg)
        for label, args in (("CuPy", (Xg, yg)), ("NumPy", (X, y))):
            cupy.cuda.Device().synchronize()
            start = time.perf_counter()
            s = search(*args)
            cupy.cuda.Device().synchronize()
            print(
                f"search from {label}: {time.perf_counter() - start:.4f} s, "
                f"refit {s.refit_time_:.4f} s"
            )
        profile = cProfile.Profile()
        profile.enable()
        search(Xg, yg)
        cupy.cuda.Device().synchronize()
        profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
