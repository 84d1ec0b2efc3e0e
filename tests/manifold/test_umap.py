"""UMAP: quality, reproducibility, the API, and the device's steps against
the NumPy path (the oracle), on each backend.

Quality is trustworthiness (k=15): umap-learn reaches 0.988 on the digits
(0.5.12, default settings, measured when this test was written); these
tests run shorter fits on subsets to stay fast on a CPU, with thresholds
that a broken graph or layout does not reach (a random layout scores about
0.5, PCA of the digits 0.86).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_blobs
from sklearn.neighbors import KNeighborsClassifier

from gpuml import config_context
from gpuml._array import to_host
from gpuml.manifold import UMAP
from gpuml.manifold import _umap_graph as graph_steps
from gpuml.manifold import _umap_layout as layout_steps
from gpuml.metrics import trustworthiness
from tests.conftest import DEVICES


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:500], y[:500]


def test_digits_quality_and_output(backend, digits):
    X, _ = digits
    model = UMAP(n_epochs=150, random_state=0)
    E = model.fit_transform(backend.asarray(X))
    backend.assert_family(E, dtype=np.float32, shape=(500, 2))
    backend.assert_family(model.embedding_, dtype=np.float32, shape=(500, 2))
    assert model.n_features_in_ == 64
    score = trustworthiness(X, backend.to_numpy(E), n_neighbors=15)
    assert score > 0.96, score
    graph = backend.to_numpy(model.graph_)
    assert sp.issparse(graph) and graph.shape == (500, 500)
    assert abs(graph - graph.T).max() < 1e-6  # a fuzzy union is symmetric
    assert graph.data.min() > 0 and graph.data.max() <= 1.0
    assert graph.diagonal().max() == 0


def test_seeded_fit_repeats(backend, digits):
    X = backend.asarray(digits[0][:200])
    first = backend.to_numpy(UMAP(n_epochs=40, random_state=3).fit_transform(X))
    again = backend.to_numpy(UMAP(n_epochs=40, random_state=3).fit_transform(X))
    other = backend.to_numpy(UMAP(n_epochs=40, random_state=4).fit_transform(X))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_transform_new_points(backend):
    X, _ = load_digits(return_X_y=True)
    model = UMAP(n_epochs=120, random_state=0).fit(backend.asarray(X[:400]))
    # every other digit (1,397; 0.942-0.955 over 12 seeds on the CPU: 100
    # points gave 0.87-0.94, too few to measure)
    E = model.transform(backend.asarray(X[400:]))
    backend.assert_family(E, dtype=np.float32, shape=(1397, 2))
    assert np.isfinite(backend.to_numpy(E)).all()
    assert trustworthiness(X[400:], backend.to_numpy(E), n_neighbors=10) > 0.93
    np.testing.assert_array_equal(
        backend.to_numpy(E), backend.to_numpy(model.transform(backend.asarray(X[400:])))
    )


def test_supervised_separates_classes(backend, digits):
    X, y = digits
    labels = y.copy()
    labels[::4] = -1  # semi-supervised: a quarter unlabelled
    plain = backend.to_numpy(
        UMAP(n_epochs=100, random_state=0).fit_transform(backend.asarray(X))
    )
    guided = backend.to_numpy(
        UMAP(n_epochs=100, random_state=0, target_weight=0.8).fit_transform(
            backend.asarray(X), labels
        )
    )

    def accuracy(E):
        known = labels != -1
        knn = KNeighborsClassifier(5).fit(E[known], y[known])
        return knn.score(E[~known], y[~known])

    assert accuracy(guided) >= accuracy(plain) - 0.01
    assert accuracy(guided) > 0.9


@pytest.mark.parametrize(
    "settings",
    [
        dict(metric="cosine"),
        dict(metric="manhattan", init="pca"),
        dict(metric="correlation", init="random"),
        dict(n_components=3, min_dist=0.5, spread=2.0),
        dict(set_op_mix_ratio=0.5, local_connectivity=2.0, negative_sample_rate=2),
        dict(a=1.5, b=0.8, repulsion_strength=2.0, learning_rate=0.5),
    ],
)
def test_settings(backend, settings):
    X, _ = make_blobs(300, 8, centers=4, random_state=0)
    E = UMAP(n_epochs=60, random_state=0, **settings).fit_transform(backend.asarray(X))
    dim = settings.get("n_components", 2)
    backend.assert_family(E, dtype=np.float32, shape=(300, dim))
    assert trustworthiness(X, backend.to_numpy(E), n_neighbors=10) > 0.85


def test_precomputed_and_given_init(backend, rng):
    X, _ = make_blobs(200, 5, centers=3, random_state=1)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    E = UMAP(metric="precomputed", n_epochs=60, random_state=0).fit_transform(
        backend.asarray(D)
    )
    assert trustworthiness(X, backend.to_numpy(E), n_neighbors=10) > 0.85
    init = rng.normal(size=(200, 2))
    E = UMAP(init=init, n_epochs=30, random_state=0).fit_transform(backend.asarray(X))
    assert backend.to_numpy(E).shape == (200, 2)
    with pytest.raises(ValueError, match="init must have shape"):
        UMAP(init=init[:10]).fit(backend.asarray(X))
    model = UMAP(metric="precomputed", n_epochs=5).fit(backend.asarray(D))
    with pytest.raises(ValueError, match="features"):  # distances to 200 points
        model.transform(backend.asarray(D[:, :10]))


def test_sparse_precomputed_knn_graph(backend):
    """A kNN graph of distances (sparse) gives the embedding of the dense
    distance matrix: the same neighbours, the same graph, the same seed."""
    from sklearn.neighbors import NearestNeighbors as SkNearestNeighbors

    X, _ = make_blobs(250, 5, centers=3, random_state=2)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    nearest = np.argsort(D, axis=1, kind="stable")[:, 1:10]  # 9 others, D's values
    rows = np.repeat(np.arange(250), 9)
    graph = sp.csr_matrix(
        (D[rows, nearest.ravel()], (rows, nearest.ravel())), shape=D.shape
    )
    # the blobs' graph is not connected: a dense matrix starts from its
    # classical scaling, a sparse one at random, so both start at random here
    settings = dict(metric="precomputed", n_neighbors=10, n_epochs=40, random_state=0)
    settings["init"] = "random"
    dense = UMAP(**settings).fit(backend.asarray(D))
    sparse = UMAP(**settings).fit(backend.as_format(graph.toarray(), "csr"))
    dense_graph, sparse_graph = (to_host(m.graph_) for m in (dense, sparse))
    assert abs(dense_graph - sparse_graph).max() == 0
    np.testing.assert_array_equal(
        backend.to_numpy(sparse.embedding_), backend.to_numpy(dense.embedding_)
    )
    assert trustworthiness(X, backend.to_numpy(sparse.embedding_), n_neighbors=9) > 0.85
    # fewer stored neighbours than n_neighbors: padded, not an error
    thin = SkNearestNeighbors(n_neighbors=4).fit(X).kneighbors_graph(mode="distance")
    E = UMAP(**settings).fit_transform(backend.as_format(thin.toarray(), "csr"))
    assert np.isfinite(backend.to_numpy(E)).all()


def test_small_and_invalid_inputs(backend):
    X, _ = make_blobs(12, 3, random_state=0)
    with pytest.warns(UserWarning, match="n_neighbors is larger than the dataset"):
        E = UMAP(n_epochs=10, random_state=0).fit_transform(backend.asarray(X))
    assert backend.to_numpy(E).shape == (12, 2)
    with pytest.raises(ValueError, match="n_neighbors"):
        UMAP(n_neighbors=1).fit(backend.asarray(X))
    with pytest.raises(ValueError, match="square"):
        UMAP(metric="precomputed").fit(backend.asarray(X))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        UMAP().fit(backend.asarray(bad))


def test_memberships_follow_umap_rules():
    """smooth_knn on a hand-made row: rho is the first nonzero distance,
    memberships sum to log2(k) (first column left out), self gets 0."""
    dists = np.array([[0.0, 1.0, 1.5, 2.0, 4.0, 8.0]])
    index = np.array([[0, 1, 2, 3, 4, 5]])
    values, sigma, rho = graph_steps.memberships_numpy(
        dists, index, 1.0, bipartite=False
    )
    assert rho[0] == 1.0
    assert values[0, 0] == 0 and values[0, 1] == 1.0
    assert values[0, 1:].sum() == pytest.approx(np.log2(6), abs=1e-4)
    np.testing.assert_allclose(
        values[0, 2:], np.exp(-(dists[0, 2:] - 1.0) / sigma[0]), rtol=1e-6
    )


@pytest.mark.gpu
@pytest.mark.parametrize("one_part_up_to", [4096, 0])  # one part; four
def test_device_steps_match_numpy(rng, monkeypatch, one_part_up_to):
    """Each device step against the NumPy path on the same input, the
    layout in one part per epoch and in several."""
    import cupy

    monkeypatch.setattr(layout_steps, "ONE_PART_UP_TO", one_part_up_to)

    from gpuml.neighbors._search import device_kneighbors

    X, _ = make_blobs(400, 6, centers=5, random_state=2)
    Xd = cupy.asarray(X)
    with config_context(device="gpu"):
        dists, index = device_kneighbors(Xd, Xd, 11, "euclidean")
        values_d = graph_steps.memberships_device(dists, index, 1.3, bipartite=False)
        values_h, _, _ = graph_steps.memberships_numpy(
            dists.get(), index.get(), 1.3, bipartite=False
        )
        np.testing.assert_allclose(values_d.get(), values_h, rtol=1e-5, atol=1e-6)
        edges_d, top = graph_steps.union_device(values_d, index, 0.7)
        edges_h = graph_steps.union_numpy(values_h, index.get(), 0.7)
        np.testing.assert_allclose(
            edges_d.csr().toarray(), edges_h.csr().toarray(), rtol=1e-5, atol=1e-7
        )
        periods_d = graph_steps.schedule_device(edges_d.weights, top, 50, 50)
        kept = periods_d.get() > 0
        assert kept.sum() > 400
        h = graph_steps.schedule_numpy(edges_d.weights.get(), 50, 50)
        np.testing.assert_allclose(periods_d.get()[kept], h[kept], rtol=1e-5)
        # Fortran order, as NumPy's eigenvectors come: the layouts read rows
        start = np.asfortranarray(rng.uniform(0, 10, size=(400, 2)).astype(np.float32))
        settings = layout_steps.LayoutSettings(
            a=1.58,
            b=0.9,
            gamma=1.0,
            initial_alpha=1.0,
            negative_rate=5,
            same_space=True,
            seed=12345,
        )
        got = layout_steps.layout_device(
            cupy.asarray(start),
            None,
            edges_d.indptr,
            edges_d.keys,
            periods_d,
            3,
            settings,
        )
        want = layout_steps.layout_numpy(
            start,
            None,
            edges_d.indptr.get(),
            edges_d.keys.get(),
            periods_d.get(),
            3,
            settings,
        )
        np.testing.assert_allclose(got.get(), want, rtol=1e-3, atol=1e-3)


@pytest.mark.gpu
def test_memory_error_names_the_fix(monkeypatch):
    from gpuml.manifold import _umap

    monkeypatch.setattr(_umap, "memory_estimate", lambda *args: 1 << 60)
    X, _ = make_blobs(50, 3, random_state=0)
    with config_context(device="gpu"), pytest.raises(MemoryError, match="device='cpu'"):
        UMAP().fit(X)


@pytest.mark.gpu
def test_device_limits_are_errors():
    X, _ = make_blobs(50, 3, random_state=0)
    with (
        config_context(device="gpu"),
        pytest.raises(ValueError, match="n_components <= 16"),
    ):
        # with cuML installed, engine="auto" would run cuML's instead
        UMAP(n_components=17, engine="gpuml").fit(X)


@pytest.mark.parametrize("device", DEVICES)
def test_in_a_pipeline(device, digits):
    from sklearn.pipeline import make_pipeline

    X, y = digits
    with config_context(device=device):
        pipe = make_pipeline(
            UMAP(n_epochs=100, random_state=0), KNeighborsClassifier(5)
        )
        pipe.fit(X[:400], y[:400])
        # new points go through transform: umap-learn 0.5.12 scores 0.81-0.83
        # on this split (seeds 0 and 1)
        assert pipe.score(X[400:], y[400:]) > 0.75


@pytest.mark.gpu
def test_device_connectivity_and_normalised_adjacency():
    """The device's connectedness check and D^-1/2 W D^-1/2 against SciPy's."""
    import cupy
    from scipy.sparse.csgraph import connected_components

    from gpuml.neighbors._search import device_kneighbors

    for centers, std in ((3, 30.0), (4, 0.05)):  # one component, then several
        X, _ = make_blobs(600, 4, centers=centers, cluster_std=std, random_state=0)
        Xd = cupy.asarray(X)
        with config_context(device="gpu"):
            dists, index = device_kneighbors(Xd, Xd, 8, "euclidean")
            values = graph_steps.memberships_device(dists, index, 1.0, bipartite=False)
            edges, _ = graph_steps.union_device(values, index, 1.0)
            graph = edges.csr()
            want = connected_components(graph, directed=False)[0] == 1
            assert graph_steps.connected_device(edges) == want
            assert want == (std > 1)
            degree = np.asarray(graph.sum(axis=0)).ravel()
            scale = sp.diags(1.0 / np.sqrt(degree))
            expected = (scale @ graph.astype(np.float64) @ scale).toarray()
            matrix = graph_steps.normalised_adjacency_device(edges)
            indptr, columns, values = (a.get() for a in matrix)
            got = sp.csr_matrix((values, columns, indptr), shape=(600, 600)).toarray()
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)
            if want:  # Lanczos against a dense eigensolver
                theta, vectors = graph_steps.top_eigenvectors_device(
                    matrix, 3, tol=1e-8
                )
                exact, exact_vectors = np.linalg.eigh(expected)
                np.testing.assert_allclose(theta, exact[::-1][:3], rtol=1e-6)
                overlap = np.abs((vectors * exact_vectors[:, ::-1][:, :3]).sum(axis=0))
                np.testing.assert_allclose(overlap, 1.0, rtol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_search_shares_a_folds_neighbours(device, digits, monkeypatch):
    """Searched over a UMAP parameter that leaves the kNN graph alone, each
    fold's neighbours are searched once for all candidates (its training
    rows', its test rows'), with the results of a search that shares
    nothing."""
    from sklearn.pipeline import make_pipeline

    from gpuml.manifold import _umap
    from gpuml.model_selection import GridSearchCV

    X, y = digits
    X, y = X[:240], y[:240]
    calls = []
    real = _umap._kneighbors

    def counting(*args):
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(_umap, "_kneighbors", counting)
    pipe = make_pipeline(UMAP(n_epochs=20, random_state=0), KNeighborsClassifier(3))
    grid = {"umap__min_dist": [0.05, 0.5], "kneighborsclassifier__n_neighbors": [3, 5]}
    with config_context(device=device):
        shared = GridSearchCV(pipe, grid, cv=2, refit=False).fit(X, y)
        assert len(calls) == 2 * 2  # 2 folds x (training rows, test rows)
        calls.clear()
        with_k = {**grid, "umap__n_neighbors": [10, 15]}
        GridSearchCV(pipe, with_k, cv=2, refit=False).fit(X, y)
        assert len(calls) == 2 * 2 * 2  # one search per fold and n_neighbors
        monkeypatch.setattr(
            _umap, "neighbours_of", lambda rows, q, key, compute: compute()
        )
        alone = GridSearchCV(pipe, grid, cv=2, refit=False).fit(X, y)
    np.testing.assert_array_equal(
        shared.cv_results_["mean_test_score"], alone.cv_results_["mean_test_score"]
    )


# -- supervised UMAP's target metrics ------------------------------------------


def _supervised_case(rng):
    X = rng.normal(size=(200, 5))
    labels = rng.integers(0, 4, 200)
    return X, labels


TARGETS = {
    "categorical": lambda labels, rng: labels,
    "ordinal": lambda labels, rng: 3 * labels,
    "count": lambda labels, rng: labels**2 + 2 * labels + 1,
    "string": lambda labels, rng: np.array(["ab", "abc", "xyz", "q"])[labels],
    "manhattan": lambda labels, rng: labels.astype(float),  # ties
    "euclidean": lambda labels, rng: rng.normal(size=(labels.shape[0], 2)),
}


@pytest.mark.parametrize("metric", list(TARGETS))
@pytest.mark.parametrize("weight", [0.3, 0.8])
def test_target_metrics_give_umap_learns_graph(rng, metric, weight):
    """Every target metric combines the graphs as umap-learn 0.5.12 does
    (the same graph, up to the memberships' search tolerance)."""
    with warnings.catch_warnings():  # no TensorFlow: ParametricUMAP's warning
        warnings.simplefilter("ignore")
        umap = pytest.importorskip("umap")
    X, labels = _supervised_case(rng)
    y = TARGETS[metric](labels, rng)
    params = dict(n_neighbors=10, n_epochs=5, random_state=0)
    params.update(target_metric=metric, target_weight=weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's and umap-learn's own
        theirs = umap.UMAP(**params).fit(X, y).graph_.tocsr()
    with config_context(device="cpu"):
        ours = UMAP(**params).fit(X, y).graph_.tocsr()
    assert ours.nnz == theirs.nnz
    assert abs(ours - theirs).max() < 5e-3
    unsupervised = UMAP(n_neighbors=10, n_epochs=5, random_state=0).fit(X).graph_
    assert abs(ours - unsupervised).max() > 0.05  # the target changed it


def test_unsupervised_graph_is_umap_learns(rng):
    """A point's distance to itself is 0 in the memberships (float64 data
    gave 6e-8, taken for the nearest neighbour's distance, and memberships
    up to 0.56 below umap-learn's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        umap = pytest.importorskip("umap")
    X, _ = _supervised_case(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = umap.UMAP(n_neighbors=10, n_epochs=5, random_state=0).fit(X).graph_
    with config_context(device="cpu"):
        ours = UMAP(n_neighbors=10, n_epochs=5, random_state=0).fit(X).graph_
    assert abs(ours.tocsr() - theirs.tocsr()).max() < 5e-3


def test_target_errors(backend, rng):
    X, labels = _supervised_case(rng)
    X = backend.asarray(X)
    with pytest.raises(ValueError, match="target_n_neighbors"):
        UMAP(target_n_neighbors=1).fit(X, labels)
    with pytest.raises(ValueError, match="target_metric"):
        UMAP(target_metric="jaccard").fit(X, labels)
    with pytest.raises(ValueError, match="1d array of strings"):
        UMAP(target_metric="string", n_epochs=5).fit(X, labels)
    with pytest.raises(ValueError, match="continuous target_metric"):
        UMAP(n_epochs=5).fit(X, np.c_[labels, labels])
    # counts of 0 next to others: umap-learn's Poisson distance is infinite
    # there, and its fit fails on NaN; gpuml says why
    near_zero = np.where(labels == 0, 0, 5)
    with pytest.raises(ValueError, match="no finite distance"):
        UMAP(target_metric="count", n_epochs=5, random_state=0).fit(X, near_zero)
    two_columns = np.c_[labels, -labels].astype(float)
    model = UMAP(target_metric="euclidean", n_epochs=5, random_state=0)
    assert model.fit_transform(X, two_columns).shape == (200, 2)


def test_n_jobs_limits_the_host_threads(monkeypatch, rng):
    """umap-learn's n_jobs: a positive integer or -1, here the host
    libraries' threads during the fit."""
    from threadpoolctl import threadpool_info

    from gpuml.manifold import _umap

    seen = []
    real = _umap._kneighbors

    def recording(*args, **kwargs):
        seen.append({info["num_threads"] for info in threadpool_info()})
        return real(*args, **kwargs)

    monkeypatch.setattr(_umap, "_kneighbors", recording)
    X = rng.normal(size=(60, 4))
    with config_context(device="cpu"):
        UMAP(n_jobs=1, n_epochs=5, random_state=0).fit(X)
        assert seen and seen[0] <= {1}
        for bad in (0, -2):
            with pytest.raises(ValueError, match="n_jobs"):
                UMAP(n_jobs=bad).fit(X)


@pytest.mark.parametrize(
    "switch", [{"force_approximation_algorithm": True}, {"low_memory": False}]
)
def test_approximation_switches_change_nothing(backend, rng, switch):
    """gpuml's neighbours are exact, and tiled, whatever umap-learn's
    switches say."""
    X = backend.asarray(rng.normal(size=(80, 4)))
    plain = UMAP(n_epochs=10, random_state=0).fit_transform(X)
    switched = UMAP(n_epochs=10, random_state=0, **switch)
    np.testing.assert_array_equal(
        backend.to_numpy(switched.fit_transform(X)), backend.to_numpy(plain)
    )
    with pytest.raises(ValueError, match=next(iter(switch))):
        UMAP(**{next(iter(switch)): "yes"}).fit(X)


def test_unique_embeds_each_distinct_row_once(backend, rng):
    """unique=True (umap-learn's rule): the fit runs on the distinct rows,
    every copy gets its row's position; graph_ is the distinct rows'."""
    base = rng.normal(size=(50, 4))
    X = np.vstack([base, base[:10], base[:3]])
    model = UMAP(unique=True, n_epochs=20, random_state=0)
    E = backend.to_numpy(model.fit_transform(backend.asarray(X)))
    assert E.shape == (63, 2) and model.graph_.shape == (50, 50)
    np.testing.assert_array_equal(E[50:60], E[:10])
    np.testing.assert_array_equal(E[60:], E[:3])
    distinct = np.unique(X, axis=0)
    np.testing.assert_array_equal(distinct[model._unique_inverse_], X)
    assert model.transform(backend.asarray(X[:5])).shape == (5, 2)
    model.set_params(unique=False).fit(backend.asarray(X))
    assert not hasattr(model, "_unique_inverse_")
    assert model.graph_.shape == (63, 63)
    with pytest.raises(ValueError, match="precomputed"):
        UMAP(unique=True, metric="precomputed").fit(np.zeros((5, 5)))
    with pytest.raises(ValueError, match="named init"):
        UMAP(unique=True, init=np.zeros((63, 2))).fit(backend.asarray(X))


def test_duplicates_neighbours_spread_and_exact(backend):
    """Points repeated 10 times, k = 15: a row's own index first, it and
    its 9 copies at distance exactly 0 (the product form of the search
    leaves 1e-7, which UMAP's memberships would take for the nearest
    neighbour's distance), then 5 copies of the nearest other point chosen
    per query by tie_keys, so that the copies share the edges (by index,
    the same 5 of 10 took every query's); the same neighbours on both
    backends, against a direct float64 reference."""
    from gpuml._array import compute_namespace, to_namespace
    from gpuml.manifold._umap import _kneighbors
    from gpuml.neighbors._search import tie_keys

    X, _ = make_blobs(60, 8, centers=4, random_state=0)
    X = np.repeat(X + 1000.0, 10, axis=0)  # far from 0: the products lose digits
    n, k = X.shape[0], 15
    xp = compute_namespace()
    data = to_namespace(X, xp)
    dists, indices = (to_host(a) for a in _kneighbors(data, data, k, "euclidean", xp))
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    order = np.lexsort((tie_keys(np.arange(n)[:, None], np.arange(n)), D), axis=1)
    np.testing.assert_array_equal(indices, order[:, :k])
    np.testing.assert_allclose(dists, np.take_along_axis(D, order[:, :k], axis=1))
    own = np.arange(n)
    assert (indices[:, 0] == own).all()
    assert (dists[:, :10] == 0).all()
    assert (indices[:, :10] // 10 == own[:, None] // 10).all()
    # every copy of a point is some query's neighbour
    assert np.unique(indices[:, 10:] % 10).size == 10


def test_transform_tie_order_skips_own_index(backend):
    """In a transform the new points are numbered after the training rows:
    a query equal to a training row does not take training row of its own
    number first (tie key 0 is a fit's own row only)."""
    from gpuml._array import compute_namespace, to_namespace
    from gpuml.manifold._umap import _kneighbors
    from gpuml.neighbors._search import tie_keys

    X = np.repeat(np.arange(5.0)[:, None] * np.ones((1, 3)), 4, axis=0)  # 5 x 4 copies
    xp = compute_namespace()
    fit, query = to_namespace(X, xp), to_namespace(X[:4].copy(), xp)
    _, indices = _kneighbors(fit, query, 4, "euclidean", xp)
    rows = np.arange(20, 24)[:, None]
    expected = np.argsort(tie_keys(rows, np.arange(4)), axis=1)
    np.testing.assert_array_equal(to_host(indices), expected)
