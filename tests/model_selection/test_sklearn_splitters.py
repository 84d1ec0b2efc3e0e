"""scikit-learn's splitters that gpuml re-exports unchanged (``TimeSeriesSplit``,
``LeaveOneOut`` ...) work as ``cv=`` of gpuml's searches and cross-validation:
the same folds and scores as scikit-learn's own search and cross_validate."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import model_selection as sk
from sklearn.linear_model import Ridge as SkRidge

from gpuml.linear_model import Ridge
from gpuml.model_selection import (
    GridSearchCV,
    GroupShuffleSplit,
    LeaveOneGroupOut,
    LeaveOneOut,
    LeavePGroupsOut,
    LeavePOut,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedGroupKFold,
    TimeSeriesSplit,
    cross_validate,
)

N = 40
SCORING = "neg_mean_squared_error"  # defined on a test fold of one sample
SPLITTERS = {
    "TimeSeriesSplit": (TimeSeriesSplit(n_splits=3), N),
    "LeaveOneOut": (LeaveOneOut(), 8),
    "LeavePOut": (LeavePOut(p=2), 6),
    "RepeatedKFold": (RepeatedKFold(n_splits=3, n_repeats=2, random_state=0), N),
    "RepeatedStratifiedKFold": (
        RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
        N,
    ),
    "PredefinedSplit": (PredefinedSplit(np.arange(N) % 3 - 1), N),
    "GroupShuffleSplit": (GroupShuffleSplit(n_splits=2, random_state=0), N),
    "LeaveOneGroupOut": (LeaveOneGroupOut(), N),
    "LeavePGroupsOut": (LeavePGroupsOut(n_groups=2), N),
    "StratifiedGroupKFold": (StratifiedGroupKFold(n_splits=2), N),
}


GROUPED = {
    "GroupShuffleSplit",
    "LeaveOneGroupOut",
    "LeavePGroupsOut",
    "StratifiedGroupKFold",
}


def _data(rng, n):
    """A binary target (for the stratified splitters) that Ridge fits."""
    y = (np.arange(n) % 2).astype(np.float64)
    X = rng.normal(size=(n, 3))
    X[:, 0] += 2.0 * y
    return X, y


def test_they_are_scikit_learns_own_objects():
    for name in SPLITTERS:
        assert getattr(sk, name) is globals()[name]


@pytest.mark.parametrize("name", SPLITTERS)
def test_sklearn_splitter_as_cv(backend, rng, name):
    cv, n = SPLITTERS[name]
    X, y = _data(rng, n)
    groups = np.arange(n) // 10 if name in GROUPED else None  # others warn
    X_in, y_in = backend.asarray(X), backend.asarray(y)
    folds = list(cv.split(X, y, groups))

    kwargs = {"groups": groups, "cv": cv, "scoring": SCORING}
    ours = cross_validate(Ridge(), X_in, y_in, return_indices=True, **kwargs)
    theirs = sk.cross_validate(SkRidge(), X, y, **kwargs)
    assert len(ours["indices"]["test"]) == len(folds)
    for test, (_, expected) in zip(ours["indices"]["test"], folds, strict=True):
        np.testing.assert_array_equal(backend.to_numpy(test), expected)
    np.testing.assert_allclose(ours["test_score"], theirs["test_score"], atol=1e-6)

    grid = {"alpha": [0.1, 1.0]}
    search = GridSearchCV(Ridge(), grid, cv=cv, scoring=SCORING)
    search.fit(X_in, y_in, groups=groups)
    expected = sk.GridSearchCV(SkRidge(), grid, cv=cv, scoring=SCORING)
    expected.fit(X, y, groups=groups)
    assert search.n_splits_ == expected.n_splits_ == len(folds)
    for i in range(len(folds)):
        key = f"split{i}_test_score"
        np.testing.assert_allclose(
            search.cv_results_[key], expected.cv_results_[key], atol=1e-6
        )
