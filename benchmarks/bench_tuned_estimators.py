"""Issue 38's estimators in searches on the GPU against scikit-learn (n_jobs=16).

Workloads (float32 data unless said; scikit-learn on the same NumPy arrays,
its searches with ``n_jobs=16``, once; gpuml's warm time is the median of
``--repeat`` after a first call); a class gpuml does not have yet is a
skipped row naming it:

- ``knn``: GridSearchCV of KNeighborsClassifier over ``n_neighbors`` 1..50
  x 2 ``weights`` x 5 folds, 200,000 x 64 (8 classes);
- ``pca``: GridSearchCV of Pipeline(PCA, LogisticRegression) over 8
  ``n_components`` x 6 ``C`` x 5 folds, 400,000 x 256 (6 classes);
- ``kmeans``: KMeans(n_init=10) for each ``n_clusters`` in 2..20 on
  1,000,000 x 32 (scikit-learn's fits one after another, each on every
  core: KMeans has no ``n_jobs``);
- ``kmeans_search``: GridSearchCV of KMeans(n_init=3) over ``n_clusters``
  2..20 x 5 folds, 200,000 x 32 (scored by ``KMeans.score``; gpuml runs a
  fold's candidates as one Lloyd batch on the GPU);
- ``text``: scikit-learn's text-search example shape, RandomizedSearchCV
  (n_iter=40, 5 folds) of Pipeline(TfidfVectorizer, ComplementNB) over
  ``max_df``, ``min_df``, ``ngram_range``, ``norm`` and ``alpha``, on about
  100 MB of issue 15's synthetic corpus.

Each gpuml row notes how its result compares with scikit-learn's (best
parameters and score difference; for KMeans the largest relative difference
of inertia over the 19 fits). ``--quick`` divides the rows by 10.

``python -m benchmarks.run tuned_estimators [--quick] [--repeat N]``;
``python -m benchmarks.bench_tuned_estimators [NAME ...] [--rows-divisor D]
[--device cpu] [--sklearn-timeout S]`` runs some workloads (``--device
cpu``: gpuml on the CPU, to check the script where there is no GPU;
``--sklearn-timeout``: scikit-learn's search in a child process stopped
after S seconds, its row then "did not finish" and the speed-up a lower
bound). gpuml's search runs first, and each result is printed as it comes.

``python -m benchmarks.bench_tuned_estimators --first-use [NAME ...]``: each
workload's gpuml search in a fresh process on an empty ``CUPY_CACHE_DIR``,
then in two on that cache (imports and the CUDA context before the clock,
the imports' time apart), as JSON lines.
"""

from __future__ import annotations

import importlib
import json
import sys
import time

import numpy as np

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    child_result,
    cupy_or_none,
    first_use_runs,
    no_gpu_reason,
    rel_error,
    row,
    time_call,
    time_once,
)

N_JOBS = 16
TEXT_DOCS = 117_000  # about 100 MB of issue 15's corpus (171 MB per 200,000)


def _gpuml(module: str, name: str):
    """gpuml's class ``name`` of ``gpuml.<module>``, or None where gpuml
    has no such class yet."""
    try:
        found = importlib.import_module(f"gpuml.{module}")
    except ImportError:
        return None
    return getattr(found, name) if name in found.__all__ else None


def _classes(n: int, p: int, n_classes: int, seed: int):
    """Overlapping Gaussian classes (a finite-accuracy problem), float32."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=1.5, size=(n_classes, p))
    y = rng.integers(0, n_classes, n)
    X = (centers[y] + rng.normal(size=(n, p))).astype(np.float32)
    return X, y


def _knn(n: int, sklearn: bool):
    grid = {"n_neighbors": list(range(1, 51)), "weights": ["uniform", "distance"]}
    if sklearn:
        from sklearn.model_selection import GridSearchCV
        from sklearn.neighbors import KNeighborsClassifier

        return GridSearchCV(KNeighborsClassifier(), grid, cv=5, n_jobs=N_JOBS)
    from gpuml.model_selection import GridSearchCV

    return GridSearchCV(_gpuml("neighbors", "KNeighborsClassifier")(), grid, cv=5)


def _pca(n: int, sklearn: bool):
    grid = {
        "pca__n_components": [8, 16, 24, 32, 48, 64, 96, 128],
        "logisticregression__C": list(np.logspace(-3, 2, 6)),
    }
    if sklearn:
        from sklearn.decomposition import PCA
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GridSearchCV
        from sklearn.pipeline import make_pipeline

        pipeline = make_pipeline(PCA(), LogisticRegression())
        return GridSearchCV(pipeline, grid, cv=5, n_jobs=N_JOBS)
    from sklearn.pipeline import make_pipeline

    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    pipeline = make_pipeline(_gpuml("decomposition", "PCA")(), LogisticRegression())
    return GridSearchCV(pipeline, grid, cv=5)


class _KMeansSweep:
    """KMeans(n_init=10) for each n_clusters in 2..20, one after another."""

    def __init__(self, cls):
        self.cls = cls

    def fit(self, X, y=None):
        self.inertias_ = [
            self.cls(k, n_init=10, random_state=0).fit(X).inertia_ for k in range(2, 21)
        ]
        return self


def _kmeans(n: int, sklearn: bool):
    if sklearn:
        from sklearn.cluster import KMeans

        return _KMeansSweep(KMeans)
    return _KMeansSweep(_gpuml("cluster", "KMeans"))


def _kmeans_search(n: int, sklearn: bool):
    grid = {"n_clusters": list(range(2, 21))}
    if sklearn:
        from sklearn.cluster import KMeans
        from sklearn.model_selection import GridSearchCV

        return GridSearchCV(KMeans(n_init=3, random_state=0), grid, cv=5, n_jobs=N_JOBS)
    from gpuml.model_selection import GridSearchCV

    return GridSearchCV(
        _gpuml("cluster", "KMeans")(n_init=3, random_state=0), grid, cv=5
    )


def _text_grid():
    return {
        "tfidfvectorizer__max_df": [0.5, 0.75, 1.0],
        "tfidfvectorizer__min_df": [1, 3, 5],
        "tfidfvectorizer__ngram_range": [(1, 1), (1, 2)],
        "tfidfvectorizer__norm": ["l1", "l2"],
        "complementnb__alpha": list(np.logspace(-6, 6, 13)),
    }


def _text(n: int, sklearn: bool):
    if sklearn:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.model_selection import RandomizedSearchCV
        from sklearn.naive_bayes import ComplementNB
        from sklearn.pipeline import make_pipeline

        pipeline = make_pipeline(TfidfVectorizer(), ComplementNB())
        return RandomizedSearchCV(
            pipeline, _text_grid(), n_iter=40, cv=5, random_state=0, n_jobs=N_JOBS
        )
    from sklearn.pipeline import make_pipeline

    from gpuml.feature_extraction.text import TfidfVectorizer
    from gpuml.model_selection import RandomizedSearchCV

    pipeline = make_pipeline(TfidfVectorizer(), _gpuml("naive_bayes", "ComplementNB")())
    return RandomizedSearchCV(pipeline, _text_grid(), n_iter=40, cv=5, random_state=0)


def _text_data(n_docs: int):
    from benchmarks.bench_text_search import make_data

    return make_data(n_docs)


# name: (workload, gpuml (module, class), factory, data(divisor))
WORKLOADS = {
    "knn": (
        "GridSearchCV KNeighborsClassifier, n_neighbors 1..50 x 2 weights x 5 "
        "folds, {n:,} x 64",
        ("neighbors", "KNeighborsClassifier"),
        _knn,
        lambda d: _classes(200_000 // d, 64, 8, 0),
    ),
    "pca": (
        "GridSearchCV Pipeline(PCA, LogisticRegression), 8 n_components x 6 C x "
        "5 folds, {n:,} x 256",
        ("decomposition", "PCA"),
        _pca,
        lambda d: _classes(400_000 // d, 256, 6, 1),
    ),
    "kmeans": (
        "KMeans(n_init=10), n_clusters 2..20 (19 fits), {n:,} x 32",
        ("cluster", "KMeans"),
        _kmeans,
        lambda d: (_classes(1_000_000 // d, 32, 12, 2)[0], None),
    ),
    "kmeans_search": (
        "GridSearchCV KMeans(n_init=3), n_clusters 2..20 x 5 folds, {n:,} x 32",
        ("cluster", "KMeans"),
        _kmeans_search,
        lambda d: (_classes(200_000 // d, 32, 12, 3)[0], None),
    ),
    "text": (
        "RandomizedSearchCV Pipeline(TfidfVectorizer, ComplementNB), 40 x 5 "
        "folds, {n:,} documents",
        ("naive_bayes", "ComplementNB"),
        _text,
        lambda d: _text_data(TEXT_DOCS // d),
    ),
}


def _summary(name: str, fitted) -> dict:
    """What a workload's result is compared by (JSON-able)."""
    if name == "kmeans":
        return {"inertias": [float(v) for v in fitted.inertias_]}
    return {"best_params": repr(fitted.best_params_), "best_score": fitted.best_score_}


def _compare(name: str, ours: dict, theirs: dict) -> str:
    if name == "kmeans":
        diff = rel_error(np.array(ours["inertias"]), np.array(theirs["inertias"]))
        return f"inertia rel. diff (max over k) {diff:.1e}"
    same = ours["best_params"] == theirs["best_params"]
    score = abs(ours["best_score"] - theirs["best_score"])
    return (
        f"best params {'same' if same else 'DIFFER: ' + ours['best_params']}; "
        f"score diff {score:.1e}"
    )


def _sklearn_in_child(name: str, divisor: int, timeout: float):
    """scikit-learn's fit of a workload in a child process stopped after
    ``timeout`` seconds: ``(seconds, summary)``, or ``(None, None)`` when it
    did not finish (the speed-up is then at least ``timeout`` over gpuml's)."""
    command = [sys.executable, "-m", "benchmarks.bench_tuned_estimators"]
    command += ["--sklearn-child", name, str(divisor)]
    found = child_result(command, timeout)
    return (None, None) if found is None else (found["seconds"], found["summary"])


def _sklearn_child(name: str, divisor: int) -> None:
    _, _, factory, data = WORKLOADS[name]
    X, y = data(divisor)
    seconds, fitted = time_once(_fitting(factory, X, y, sklearn=True))
    print(json.dumps({"seconds": seconds, "summary": _summary(name, fitted)}))


def _fitting(factory, X, y, *, sklearn: bool):
    return lambda: factory(0, sklearn=sklearn).fit(X, y)


def run(
    quick: bool,
    repeat: int = DEFAULT_REPEAT,
    *,
    names=None,
    divisor=None,
    device="gpu",
    sklearn_timeout=None,
) -> list[dict]:
    """The rows of the workloads ``names`` (all by default). gpuml's search
    runs first; with ``sklearn_timeout`` scikit-learn's runs in a child
    process stopped after that many seconds (a row "did not finish")."""
    from gpuml import config_context

    divisor = divisor or (10 if quick else 1)
    rows = []
    cupy = cupy_or_none() if device == "gpu" else None
    for name in names or WORKLOADS:
        title, (module, cls), factory, data = WORKLOADS[name]
        X, y = data(divisor)
        workload = title.format(n=len(X) if not hasattr(X, "shape") else X.shape[0])
        label = f"gpuml ({device.upper()})"
        ours = None
        if _gpuml(module, cls) is None:
            ours = row(workload, label, "NumPy", None, f"no gpuml {cls} yet")
        elif device == "gpu" and cupy is None:
            ours = row(workload, label, "NumPy", None, no_gpu_reason())
        else:
            with config_context(device=device):
                t_first, _ = time_once(_fitting(factory, X, y, sklearn=False))
                t, fitted = time_call(_fitting(factory, X, y, sklearn=False), repeat)
            summary = _summary(name, fitted)
            print(f"{name}: gpuml {t:.3f} s (first call {t_first:.3f} s)", flush=True)
        del X, y
        jobs = f", n_jobs={N_JOBS}" if name != "kmeans" else ""
        if sklearn_timeout is None:
            X, y = data(divisor)
            t_sk, fitted_sk = time_once(_fitting(factory, X, y, sklearn=True))
            summary_sk = _summary(name, fitted_sk)
            del X, y, fitted_sk
        else:
            t_sk, summary_sk = _sklearn_in_child(name, divisor, sklearn_timeout)
        print(f"{name}: scikit-learn {t_sk} s", flush=True)
        note = "" if t_sk is not None else f"did not finish in {sklearn_timeout:g} s"
        rows.append(row(workload, SKLEARN, f"NumPy{jobs}", t_sk, note))
        if ours is None:
            compared = (
                _compare(name, summary, summary_sk)
                if summary_sk is not None
                else f"at least {sklearn_timeout / t:.0f}x (scikit-learn unfinished)"
            )
            ours = row(
                workload, label, "NumPy", t, f"first call {t_first:.3f} s; {compared}"
            )
        rows.append(ours)
    return rows


def _child(name: str) -> None:
    start = time.perf_counter()
    import cupy

    _, (module, _), factory, data = WORKLOADS[name]
    importlib.import_module(f"gpuml.{module}")
    import gpuml.model_selection  # noqa: F401  (imported before the clock)
    from gpuml import config_context

    imported = time.perf_counter() - start
    cupy.zeros(1).sum()  # the CUDA context, before the clock
    X, y = data(1)
    times = []
    with config_context(device="gpu"):
        for _ in range(2):
            start = time.perf_counter()
            factory(0, sklearn=False).fit(X, y)
            cupy.cuda.Device().synchronize()
            times.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "workload": name,
                "import": round(imported, 3),
                "first": round(times[0], 3),
                "again": round(times[1], 3),
            }
        )
    )


def first_use(names) -> None:
    names = names or [n for n, w in WORKLOADS.items() if _gpuml(*w[1]) is not None]
    for name in names:
        command = [sys.executable, "-m", "benchmarks.bench_tuned_estimators"]
        command += ["--child", name]
        first_use_runs(command, "gpuml-tuned-cache-")


def main(argv) -> None:
    from benchmarks._timing import format_table

    if argv[:1] == ["--child"]:
        _child(argv[1])
        return
    if argv[:1] == ["--first-use"]:
        first_use(argv[1:])
        return
    if argv[:1] == ["--sklearn-child"]:
        _sklearn_child(argv[1], int(argv[2]))
        return
    divisor, device, names, timeout = None, "gpu", [], None
    args = iter(argv)
    for arg in args:
        if arg == "--rows-divisor":
            divisor = int(next(args))
        elif arg == "--device":
            device = next(args)
        elif arg == "--sklearn-timeout":
            timeout = float(next(args))
        else:
            names.append(arg)
    rows = run(
        False,
        names=names or None,
        divisor=divisor,
        device=device,
        sklearn_timeout=timeout,
    )
    print(format_table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
