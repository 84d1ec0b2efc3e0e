"""The k-means kernels of :mod:`gpuml.cluster._kmeans`: pure functions of
``xp`` arrays (NumPy or CuPy), every run of a fit as one batch.

See that module's documentation for how they follow scikit-learn's
iterates.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gpuml._array import is_sparse, take_rows, to_host
from gpuml._linalg import sparse_module
from gpuml.cluster import _lloyd_device

# Entries of one block of the assignment's product (rows x runs x clusters).
_BLOCK = 2**24
# The device's M-step takes dense one-hot blocks up to this many clusters a
# run (its matrix products grow with the clusters, the sparse product's sort
# does not). Chosen by operation counts, not yet measured on a GPU.
_DENSE_ONE_HOT_CLUSTERS = 256


def sq_norms(X, xp: ModuleType):
    """Squared Euclidean norm of each row of dense or CSR ``X``."""
    if is_sparse(X):
        return xp.asarray(X.multiply(X).sum(axis=1)).ravel().astype(X.dtype)
    return xp.einsum("ij,ij->i", X, X)


def dense_rows(X, rows, xp: ModuleType):
    """Rows ``rows`` (host integers) of dense or CSR ``X``, dense."""
    rows = xp.asarray(np.asarray(rows, dtype=np.int64))
    picked = take_rows(X, rows, xp)
    return picked.toarray() if is_sparse(picked) else picked


def _sq_distances_to_rows(X, rows, x_sq, xp: ModuleType):
    """Squared distances, shape ``(len(rows), n_samples)``, from the rows
    ``rows`` of ``X`` to every row (``||a||^2 - 2 a.b + ||b||^2``, clipped
    at 0, as scikit-learn's ``euclidean_distances`` computes them)."""
    picked = dense_rows(X, rows, xp)
    products = xp.asarray(X @ picked.T).T
    d = x_sq[xp.asarray(np.asarray(rows, dtype=np.int64))][:, None] - 2 * products
    d += x_sq[None, :]
    return xp.maximum(d, 0, out=d)


def first_seed_cdf(w_host):
    """The cumulative distribution that the first k-means++ draw of
    scikit-learn, ``random_state.choice(n_samples, p=w / w.sum())``,
    searches, made once for all the runs of a fit (it takes longer than the
    rest of a small fit's seeding: 10 ms for a million rows). NumPy's legacy
    ``choice`` converts ``p`` to float64, divides its cumulative sum by the
    last element and searches one ``random_sample()`` on the right (a test
    checks this against the installed NumPy). None where ``p`` is not
    clearly a distribution: ``choice`` then checks (and raises) itself."""
    with np.errstate(divide="ignore", invalid="ignore"):  # choice warns then
        p = w_host / w_host.sum()
    # half of choice's tolerance on the sum (which is larger for float32 p)
    eps = np.finfo(p.dtype if p.dtype.kind == "f" else np.float64).eps
    tolerance = max(np.sqrt(np.finfo(np.float64).eps), np.sqrt(eps)) / 2
    p = p.astype(np.float64)
    if not (np.all(p >= 0) and abs(p.sum() - 1.0) <= tolerance):
        return None
    cdf = p.cumsum()
    cdf /= cdf[-1]
    return cdf


def kmeans_plusplus(X, n_clusters, x_sq, w, w_host, random_state, xp, first_cdf=None):
    """Row indices of the k-means++ seeds (scikit-learn's ``_kmeans_plusplus``,
    draw for draw from ``random_state``); ``first_cdf``, when given, is
    :func:`first_seed_cdf` of ``w_host``."""
    n_samples = X.shape[0]
    n_local_trials = 2 + int(np.log(n_clusters))
    if first_cdf is None:
        first = random_state.choice(n_samples, p=w_host / w_host.sum())
    else:
        first = first_cdf.searchsorted(random_state.random_sample(), side="right")
    chosen = [int(first)]
    closest = _sq_distances_to_rows(X, chosen, x_sq, xp)[0]
    potential = to_host(closest @ w)
    for _ in range(1, n_clusters):
        rand_vals = random_state.uniform(size=n_local_trials) * potential
        cumulative = xp.cumsum(w * closest)
        # Compared in float64, as NumPy's searchsorted of scikit-learn does.
        candidates = xp.searchsorted(
            cumulative.astype(xp.float64), xp.asarray(rand_vals, dtype=xp.float64)
        )
        candidates = to_host(xp.minimum(candidates, n_samples - 1))
        d = _sq_distances_to_rows(X, candidates, x_sq, xp)
        xp.minimum(closest[None, :], d, out=d)
        potentials = to_host(d @ w)
        best = int(np.argmin(potentials))
        potential = potentials[best]
        closest = d[best]
        chosen.append(int(candidates[best]))
    return chosen


def absent_scores(n_valid, n_clusters: int, dtype, xp: ModuleType):
    """``(n_runs, n_clusters)``: 0 for each run's first ``n_valid[r]``
    clusters, +inf for the rest (the padding of runs with fewer clusters
    than the batch's widest), added to the scores of :func:`assign` so that
    no sample is assigned to a padding centre; None where every cluster is
    a run's own."""
    if n_valid is None or (np.asarray(n_valid) == n_clusters).all():
        return None
    absent = np.arange(n_clusters)[None, :] >= np.asarray(n_valid)[:, None]
    return xp.asarray(np.where(absent, np.inf, 0.0).astype(dtype))


def assign(X, centers, xp: ModuleType, absent=None):
    """Labels, shape ``(n_runs, n_samples)`` int32, of every run's centres
    ``(n_runs, n_clusters, n_features)``: the centre of smallest
    ``||c||^2 - 2 x.c``, the first on a tie (on the device, for dense data,
    by :func:`gpuml.cluster._lloyd_device.assign`). ``absent`` (from
    :func:`absent_scores`) rules out each run's padding centres."""
    if xp is not np:
        labels = _lloyd_device.assign(X, centers, absent)
        if labels is not None:
            return labels
    n_runs, n_clusters, n_features = centers.shape
    flat = centers.reshape(n_runs * n_clusters, n_features)
    c_sq = xp.einsum("ij,ij->i", flat, flat)
    if absent is not None:
        c_sq = c_sq + absent.reshape(-1).astype(c_sq.dtype, copy=False)
    # -2 c scales exactly: X @ (-2 c) is -2 (X @ c) bit for bit, without a
    # second pass over the scores
    minus_2c = -2 * flat.T
    n_samples = X.shape[0]
    labels = xp.empty((n_runs, n_samples), dtype=xp.int32)
    step = max(1, _BLOCK // (n_runs * n_clusters))
    for start in range(0, n_samples, step):
        scores = xp.asarray(X[start : start + step] @ minus_2c)
        scores += c_sq[None, :]
        if n_runs == 1:  # a contiguous last axis: NumPy's argmin is 2x faster
            labels[0, start : start + step] = xp.argmin(scores, axis=1)
        else:
            block = scores.reshape(scores.shape[0], n_runs, n_clusters)
            labels[:, start : start + step] = xp.argmin(block, axis=2).T
    return labels


def cluster_sums(X, labels, w, n_clusters: int, xp: ModuleType):
    """Weighted sums ``(n_runs, n_clusters, n_features)`` and weights
    ``(n_runs, n_clusters)`` of each run's clusters.

    On the host, and for sparse ``X``: one product of a sparse one-hot
    matrix (a weight per sample) with ``X`` (:func:`_sparse_one_hot_sums`).
    On the device, for dense ``X`` and up to ``_DENSE_ONE_HOT_CLUSTERS``
    clusters: dense one-hot blocks times ``X`` (:func:`_dense_one_hot_sums`),
    because cupyx makes a CSR matrix from coordinates by sorting them, at
    every Lloyd iteration (SciPy counts them instead).
    """
    if xp is not np:
        found = _lloyd_device.cluster_sums(X, labels, w, n_clusters)
        if found is not None:
            return found
    if xp is np or is_sparse(X) or n_clusters > _DENSE_ONE_HOT_CLUSTERS:
        return _sparse_one_hot_sums(X, labels, w, n_clusters, xp)
    return _dense_one_hot_sums(X, labels, w, n_clusters, xp)


def _sparse_one_hot_sums(X, labels, w, n_clusters: int, xp: ModuleType):
    n_runs, n_samples = labels.shape
    # cupyx's sparse matrices take 32-bit indices.
    index = xp.int32 if max(n_runs * n_clusters, n_samples) < 2**31 else xp.int64
    offsets = xp.arange(n_runs, dtype=index)[:, None] * n_clusters
    if xp is np:
        # The transposed one-hot matrix as CSR, made directly (a sample's
        # runs are its row's entries): no coordinates to sort. Its transpose
        # (CSC) times X adds each cluster's samples in their order, as the
        # CSR product below does: the same sums, bit for bit.
        columns = (labels.astype(index) + offsets).T.ravel()
        data = np.repeat(w, n_runs)
        indptr = np.arange(0, n_samples * n_runs + 1, n_runs, dtype=index)
        one_hot_t = sparse_module(xp).csr_matrix(
            (data, columns, indptr), shape=(n_samples, n_runs * n_clusters)
        )
        rows = columns
        sums = one_hot_t.T @ X
    else:
        rows = (labels.astype(index) + offsets).ravel()
        cols = xp.tile(xp.arange(n_samples, dtype=index), n_runs)
        data = xp.tile(w, n_runs)
        one_hot = sparse_module(xp).csr_matrix(
            (data, (rows, cols)), shape=(n_runs * n_clusters, n_samples)
        )
        sums = one_hot @ X
    sums = sums.toarray() if is_sparse(sums) else xp.asarray(sums)
    weights = xp.bincount(rows, weights=data, minlength=n_runs * n_clusters)
    return (
        sums.reshape(n_runs, n_clusters, X.shape[1]).astype(X.dtype, copy=False),
        weights.reshape(n_runs, n_clusters).astype(X.dtype, copy=False),
    )


def _dense_one_hot_sums(X, labels, w, n_clusters: int, xp: ModuleType):
    """:func:`cluster_sums` of dense ``X`` by blocks of rows: each block's
    one-hot matrix ``(n_runs * n_clusters, rows)`` of sample weights, times
    the block of ``X`` (one matrix product), and its row sums."""
    n_runs, n_samples = labels.shape
    n_rows = n_runs * n_clusters
    sums = xp.zeros((n_rows, X.shape[1]), dtype=X.dtype)
    weights = xp.zeros(n_rows, dtype=xp.float64)
    ids = xp.arange(n_clusters, dtype=labels.dtype)[None, :, None]
    zero = xp.zeros((), dtype=X.dtype)
    w = w.astype(X.dtype, copy=False)
    step = max(1, _BLOCK // n_rows)
    for start in range(0, n_samples, step):
        stop = min(start + step, n_samples)
        one_hot = xp.where(labels[:, None, start:stop] == ids, w[start:stop], zero)
        one_hot = one_hot.reshape(n_rows, stop - start)
        sums += one_hot @ X[start:stop]
        weights += one_hot.sum(axis=1, dtype=xp.float64)
    return (
        sums.reshape(n_runs, n_clusters, X.shape[1]),
        weights.reshape(n_runs, n_clusters).astype(X.dtype, copy=False),
    )


def _sq_distances_to_own_center(X, centers, labels, x_sq, xp: ModuleType):
    """Squared distance of each sample to its centre ``centers[labels]``."""
    own = centers[labels]
    if is_sparse(X):
        dots = xp.asarray(X.multiply(own).sum(axis=1)).ravel()
        d = x_sq - 2 * dots + xp.einsum("ij,ij->i", own, own)
        return xp.maximum(d, 0)
    diff = X - own
    return xp.einsum("ij,ij->i", diff, diff)


def relocate_empty_clusters(X, w_host, centers_old, sums, weights, labels, x_sq, xp):
    """scikit-learn's ``_relocate_empty_clusters`` for one run, in place on
    ``sums`` and ``weights``: each empty cluster takes, in turn, one of the
    samples farthest from their centre, with that sample's weight."""
    empty = np.flatnonzero(to_host(weights) == 0)
    if empty.size == 0:
        return
    distances = to_host(_sq_distances_to_own_center(X, centers_old, labels, x_sq, xp))
    if distances.max() == 0:  # more clusters than distinct samples
        return
    n_empty = empty.size
    far = np.argpartition(distances, -n_empty)[: -n_empty - 1 : -1]
    old_labels = to_host(labels[xp.asarray(far)])
    rows = dense_rows(X, far, xp)
    for i, (new, far_idx, old) in enumerate(zip(empty, far, old_labels, strict=True)):
        weight = w_host[far_idx]
        sums[old] -= rows[i] * weight
        sums[new] = rows[i] * weight
        weights[new] = weight
        weights[old] -= weight


def average_centers(sums, weights, xp: ModuleType, absent=None):
    """Centres from sums and weights; an empty cluster (left where relocation
    was pointless) at the centre of the heaviest one, as in scikit-learn;
    padding clusters (``absent``: :func:`absent_scores`) at zero."""
    filled = weights > 0
    scale = 1.0 / xp.where(filled, weights, 1)
    centers = sums * scale[..., None].astype(sums.dtype)
    heaviest = xp.argmax(weights, axis=1)
    runs = xp.arange(sums.shape[0])
    centers = xp.where(filled[..., None], centers, centers[runs, heaviest][:, None, :])
    if absent is not None:
        centers = xp.where((absent == 0)[..., None], centers, 0)
    return centers


def inertia(X, centers, labels, w, x_sq, xp: ModuleType) -> float:
    """Weighted sum of squared distances of the samples to their centres."""
    d = _sq_distances_to_own_center(X, centers, labels, x_sq, xp)
    return float(to_host(xp.sum(d.astype(xp.float64) * w)))


def distances(X, centers, xp: ModuleType):
    """Euclidean distances ``(n_samples, n_clusters)`` of the rows of ``X``
    to ``centers``, in ``X``'s dtype. Dense rows: from their differences,
    in blocks of rows (a centre is at 0 from itself, where the expansion
    ``||x||^2 - 2 x.c + ||c||^2`` leaves a rounding error's square root);
    sparse rows: from the expansion in float64."""
    centers = centers.astype(X.dtype, copy=False)
    if is_sparse(X):
        X64, c64 = X.astype(xp.float64), centers.astype(xp.float64)
        d = xp.asarray(X64 @ c64.T) * -2
        d += sq_norms(X64, xp)[:, None]
        d += xp.einsum("ij,ij->i", c64, c64)[None, :]
        return xp.sqrt(xp.maximum(d, 0)).astype(X.dtype, copy=False)
    n_clusters, n_features = centers.shape
    out = xp.empty((X.shape[0], n_clusters), dtype=X.dtype)
    step = max(1, _BLOCK // max(1, n_clusters * n_features))
    for start in range(0, X.shape[0], step):
        diff = X[start : start + step, None, :] - centers[None, :, :]
        out[start : start + step] = xp.sqrt(xp.einsum("ijk,ijk->ij", diff, diff))
    return out


def same_clustering(a, b, xp: ModuleType) -> bool:
    """Whether labels ``b`` are a function of labels ``a`` (scikit-learn's
    ``_is_same_clustering``): as many distinct pairs as distinct ``a``."""
    pairs = a.astype(xp.int64) * (int(to_host(b.max())) + 1) + b
    return int(xp.unique(pairs).size) == int(xp.unique(a).size)


def lloyd(
    X, w, w_host, centers, x_sq, *, max_iter, tol, xp, verbose=False, n_valid=None
):
    """Run Lloyd's iterations for every run of ``centers``
    ``(n_runs, n_clusters, n_features)`` together.

    ``n_valid`` (host integers, one a run; None: all ``n_clusters``) lets
    runs with fewer clusters share the batch: run ``r``'s clusters are its
    first ``n_valid[r]``, the rest padding (zero centres no sample is
    assigned to, left out of the relocation of empty clusters, kept at
    zero, so that they move no run's shift); each run's iterates are those
    it would have alone.

    Returns the final centres, labels ``(n_runs, n_samples)`` and the number
    of iterations of each run (host array).
    """
    n_runs, n_clusters, _ = centers.shape
    valid = np.full(n_runs, n_clusters) if n_valid is None else np.asarray(n_valid)
    absent_all = absent_scores(valid, n_clusters, X.dtype, xp)
    absent = absent_all
    final_centers = xp.empty_like(centers)
    final_labels = xp.empty((n_runs, X.shape[0]), dtype=xp.int32)
    n_iter = np.zeros(n_runs, dtype=np.int64)
    strict = np.zeros(n_runs, dtype=bool)
    active = np.arange(n_runs)
    current = centers
    labels_old = xp.full((n_runs, X.shape[0]), -1, dtype=xp.int32)
    for i in range(max_iter):
        labels = assign(X, current, xp, absent)
        sums, weights = cluster_sums(X, labels, w, n_clusters, xp)
        empty = weights == 0
        if absent is not None:
            empty &= absent == 0
        for r in np.flatnonzero(to_host(empty.any(axis=1))):
            k = int(valid[active[r]])
            relocate_empty_clusters(
                X,
                w_host,
                current[r, :k],
                sums[r, :k],
                weights[r, :k],
                labels[r],
                x_sq,
                xp,
            )
        new = average_centers(sums, weights, xp, absent)
        if verbose:
            value = inertia(X, current[0], labels[0], w, x_sq, xp)
            print(f"Iteration {i}, inertia {value}.")
        unchanged = to_host((labels == labels_old).all(axis=1))
        shift = xp.sqrt(((new - current) ** 2).sum(axis=2))
        shift_total = to_host((shift**2).sum(axis=1))
        done = unchanged | (shift_total <= tol)
        if verbose and done[0]:
            if unchanged[0]:
                print(f"Converged at iteration {i}: strict convergence.")
            else:
                print(
                    f"Converged at iteration {i}: center shift "
                    f"{shift_total[0]} within tolerance {tol}."
                )
        if i == max_iter - 1:
            done[:] = True
        stopped = np.flatnonzero(done)
        if stopped.size:
            where = xp.asarray(stopped)
            runs = active[stopped]
            final_centers[xp.asarray(runs)] = new[where]
            final_labels[xp.asarray(runs)] = labels[where]
            n_iter[runs] = i + 1
            strict[runs] = unchanged[stopped]
        going = np.flatnonzero(~done)
        if going.size == 0:
            break
        active = active[going]
        current = new[xp.asarray(going)]
        labels_old = labels[xp.asarray(going)]
        if absent is not None:
            absent = absent[xp.asarray(going)]
    if not strict.all():
        # The labels of the final centres (scikit-learn's last E-step).
        loose = np.flatnonzero(~strict)
        final_labels[xp.asarray(loose)] = assign(
            X,
            final_centers[xp.asarray(loose)],
            xp,
            None if absent_all is None else absent_all[xp.asarray(loose)],
        )
    return final_centers, final_labels, n_iter


def tolerance(X, tol: float, xp: ModuleType) -> float:
    """``tol`` times the mean variance of the features (scikit-learn's)."""
    if tol == 0:
        return 0.0
    if is_sparse(X):
        from gpuml.preprocessing._data import sparse_mean_var

        variances = sparse_mean_var(X, None, xp=xp)[1]
    else:
        variances = xp.var(X, axis=0)
    return float(to_host(xp.mean(variances))) * tol
