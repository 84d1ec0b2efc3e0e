"""Without a GPU: gpuml's CPU backend against scikit-learn, time and memory.

Each row is a fresh process that builds its data, imports its classes, then
times the search's ``fit`` (the minimum of ``--repeat`` fits; the first
fit of a process is not slower on the CPU: nothing compiles) and reports
its peak resident memory (``ru_maxrss`` of that process, from ``wait4``;
the rows with ``n_jobs=-1`` leave out their loky workers' memory). gpuml
computes with NumPy (``GPUML_DEVICE=cpu``). Workloads:

- ``text``: the example of docs/text.rst verbatim:
  ``make_pipeline(HashingVectorizer(), TfidfTransformer(),
  LogisticRegression())`` (2**20 hashed columns) searched over 4 ``C`` with
  ``cv=3``, on 1,000 documents of issue 15's corpus
  (:mod:`benchmarks.bench_text_search`);
- ``logistic``: ``LogisticRegression(tol=1e-6)`` over 8 ``C`` (1e-4 to 10),
  5 folds, on the demo's 20,000 x 64 float32 data (notebooks/04's kind of
  search), without ``n_jobs`` and with ``n_jobs=-1``;
- ``logistic, loaded``: the same with ``n_jobs=-1`` while as many busy
  processes as cores run beside it (a shared machine).

``--quick`` divides the rows by 4.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from benchmarks._timing import SKLEARN, row

GPUML = "gpuml (CPU)"
CHILD = r"""
import json, sys, time
import numpy as np
which, workload, n, n_jobs, repeat = sys.argv[1:6]
n, repeat = int(n), int(repeat)
n_jobs = None if n_jobs == "None" else int(n_jobs)
from sklearn.pipeline import make_pipeline
if which == "sklearn":
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
else:
    from gpuml.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV
if workload == "text":
    from benchmarks.bench_text_search import make_data
    X, y = make_data(n)
    estimator = make_pipeline(
        HashingVectorizer(), TfidfTransformer(), LogisticRegression()
    )
    grid, cv = {"logisticregression__C": [0.1, 1, 10, 100]}, 3
else:
    from gpuml._demo import _data
    X, y = _data("logistic", n, 64, np.random.default_rng(0))
    estimator = LogisticRegression(tol=1e-6)
    grid, cv = {"C": np.logspace(-4, 1, 8)}, 5
times = []
for _ in range(repeat):
    search = GridSearchCV(estimator, grid, cv=cv, n_jobs=n_jobs)
    start = time.perf_counter()
    search.fit(X, y)
    times.append(time.perf_counter() - start)
best = search.best_params_
print(json.dumps({
    "time": min(times),
    "best": float(next(iter(best.values()))),
    "scores": search.cv_results_["mean_test_score"].tolist(),
}))
"""


def _measured(which, workload, n, n_jobs, repeat) -> dict:
    """One child's result, with its peak RSS (reaped by ``os.wait4``)."""
    env = dict(os.environ, GPUML_DEVICE="cpu")
    args = [sys.executable, "-c", CHILD, which, workload, str(n), str(n_jobs)]
    with (
        open(os.devnull, "wb") as devnull,
        subprocess.Popen(
            [*args, str(repeat)], env=env, stdout=subprocess.PIPE, stderr=devnull
        ) as process,
    ):
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{which} {workload} failed (exit {process.returncode})")
    result = json.loads(out.decode().strip().splitlines()[-1])
    result["peak_mb"] = usage.ru_maxrss / 1024
    return result


def _busy(n: int) -> list[subprocess.Popen]:
    spin = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(n)]


def run(quick: bool, repeat: int = 2) -> list[dict]:
    scale = 4 if quick else 1
    cases = [
        ("text", 1_000 // scale, None, False),
        ("logistic", 20_000 // scale, None, False),
        ("logistic", 20_000 // scale, -1, False),
        ("logistic", 20_000 // scale, -1, True),
    ]
    rows = []
    for workload, n, n_jobs, loaded in cases:
        name = f"{workload}{', loaded' if loaded else ''}, n_jobs={n_jobs}"
        shape = f"{n:,} docs" if workload == "text" else f"{n:,}x64 float32"
        results = {}
        for which, label in (("sklearn", SKLEARN), ("gpuml", GPUML)):
            busy = _busy(os.cpu_count() or 1) if loaded else []
            try:
                time.sleep(0.5 if loaded else 0)
                results[which] = _measured(which, workload, n, n_jobs, repeat)
            finally:
                for process in busy:
                    process.kill()
                    process.wait()
            got = results[which]
            notes = f"peak RSS {got['peak_mb']:.0f} MB; best {got['best']:.4g}"
            if which == "gpuml":
                theirs = results["sklearn"]
                gap = np.abs(np.subtract(got["scores"], theirs["scores"])).max()
                notes += (
                    f"; time {got['time'] / theirs['time']:.2f}x, memory "
                    f"{got['peak_mb'] / theirs['peak_mb']:.2f}x scikit-learn's; "
                    f"max score difference {gap:.1e}"
                )
            rows.append(row(name, label, shape, got["time"], notes))
    return rows
