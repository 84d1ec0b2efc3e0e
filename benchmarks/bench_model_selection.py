"""Halving searches and validation curves (issue 17) against scikit-learn.

Workloads, float32, 5 folds, timed end to end (``fit`` returns with the best
model refitted; ``validation_curve`` returns its scores):

- ``HalvingGridSearchCV(Ridge)`` over 64 alphas, 400,000 x 256 (W1), R²;
- ``HalvingGridSearchCV(LogisticRegression)`` over 64 C values,
  400,000 x 128 binary (W2), accuracy;
- ``validation_curve(Ridge)`` over 20 alphas at W1, R².

scikit-learn runs its own classes with ``n_jobs=16`` on NumPy; gpuml runs on
the GPU fed NumPy (the one copy to the device inside the timing), first call
and warm median. Every gpuml row checks the schedule (``n_candidates_``,
``n_resources_``) and the best parameter against scikit-learn's, and reports
the largest difference of the mean test scores.
"""

from __future__ import annotations

import numpy as np
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import HalvingGridSearchCV as SkHalvingGridSearchCV
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.model_selection import validation_curve as sk_validation_curve

from benchmarks import bench_logistic, bench_search
from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    free_gpu_memory,
    no_gpu_reason,
    row,
    time_call,
    time_once,
)

N_JOBS = 16
W1, W2 = (400_000, 256), (400_000, 128)


def _halving_agreement(search, reference, param: str) -> str:
    same_schedule = (
        search.n_candidates_ == reference.n_candidates_
        and search.n_resources_ == reference.n_resources_
    )
    ours, theirs = search.best_params_[param], reference.best_params_[param]
    means = (
        np.asarray(search.cv_results_["mean_test_score"]),
        np.asarray(reference.cv_results_["mean_test_score"]),
    )
    diff = np.nanmax(np.abs(means[0] - means[1]))
    return (
        f"schedule {'same' if same_schedule else 'DIFFERENT'} "
        f"({reference.n_candidates_} candidates); best {param} {ours:.4g}, "
        f"{'same' if ours == theirs else f'DIFFERENT ({theirs:.4g})'}; "
        f"max |Δ mean_test_score| {diff:.1e}"
    )


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    from gpuml import config_context
    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.model_selection import HalvingGridSearchCV, validation_curve

    scale = 10 if quick else 1
    X1, y1 = bench_search.make_data(W1[0] // scale, W1[1])
    X2, y2 = bench_logistic.make_data(W2[0] // scale, W2[1])
    alphas64, cs64 = np.logspace(-3, 5, 64), np.logspace(-4, 2, 64)
    alphas20 = np.logspace(-3, 5, 20)
    rows: list[dict] = []
    cupy = cupy_or_none()

    halving = [
        (
            f"HalvingGridSearchCV Ridge, 64 alphas, {X1.shape[0]:,}x{W1[1]}",
            lambda est, **kw: SkHalvingGridSearchCV(
                est,
                {"alpha": alphas64},
                cv=KFold(5),
                scoring="r2",
                random_state=0,
                **kw,
            ),
            lambda est: HalvingGridSearchCV(
                est, {"alpha": alphas64}, cv=KFold(5), scoring="r2", random_state=0
            ),
            SkRidge(),
            Ridge(),
            X1,
            y1,
            "alpha",
        ),
        (
            f"HalvingGridSearchCV LogisticRegression, 64 Cs, {X2.shape[0]:,}x{W2[1]}",
            lambda est, **kw: SkHalvingGridSearchCV(
                est, {"C": cs64}, cv=StratifiedKFold(5), random_state=0, **kw
            ),
            lambda est: HalvingGridSearchCV(
                est, {"C": cs64}, cv=StratifiedKFold(5), random_state=0
            ),
            SkLogisticRegression(),
            LogisticRegression(),
            X2,
            y2,
            "C",
        ),
    ]
    for workload, sk_search, search, sk_est, est, X, y, param in halving:
        sk_search(sk_est, n_jobs=N_JOBS).fit(X[:3000], y[:3000])  # start the pool
        t_sk, reference = time_once(
            lambda s=sk_search, e=sk_est, a=X, b=y: s(e, n_jobs=N_JOBS).fit(a, b)
        )
        rows.append(row(workload, SKLEARN, f"NumPy, n_jobs={N_JOBS}", t_sk))
        if cupy is None:
            rows.append(row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason()))
            continue
        with config_context(device="gpu"):
            cold, _ = time_once(lambda s=search, e=est, a=X, b=y: s(e).fit(a, b))
            t, fitted = time_call(
                lambda s=search, e=est, a=X, b=y: s(e).fit(a, b), repeat
            )
        notes = (
            f"{_halving_agreement(fitted, reference, param)}; first call {cold:.3f} s"
        )
        rows.append(row(workload, "gpuml (GPU)", "NumPy, copied once", t, notes))
        del fitted
        free_gpu_memory()

    workload = f"validation_curve Ridge, 20 alphas, {X1.shape[0]:,}x{W1[1]}"
    kwargs = dict(param_name="alpha", param_range=alphas20, cv=KFold(5), scoring="r2")
    t_sk, expected = time_once(
        lambda: sk_validation_curve(SkRidge(), X1, y1, n_jobs=N_JOBS, **kwargs)
    )
    rows.append(row(workload, SKLEARN, f"NumPy, n_jobs={N_JOBS}", t_sk))
    if cupy is None:
        rows.append(row(workload, "gpuml (GPU)", "NumPy", None, no_gpu_reason()))
        return rows
    with config_context(device="gpu"):
        cold, _ = time_once(lambda: validation_curve(Ridge(), X1, y1, **kwargs))
        t, got = time_call(lambda: validation_curve(Ridge(), X1, y1, **kwargs), repeat)
    diff = max(np.max(np.abs(a - b)) for a, b in zip(got, expected, strict=True))
    rows.append(
        row(
            workload,
            "gpuml (GPU)",
            "NumPy, copied once",
            t,
            f"max |Δ score| {diff:.1e}; first call {cold:.3f} s",
        )
    )
    free_gpu_memory()
    return rows
