"""Issue 40's zero-code-change mode: unchanged scikit-learn scripts, timed whole.

Each workload is a scikit-learn script written here into a temporary folder
(nothing of gpuml in it), run as a child process twice: ``python script.py``
(plain scikit-learn, its searches with ``n_jobs=16``) and ``python -m gpuml
run script.py``; the time is the child's whole wall time (interpreter start,
imports, data generation, the search and its refit), as a user meets it.
The scripts print their results; the rows' notes say whether gpuml's run
printed the same (numbers within ``rtol=1e-4``: the searches' best
parameters exactly).

Workloads:

- ``ridge``: GridSearchCV over Ridge, 20 alphas x 5 folds, on 400,000 x 256
  float32 (the W1 shape of the first-use issue).
- ``text``: GridSearchCV over HashingVectorizer(n_features=2**18) +
  TfidfTransformer + LogisticRegression, 4 C x 5 folds, on 200,000 synthetic
  documents of 60 words (the demo's text workload).
- ``nothing``: a script that uses nothing gpuml has
  (RandomForestClassifier(n_jobs=16) on 100,000 x 40): gpuml's run should
  be within 5 % of the plain one.
- ``empty``: ``print()`` alone: the start-up overhead of ``python -m gpuml
  run`` (the minimum of 5 runs each).

For ``ridge`` and ``text`` gpuml's script runs three times, on a new
CuPy kernel cache (``CUPY_CACHE_DIR``): empty (a new machine), then twice
warm (a later process); the row's time is the last, the notes give all.

``python -m benchmarks.run accel [--quick]`` (``--quick`` divides the rows
by 10); ``python -m benchmarks.bench_accel [NAME ...] [--rows-divisor D]
[--jobs J]`` runs some workloads (``--jobs``: scikit-learn's ``n_jobs``,
default 16).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchmarks import _timing

ROOT = Path(__file__).resolve().parents[1]

SCRIPTS = {
    "ridge": """
        import sys
        import numpy as np
        from sklearn.linear_model import Ridge
        from sklearn.model_selection import GridSearchCV

        n, p, jobs = int(sys.argv[1]), 256, int(sys.argv[2])
        rng = np.random.default_rng(0)
        X = rng.standard_normal((n, p), dtype=np.float32)
        X *= np.logspace(1, -2, p, dtype=np.float32)
        y = X @ rng.choice(np.float32([-1, 1]), size=p)
        y += np.float32(3.0) * rng.standard_normal(n, dtype=np.float32)
        search = GridSearchCV(
            Ridge(), {"alpha": np.logspace(-3, 2, 20).tolist()}, cv=5, n_jobs=jobs
        ).fit(X, y)
        print("best alpha", search.best_params_["alpha"])
        print("best score", search.best_score_)
        print("prediction", search.predict(X[:3]).tolist())
    """,
    "text": """
        import sys
        import numpy as np
        from sklearn.feature_extraction.text import (
            HashingVectorizer,
            TfidfTransformer,
        )
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GridSearchCV
        from sklearn.pipeline import make_pipeline

        n, words, jobs = int(sys.argv[1]), 60, int(sys.argv[2])
        rng = np.random.default_rng(0)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        vocabulary = np.array(
            ["".join(rng.choice(letters, size=k)) for k in rng.integers(3, 9, 2000)]
        )
        base = rng.dirichlet(np.full(2000, 0.5))
        lean = np.exp(0.2 * rng.standard_normal(2000))
        y = rng.integers(0, 2, n)
        docs = [None] * n
        for label in (0, 1):
            p = base * (lean if label else 1 / lean)
            rows = np.flatnonzero(y == label)
            picks = rng.choice(2000, size=(len(rows), words), p=p / p.sum())
            for row, pick in zip(rows, picks):
                docs[row] = " ".join(vocabulary[pick])
        pipeline = make_pipeline(
            HashingVectorizer(n_features=2**18),
            TfidfTransformer(),
            LogisticRegression(max_iter=1000),
        )
        grid = {"logisticregression__C": [0.1, 1.0, 10.0, 100.0]}
        search = GridSearchCV(pipeline, grid, cv=5, n_jobs=jobs).fit(docs, y)
        print("best C", search.best_params_["logisticregression__C"])
        print("best score", search.best_score_)
    """,
    "nothing": """
        import sys
        from sklearn.datasets import make_classification
        from sklearn.ensemble import RandomForestClassifier

        n, jobs = int(sys.argv[1]), int(sys.argv[2])
        X, y = make_classification(n, 40, n_informative=10, random_state=0)
        model = RandomForestClassifier(50, n_jobs=jobs, random_state=0).fit(X, y)
        print("training accuracy", model.score(X, y))
    """,
    "empty": """
        print()
    """,
}
ROWS = {"ridge": 400_000, "text": 200_000, "nothing": 100_000, "empty": 0}


def _write(folder: Path, name: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(SCRIPTS[name]).lstrip())
    return path


def _timed(command: list[str], env: dict | None = None) -> tuple[float, str, str]:
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{done.stderr[-2000:]}")
    return seconds, done.stdout, done.stderr


def same_output(ours: str, theirs: str, rtol: float = 1e-4) -> bool:
    """The same lines, numbers within ``rtol`` of each other."""
    number = r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?"
    a, b = ours.strip().splitlines(), theirs.strip().splitlines()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if re.sub(number, "#", x) != re.sub(number, "#", y):
            return False
        for u, v in zip(re.findall(number, x), re.findall(number, y), strict=True):
            if abs(float(u) - float(v)) > rtol * max(abs(float(v)), 1e-12):
                return False
    return True


def run_workload(name: str, folder: Path, divisor: int, jobs: int) -> list[dict]:
    """The workload's two rows: scikit-learn's plain run, gpuml's."""
    script = _write(folder, name)
    rows = max(ROWS[name] // divisor, 1000) if ROWS[name] else 0
    args = [str(rows), str(jobs)]
    plain = [sys.executable, str(script), *args]
    ours = [sys.executable, "-m", "gpuml", "run", str(script), *args]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    workload = f"unchanged script: {name}"
    size = f"{rows:,} rows" if rows else "print()"
    if name == "empty":
        theirs_s = min(_timed(plain, env)[0] for _ in range(5))
        ours_s = min(_timed(ours, env)[0] for _ in range(5))
        return [
            _timing.row(workload, "python", size, theirs_s, notes="min of 5"),
            _timing.row(
                workload,
                "python -m gpuml run",
                size,
                ours_s,
                notes=f"min of 5; start-up overhead {ours_s - theirs_s:+.3f} s",
                compare=False,
            ),
        ]
    theirs_s, theirs_out, _ = _timed(plain, env)
    runs = []
    if name in ("ridge", "text"):
        env = dict(env, CUPY_CACHE_DIR=tempfile.mkdtemp(prefix="bench-accel-"))
        runs = [_timed(ours, env) for _ in range(3)]
    else:
        runs = [_timed(ours, env)]
    ours_s, ours_out, ours_err = runs[-1]
    summary = next(
        (line for line in ours_err.splitlines() if line.startswith("gpuml run:")), ""
    )
    notes = ["same output" if same_output(ours_out, theirs_out) else "OUTPUT DIFFERS"]
    if len(runs) > 1:
        notes.append(
            "runs on an empty kernel cache, then warm: "
            + ", ".join(f"{r[0]:.2f} s" for r in runs)
        )
    notes.append(summary.removeprefix("gpuml run: "))
    return [
        _timing.row(workload, _timing.SKLEARN, size, theirs_s, notes=f"n_jobs={jobs}"),
        _timing.row(workload, "python -m gpuml run", size, ours_s, "; ".join(notes)),
    ]


def run(quick: bool = False, repeat: int | None = None) -> list[dict]:
    return _rows(list(SCRIPTS), 10 if quick else 1, 16)


def _rows(names, divisor: int, jobs: int) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="bench-accel-") as folder:
        return [
            row
            for name in names
            for row in run_workload(name, Path(folder), divisor, jobs)
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_accel")
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(SCRIPTS))
    parser.add_argument("--rows-divisor", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=16)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(SCRIPTS))
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; choose from {list(SCRIPTS)}")
    rows = _rows(args.names or list(SCRIPTS), args.rows_divisor, args.jobs)
    print(_timing.format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
