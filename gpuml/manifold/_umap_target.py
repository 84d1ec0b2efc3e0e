"""Supervised UMAP: the data's fuzzy simplicial set combined with the target's.

umap-learn 0.5.12's rules, on the host (SciPy), for a graph from either
device: a categorical target scales the edges between different labels
(``discrete_metric_simplicial_set_intersection``); the other discrete
metrics (``ordinal``, ``count``, ``string``) scale each edge by
``exp(-scale * distance)`` between its ends' targets, with umap-learn's
distances and their parameters (``get_discrete_params``); a continuous
target (any of the data's metrics) has its own fuzzy simplicial set of
``target_n_neighbors`` neighbours, intersected with the data's
(``general_simplicial_set_intersection``, weighted by ``target_weight``).
Each ends as umap-learn's does: rows scaled to a maximum of 1 and the fuzzy
union with the transpose again (``reset_local_connectivity``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gpuml.manifold import _umap_graph as graph_steps

#: The target metrics of umap-learn's discrete intersection that gpuml has.
DISCRETE = ("categorical", "ordinal", "count", "string")
# Below this many samples the target's neighbours come from all its
# pairwise distances (umap-learn's rule), above from a tree.
_PAIRWISE_UP_TO = 4096


def intersect(graph, y, metric: str, weight: float, n_neighbors: int):
    """The data's ``graph`` (SciPy CSR) combined with the target ``y`` (host
    array; strings for ``metric='string'``, else numbers, 2-D allowed for a
    continuous metric), as umap-learn combines them."""
    if metric in DISCRETE:
        scale = 2.5 * (1.0 / (1.0 - weight)) if weight < 1.0 else 1.0e12
        coo = graph.tocoo()
        if metric == "categorical":
            factor = _categorical(y[coo.row], y[coo.col], scale)
        else:
            factor = np.exp(-scale * _discrete_distances(y, coo.row, coo.col, metric))
        coo.data = (coo.data * factor).astype(np.float32)
        coo.eliminate_zeros()
        return reset_local_connectivity(coo.tocsr())
    target = y.reshape(-1, 1) if y.ndim == 1 else y
    target_graph = _target_graph(
        np.asarray(target, dtype=np.float64), metric, n_neighbors
    )
    return reset_local_connectivity(_general_intersection(graph, target_graph, weight))


def reset_local_connectivity(graph):
    """umap-learn's ``reset_local_connectivity``: each row scaled to a
    maximum of 1, then the fuzzy union with the transpose."""
    graph = graph.tocsr()
    top = graph.max(axis=1).toarray().ravel()
    top[top == 0] = 1.0
    graph = sp.diags(1.0 / top) @ graph
    transpose = graph.T
    graph = (graph + transpose - graph.multiply(transpose)).tocsr()
    graph.data = graph.data.astype(np.float32)
    graph.eliminate_zeros()
    return graph


def _categorical(yi, yj, far: float):
    """umap-learn's ``fast_intersection``: an unlabelled end (-1) scales the
    edge by exp(-1), different labels by exp(-far)."""
    unknown = (yi == -1) | (yj == -1)
    return np.where(unknown, np.exp(-1.0), np.where(yi != yj, np.exp(-far), 1.0))


def _discrete_distances(y, rows, columns, metric: str) -> np.ndarray:
    """The distances between the targets of each edge's ends, computed once
    per pair of distinct values, with umap-learn's arithmetic. Where that
    arithmetic gives no finite number (a constant target; counts of 0,
    whose Poisson distance umap-learn takes the logarithm of), umap-learn's
    fit fails on the NaN it makes; this raises a ValueError that says so."""
    values, codes = np.unique(y, return_inverse=True)
    codes = codes.ravel()
    if rows.shape[0] == 0:
        return np.zeros(0)
    pairs, where = np.unique(
        np.stack([codes[rows], codes[columns]], axis=1), axis=0, return_inverse=True
    )
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        distance = _discrete_metric(y, metric)
        table = np.array([distance(values[a], values[b]) for a, b in pairs])
    bad = ~np.isfinite(table)
    if bad.any():
        a, b = (values[i].item() for i in pairs[np.flatnonzero(bad)[0]])
        raise ValueError(
            f"target_metric={metric!r} gives no finite distance between the "
            f"target values {a!r} and {b!r} (umap-learn's "
            f"{metric} distance with the parameters it draws from this target"
            "; umap-learn fails on the NaN it makes). Use another "
            "target_metric, such as 'categorical'."
        )
    return table[where.ravel()]


def _discrete_metric(y, metric: str):
    """umap-learn's distance for ``metric`` with the parameters it draws from
    the target (``get_discrete_params``), in float64 arithmetic (division
    by zero gives inf or NaN, as in umap-learn's compiled code)."""
    if metric == "ordinal":
        support = np.float64(y.max() - y.min()) / 2.0
        return lambda a, b: np.abs(np.float64(a) - b) / support
    if metric == "count":
        lam = float(np.mean(y))
        normalisation = _count_distance(y.min(), y.max(), lam, np.float64(1.0)) / 2.0
        return lambda a, b: _count_distance(a, b, lam, normalisation)
    lengths = np.array([len(value) for value in y])
    max_dist = lengths.max() / 1.5
    normalisation = np.float64(max_dist / 2.0)
    return lambda a, b: _levenshtein(a, b, normalisation, max_dist / 2.0)


def _log_gamma_approx(x: float) -> float:
    """umap-learn's ``approx_log_Gamma`` (Stirling, first terms)."""
    if x == 1:
        return 0.0
    return x * np.log(x) - x + 0.5 * np.log(2.0 * np.pi / x) + 1.0 / (x * 12.0)


def _count_distance(x, y, poisson_lambda: float, normalisation):
    """umap-learn's ``count_distance`` (a count of 0 makes it infinite)."""
    lo, hi = int(min(x, y)), int(max(x, y))
    log_lambda = np.log(np.float64(poisson_lambda))
    if lo < 2:
        log_k_factorial = np.float64(0.0)
    elif lo < 10:
        log_k_factorial = np.sum(np.log(np.arange(2, lo, dtype=np.float64)))
    else:
        log_k_factorial = np.float64(_log_gamma_approx(lo + 1))
    result = np.float64(0.0)
    for k in range(lo, hi):
        result += k * log_lambda - poisson_lambda - log_k_factorial
        log_k_factorial += np.log(np.float64(k))
    return result / normalisation


def _levenshtein(x: str, y: str, normalisation, max_distance: float):
    """umap-learn's ``levenshtein``: the edit distance, capped."""
    if abs(len(x) - len(y)) > max_distance:
        return np.float64(max_distance) / normalisation
    if not x or not y:
        return np.float64(len(x) or len(y)) / normalisation
    previous = np.arange(len(y) + 1, dtype=np.float64)
    for i, a in enumerate(x):
        current = np.empty_like(previous)
        current[0] = i + 1
        for j, b in enumerate(y):
            current[j + 1] = min(
                previous[j + 1] + 1, current[j] + 1, previous[j] + (a != b)
            )
        previous = current
        if previous.min() > max_distance:
            return np.float64(max_distance) / normalisation
    return np.float64(previous[len(y)]) / normalisation


def _target_graph(target, metric: str, n_neighbors: int):
    """The target's fuzzy simplicial set (local connectivity 1), each row's
    memberships without the union with the transpose (umap-learn passes
    ``apply_set_operations=False`` here), as a SciPy CSR matrix."""
    from sklearn.metrics import pairwise_distances

    from gpuml._sklearn_compat import sklearn_own

    NearestNeighbors = sklearn_own("sklearn.neighbors", "NearestNeighbors")

    n = target.shape[0]
    k = min(n_neighbors, n)
    metric = {"l2": "euclidean", "l1": "manhattan", "cityblock": "manhattan"}.get(
        metric, metric
    )
    if n < _PAIRWISE_UP_TO:
        distances = pairwise_distances(target, metric=metric)
        indices = np.argsort(distances, axis=1, kind="stable")[:, :k]
        dists = np.take_along_axis(distances, indices, axis=1)
    else:
        search = NearestNeighbors(n_neighbors=k, metric=metric).fit(target)
        dists, indices = search.kneighbors(target)
    values, _, _ = graph_steps.memberships_numpy(dists, indices, 1.0, bipartite=False)
    rows = np.repeat(np.arange(n), k)
    graph = sp.csr_matrix((values.ravel(), (rows, indices.ravel())), shape=(n, n))
    graph.eliminate_zeros()
    return graph


def _general_intersection(left, right, weight: float):
    """umap-learn's ``general_simplicial_set_intersection``: on the union of
    both graphs' edges, ``left ** ((1 - w) / w) * right`` (``w >= 0.5``) or
    ``left * right ** (w / (1 - w))``, a missing value read as half the
    graph's smallest (at least 1e-8; the right's at most 1e-4); an edge
    missing from both keeps the sum of the two."""
    left, right = left.tocsr(), right.tocsr()
    result = (left + right).tocoo()
    left_min = max(left.data.min() / 2.0, 1.0e-8) if left.nnz else 1.0e-8
    right_min = min(max(right.data.min() / 2.0, 1.0e-8), 1e-4) if right.nnz else 1e-8
    left_val = _values_at(left, result.row, result.col, left_min)
    right_val = _values_at(right, result.row, result.col, right_min)
    either = (left_val > left_min) | (right_val > right_min)
    with np.errstate(divide="ignore", over="ignore"):
        if weight < 0.5:
            mixed = left_val * np.power(right_val, weight / (1.0 - weight))
        else:
            mixed = np.power(left_val, (1.0 - weight) / weight) * right_val
    data = np.where(either, mixed, result.data).astype(np.float32)
    return sp.csr_matrix((data, (result.row, result.col)), shape=result.shape)


def _values_at(matrix, rows, columns, missing: float) -> np.ndarray:
    """``matrix[rows, columns]`` (float64), ``missing`` where not stored."""
    coo = matrix.tocoo()
    width = np.int64(matrix.shape[1])
    keys = coo.row.astype(np.int64) * width + coo.col
    order = np.argsort(keys, kind="stable")
    keys, data = keys[order], coo.data[order].astype(np.float64)
    if keys.shape[0] == 0:
        return np.full(rows.shape[0], missing)
    wanted = rows.astype(np.int64) * width + columns
    at = np.minimum(np.searchsorted(keys, wanted), keys.shape[0] - 1)
    return np.where(keys[at] == wanted, data[at], missing)
