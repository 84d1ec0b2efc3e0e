"""Issue 37's linear models on the GPU against scikit-learn (n_jobs=16).

Workloads (float32 data, scikit-learn on the same NumPy arrays, its
searches with ``n_jobs=16``); a model gpuml does not have yet is a skipped
row naming it:

- ``LinearRegression``: one fit, 400,000 x 128;
- ``RidgeCV``: 30 alphas, efficient leave-one-out, 200,000 x 256;
- ``ElasticNet`` (l1_ratio 0.5) GridSearchCV over 30 alphas x 5 folds,
  200,000 x 256 (scikit-learn's search once: ``--repeat`` ignored there);
- ``Lasso``: one fit at a mid-path alpha, 200,000 x 256.

Each gpuml row notes the largest relative difference of its coefficients
(or best alpha and score) from scikit-learn's. ``--quick`` divides the
rows by 10.

``python -m benchmarks.bench_linear_models --first-use [NAME ...]``: for
each gpuml model (default: every one above that gpuml has), a fresh process
on an empty ``CUPY_CACHE_DIR``, then two on that cache: each times its first
fit (CuPy and gpuml imported and the CUDA context made before the clock;
the imports' time is reported apart) and a second fit, as JSON lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    no_gpu_reason,
    rel_error,
    row,
    time_call,
    time_once,
)

N_JOBS = 16


def make_data(n: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)).astype(np.float32)
    w = rng.standard_normal(p) * (rng.random(p) < 0.3)
    y = (X @ w + rng.standard_normal(n)).astype(np.float32)
    return X, y


def _gpuml(name: str):
    """gpuml's class of that name (gpuml.linear_model or gpuml.svm), or None."""
    import importlib

    for module in ("gpuml.linear_model", "gpuml.svm"):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        if name in found.__all__:
            return getattr(found, name)
    return None


def _labels(y):
    return (y > np.median(y)).astype(np.int64)


def _models_new(n: int):
    """Issue 37's second part: the L1 search, the CV classes, LinearSVC
    (same tuple layout as :func:`_models`; scikit-learn's searches and CV
    classes with ``n_jobs=16``)."""
    import sklearn.linear_model as sk
    import sklearn.svm as sk_svm
    from sklearn.model_selection import GridSearchCV as SkSearch

    X1, y1 = make_data(2 * n, 128)
    c1 = _labels(y1)
    X2, y2 = make_data(n, 256, seed=1)
    l1_grid = {"C": list(np.logspace(-3, 1, 20))}
    svc_grid = {"C": list(np.logspace(-3, 1, 20))}

    def search(name, params, grid):
        def make():
            from gpuml.model_selection import GridSearchCV

            return GridSearchCV(_gpuml(name)(**params), grid, cv=5)

        return _gpuml(name) and make

    def model(name, **params):
        return _gpuml(name) and (lambda: _gpuml(name)(**params))

    saga = {"solver": "saga", "l1_ratio": 1.0}
    return [
        (
            f"GridSearchCV LogisticRegression(saga, l1_ratio=1), 20 C x 5 folds, "
            f"{2 * n:,} x 128",
            search("LogisticRegression", saga, l1_grid),
            lambda: SkSearch(
                sk.LogisticRegression(**saga), l1_grid, cv=5, n_jobs=N_JOBS
            ),
            X1,
            c1,
            "search",
        ),
        (
            f"LassoCV (100 alphas, 5 folds), {n:,} x 256",
            model("LassoCV"),
            lambda: sk.LassoCV(n_jobs=N_JOBS),
            X2,
            y2,
            "cv",
        ),
        (
            f"ElasticNetCV (l1_ratio 0.5, 100 alphas, 5 folds), {n:,} x 256",
            model("ElasticNetCV", l1_ratio=0.5),
            lambda: sk.ElasticNetCV(l1_ratio=0.5, n_jobs=N_JOBS),
            X2,
            y2,
            "cv",
        ),
        (
            f"LogisticRegressionCV (10 Cs, 5 folds), {2 * n:,} x 128",
            model("LogisticRegressionCV"),
            lambda: sk.LogisticRegressionCV(n_jobs=N_JOBS),
            X1,
            c1,
            "cv",
        ),
        (
            f"GridSearchCV LinearSVC, 20 C x 5 folds, {2 * n:,} x 128",
            search("LinearSVC", {}, svc_grid),
            lambda: SkSearch(sk_svm.LinearSVC(), svc_grid, cv=5, n_jobs=N_JOBS),
            X1,
            c1,
            "search",
        ),
    ]


def _models(n: int):
    """(workload, gpuml factory or None, scikit-learn factory, X, y, kind)."""
    import sklearn.linear_model as sk
    from sklearn.model_selection import GridSearchCV as SkSearch

    alphas = np.logspace(-4, 1, 30)
    X1, y1 = make_data(2 * n, 128)
    X2, y2 = make_data(n, 256, seed=1)
    enet_grid = {"alpha": list(np.logspace(-4, -0.5, 30))}

    def gpuml_search():
        from gpuml.model_selection import GridSearchCV

        return GridSearchCV(_gpuml("ElasticNet")(l1_ratio=0.5), enet_grid, cv=5)

    return [
        (
            f"LinearRegression fit, {2 * n:,} x 128",
            _gpuml("LinearRegression") and (lambda: _gpuml("LinearRegression")()),
            lambda: sk.LinearRegression(),
            X1,
            y1,
            "coef",
        ),
        (
            f"RidgeCV, 30 alphas (leave-one-out), {n:,} x 256",
            _gpuml("RidgeCV") and (lambda: _gpuml("RidgeCV")(alphas=alphas)),
            lambda: sk.RidgeCV(alphas=alphas),
            X2,
            y2,
            "coef",
        ),
        (
            f"GridSearchCV ElasticNet(l1_ratio=0.5), 30 alphas x 5 folds, {n:,} x 256",
            _gpuml("ElasticNet") and gpuml_search,
            lambda: SkSearch(
                sk.ElasticNet(l1_ratio=0.5), enet_grid, cv=5, n_jobs=N_JOBS
            ),
            X2,
            y2,
            "search",
        ),
        (
            f"Lasso fit (alpha 0.01), {n:,} x 256",
            _gpuml("Lasso") and (lambda: _gpuml("Lasso")(alpha=0.01)),
            lambda: sk.Lasso(alpha=0.01),
            X2,
            y2,
            "coef",
        ),
    ]


def _compare(kind: str, ours, theirs) -> str:
    if kind == "cv":
        chosen = "alpha_" if hasattr(theirs, "alpha_") else "C_"
        coef = np.asarray(getattr(ours.coef_, "get", lambda: ours.coef_)())
        return (
            f"{chosen} {np.ravel(getattr(ours, chosen))[0]:.4g} vs "
            f"{np.ravel(getattr(theirs, chosen))[0]:.4g}; coef rel. diff "
            f"{rel_error(coef, theirs.coef_):.1e}"
        )
    if kind == "search":
        return (
            f"best {ours.best_params_} vs {theirs.best_params_}; score rel. diff "
            f"{rel_error(ours.best_score_, theirs.best_score_):.1e}"
        )
    coef = ours.coef_.get() if hasattr(ours.coef_, "get") else np.asarray(ours.coef_)
    return f"coef rel. diff {rel_error(coef, theirs.coef_):.1e}"


def _fit(factory, X, y):
    return lambda: factory().fit(X, y)


def run(
    quick: bool, repeat: int = DEFAULT_REPEAT, *, models=None, n=None
) -> list[dict]:
    from gpuml import config_context

    n = n or (20_000 if quick else 200_000)
    rows = []
    cupy = cupy_or_none()
    for workload, ours, theirs, X, y, kind in (models or _models)(n):
        if kind in ("search", "cv"):
            t_sk, fitted_sk = time_once(_fit(theirs, X, y))
        else:
            t_sk, fitted_sk = time_call(_fit(theirs, X, y), repeat)
        jobs = f", n_jobs={N_JOBS}" if kind in ("search", "cv") else ""
        rows.append(row(workload, SKLEARN, f"NumPy{jobs}", t_sk))
        if ours is None:
            rows.append(row(workload, "gpuml (GPU)", "NumPy", None, "not in gpuml"))
            continue
        if cupy is None:
            rows.append(row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason()))
            continue
        with config_context(device="gpu"):
            t, fitted = time_call(_fit(ours, X, y), repeat)
        rows.append(
            row(workload, "gpuml (GPU)", "NumPy", t, _compare(kind, fitted, fitted_sk))
        )
    return rows


FIRST_USE = {
    "LinearRegression": {},
    "RidgeCV": {"alphas": tuple(np.logspace(-4, 1, 30))},
    "Lasso": {"alpha": 0.01},
    "ElasticNet": {"alpha": 0.01, "l1_ratio": 0.5},
    "RidgeClassifier": {},
    "LassoCV": {},
    "ElasticNetCV": {"l1_ratio": 0.5},
    "LogisticRegression": {"solver": "saga", "l1_ratio": 1.0, "C": 0.1},
    "LogisticRegressionCV": {},
    "LinearSVC": {},
}
CLASSIFIERS = {
    "RidgeClassifier",
    "LogisticRegression",
    "LogisticRegressionCV",
    "LinearSVC",
}


def _child(name: str) -> None:
    start = time.perf_counter()
    import cupy

    import gpuml.linear_model  # noqa: F401  (imported before the clock)
    from gpuml import config_context

    imported = time.perf_counter() - start
    cupy.zeros(1).sum()  # the CUDA context, before the clock
    X, y = make_data(200_000, 256, seed=1)
    if name in CLASSIFIERS:
        y = (y > 0).astype(np.int64)
    times = []
    with config_context(device="gpu"):
        for _ in range(2):
            start = time.perf_counter()
            _gpuml(name)(**FIRST_USE[name]).fit(X, y)
            cupy.cuda.Device().synchronize()
            times.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "model": name,
                "import": round(imported, 3),
                "first": round(times[0], 3),
                "again": round(times[1], 3),
            }
        )
    )


def first_use(names) -> None:
    names = names or [m for m in FIRST_USE if _gpuml(m) is not None]
    for name in names:
        cache = tempfile.mkdtemp(prefix="gpuml-linear-cache-")
        env = dict(os.environ, CUPY_CACHE_DIR=cache)
        command = [
            sys.executable,
            "-m",
            "benchmarks.bench_linear_models",
            "--child",
            name,
        ]
        for label in ("empty cache", "warm cache", "warm cache"):
            out = subprocess.run(command, env=env, capture_output=True, text=True)
            last = (out.stdout.strip().splitlines() or [out.stderr.strip()[-300:]])[-1]
            print(f"{label}: {last}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2])
    elif sys.argv[1:2] == ["--first-use"]:
        first_use(sys.argv[2:])
    elif sys.argv[1:2] == ["--new"]:
        # python -m benchmarks.bench_linear_models --new [ROWS [WORD]]: the
        # new workloads (those whose name holds WORD) at ROWS rows
        from benchmarks._timing import format_table

        rows_arg = int(sys.argv[2]) if len(sys.argv) > 2 else None
        word = sys.argv[3] if len(sys.argv) > 3 else ""

        def chosen(n):
            return [m for m in _models_new(n) if word in m[0]]

        print(format_table(run(False, models=chosen, n=rows_arg)))
    else:
        sys.exit("python -m benchmarks.run linear_models, or --first-use [NAME ...]")
