"""Metrics on 10,000,000 samples and batched R² of 64 candidates: sklearn vs gpuml.

Rows per workload: scikit-learn on NumPy; gpuml on NumPy (computed on the
CPU: metrics compute where their inputs live); gpuml on CuPy (inputs already
on the GPU; only the score comes back). The batched row scores 64
candidates' predictions with one ``Scorer.score_predictions`` call, against
64 calls of scikit-learn's ``r2_score``.
"""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    cupy_or_none,
    free_gpu_memory,
    no_gpu_reason,
    row,
    time_call,
)

N, N_QUICK = 10_000_000, 1_000_000
K, N_BATCH, N_BATCH_QUICK = 64, 1_000_000, 100_000


def _check(value, expected) -> str:
    from gpuml._array import to_host

    got = np.asarray(to_host(value), dtype=np.float64)
    error = float(np.max(np.abs(got - expected) / np.maximum(np.abs(expected), 1e-300)))
    return f"rel. error vs scikit-learn {error:.1e}"


def _workload(name, sk_call, gpuml_call, host_args, cupy, repeat, expected=None):
    t, value = time_call(lambda: sk_call(*host_args), repeat)
    expected = value if expected is None else expected
    rows = [row(name, SKLEARN, "NumPy", t)]
    t, value = time_call(lambda: gpuml_call(*host_args), repeat)
    rows.append(row(name, "gpuml (CPU)", "NumPy", t, _check(value, expected)))
    if cupy is None:
        skipped = f"skipped: no GPU ({no_gpu_reason()})"
        return [*rows, row(name, "gpuml (GPU)", "CuPy", None, skipped)]
    device_args = [cupy.asarray(a) for a in host_args]
    t, value = time_call(lambda: gpuml_call(*device_args), repeat)
    rows.append(row(name, "gpuml (GPU)", "CuPy", t, _check(value, expected)))
    device_args.clear()
    free_gpu_memory()
    return rows


def run(quick: bool, repeat: int = DEFAULT_REPEAT) -> list[dict]:
    from gpuml import metrics

    cupy = cupy_or_none()
    n = N_QUICK if quick else N
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.int64)
    score = rng.random(n) + 0.3 * y  # informative, float64
    proba = np.clip(score / 1.3, 1e-6, 1 - 1e-6)
    rows = _workload(
        f"roc_auc_score binary, {n:,}",
        skm.roc_auc_score,
        metrics.roc_auc_score,
        [y, score],
        cupy,
        repeat,
    )
    rows += _workload(
        f"log_loss binary, {n:,}",
        skm.log_loss,
        metrics.log_loss,
        [y, proba],
        cupy,
        repeat,
    )

    n_batch = N_BATCH_QUICK if quick else N_BATCH
    y_true = rng.standard_normal(n_batch)
    preds = y_true + rng.standard_normal((K, n_batch)) * rng.uniform(0.1, 2, (K, 1))
    scorer = metrics.get_scorer("r2")
    expected = np.array([skm.r2_score(y_true, p) for p in preds])

    def sklearn_loop(y_true, preds):
        return np.array([skm.r2_score(y_true, p) for p in preds])

    rows += _workload(
        f"R² of {K} candidates x {n_batch:,} (batched)",
        sklearn_loop,
        scorer.score_predictions,
        [y_true, preds],
        cupy,
        repeat,
        expected=expected,
    )
    return rows
