"""StandardScaler().fit_transform on 2,000,000 x 256 float32: scikit-learn vs gpuml.

Rows: scikit-learn on NumPy; gpuml on the CPU; gpuml on the GPU fed NumPy (X
is copied to the GPU and the result copied back, inside the call) and fed
CuPy (everything stays on the GPU).
"""

from __future__ import annotations

import numpy as np
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    free_gpu_memory,
    no_gpu_reason,
    row,
    time_call,
)
from benchmarks.bench_ridge_fit import N_FEATURES, N_SAMPLES, N_SAMPLES_QUICK


def max_abs_error(result, expected: np.ndarray) -> str:
    from gpuml._array import to_host

    error = float(np.max(np.abs(to_host(result) - expected)))
    return f"max abs. error vs scikit-learn {error:.1e}"


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    n_samples = N_SAMPLES_QUICK if quick else N_SAMPLES
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, N_FEATURES), dtype=np.float32)
    X *= rng.uniform(0.5, 10.0, N_FEATURES).astype(np.float32)
    X += rng.uniform(-5.0, 5.0, N_FEATURES).astype(np.float32)
    work = f"StandardScaler.fit_transform {n_samples:,}x{N_FEATURES} float32"

    t, expected = time_call(lambda: SkStandardScaler().fit_transform(X), repeat)
    rows = [row(work, SKLEARN, "NumPy", t)]

    try:
        from gpuml import config_context
        from gpuml.preprocessing import StandardScaler
    except ImportError as exc:
        reason = f"skipped: {type(exc).__name__}: {exc}"
        return [*rows, row(work, "gpuml", "NumPy", None, reason)]

    def fit_transform(X):
        return lambda: StandardScaler().fit_transform(X)

    with config_context(device="cpu"):
        t, out = time_call(fit_transform(X), repeat)
    rows.append(row(work, "gpuml (CPU)", "NumPy", t, max_abs_error(out, expected)))
    del out

    cupy = cupy_or_none()
    if cupy is None:
        skipped = f"skipped: no GPU ({no_gpu_reason()})"
        return [
            *rows,
            row(work, "gpuml (GPU)", "NumPy, copied in and out", None, skipped),
            row(work, "gpuml (GPU)", "CuPy, on the GPU", None, skipped),
        ]

    with config_context(device="gpu"):
        t, out = time_call(fit_transform(X), repeat)
        notes = max_abs_error(out, expected)
        rows.append(row(work, "gpuml (GPU)", "NumPy, copied in and out", t, notes))
        del out
        free_gpu_memory()
        t, out = time_call(fit_transform(cupy.asarray(X)), repeat)
        notes = max_abs_error(out, expected)
        rows.append(row(work, "gpuml (GPU)", "CuPy, on the GPU", t, notes))
    return rows
