"""scikit-learn's callbacks (1.9+): gpuml's estimators and searches call the
hooks where scikit-learn's do.

scikit-learn's own estimators, with scikit-learn's testing callbacks, are the
oracle: the same hooks on the same tasks (counted by task name), the same
sample weights as metadata, and fitted estimators that predict.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("sklearn.callback", reason="scikit-learn < 1.9 has no callbacks")

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.callback.tests._utils import (
    MaxIterEstimator,
    RecordingAutoPropagatedCallback,
    RecordingCallback,
)
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import GridSearchCV
from gpuml.preprocessing import StandardScaler


def _hooks(callback) -> Counter:
    """How many times each hook ran, per task name."""
    return Counter(
        (record["name"], record["context"].task_name) for record in callback.record
    )


def _data(rng, n_samples=60):
    X = rng.normal(size=(n_samples, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n_samples) > 0).astype(np.int64)
    return X, y


def _search_hooks(search, X, y, *, propagated, **fit_params):
    callback = (RecordingAutoPropagatedCallback if propagated else RecordingCallback)()
    with warnings.catch_warnings():
        # An auto-propagated callback warns for each sub-estimator that does
        # not support callbacks, in both searches alike.
        warnings.filterwarnings("ignore", "The estimator .* does not support callbacks")
        search.set_callbacks(callback).fit(X, y, **fit_params)
    return callback


@pytest.mark.parametrize("propagated", [False, True])
@pytest.mark.parametrize("refit", [True, False])
@pytest.mark.parametrize(
    "ours, theirs, grid",
    [
        # A batched group of gpuml estimators (no estimator object per candidate).
        (Ridge(), SkRidge(), {"alpha": [0.1, 1.0, 10.0]}),
        # One by one, with callbacks propagated into each candidate's fit.
        (MaxIterEstimator(), MaxIterEstimator(), {"max_iter": [1, 2, 3]}),
    ],
    ids=["batched", "one-by-one"],
)
def test_search_hooks_match_sklearn(
    backend, rng, ours, theirs, grid, refit, propagated
):
    X, y = _data(rng)
    sw = rng.uniform(0.5, 2.0, len(y))
    kwargs = dict(cv=3, refit=refit, scoring="neg_mean_squared_error")
    expected = _search_hooks(
        SkGridSearchCV(theirs, grid, **kwargs),
        X,
        y,
        propagated=propagated,
        sample_weight=sw,
    )
    got = _search_hooks(
        GridSearchCV(ours, grid, **kwargs),
        backend.asarray(X),
        backend.asarray(y),
        propagated=propagated,
        sample_weight=backend.asarray(sw),
    )
    assert _hooks(got) == _hooks(expected)
    if propagated and hasattr(ours, "set_callbacks"):  # the candidates call them
        return
    evaluations = [
        r for r in got.record if r["context"].task_name == "candidate-split-evaluation"
    ]
    assert sorted({r["context"].task_id for r in evaluations}) == list(range(9))
    for record in evaluations:  # the training rows' weights, as scikit-learn's
        weight = record["kwargs"]["metadata"]["sample_weight"]
        assert backend.to_numpy(weight).shape == (40,)
        assert record["kwargs"]["X"].shape == (40, 4)
    assert all(r["estimator"] is not None for r in got.record)


def test_search_hooks_with_pipelines_workers_and_failures(rng):
    """A Pipeline (its final step batched), work on joblib workers, and
    failing candidates: the search's own tasks are scikit-learn's."""
    X, y = _data(rng)
    grid = {"ridge__alpha": [0.1, 1.0], "standardscaler__with_std": [True, False]}
    expected = _search_hooks(
        SkGridSearchCV(make_pipeline(SkStandardScaler(), SkRidge()), grid, cv=2),
        X,
        y,
        propagated=False,
    )
    got = _search_hooks(
        GridSearchCV(make_pipeline(StandardScaler(), Ridge()), grid, cv=2),
        X,
        y,
        propagated=False,
    )
    assert _hooks(got) == _hooks(expected)

    grid = {"max_iter": [1, 2, 3]}
    expected = _search_hooks(
        SkGridSearchCV(MaxIterEstimator(), grid, cv=2, scoring="r2"),
        X,
        y,
        propagated=False,
    )
    got = _search_hooks(
        GridSearchCV(MaxIterEstimator(), grid, cv=2, scoring="r2", n_jobs=2),
        X,
        y,
        propagated=False,
    )
    assert _hooks(got) == _hooks(expected)

    class MayFail(ClassifierMixin, BaseEstimator):
        def __init__(self, fail=False):
            self.fail = fail

        def fit(self, X, y):
            self.classes_ = np.unique(y)
            if self.fail:
                raise RuntimeError("MayFail.fit failed")
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    callbacks = []
    for Search in (SkGridSearchCV, GridSearchCV):
        callback = RecordingCallback()
        search = Search(MayFail(), {"fail": [False, True]}, cv=2, error_score=0.0)
        with pytest.warns(FitFailedWarning, match="2 fits failed out of a total of 4"):
            search.set_callbacks(callback).fit(X, y)
        callbacks.append(_hooks(callback))
    assert callbacks[0] == callbacks[1]


def test_logistic_regression_hooks_match_sklearn(backend, rng):
    """One task per L-BFGS iteration, as scikit-learn's lbfgs: the fitted
    estimator of each iteration predicts as scikit-learn's does there."""
    X, y = _data(rng, 200)

    class Scores(RecordingCallback):
        def __init__(self, X_in):
            super().__init__()
            self.X_in = X_in  # in the family the estimator predicts from
            self.scores = []

        def on_fit_task_end(self, estimator, context, *, fitted_estimator=None):
            super().on_fit_task_end(estimator, context)
            if context.task_name == "lbfgs-iter" and fitted_estimator is not None:
                proba = fitted_estimator.predict_proba(self.X_in)
                self.scores.append(backend.to_numpy(proba)[:, 1])

    expected, got = Scores(X), Scores(backend.asarray(X))
    theirs = SkLogisticRegression(C=0.5).set_callbacks(expected).fit(X, y)
    model = LogisticRegression(C=0.5).set_callbacks(got)
    model.fit(backend.asarray(X), backend.asarray(y))
    assert _hooks(got) == _hooks(expected)
    assert _hooks(got)["on_fit_task_end", "lbfgs-iter"] == theirs.n_iter_[0] + 1
    assert len(got.scores) == len(expected.scores) == theirs.n_iter_[0]
    np.testing.assert_allclose(got.scores, expected.scores, rtol=0, atol=1e-8)


def test_standard_scaler_hooks_match_sklearn(backend, rng):
    X, _ = _data(rng)
    sw = rng.uniform(0.5, 2.0, len(X))
    callbacks = []
    for scaler, X_in, sw_in in (
        (SkStandardScaler(), X, sw),
        (StandardScaler(), backend.asarray(X), backend.asarray(sw)),
    ):
        callback = RecordingCallback()
        scaler.set_callbacks(callback).fit(X_in, sample_weight=sw_in)
        scaler.partial_fit(X_in, sample_weight=sw_in)
        begins = [r for r in callback.record if r["name"] == "on_fit_task_begin"]
        assert all(r["kwargs"]["metadata"]["sample_weight"] is sw_in for r in begins)
        callbacks.append(_hooks(callback))
    assert callbacks[0] == callbacks[1]
