"""KMeans in batched searches: the restarts of every ``n_clusters`` and
``n_init`` candidate of a fold run as one batched Lloyd iteration (runs with
fewer clusters padded), with scikit-learn's results.

On the CPU each candidate's iterates and seeds are those of its own fit, so
the searches' scores are scikit-learn's to rounding of the score's sum; on
the GPU (sums in another order) the same up to near-ties, checked against
gpuml's own one-by-one fits.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans as SkKMeans
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold
from sklearn.model_selection import validation_curve as sk_validation_curve
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml import config_context
from gpuml.cluster import KMeans, _lloyd
from gpuml.cluster import _kmeans as kmeans_module
from gpuml.model_selection import GridSearchCV, validation_curve
from gpuml.preprocessing import StandardScaler
from tests.conftest import DEVICES


def _blobs(rng, n=450, p=4, k=5):
    centers = rng.normal(0, 5, size=(k, p))
    X = np.concatenate([c + rng.normal(size=(n // k, p)) for c in centers])
    return X[rng.permutation(len(X))]


def _calls(device, runs, widths, folds=3):
    """The Lloyd batches of a search's folds: on the GPU one a fold, every
    candidate's runs padded to the widest; on the CPU one a candidate."""
    if device == "gpu":
        return [(sum(runs), max(widths), 4)] * folds
    return [(r, k, 4) for r, k in zip(runs, widths, strict=True)] * folds


@pytest.fixture
def lloyd_calls(monkeypatch):
    """The centres' shapes of every batched Lloyd iteration a fit runs."""
    calls = []
    original = kmeans_module.lloyd

    def spy(X, w, w_host, centers, *args, **kwargs):
        calls.append(tuple(centers.shape))
        return original(X, w, w_host, centers, *args, **kwargs)

    monkeypatch.setattr(kmeans_module, "lloyd", spy)
    return calls


def _close(ours, theirs, rtol):
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], rtol)


@pytest.mark.parametrize("device", DEVICES)
def test_one_lloyd_batch_a_fold_with_scikit_learns_scores(device, rng, lloyd_calls):
    """A grid over n_clusters x n_init: per fold one Lloyd batch of every
    candidate's restarts on the GPU (1 + 3 runs for each of 4 n_clusters,
    padded to 8 clusters), one a candidate on the CPU, then the refit;
    scikit-learn's scores and best."""
    X = _blobs(rng)
    grid = {"n_clusters": [2, 3, 5, 8], "n_init": [1, 3]}
    with config_context(device=device):
        ours = GridSearchCV(KMeans(random_state=0), grid, cv=3).fit(X)
    theirs = SkGridSearchCV(SkKMeans(random_state=0), grid, cv=3).fit(X)
    widths = [2, 2, 3, 3, 5, 5, 8, 8]
    runs = [1, 3] * 4  # (the grid's order: n_init varies fastest)
    assert lloyd_calls[:-1] == _calls(device, runs, widths)
    assert lloyd_calls[-1] == (ours.best_estimator_.n_init, 8, 4)  # the refit
    _close(ours, theirs, 1e-12 if device == "cpu" else 1e-6)
    assert ours.best_params_ == theirs.best_params_


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "case",
    ["pipeline", "sample_weight", "random_init", "random_state_object", "sparse"],
)
def test_batched_searches_as_scikit_learns(device, rng, lloyd_calls, case):
    """Batched in a Pipeline after a scaler, with fit weights, with
    'random' init, with a RandomState (each fit a fresh copy of it, as
    scikit-learn's clone gives), and on sparse rows (not centred)."""
    X = _blobs(rng)
    if case == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) > 2.0, X, 0.0))
    kmeans = {"random_state": 3}
    fit_params = {}
    if case == "random_init":
        kmeans["init"] = "random"
    if case == "random_state_object":
        kmeans["random_state"] = np.random.RandomState(5)
    if case == "sample_weight":
        fit_params["sample_weight"] = rng.uniform(0.5, 2.0, len(X))
    grid = {"n_clusters": [2, 4, 6]}
    ours_model, their_model = KMeans(**kmeans), SkKMeans(**kmeans)
    if case == "pipeline":
        grid = {"kmeans__n_clusters": grid["n_clusters"]}
        ours_model = make_pipeline(StandardScaler(), ours_model)
        their_model = make_pipeline(SkStandardScaler(), their_model)
    with config_context(device=device):
        ours = GridSearchCV(ours_model, grid, cv=3).fit(X, **fit_params)
    theirs = SkGridSearchCV(their_model, grid, cv=3).fit(X, **fit_params)
    runs = [10 if case == "random_init" else 1] * 3  # n_init="auto"
    assert lloyd_calls[:-1] == _calls(device, runs, [2, 4, 6])
    _close(ours, theirs, 1e-12 if device == "cpu" else 1e-6)
    assert ours.best_params_ == theirs.best_params_


@pytest.mark.parametrize("device", DEVICES)
def test_supervised_scorer_scores_batched_labels(device, rng, lloyd_calls):
    """A scorer of labels (adjusted Rand index against y) scores the batch's
    stacked predictions; scikit-learn's scores."""
    X = _blobs(rng)
    y = rng.integers(0, 4, len(X))
    grid = {"n_clusters": [2, 4, 6]}
    with config_context(device=device):
        ours = GridSearchCV(
            KMeans(random_state=0), grid, cv=3, scoring="adjusted_rand_score"
        ).fit(X, y)
    theirs = SkGridSearchCV(
        SkKMeans(random_state=0), grid, cv=3, scoring="adjusted_rand_score"
    ).fit(X, y)
    assert lloyd_calls[:-1] == _calls(device, [1, 1, 1], [2, 4, 6])
    _close(ours, theirs, 1e-12 if device == "cpu" else 1e-6)


def test_a_failing_candidate_fails_alone(rng, lloyd_calls):
    """More clusters than a fold's samples: the batch raises, its
    candidates are fitted one by one, and only that one scores NaN with
    scikit-learn's FitFailedWarning."""
    X = _blobs(rng, n=60)
    grid = {"n_clusters": [2, 50]}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = GridSearchCV(KMeans(random_state=0), grid, cv=3).fit(X)
    assert any(issubclass(w.category, FitFailedWarning) for w in seen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = SkGridSearchCV(SkKMeans(random_state=0), grid, cv=3).fit(X)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )
    assert np.isnan(ours.cv_results_["mean_test_score"][1])
    # the batch raised before any iteration; then one by one: a Lloyd call
    # for each fold's fit with 2 clusters (50 fails first), and the refit
    assert lloyd_calls == [(1, 2, 4)] * 4


def test_validation_curve_batched(rng, lloyd_calls):
    X = _blobs(rng)
    ours = validation_curve(
        KMeans(random_state=1), X, None, param_name="n_clusters",
        param_range=[2, 3, 4], cv=3,
    )  # fmt: skip
    theirs = sk_validation_curve(
        SkKMeans(random_state=1), X, None, param_name="n_clusters",
        param_range=[2, 3, 4], cv=3,
    )  # fmt: skip
    assert lloyd_calls == _calls("cpu", [1, 1, 1], [2, 3, 4])
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


def test_not_batched_where_a_fit_runs_otherwise(rng, lloyd_calls):
    """An array or callable init fixes the clusters, verbose prints run by
    run: those candidates are fitted one by one."""
    X = _blobs(rng, n=150)
    for params in ({"init": X[:3]}, {"verbose": 1}):
        assert KMeans(**params)._batch_params() == frozenset()
    assert KMeans()._batch_params() == {"n_clusters", "n_init"}
    grid = {"init": [X[:3], X[3:6]]}
    GridSearchCV(KMeans(n_clusters=3), grid, cv=3).fit(X)
    assert all(shape[0] == 1 for shape in lloyd_calls)


@pytest.mark.parametrize("device", DEVICES)
def test_padded_runs_iterate_as_alone(device, rng):
    """Runs of 2, 5 and 7 clusters in one batch (padded to 7), one of them
    started with a repeated centre so that a cluster empties and is
    relocated: each run's centres, labels and iterations are those it has
    alone; the padding stays at zero and takes no sample."""
    from gpuml._array import compute_namespace, to_host

    X = _blobs(rng, n=300)
    X -= X.mean(axis=0)
    starts = [X[:2], X[10:15], np.concatenate([X[20:26], X[20:21]])]
    with config_context(device=device):
        xp = compute_namespace()
        Xd = xp.asarray(X)
        w = xp.ones(len(X))
        x_sq = _lloyd.sq_norms(Xd, xp)
        padded = np.zeros((3, 7, X.shape[1]))
        for r, start in enumerate(starts):
            padded[r, : len(start)] = start
        kwargs = {"max_iter": 100, "tol": 1e-6, "xp": xp}
        together = _lloyd.lloyd(
            Xd, w, np.ones(len(X)), xp.asarray(padded), x_sq,
            n_valid=np.array([2, 5, 7]), **kwargs,
        )  # fmt: skip
        for r, start in enumerate(starts):
            alone = _lloyd.lloyd(
                Xd, w, np.ones(len(X)), xp.asarray(start[None]), x_sq, **kwargs
            )
            k = len(start)
            np.testing.assert_array_equal(
                to_host(together[0][r, :k]), to_host(alone[0][0])
            )
            np.testing.assert_array_equal(to_host(together[1][r]), to_host(alone[1][0]))
            assert together[2][r] == alone[2][0]
            assert not to_host(together[0][r, k:]).any()
            assert to_host(together[1][r]).max() < k


@pytest.mark.parametrize("device", DEVICES)
def test_zero_weights_fail_as_one_by_one(device, rng):
    """Weights all zero in a fold's test rows (scored with them: KMeans.score
    raises, the fold scores NaN) or in its training rows (the fit raises):
    scikit-learn's scores, never a number where its score or fit raises."""
    X = _blobs(rng, n=90)
    grid = {"n_clusters": [2, 3]}
    for w in (np.r_[np.zeros(30), np.ones(60)], np.r_[np.ones(30), np.zeros(60)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with config_context(device=device):
                ours = GridSearchCV(KMeans(random_state=0), grid, cv=KFold(3))
                ours.fit(X, sample_weight=w)
            theirs = SkGridSearchCV(SkKMeans(random_state=0), grid, cv=KFold(3))
            theirs.fit(X, sample_weight=w)
        for i in range(3):
            key = f"split{i}_test_score"
            np.testing.assert_allclose(
                ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-6
            )
