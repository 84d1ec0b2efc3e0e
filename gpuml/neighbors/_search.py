"""Exact k-nearest-neighbour search: the functions behind NearestNeighbors,
UMAP and trustworthiness.

On a GPU, :func:`device_kneighbors` tiles the query rows: each tile's scores
against every fitted row come from one float64 matrix product (cuBLAS; the
Manhattan metric has a kernel of its own, a precomputed matrix is its own
scores), and a kernel of ``gpuml/_cuda/neighbors.cu`` selects each row's k
smallest keys, one warp per row. Float64 throughout, so that the neighbours
are scikit-learn's (whose euclidean distances upcast float32 to float64
too); ties are ordered by index. A tile takes at most
:data:`TILE_BYTES` of device memory, so a search needs about that plus the
data (in float64) and its (n_queries, k) results: see
:func:`device_memory_estimate`.

On the CPU, scikit-learn's brute-force search is the search.
"""

from __future__ import annotations

import numpy as np

from gpuml import _cuda
from gpuml._backend import get_cupy
from gpuml._fold_store import fold_cached, fold_rows

#: The largest score tile (float64, query rows x fitted rows) on the device:
#: the selection runs a warp per row of a tile, so a tile must have rows
#: enough to fill the GPU (at 512 MB, 60,000 fitted rows gave 1,118 warps
#: and a selection three times slower than at 2 GB). A quarter of the free
#: memory at most.
TILE_BYTES = 2 << 30
#: The fewest query rows of a tile of the kNN search (a warp each), unless
#: there are fewer; wider data is then split into blocks of fitted rows.
MIN_TILE_ROWS = 4096
#: The most neighbours the device's selection keeps per row.
MAX_DEVICE_K = 127
_WARPS_PER_BLOCK = _cuda.THREADS // 32

# metric name (and Minkowski p) -> the device's metric
_METRICS = {
    "euclidean": "euclidean",
    "l2": "euclidean",
    "manhattan": "manhattan",
    "cityblock": "manhattan",
    "l1": "manhattan",
    "cosine": "cosine",
    "correlation": "correlation",
    "precomputed": "precomputed",
}


def device_metric(metric, p=2, metric_params=None) -> str | None:
    """The device's name for a scikit-learn metric setting, or None when the
    device does not compute it (scikit-learn's code then does)."""
    if metric_params:
        p = metric_params.get("p", p) if set(metric_params) <= {"p"} else None
    if metric == "minkowski":
        return {1: "manhattan", 2: "euclidean"}.get(p)
    if not isinstance(metric, str):
        return None
    return _METRICS.get(metric)


def device_memory_estimate(n_fit: int, n_query: int, n_features: int, k: int) -> int:
    """Bytes of device memory an exact search needs at most, about: the
    data in float64, one score tile and the results."""
    data = 8 * n_features * (n_fit + n_query)
    tile = min(TILE_BYTES, 8 * max(n_fit, 1) * max(n_query, 1))
    return data + tile + 16 * n_query * k + 16 * n_fit


def _launch(name: str, n: int, args) -> None:
    _cuda.launch("neighbors", name, n, args)


def _as_float64(X, copy: bool):
    cupy = get_cupy()
    X = cupy.ascontiguousarray(X)
    out = _cuda.cast(X, np.float64)
    return _cuda.copy(out) if copy and out is X else out


class _Scores:
    """The scores of query rows against fitted rows, by tiles (the data
    prepared once for the metric: float64 copies, rows normalised for
    cosine and correlation, squared norms for euclidean)."""

    def __init__(self, X_fit, X_query, metric):
        cupy = get_cupy()
        _cuda.prefetch_module("neighbors")
        self.metric = metric
        self.n = X_fit.shape[0]
        self.q = X_query.shape[0]
        self.column = self.row_terms = None
        self.alpha, self.kind = 1.0, 0
        self._tile = None
        self._tiles_of = None
        if callable(metric):  # a function of the tile: its distances
            self._tiles_of, self.metric = metric, "distances"
            self.F = self.Q = None
            return
        if metric == "precomputed":
            self.F, self.Q = None, _as_float64(X_query, copy=False)
            return
        normalise = metric in ("cosine", "correlation")
        F = _as_float64(X_fit, copy=normalise)
        Q = F if X_query is X_fit else _as_float64(X_query, copy=normalise)
        self.F, self.Q = F, Q
        d = np.int64(F.shape[1])
        if normalise:
            center = np.int32(metric == "correlation")
            for A in (F,) if Q is F else (F, Q):
                args = (A, np.int64(A.shape[0]), d, center)
                _launch("normalize_rows", A.shape[0], args)
            self.alpha, self.kind = -1.0, 2
        elif metric == "euclidean":
            self.column = cupy.empty(self.n, dtype=np.float64)
            _launch("squared_norms", self.n, (F, np.int64(self.n), d, self.column))
            self.row_terms = self.column
            if Q is not F:
                self.row_terms = cupy.empty(self.q, dtype=np.float64)
                _launch(
                    "squared_norms", self.q, (Q, np.int64(self.q), d, self.row_terms)
                )
            self.alpha, self.kind = -2.0, 1

    def _budget(self) -> int:
        free, _ = get_cupy().cuda.runtime.memGetInfo()
        if self._tiles_of is not None:
            # a tile function's temporaries: a few tiles' worth
            return min(TILE_BYTES // 8, max(free // 16, 8 << 20))
        return min(TILE_BYTES, max(free // 4, 8 << 20))

    def _scores(self, start: int, stop: int, c0: int, c1: int):
        """The (stop - start, c1 - c0) scores of query rows start:stop
        against fitted rows c0:c1 (C order)."""
        cupy = get_cupy()
        t = stop - start
        if self._tiles_of is not None:
            return cupy.ascontiguousarray(self._tiles_of(start, stop, c0, c1))
        if self.metric == "precomputed":
            return self.Q[start:stop]  # whole rows (c0 = 0, c1 = n)
        if self.metric == "manhattan":
            width = c1 - c0
            if self._tile is None or self._tile.size < t * width:
                self._tile = cupy.empty(t * width, dtype=np.float64)
            scores = self._tile[: t * width].reshape(t, width)
            d = np.int64(self.F.shape[1])
            args = (self.Q[start:stop], self.F[c0:c1], np.int64(t), np.int64(width), d)
            _launch("manhattan_tile", t * width, (*args, scores))
            return scores
        return self.Q[start:stop] @ self.F[c0:c1].T  # cuBLAS

    def tiles(self):
        """``(start, stop, scores)`` over the query rows, each tile's scores
        against every fitted row (t, n)."""
        step = max(1, min(self.q, self._budget() // (8 * max(self.n, 1))))
        for start in range(0, self.q, step):
            stop = min(self.q, start + step)
            yield start, stop, self._scores(start, stop, 0, self.n)

    def blocks(self):
        """``(start, stop, c0, c1, scores)``: tiles of at least
        :data:`MIN_TILE_ROWS` query rows (so that a warp per row fills the
        GPU), split into blocks of fitted rows when a tile would pass the
        memory budget (a precomputed matrix: whole rows)."""
        budget = self._budget()
        rows = max(MIN_TILE_ROWS, budget // (8 * max(self.n, 1)))
        rows = max(1, min(self.q, rows))
        width = self.n
        if self.metric != "precomputed":
            width = max(1, min(self.n, budget // (8 * rows)))
        for start in range(0, self.q, rows):
            stop = min(self.q, start + rows)
            for c0 in range(0, self.n, width):
                c1 = min(self.n, c0 + width)
                yield start, stop, c0, c1, self._scores(start, stop, c0, c1)

    def key_args(self, c0: int = 0, c1: int | None = None) -> tuple:
        """The arguments that turn scores of fitted rows c0:c1 into keys."""
        column = 0 if self.column is None else self.column[c0:c1]
        return (column, np.float64(self.alpha))


def tie_keys(rows, columns):
    """The order of equal distances in UMAP's searches (the host twin of
    ``tie_key`` in gpuml/_cuda/neighbors.cu): for query rows ``rows`` and
    fitted rows ``columns`` (broadcast int64 arrays, columns < 2**32), a
    31-bit hash of the pair above the column's 32 bits; 0 above them for a
    row's own column, which comes first among its duplicates."""
    i = np.asarray(rows, dtype=np.int64).astype(np.uint64)
    j = np.asarray(columns, dtype=np.int64).astype(np.uint64)
    z = (i * np.uint64(0x9E3779B97F4A7C15)) ^ j
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    high = ((z >> np.uint64(33)) | np.uint64(1)) << np.uint64(32)
    return np.where(i == j, j, high | j).astype(np.int64)


def device_kneighbors(X_fit, X_query, k: int, metric, hashed_ties=False):
    """The ``k`` nearest rows of ``X_fit`` (device, (n, d)) to each row of
    ``X_query`` (device, (q, d); for "precomputed", the (q, n) distances):
    ``(distances, indices)``, float64 and int64 device arrays of shape
    (q, k), ascending, ties by index. ``metric`` may also be a function
    ``tile(start, stop, c0, c1)`` giving the float64 distances of query
    rows start:stop to fitted rows c0:c1 (any metric: UMAP's), which are
    then selected as precomputed ones are; ``X_fit`` and ``X_query`` only
    give the sizes then (they may be sparse).

    ``hashed_ties`` (UMAP's searches): equal distances ordered by
    :func:`tie_keys` of (query row, fitted row) rather than by index, the
    query rows numbered as the fitted ones when ``X_query is X_fit`` (a
    row's own index first among its duplicates), after them otherwise; and
    euclidean distances of the selected rows computed again directly (exact
    zeros for duplicates; see ``euclidean_exact``)."""
    cupy = get_cupy()
    if not 1 <= k <= min(X_fit.shape[0], MAX_DEVICE_K):
        raise ValueError(f"k={k} outside 1..{min(X_fit.shape[0], MAX_DEVICE_K)}")
    row0 = 0 if X_query is X_fit else X_fit.shape[0]
    if hashed_ties and row0 + X_query.shape[0] >= 2**32 - 1:
        raise ValueError("UMAP's search takes fewer than 2**32 - 1 rows")
    scores = _Scores(X_fit, X_query, metric)
    q = scores.q
    keys = cupy.empty((q, k), dtype=np.float64)
    indices = cupy.empty((q, k), dtype=np.int64)
    part_keys = part_indices = None
    select = _cuda.kernel("neighbors", "knn_select")
    for start, stop, c0, c1, block in scores.blocks():
        # A block narrower than k (the last) pads its lists with infinite
        # keys, which the merge never prefers to the running ones.
        t, width = stop - start, c1 - c0
        grid = (max(1, min(-(-t // _WARPS_PER_BLOCK), 65535)),)  # a warp per row
        if c0 == 0:
            out_keys, out_indices = keys[start:stop], indices[start:stop]
        else:
            if part_keys is None:
                part_keys = cupy.empty_like(keys)
                part_indices = cupy.empty_like(indices)
            out_keys, out_indices = part_keys[:t], part_indices[:t]
        args = (block, *scores.key_args(c0, c1), np.int64(t), np.int64(width))
        args += (np.int32(k), np.int64(c0), np.int64(row0 + start))
        args += (np.int32(hashed_ties), out_keys, out_indices)
        select(grid, (_cuda.THREADS,), args)
        if c0 != 0:
            args = (keys[start:stop], indices[start:stop], out_keys, out_indices)
            _launch("knn_merge", t, (*args, np.int64(t), np.int32(k)))
    distances = cupy.empty((q, k), dtype=np.float64)
    row_terms = scores.row_terms if scores.row_terms is not None else 0
    args = (keys, row_terms, np.int64(q), np.int32(k), np.int32(scores.kind))
    _launch("knn_distances", q * k, (*args, np.int32(hashed_ties), indices, distances))
    if hashed_ties and scores.metric == "euclidean":
        d = np.int64(scores.F.shape[1])
        args = (scores.Q, scores.F, np.int64(q), d, np.int32(k), np.int64(row0))
        grid = (max(1, min(-(-q // _WARPS_PER_BLOCK), 65535)),)  # a warp per row
        exact = _cuda.kernel("neighbors", "euclidean_exact")
        exact(grid, (_cuda.THREADS,), (*args, indices, distances))
    return distances, indices


def device_ranks(X, neighbours, metric: str):
    """For each row i of ``X`` (device) and each of its ``neighbours[i]``
    (device int64 (n, k), rows of ``X``), the neighbour's rank among the
    other rows by distance from row i in ``X`` (1 for the nearest; equal
    distances ordered by index): trustworthiness' ranks, (n, k) int64 on
    the device, in tiles of rows (no (n, n) matrix)."""
    cupy = get_cupy()
    scores = _Scores(X, X, metric)
    n, k = neighbours.shape
    ranks = cupy.empty((n, k), dtype=np.int64)
    for start, stop, tile in scores.tiles():
        t = stop - start
        blocks = (max(1, min(t, 65535)),)
        args = (tile, *scores.key_args(), np.int64(t), np.int64(scores.n))
        args += (
            np.int64(start),
            neighbours[start:stop],
            np.int32(k),
            ranks[start:stop],
        )
        _cuda.kernel("neighbors", "neighbour_ranks")(blocks, (_cuda.THREADS,), args)
    return ranks


def drop_self(distances, indices):
    """scikit-learn's treatment of a query of the fitted rows themselves
    (``kneighbors(X=None)``): from ``k + 1`` neighbours, each row's own
    index is removed (or, when duplicates crowd it out, the first
    neighbour). Host arrays."""
    n, k1 = indices.shape
    mask = indices != np.arange(n)[:, None]
    mask[:, 0][mask.all(axis=1)] = False
    return distances[mask].reshape(n, k1 - 1), indices[mask].reshape(n, k1 - 1)


def neighbours_of(fit_rows: int, X_query, key: tuple, compute):
    """``compute()`` (a neighbour search of ``X_query`` among the rows an
    estimator was fitted on, ``fit_rows`` being ``id()`` of that input), or
    its result from an earlier candidate of the same search and fold: when a
    search shares its fold's results (:func:`gpuml._fold_store.shared_fold`), the
    fitted rows are the fold's training rows and ``X_query`` its training
    or test rows, the result is kept in the fold's store under ``key``
    (which must name everything else the search depends on: metric, k...).
    While the search's context is open its rows are alive, so an equal
    ``id()`` is the same array."""
    shared = fold_rows()
    if shared is None or fit_rows != id(shared[1][0]):
        return compute()
    return fold_cached(X_query, key, compute)
