"""A batched group too large for memory is split, never fitted one by one.

The search sizes its batches up front from a memory budget
(``_batch.memory_budget``, made tiny here), and a batch that still runs out
of memory is retried with half its candidates, then one fold at a time; the
results are those of one unsplit batch, and scikit-learn's.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV, _batch, _tasks
from gpuml.preprocessing import StandardScaler
from tests.model_selection.test_search import assert_results_match, regression

ALPHAS = list(np.logspace(-3, 3, 10))
N_SAMPLES, CV = 100, 5  # 20 test rows per fold


def _record_fit_batch(monkeypatch, cls=Ridge) -> list:
    """``(candidates, folds)`` of every ``_fit_batch`` call of ``cls``."""
    calls = []
    real = cls._fit_batch

    def recording(self, X, y, param_sets, *, folds=None, sample_weight=None):
        calls.append((len(param_sets), None if folds is None else len(folds)))
        return real(self, X, y, param_sets, folds=folds, sample_weight=sample_weight)

    monkeypatch.setattr(cls, "_fit_batch", recording)
    return calls


def _forbid_one_by_one(monkeypatch, cls=Ridge) -> None:
    def no_fit(self, *args, **kwargs):
        raise AssertionError("a candidate was fitted one by one")

    monkeypatch.setattr(cls, "fit", no_fit)


def _budget_for(monkeypatch, candidates: int, rows: int, columns: int = 1) -> None:
    """A budget that holds the responses of ``candidates`` on ``rows``."""
    per_candidate = _batch.RESPONSE_COPIES * 8 * rows * columns
    monkeypatch.setattr(
        _tasks, "memory_budget", lambda xp: candidates * per_candidate + 1
    )


def _sklearn(X, y, **kwargs):
    return SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=CV, **kwargs).fit(X, y)


def test_budget_splits_candidates_up_front(backend, rng, monkeypatch):
    X, y = regression(rng, n_samples=N_SAMPLES)
    whole = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=CV, return_train_score=True)
    whole.fit(backend.asarray(X), backend.asarray(y))
    calls = _record_fit_batch(monkeypatch)
    _forbid_one_by_one(monkeypatch)
    # Training rows (80 a fold) are scored too: 3 candidates' fit the budget.
    _budget_for(monkeypatch, 3, rows=80)
    split = GridSearchCV(
        Ridge(), {"alpha": ALPHAS}, cv=CV, return_train_score=True, refit=False
    ).fit(backend.asarray(X), backend.asarray(y))
    assert calls == [(3, CV), (3, CV), (3, CV), (1, CV)]
    for key, value in whole.cv_results_.items():
        if "time" not in key and key != "params":
            np.testing.assert_allclose(split.cv_results_[key], value, rtol=1e-12)
    assert split.cv_results_["params"] == whole.cv_results_["params"]
    assert_results_match(split, _sklearn(X, y, return_train_score=True, refit=False))


def test_one_candidate_per_batch_when_one_exceeds_the_budget(rng, monkeypatch):
    X, y = regression(rng, n_samples=N_SAMPLES)
    calls = _record_fit_batch(monkeypatch)
    monkeypatch.setattr(_tasks, "memory_budget", lambda xp: 1)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=CV).fit(X, y)
    assert calls == [(1, CV)] * len(ALPHAS)
    assert_results_match(ours, _sklearn(X, y))


class _SmallMemoryRidge(Ridge):
    """A Ridge whose batches run out of memory above ``limit`` candidates
    times folds: on its third fold (``where="fit"``, after two were
    returned) or when predicting (``where="predict"``)."""

    limit = 4
    where = "fit"

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        too_big = len(param_sets) * len(folds) > self.limit
        batches = super()._fit_batch(
            X, y, param_sets, folds=folds, sample_weight=sample_weight
        )
        for fold, model in enumerate(batches):
            if too_big and self.where == "fit" and fold == 2:
                raise MemoryError("Out of memory allocating 4 GiB (simulated)")
            if too_big and self.where == "predict":
                model = _FailingPredictions(model)
            yield model


class _FailingPredictions:
    def __init__(self, model):
        self.model = model

    def __len__(self):
        return len(self.model)

    def predict(self, X):
        raise MemoryError("Unable to allocate 3.2 GiB for an array (simulated)")


@pytest.mark.parametrize("where", ["fit", "predict"])
def test_out_of_memory_halves_the_batch_and_keeps_done_folds(
    rng, monkeypatch, capsys, where
):
    monkeypatch.setattr(_SmallMemoryRidge, "where", where)
    X, y = regression(rng, n_samples=N_SAMPLES)
    calls = _record_fit_batch(monkeypatch, _SmallMemoryRidge)
    _forbid_one_by_one(monkeypatch, _SmallMemoryRidge)
    ours = GridSearchCV(
        _SmallMemoryRidge(), {"alpha": ALPHAS}, cv=CV, verbose=1, refit=False
    ).fit(X, y)
    out = capsys.readouterr().out
    assert "fitting them one by one" not in out
    if where == "fit":
        # 10 candidates x 5 folds score folds 0-1, then fail: batches of 5
        # take folds 2-4 (each scores 2-3 and fails on 4: 5, then 2 at a
        # time finish it); folds 0-1 are never fitted again.
        first = [(10, 5), (5, 3), (2, 1), (2, 1), (1, 1)]
        assert calls == [*first, (2, 3), (1, 1), (1, 1), (1, 3), (1, 3), (1, 3)]
        assert "ran out of memory on split 2" in out
        assert "retrying in batches of 5 candidates" in out
        assert "retrying in batches of 1 candidate." in out
    else:
        # Scoring fails above 4 candidates x folds: halved down to one
        # candidate, which fails on 5 folds, then one fold at a time.
        assert calls == [(10, 5), (5, 5), (2, 5), (1, 5)] + [(1, 1)] * 50
        assert "retrying in one fold at a time" in out
    assert_results_match(ours, _sklearn(X, y, refit=False))
    assert not np.isnan(ours.cv_results_["mean_test_score"]).any()


def test_out_of_memory_of_a_single_fit_falls_back_one_by_one(rng, monkeypatch):
    """Only one candidate on one fold that runs out of memory is fitted on
    its own (here its own fit works, and the results are scikit-learn's)."""
    monkeypatch.setattr(_SmallMemoryRidge, "limit", 0)
    monkeypatch.setattr(_SmallMemoryRidge, "where", "predict")
    X, y = regression(rng, n_samples=N_SAMPLES)
    calls = _record_fit_batch(monkeypatch, _SmallMemoryRidge)
    fits = []
    real_fit = Ridge.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.alpha)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(_SmallMemoryRidge, "fit", counting_fit)
    ours = GridSearchCV(
        _SmallMemoryRidge(), {"alpha": ALPHAS[:2]}, cv=3, refit=False
    ).fit(X, y)
    # 2 candidates, then 1 on all folds, then 1 on each fold, which fails
    # and is fitted on its own.
    assert calls == [(2, 3), (1, 3)] + [(1, 1)] * 6
    assert fits == [ALPHAS[0]] * 3 + [ALPHAS[1]] * 3
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS[:2]}, cv=3, refit=False)
    assert_results_match(ours, theirs.fit(X, y))


def test_pipeline_final_step_batches_are_split(rng, monkeypatch):
    X, y = regression(rng, n_samples=N_SAMPLES)
    calls = _record_fit_batch(monkeypatch)
    _forbid_one_by_one(monkeypatch)
    _budget_for(monkeypatch, 4, rows=N_SAMPLES // CV)
    grid = {"ridge__alpha": ALPHAS}
    ours = GridSearchCV(make_pipeline(StandardScaler(), Ridge()), grid, cv=CV)
    ours.set_params(refit=False).fit(X, y)
    assert calls == [(4, None), (4, None), (2, None)] * CV
    theirs = SkGridSearchCV(make_pipeline(SkStandardScaler(), SkRidge()), grid, cv=CV)
    assert_results_match(ours, theirs.set_params(refit=False).fit(X, y))


def test_candidates_per_batch():
    per_candidate = _batch.RESPONSE_COPIES * 8 * 1000 * 2
    assert _batch.candidates_per_batch(50, 1000, 2, None) == 50
    assert _batch.candidates_per_batch(50, 1000, 2, 7 * per_candidate) == 7
    assert _batch.candidates_per_batch(50, 1000, 2, 0) == 1
    assert _batch.candidates_per_batch(5, 1000, 2, 7 * per_candidate) == 5


def test_out_of_memory_errors_are_recognised():
    assert _batch.is_out_of_memory(MemoryError())
    assert not _batch.is_out_of_memory(ValueError("Out of memory"))
    # cuBLAS and cuSOLVER report a failed allocation by their status.
    alloc = type("CUBLASError", (RuntimeError,), {"__module__": "cupy_backends.cuda"})
    assert _batch.is_out_of_memory(alloc("CUBLAS_STATUS_ALLOC_FAILED"))
    assert not _batch.is_out_of_memory(alloc("CUBLAS_STATUS_EXECUTION_FAILED"))


def _cgroup_tree(tmp_path, files: dict) -> None:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_cgroup_v2_limit_less_usage(tmp_path):
    _cgroup_tree(
        tmp_path,
        {
            "self": "0::/job/step\n",
            "fs/memory.max": "max\n",
            "fs/job/memory.max": str(6 << 30),
            "fs/job/memory.current": str(1 << 30),
            "fs/job/memory.stat": "anon 1\ninactive_file 4096\n",
            "fs/job/step/memory.max": "max\n",
            "fs/job/step/memory.current": str(1 << 29),
        },
    )
    left = _batch._cgroup_memory_left(tmp_path / "fs", tmp_path / "self")
    assert left == [(5 << 30) + 4096]


def test_cgroup_v1_limit_less_usage(tmp_path):
    _cgroup_tree(
        tmp_path,
        {
            "self": "4:memory:/jobs/a\n3:cpu:/jobs/a\n",
            "fs/memory/memory.limit_in_bytes": "9223372036854771712\n",
            "fs/memory/memory.usage_in_bytes": "5",
            "fs/memory/jobs/a/memory.limit_in_bytes": str(2 << 30),
            "fs/memory/jobs/a/memory.usage_in_bytes": str(1 << 30),
            "fs/memory/jobs/a/memory.stat": "total_inactive_file 10\n",
        },
    )
    left = _batch._cgroup_memory_left(tmp_path / "fs", tmp_path / "self")
    assert left == [(1 << 30) + 10]


def test_host_budget_is_a_share_of_what_is_left(monkeypatch):
    monkeypatch.setattr(_batch, "_available_memory", lambda: 10 << 30)
    monkeypatch.setattr(_batch, "_cgroup_memory_left", lambda: [4 << 30])
    monkeypatch.setattr(_batch, "_address_space_left", lambda: None)
    assert _batch.host_memory_left() == 4 << 30
    assert _batch.memory_budget(np) == int((4 << 30) * _batch.MEMORY_FRACTION)
    monkeypatch.setattr(_batch, "_address_space_left", lambda: 1 << 30)
    assert _batch.host_memory_left() == 1 << 30


@pytest.mark.gpu
def test_budget_on_the_device():
    """On a GPU the budget is a share of the free device memory (and of the
    pool's free bytes): positive, and below the device's total."""
    import cupy

    budget = _batch.memory_budget(cupy)
    _, total = cupy.cuda.Device().mem_info
    assert 0 < budget <= total * _batch.MEMORY_FRACTION
