"""A grid too large for one batch: 10,000 alphas, 5-fold, on 200,000 x 10.

Issue 33's memory case: the stacked predictions of one batch are 10,000 x
40,000 x 8 bytes = 3.2 GB per fold (float64 data), so the search sizes its
batches against half the memory left (see ``model_selection/_batch.py``).
Rows: gpuml on the GPU (fed NumPy), with the number of ``_fit_batch`` calls,
their sizes and the device memory pool's peak; gpuml on the CPU with the
batch sizes and the process's peak RSS growth. scikit-learn's own search
takes tens of minutes here (about 1,650 s on 2 cores, estimated from 1,000
alphas: see RESULTS.md), so it is timed on 1,000 alphas only with
``--repeat`` ignored (one call) and scaled, in the notes.
"""

from __future__ import annotations

import resource

import numpy as np

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    no_gpu_reason,
    row,
    time_once,
)

N_SAMPLES, N_FEATURES, N_ALPHAS, N_SKLEARN_ALPHAS = 200_000, 10, 10_000, 1_000


def make_data(n_samples: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, N_FEATURES))
    y = X @ rng.standard_normal(N_FEATURES) + rng.standard_normal(n_samples)
    return X, y


def _counted_search(n_alphas: int, calls: list):
    """gpuml's search over a Ridge that records each batch's size."""
    from gpuml.linear_model import Ridge
    from gpuml.model_selection import GridSearchCV

    class CountingRidge(Ridge):
        def _fit_batch(self, X, y, param_sets, **kwargs):
            calls.append(len(param_sets))
            return super()._fit_batch(X, y, param_sets, **kwargs)

    grid = {"alpha": np.logspace(-5, 5, n_alphas)}
    return GridSearchCV(CountingRidge(), grid, cv=5)


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    from gpuml import config_context

    n = N_SAMPLES // 10 if quick else N_SAMPLES
    X, y = make_data(n)
    workload = f"GridSearchCV Ridge, {N_ALPHAS:,} alphas x 5 folds, {n:,}x10 float64"
    rows = []

    cupy = cupy_or_none()
    if cupy is None:
        rows.append(row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason()))
    else:
        with config_context(device="gpu"):
            _counted_search(100, []).fit(X[: n // 10], y[: n // 10])  # warm-up
            calls: list[int] = []
            pool = cupy.get_default_memory_pool()
            pool.free_all_blocks()
            t, search = time_once(lambda: _counted_search(N_ALPHAS, calls).fit(X, y))
            total = cupy.cuda.Device().mem_info[1]
            notes = (
                f"{len(calls)} batches of {sorted(set(calls))} candidates; pool "
                f"holds {pool.total_bytes() / 2**30:.1f} GiB after; device "
                f"{total / 2**30:.0f} GiB; best alpha "
                f"{search.best_params_['alpha']:.4g}"
            )
            rows.append(row(workload, "gpuml (GPU)", "NumPy", t, notes))

    with config_context(device="cpu"):
        calls = []
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t, search = time_once(lambda: _counted_search(N_ALPHAS, calls).fit(X, y))
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        notes = (
            f"{len(calls)} batches of {sorted(set(calls))} candidates; peak RSS "
            f"grew {grown / 2**20:.2f} GiB; best alpha "
            f"{search.best_params_['alpha']:.4g}"
        )
        rows.append(row(workload, "gpuml (CPU)", "NumPy", t, notes))

    from sklearn.linear_model import Ridge as SkRidge
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    grid = {"alpha": np.logspace(-5, 5, N_SKLEARN_ALPHAS)}
    sk = SkGridSearchCV(SkRidge(), grid, cv=5, n_jobs=-1)
    t, _ = time_once(lambda: sk.fit(X, y))
    notes = (
        f"timed on {N_SKLEARN_ALPHAS:,} alphas: {t:.1f} s; scaled x"
        f"{N_ALPHAS // N_SKLEARN_ALPHAS} for the table"
    )
    rows.append(row(workload, SKLEARN, "NumPy, n_jobs=-1", t * 10, notes))
    return rows
