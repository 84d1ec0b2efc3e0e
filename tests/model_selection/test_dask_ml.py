"""gpuml's estimators inside dask-ml's searches (skipped without dask-ml).

dask-ml's ``GridSearchCV`` and ``RandomizedSearchCV`` treat gpuml's
estimators and Pipelines as the scikit-learn estimators they are: the same
``cv_results_`` and best parameters as dask-ml's search of scikit-learn's
estimators, and as scikit-learn's search where dask-ml's means agree with
scikit-learn's (folds of equal size: dask-ml weights each fold's score by
its size). On a CPU ``LocalCluster`` here; each worker computes where
gpuml's device policy says (the GPU on the GPU machine).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import loguniform
from sklearn.datasets import make_classification, make_regression
from sklearn.feature_extraction.text import HashingVectorizer as SkHashingVectorizer
from sklearn.feature_extraction.text import TfidfTransformer as SkTfidfTransformer
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml.feature_extraction.text import HashingVectorizer, TfidfTransformer
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.preprocessing import StandardScaler

dask_ml_search = pytest.importorskip("dask_ml.model_selection")
pytest.importorskip("distributed")  # the shared cluster fixture

TIGHT = dict(tol=1e-10, max_iter=10000)


@pytest.fixture(scope="module")
def current_client(client):
    """The shared in-process cluster's client as the current one, which is
    where dask-ml looks for it."""
    with client.as_current():
        yield client


def _regression():
    return make_regression(240, 8, noise=5.0, random_state=0)


def _classification():
    return make_classification(240, 8, n_informative=5, random_state=0)


def _text():
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(60)])
    y = rng.integers(0, 2, 240)
    docs = [" ".join(rng.choice(words[: 40 + 20 * label], size=20)) for label in y]
    return docs, y


CASES = {
    "ridge": (
        lambda: Ridge(),
        lambda: SkRidge(),
        {"alpha": [0.01, 1.0, 100.0]},
        _regression,
    ),
    "logistic": (
        lambda: LogisticRegression(**TIGHT),
        lambda: SkLogisticRegression(**TIGHT),
        {"C": [0.01, 1.0, 100.0]},
        _classification,
    ),
    "scaled ridge": (
        lambda: make_pipeline(StandardScaler(), Ridge()),
        lambda: make_pipeline(SkStandardScaler(), SkRidge()),
        {"ridge__alpha": [0.1, 10.0], "standardscaler__with_mean": [True, False]},
        _regression,
    ),
    "text": (
        lambda: make_pipeline(
            HashingVectorizer(n_features=2**10),
            TfidfTransformer(),
            LogisticRegression(**TIGHT),
        ),
        lambda: make_pipeline(
            SkHashingVectorizer(n_features=2**10),
            SkTfidfTransformer(),
            SkLogisticRegression(**TIGHT),
        ),
        {"logisticregression__C": [0.1, 10.0]},
        _text,
    ),
}


def _assert_same_search(ours, theirs, atol):
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=0,
        atol=atol,
    )
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_index_ == theirs.best_index_


@pytest.mark.parametrize("case", list(CASES))
def test_grid_search_matches_sklearn(current_client, case):
    ours_factory, theirs_factory, grid, data = CASES[case]
    X, y = data()
    # L-BFGS stops within its tolerance of scikit-learn's optimum
    atol = 1e-6 if "ridge" in case else 1e-4
    search = dict(cv=3, scheduler=current_client)
    ours = dask_ml_search.GridSearchCV(ours_factory(), grid, **search).fit(X, y)
    theirs = dask_ml_search.GridSearchCV(theirs_factory(), grid, **search).fit(X, y)
    _assert_same_search(ours, theirs, atol)
    # 240 rows, three folds of 80: dask-ml's means are scikit-learn's
    sklearn_search = SkGridSearchCV(theirs_factory(), grid, cv=3).fit(X, y)
    _assert_same_search(ours, sklearn_search, atol)
    # the refitted best estimator is gpuml's, predicting as scikit-learn's
    assert type(ours.best_estimator_) is type(ours_factory())
    np.testing.assert_allclose(
        np.asarray(ours.predict(X[:20])),
        sklearn_search.predict(X[:20]),
        rtol=1e-5,
        atol=1e-5,
    )


def test_randomized_search_matches_sklearn(current_client):
    X, y = _classification()
    distributions = {"logisticregression__C": loguniform(1e-3, 1e2)}
    search = dict(n_iter=4, cv=3, random_state=0, scheduler=current_client)
    ours = dask_ml_search.RandomizedSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression(**TIGHT)),
        distributions,
        **search,
    ).fit(X, y)
    theirs = dask_ml_search.RandomizedSearchCV(
        make_pipeline(SkStandardScaler(), SkLogisticRegression(**TIGHT)),
        distributions,
        **search,
    ).fit(X, y)
    assert [p["logisticregression__C"] for p in ours.cv_results_["params"]] == [
        p["logisticregression__C"] for p in theirs.cv_results_["params"]
    ]
    _assert_same_search(ours, theirs, 1e-4)
