"""densMAP: UMAP's layout that also keeps the data's local densities.

umap-learn's densMAP (Narayan, Berger and Cho, 2021), as umap-learn 0.5.12
computes it:

1. The local radius of each point in the data (:func:`data_radii`): the
   log of the membership-weighted mean of the squared distances along its
   edges of the (pruned) graph, ``log(1e-8 + sum mu D^2 / sum mu)``, the
   distances those of the kNN search (the larger of the two directions; 0
   for an edge that is no kNN pair, as a supervised graph may have). ``R``
   is those radii standardised.
2. The layout (:class:`DensmapGradient`): umap-learn's euclidean layout,
   and in the last ``dens_frac`` of the epochs, the gradient of the
   correlation between the radii in the data and in the embedding. Each
   such epoch begins with the embedding's radii over the graph's edges
   (``phi = 1 / (1 + a d^(2b))``; ``re = log(1e-8 + sum phi d^2 / sum
   phi)``, their mean, variance plus ``dens_var_shift``, and covariance
   with ``R``); each sampled edge then adds umap-learn's term
   ``clip(2 c (current - other))``, ``c`` from ``dens_lambda``, the edge's
   membership, the two ends' weights ``R - cov (re - mean) / var`` and the
   derivatives of their radii.
3. With ``output_dens``, the embedding's radii (:func:`embedding_radii`):
   the same mean over the fuzzy simplicial set of the embedding's own
   ``n_neighbors`` neighbours, with the distances not squared (as
   umap-learn's).

gpuml's layout moves each vertex by its own edges (see
:mod:`gpuml.manifold._umap_layout`); the correlation term is symmetric in
an edge's two ends, so each end adds it when it samples its own direction
(umap-learn moves both ends with it, ``move_other``).

Where it runs: on the CPU, :func:`~gpuml.manifold._umap_layout.layout_numpy`
with this gradient. On a GPU the layout runs on the device
(:func:`~gpuml.manifold._umap_layout.layout_device`: the kernels
``densmap_radii`` and ``layout_epoch_densmap`` of ``gpuml/_cuda/umap.cu``
in the density epochs, each epoch's radii statistics, three numbers, on the
host); the data's radii (once per fit, O(n k), SciPy) and the embedding's
(with ``output_dens``, after its kNN search and fuzzy simplicial set on the
device) are computed on the host.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gpuml import _cuda
from gpuml._array import to_host
from gpuml._backend import get_cupy
from gpuml.manifold._umap_layout import attract_euclidean

EPSILON = 1e-8


def graph_edges(keys, periods, n: int):
    """The (heads, tails, edge mask) of the layout's sampled edges: those of
    positive period (umap-learn's graph after pruning), as host arrays."""
    keys, periods = to_host(keys), to_host(periods)
    kept = periods > 0
    return keys // n, keys % n, kept


def knn_edge_distances(dists, indices, heads, tails, n: int):
    """The kNN distance of each edge (umap-learn's ``graph_dists``: the
    larger of the two directions' float32 distances, 0 where the edge is no
    kNN pair), on the host."""
    dists = to_host(dists).astype(np.float32)
    indices = to_host(indices)
    k = indices.shape[1]
    rows = np.repeat(np.arange(n), k)
    columns = indices.ravel()
    found = columns >= 0
    matrix = sp.coo_matrix(
        (dists.ravel()[found], (rows[found], columns[found])), shape=(n, n)
    ).tocsr()
    matrix = matrix.maximum(matrix.T).tocsr()
    return np.asarray(matrix[heads, tails]).ravel().astype(np.float32)


def _radii(heads, tails, weights, values, n: int):
    """``log(1e-8 + sum w v / sum w)`` per vertex over the edges, each edge
    counted at both ends (umap-learn's loops); also the sums of ``w``."""
    total = np.bincount(heads, weights * values, n) + np.bincount(
        tails, weights * values, n
    )
    mass = np.bincount(heads, weights, n) + np.bincount(tails, weights, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        radii = np.log(EPSILON + total / mass)
    return radii.astype(np.float32), mass.astype(np.float32)


def data_radii(heads, tails, mu, distances, n: int):
    """The log local radii in the data (umap-learn's ``rad_orig``) and the
    sums of memberships per vertex (``mu_sum``): over the edges ``heads``
    to ``tails`` of memberships ``mu`` and kNN ``distances`` (squared)."""
    return _radii(heads, tails, mu.astype(np.float64), distances**2.0, n)


def embedding_radii(embedding, heads, tails, mu, n: int):
    """The log local radii in the embedding (umap-learn's ``rad_emb``) over
    the fuzzy simplicial set of the embedding's own neighbours (``heads``,
    ``tails``, memberships ``mu``; the distances not squared)."""
    embedding = to_host(embedding).astype(np.float32)
    diff = embedding[heads] - embedding[tails]
    distances = np.sqrt((diff * diff).sum(axis=1))
    return _radii(heads, tails, mu.astype(np.float64), distances, n)[0]


class DensmapGradient:
    """densMAP's layout rule for
    :func:`~gpuml.manifold._umap_layout.layout_numpy`: the euclidean moves,
    plus the density-correlation term in the epochs where it is on.

    ``heads``, ``tails`` and ``mu`` are the graph's edges in the layout's
    order (CSR), ``kept`` those sampled; ``R`` the standardised data radii
    and ``mu_sum`` the memberships' sums per vertex (:func:`data_radii`)."""

    def __init__(
        self,
        *,
        a,
        b,
        gamma,
        dens_lambda,
        dens_frac,
        var_shift,
        heads,
        tails,
        kept,
        mu,
        R,
        mu_sum,
    ):
        self.a32, self.b32 = np.float32(a), np.float32(b)
        self.a, self.b, self.gamma = float(a), float(b), float(gamma)
        self.dens_lambda, self.frac, self.var_shift = dens_lambda, dens_frac, var_shift
        self.heads, self.tails = heads[kept], tails[kept]
        self.mu = mu.astype(np.float64)  # every edge, in the layout's order
        self.R = R.astype(np.float64)
        self.n = R.shape[0]
        self.mu_tot = float(mu_sum.astype(np.float64).sum() / 2)
        self.on = False

    #: The negative samples push as in the euclidean layout (its own code).
    repel = None
    #: The device layout runs this gradient (``layout_epoch_densmap``).
    on_device = True
    _device = None

    def _statistics(self, re_sum, phi_sum) -> None:
        """The embedding's radii's mean, std (variance plus ``var_shift``)
        and covariance with ``R``."""
        self.re_sum, self.phi_sum = re_sum, phi_sum
        self.re_std = np.sqrt(np.var(re_sum) + self.var_shift)
        self.re_mean = np.mean(re_sum)
        self.re_cov = np.dot(re_sum, self.R) / (self.n - 1)

    def device_terms(self, embedding, indptr, keys, periods, epoch, n_epochs):
        """The density term's extra arguments of the device kernel
        ``layout_epoch_densmap`` for this epoch, or None where the term is
        off: the embedding's radii at the epoch's start (kernel
        ``densmap_radii``, on the device), their statistics (on the host: n
        floats copied per epoch, no CuPy reduction to compile)."""
        self.on = self.dens_lambda > 0 and (epoch + 1) / float(n_epochs) > 1 - self.frac
        if not self.on:
            return None
        cupy = get_cupy()
        if self._device is None:
            self._device = (
                cupy.asarray(self.R),
                cupy.asarray(self.mu.astype(np.float32)),
            )
        R, mu = self._device
        re_sum = cupy.empty(self.n, dtype=np.float64)
        phi_sum = cupy.empty(self.n, dtype=np.float64)
        args = (embedding, indptr, keys, periods, np.int64(self.n))
        args += (np.int32(embedding.shape[1]), self.a32, self.b32, re_sum, phi_sum)
        _cuda.launch("umap_densmap", "densmap_radii", self.n, args)
        self._statistics(re_sum.get(), phi_sum.get())
        shift = self.re_cov / (self.re_std * self.re_std)
        scale = self.dens_lambda * self.mu_tot / self.n
        floats = (scale, self.re_mean, shift, self.re_std)
        return (R, re_sum, phi_sum, mu, *(np.float64(f) for f in floats))

    def start_epoch(self, embedding, epoch: int, n_epochs: int) -> None:
        """Whether the correlation term is on this epoch, and then the
        embedding's radii over the graph's edges at the epoch's start."""
        self.on = self.dens_lambda > 0 and (epoch + 1) / float(n_epochs) > 1 - self.frac
        if not self.on:
            return
        diff = embedding[self.heads] - embedding[self.tails]
        dist2 = (diff * diff).sum(axis=1).astype(np.float64)
        phi = 1.0 / (1.0 + self.a * dist2**self.b)
        re_sum, phi_sum = _radii(self.heads, self.tails, phi, dist2, self.n)
        self._statistics(re_sum.astype(np.float64), phi_sum.astype(np.float64))

    def attract(self, current, other, edges, heads, tails):
        """The clipped moves of the vertices ``heads`` (at ``current``)
        along their ``edges`` toward ``tails`` (at ``other``)."""
        step = attract_euclidean(current, other, self.a32, self.b32)
        if not self.on:
            return step
        a, b = self.a, self.b
        diff = current - other
        dist2 = (diff * diff).sum(axis=1).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            power = dist2**b
            phi = 1.0 / (1.0 + a * power)
            dphi = np.where(dist2 > 0, a * b * dist2 ** (b - 1) / (1.0 + a * power), 0)
        j, k = heads, tails
        radius_term = 1.0 - b * (1 - phi)
        drk = phi / self.phi_sum[k] * (radius_term / np.exp(self.re_sum[k]) + dphi)
        drj = phi / self.phi_sum[j] * (radius_term / np.exp(self.re_sum[j]) + dphi)
        shift = self.re_cov / (self.re_std * self.re_std)
        weight_k = self.R[k] - shift * (self.re_sum[k] - self.re_mean)
        weight_j = self.R[j] - shift * (self.re_sum[j] - self.re_mean)
        coefficient = (
            self.dens_lambda
            * self.mu_tot
            * (weight_k * drk + weight_j * drj)
            / (self.mu[edges] * self.re_std)
            / self.n
        )
        extra = np.clip(2 * coefficient[:, None] * diff, -4, 4)
        return (step + extra).astype(np.float32)
