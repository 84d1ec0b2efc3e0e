"""The text pipeline searched over C: gpuml's search against scikit-learn's.

``make_pipeline(HashingVectorizer(), TfidfTransformer(), LogisticRegression())``
searched over 4 values of ``C`` with 3 stratified folds, on issue 15's corpus
(200,000 documents of 120 words, 171 MB of ASCII text, a Python list of
str). Labels: a document is positive when it holds more words of one set of
300 mid-frequency words than of the other (even and odd ranks 100-699),
with noise, so that ``C`` matters.
Rows:

- scikit-learn's search of scikit-learn's pipeline, ``n_jobs=12``, once;
- gpuml's search of gpuml's pipeline: the first in this process, then warm
  (median of ``--repeat``), with the best ``C`` and the largest difference
  of mean test scores from scikit-learn's;
- ``--first-use``: a fresh process with an empty CuPy kernel cache, then one
  with the cache that run filled (CuPy's start-up reported apart; the
  imports of gpuml's and scikit-learn's modules happen before the clock, as
  in a script that imports them first).

``python -m benchmarks.bench_text_search [--docs N] [--repeat R]
[--first-use] [--no-sklearn]``
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

from benchmarks.bench_text import N_DOCS, make_corpus

GRID_C = [0.1, 1.0, 10.0, 100.0]
N_JOBS = 12


def make_data(n_docs: int):
    docs, ids = make_corpus(n_docs, return_ids=True)
    rng = np.random.default_rng(1)
    topical = (ids >= 100) & (ids < 700)  # mid-frequency words, alternately
    plus = (topical & (ids % 2 == 0)).sum(axis=1)
    minus = (topical & (ids % 2 == 1)).sum(axis=1)
    y = (plus - minus + rng.normal(0.0, 2.0, size=len(docs)) > 0).astype(np.int64)
    return docs, y


def search(sklearn: bool):
    if sklearn:
        from sklearn.feature_extraction.text import (
            HashingVectorizer,
            TfidfTransformer,
        )
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GridSearchCV

        extra = {"n_jobs": N_JOBS}
    else:
        from gpuml.feature_extraction.text import HashingVectorizer, TfidfTransformer
        from gpuml.linear_model import LogisticRegression
        from gpuml.model_selection import GridSearchCV

        extra = {}
    from sklearn.pipeline import make_pipeline

    pipeline = make_pipeline(
        HashingVectorizer(), TfidfTransformer(), LogisticRegression()
    )
    grid = {"logisticregression__C": GRID_C}
    return GridSearchCV(pipeline, grid, cv=3, **extra)


def _timed_fit(docs, y, sklearn=False):
    """The search's ``fit``, timed (the search object, and the imports that
    make it, before the clock starts)."""
    unfitted = search(sklearn)
    start = time.perf_counter()
    fitted = unfitted.fit(docs, y)
    return time.perf_counter() - start, fitted


def child(n_docs: int) -> None:
    docs, y = make_data(n_docs)
    start = time.perf_counter()
    import cupy

    cupy.cuda.Device(0).use()
    cupy.empty(1)
    cupy.cuda.Device().synchronize()
    startup = time.perf_counter() - start
    first, fitted = _timed_fit(docs, y)
    again, _ = _timed_fit(docs, y)
    best = fitted.best_params_["logisticregression__C"]
    print(
        json.dumps({"startup": startup, "first": first, "again": again, "best": best})
    )


def run_child(n_docs: int, cache: str) -> dict:
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    args = [sys.executable, "-m", "benchmarks.bench_text_search", "--child"]
    done = subprocess.run(
        [*args, "--docs", str(n_docs)], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=N_DOCS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--first-use", action="store_true")
    parser.add_argument("--no-sklearn", action="store_true")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        return child(args.docs)
    if args.first_use:
        cache = tempfile.mkdtemp(prefix="gpuml-text-search-cache-")
        print("fresh process, empty cache:", run_child(args.docs, cache), flush=True)
        print("fresh process, warm cache: ", run_child(args.docs, cache), flush=True)
    docs, y = make_data(args.docs)
    print(
        f"corpus: {len(docs):,} docs, {sum(map(len, docs)) / 1e6:.1f} MB; "
        f"positives {y.mean():.3f}",
        flush=True,
    )
    first, fitted = _timed_fit(docs, y)
    print(f"gpuml first search in process: {first:.3f} s", flush=True)
    warm = [_timed_fit(docs, y)[0] for _ in range(args.repeat)]
    scores = fitted.cv_results_["mean_test_score"]
    best = fitted.best_params_["logisticregression__C"]
    print(
        f"gpuml warm: median {np.median(warm):.3f} s (min {min(warm):.3f}, max "
        f"{max(warm):.3f}); best C {best}; mean test scores {np.round(scores, 5)}",
        flush=True,
    )
    if not args.no_sklearn:
        elapsed, want = _timed_fit(docs, y, sklearn=True)
        theirs = want.cv_results_["mean_test_score"]
        print(
            f"scikit-learn (n_jobs={N_JOBS}): {elapsed:.2f} s; best C "
            f"{want.best_params_['logisticregression__C']}; mean test scores "
            f"{np.round(theirs, 5)}; max score difference "
            f"{np.abs(scores - theirs).max():.2e}; ratio "
            f"{elapsed / np.median(warm):.1f}x"
        )


if __name__ == "__main__":
    main()
