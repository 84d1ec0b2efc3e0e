"""Where the time of a GPU GridSearchCV(LogisticRegression) goes (a diagnostic).

Run on the GPU machine: ``python -m benchmarks.profile_logistic_gpu``. Times
one batched fold (8 C values, 320,000 x 128 float32) with its L-BFGS
iterations, then prints a cProfile of one search on CuPy input.
"""

from __future__ import annotations

import cProfile
import pstats
import time

import cupy
from sklearn.model_selection import KFold

from benchmarks.bench_logistic import CS, make_data
from gpuml import config_context
from gpuml.linear_model import LogisticRegression, _optimize
from gpuml.model_selection import GridSearchCV


def main() -> None:
    X, y = make_data(400_000, 128)
    Xg, yg = cupy.asarray(X), cupy.asarray(y)
    calls = []
    real = _optimize.lbfgs

    def counting(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append(result.n_iter.copy())
        return result

    _optimize.lbfgs = counting
    import gpuml.linear_model._logistic as logistic

    logistic.lbfgs = counting
    with config_context(device="gpu"):
        search = GridSearchCV(LogisticRegression(), {"C": CS}, cv=KFold(5))
        search.fit(Xg, yg)
        calls.clear()
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        search.fit(Xg, yg)
        cupy.cuda.Device().synchronize()
        total = time.perf_counter() - start
        print(f"search from CuPy: {total:.4f} s; refit {search.refit_time_:.4f} s")
        for n_iter in calls:
            print("L-BFGS iterations per C:", n_iter.tolist())
        iterations = sum(int(n.max()) for n in calls)
        print(
            f"{iterations} batched iterations: {1e3 * total / iterations:.3f} ms each"
        )
        profile = cProfile.Profile()
        profile.enable()
        search.fit(Xg, yg)
        cupy.cuda.Device().synchronize()
        profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
