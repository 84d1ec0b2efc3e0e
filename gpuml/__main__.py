"""``python -m gpuml``: a hyperparameter search on synthetic data, timed.

It searches the ridge penalty of a regression problem with 5-fold
cross-validation three ways, on the same data, and prints the times and the
best alpha of each:

1. scikit-learn's ``GridSearchCV`` around scikit-learn's ``Ridge`` (all cores);
2. scikit-learn's ``GridSearchCV`` around gpuml's ``Ridge`` (swap one import:
   each fit is fast, but the search copies every fold to the device and
   scores on the host);
3. gpuml's ``GridSearchCV`` around gpuml's ``Ridge`` (swap both imports): the
   data copied to the device once, all alphas of a fold fitted from one
   factorisation and scored with one batched R² on the device.

It runs on the GPU when one is usable, else on the CPU (with a smaller
problem). ``--device cpu`` forces the CPU; ``--n-samples`` sets the size.

``--dask`` adds a fourth run: gpuml's search dispatched through a local Dask
cluster that the demo starts (``dask_cuda.LocalCUDACluster``, one worker per
GPU, when computing on the GPU; two CPU worker processes otherwise), which
listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

import numpy as np
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold

import gpuml
from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV

ALPHAS = np.logspace(-3, 5, 20)


def _timed(label, func, rows):
    start = time.perf_counter()
    best = func()
    rows.append((label, time.perf_counter() - start, best))


def _local_cluster(on_gpu: bool):
    """A Dask cluster on this machine, reachable from 127.0.0.1 only."""
    try:
        import distributed
    except ImportError:
        raise SystemExit(
            "--dask needs dask and distributed: pip install 'gpuml[dask]' (add "
            "'gpuml[dask-cuda]' for one worker per GPU)."
        ) from None
    local = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}
    if on_gpu:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            raise SystemExit(
                "--dask on the GPU needs dask-cuda (one worker per GPU): "
                "pip install 'gpuml[dask-cuda]', or run with --device cpu."
            ) from None
        return LocalCUDACluster(**local)
    workers = max(1, min(2, os.cpu_count() or 1))
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, **local
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m gpuml",
        description=(
            "A ridge-penalty search on synthetic data (20 alphas x 5 folds, "
            "R²), timed three ways: scikit-learn's search around scikit-learn's "
            "Ridge, scikit-learn's search around gpuml's Ridge, and gpuml's "
            "search around gpuml's Ridge."
        ),
    )
    parser.add_argument(
        "--device",
        choices=["auto", "gpu", "cpu"],
        default="auto",
        help=(
            "where gpuml computes: the GPU when one is usable, else the CPU "
            "(auto, the default), or forced"
        ),
    )
    parser.add_argument(
        "--n-samples",
        type=int,
        default=None,
        help="rows of the data (default: 400,000 on the GPU, 20,000 on the CPU)",
    )
    parser.add_argument(
        "--n-features",
        type=int,
        default=None,
        help="columns of the data (default: 256 on the GPU, 64 on the CPU)",
    )
    parser.add_argument(
        "--dask",
        action="store_true",
        help="also run gpuml's search through a local Dask cluster",
    )
    args = parser.parse_args(argv)
    for name in ("n_samples", "n_features"):
        value = getattr(args, name)
        if value is not None and value < (10 if name == "n_samples" else 1):
            parser.error(
                f"--{name.replace('_', '-')} must be at least "
                f"{10 if name == 'n_samples' else 1}; got {value}"
            )
    gpuml.set_config(device=args.device)
    try:
        device = gpuml.resolve_device()
    except gpuml.NoGPUError as error:
        parser.exit(2, f"python -m gpuml: {error}\n")
    on_gpu = device == "gpu"
    n_samples = args.n_samples or (400_000 if on_gpu else 20_000)
    n_features = args.n_features or (256 if on_gpu else 64)

    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, n_features), dtype=np.float32)
    # Many small effects in much noise: the best penalty is large and well
    # defined (about noise variance / coefficient variance = 1e4), so the
    # search has a real optimum rather than a flat run of near-ties.
    y = X @ (np.float32(0.01) * rng.standard_normal(n_features, dtype=np.float32))
    y += rng.standard_normal(n_samples, dtype=np.float32)
    cv = KFold(n_splits=5, shuffle=True, random_state=0)
    grid = {"alpha": ALPHAS}
    print(f"gpuml {gpuml.__version__}: computing on the {device.upper()}")
    print(
        f"data: {n_samples:,} x {n_features} float32; "
        f"{len(ALPHAS)} alphas x 5 folds, scoring R²\n"
    )

    rows = []
    _timed(
        "scikit-learn GridSearchCV(sklearn Ridge), n_jobs=-1",
        lambda: (
            SkGridSearchCV(SkRidge(), grid, cv=cv, n_jobs=-1)
            .fit(X, y)
            .best_params_["alpha"]
        ),
        rows,
    )
    # Warm up (CUDA context, kernel compilation) on a slice, untimed.
    GridSearchCV(Ridge(), grid, cv=cv).fit(X[:2000], y[:2000])
    _timed(
        "scikit-learn GridSearchCV(gpuml Ridge)",
        lambda: SkGridSearchCV(Ridge(), grid, cv=cv).fit(X, y).best_params_["alpha"],
        rows,
    )
    _timed(
        "gpuml GridSearchCV(gpuml Ridge)",
        lambda: GridSearchCV(Ridge(), grid, cv=cv).fit(X, y).best_params_["alpha"],
        rows,
    )
    with contextlib.ExitStack() as stack:
        if args.dask:
            from distributed import Client

            cluster = stack.enter_context(_local_cluster(on_gpu))
            client = stack.enter_context(Client(cluster, set_as_default=False))
            n_workers = len(client.scheduler_info()["workers"])
            print(f"Dask: {n_workers} workers; dashboard {client.dashboard_link}\n")
            # Warm up the workers (imports, CUDA contexts), untimed.
            GridSearchCV(Ridge(), grid, cv=cv, client=client).fit(X[:2000], y[:2000])
            _timed(
                f"gpuml GridSearchCV(gpuml Ridge), Dask, {n_workers} workers",
                lambda: (
                    GridSearchCV(Ridge(), grid, cv=cv, client=client)
                    .fit(X, y)
                    .best_params_["alpha"]
                ),
                rows,
            )

    baseline = rows[0][1]
    width = max(len(r[0]) for r in rows)
    print(f"{'method':<{width}}  {'time (s)':>9}  {'speed-up':>8}  best alpha")
    for label, seconds, best in rows:
        print(
            f"{label:<{width}}  {seconds:9.3f}  {baseline / seconds:7.1f}x  {best:.4g}"
        )
    agree = len({round(np.log10(r[2]), 6) for r in rows}) == 1
    print(
        "\nall methods chose the same alpha"
        if agree
        else "\nWARNING: the methods chose different alphas"
    )


if __name__ == "__main__":
    main()
