"""Ridge(alpha=1.0).fit on 2,000,000 x 256 float32: scikit-learn vs gpuml.

Rows: scikit-learn on NumPy; gpuml on the CPU; gpuml on the GPU fed NumPy
(the host-to-device copy is inside the fit) and fed CuPy (data already on the
GPU); and the copy of X alone, through ``gpuml._array.host_to_device``
(pinned, chunked, threaded) and through plain ``cupy.asarray``.
"""

from __future__ import annotations

import os

import numpy as np
from sklearn.linear_model import Ridge as SkRidge

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    blas_threads,
    cupy_or_none,
    free_gpu_memory,
    gb_per_s,
    no_gpu_reason,
    rel_error,
    row,
    time_call,
)

N_SAMPLES, N_SAMPLES_QUICK, N_FEATURES = 2_000_000, 200_000, 256
ALPHA = 1.0


def make_data(n_samples: int, n_features: int, seed: int = 0):
    """X standard normal, y = X @ w + noise; both float32."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features), dtype=np.float32)
    w = rng.standard_normal(n_features, dtype=np.float32)
    y = X @ w + np.float32(0.1) * rng.standard_normal(n_samples, dtype=np.float32)
    return X, y


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    n_samples = N_SAMPLES_QUICK if quick else N_SAMPLES
    X, y = make_data(n_samples, N_FEATURES)
    fit = f"Ridge.fit {n_samples:,}x{N_FEATURES} float32"
    copy = f"copy X to GPU ({X.nbytes / 1e9:.2f} GB)"

    t_sk, sk_model = time_call(lambda: SkRidge(alpha=ALPHA).fit(X, y), repeat)
    coef = sk_model.coef_
    solver = getattr(sk_model, "solver_", sk_model.solver)
    notes = f"solver {solver}; threads: {blas_threads()} (cpu_count {os.cpu_count()})"
    rows = [row(fit, SKLEARN, "NumPy", t_sk, notes)]

    try:
        from gpuml import config_context
        from gpuml.linear_model import Ridge
    except ImportError as exc:
        reason = f"skipped: {type(exc).__name__}: {exc}"
        return [*rows, row(fit, "gpuml", "NumPy", None, reason)]

    def gpuml_fit(X, y):
        return lambda: Ridge(alpha=ALPHA).fit(X, y)

    def check(model) -> str:
        return f"coef_ rel. error vs scikit-learn {rel_error(model.coef_, coef):.1e}"

    with config_context(device="cpu"):
        t, model = time_call(gpuml_fit(X, y), repeat)
    rows.append(row(fit, "gpuml (CPU)", "NumPy", t, check(model)))

    cupy = cupy_or_none()
    if cupy is None:
        skipped = f"skipped: no GPU ({no_gpu_reason()})"
        return [
            *rows,
            row(fit, "gpuml (GPU)", "NumPy, copied in the fit", None, skipped),
            row(fit, "gpuml (GPU)", "CuPy, on the GPU", None, skipped),
            row(copy, "gpuml host_to_device", "NumPy", None, skipped, compare=False),
            row(copy, "cupy.asarray", "NumPy", None, skipped, compare=False),
        ]

    from gpuml._array import host_to_device

    with config_context(device="gpu"):
        t_np, model = time_call(gpuml_fit(X, y), repeat)
        notes = check(model)
        rows.append(row(fit, "gpuml (GPU)", "NumPy, copied in the fit", t_np, notes))
        X_gpu, y_gpu = cupy.asarray(X), cupy.asarray(y)
        t, model = time_call(gpuml_fit(X_gpu, y_gpu), repeat)
        rows.append(row(fit, "gpuml (GPU)", "CuPy, on the GPU", t, check(model)))
        del X_gpu, y_gpu, model
        free_gpu_memory()

        t, _ = time_call(lambda: host_to_device(X), repeat)
        share = f"{t / t_np:.0%} of the NumPy-input GPU fit"
        notes = f"{gb_per_s(X.nbytes, t)}; {share}"
        rows.append(row(copy, "gpuml host_to_device", "NumPy", t, notes, compare=False))
        free_gpu_memory()
        t, _ = time_call(lambda: cupy.asarray(X), repeat)
        notes = gb_per_s(X.nbytes, t)
        rows.append(row(copy, "cupy.asarray", "NumPy", t, notes, compare=False))
    return rows
