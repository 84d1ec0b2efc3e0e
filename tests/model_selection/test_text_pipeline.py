"""Searches of text Pipelines: a stateless hashing step transforms every
document once per search (per setting of its own parameters), not once per
fold, and the results are scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer as SkHashingVectorizer
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidfTransformer
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from gpuml import config_context
from gpuml.feature_extraction.text import HashingVectorizer, TfidfTransformer
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import GridSearchCV
from tests.conftest import DEVICES

TOPICS = [["gpu", "cuda", "kernel", "memory"], ["cat", "dog", "fish", "bird"]]
SHARED = ["the", "a", "of", "gpu", "dog"]


def make_documents(rng, n: int = 300):
    y = rng.integers(0, 2, size=n)
    docs = [" ".join(rng.choice(TOPICS[label] + SHARED, size=6)) for label in y]
    return docs, y


@pytest.mark.parametrize("device", DEVICES)
def test_hashing_pipeline_search_matches_sklearn(device, rng, monkeypatch):
    docs, y = make_documents(rng)
    grid = {
        "hashingvectorizer__n_features": [2**6, 2**10],
        "logisticregression__C": [0.01, 0.1, 1.0, 10.0],
    }
    want = SkGridSearchCV(
        make_pipeline(
            SkHashingVectorizer(), SkTfidfTransformer(), SkLogisticRegression()
        ),
        grid,
        cv=3,
    ).fit(docs, y)
    rows = []
    transform = HashingVectorizer.transform

    def counting(self, X):
        rows.append(len(X))
        return transform(self, X)

    monkeypatch.setattr(HashingVectorizer, "transform", counting)
    pipeline = make_pipeline(
        HashingVectorizer(), TfidfTransformer(), LogisticRegression()
    )
    with config_context(device=device):
        got = GridSearchCV(pipeline, grid, cv=3).fit(docs, y)
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], want.cv_results_["mean_test_score"]
    )
    assert got.best_params_ == want.best_params_
    # Once per n_features for every fold and C (per fold, train and test
    # rows would be 2 x 3 x 300 per n_features); a device search refits from
    # the hashed documents it holds, the CPU hashes them again.
    assert rows == [len(docs)] * (2 if device == "gpu" else 3)
    best = got.best_estimator_
    assert isinstance(best[-1].coef_, np.ndarray)  # host in, host attributes
    assert isinstance(best[1].idf_, np.ndarray)
    np.testing.assert_array_equal(got.predict(docs), want.predict(docs))
    np.testing.assert_allclose(
        got.predict_proba(docs), want.predict_proba(docs), rtol=0, atol=1e-5
    )


@pytest.mark.parametrize("device", DEVICES)
def test_other_stateless_steps_are_fitted_per_fold(device, rng):
    """A stateless step that mixes rows (centring by the column means) must
    see each fold's rows alone, as in scikit-learn's search."""
    X = rng.normal(size=(90, 4)) + 3.0
    y = X @ rng.normal(size=4) + rng.normal(size=90)
    center = FunctionTransformer(lambda Z: Z - Z.mean(axis=0))
    grid = {"ridge__alpha": [0.1, 10.0]}
    want = SkGridSearchCV(make_pipeline(center, SkRidge()), grid, cv=3).fit(X, y)
    with config_context(device=device):
        got = GridSearchCV(make_pipeline(center, Ridge()), grid, cv=3).fit(X, y)
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], want.cv_results_["mean_test_score"]
    )


@pytest.mark.parametrize("device", DEVICES)
def test_a_failing_hashing_step_fails_every_fit(device, rng):
    docs, y = make_documents(rng, 60)
    pipeline = make_pipeline(HashingVectorizer(ngram_range=(2, 1)), Ridge())
    search = GridSearchCV(pipeline, {"ridge__alpha": [1.0, 2.0]}, error_score="raise")
    with config_context(device=device), pytest.raises(ValueError, match="lower boun"):
        search.fit(docs, y.astype(float))


def _share_equal(y_true, y_pred) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scoring", ["accuracy", "callable"])
def test_hashing_pipeline_with_string_labels(device, rng, scoring):
    """String labels (they stay on the host) and a scorer of the user's
    (candidates fitted one by one, scored through the assembled Pipeline)."""
    docs, y = make_documents(rng)
    labels = np.array(["cats", "gpus"])[y]
    scorer = make_scorer(_share_equal) if scoring == "callable" else scoring
    grid = {"logisticregression__C": [0.1, 10.0]}
    want = SkGridSearchCV(
        make_pipeline(
            SkHashingVectorizer(n_features=2**12),
            SkTfidfTransformer(),
            SkLogisticRegression(),
        ),
        grid,
        cv=3,
        scoring=scorer,
    ).fit(docs, labels)
    pipeline = make_pipeline(
        HashingVectorizer(), TfidfTransformer(), LogisticRegression()
    )
    with config_context(device=device):
        got = GridSearchCV(pipeline, grid, cv=3, scoring=scorer).fit(docs, labels)
        predicted = got.predict(docs[:20])
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"], want.cv_results_["mean_test_score"]
    )
    assert got.best_params_ == want.best_params_
    assert isinstance(predicted, np.ndarray)
    np.testing.assert_array_equal(predicted, want.predict(docs[:20]))
