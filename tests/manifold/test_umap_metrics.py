"""UMAP's input metrics, sparse input and disconnection_distance (issue 36).

Distances are checked against umap-learn's own definitions (the Python
functions behind its numba-jitted ``umap.distances.named_distances``, run
uncompiled so that the tests stay fast), on data with the rows of zeros
where umap-learn's conventions matter; neighbours on each backend against
a host brute force of those distances.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from gpuml._array import compute_namespace, to_host, to_namespace
from gpuml.manifold import UMAP
from gpuml.manifold import _umap_metrics as metric_steps
from gpuml.neighbors._search import tie_keys


def _umap_distances():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from umap import distances
    except ImportError:
        pytest.skip("needs umap-learn")
    return distances


# (metric, metric_kwds maker, data kind)
CASES = [
    ("euclidean", None, "real"),
    ("manhattan", None, "real"),
    ("chebyshev", None, "real"),
    ("minkowski", lambda d, r: {"p": 3.0}, "real"),
    ("wminkowski", lambda d, r: {"p": 1.5, "w": r.random(d)}, "real"),
    ("seuclidean", lambda d, r: {"sigma": r.random(d) + 0.5}, "real"),
    ("mahalanobis", lambda d, r: {"vinv": np.cov(r.normal(size=(3 * d, d)).T)}, "real"),
    ("canberra", None, "real"),
    ("braycurtis", None, "real"),
    ("cosine", None, "real"),
    ("correlation", None, "real"),
    ("hellinger", None, "positive"),
    ("haversine", None, "angles"),
    ("hamming", None, "binary"),
    *((name, None, "binary") for name in sorted(metric_steps.BINARY)),
]


def _data(kind: str, rng):
    X = rng.normal(size=(14, 6))
    if kind == "positive":
        X = np.abs(X)
    elif kind == "binary":
        X = (rng.random((14, 9)) < 0.35).astype(float)
    elif kind == "angles":
        X = rng.uniform(-1.5, 1.5, size=(14, 2))
    X[12] = 0.0  # umap-learn's conventions for rows of zeros
    X[13] = X[12] if kind == "binary" else 2.0  # a second one; a constant row
    return X


@pytest.mark.parametrize("metric, kwds, kind", CASES)
def test_distances_are_umap_learns(metric, kwds, kind, rng):
    distances = _umap_distances()
    X = _data(kind, rng)
    kw = kwds(X.shape[1], rng) if kwds else {}
    resolved = metric_steps.resolve(metric, kw, X)
    reference = distances.named_distances[metric].py_func
    expected = np.array([[reference(a, b, **kw) for b in X] for a in X])
    got = metric_steps.pairwise(resolved, X, X, np)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    if metric in metric_steps.SPARSE:  # the same from sparse rows
        S = sp.csr_matrix(X)
        got = metric_steps.pairwise(resolved, S, S, np)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    if resolved.name in ("manhattan", "chebyshev", "minkowski", "wminkowski"):
        # the device's feature-by-feature code, run with NumPy
        got = metric_steps._accumulate(resolved, X, X, np)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    for name in ("canberra", "braycurtis", "hamming"):
        if resolved.name == name:
            got = metric_steps._accumulate(resolved, X, X, np)
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "metric, kind",
    [
        ("chebyshev", "real"),
        ("canberra", "real"),
        ("hellinger", "positive"),
        ("cosine", "real"),
        ("jaccard", "binary"),
        ("yule", "binary"),
    ],
)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_neighbours_on_each_backend(backend, metric, kind, fmt, rng):
    """The k nearest (equal distances in tie_keys' order, a row's own first
    at 0) from the backend's search: the device's selection of gpuml's
    tiles on a GPU; the host's partition on the CPU."""
    X = _data(kind, rng)
    if kind == "binary":  # exact distances (counts): duplicates make ties
        X = np.vstack([X, rng.permutation(X)])
    k = 6
    resolved = metric_steps.resolve(metric, None, X)
    D = metric_steps.pairwise(resolved, X, X, np)
    np.fill_diagonal(D, 0.0)
    n = len(X)
    order = np.lexsort((tie_keys(np.arange(n)[:, None], np.arange(n)), D), axis=1)
    xp = compute_namespace()  # the backend's device
    data = to_namespace(backend.as_format(X, fmt), xp)  # as a fit holds it
    dists, indices = metric_steps.kneighbors(resolved, data, data, k, xp, True)
    np.testing.assert_allclose(
        to_host(dists), np.take_along_axis(D, order[:, :k], axis=1), atol=1e-9
    )
    np.testing.assert_array_equal(to_host(indices), order[:, :k])


def _disconnected(rng, isolates: int):
    """umap-learn's test data: ten random binary rows and ``isolates`` rows
    of one feature of their own (jaccard and hellinger distance 1 to all)."""
    data = rng.random((10, 30)) < 0.4
    data = np.vstack([data, np.zeros((isolates, 30), dtype=bool)])
    extra = np.zeros((10 + isolates, isolates), dtype=bool)
    extra[10 + np.arange(isolates), np.arange(isolates)] = True
    return np.hstack([data, extra]).astype(float)


@pytest.mark.parametrize("metric", ["jaccard", "hellinger"])
@pytest.mark.parametrize("isolates, text", [(1, "A few"), (5, "A large number")])
def test_disconnection_warns_and_marks_nan(backend, metric, isolates, text, rng):
    X = _disconnected(rng, isolates)
    model = UMAP(n_neighbors=3, metric=metric, n_epochs=20, random_state=0)
    with pytest.warns(UserWarning, match=f"{text} of your vertices") as record:
        model.fit(backend.asarray(X))
    assert sum("of your vertices" in str(w.message) for w in record) == 1
    E = backend.to_numpy(model.embedding_)
    alone = np.asarray(to_host(model.graph_).sum(axis=1)).ravel() == 0
    np.testing.assert_array_equal(np.flatnonzero(alone), 10 + np.arange(isolates))
    assert np.isnan(E[alone]).all() and np.isfinite(E[~alone]).all()
    # new points beside the manifold: finite (the NaN rows push nothing)
    assert np.isfinite(backend.to_numpy(model.transform(backend.asarray(X[:6])))).all()


def test_disconnection_distance_given_and_precomputed(rng):
    X = _disconnected(rng, 1)
    resolved = metric_steps.resolve("hellinger", None, X)
    D = metric_steps.pairwise(resolved, X, X, np)
    np.fill_diagonal(D, 0.0)
    for given in (D, sp.csr_matrix(D)):
        model = UMAP(n_neighbors=3, metric="precomputed", disconnection_distance=1)
        with pytest.warns(UserWarning, match="A few of your vertices"):
            model.set_params(n_epochs=20, random_state=0).fit(given)
        assert np.isnan(model.embedding_[10]).all()
    # the default for euclidean is inf: nothing removed, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E = UMAP(n_neighbors=3, n_epochs=20, random_state=0).fit_transform(X)
    assert np.isfinite(E).all()
    # a small disconnection_distance removes every edge: all NaN
    with pytest.warns(UserWarning, match="A large number"):
        model = UMAP(n_neighbors=3, n_epochs=5, disconnection_distance=1e-9)
        model.fit(X + rng.normal(scale=0.1, size=X.shape))
    assert np.isnan(model.embedding_).all()


def test_umap_learn_disconnected_vertices_reads_gpuml(rng):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from umap.utils import disconnected_vertices
    except ImportError:
        pytest.skip("needs umap-learn")
    X = _disconnected(rng, 1)
    X = np.vstack([X, X[:3]])  # copies: unique=True maps them back
    for unique in (False, True):
        with pytest.warns(UserWarning, match="A few"):
            model = UMAP(n_neighbors=3, metric="jaccard", n_epochs=5, unique=unique)
            model.fit(X)
        assert np.flatnonzero(disconnected_vertices(model)).tolist() == [10]


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "jaccard", "canberra"])
def test_sparse_fit_equals_dense(backend, metric, rng):
    X = rng.normal(size=(60, 12)) * (rng.random((60, 12)) < 0.4)
    X[5] = 0.0
    kw = dict(n_neighbors=8, metric=metric, n_epochs=10, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a jaccard graph may leave a row alone
        dense = UMAP(**kw).fit(backend.asarray(X))
        for fmt in ("csr", "csc"):
            model = UMAP(**kw).fit(backend.as_format(X, fmt))
            graph, reference = to_host(model.graph_), to_host(dense.graph_)
            assert abs(graph - reference).max() < 1e-5
            backend.assert_family(model.embedding_, dtype=np.float32, shape=(60, 2))
    E = model.transform(backend.as_format(X[:7], "csr"))
    backend.assert_family(E, dtype=np.float32, shape=(7, 2))
    E_dense = model.transform(backend.asarray(X[:7]))  # dense queries too
    np.testing.assert_array_equal(backend.to_numpy(E), backend.to_numpy(E_dense))


def test_sparse_unique_and_pca_start(backend, rng):
    X = rng.normal(size=(40, 10)) * (rng.random((40, 10)) < 0.5)
    X = np.vstack([X[:3], X])  # rows 0-2 repeat rows 3-5
    model = UMAP(n_neighbors=4, unique=True, n_epochs=20, random_state=0)
    E = backend.to_numpy(model.fit_transform(backend.as_format(X, "csr")))
    np.testing.assert_array_equal(E[:3], E[3:6])
    assert model.graph_.shape == (40, 40)
    E = UMAP(init="pca", n_epochs=10, random_state=0).fit_transform(
        backend.as_format(X, "csr")
    )  # umap-learn's TruncatedSVD start for sparse data
    assert np.isfinite(backend.to_numpy(E)).all()


def test_callable_metrics(rng):
    X = rng.normal(size=(40, 4))

    def l1(x, y):
        return np.abs(x - y).sum()

    def l1_with_gradient(x, y):
        x[0] = 1e9  # a metric that writes into its rows: the data stay
        return np.abs(x - y).sum(), np.sign(x - y)

    kw = dict(n_neighbors=6, n_epochs=20, random_state=0)
    named = UMAP(metric="manhattan", **kw).fit(X)
    with pytest.warns(UserWarning, match="does not return gradient"):
        plain = UMAP(metric=l1, **kw).fit(X)
    assert abs(plain.graph_ - named.graph_).max() < 1e-6
    before = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        UMAP(metric=l1_with_gradient, **kw).fit(X)
    np.testing.assert_array_equal(X, before)
    assert metric_steps.inverse_transform_error(plain) is not None
    assert metric_steps.inverse_transform_error(named) is None


def test_ensure_all_finite(rng):
    X = rng.normal(size=(30, 4))
    X[0, 0] = np.nan

    def nan_safe(x, y):
        return np.nansum(np.abs(x - y))

    for rule in (False, "allow-nan"):
        with pytest.raises(ValueError, match="NaN"):  # a named metric: finite data
            UMAP(n_epochs=5).fit(X, ensure_all_finite=rule)
    with pytest.warns(UserWarning, match="does not return gradient"):
        model = UMAP(metric=nan_safe, n_epochs=5, random_state=0)
        E = model.fit_transform(X, ensure_all_finite="allow-nan")
    assert np.isfinite(E).all()
    with pytest.raises(ValueError, match="NaN"):
        model.transform(X)
    assert np.isfinite(model.transform(X, ensure_all_finite=False)).all()


def test_metric_errors(rng):
    X = rng.normal(size=(30, 3))
    for metric in ("foobar", 2.75, "ll_dirichlet"):
        with pytest.raises(ValueError):
            UMAP(metric=metric).fit(X)
    with pytest.raises(ValueError, match="haversine is only defined for 2"):
        UMAP(metric="haversine").fit(X)
    with pytest.raises(ValueError, match="does not support negative values"):
        UMAP(metric="hellinger").fit(-np.abs(X))
    with pytest.raises(ValueError, match="not supported for sparse data"):
        UMAP(metric="mahalanobis").fit(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="metric_kwds"):
        UMAP(metric="minkowski", metric_kwds={"q": 3}).fit(X)
    with pytest.raises(ValueError, match="shape"):
        UMAP(metric="mahalanobis", metric_kwds={"vinv": np.eye(2)}).fit(X)
    with pytest.raises(ValueError, match="disconnection_distance"):
        UMAP(disconnection_distance="far").fit(X)
    assert metric_steps.disconnection_default("jaccard") == 1
    assert metric_steps.disconnection_default("cosine") == 2
    assert metric_steps.disconnection_default("chebyshev") == np.inf


@pytest.mark.parametrize(
    "params, message",
    [
        ({"metric": "seuclidean", "metric_kwds": {"sigma": np.zeros(4)}}, "positive"),
        (
            {"metric": "seuclidean", "metric_kwds": {"sigma": [1, 1, np.nan, 1]}},
            "finite",
        ),
        ({"metric": "wminkowski", "metric_kwds": {"w": -np.ones(4)}}, "non-negative"),
        ({"disconnection_distance": -1.0}, "disconnection_distance"),
        ({"disconnection_distance": 0.0}, "disconnection_distance"),
    ],
)
def test_bad_metric_settings_raise(rng, params, message):
    """Settings that would make every distance infinite or every point
    disconnected (a NaN embedding) are errors, not embeddings."""
    X = rng.normal(size=(30, 4))
    with pytest.raises(ValueError, match=message):
        UMAP(n_neighbors=5, n_epochs=10, **params).fit(X)
