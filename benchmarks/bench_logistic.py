"""LogisticRegression: a C search (400,000 x 128) and one fit (2,000,000 x 256).

The workloads of issue 5, float32, binary:

- ``GridSearchCV`` over ``C`` in ``logspace(-4, 2, 8)``, ``KFold(5)``,
  ``scoring="accuracy"``, ``refit=True``, timed end to end: scikit-learn's
  search around scikit-learn's lbfgs with ``n_jobs=16`` against gpuml's
  search (the C values of a fold optimised together by one batched device
  L-BFGS), fed NumPy (the copy to the GPU is inside the timing) and CuPy;
- one ``LogisticRegression().fit`` on 2,000,000 x 256: scikit-learn's lbfgs
  on 16 cores against gpuml on the GPU.

Labels are drawn from the logistic model itself (coefficients of norm 3), so
the classes overlap. The mean accuracies of the larger Cs agree to a test
sample or two, so "the same best C" holds only when each fold's model is
scikit-learn's to rounding: the notes give the best C of both and the
largest difference in mean accuracy.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    free_gpu_memory,
    no_gpu_reason,
    rel_error,
    row,
    time_call,
    time_once,
)

N_SEARCH, N_FIT, N_QUICK = 400_000, 2_000_000, 40_000
CS = np.logspace(-4, 2, 8)
N_JOBS = 16


def make_data(n_samples: int, n_features: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features), dtype=np.float32)
    w = rng.standard_normal(n_features).astype(np.float32) * (3 / np.sqrt(n_features))
    probability = 1 / (1 + np.exp(-(X @ w)))
    y = (rng.uniform(size=n_samples) < probability).astype(np.int64)
    return X, y


def _search_rows(quick: bool, repeat: int, tol: float = 1e-4) -> list[dict]:
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    n = N_QUICK if quick else N_SEARCH
    X, y = make_data(n, 128)
    workload = (
        f"GridSearchCV LogisticRegression(tol={tol:g}), 8 Cs, {n:,}x128 float32, 5-fold"
    )
    grid, cv = {"C": CS}, KFold(5)

    def sk_search():
        return SkGridSearchCV(
            SkLogisticRegression(tol=tol),
            grid,
            cv=cv,
            scoring="accuracy",
            n_jobs=N_JOBS,
        ).fit(X, y)

    SkGridSearchCV(SkLogisticRegression(), grid, cv=cv, n_jobs=N_JOBS).fit(
        X[:2000], y[:2000]
    )  # start the worker pool
    t_sk, reference = time_once(sk_search)
    rows = [row(workload, SKLEARN, f"NumPy, n_jobs={N_JOBS}", t_sk)]
    best = reference.best_params_["C"]

    def agreement(search) -> str:
        ours = search.best_params_["C"]
        same = "same" if ours == best else f"DIFFERENT ({best:.3g} in scikit-learn)"
        diff = np.max(
            np.abs(
                search.cv_results_["mean_test_score"]
                - reference.cv_results_["mean_test_score"]
            )
        )
        return f"best C {ours:.3g}, {same}; max |Δ mean accuracy| {diff:.1e}"

    def search(X, y):
        return lambda: GridSearchCV(
            LogisticRegression(tol=tol), grid, cv=cv, scoring="accuracy"
        ).fit(X, y)

    cupy = cupy_or_none()
    if cupy is None:
        return [*rows, row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason())]
    with config_context(device="gpu"):
        t_cold, _ = time_once(search(X, y))
        t, result = time_call(search(X, y), repeat)
        rows.append(
            row(
                workload,
                "gpuml (GPU)",
                "NumPy, copied once",
                t,
                f"{agreement(result)}; first call {t_cold:.3f} s",
            )
        )
        X_gpu, y_gpu = cupy.asarray(X), cupy.asarray(y)
        t, result = time_call(search(X_gpu, y_gpu), repeat)
        rows.append(
            row(workload, "gpuml (GPU)", "CuPy, on the GPU", t, agreement(result))
        )
        del X_gpu, y_gpu, result
        free_gpu_memory()
    return rows


def _fit_rows(quick: bool, repeat: int) -> list[dict]:
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression

    n = N_QUICK if quick else N_FIT
    X, y = make_data(n, 256, seed=1)
    workload = f"LogisticRegression.fit {n:,}x256 float32"
    t_sk, reference = time_once(lambda: SkLogisticRegression().fit(X, y))
    rows = [row(workload, SKLEARN, "NumPy", t_sk, f"n_iter_ {reference.n_iter_[0]}")]
    cupy = cupy_or_none()
    if cupy is None:
        return [*rows, row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason())]

    def notes(model) -> str:
        proba = rel_error(
            model.predict_proba(X[:100_000]), reference.predict_proba(X[:100_000])
        )
        agree = float(
            np.mean(
                np.asarray(model.predict(X[:100_000])) == reference.predict(X[:100_000])
            )
        )
        return (
            f"n_iter_ {int(model.n_iter_[0])}; predict agreement {agree:.5f}; "
            f"proba rel. diff {proba:.1e}"
        )

    with config_context(device="gpu"):
        t, model = time_call(lambda: LogisticRegression().fit(X, y), repeat)
        rows.append(
            row(workload, "gpuml (GPU)", "NumPy, copied in the fit", t, notes(model))
        )
        X_gpu, y_gpu = cupy.asarray(X), cupy.asarray(y)
        t, model = time_call(
            lambda a=X_gpu, b=y_gpu: LogisticRegression().fit(a, b), repeat
        )
        rows.append(row(workload, "gpuml (GPU)", "CuPy, on the GPU", t, notes(model)))
        del X_gpu, y_gpu, model
        free_gpu_memory()
    return rows


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    return _search_rows(quick, repeat) + _fit_rows(quick, repeat)
