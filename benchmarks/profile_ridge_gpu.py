"""Stage-by-stage GPU times of Ridge.fit on CuPy input (a diagnostic, not a benchmark).

Run on the GPU machine: ``python -m benchmarks.profile_ridge_gpu [n_samples]``.
Times are cupyx.profiler.benchmark's GPU medians, in milliseconds.
"""

from __future__ import annotations

import sys

import cupy
import numpy as np
from cupyx.profiler import benchmark

from gpuml import config_context
from gpuml._linalg import cho_solve
from gpuml._reductions import column_mean
from gpuml.linear_model import Ridge


def _ms(func, *args, n_repeat=20):
    result = benchmark(func, args, n_repeat=n_repeat, n_warmup=3)
    return float(np.median(result.gpu_times)) * 1e3, float(
        np.median(result.cpu_times)
    ) * 1e3


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    p = 256
    X = cupy.random.standard_normal((n, p), dtype=cupy.float32)
    y = X @ cupy.random.standard_normal(p, dtype=cupy.float32)
    mu = X.mean(axis=0)
    Xc = X - mu
    G = Xc.T @ Xc
    stages = {
        "finite check (sum)": lambda: bool(cupy.isfinite(X.sum())),
        "column means (X.mean)": lambda: X.mean(axis=0),
        "column means (kernel)": lambda: column_mean(X, xp=cupy),
        "centre (copy)": lambda: X - mu,
        "X.T @ X (one GEMM)": lambda: Xc.T @ Xc,
        "cholesky solve 256": lambda: cho_solve(G.copy(), G[:, :1].copy(), cupy),
    }
    with config_context(device="gpu"):
        stages["Ridge().fit (whole)"] = lambda: Ridge().fit(X, y)
        for name, func in stages.items():
            gpu, cpu = _ms(func)
            print(f"{name:<24} gpu {gpu:8.3f} ms   wall {cpu:8.3f} ms")


if __name__ == "__main__":
    main()
