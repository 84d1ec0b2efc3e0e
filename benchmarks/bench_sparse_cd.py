"""Lasso and LassoCV on wide sparse data on the GPU against scikit-learn.

A CSR matrix of 20,000 x 10,000 (0.5 % stored, float64), as a cupyx CSR
matrix for gpuml and a SciPy one for scikit-learn (``n_jobs=16`` for both
LassoCVs). More than 2,048 features: gpuml's coordinate descent works on the
residual form there (commit c9674af moved it to scikit-learn's compiled
sparse solver on a host copy). Each row: the minimum of ``--repeat`` calls
after a first one, with the largest coefficient difference from
scikit-learn's relative to its largest coefficient.

Against an earlier tree of gpuml (on the same machine, in the same call)::

    PYTHONPATH=<tree>:<site> python benchmarks/bench_sparse_cd.py --label <tree>

(run as a file, so that the ``gpuml`` imported is the one on PYTHONPATH).
``--only-gpuml`` leaves scikit-learn out; ``--rows-divisor D`` takes fewer
rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp


def make_data(n: int, p: int = 10_000, density: float = 0.005, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, format="csr", random_state=rng)
    X.data = rng.standard_normal(X.nnz)
    w = rng.standard_normal(p) * (rng.random(p) < 0.05)
    y = X @ w + 0.1 * rng.standard_normal(n)
    return X, y


def timed(fit, repeat: int):
    import cupy

    times, model = [], None
    for _ in range(repeat + 1):
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        model = fit()
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - start)
    return times[0], min(times[1:]), model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="this tree")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rows-divisor", type=int, default=1)
    parser.add_argument("--only-gpuml", action="store_true")
    args = parser.parse_args()

    import cupyx.scipy.sparse as cusp
    import sklearn.linear_model as sk

    import gpuml
    import gpuml.linear_model as gl

    X, y = make_data(20_000 // args.rows_divisor)
    X_gpu = cusp.csr_matrix(X)
    import cupy

    y_gpu = cupy.asarray(y)
    workloads = [
        ("Lasso(alpha=0.01)", {"alpha": 0.01}, "Lasso"),
        ("LassoCV(alphas=10, cv=3)", {"alphas": 10, "cv": 3, "n_jobs": 16}, "LassoCV"),
    ]
    print(f"gpuml from {gpuml.__file__} ({args.label}); X {X.shape}, {X.nnz:,} stored")
    for name, params, cls in workloads:
        reference = None
        if not args.only_gpuml:
            start = time.perf_counter()
            reference = getattr(sk, cls)(**params).fit(X, y)
            sk_time = time.perf_counter() - start
            print(f"{name:28s} scikit-learn  {sk_time:8.3f} s (one call)")
        first, best, model = timed(
            lambda cls=cls, params=params: getattr(gl, cls)(**params).fit(X_gpu, y_gpu),
            args.repeat,
        )
        note = ""
        if reference is not None:
            coef = cupy.asnumpy(cupy.asarray(model.coef_))
            scale = np.abs(reference.coef_).max()
            note = f"coef diff {np.abs(coef - reference.coef_).max() / scale:.1e}"
            if cls == "LassoCV":
                note += f", alpha {float(model.alpha_):.4g} vs {reference.alpha_:.4g}"
        print(f"{name:28s} gpuml (GPU)   {best:8.3f} s (first {first:.3f} s) {note}")


if __name__ == "__main__":
    main()
