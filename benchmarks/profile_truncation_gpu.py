"""Issue 38's PCA + LogisticRegression search with the truncations' final
fits together or value by value (a diagnostic, not a benchmark).

Run on the GPU machine: ``python -m benchmarks.profile_truncation_gpu
[DIVISOR [ROUNDS [PROFILED]]]``. Times the ``pca`` workload of
:mod:`benchmarks.bench_tuned_estimators` (GridSearchCV of Pipeline(PCA,
LogisticRegression), 8 n_components x 6 C x 5 folds, 400,000 x 256 divided
by DIVISOR) in one process, ROUNDS times each way, alternating:

- ``together``: as shipped, every n_components value's candidates of a fold
  in one L-BFGS, each candidate's products over its own columns;
- ``parts``: one L-BFGS per value and fold (the path before, and the one
  the CPU takes), ``model_selection._tasks._together_on`` turned off;
- ``wide``: together, but every product over all the largest output's
  columns (``_LogisticLoss.restrict_columns`` leaving ``column_counts``
  unset: the zero coefficients' flops instead of the grouped products'
  launches).

Then the largest difference of mean test scores between the ways, and a
cProfile of one search of each way in PROFILED (comma-separated, default
``together,parts``). The first search of the process includes CUDA's start
and the kernels' compiles.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import numpy as np

from benchmarks import bench_tuned_estimators as tuned
from gpuml import config_context
from gpuml.linear_model import _logistic
from gpuml.model_selection import _tasks

_TOGETHER_ON = _tasks._together_on
_RESTRICT = _logistic._LogisticLoss.restrict_columns


def _wide(loss, n_features) -> None:
    _RESTRICT(loss, n_features)
    loss.column_counts = None


def _use(way: str) -> None:
    _tasks._together_on = (lambda xp: False) if way == "parts" else _TOGETHER_ON
    _logistic._LogisticLoss.restrict_columns = _wide if way == "wide" else _RESTRICT


def main(argv) -> None:
    import cupy

    divisor = int(argv[0]) if argv else 1
    rounds = int(argv[1]) if len(argv) > 1 else 2
    profiled = argv[2].split(",") if len(argv) > 2 else ["together", "parts"]
    _, _, factory, data = tuned.WORKLOADS["pca"]
    X, y = data(divisor)
    scores = {}
    with config_context(device="gpu"):
        for round_ in range(rounds):
            for way in ("together", "parts", "wide"):
                _use(way)
                start = time.perf_counter()
                search = factory(0, sklearn=False).fit(X, y)
                cupy.cuda.Device().synchronize()
                seconds = time.perf_counter() - start
                print(
                    f"{way} {round_} {seconds:.3f} s {search.best_params_}", flush=True
                )
                scores[way] = search.cv_results_["mean_test_score"]
        for way in ("together", "wide"):
            gap = np.abs(scores[way] - scores["parts"]).max()
            print(f"largest |mean score difference| {way}/parts: {gap:.2e}")
        for way in profiled:
            _use(way)
            profile = cProfile.Profile()
            profile.enable()
            factory(0, sklearn=False).fit(X, y)
            cupy.cuda.Device().synchronize()
            profile.disable()
            print(f"=== profile: {way}")
            pstats.Stats(profile).sort_stats("tottime").print_stats(14)
    _use("together")


if __name__ == "__main__":
    main(sys.argv[1:])
