"""UMAP's fuzzy simplicial set: from kNN distances to the weighted graph
whose edges the layout samples.

Each step is written twice, for NumPy (the CPU path and the oracle of the
tests) and for the device (kernels of ``gpuml/_cuda/umap.cu``); they compute
the same thing, step for step, as umap-learn's functions of the same
meaning (``smooth_knn_dist``, ``compute_membership_strengths``,
``fuzzy_simplicial_set``, ``make_epochs_per_sample``):

1. ``memberships``: per row, rho (the ``local_connectivity``-th nonzero
   distance) and sigma (bisection so that the memberships sum to
   ``log2(k)``), then each neighbour's membership ``exp(-(d - rho) /
   sigma)``;
2. ``fuzzy_union``: the entries of P and of its transpose, sorted by key
   ``row * n + column``, come in runs of one or two per key; the first of a
   run gets ``mix * (a + b - ab) + (1 - mix) * ab``, the rest 0;
3. ``schedule``: weights below ``max / n_epochs`` dropped, every other edge
   sampled every ``max / w`` epochs.

A :class:`Edges` is the result: the graph's entries sorted by key, in CSR
order (row pointers, keys), with weights and epochs per sample, in the
namespace of the computation. On the device, zero weights stay in place
(the layout skips them); :meth:`Edges.csr` drops them for ``graph_``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gpuml import _cuda
from gpuml._array import to_host
from gpuml._backend import get_cupy

SMOOTH_K_TOLERANCE = 1e-5
MIN_K_DIST_SCALE = 1e-3
N_ITER = 64


@dataclass
class Edges:
    """A UMAP graph's entries in CSR order (``xp`` arrays)."""

    indptr: object  # (n_rows + 1,) int64
    keys: object  # (m,) int64: row * n_columns + column
    weights: object  # (m,) float32; 0 for no edge
    n_rows: int
    n_columns: int

    def csr(self):
        """The graph as a SciPy CSR matrix (host copies, zeros dropped)."""
        from gpuml._array import to_host

        keys, weights = to_host(self.keys), to_host(self.weights)
        kept = weights > 0
        keys, weights = keys[kept], weights[kept]
        rows = keys // self.n_columns
        columns = keys - rows * self.n_columns
        indptr = np.zeros(self.n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n_rows), out=indptr[1:])
        shape = (self.n_rows, self.n_columns)
        return sp.csr_matrix((weights, columns.astype(np.int32), indptr), shape=shape)


def edges_from_csr(graph, xp) -> Edges:
    """The :class:`Edges` of a SciPy CSR graph (sorted indices), in ``xp``."""
    graph = graph.tocsr()
    graph.sort_indices()
    n_rows, n_columns = graph.shape
    rows = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(graph.indptr))
    keys = rows * n_columns + graph.indices
    parts = (graph.indptr.astype(np.int64), keys, graph.data.astype(np.float32))
    indptr, keys, weights = (xp.asarray(p) for p in parts)
    return Edges(indptr, keys, weights, n_rows, n_columns)


# ------------------------------------------------------------------ NumPy


def memberships_numpy(dists, indices, local_connectivity: float, bipartite: bool):
    """Step 1 on the host: (memberships float32 (n, k), sigmas, rhos)."""
    dists = np.asarray(dists, dtype=np.float64)
    n, k = dists.shape
    target = np.log2(k)
    nonzero = dists > 0
    count = nonzero.sum(axis=1)
    rank = np.cumsum(nonzero, axis=1)

    def nth_nonzero(m: int) -> np.ndarray:
        # (a removed neighbour's distance is inf: where, not a product)
        return np.where(nonzero & (rank == m), dists, 0.0).sum(axis=1)

    floor_lc = int(np.floor(local_connectivity))
    interpolation = local_connectivity - floor_lc
    rho = np.zeros(n)
    enough = count >= local_connectivity
    if floor_lc > 0:
        at = nth_nonzero(floor_lc)
        value = at
        if interpolation > SMOOTH_K_TOLERANCE:
            value = at + interpolation * (nth_nonzero(floor_lc + 1) - at)
    else:
        value = interpolation * nth_nonzero(1)
    rho[enough] = value[enough]
    some = ~enough & (count > 0)
    rho[some] = np.where(nonzero, dists, 0).max(axis=1)[some]

    lo, hi, mid = np.zeros(n), np.full(n, np.inf), np.ones(n)
    active = np.ones(n, dtype=bool)
    # inf - inf (a row whose neighbours were all removed: rho is inf) is
    # NaN, which counts 1 in the sum, as in umap-learn's smooth_knn_dist
    with np.errstate(invalid="ignore"):
        gaps = dists[:, 1:] - rho[:, None]
    for _ in range(N_ITER):
        if not active.any():
            break
        g = gaps[active]
        with np.errstate(over="ignore"):
            terms = np.where(
                g > 0, np.exp(-(np.maximum(g, 0) / mid[active, None])), 1.0
            )
        psum = terms.sum(axis=1)
        rows = np.flatnonzero(active)
        done = np.abs(psum - target) < SMOOTH_K_TOLERANCE
        above = ~done & (psum > target)
        below = ~done & ~above
        hi[rows[above]] = mid[rows[above]]
        mid[rows[above]] = (lo[rows[above]] + hi[rows[above]]) / 2.0
        r = rows[below]
        lo[r] = mid[r]
        mid[r] = np.where(np.isinf(hi[r]), mid[r] * 2, (lo[r] + hi[r]) / 2.0)
        active[rows[done]] = False
    mean_row = dists.mean(axis=1)
    floor = np.where(
        rho > 0, MIN_K_DIST_SCALE * mean_row, MIN_K_DIST_SCALE * dists.mean()
    )
    sigma = np.maximum(mid, floor)

    with np.errstate(divide="ignore", invalid="ignore"):
        gap = dists - rho[:, None]
        values = np.where(
            (gap <= 0) | (sigma[:, None] == 0),
            1.0,
            np.exp(-(np.maximum(gap, 0) / sigma[:, None])),
        )
    values[indices < 0] = 0.0
    if not bipartite:
        values[indices == np.arange(n)[:, None]] = 0.0
    return values.astype(np.float32), sigma, rho


def union_numpy(values, indices, mix: float) -> Edges:
    """Step 2 on the host: the fuzzy union of P and its transpose."""
    n, k = indices.shape
    rows = np.repeat(np.arange(n, dtype=np.int64), k)
    columns = indices.ravel().astype(np.int64)
    v = values.ravel()
    valid = columns >= 0
    rows, columns, v = rows[valid], columns[valid], v[valid]
    keys = np.concatenate([rows * n + columns, columns * n + rows])
    both = np.concatenate([v, v])
    order = np.argsort(keys, kind="stable")
    keys, both = keys[order], both[order]
    first = np.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    paired = np.zeros(keys.shape[0], dtype=bool)
    paired[:-1] = keys[1:] == keys[:-1]
    b = np.where(paired, np.roll(both, -1), np.float32(0))
    product = both * b
    weights = (mix * (both + b - product) + (1.0 - mix) * product).astype(np.float32)
    weights[~first] = 0
    kept = weights > 0
    keys, weights = keys[kept], weights[kept]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n, minlength=n), out=indptr[1:])
    return Edges(indptr, keys, weights, n, n)


def schedule_numpy(weights, n_epochs: int, prune_epochs: int):
    """Step 3 on the host: epochs per sample (-1: never)."""
    top = weights.max() if weights.shape[0] else np.float32(1)
    samples = np.float32(n_epochs) * (weights / top)
    with np.errstate(divide="ignore", over="ignore"):  # tiny weights: dropped
        period = np.float32(n_epochs) / samples
    dropped = (
        (weights <= 0) | (weights < top / np.float32(prune_epochs)) | (samples <= 0)
    )
    return np.where(dropped, np.float32(-1), period).astype(np.float32)


# ----------------------------------------------------------------- device


def _launch(name: str, n: int, args) -> None:
    _cuda.launch("umap", name, n, args)


def memberships_device(dists, indices, local_connectivity: float, bipartite: bool):
    """Step 1 on the device: memberships float32 (n, k) (device); ``dists``
    float64 (n, k), ``indices`` int64 (n, k), C-contiguous."""
    cupy = get_cupy()
    n, k = dists.shape
    values = cupy.empty((n, k), dtype=np.float32)
    sigmas = cupy.empty(n, dtype=np.float64)
    rhos = cupy.empty(n, dtype=np.float64)
    total = _cuda.column_sums(dists.reshape(-1, 1), None) if n else None
    mean_all = float(total[0]) / (n * k) if n else 0.0
    args = (dists, indices, np.int64(n), np.int32(k), np.float64(local_connectivity))
    args += (np.float64(np.log2(k)), np.float64(mean_all), np.int32(N_ITER))
    _launch("smooth_knn<double>", n, (*args, np.int32(bipartite), values, sigmas, rhos))
    return values


def union_device(values, indices, mix: float) -> tuple[Edges, object]:
    """Step 2 on the device: the union (zero weights kept in place) and the
    largest weight's bits (a 1-element uint32 device array). The keys are
    sorted in place (CuPy's radix sort, no compile); each run's weight reads
    P[r, c] and P[c, r] from the kNN lists."""
    cupy = get_cupy()
    n, k = indices.shape
    m = 2 * n * k
    keys = cupy.empty(m, dtype=np.int64)
    _launch("union_keys", n * k, (indices, np.int64(n), np.int32(k), keys))
    keys.sort()
    weights = cupy.empty(m, dtype=np.float32)
    top = cupy.zeros(1, dtype=np.uint32)  # a memset
    args = (keys, np.int64(m), indices, values, np.int64(n), np.int32(k))
    _launch("fuzzy_union", m, (*args, np.float64(mix), weights, top))
    indptr = cupy.empty(n + 1, dtype=np.int64)
    _launch("key_rows", n + 1, (keys, np.int64(m), np.int64(n), np.int64(n), indptr))
    return Edges(indptr, keys, weights, n, n), top


def schedule_device(weights, top, n_epochs: int, prune_epochs: int):
    """Step 3 on the device (``top``: the largest weight's bits)."""
    cupy = get_cupy()
    m = weights.shape[0]
    period = cupy.empty(m, dtype=np.float32)
    args = (weights, np.int64(m), top, np.float32(n_epochs), np.float32(prune_epochs))
    _launch("edge_schedule", m, (*args, period))
    return period


def connected_device(edges: Edges) -> bool:
    """Whether the graph (positive weights) is connected: label propagation
    on the device until no label falls, then a check that all are 0."""
    cupy = get_cupy()
    n = edges.n_rows
    labels = cupy.asarray(np.arange(n, dtype=np.int64))
    flag = cupy.zeros(1, dtype=np.int32)  # a memset
    args = (edges.indptr, edges.keys, edges.weights, np.int64(n), labels, flag)
    for _ in range(n):
        flag.fill(0)  # a memset
        _launch("propagate_labels", n, args)
        if not int(flag.get()[0]):
            break
    _launch("any_nonzero_label", n, (labels, np.int64(n), flag))
    return not int(flag.get()[0])


def normalised_adjacency_device(edges: Edges):
    """D^-1/2 W D^-1/2 of the (symmetric) graph in CSR arrays on the device:
    ``(indptr int64, columns int32, values float64)``; the zero weights the
    device's union keeps in place stay as stored zeros (:func:`matvec`
    takes them; they are not a canonical SciPy/cupyx matrix)."""
    cupy = get_cupy()
    n = edges.n_rows
    m = int(edges.indptr[-1])
    degree = cupy.empty(n, dtype=np.float64)
    _launch("row_degrees", n, (edges.indptr, edges.weights, np.int64(n), degree))
    values = cupy.empty(m, dtype=np.float64)
    columns = cupy.empty(m, dtype=np.int32)
    args = (edges.indptr, edges.keys, edges.weights, degree, np.int64(n))
    _launch("normalise_edges", n, (*args, values, columns))
    return edges.indptr, columns, values


def matvec(matrix, x, out) -> None:
    """``out = A @ x`` for CSR arrays ``matrix`` from
    :func:`normalised_adjacency_device` (float64 device vectors)."""
    indptr, columns, values = matrix
    n = indptr.shape[0] - 1
    _launch("csr_matvec", n, (indptr, columns, values, x, np.int64(n), out))


#: Lanczos steps of the spectral start: at most this many, and no more than
#: the basis (steps x n float64) allows within :data:`LANCZOS_BASIS_BYTES`,
#: nor fewer than :data:`LANCZOS_MIN_STEPS`. A manifold's graph has its top
#: eigenvalues within 1e-4 of each other: on 100,000 points of a swiss roll
#: (H100, issue 36) 300 steps stopped far from the eigenvectors (eigenvalues
#: 0.99993 and 0.99975 for 0.999991 and 0.999967) and the layout scored a
#: trustworthiness of 0.889; up to 1,000 steps it scored 0.965 (umap-learn
#: 0.950), the Lanczos taking 0.51-0.55 s (S curve 0.31 s, sphere and torus
#: 0.16 s, 60,000 points of clustered data 0.02 s).
LANCZOS_MAX_STEPS = 1000
LANCZOS_MIN_STEPS = 300
LANCZOS_BASIS_BYTES = 2**30


def lanczos_steps(n: int) -> int:
    """The most Lanczos steps for a graph of ``n`` points (see above)."""
    budget = LANCZOS_BASIS_BYTES // (8 * max(n, 1))
    return int(min(n, max(LANCZOS_MIN_STEPS, min(LANCZOS_MAX_STEPS, budget))))


def top_eigenvectors_device(matrix, k: int, tol: float = 1e-4, max_steps=None):
    """The eigenvalues and eigenvectors (host arrays) of the ``k`` largest
    eigenvalues of a symmetric CSR matrix on the device, by Lanczos with full
    reorthogonalisation: cuBLAS for the vector work, gpuml's kernel for the
    products (cupyx's eigsh compiles some twenty CuPy kernels on a new
    machine). Stops when each wanted Ritz pair's residual is below ``tol``,
    or after ``max_steps`` (default :func:`lanczos_steps`); the start vector
    is fixed, so results repeat. The tridiagonal matrix's top pairs are
    found by LAPACK's tridiagonal solver, a few milliseconds at 1,000
    steps (a dense ``eigh`` of it every fifth step took seconds)."""
    from scipy.linalg import eigh_tridiagonal

    cupy = get_cupy()
    from cupy import cublas

    n = matrix[0].shape[0] - 1
    steps = min(n, max_steps or lanczos_steps(n))
    basis = cupy.empty((steps, n), dtype=np.float64)
    start = np.random.default_rng(0).uniform(0.5, 1.5, size=n)
    v = cupy.asarray(start / np.linalg.norm(start))
    w = cupy.empty(n, dtype=np.float64)
    coefficients = cupy.empty(steps, dtype=np.float64)
    alphas, betas = [], []
    for j in range(steps):
        basis[j].data.copy_from_device_async(v.data, v.nbytes)
        matvec(matrix, v, w)
        alphas.append(float(cublas.dot(v, w)))
        done = basis[: j + 1]
        for _ in range(2):  # w -= V^T (V w), twice for stability
            cublas.gemv("N", 1.0, done, w, 0.0, coefficients[: j + 1])
            cublas.gemv("T", -1.0, done, coefficients[: j + 1], 1.0, w)
        beta = float(cublas.nrm2(w))
        check = (j + 1 >= 2 * k + 8 and (j + 1) % 5 == 0) or j + 1 == steps
        if check or beta < 1e-12:
            wanted = min(k, j + 1)
            if j == 0:
                theta, S = np.array(alphas), np.ones((1, 1))
            else:
                theta, S = eigh_tridiagonal(
                    np.array(alphas),
                    np.array(betas),
                    select="i",
                    select_range=(j + 1 - wanted, j),
                )
            top = np.argsort(theta)[::-1][:k]
            residual = np.abs(beta * S[-1, top])
            if beta < 1e-12 or j + 1 == steps or (residual < tol).all():
                # each Ritz vector V^T s by a GEMV into a contiguous vector
                # (a GEMM's (n, k) result came back in a layout whose
                # download compiled a CuPy copy kernel on a new machine)
                vectors = []
                for i in top:
                    s_i = cupy.asarray(np.ascontiguousarray(S[:, i]))
                    out = cupy.empty(n, dtype=np.float64)
                    cublas.gemv("T", 1.0, done, s_i, 0.0, out)
                    vectors.append(to_host(out))
                return theta[top], np.stack(vectors, axis=1)
        betas.append(beta)
        cublas.scal(1.0 / beta, w)
        v, w = w, v
    raise RuntimeError("unreachable")  # the loop returns at its last step
