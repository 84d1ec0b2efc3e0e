"""KNeighborsClassifier and KNeighborsRegressor against scikit-learn's, on
each backend; the batched search against scikit-learn's GridSearchCV.

Fresh continuous random data (no tied distances) for the parity tests: the
same predictions, probabilities and averages within 1e-12 (float64),
outputs in the input's family. Ties are tested on small-integer data, where
equal distances are everywhere: against scikit-learn on the CPU (whose
searches gpuml's CPU path is), on the GPU against an oracle that keeps,
among equal distances, the smallest indices (the GPU's rule).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import model_selection as sk_model_selection
from sklearn import neighbors as sk_neighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_limits

from gpuml.model_selection import GridSearchCV
from gpuml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from gpuml.preprocessing import StandardScaler
from tests.model_selection.test_search import _assert_ranks_match

RTOL = 1e-12


@pytest.fixture(autouse=True)
def _one_openmp_thread():
    """scikit-learn's searches of these few rows on one OpenMP thread: on a
    busy 2-core machine its threads' start-up takes 10-100 ms a search
    (the results are the same: gpuml's CPU search is scikit-learn's, under
    the same limit)."""
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


def inverse_plus_one(dist):
    """A callable weight, written for NumPy (as scikit-learn documents them):
    gpuml hands it NumPy distances on every backend."""
    assert isinstance(dist, np.ndarray), type(dist)
    return np.vectorize(lambda d: 1.0 / (1.0 + d))(dist)


WEIGHTS = ["uniform", "distance", inverse_plus_one]
METRICS = [
    ("minkowski", {}),  # euclidean: the GPU's search
    ("manhattan", {}),  # the GPU's search
    ("cosine", {}),  # the GPU's search
    ("minkowski", {"p": 3}),  # scikit-learn's search on every backend
]
# scikit-learn searches sparse data with the metrics of pairwise_distances only
CASES = [
    (metric, params, fmt)
    for metric, params in METRICS
    for fmt in ("dense", "csr")
    if fmt == "dense" or not params
]


def _data(rng, n=120, q=40, d=5, n_classes=3):
    X = rng.normal(size=(n, d))
    Q = rng.normal(size=(q, d))
    y = rng.integers(0, n_classes, n)
    return X, Q, y


def _pair(name, **params):
    ours = {"c": KNeighborsClassifier, "r": KNeighborsRegressor}[name]
    sk = {"c": sk_neighbors.KNeighborsClassifier, "r": sk_neighbors.KNeighborsRegressor}
    return ours(**params), sk[name](**params)


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("metric, params, fmt", CASES)
def test_classifier_matches_sklearn(backend, rng, fmt, weights, metric, params):
    X, Q, y = _data(rng)
    if fmt == "csr":
        X[X < 0.3] = 0.0
        Q[Q < 0.3] = 0.0
    ours, sk = _pair("c", n_neighbors=7, weights=weights, metric=metric, **params)
    ours.fit(backend.as_format(X, fmt), backend.asarray(y))
    sk.fit(sp.csr_matrix(X) if fmt == "csr" else X, y)
    backend.assert_family(ours.classes_, shape=(3,))
    assert ours.n_samples_fit_ == 120 and ours.n_features_in_ == 5
    assert ours.effective_metric_ == sk.effective_metric_
    query = backend.as_format(Q, fmt)
    want_Q = sp.csr_matrix(Q) if fmt == "csr" else Q
    got = ours.predict(query)
    backend.assert_family(got, shape=(40,))
    np.testing.assert_array_equal(backend.to_numpy(got), sk.predict(want_Q))
    proba = ours.predict_proba(query)
    backend.assert_family(proba, dtype=np.float64, shape=(40, 3))
    np.testing.assert_allclose(
        backend.to_numpy(proba), sk.predict_proba(want_Q), rtol=RTOL, atol=0
    )
    # X=None: each fitted point's neighbours without itself
    np.testing.assert_array_equal(
        backend.to_numpy(ours.predict(None)), sk.predict(None)
    )
    assert ours.score(query, backend.asarray(y[:40])) == pytest.approx(
        sk.score(want_Q, y[:40]), abs=0
    )


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("metric, params, fmt", CASES)
def test_regressor_matches_sklearn(backend, rng, fmt, weights, metric, params):
    X, Q, _ = _data(rng)
    if fmt == "csr":
        X[X < 0.3] = 0.0
        Q[Q < 0.3] = 0.0
    y = X @ rng.normal(size=5) + rng.normal(size=120)
    ours, sk = _pair("r", n_neighbors=6, weights=weights, metric=metric, **params)
    ours.fit(backend.as_format(X, fmt), backend.asarray(y))
    sk.fit(sp.csr_matrix(X) if fmt == "csr" else X, y)
    query = backend.as_format(Q, fmt)
    want_Q = sp.csr_matrix(Q) if fmt == "csr" else Q
    got = ours.predict(query)
    backend.assert_family(got, dtype=np.float64, shape=(40,))
    np.testing.assert_allclose(backend.to_numpy(got), sk.predict(want_Q), rtol=RTOL)
    np.testing.assert_allclose(
        backend.to_numpy(ours.predict(None)), sk.predict(None), rtol=RTOL
    )
    assert ours.score(query, backend.asarray(y[:40])) == pytest.approx(
        sk.score(want_Q, y[:40]), rel=RTOL
    )


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_multi_output_and_string_labels(backend, rng, weights):
    X, Q, _ = _data(rng, d=4)
    Y = np.column_stack([rng.integers(0, 3, 120), rng.integers(5, 7, 120)])
    ours, sk = _pair("c", n_neighbors=5, weights=weights)
    ours.fit(backend.asarray(X), backend.asarray(Y))
    sk.fit(X, Y)
    assert ours.outputs_2d_ and len(ours.classes_) == 2
    got = ours.predict(backend.asarray(Q))
    backend.assert_family(got, shape=(40, 2))
    np.testing.assert_array_equal(backend.to_numpy(got), sk.predict(Q))
    for g, w in zip(
        ours.predict_proba(backend.asarray(Q)), sk.predict_proba(Q), strict=True
    ):
        np.testing.assert_allclose(backend.to_numpy(g), w, rtol=RTOL)
    # multi-output regression
    R = rng.normal(size=(120, 3)).astype(np.float64)
    ours_r, sk_r = _pair("r", n_neighbors=5, weights=weights)
    got = ours_r.fit(backend.asarray(X), backend.asarray(R)).predict(backend.asarray(Q))
    backend.assert_family(got, shape=(40, 3))
    np.testing.assert_allclose(
        backend.to_numpy(got), sk_r.fit(X, R).predict(Q), rtol=RTOL
    )
    # string labels: the classes (and predictions) stay on the host
    labels = np.array(["cat", "dog", "emu"])[rng.integers(0, 3, 120)]
    ours, sk = _pair("c", n_neighbors=5, weights=weights)
    ours.fit(backend.asarray(X), labels)
    sk.fit(X, labels)
    got = ours.predict(backend.asarray(Q))
    assert isinstance(got, np.ndarray) and got.dtype == sk.predict(Q).dtype
    np.testing.assert_array_equal(got, sk.predict(Q))


def _lexicographic_neighbours(X, Q, k):
    """The GPU's rule: the k nearest rows, equal distances by smallest index."""
    D = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    order = np.lexsort((np.broadcast_to(np.arange(X.shape[0]), D.shape), D), axis=1)
    return np.sqrt(np.take_along_axis(D, order, axis=1))[:, :k], order[:, :k]


# Four fitted points around (21, 21), far from the others, two of class 1
# and two of class 2: the query (21, 21) has four equal votes.
_TIED_X = np.array([[20.0, 20.0], [20.0, 22.0], [22.0, 20.0], [22.0, 22.0]])
_TIED_Y = np.array([2, 1, 2, 1])


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_ties_in_distances_and_votes(backend, rng, weights):
    """Small-integer data: equal distances everywhere, queries on fitted
    points (distance zero), equal votes. The neighbours are scikit-learn's
    on the CPU and, on the GPU, those of smallest index among equal
    distances; the vote over them is scikit-learn's: equal votes go to the
    smallest class."""
    X = np.vstack([rng.integers(0, 3, size=(60, 2)), _TIED_X]).astype(np.float64)
    Q = np.vstack([X[:10], rng.integers(0, 3, size=(20, 2)), [[21.0, 21.0]]])
    y = np.concatenate([rng.integers(0, 4, 60), _TIED_Y])
    k = 4
    ours = KNeighborsClassifier(k, weights=weights, algorithm="brute")
    ours.fit(backend.asarray(X), backend.asarray(y))
    if backend.device == "gpu":
        dist, ind = _lexicographic_neighbours(X, Q, k)
    else:
        search = sk_neighbors.NearestNeighbors(n_neighbors=k, algorithm="brute")
        dist, ind = search.fit(X).kneighbors(Q)
    got_d, got_i = ours.kneighbors(backend.asarray(Q))
    # the same neighbours (scikit-learn orders equal distances as its sort
    # leaves them, the GPU by index)
    np.testing.assert_array_equal(
        np.sort(backend.to_numpy(got_i), axis=1), np.sort(ind, axis=1)
    )
    np.testing.assert_allclose(backend.to_numpy(got_d), dist, atol=1e-12)
    # the vote, written out: counts or weights per class
    w = np.ones_like(dist)
    if weights == "distance":
        with np.errstate(divide="ignore"):
            w = 1.0 / dist
        zero = np.isinf(w).any(axis=1)
        w[zero] = np.isinf(w[zero])
    scores = np.zeros((Q.shape[0], 4))
    for j in range(k):
        scores[np.arange(Q.shape[0]), y[ind[:, j]]] += w[:, j]
    want = np.argmax(scores, axis=1)  # the first (smallest) class of a tie
    assert want[-1] == 1 and scores[-1, 1] == scores[-1, 2]
    got = backend.to_numpy(ours.predict(backend.asarray(Q)))
    np.testing.assert_array_equal(got, want)
    proba = backend.to_numpy(ours.predict_proba(backend.asarray(Q)))
    np.testing.assert_allclose(proba, scores / scores.sum(axis=1)[:, None], rtol=RTOL)


@pytest.mark.parametrize("algorithm", ["auto", "kd_tree", "ball_tree", "brute"])
def test_ties_match_sklearn_on_the_cpu(rng, algorithm):
    """On the CPU, scikit-learn's search with the same algorithm: its
    choices among tied neighbours are kept."""
    X = rng.integers(0, 3, size=(80, 3)).astype(np.float64)
    Q = rng.integers(0, 3, size=(30, 3)).astype(np.float64)
    y = rng.integers(0, 3, 80)
    for weights in ("uniform", "distance"):
        ours, sk = _pair("c", n_neighbors=5, weights=weights, algorithm=algorithm)
        ours.fit(X, y)
        sk.fit(X, y)
        np.testing.assert_array_equal(ours.predict(Q), sk.predict(Q))
        np.testing.assert_allclose(
            ours.predict_proba(Q), sk.predict_proba(Q), rtol=RTOL
        )
        ours, sk = _pair("r", n_neighbors=5, weights=weights, algorithm=algorithm)
        np.testing.assert_allclose(
            ours.fit(X, y * 1.5).predict(Q), sk.fit(X, y * 1.5).predict(Q), rtol=RTOL
        )


def test_kneighbors_and_graph_match_sklearn(backend, rng):
    X, Q, y = _data(rng)
    ours, sk = _pair("c", n_neighbors=4)
    ours.fit(backend.asarray(X), backend.asarray(y))
    sk.fit(X, y)
    for query in (Q, None):
        q = None if query is None else backend.asarray(query)
        got_d, got_i = ours.kneighbors(q, n_neighbors=6)
        want_d, want_i = sk.kneighbors(query, n_neighbors=6)
        backend.assert_family(got_i, shape=want_i.shape)
        np.testing.assert_array_equal(backend.to_numpy(got_i), want_i)
        np.testing.assert_allclose(backend.to_numpy(got_d), want_d, rtol=1e-10)
        for mode in ("connectivity", "distance"):
            got = ours.kneighbors_graph(q, mode=mode)
            want = sk.kneighbors_graph(query, mode=mode)
            assert got.shape == want.shape
            np.testing.assert_allclose(
                backend.to_numpy(got).toarray(), want.toarray(), rtol=1e-10
            )


def test_precomputed_and_float32(backend, rng):
    X, Q, y = _data(rng)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(axis=2))
    DQ = np.sqrt(((Q[:, None] - X[None]) ** 2).sum(axis=2))
    for weights in ("uniform", "distance"):
        ours, sk = _pair("c", n_neighbors=5, weights=weights, metric="precomputed")
        ours.fit(backend.asarray(D), backend.asarray(y))
        sk.fit(D, y)
        got = ours.predict_proba(backend.asarray(DQ))
        np.testing.assert_allclose(
            backend.to_numpy(got), sk.predict_proba(DQ), rtol=RTOL
        )
    X32, Q32 = X.astype(np.float32), Q.astype(np.float32)
    y_r = X[:, 0].astype(np.float32)
    ours, sk = _pair("r", n_neighbors=5)
    got = ours.fit(backend.asarray(X32), backend.asarray(y_r)).predict(
        backend.asarray(Q32)
    )
    want = sk.fit(X32, y_r).predict(Q32)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    # the mean of five float32 targets, summed in another order on a GPU:
    # a few units in the last place of the targets' scale, not of the mean
    scale = np.finfo(np.float32).eps * np.abs(y_r).max()
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-6, atol=8 * scale)


def test_errors_match_sklearn(backend, rng):
    X, Q, y = _data(rng, n=10)
    for name in ("c", "r"):
        ours, sk = _pair(name, n_neighbors=11)
        ours.fit(backend.asarray(X), backend.asarray(y))
        sk.fit(X, y)
        for call in (
            lambda e, q: e.predict(q),
            lambda e, q: e.kneighbors(q, n_neighbors=10 if q is None else 11),
        ):
            for query in (Q, None):
                with pytest.raises(ValueError) as want:
                    call(sk, query)
                q = None if query is None else backend.asarray(query)
                with pytest.raises(ValueError) as got:
                    call(ours, q)
                assert str(got.value) == str(want.value)
        with pytest.raises(ValueError, match="Expected n_neighbors <= n_samples_fit"):
            ours.predict(backend.asarray(Q))
        for params in (
            {"n_neighbors": 0},
            {"weights": "inverse"},
            {"n_neighbors": 2.5},
        ):
            ours, sk = _pair(name, **params)
            with pytest.raises(InvalidParameterError) as want:
                sk.fit(X, y)
            with pytest.raises(InvalidParameterError) as got:
                ours.fit(backend.asarray(X), backend.asarray(y))
            assert str(got.value) == str(want.value).replace("sklearn.", "gpuml.")
        ours, sk = _pair(name, n_neighbors=3)
        ours.fit(backend.asarray(X), backend.asarray(y))
        sk.fit(X, y)
        for k, error in ((0, ValueError), (-1, ValueError), (2.0, TypeError)):
            with pytest.raises(error) as want:
                sk.kneighbors(Q, n_neighbors=k)
            with pytest.raises(error) as got:
                ours.kneighbors(backend.asarray(Q), n_neighbors=k)
            assert str(got.value) == str(want.value)
        with pytest.raises(ValueError, match="X has 2 features, but K"):
            ours.predict(backend.asarray(Q[:, :2]))
    zero = KNeighborsClassifier(3, weights=lambda d: d * 0.0)
    zero.fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(
        ValueError, match="All neighbors of some sample is getting zero"
    ):
        zero.predict(backend.asarray(Q))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        KNeighborsClassifier().fit(backend.asarray(X), backend.asarray(X[:, 0]))


# -- the batched search ------------------------------------------------------

GRID = {"n_neighbors": range(1, 16), "weights": ["uniform", "distance"]}


class _SearchSpy:
    """Counts the neighbour searches (NearestNeighbors._kneighbors) and the
    ``n_neighbors`` each was asked for."""

    def __init__(self, monkeypatch):
        self.calls = []
        search = NearestNeighbors._kneighbors
        spy = self

        def counted(self, X=None, n_neighbors=None, return_distance=True):
            spy.calls.append(n_neighbors)
            return search(self, X, n_neighbors, return_distance)

        monkeypatch.setattr(NearestNeighbors, "_kneighbors", counted)


def _assert_same_search(ours, sk):
    for key in ("mean_test_score", "std_test_score", "split0_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], sk.cv_results_[key], rtol=RTOL, atol=1e-15
        )
    # candidates whose mean scores agree to rounding may rank either way: at
    # n_neighbors=1 "uniform" and "distance" give y and (y * w) / w, which
    # tie exactly or by an ulp depending on the distances' last bits (the
    # GPU's differ from scikit-learn's in those)
    means = sk.cv_results_["mean_test_score"]
    _assert_ranks_match(
        ours.cv_results_["rank_test_score"],
        sk.cv_results_["rank_test_score"],
        means,
        1e-12,
        "rank_test_score",
    )
    top = np.sort(means)[::-1]
    if top[0] - top[1] > 1e-12:
        assert ours.best_params_ == sk.best_params_


@pytest.mark.parametrize("name", ["c", "r"])
def test_search_is_sklearns_with_one_search_per_fold(backend, rng, monkeypatch, name):
    X, _, y = _data(rng, n=150, d=4)
    if name == "r":
        y = X[:, 0] + rng.normal(size=150)
    ours, sk = _pair(name)
    spy = _SearchSpy(monkeypatch)
    search = GridSearchCV(ours, GRID, cv=5).fit(backend.asarray(X), backend.asarray(y))
    assert spy.calls == [15] * 5  # one search per fold, at the largest k
    want = sk_model_selection.GridSearchCV(sk, GRID, cv=5).fit(X, y)
    _assert_same_search(search, want)


@pytest.mark.parametrize("name", ["c", "r"])
def test_search_with_tied_distances(backend, rng, monkeypatch, name):
    """Small-integer data: a tie at the k-th neighbour in many rows. Every
    candidate gets the neighbours of its own fit: the batched search equals
    gpuml's search of the candidates one by one (a callable scorer is not
    batched) and, on the CPU, scikit-learn's."""
    X = rng.integers(0, 4, size=(150, 3)).astype(np.float64)
    y = rng.integers(0, 3, 150)
    if name == "r":
        y = X[:, 0] + rng.normal(size=150)
    ours, sk = _pair(name)
    spy = _SearchSpy(monkeypatch)
    batched = GridSearchCV(ours, GRID, cv=5).fit(backend.asarray(X), backend.asarray(y))
    if backend.device == "gpu":
        assert spy.calls == [15] * 5  # the device's prefix is its k-search
    else:  # scikit-learn's searches answer the tied rows again at each k
        assert spy.calls[0] == 15 and len(spy.calls) > 5
    spy.calls.clear()
    one_by_one = GridSearchCV(
        ours, GRID, cv=5, scoring=lambda estimator, X, y: estimator.score(X, y)
    ).fit(backend.asarray(X), backend.asarray(y))
    assert len(spy.calls) == 30 * 5  # a search per candidate and fold
    np.testing.assert_allclose(
        batched.cv_results_["mean_test_score"],
        one_by_one.cv_results_["mean_test_score"],
        rtol=RTOL,
        atol=1e-15,
    )
    if backend.device == "cpu":
        _assert_same_search(
            batched, sk_model_selection.GridSearchCV(sk, GRID, cv=5).fit(X, y)
        )


def test_search_of_a_pipeline_batches_the_final_step(backend, rng, monkeypatch):
    X, _, y = _data(rng, n=90, d=3)
    X = X * [1.0, 10.0, 100.0]
    grid = {"kneighborsregressor__n_neighbors": [1, 3, 8]}
    grid["kneighborsregressor__weights"] = ["uniform", "distance"]
    spy = _SearchSpy(monkeypatch)
    ours = GridSearchCV(
        make_pipeline(StandardScaler(), KNeighborsRegressor()), grid, cv=3
    ).fit(backend.asarray(X), backend.asarray(X[:, 0] + y))
    assert spy.calls == [8] * 3
    sk = sk_model_selection.GridSearchCV(
        make_pipeline(SkStandardScaler(), sk_neighbors.KNeighborsRegressor()),
        grid,
        cv=3,
    ).fit(X, X[:, 0] + y)
    _assert_same_search(ours, sk)


def test_search_auto_splits_tree_and_brute_candidates(rng, monkeypatch):
    """algorithm="auto": scikit-learn searches candidates with n_neighbors
    below half the fold's rows by a tree and the others by brute force; one
    search per side and fold (continuous data), and scikit-learn's results
    where the two searches break ties otherwise (small-integer data)."""
    grid = {"n_neighbors": [3, 5, 13, 14], "weights": ["uniform", "distance"]}
    sk = sk_model_selection.GridSearchCV(
        sk_neighbors.KNeighborsClassifier(), grid, cv=3
    )
    y = rng.integers(0, 2, 30)
    spy = _SearchSpy(monkeypatch)
    X = rng.normal(size=(30, 2))
    ours = GridSearchCV(KNeighborsClassifier(), grid, cv=3).fit(X, y)
    assert spy.calls == [5, 14] * 3  # the tree's side (k < 10), brute force's
    _assert_same_search(ours, sk.fit(X, y))
    X = rng.integers(0, 3, size=(30, 2)).astype(np.float64)
    ours = GridSearchCV(KNeighborsClassifier(), grid, cv=3).fit(X, y)
    _assert_same_search(ours, sk.fit(X, y))


def test_search_precomputed_is_fitted_one_by_one(backend, rng, monkeypatch):
    """A distance matrix's folds are blocks (the training rows' columns):
    not the protocol's rows, so its candidates are fitted one by one, as
    scikit-learn's."""
    X, _, y = _data(rng, n=60, d=3)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(axis=2))
    grid = {"n_neighbors": [1, 5], "weights": ["uniform", "distance"]}
    estimator = KNeighborsClassifier(metric="precomputed")
    assert estimator._batch_params() == frozenset()
    spy = _SearchSpy(monkeypatch)
    ours = GridSearchCV(estimator, grid, cv=3).fit(
        backend.asarray(D), backend.asarray(y)
    )
    assert len(spy.calls) == 4 * 3
    sk = sk_model_selection.GridSearchCV(
        sk_neighbors.KNeighborsClassifier(metric="precomputed"), grid, cv=3
    )
    _assert_same_search(ours, sk.fit(D, y))


def test_search_multimetric_and_errors(backend, rng, monkeypatch):
    X, _, y = _data(rng, n=90, d=3)
    spy = _SearchSpy(monkeypatch)
    scoring = ["accuracy", "neg_log_loss"]
    grid = {"n_neighbors": [1, 4, 9], "weights": ["uniform", "distance"]}
    ours = GridSearchCV(
        KNeighborsClassifier(), grid, cv=3, scoring=scoring, refit=False
    )
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert spy.calls == [9] * 3  # predict and predict_proba share the search
    sk = sk_model_selection.GridSearchCV(
        sk_neighbors.KNeighborsClassifier(), grid, cv=3, scoring=scoring, refit=False
    ).fit(X, y)
    for key in ("mean_test_accuracy", "mean_test_neg_log_loss"):
        np.testing.assert_allclose(
            ours.cv_results_[key], sk.cv_results_[key], rtol=RTOL
        )
    # a candidate beyond a fold's rows: its own error, the others scored
    grid = {"n_neighbors": [2, 80], "weights": ["uniform"]}
    search = GridSearchCV(KNeighborsClassifier(), grid, cv=3, error_score=np.nan)
    with pytest.warns(UserWarning):  # FitFailedWarning and non-finite scores
        search.fit(backend.asarray(X), backend.asarray(y))
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores[0]) and np.isnan(scores[1])
