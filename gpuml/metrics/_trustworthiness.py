"""Trustworthiness of an embedding, in O(n * k) memory.

scikit-learn's :func:`sklearn.manifold.trustworthiness` sorts the full
(n, n) distance matrix of ``X``. Only the ranks of each sample's ``k``
nearest neighbours in the embedding are needed, and the rank of neighbour
j of sample i is one more than the number of other samples closer to i than
j is: counted here over tiles of rows, so memory is a tile plus (n, k).
Equal distances are ordered by index (scikit-learn's ``argsort`` leaves
them in an unspecified order), so the value is scikit-learn's wherever the
distances from a sample to its embedded neighbours are not tied with
others. On the CPU the tiles' distances are scikit-learn's
``pairwise_distances``; on the GPU they are
:mod:`gpuml.neighbors._search`'s float64 scores and kernels.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.manifold import trustworthiness as _sk_trustworthiness
from sklearn.metrics import pairwise_distances
from sklearn.utils.validation import _num_samples

from gpuml._array import input_namespace, is_sparse, to_host
from gpuml._sklearn_compat import InvalidParameterError, sklearn_own
from gpuml._validation import check_array

# Rows of the CPU's distance tile: at most this many values in a tile's
# comparison of (rows, k, n).
_HOST_TILE_VALUES = 1 << 24


def trustworthiness(X, X_embedded, *, n_neighbors=5, metric="euclidean"):
    """Indicate to what extent the local structure is retained.

    scikit-learn's :func:`sklearn.manifold.trustworthiness`, computed in
    O(n * n_neighbors) memory instead of O(n ** 2): on the GPU when ``X``
    or ``X_embedded`` is a device array, else on the CPU.

    .. math::

        T(k) = 1 - \\frac{2}{nk (2n - 3k - 1)} \\sum^n_{i=1}
            \\sum_{j \\in \\mathcal{N}_{i}^{k}} \\max(0, (r(i, j) - k))

    where :math:`\\mathcal{N}_{i}^{k}` are the ``k`` nearest neighbours of
    sample ``i`` in the embedding and :math:`r(i, j)` is the rank of ``j``
    among the samples ordered by their distance from ``i`` in the input
    space.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or \
            (n_samples, n_samples)
        The input space, or its distances if ``metric='precomputed'``.
    X_embedded : array-like of shape (n_samples, n_components)
        The embedding of the training data in low-dimensional space.
    n_neighbors : int, default=5
        The number of neighbors that will be considered. Should be fewer
        than ``n_samples / 2``.
    metric : str or callable, default='euclidean'
        The metric of the input space. On the GPU: 'euclidean', 'manhattan'
        (and its aliases), 'cosine', 'correlation' and 'precomputed'; other
        metrics use scikit-learn's function on host copies.

    Returns
    -------
    trustworthiness : float
        Trustworthiness of the low-dimensional embedding.

    See Also
    --------
    sklearn.manifold.trustworthiness : The scikit-learn function.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.decomposition import PCA
    >>> from gpuml.metrics import trustworthiness
    >>> X, _ = make_blobs(n_samples=100, n_features=10, centers=3, random_state=42)
    >>> X_embedded = PCA(n_components=2).fit_transform(X)
    >>> print(f"{trustworthiness(X, X_embedded, n_neighbors=5):.2f}")
    0.92
    """
    from gpuml.neighbors._search import MAX_DEVICE_K, device_metric

    xp = input_namespace(X, X_embedded)
    resolved = device_metric(metric)
    if resolved is None or not isinstance(n_neighbors, int):
        if xp is not np:
            X, X_embedded = to_host(X), to_host(X_embedded)
        return _sk_trustworthiness(
            X, X_embedded, n_neighbors=n_neighbors, metric=metric
        )
    X, X_embedded = _validate(X, X_embedded, n_neighbors, xp)
    if xp is np or n_neighbors + 1 > MAX_DEVICE_K:
        return _host_trustworthiness(
            to_host(X), to_host(X_embedded), n_neighbors, metric
        )
    from gpuml.neighbors._search import device_kneighbors, device_ranks, drop_self

    _, neighbours = device_kneighbors(
        X_embedded, X_embedded, n_neighbors + 1, "euclidean"
    )
    _, neighbours = drop_self(to_host(neighbours), to_host(neighbours))
    ranks = device_ranks(X, xp.asarray(neighbours), resolved)
    return _score(to_host(ranks), X.shape[0], n_neighbors)


def _validate(X, X_embedded, n_neighbors: int, xp):
    """``X`` and ``X_embedded`` validated into ``xp``, for both namespaces.

    scikit-learn's checks in its order: ``n_neighbors`` against the samples
    of ``X``, ``X`` as ``pairwise_distances`` validates it, ``X_embedded``
    as ``NearestNeighbors.fit`` does; then that both have the same samples
    and that the embedding's euclidean distances do not overflow (its
    nearest neighbours are undefined then: scikit-learn's search fails).
    Sparse input is for the host computation only.
    """
    if (
        not isinstance(n_neighbors, Integral)
        or isinstance(n_neighbors, bool)
        or n_neighbors < 1
    ):
        raise InvalidParameterError(
            f"The 'n_neighbors' parameter of trustworthiness must be an int in the "
            f"range [1, inf). Got {n_neighbors!r} instead."
        )
    n_samples = _num_samples(X)
    if n_neighbors >= n_samples / 2:
        raise ValueError(
            f"n_neighbors ({n_neighbors}) should be less than n_samples / 2"
            f" ({n_samples / 2})"
        )
    sparse = ("csr", "csc", "coo") if xp is np else False
    X = check_array(X, xp=xp, accept_sparse=sparse, dtype=(np.float64, np.float32))
    X_embedded = check_array(
        X_embedded,
        xp=xp,
        accept_sparse="csr" if xp is np else False,
        dtype=(np.float64, np.float32),
        estimator="NearestNeighbors",
        input_name="X",
    )
    if X_embedded.shape[0] != n_samples:
        raise ValueError(
            "X and X_embedded must have the same number of samples, got "
            f"{n_samples} and {X_embedded.shape[0]}."
        )
    if not is_sparse(X_embedded):
        with np.errstate(over="ignore"):
            squared_norms = (X_embedded.astype(np.float64) ** 2).sum(axis=1)
        if not bool(xp.isfinite(squared_norms).all()):
            raise ValueError(
                "The euclidean distances between the rows of X_embedded overflow "
                "float64: their nearest neighbours are undefined."
            )
    return X, X_embedded


def _score(ranks: np.ndarray, n_samples: int, n_neighbors: int) -> float:
    excess = ranks - n_neighbors
    t = float(excess[excess > 0].sum())
    scale = 2.0 / (
        n_samples * n_neighbors * (2.0 * n_samples - 3.0 * n_neighbors - 1.0)
    )
    return 1.0 - t * scale


def _host_trustworthiness(X, X_embedded, n_neighbors: int, metric) -> float:
    """The CPU's computation (of validated inputs): the ranks counted over
    tiles of scikit-learn's distances."""
    n_samples = X.shape[0]
    neighbours = (
        sklearn_own("sklearn.neighbors", "NearestNeighbors")(n_neighbors=n_neighbors)
        .fit(X_embedded)
        .kneighbors(return_distance=False)
    )
    columns = np.arange(n_samples)
    step = max(1, _HOST_TILE_VALUES // max(1, n_samples * n_neighbors))
    ranks = np.empty((n_samples, n_neighbors), dtype=np.int64)
    for start in range(0, n_samples, step):
        stop = min(n_samples, start + step)
        if metric == "precomputed":
            D = np.array(X[start:stop], dtype=np.float64)
        else:
            D = pairwise_distances(X[start:stop], X, metric=metric)
        rows = np.arange(stop - start)
        D[rows, rows + start] = np.inf  # a sample is not its own neighbour
        targets = neighbours[start:stop]
        threshold = D[rows[:, None], targets][:, :, None]
        closer = (D[:, None, :] < threshold) | (
            (D[:, None, :] == threshold) & (columns < targets[:, :, None])
        )
        ranks[start:stop] = closer.sum(axis=2) + 1
    return _score(ranks, n_samples, n_neighbors)
