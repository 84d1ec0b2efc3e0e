"""UMAP's model operations against umap-learn 0.5.12's definitions:
composition, inverse_transform, update, transform_mode, transform with
metric='precomputed', precomputed_knn, one-sample fits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import NearestNeighbors

from gpuml import config_context
from gpuml._array import to_host
from gpuml.manifold import UMAP
from gpuml.manifold import _umap_ops as ops
from gpuml.metrics import trustworthiness


def _umap_learn():
    """umap-learn's module ``umap.umap_``, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import umap.umap_ as umap_
    except ImportError:
        return None
    return umap_


@pytest.fixture(scope="module")
def iris():
    # a little noise: iris' equal distances would leave the k-th neighbour
    # to the order of the rows
    X = load_iris().data
    return X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)


SETTINGS = dict(n_neighbors=10, min_dist=0.01, random_state=42)


# ------------------------------------------------------------ composition


def test_composed_graphs_equal_umap_learns(iris):
    umap_ = _umap_learn()
    if umap_ is None:
        pytest.skip("needs umap-learn")
    left = UMAP(**SETTINGS, n_epochs=5).fit(iris[:, :2]).graph_
    right = UMAP(**SETTINGS, n_epochs=5).fit(iris[:, 2:]).graph_
    expected = {
        "*": umap_.reset_local_connectivity(
            umap_.general_simplicial_set_intersection(left.copy(), right.copy(), 0.5),
            True,
        ),
        "+": umap_.reset_local_connectivity(
            umap_.general_simplicial_set_union(left.copy(), right.copy()), True
        ),
        # umap-learn's right complement writes into its left graph: copies
        "-": umap_.reset_local_connectivity(
            umap_.general_simplicial_set_intersection(
                left.copy(), right.copy(), weight=0.5, right_complement=True
            ),
            False,
        ),
    }
    for operation, (combine, reset_metric) in ops._COMPOSITIONS.items():
        graph = ops.reset_local_connectivity(combine(left, right), reset_metric)
        reference = expected[operation].tocsr()
        assert graph.nnz == reference.nnz, operation
        assert abs(graph - reference).max() < 1e-6, operation


def test_composition(backend, iris):
    left = UMAP(**SETTINGS, n_epochs=60).fit(backend.asarray(iris[:, :2]))
    right = UMAP(**SETTINGS, n_epochs=80, n_components=3)
    right.fit(backend.asarray(iris[:, 2:]))
    left_graph = to_host(left.graph_).copy()
    composed = {"*": left * right, "+": left + right, "-": left - right}
    for operation, model in composed.items():
        combine, reset_metric = ops._COMPOSITIONS[operation]
        graph = ops.reset_local_connectivity(
            combine(to_host(left.graph_), to_host(right.graph_)), reset_metric
        )
        assert abs(to_host(model.graph_) - graph).max() == 0
        backend.assert_family(model.embedding_, dtype=np.float32, shape=(150, 2))
        # umap-learn's choices: the smaller dimension, the larger epochs, seed 42
        settings = (model.n_components, model.n_epochs, model.random_state)
        assert settings == (2, 80, 42)
        assert model.get_feature_names_out().tolist() == ["umap0", "umap1"]
        threshold = 0.75 if operation == "-" else 0.82
        score = trustworthiness(iris, to_host(model.embedding_), n_neighbors=10)
        assert score > threshold, (operation, score)
    assert abs(to_host(left.graph_) - left_graph).max() == 0  # left unchanged
    with pytest.raises(ValueError, match="composed model"):
        model.transform(iris[:3])
    with pytest.raises(ValueError, match="composed model"):
        model.inverse_transform(to_host(model.embedding_)[:3])
    with pytest.raises(ValueError, match="composed model"):
        model.update(iris[:3])


def test_composition_errors(iris):
    model = UMAP(**SETTINGS, n_epochs=5).fit(iris)
    small = UMAP(**SETTINGS, n_epochs=5).fit(iris[:100])
    for combine in (
        lambda: model + small,
        lambda: model * small,
        lambda: model - small,
    ):
        with pytest.raises(ValueError, match="equivalent samples"):
            combine()
    with pytest.raises(NotFittedError, match="Only fitted UMAP models"):
        model + UMAP()
    with pytest.raises(TypeError):
        model + 1


# ----------------------------------------------------- inverse_transform


def test_inverse_transform(backend, iris):
    model = UMAP(**SETTINGS, n_epochs=100).fit(backend.asarray(iris))
    embedding = to_host(model.embedding_)
    tree = NearestNeighbors(n_neighbors=5).fit(embedding)
    hits = []
    queries = np.arange(1, 150, 10)
    near = tree.kneighbors(embedding[queries], return_distance=False)
    centroids = embedding[near].mean(axis=1)
    found = model.inverse_transform(backend.asarray(centroids))
    backend.assert_family(found, dtype=np.float64, shape=(queries.shape[0], 4))
    high = NearestNeighbors(n_neighbors=10).fit(iris)
    high_near = high.kneighbors(to_host(found), return_distance=False)
    hits = [np.intersect1d(a, b).shape[0] for a, b in zip(near, high_near, strict=True)]
    assert min(hits) >= 3, hits  # umap-learn's test on iris
    # points are placed within the data's range, near their neighbours' mean
    start = (iris[near]).mean(axis=1)
    assert np.abs(to_host(found) - start).max() < 1.0


def test_inverse_transform_errors(iris):
    D = np.sqrt(((iris[:, None] - iris[None]) ** 2).sum(-1))
    model = UMAP(metric="precomputed", n_epochs=5).fit(D)
    with pytest.raises(ValueError, match="not available for given metric"):
        model.inverse_transform(np.zeros((2, 2)))
    model = UMAP(n_epochs=5, transform_mode="graph").fit(iris)
    with pytest.raises(ValueError, match="transform_mode = 'graph'"):
        model.inverse_transform(np.zeros((2, 2)))
    model = UMAP(n_epochs=5).fit(iris)
    with pytest.raises(ValueError, match="2 dimensions"):
        model.inverse_transform(np.zeros((2, 3)))


# ----------------------------------------------------------------- update


def test_update_graph_is_the_fit_of_all_rows(backend, iris):
    old, new = iris[::2], iris[1::2]
    model = UMAP(**SETTINGS, n_epochs=50).fit(backend.asarray(old))
    updated = model.update(backend.asarray(new))
    assert updated is model
    full = UMAP(**SETTINGS, n_epochs=50).fit(backend.asarray(np.vstack([old, new])))
    assert abs(to_host(model.graph_) - to_host(full.graph_)).max() < 1e-6
    backend.assert_family(model.embedding_, dtype=np.float32, shape=(150, 2))
    backend.assert_family(model.graph_, shape=(150, 150))
    score = trustworthiness(np.vstack([old, new]), to_host(model.embedding_))
    assert score > 0.95, score
    # transform sees all 150 training rows
    assert model.transform(backend.asarray(iris[:5])).shape == (5, 2)


def test_update_errors(iris):
    D = np.sqrt(((iris[:, None] - iris[None]) ** 2).sum(-1))
    model = UMAP(metric="precomputed", n_epochs=11).fit(D)
    with pytest.raises(ValueError, match="precomputed"):
        model.update(D)
    model = UMAP(n_epochs=11).fit(iris[:100], np.repeat(np.arange(5), 20))
    with pytest.raises(ValueError, match="supervised"):
        model.update(iris[100:])
    model = UMAP(n_epochs=11).fit(iris[:100])
    bad = iris[100:].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.update(bad)
    with pytest.raises(ValueError, match="ensure_all_finite"):
        model.update(iris[100:], ensure_all_finite="yes")
    with pytest.raises(ValueError, match="4 features"):
        model.update(iris[100:, :3])
    model.update(iris[100:], ensure_all_finite=False)  # no check, finite data
    assert model.graph_.shape == (150, 150)


# -------------------------------------------------------- transform modes


def test_transform_mode_graph(backend, iris):
    model = UMAP(**SETTINGS, transform_mode="graph")
    graph = model.fit_transform(backend.asarray(iris[:100]))
    assert graph is model.graph_ and not hasattr(model, "embedding_")
    backend.assert_family(graph, shape=(100, 100))
    new = model.transform(backend.asarray(iris[100:]))
    backend.assert_family(new, shape=(50, 100))
    new = to_host(new)
    # each new point's memberships to its 10 nearest training points
    assert np.all(np.diff(new.indptr) == 10)
    assert 0 < new.data.min() and new.data.max() <= 1.0


def test_transform_seed(iris):
    model = UMAP(**SETTINGS, n_epochs=30).fit(iris[:100])
    first, again = model.transform(iris[100:]), model.transform(iris[100:])
    np.testing.assert_array_equal(first, again)
    model.set_params(transform_seed=7)
    assert not np.array_equal(model.transform(iris[100:]), first)


def test_precomputed_transform_is_the_euclidean_one(backend, iris):
    data, new = iris[:100], iris[100:]
    D = np.sqrt(((data[:, None] - data[None]) ** 2).sum(-1))
    D_new = np.sqrt(((new[:, None] - data[None]) ** 2).sum(-1))
    euclidean = UMAP(**SETTINGS, n_epochs=30).fit(backend.asarray(data))
    precomputed = UMAP(**SETTINGS, n_epochs=30, metric="precomputed")
    precomputed.fit(backend.asarray(D))
    if backend.device == "cpu":  # the device's euclidean kNN computes by
        # products, where a point's distance to itself may not come out 0
        graphs = (to_host(euclidean.graph_), to_host(precomputed.graph_))
        assert abs(graphs[0] - graphs[1]).max() < 1e-6
    precomputed.embedding_ = euclidean.embedding_  # the same layout
    expected = to_host(euclidean.transform(backend.asarray(new)))
    dense = precomputed.transform(backend.asarray(D_new))
    backend.assert_family(dense, dtype=np.float32, shape=(50, 2))
    atol = 1e-4 if backend.device == "cpu" else 1e-3
    np.testing.assert_allclose(to_host(dense), expected, atol=atol)
    sparse = precomputed.transform(backend.as_format(D_new, "csr"))
    np.testing.assert_allclose(to_host(sparse), expected, atol=atol)
    thin = sp.csr_matrix(np.where(D_new < np.sort(D_new, axis=1)[:, [5]], D_new, 0))
    with pytest.raises(ValueError, match="at least n_neighbors"):
        precomputed.transform(thin)
    with pytest.raises(ValueError, match="Negative"):
        precomputed.transform(-D_new)


# -------------------------------------------------------- precomputed_knn


def _knn(X, k):
    dists, indices = NearestNeighbors(n_neighbors=k).fit(X).kneighbors(X)
    return indices, dists


def test_precomputed_knn(backend, iris):
    with config_context(device="cpu"):  # exact distances: a point's own is 0
        plain = UMAP(**SETTINGS, n_epochs=30).fit(iris)
    indices, dists = _knn(iris, 12)  # more columns than n_neighbors: pruned
    model = UMAP(**SETTINGS, n_epochs=30, precomputed_knn=(indices, dists, "index"))
    model.fit(backend.asarray(iris))
    assert abs(to_host(model.graph_) - to_host(plain.graph_)).max() < 1e-5
    assert model.transform(backend.asarray(iris[:3])).shape == (3, 2)
    with pytest.warns(UserWarning, match="transforming new data"):
        without = UMAP(**SETTINGS, n_epochs=30, precomputed_knn=(indices, dists))
        without.fit(backend.asarray(iris))
    np.testing.assert_array_equal(
        to_host(without.embedding_), to_host(model.embedding_)
    )
    with pytest.raises(NotImplementedError, match="search index"):
        without.transform(backend.asarray(iris[:3]))


def test_precomputed_knn_graph_is_umap_learns(iris):
    umap_ = _umap_learn()
    if umap_ is None:
        pytest.skip("needs umap-learn")
    indices, dists = _knn(iris, 10)
    model = UMAP(n_neighbors=10, n_epochs=5, precomputed_knn=(indices, dists, "i"))
    model.fit(iris)
    rng = np.random.RandomState(0)
    expected = umap_.fuzzy_simplicial_set(
        iris, 10, rng, "euclidean", {}, indices, dists.astype(np.float32)
    )[0]
    assert abs(model.graph_ - expected).max() < 1e-6


def test_precomputed_knn_validation(iris):
    indices, dists = _knn(iris, 10)
    with pytest.raises(ValueError, match=r"precomputed_knn\[0\] must be ndarray"):
        UMAP(precomputed_knn=(indices.tolist(), dists, None)).fit(iris)
    with pytest.raises(ValueError, match=r"precomputed_knn\[1\] must be ndarray"):
        UMAP(precomputed_knn=(indices, dists.tolist(), None)).fit(iris)
    with pytest.raises(ValueError, match="same size"):
        UMAP(precomputed_knn=(indices, dists[:, :5], "index")).fit(iris)
    with pytest.raises(ValueError, match="unique"):
        UMAP(unique=True, precomputed_knn=(indices, dists, "index")).fit(iris)
    few = (indices[:, :5], dists[:, :5], "index")
    with pytest.warns(UserWarning, match="lower number of neighbors"):
        UMAP(n_epochs=5, precomputed_knn=few).fit(iris)
    with pytest.warns(UserWarning, match="different number of samples"):
        knn = (indices, dists, "index")
        UMAP(n_neighbors=10, n_epochs=5, precomputed_knn=knn).fit(iris[:100])


# ------------------------------------------------------------- one sample


def test_one_sample_fit(backend):
    model = UMAP().fit(backend.asarray(np.ones((1, 4))))
    backend.assert_family(model.embedding_, dtype=np.float32, shape=(1, 2))
    assert to_host(model.embedding_).max() == 0
    with pytest.raises(ValueError, match="single data sample"):
        model.transform(backend.asarray(np.zeros((1, 4))))
    # unique=True with one distinct row: every copy at the origin
    model = UMAP(unique=True, n_components=3).fit(backend.asarray(np.ones((5, 4))))
    backend.assert_family(model.embedding_, dtype=np.float32, shape=(5, 3))


def test_inverse_transform_with_a_callables_gradient():
    """A callable metric returning ``(distance, gradient)`` has umap-learn's
    inverse_transform, by its own gradient: the manhattan one as a callable
    gives the named metric's points."""

    def manhattan(x, y):
        return np.abs(x - y).sum(), np.sign(x - y)

    X = np.random.default_rng(0).normal(size=(40, 3))
    kw = dict(n_neighbors=8, n_epochs=30, random_state=0)
    by_callable = UMAP(metric=manhattan, **kw).fit(X)
    by_name = UMAP(metric="manhattan", **kw).fit(X)
    np.testing.assert_allclose(by_callable.embedding_, by_name.embedding_)
    got = by_callable.inverse_transform(by_callable.embedding_[:5])
    want = by_name.inverse_transform(by_name.embedding_[:5])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("bad", ["nan", "negative", "index"])
def test_precomputed_knn_bad_values_raise(bad):
    """precomputed_knn's distances must be finite and non-negative, its
    indices rows of the data: otherwise an error, not a garbage graph."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    knn = NearestNeighbors(n_neighbors=6).fit(X)
    dists, indices = knn.kneighbors(X)
    if bad == "nan":
        dists[3, 2] = np.nan
    elif bad == "negative":
        dists[3, 2] = -1.0
    else:
        indices[3, 2] = 40
    model = UMAP(n_neighbors=6, n_epochs=10, precomputed_knn=(indices, dists, knn))
    with pytest.raises(ValueError, match="precomputed_knn"):
        model.fit(X)
