"""Warm search times of two gpuml source trees, measured in the same call.

Usage (on the GPU machine, from the repository root)::

    git archive BASE_COMMIT | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python -m benchmarks.compare_trees /tmp/base [--workloads W1 W2] [--rounds 2]

Every claim of speed is made against the previous commit on the same machine
in the same call (a warm search once got 1.5x slower unnoticed). For each
workload, each tree runs in its own fresh process, ``--rounds`` times,
alternating base and this tree, so both meet the same machine state; a
process makes the data (the same seed in both trees, with NumPy only, so
nothing of either tree's benchmarks is involved), runs the search once to
warm up, then times ``--repeat`` more searches (GPU synchronised). The
table gives each tree's minimum and median over all its timed searches and
the ratio of minima (this tree / base: above 1 is slower).

Workloads (data as NumPy float32):

- ``W1``: ``GridSearchCV(Ridge())``, 20 alphas, ``KFold(5)``, r2, 400,000 x 256;
- ``W2``: ``GridSearchCV(LogisticRegression())``, 8 C, ``KFold(5)``,
  accuracy, 400,000 x 128, binary;
- ``R64``: Ridge, 30 alphas, 5-fold, 1,000,000 x 64;
- ``R1024``: Ridge, 12 alphas, 5-fold, 100,000 x 1,024;
- ``L10``: LogisticRegression, 6 C, 5-fold, 200,000 x 256, 10 classes;
- ``L6T``: LogisticRegression(tol=1e-6), 16 C, 5-fold, 600,000 x 384, 6
  classes (bench_dask_balance's search, in process: one batched group whose
  candidates need different numbers of iterations).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# (estimator, rows, columns, classes, candidates, LogisticRegression's tol)
WORKLOADS = {
    "W1": ("ridge", 400_000, 256, 1, 20, 1e-4),
    "W2": ("logistic", 400_000, 128, 2, 8, 1e-4),
    "R64": ("ridge", 1_000_000, 64, 1, 30, 1e-4),
    "R1024": ("ridge", 100_000, 1_024, 1, 12, 1e-4),
    "L10": ("logistic", 200_000, 256, 10, 6, 1e-4),
    "L6T": ("logistic", 600_000, 384, 6, 16, 1e-6),
}

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import gpuml
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import GridSearchCV, KFold

kind, n, p, n_classes, k, tol, repeat = sys.argv[2:9]
n, p, n_classes, k, repeat = int(n), int(p), int(n_classes), int(k), int(repeat)
rng = np.random.default_rng(0)
X = rng.standard_normal((n, p), dtype=np.float32)
if kind == "ridge":
    w = np.float32(0.02) * rng.standard_normal(p, dtype=np.float32)
    y = X @ w + rng.standard_normal(n, dtype=np.float32)
    search = GridSearchCV(Ridge(), {"alpha": np.logspace(-3, 5, k)}, cv=KFold(5),
                          scoring="r2")
else:
    W = rng.standard_normal((p, n_classes)).astype(np.float32) * (3 / np.sqrt(p))
    logits = X @ W if n_classes > 2 else np.c_[np.zeros(n, np.float32), X @ W[:, 0]]
    noisy = logits + rng.gumbel(size=logits.shape).astype(np.float32)
    y = noisy.argmax(axis=1).astype(np.int64)
    search = GridSearchCV(LogisticRegression(tol=float(tol)),
                          {"C": np.logspace(-3, 2, k)}, cv=KFold(5),
                          scoring="accuracy")

def sync():
    if "cupy" in sys.modules:
        sys.modules["cupy"].cuda.Device().synchronize()

search.fit(X, y)
sync()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    search.fit(X, y)
    sync()
    times.append(time.perf_counter() - start)
print(json.dumps({"file": gpuml.__file__, "times": times,
                  "best": {k: float(v) for k, v in search.best_params_.items()}}))
"""


def run_child(tree: Path, spec: tuple, repeat: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # Only the tree under test, then whatever else the environment provides
    # (the wheels of .gpu/env.sh), never this checkout's gpuml.
    rest = [
        p
        for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if p and Path(p).resolve() != HERE
    ]
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *rest])
    args = [sys.executable, "-c", CHILD, str(tree), *map(str, spec), str(repeat)]
    done = subprocess.run(
        args, env=env, capture_output=True, text=True, check=False, cwd="/"
    )
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: {done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["file"].startswith(str(tree)):
        raise RuntimeError(f"imported {result['file']}, not the tree {tree}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare_trees")
    parser.add_argument("base", type=Path, help="the other source tree (a checkout)")
    parser.add_argument(
        "--workloads", nargs="+", default=["W1", "W2"], choices=sorted(WORKLOADS)
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="100x fewer rows, for a smoke test"
    )
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "this": HERE}
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: python -m benchmarks.compare_trees {shown}")
    print("| workload | base min / median (s) | this min / median (s) | this / base |")
    print("|---|---|---|---|")
    for name in args.workloads:
        times: dict[str, list[float]] = {"base": [], "this": []}
        best = {}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                kind, n, *rest = WORKLOADS[name]
                spec = (kind, n // 100 if args.quick else n, *rest)
                result = run_child(tree, spec, args.repeat)
                times[label] += result["times"]
                best[label] = result["best"]
        if best["base"] != best["this"]:
            print(f"note: {name} best parameters differ: {best}")
        b, t = times["base"], times["this"]
        print(
            f"| {name} | {min(b):.4f} / {statistics.median(b):.4f} "
            f"| {min(t):.4f} / {statistics.median(t):.4f} | {min(t) / min(b):.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
