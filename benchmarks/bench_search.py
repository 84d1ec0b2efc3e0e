"""GridSearchCV over Ridge alphas, 400,000 x 256 float32, 5-fold KFold, R².

The workload of issue 4: ``alpha`` in ``logspace(-3, 5, 20)``, ``KFold(5)``,
``scoring="r2"``, ``refit=True``, timed end to end (``fit`` returns with the
best model refitted). Rows:

- scikit-learn's GridSearchCV(Ridge) on NumPy with ``n_jobs=16``;
- gpuml's GridSearchCV(gpuml Ridge): on the CPU, and on the GPU fed NumPy
  (the one copy to the GPU is inside the timing) and fed CuPy;
- the Pipeline variant, StandardScaler + Ridge (scikit-learn's steps vs
  gpuml's);
- a 200-alpha grid, to show how the time grows with the candidates.

Every gpuml row checks that ``best_params_`` equals scikit-learn's and
reports the largest difference of ``mean_test_score``.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    free_gpu_memory,
    no_gpu_reason,
    row,
    time_call,
    time_once,
)

N_SAMPLES, N_SAMPLES_QUICK, N_FEATURES = 400_000, 40_000, 256
N_JOBS = 16
ALPHAS = np.logspace(-3, 5, 20)
MANY_ALPHAS = np.logspace(-3, 5, 200)


def make_data(n_samples: int, n_features: int, seed: int = 0):
    """A problem whose best alpha is inside the grid (about 2e3).

    X standard normal, small true coefficients (0.02 sd) and unit noise, so
    that the ridge penalty matters: the optimum alpha is near noise variance
    over coefficient variance.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features), dtype=np.float32)
    w = np.float32(0.02) * rng.standard_normal(n_features, dtype=np.float32)
    y = X @ w + rng.standard_normal(n_samples, dtype=np.float32)
    return X, y


def _agreement(search, reference, param: str) -> str:
    ours = search.best_params_[param]
    theirs = reference.best_params_[param]
    diff = np.max(
        np.abs(
            search.cv_results_["mean_test_score"]
            - reference.cv_results_["mean_test_score"]
        )
    )
    same = "same" if ours == theirs else f"DIFFERENT ({theirs:.4g} in scikit-learn)"
    return f"best {param} {ours:.4g}, {same}; max |Δ mean_test_score| {diff:.1e}"


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    from gpuml import config_context
    from gpuml.linear_model import Ridge
    from gpuml.model_selection import GridSearchCV
    from gpuml.preprocessing import StandardScaler

    n_samples = N_SAMPLES_QUICK if quick else N_SAMPLES
    X, y = make_data(n_samples, N_FEATURES)
    shape = f"{n_samples:,}x{N_FEATURES} float32, 5-fold"
    cv = KFold(5)
    rows = []

    def sk_search(estimator, grid):
        return SkGridSearchCV(estimator, grid, cv=cv, scoring="r2", n_jobs=N_JOBS)

    def gpuml_search(estimator, grid):
        return GridSearchCV(estimator, grid, cv=cv, scoring="r2")

    cupy = cupy_or_none()
    workloads = [
        (
            f"GridSearchCV Ridge, 20 alphas, {shape}",
            SkRidge(),
            Ridge(),
            {"alpha": ALPHAS},
            "alpha",
            True,
        ),
        (
            f"Pipeline(StandardScaler, Ridge), 20 alphas, {shape}",
            make_pipeline(SkStandardScaler(), SkRidge()),
            make_pipeline(StandardScaler(), Ridge()),
            {"ridge__alpha": ALPHAS},
            "ridge__alpha",
            False,
        ),
        (
            f"GridSearchCV Ridge, 200 alphas, {shape}",
            SkRidge(),
            Ridge(),
            {"alpha": MANY_ALPHAS},
            "alpha",
            False,
        ),
    ]
    for workload, sk_est, est, grid, param, full in workloads:
        # scikit-learn once, after a warm-up on a small slice (starts the pool).
        sk_search(sk_est, grid).fit(X[:2000], y[:2000])
        t_sk, reference = time_once(lambda s=sk_est, g=grid: sk_search(s, g).fit(X, y))
        rows.append(row(workload, SKLEARN, f"NumPy, n_jobs={N_JOBS}", t_sk))

        if full:
            with config_context(device="cpu"):
                t, search = time_call(
                    lambda e=est, g=grid: gpuml_search(e, g).fit(X, y), 1
                )
            rows.append(
                row(
                    workload,
                    "gpuml (CPU)",
                    "NumPy",
                    t,
                    _agreement(search, reference, param),
                )
            )
        if cupy is None:
            rows.append(
                row(
                    workload,
                    "gpuml (GPU)",
                    "NumPy",
                    None,
                    f"skipped: {no_gpu_reason()}",
                )
            )
            continue
        with config_context(device="gpu"):
            cold, _ = time_once(lambda e=est, g=grid: gpuml_search(e, g).fit(X, y))
            t, search = time_call(
                lambda e=est, g=grid: gpuml_search(e, g).fit(X, y), repeat
            )
            notes = f"{_agreement(search, reference, param)}; first call {cold:.3f} s"
            rows.append(row(workload, "gpuml (GPU)", "NumPy, copied once", t, notes))
            if full:
                X_gpu, y_gpu = cupy.asarray(X), cupy.asarray(y)
                t, search = time_call(
                    lambda e=est, g=grid, a=X_gpu, b=y_gpu: gpuml_search(e, g).fit(
                        a, b
                    ),
                    repeat,
                )
                rows.append(
                    row(
                        workload,
                        "gpuml (GPU)",
                        "CuPy, on the GPU",
                        t,
                        _agreement(search, reference, param),
                    )
                )
                del X_gpu, y_gpu
            del search
            free_gpu_memory()
    return rows
