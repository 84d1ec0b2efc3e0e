"""UMAP's model operations, as umap-learn 0.5.12 defines them.

- **Composition** of two models fitted on the same samples: ``a * b`` the
  fuzzy intersection of their graphs, ``a + b`` the fuzzy union, ``a - b``
  umap-learn's contrastive difference; each result's local connectivity is
  reset (rows scaled to a maximum of 1, for ``*`` and ``+`` each row's
  memberships raised to the power that makes them sum to ``log2(15)``, then
  the union with the transpose), and a new embedding is laid out from the
  spectral start (random when the graph is not connected) with
  ``random_state=42``. The graph arithmetic runs on the host (SciPy); the
  layout in the compute namespace.
- **inverse_transform**: each embedded point's nearest training embeddings
  (as many as the data have features, at most the training size; umap-learn
  finds candidates through a Delaunay triangulation of the embedding first,
  here they are the exact nearest), membership weights ``1 / (1 + a
  d^(2b))``, a start at the weighted mean of their training rows, then
  umap-learn's gradient descent in data space (``optimize_layout_inverse``):
  each edge pulls toward its training row, negative samples push away, with
  the training rows' ``sigma`` and ``rho``. Vectorised over the points, in
  the compute namespace.
- **update**: the new rows appended, the neighbours and the graph of all
  rows computed again, the start the old embedding with each new row at the
  mean of its neighbours among the old rows, then the layout.
- **precomputed_knn** (umap-learn's validation, warnings and pruning),
  transform with ``metric='precomputed'`` (distances of new points to the
  training points, dense or sparse), ``transform_mode='graph'`` (the
  membership graph of the new points) and a fit on one sample.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
    to_output,
)
from gpuml._validation import assert_fits_dtype, check_array
from gpuml.manifold import _umap_graph as graph_steps
from gpuml.manifold import _umap_layout as layout_steps
from gpuml.manifold import _umap_metrics as metric_steps
from gpuml.manifold._umap_target import _general_intersection, _values_at

_INT32_MAX = np.iinfo(np.int32).max
#: ``reset_local_connectivity``'s target: memberships summing to log2(15).
_RESET_K = 15
_RESET_ITERATIONS = 32
_TOLERANCE = 1e-5


def seed_of(random_state) -> int:
    """A 62-bit layout seed drawn from ``random_state`` (two int32 draws)."""
    rng = check_random_state(random_state)
    return int(rng.randint(_INT32_MAX)) << 31 | int(rng.randint(_INT32_MAX))


# ------------------------------------------------------------ composition


def union_graph(left, right):
    """umap-learn's ``general_simplicial_set_union``: on the union of both
    graphs' entries, ``l + r - l r``, a missing value read as half the
    graph's smallest (at least 1e-8)."""
    left, right = left.tocsr(), right.tocsr()
    result = (left + right).tocoo()
    left_min = max(left.data.min() / 2.0, 1.0e-8) if left.nnz else 1.0e-8
    right_min = max(right.data.min() / 2.0, 1.0e-8) if right.nnz else 1.0e-8
    lv = _values_at(left, result.row, result.col, left_min)
    rv = _values_at(right, result.row, result.col, right_min)
    data = (lv + rv - lv * rv).astype(np.float32)
    return sp.csr_matrix((data, (result.row, result.col)), shape=result.shape)


def intersection_graph(left, right):
    """umap-learn's ``general_simplicial_set_intersection`` with weight 0.5."""
    return _general_intersection(left, right, 0.5)


def difference_graph(left, right):
    """umap-learn's intersection with the right complement: on the left
    graph's entries, ``l * (1 - r)``, where ``r`` is missing read as half the
    smallest ``1 - r`` (at least 1e-8, at most 1e-4; so an edge the right
    graph lacks nearly vanishes, as in umap-learn)."""
    left, right = left.tocsr(), right.tocsr()
    result = left.tocoo()
    left_min = max(left.data.min() / 2.0, 1.0e-8) if left.nnz else 1.0e-8
    complement = 1.0 - right.data.astype(np.float64)
    right_min = min(max(complement.min() / 2.0, 1.0e-8), 1e-4) if right.nnz else 1.0e-8
    lv = result.data.astype(np.float64)
    stored = _values_at(right, result.row, result.col, np.nan)
    rv = np.where(np.isnan(stored), right_min, 1.0 - stored)
    either = (lv > left_min) | (rv > right_min)
    data = np.where(either, lv * rv, lv).astype(np.float32)
    return sp.csr_matrix((data, (result.row, result.col)), shape=result.shape)


def reset_local_connectivity(graph, reset_local_metric: bool):
    """umap-learn's ``reset_local_connectivity``: each row scaled to a
    maximum of 1 (float32), with ``reset_local_metric`` each row's values
    raised to the power that makes them sum to ``log2(15)`` (bisection, as
    umap-learn's ``reprocess_row``), then the fuzzy union with the
    transpose."""
    graph = graph.tocsr().astype(np.float32)
    graph.sum_duplicates()
    counts = np.diff(graph.indptr)
    rows = np.repeat(np.arange(graph.shape[0]), counts)
    top = np.zeros(graph.shape[0], dtype=np.float32)
    np.maximum.at(top, rows, np.abs(graph.data))
    scale = np.where(top[rows] != 0, top[rows], np.float32(1))
    graph.data = graph.data / scale
    if reset_local_metric:
        graph.data = _reprocess_rows(rows, graph.data, graph.shape[0])
    transpose = graph.T.tocsr()
    graph = (graph + transpose - graph.multiply(transpose)).tocsr()
    graph.eliminate_zeros()
    return graph


def _reprocess_rows(rows, data, n: int):
    """umap-learn's ``reprocess_row`` on every row at once: the exponent
    ``mid`` such that a row's ``sum(p ** mid)`` is ``log2(15)``."""
    p = data.astype(np.float64)
    target = np.log2(_RESET_K)
    lo, hi, mid = np.zeros(n), np.full(n, np.inf), np.ones(n)
    active = np.ones(n, dtype=bool)
    for _ in range(_RESET_ITERATIONS):
        psum = np.bincount(rows, weights=p ** mid[rows], minlength=n)
        active &= ~(np.abs(psum - target) < _TOLERANCE)
        below = active & (psum < target)
        above = active & ~(psum < target)
        hi[below] = mid[below]
        mid[below] = (lo[below] + hi[below]) / 2.0
        lo[above] = mid[above]
        mid[above] = np.where(
            np.isinf(hi[above]), mid[above] * 2, (lo[above] + hi[above]) / 2.0
        )
    return (p ** mid[rows]).astype(np.float32)


_COMPOSITIONS = {
    "*": (intersection_graph, True),
    "+": (union_graph, True),
    "-": (difference_graph, False),
}


def compose(left, right, operation: str):
    """``left <operation> right`` for fitted UMAP models: a new fitted model
    (see the module docstring). Its parameters are ``left``'s, except those
    the combined layout used, as umap-learn chooses them: ``n_components``
    and ``learning_rate`` the smaller, ``n_epochs`` the larger (None if both
    are), ``a``, ``b`` and ``repulsion_strength`` the means, ``init``
    'spectral' or 'random', ``random_state`` 42."""
    for model in (left, right):
        check_is_fitted(
            model, attributes=["graph_"], msg="Only fitted UMAP models can be combined"
        )
    if left.graph_.shape[0] != right.graph_.shape[0]:
        raise ValueError("Only models with the equivalent samples can be combined")
    combine, reset_metric = _COMPOSITIONS[operation]
    g1 = to_host(left.graph_).tocsr().astype(np.float32)
    g2 = to_host(right.graph_).tocsr().astype(np.float32)
    graph = reset_local_connectivity(combine(g1, g2), reset_metric)
    if connected_components(graph)[0] > 1:
        warnings.warn(
            "Combined graph is not connected but multi-component layout is "
            "unsupported. Falling back to random initialization.",
            UserWarning,
            stacklevel=3,
        )
        init = "random"
    else:
        init = "spectral"
    models = (left, right)
    epochs = [m.n_epochs for m in models if m.n_epochs is not None]
    n_epochs = max(epochs) if epochs else None
    dim = min(m.n_components for m in models)
    learning_rate = min(m.learning_rate for m in models)
    a = float(np.mean([m._a for m in models]))
    b = float(np.mean([m._b for m in models]))
    gamma = float(np.mean([m.repulsion_strength for m in models]))
    negative_rate = float(np.mean([m.negative_sample_rate for m in models]))
    verbose = any(bool(m.verbose) for m in models)
    xp = compute_namespace()
    settings = layout_steps.LayoutSettings(
        a=a,
        b=b,
        gamma=gamma,
        initial_alpha=learning_rate,
        negative_rate=negative_rate,
        same_space=True,
        seed=0,  # drawn in embed_graph
        verbose=verbose,
    )
    rng = check_random_state(42)
    embedding = embed_graph(graph, dim, n_epochs, init, rng, settings, xp)
    result = clone(left)
    result.set_params(
        n_components=dim,
        n_epochs=n_epochs,
        learning_rate=learning_rate,
        a=a,
        b=b,
        repulsion_strength=gamma,
        init=init,
        random_state=42,
    )
    family = input_family(left.graph_)
    result._reset_device_cache()
    result.engine_ = "gpuml"
    result.embedding_ = to_family(embedding, family)
    result.graph_ = to_family(graph, family)
    result._raw_data = None
    result._a, result._b = a, b
    result._n_neighbors = max(m._n_neighbors for m in models)
    result._fit_rows = None
    result._supervised = False
    result._composed = operation
    return result


def embed_graph(graph, dim: int, n_epochs, init, rng, settings, xp):
    """The layout of a (host CSR) graph as a fit lays it out: epochs per
    sample (pruning as umap-learn), a start ('spectral', 'random' or an
    array, scaled as umap-learn scales it), the gradient descent in ``xp``
    with a seed drawn from ``rng``. Returns the embedding in ``xp``."""
    from gpuml.manifold._umap import _spectral_layout, default_epochs

    n = graph.shape[0]
    epochs = n_epochs or default_epochs(n)
    prune_epochs = epochs if epochs > 10 else default_epochs(n)
    edges = graph_steps.edges_from_csr(graph, xp)
    if xp is np:
        periods = graph_steps.schedule_numpy(edges.weights, epochs, prune_epochs)
    else:
        top = np.array([graph.data.max() if graph.nnz else 1.0], dtype=np.float32)
        periods = graph_steps.schedule_device(
            edges.weights, xp.asarray(top.view(np.uint32)), epochs, prune_epochs
        )
    if isinstance(init, str):
        start = None
        if init == "spectral":
            start = _spectral_layout(graph, edges, dim, xp)
        if start is None:
            start = rng.uniform(low=-10.0, high=10.0, size=(n, dim))
        if init == "spectral":
            start = (start * (10.0 / np.abs(start).max())).astype(np.float32)
            start += rng.normal(scale=0.0001, size=start.shape).astype(np.float32)
    else:
        start = _jittered(np.asarray(init, dtype=np.float32), rng)
    low, high = start.min(axis=0), start.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    start = np.ascontiguousarray(10.0 * (start - low) / span, dtype=np.float32)
    seed = seed_of(rng)
    settings = layout_steps.LayoutSettings(
        **{**settings.__dict__, "seed": seed, "same_space": True}
    )
    return layout_steps.layout(
        xp, xp.asarray(start), None, edges.indptr, edges.keys, periods, epochs, settings
    )


def _jittered(start, rng):
    """umap-learn's start from an array: where rows repeat, noise of 0.001
    times the mean distance to the nearest other row, so that equal rows
    part."""
    if np.unique(start, axis=0).shape[0] == start.shape[0]:
        return start
    from gpuml._sklearn_compat import sklearn_own

    NearestNeighbors = sklearn_own("sklearn.neighbors", "NearestNeighbors")

    dist, _ = NearestNeighbors(n_neighbors=2).fit(start).kneighbors(start)
    noise = rng.normal(scale=0.001 * dist[:, 1].mean(), size=start.shape)
    return start + noise.astype(np.float32)


# ---------------------------------------------------------- fit's helpers


def fuzzy_graph(dists, indices, local_connectivity: float, mix: float, xp):
    """The fuzzy simplicial set of a kNN (self included) as a fit builds it:
    a host CSR matrix."""
    if xp is np:
        values, _, _ = graph_steps.memberships_numpy(
            dists, indices, local_connectivity, bipartite=False
        )
        return graph_steps.union_numpy(values, indices, mix).csr()
    values = graph_steps.memberships_device(
        dists, indices, local_connectivity, bipartite=False
    )
    edges, _ = graph_steps.union_device(values, indices, mix)
    return edges.csr()


def given_knn(model, n: int, k: int, xp):
    """``precomputed_knn`` checked as umap-learn checks it: ``(dists,
    indices)`` in ``xp`` (the first ``k`` columns; float64 and int64), or
    None where there is none or umap-learn would ignore it (with its
    warning). Records whether transform has a search index."""
    knn = model.precomputed_knn
    model._search_index = True
    if knn is None or len(knn) < 2 or knn[1] is None:
        return None
    indices, dists = knn[0], knn[1]
    if model.unique:
        raise ValueError("unique is not currently available for precomputed_knn.")
    if not isinstance(indices, np.ndarray):
        raise ValueError("precomputed_knn[0] must be ndarray object.")
    if not isinstance(dists, np.ndarray):
        raise ValueError("precomputed_knn[1] must be ndarray object.")
    if dists.shape != indices.shape:
        raise ValueError(
            "precomputed_knn[0] and precomputed_knn[1] must be numpy arrays of "
            "the same size."
        )
    if len(knn) == 2 or knn[2] is None:
        warnings.warn(
            "precomputed_knn[2] (knn_search_index) is None: transforming new "
            "data with transform will be unavailable.",
            UserWarning,
            stacklevel=4,
        )
        model._search_index = False
    if dists.shape[1] < model.n_neighbors:
        warnings.warn(
            "precomputed_knn has a lower number of neighbors than n_neighbors "
            "parameter. precomputed_knn will be ignored and the k-nn will be "
            "computed normally.",
            UserWarning,
            stacklevel=4,
        )
        model._search_index = True
        return None
    if dists.shape[0] != n:
        warnings.warn(
            "precomputed_knn has a different number of samples than the data "
            "you are fitting. precomputed_knn will be ignored and the k-nn will "
            "be computed normally.",
            UserWarning,
            stacklevel=4,
        )
        model._search_index = True
        return None
    dists = np.ascontiguousarray(dists[:, :k], dtype=np.float64)
    indices = np.ascontiguousarray(indices[:, :k], dtype=np.int64)
    if not (np.isfinite(dists).all() and (dists >= 0).all()):
        raise ValueError(
            "precomputed_knn[1] (the distances) must be finite and non-negative."
        )
    if ((indices < -1) | (indices >= n)).any():
        raise ValueError(
            f"precomputed_knn[0] (the indices) must be rows of the data, 0 to "
            f"{n - 1} (or -1 for no neighbour)."
        )
    return xp.asarray(dists), xp.asarray(indices)


def fit_one_sample(model, X, a: float, b: float, rng, family: str, inverse):
    """umap-learn's fit of a single (distinct) sample: the embedding at the
    origin, an empty graph; transform is then unavailable."""
    xp = compute_namespace()
    embedding = xp.zeros((1, model.n_components), dtype=np.float32)
    if inverse is not None:
        embedding = embedding[xp.asarray(inverse)]
        model._unique_inverse_ = inverse
    graph = sp.csr_matrix((1, 1), dtype=np.float32)
    model._set_fitted(embedding, graph, X, 1, a, b, rng, family, None, "gpuml")


def mds_layout(D, dim: int, xp):
    """Classical scaling of a dense matrix of distances (host array of shape
    (n, dim)), or None for a sparse one: the start of a precomputed fit
    whose graph is not connected, as PCA starts a fit on data (for
    euclidean distances the two agree up to signs)."""
    if is_sparse(D) or D.shape[0] <= dim:
        return None
    D = xp.asarray(D, dtype=np.float64)
    squared = D * D
    centred = (
        squared
        - squared.mean(axis=0, keepdims=True)
        - squared.mean(axis=1, keepdims=True)
        + squared.mean()
    )
    gram = -0.25 * (centred + centred.T)
    values, vectors = xp.linalg.eigh(gram)  # ascending
    top = values[-dim:][::-1]
    return to_host(vectors[:, -dim:][:, ::-1] * xp.sqrt(xp.maximum(top, 0.0)))


# ------------------------------------------------------------- transform


def check_transformable(model) -> None:
    """The errors of umap-learn's ``transform`` before any work: a model of
    one sample, a composed model (no training data of its own), a
    ``precomputed_knn`` without a search index."""
    if getattr(model, "_composed", None):
        raise ValueError(
            f"transform is not available for a composed model (UMAP "
            f"{model._composed} UMAP): it has no training data of its own."
        )
    if model.graph_.shape[0] == 1:
        raise ValueError(
            "Transform unavailable when model was fit with only a single data sample."
        )
    if not getattr(model, "_search_index", True):
        raise NotImplementedError(
            "No search index available: transforming data into an existing "
            "embedding is not supported"
        )


def precomputed_neighbours(X, train, k: int, xp):
    """The ``k`` nearest training points of each new point from its
    distances to them (``X`` (q, n_train), dense or sparse in ``xp``;
    ``train`` the training distances, whose rows are counted):
    ``(dists float64, indices int64)`` in ``xp``. Sparse rows: their stored
    entries by distance (each needs at least ``k``); dense rows by gpuml's
    kNN kernels on the device, on the host by ``select_host``, equal
    distances in the fit's tie order either way."""
    if is_sparse(X):
        D = to_host(X).tocsr()
        D.sort_indices()
        counts = np.diff(D.indptr)
        if D.shape[0] and counts.min() < k:
            raise ValueError(f"Need at least n_neighbors ({k}) distances for each row!")
        rows = np.repeat(np.arange(D.shape[0]), counts)
        # each row's entries by distance (ties by column), its first k kept
        order = np.lexsort((D.indices, D.data, rows))
        rank = np.arange(order.shape[0]) - np.repeat(D.indptr[:-1], counts)
        kept = order[rank < k]
        dists = D.data[kept].astype(np.float64).reshape(-1, k)
        indices = D.indices[kept].astype(np.int64).reshape(-1, k)
        dists, indices = xp.asarray(dists), xp.asarray(indices)
    elif xp is np:  # equal distances in the fit's tie order (_umap._kneighbors)
        D = np.asarray(X, dtype=np.float64)
        rows = np.arange(train.shape[0], train.shape[0] + D.shape[0])
        dists, indices = metric_steps.select_host(D, k, rows=rows)
    else:
        from gpuml.neighbors._search import device_kneighbors

        dists, indices = device_kneighbors(train, X, k, "precomputed", hashed_ties=True)
    if bool((dists < 0).any()):
        raise ValueError(
            "Negative values in data passed to precomputed distance matrix."
        )
    return dists, indices


def membership_graph(values, indices, n_train: int, family: str):
    """``transform_mode='graph'``'s result: the new points' memberships as
    a CSR matrix of shape (n_queries, n_train) in ``family`` (zeros
    dropped)."""
    values, indices = to_host(values), to_host(indices)
    q, k = indices.shape
    rows = np.repeat(np.arange(q), k)
    graph = sp.csr_matrix(
        (values.ravel().astype(np.float32), (rows, indices.ravel())),
        shape=(q, n_train),
    )
    graph.eliminate_zeros()
    return to_family(graph, family)


# ----------------------------------------------------- inverse_transform


def _euclidean_grad(x, y, xp):
    diff = x - y
    d = xp.sqrt((diff * diff).sum(axis=1))
    return d, diff / (1e-6 + d)[:, None]


def _manhattan_grad(x, y, xp):
    diff = x - y
    return xp.abs(diff).sum(axis=1), xp.sign(diff)


def _cosine_grad(x, y, xp):
    dot = (x * y).sum(axis=1)
    nx2, ny2 = (x * x).sum(axis=1), (y * y).sum(axis=1)
    zero_x, zero_y = nx2 == 0, ny2 == 0
    nx, ny = xp.sqrt(nx2), xp.sqrt(ny2)
    safe = ~(zero_x | zero_y)
    denominator = xp.where(safe, nx * ny, 1.0)
    d = xp.where(safe, 1.0 - dot / denominator, xp.where(zero_x & zero_y, 0.0, 1.0))
    grad = (
        x * (dot / (xp.where(safe, nx2, 1.0) * denominator))[:, None]
        - y / denominator[:, None]
    )
    return d, xp.where(safe[:, None], grad, 0.0)


def _correlation_grad(x, y, xp):
    cx = x - x.mean(axis=1, keepdims=True)
    cy = y - y.mean(axis=1, keepdims=True)
    d, grad = _cosine_grad(cx, cy, xp)
    return d, grad - grad.mean(axis=1, keepdims=True)


def _callable_gradient(metric):
    """A callable metric's ``(distance, gradient)`` (its own, as umap-learn's
    inverse_transform takes it) in the gradients' batch form: the pairs of
    rows one by one on the host (copies: a metric may write into them)."""

    def gradient(x, y, xp):
        xs, ys = to_host(x), to_host(y)
        pairs = [
            metric.func(a.copy(), b.copy(), **metric.kwds)
            for a, b in zip(xs, ys, strict=True)
        ]
        d = np.array([float(pair[0]) for pair in pairs], dtype=np.float64)
        g = np.array([np.asarray(pair[1], dtype=np.float64) for pair in pairs])
        return xp.asarray(d), xp.asarray(g.reshape(xs.shape))

    return gradient


#: The input metrics whose gradient inverse_transform has (umap-learn's
#: ``named_distances_with_gradients`` that gpuml's metrics cover).
GRADIENTS = {
    "euclidean": _euclidean_grad,
    "l2": _euclidean_grad,
    "manhattan": _manhattan_grad,
    "cityblock": _manhattan_grad,
    "l1": _manhattan_grad,
    "cosine": _cosine_grad,
    "correlation": _correlation_grad,
}


def inverse_transform(model, X):
    """umap-learn's ``inverse_transform`` (see the module docstring):
    points in data space for the embedded points ``X``, in ``X``'s family
    and the training data's dtype."""
    check_is_fitted(model)
    if getattr(model, "_composed", None):
        raise ValueError(
            "Inverse transform not available for a composed model: it has no "
            "training data of its own."
        )
    reason = metric_steps.inverse_transform_error(model)  # umap-learn's
    if reason is not None:
        raise ValueError(reason)
    if not callable(model.metric) and model.metric not in GRADIENTS:
        raise ValueError("Inverse transform not available for given metric.")
    if getattr(model, "densmap", False):
        raise ValueError("Inverse transform not available for densMAP.")
    if getattr(model, "output_metric", "euclidean") not in ("euclidean", "l2"):
        raise ValueError(
            "Inverse transform not available for a non-euclidean output_metric "
            "(its neighbourhoods are found by euclidean distance in the embedding)."
        )
    if model.transform_mode == "graph":
        raise ValueError("Inverse transform not available for transform_mode = 'graph'")
    if model.n_components >= 8:
        warnings.warn(
            "Inverse transform works best with low dimensional embeddings. Results "
            "may be poor, or this approach to inverse transform may fail "
            "altogether! If you need a high dimensional latent space and inverse "
            "transform operations consider using an autoencoder.",
            UserWarning,
            stacklevel=3,
        )
    xp = compute_namespace()
    family = input_family(X)
    X_given = X
    X = check_array(X, xp=xp, dtype=(np.float32, np.float64), input_name="X")
    assert_fits_dtype(X, np.float32, xp=xp, input_name="X")
    embedding = model._fitted("embedding_", xp)
    if X.shape[1] != embedding.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features, but inverse_transform takes points of "
            f"the embedding's {embedding.shape[1]} dimensions."
        )
    raw = model._fitted("_raw_data", xp)
    dtype = raw.dtype
    n_train, n_features = raw.shape
    k = min(n_features, n_train)
    dists, indices = _embedding_neighbours(embedding, X.astype(np.float32), k, xp)
    weights = 1.0 / (1.0 + model._a * dists ** (2.0 * model._b))
    normalised = weights / weights.sum(axis=1, keepdims=True)
    start = xp.zeros((X.shape[0], n_features), dtype=dtype)
    for j in range(k):
        start += (normalised[:, j : j + 1] * raw[indices[:, j]]).astype(dtype)
    q = X.shape[0]
    if model.n_epochs is None:
        n_epochs = 100 if q <= 10_000 else 30
    else:
        n_epochs = int(model.n_epochs // 3)
    sigmas, rhos = _training_sigmas_rhos(model, raw, xp)
    result = _inverse_descent(
        start, raw, indices, weights, sigmas, rhos, n_epochs, model, xp
    )
    return to_output(to_family(result, family), X_given)


def _embedding_neighbours(embedding, X, k: int, xp, tile_elements: int = 1 << 24):
    """The ``k`` nearest training embeddings of each row of ``X`` (euclidean,
    ties by index): (distances float64, indices int64), in tiles of rows."""
    q = X.shape[0]
    n = embedding.shape[0]
    reference = embedding.astype(np.float64)
    norms = (reference * reference).sum(axis=1)
    step = max(1, tile_elements // max(n, 1))
    dists, indices = [], []
    for start in range(0, q, step):
        block = X[start : start + step].astype(np.float64)
        squares = (block * block).sum(axis=1)[:, None] + norms[None, :]
        d2 = squares - 2 * block @ reference.T
        d2 = xp.maximum(d2, 0.0)
        order = xp.argsort(d2, axis=1)[:, :k]
        dists.append(xp.sqrt(xp.take_along_axis(d2, order, axis=1)))
        indices.append(order.astype(np.int64))
    return xp.concatenate(dists), xp.concatenate(indices)


def _training_sigmas_rhos(model, raw, xp):
    """The training rows' ``sigma`` and ``rho`` (their neighbours' smooth
    distances, as the fit found them), in ``xp`` (float64); computed (the
    training kNN again, the memberships' bisection on the host) once per
    training data and kept in the private device cache."""
    from gpuml.manifold._umap import _kneighbors

    cache = model.__dict__.setdefault("_gpuml_cache", {})
    hit = cache.get("_inverse_sigmas_rhos")
    if hit is not None and hit[0] is model._raw_data:
        sigmas, rhos = hit[1]
    else:
        k = model._n_neighbors
        dists, indices = _kneighbors(raw, raw, k, model._metric, xp)
        _, sigmas, rhos = graph_steps.memberships_numpy(
            to_host(dists), to_host(indices), model.local_connectivity, bipartite=False
        )
        cache["_inverse_sigmas_rhos"] = (model._raw_data, (sigmas, rhos))
    return xp.asarray(sigmas), xp.asarray(rhos)


def _inverse_descent(head, raw, indices, weights, sigmas, rhos, n_epochs, model, xp):
    """umap-learn's ``optimize_layout_inverse``, vectorised over the new
    points: each epoch takes every point's j-th edge (j = 0..k-1) in turn,
    a due edge moving its point toward the edge's training row and then
    away from random training rows (negative samples), each step clipped to
    4 and scaled by the learning rate."""
    grad = (
        _callable_gradient(model._metric)
        if callable(model.metric)
        else GRADIENTS[model.metric]
    )
    q, k = indices.shape
    n_train = raw.shape[0]
    top = weights.max() if q else 1.0
    periods = xp.where(weights > 0, top / xp.where(weights > 0, weights, 1.0), -1.0)
    negative_rate = float(model.negative_sample_rate)
    negative_periods = periods / negative_rate if negative_rate > 0 else None
    next_sample = periods.copy()
    next_negative = None if negative_periods is None else negative_periods.copy()
    sampled = periods > 0
    gamma = float(model.repulsion_strength)
    rng = xp.random.RandomState(seed_of(model.transform_seed) % (2**32))
    rates = layout_steps.learning_rates(model.learning_rate / 4.0, n_epochs)
    dtype = head.dtype
    for epoch, alpha in enumerate(rates):
        for j in range(k):
            due = sampled[:, j] & (next_sample[:, j] <= epoch)
            tails = indices[:, j]
            _, g = grad(head, raw[tails], xp)
            coeff = -1.0 / (weights[:, j] * sigmas[tails] + 1e-6)
            step = xp.clip(coeff[:, None] * g, -4.0, 4.0) * alpha
            head = xp.where(due[:, None], head + step.astype(dtype), head)
            next_sample[:, j] += xp.where(due, periods[:, j], 0.0)
            if negative_periods is None:
                continue
            n_negative = xp.where(
                due, (epoch - next_negative[:, j]) / negative_periods[:, j], 0.0
            ).astype(np.int64)
            n_negative = xp.maximum(n_negative, 0)
            for p in range(int(n_negative.max()) if q else 0):
                live = p < n_negative
                others = rng.randint(0, n_train, size=q)
                d, g = grad(head, raw[others], xp)
                sigma = sigmas[others]
                w_h = xp.exp(-xp.maximum(d - rhos[others], 1e-6) / (sigma + 1e-6))
                coeff = gamma * w_h / ((1.0 - w_h) * sigma + 1e-6)
                step = xp.clip(coeff[:, None] * g, -4.0, 4.0) * alpha
                head = xp.where(live[:, None], head + step.astype(dtype), head)
            next_negative[:, j] += n_negative * negative_periods[:, j]
    return head


# ----------------------------------------------------------------- update


def update(model, X, ensure_all_finite=True):
    """umap-learn's ``update`` (see the module docstring): ``X`` appended to
    the training data, the neighbours and graph of all rows computed again,
    and the embedding laid out again from the old one, each new row
    starting at the mean of its neighbours among the old rows."""
    from gpuml.manifold._umap import _kneighbors, default_epochs

    check_is_fitted(model)
    if model.metric == "precomputed":
        raise ValueError("Update does not currently support precomputed metrics")
    if getattr(model, "_supervised", False):
        raise ValueError("Updating supervised models is not currently supported")
    if getattr(model, "_composed", None):
        raise ValueError(
            "update is not available for a composed model: it has no training "
            "data of its own."
        )
    if model.unique:
        raise ValueError(
            "update is not available for a model fitted with unique=True (its "
            "graph is of the distinct rows)."
        )
    if model.graph_.shape[0] == 1:
        raise ValueError(
            "update is not available for a model fitted on a single sample: fit "
            "on all the data instead."
        )
    xp = compute_namespace()
    X = model._validated(X, xp, ensure_all_finite, reset=False)  # as transform's
    old = model._fitted("_raw_data", xp)
    if is_sparse(X) or is_sparse(old):
        raise ValueError("update is not available for sparse input.")
    family = input_family(model.graph_)
    n_old = old.shape[0]
    data = xp.concatenate([old, X.astype(old.dtype)])
    n = data.shape[0]
    k = model._n_neighbors
    dists, indices = _kneighbors(data, data, k, model._metric, xp)
    graph = fuzzy_graph(
        dists, indices, model.local_connectivity, model.set_op_mix_ratio, xp
    )
    model._reset_device_cache()
    model.graph_ = to_family(graph, family)
    model._raw_data = to_family(data, family)
    model._fit_rows = None
    if model.transform_mode == "graph":
        return model
    start = np.zeros((n, model.embedding_.shape[1]), dtype=np.float32)
    start[:n_old] = to_host(model.embedding_)
    _place_new_rows(start, n_old, to_host(indices))
    n_epochs = model.n_epochs or default_epochs(n)
    settings = model._layout_settings(model._a, model._b, model.learning_rate, True, 0)
    rng = check_random_state(model.transform_seed)
    embedding = embed_graph(graph, start.shape[1], n_epochs, start, rng, settings, xp)
    model.embedding_ = to_family(embedding, family)
    return model


def _place_new_rows(start, n_old: int, indices) -> None:
    """Each new row (from ``n_old``) at the mean of its neighbours among the
    old rows (umap-learn's ``init_update``, which also divides that mean by
    the dimension); a new row whose neighbours are all new takes, in turn,
    the mean of its placed neighbours, and failing that the old rows' mean."""
    n = start.shape[0]
    placed = np.zeros(n, dtype=bool)
    placed[:n_old] = True
    new = np.arange(n_old, n)
    neighbours = indices[n_old:]
    for _ in range(n - n_old + 1):
        waiting = ~placed[new]
        if not waiting.any():
            return
        rows, nbrs = new[waiting], neighbours[waiting]
        usable = placed[nbrs] & (nbrs >= 0)
        count = usable.sum(axis=1)
        ready = count > 0
        if not ready.any():
            break
        sums = (start[nbrs] * usable[:, :, None]).sum(axis=1)
        start[rows[ready]] = sums[ready] / count[ready, None]
        placed[rows[ready]] = True
    start[~placed] = start[:n_old].mean(axis=0)
