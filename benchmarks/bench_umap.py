"""UMAP on the GPU: gpuml against umap-learn, speed and quality.

Datasets of issue 16:

- ``classification``: ``make_classification(60_000, 64, n_informative=20,
  n_classes=10, n_clusters_per_class=1, random_state=0)``, float32;
- ``digits``: scikit-learn's ``load_digits`` (1,797 x 64);
- ``blobs``: ``make_blobs(200_000, 32, centers=20, random_state=0)``,
  float32;

and 3-D manifolds of 100,000 points (issue 36), float32: ``swiss``
(``make_swiss_roll(noise=0.05, random_state=0)``), ``scurve``
(``make_s_curve``, the same), ``sphere`` (the unit sphere, Gaussian
directions) and ``torus`` (radii 2 and 1, uniform angles), both seeded 0.

For each: gpuml's ``UMAP(random_state=0).fit_transform`` from the NumPy
array (the copy to the device included), first call in this process and
warm (median of 3), and umap-learn's ``UMAP()`` (default settings, its
parallel mode) once; trustworthiness (k=15) of both embeddings, on a
5,000-point sample (the same sample for both; all points for the digits),
computed with ``gpuml.metrics.trustworthiness`` on the device.

``--scaling``: instead, gpuml alone on ``make_classification(n, 64, ...)``
for n from 10,000 to 1,000,000: time and the memory pool's peak.
``--first-use``: instead, the 60,000-point fit in fresh processes, with an
empty CuPy kernel cache, then with the cache it filled.

``python -m benchmarks.bench_umap [--datasets a,b] [--no-umap-learn]
[--scaling] [--first-use]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

MANIFOLDS = ("swiss", "scurve", "sphere", "torus")


def manifold(name: str, n: int = 100_000):
    """A 3-D manifold of ``n`` points (float32) and its first coordinate
    along the manifold (the labels' stand-in)."""
    from sklearn.datasets import make_s_curve, make_swiss_roll

    rng = np.random.default_rng(0)
    if name == "swiss":
        X, t = make_swiss_roll(n, noise=0.05, random_state=0)
    elif name == "scurve":
        X, t = make_s_curve(n, noise=0.05, random_state=0)
    elif name == "sphere":
        X = rng.normal(size=(n, 3))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        t = X[:, 2]
    else:
        u, v = rng.uniform(0, 2 * np.pi, (2, n))
        X = np.c_[(2 + np.cos(v)) * np.cos(u), (2 + np.cos(v)) * np.sin(u), np.sin(v)]
        t = u
    return X.astype(np.float32), t


def dataset(name: str, n: int | None = None):
    from sklearn.datasets import load_digits, make_blobs, make_classification

    if name in MANIFOLDS:
        return manifold(name, n or 100_000)
    if name == "classification":
        X, y = make_classification(
            n or 60_000,
            64,
            n_informative=20,
            n_classes=10,
            n_clusters_per_class=1,
            random_state=0,
        )
    elif name == "digits":
        X, y = load_digits(return_X_y=True)
    else:
        X, y = make_blobs(n or 200_000, 32, centers=20, random_state=0)
    return X.astype(np.float32), y


def _sync():
    import cupy

    cupy.cuda.Device().synchronize()


def time_gpuml(X, **params):
    from gpuml import config_context
    from gpuml.manifold import UMAP

    with config_context(device="gpu"):
        start = time.perf_counter()
        E = UMAP(random_state=0, **params).fit_transform(X)
        _sync()
    return time.perf_counter() - start, E


def quality(X, E, sample: int = 5000) -> float:
    import cupy

    from gpuml.metrics import trustworthiness

    idx = np.arange(X.shape[0])
    if X.shape[0] > sample:
        idx = np.random.default_rng(0).choice(X.shape[0], sample, replace=False)
    return trustworthiness(cupy.asarray(X[idx]), cupy.asarray(E[idx]), n_neighbors=15)


def compare(names: list[str], run_umap_learn: bool) -> None:
    for name in names:
        X, _ = dataset(name)
        first, _ = time_gpuml(X)
        warm = []
        for _ in range(3):
            seconds, E = time_gpuml(X)
            warm.append(seconds)
        row = {
            "dataset": name,
            "shape": list(X.shape),
            "gpuml_first": round(first, 3),
            "gpuml_warm_median": round(float(np.median(warm)), 3),
            "gpuml_warm": [round(w, 3) for w in warm],
            "gpuml_trustworthiness": round(quality(X, E), 4),
        }
        if name == "classification":  # where the warm time goes
            time_gpuml(X, verbose=True)
        if run_umap_learn:
            import umap

            start = time.perf_counter()
            theirs = umap.UMAP().fit_transform(X)
            row["umap_learn"] = round(time.perf_counter() - start, 2)
            row["umap_learn_trustworthiness"] = round(quality(X, theirs), 4)
            row["ratio"] = round(row["umap_learn"] / row["gpuml_warm_median"], 1)
        print(json.dumps(row), flush=True)


def scaling() -> None:
    import cupy

    pool = cupy.get_default_memory_pool()
    time_gpuml(dataset("classification", 2_000)[0])  # the process's first fit
    for n in (10_000, 30_000, 100_000, 300_000, 1_000_000):
        X, _ = dataset("classification", n)
        pool.free_all_blocks()
        seconds, E = time_gpuml(X)
        peak = pool.total_bytes()
        row = {
            "n": n,
            "seconds": round(seconds, 3),
            "pool_peak_gib": round(peak / 2**30, 2),
        }
        row["trustworthiness_5000"] = round(quality(X, E), 4)
        print(json.dumps(row), flush=True)


def child() -> None:
    X, _ = dataset("classification")
    import cupy

    cupy.cuda.Device().synchronize()  # CUDA context, as any CuPy program
    first, _ = time_gpuml(X)
    again, _ = time_gpuml(X)
    print(json.dumps({"first": round(first, 3), "again": round(again, 3)}))


def first_use() -> None:
    cache = tempfile.mkdtemp(prefix="gpuml-umap-cache-")
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    command = [sys.executable, "-m", "benchmarks.bench_umap", "--child"]
    for label in ("empty cache", "warm cache", "warm cache"):
        out = subprocess.run(
            command, env=env, capture_output=True, text=True, check=True
        )
        print(label + ":", out.stdout.strip().splitlines()[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="classification,digits,blobs")
    parser.add_argument("--no-umap-learn", action="store_true")
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--first-use", action="store_true")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        return child()
    if args.first_use:
        return first_use()
    if args.scaling:
        return scaling()
    compare(args.datasets.split(","), not args.no_umap_learn)


if __name__ == "__main__":
    main()
