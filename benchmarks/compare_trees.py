"""The performance-regression guard: this tree's searches against other
commits, or a stored run, on the same machine in the same call.

Usage (on the GPU machine, from the repository root)::

    python -m benchmarks.run --compare REF [REF ...] [options]
    python -m benchmarks.compare_trees REF [REF ...] [options]      # the same

``REF`` is a source tree (a folder holding ``gpuml/``, e.g. made with
``git archive COMMIT | tar -x -C DIR``), a commit (archived here into a
temporary folder; needs this checkout's ``.git``), or a JSON file written
by an earlier ``--save`` on the same kind of GPU (``stored`` names the
reference of this machine's GPU in ``benchmarks/reference/``). Options:

- ``--workloads W1 W2 ...`` (default: all below), ``--rounds N`` (default 2),
  ``--repeat N`` (timed searches per process, default 3), ``--quick`` (100x
  fewer rows, a smoke test);
- ``--save PATH`` writes this tree's figures as JSON (``--label`` names the
  commit in it), to be a later run's ``REF``.

Every claim of speed is made against an earlier commit on the same machine
in the same call (a warm search once got 1.5x slower unnoticed). Each tree
runs each workload in fresh processes, ``--rounds`` times, the trees
alternating so that all meet the same machine state. A process imports CuPy
and creates the CUDA context (not timed: what any CuPy program pays first),
makes the data with NumPy only (the same seed for every tree, so nothing of
either tree's benchmarks is involved), waits for the BLAS threads that made
them to idle, times its first search (the *first use*), then ``--repeat``
more (*warm*); the GPU is synchronised before each clock stops.

For W1 and W2 (the first-use workloads of ``bench_first_use``) each round
runs two processes per tree: the first on a new, empty kernel cache
(``CUPY_CACHE_DIR``: a new machine), the second on the cache the first
filled (a later process). Their first searches are the rows "first, empty
cache" and "first, warm cache"; the other workloads use the environment's
cache and report warm figures only.

The report gives, for each workload and measure, each tree's minimum (and
median) and the ratio of minima against each reference (above 1: this tree
is slower); a warm ratio above :data:`TOLERANCE` is flagged ``SLOWER``.

Workloads (data as NumPy float32, ``KFold(5)``):

- ``W1``: ``GridSearchCV(Ridge())``, 20 alphas, r2, 400,000 x 256;
- ``W2``: ``GridSearchCV(LogisticRegression())``, 8 C, accuracy,
  400,000 x 128, binary;
- ``R64``: Ridge, 30 alphas, 1,000,000 x 64;
- ``R1024``: Ridge, 12 alphas, 100,000 x 1,024;
- ``L10``: LogisticRegression, 6 C, 200,000 x 256, 10 classes;
- ``L6T``: LogisticRegression(tol=1e-6), 16 C, 600,000 x 384, 6 classes
  (bench_dask_balance's search, in process: one batched group whose
  candidates need different numbers of iterations).

R64, R1024 and L10 are the searches of issue 35's regression (measured
against commit acc3ae6).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
#: A warm ratio above this is flagged (warm minima of unchanged code differ
#: by a few percent from call to call on one GPU).
TOLERANCE = 1.05

# (estimator, rows, columns, classes, candidates, LogisticRegression's tol)
WORKLOADS = {
    "W1": ("ridge", 400_000, 256, 1, 20, 1e-4),
    "W2": ("logistic", 400_000, 128, 2, 8, 1e-4),
    "R64": ("ridge", 1_000_000, 64, 1, 30, 1e-4),
    "R1024": ("ridge", 100_000, 1_024, 1, 12, 1e-4),
    "L10": ("logistic", 200_000, 256, 10, 6, 1e-4),
    "L6T": ("logistic", 600_000, 384, 6, 16, 1e-6),
}
FIRST_USE = ("W1", "W2")
MEASURES = {
    "warm": "warm",
    "first_cold": "first, empty cache",
    "first_warm": "first, warm cache",
}

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import cupy
cupy.cuda.Device(0).use()
cupy.empty(1)
cupy.cuda.Device().synchronize()
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

def timed():
    time.sleep(0.3)  # the BLAS threads that made the data go idle
    start = time.perf_counter()
    search.fit(X, y)
    cupy.cuda.Device().synchronize()
    return time.perf_counter() - start

first = timed()
times = [timed() for _ in range(repeat)]
print(json.dumps({"file": gpuml.__file__, "first": first, "times": times,
                  "best": {k: float(v) for k, v in search.best_params_.items()}}))
"""


def gpu_name() -> str:
    """The name of GPU 0, as the driver reports it (the machine kind)."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:  # no driver tools on this machine
        return "no GPU"
    return done.stdout.strip() or "no GPU"


def reference_path(name: str) -> Path:
    """The stored reference of a GPU of this name."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return REFERENCE_DIR / f"{slug}.json"


def run_child(tree: Path, spec: tuple, repeat: int, cache: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # Only the tree under test, then whatever else the environment provides
    # (the wheels of .gpu/env.sh), never this checkout's gpuml.
    rest = [
        p
        for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if p and Path(p).resolve() != HERE
    ]
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *rest])
    if cache is not None:
        env["CUPY_CACHE_DIR"] = cache
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


def measure(tree: Path, name: str, quick: bool, repeat: int) -> dict[str, list]:
    """One round of workload ``name`` for ``tree``: its measures' samples."""
    kind, n, *rest = WORKLOADS[name]
    spec = (kind, n // 100 if quick else n, *rest)
    if name not in FIRST_USE:
        result = run_child(tree, spec, repeat, None)
        return {"warm": result["times"], "best": [result["best"]]}
    with tempfile.TemporaryDirectory() as cache:
        cold = run_child(tree, spec, repeat, cache)
        warm = run_child(tree, spec, repeat, cache)
    return {
        "warm": cold["times"] + warm["times"],
        "first_cold": [cold["first"]],
        "first_warm": [warm["first"]],
        "best": [cold["best"], warm["best"]],
    }


def resolve(ref: str, scratch: Path) -> Path | dict:
    """A reference: a source tree's folder, or a stored run's contents."""
    if ref == "stored":
        path = reference_path(gpu_name())
        if not path.exists():
            raise SystemExit(
                f"no stored reference for this GPU ({gpu_name()}): {path} is "
                "missing; make one with --save, or compare with a commit or tree"
            )
        ref = str(path)
    path = Path(ref)
    if path.suffix == ".json" and path.is_file():
        stored = json.loads(path.read_text())
        stored.setdefault("label", path.stem)
        if stored.get("gpu") != gpu_name():
            raise SystemExit(
                f"{path} was measured on {stored.get('gpu')!r}, this machine has "
                f"{gpu_name()!r}: compare on the same kind of GPU, or with a commit"
            )
        return stored
    if path.is_dir():
        if not (path / "gpuml" / "__init__.py").exists():
            raise SystemExit(f"{path} holds no gpuml/ source tree")
        return path.resolve()
    target = scratch / re.sub(r"[^A-Za-z0-9._-]", "_", ref)
    target.mkdir()
    try:
        archive = subprocess.run(
            ["git", "-C", str(HERE), "archive", ref, "gpuml"],
            capture_output=True,
            check=False,
        )
        why = archive.stderr.decode().strip() if archive.returncode else ""
    except OSError as error:  # no git here
        why = str(error)
    if why:
        raise SystemExit(
            f"{ref!r} is neither a folder, a stored JSON run nor a commit of a "
            f"git checkout here: {why}"
        )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def summary(samples: list[float]) -> str:
    return f"{min(samples):.4f} / {statistics.median(samples):.4f}"


def report(results: dict, labels: list[str], workloads: list[str]) -> list[str]:
    """The table: each measure's min / median per tree, ratios against each
    reference (the last label is this tree)."""
    refs = labels[:-1]
    head = " | ".join(f"{label} min / median (s)" for label in labels)
    ratios = " | ".join(f"this / {label}" for label in refs)
    lines = [f"| workload | measure | {head} | {ratios} |"]
    lines.append("|---" * (2 + len(labels) + len(refs)) + "|")
    for name in workloads:
        for measure_key, measure_name in MEASURES.items():
            cells = [results[label].get(name, {}).get(measure_key) for label in labels]
            if cells[-1] is None:
                continue
            shown = [summary(c) if c else "-" for c in cells]
            flags = []
            for c in cells[:-1]:
                if not c:
                    flags.append("-")
                    continue
                ratio = min(cells[-1]) / min(c)
                slow = measure_key == "warm" and ratio > TOLERANCE
                flags.append(f"{ratio:.2f}{' SLOWER' if slow else ''}")
            lines.append(f"| {name} | {measure_name} | {' | '.join(shown + flags)} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compare_trees",
        description="This tree's searches against other trees, commits or a "
        "stored run, on this machine.",
    )
    parser.add_argument(
        "refs",
        nargs="*",
        metavar="REF",
        help="a source tree, a commit, a stored JSON run, or 'stored'",
    )
    parser.add_argument(
        "--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS)
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100x fewer rows")
    parser.add_argument("--save", type=Path, metavar="PATH", help="write this run")
    parser.add_argument("--label", default=None, help="this tree's name in --save")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.repeat < 1:
        parser.error("--rounds and --repeat must be at least 1")
    if not args.refs and args.save is None:
        parser.error("give a REF to compare with, or --save PATH")

    print(f"command: python -m benchmarks.compare_trees {' '.join(argv)}")
    print(f"gpu: {gpu_name()}")
    with tempfile.TemporaryDirectory() as scratch:
        refs = {ref: resolve(ref, Path(scratch)) for ref in args.refs}
        trees = {ref: r for ref, r in refs.items() if isinstance(r, Path)}
        trees["this"] = HERE
        results: dict[str, dict] = {label: {} for label in trees}
        failed: set[str] = set()
        for name in args.workloads:
            for _ in range(args.rounds):
                for label, tree in trees.items():
                    if label in failed:
                        continue
                    try:
                        got = measure(tree, name, args.quick, args.repeat)
                    except RuntimeError as error:  # this tree cannot run it
                        if label == "this":
                            raise
                        print(f"note: {label} skipped: {error}")
                        failed.add(label)
                        continue
                    slot = results[label].setdefault(name, {})
                    for key, samples in got.items():
                        slot.setdefault(key, []).extend(samples)
            bests = {
                label: results[label][name]["best"]
                for label in trees
                if name in results[label]
            }
            if any(b != bests["this"][0] for got in bests.values() for b in got):
                print(f"note: {name}: the best parameters differ: {bests}")
    for ref, r in refs.items():
        if isinstance(r, dict):
            if r.get("quick", False) != args.quick:
                raise SystemExit(f"{ref} was run with quick={r.get('quick')}")
            results[ref] = r["workloads"]
    labels = [*args.refs, "this"]
    for ref, r in refs.items():
        if isinstance(r, dict):
            print(f"{ref}: stored run of {r['label']} ({r['date']})")
    print("\n".join(report(results, labels, args.workloads)))
    if args.save is not None:
        now = datetime.datetime.now(datetime.timezone.utc)
        stored = {
            "label": args.label or "working tree",
            "date": f"{now:%Y-%m-%d %H:%M} UTC",
            "gpu": gpu_name(),
            "quick": args.quick,
            "workloads": {
                name: {k: v for k, v in got.items() if k != "best"}
                for name, got in results["this"].items()
            },
        }
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(stored, indent=1) + "\n")
        print(f"saved this tree's run to {args.save}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
