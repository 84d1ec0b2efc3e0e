"""UMAP's input metrics: umap-learn's definitions, exact nearest neighbours.

umap-learn names its distances in ``umap.distances.named_distances`` (numba
functions of two rows, with conventions for rows of zeros: the jaccard
distance of two all-zero rows is 0, the cosine distance of a zero row to
any other row 1...). gpuml computes the same distances for whole tiles of
rows at once, written once against the array namespace ``xp`` (NumPy, or
CuPy on a GPU) and for dense or sparse rows (SciPy, or cupyx):

- **through matrix products** (exact up to float64 rounding): euclidean,
  standardised euclidean (columns scaled), mahalanobis (``x M y``),
  cosine, correlation (centred rows; sparse rows through the centring
  identity), hellinger (``sqrt(x) . sqrt(y)`` against the rows' sums) and
  the binary metrics (jaccard, dice, matching, kulsinski, rogerstanimoto,
  russellrao, sokalmichener, sokalsneath, yule), whose counts of common and
  differing nonzero features come from products of 0/1 matrices (exact:
  integers in float64);
- **feature by feature** (manhattan, chebyshev, minkowski, weighted
  minkowski, canberra, braycurtis, hamming, haversine): on the host by
  SciPy's ``cdist`` where its definition is umap-learn's, otherwise (and on
  the device) by broadcasting over chunks of features; sparse rows are
  made dense a block of rows at a time.

:func:`kneighbors` selects each query row's k nearest (equal distances by
index): on the host by a partition of each tile of distances, on the device
by :func:`gpuml.neighbors._search.device_kneighbors`'s selection kernel fed
these tiles. A callable metric (a Python function or a numba-jitted one, of
two dense rows, returning a distance or ``(distance, gradient)``) runs on
the host, in a numba loop when it is numba's, and its neighbours go to the
device afterwards.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from gpuml._array import is_sparse, to_host
from gpuml.neighbors._search import tie_keys

#: umap-learn's names (aliases included) of the metrics gpuml computes.
ALIASES = {
    "euclidean": "euclidean",
    "l2": "euclidean",
    "manhattan": "manhattan",
    "taxicab": "manhattan",
    "l1": "manhattan",
    "cityblock": "manhattan",
    "chebyshev": "chebyshev",
    "linfinity": "chebyshev",
    "linfty": "chebyshev",
    "linf": "chebyshev",
    "minkowski": "minkowski",
    "seuclidean": "seuclidean",
    "standardised_euclidean": "seuclidean",
    "wminkowski": "wminkowski",
    "weighted_minkowski": "wminkowski",
    "mahalanobis": "mahalanobis",
    "canberra": "canberra",
    "cosine": "cosine",
    "correlation": "correlation",
    "hellinger": "hellinger",
    "haversine": "haversine",
    "braycurtis": "braycurtis",
    "hamming": "hamming",
    "jaccard": "jaccard",
    "dice": "dice",
    "matching": "matching",
    "kulsinski": "kulsinski",
    "rogerstanimoto": "rogerstanimoto",
    "russellrao": "russellrao",
    "sokalmichener": "sokalmichener",
    "sokalsneath": "sokalsneath",
    "yule": "yule",
}
#: umap-learn's defaults of ``disconnection_distance``: the bounded
#: metrics' largest distance (every other metric: infinity).
DISCONNECTION_DISTANCES = {
    "correlation": 2,
    "cosine": 2,
    "hellinger": 1,
    "jaccard": 1,
    "bit_jaccard": 1,
    "dice": 1,
}
BINARY = {
    "jaccard",
    "dice",
    "matching",
    "kulsinski",
    "rogerstanimoto",
    "russellrao",
    "sokalmichener",
    "sokalsneath",
    "yule",
}
#: The metrics umap-learn takes for sparse data (its ``sparse_named_distances``
#: less ``ll_dirichlet``).
SPARSE = {
    "euclidean",
    "manhattan",
    "chebyshev",
    "minkowski",
    "canberra",
    "braycurtis",
    "hamming",
    "cosine",
    "correlation",
    "hellinger",
} | BINARY
#: The named metrics with a gradient in umap-learn
#: (``named_distances_with_gradients``): its ``inverse_transform`` needs one.
WITH_GRADIENT = {
    "euclidean",
    "manhattan",
    "chebyshev",
    "minkowski",
    "seuclidean",
    "wminkowski",
    "mahalanobis",
    "canberra",
    "cosine",
    "correlation",
    "hellinger",
    "haversine",
    "braycurtis",
}
# metric -> its keyword arguments: umap-learn's name first, SciPy's aliases
_KWDS = {
    "minkowski": {"p": "p"},
    "wminkowski": {"p": "p", "w": "w"},
    "seuclidean": {"sigma": "sigma", "V": "sigma"},
    "mahalanobis": {"vinv": "vinv", "VI": "vinv"},
}
# bytes of float64 temporaries of one chunk of a feature-by-feature tile
_CHUNK_BYTES = 64 << 20
# the largest dense copy of a block of sparse rows in a product
_DENSE_BYTES = 256 << 20


@dataclass(frozen=True)
class Metric:
    """A resolved input metric: ``name`` (gpuml's canonical name, or
    ``"callable"``), its keyword arguments (arrays as NumPy float64), and for
    a callable the function and whether it returns ``(distance,
    gradient)``."""

    name: str
    kwds: dict = field(default_factory=dict)
    func: object = None
    returns_gradient: bool = False

    @property
    def has_gradient(self) -> bool:
        """Whether umap-learn's ``inverse_transform`` takes this metric."""
        if self.name == "callable":
            return self.returns_gradient
        return self.name in WITH_GRADIENT


def disconnection_default(metric) -> float:
    """umap-learn's ``disconnection_distance`` when it is None."""
    if not isinstance(metric, str):
        return np.inf
    return DISCONNECTION_DISTANCES.get(ALIASES.get(metric, metric), np.inf)


def resolve(metric, metric_kwds, X) -> Metric:
    """The :class:`Metric` of ``metric`` with ``metric_kwds`` for the data
    ``X`` (validated, in any namespace), with umap-learn's errors:
    haversine takes 2 features, hellinger no negative values, sparse data
    only umap-learn's sparse metrics; a callable is tried on two rows, and
    warns as umap-learn's when it returns no gradient."""
    kwds = dict(metric_kwds or {})
    sparse = is_sparse(X)
    if callable(metric):
        if sparse:
            raise ValueError(
                "A callable metric takes dense rows in gpuml; pass X.toarray() "
                "or a named metric for sparse data."
            )
        host = to_host(X)
        x, y = host[0].copy(), host[min(1, host.shape[0] - 1)].copy()
        out = metric(x, y, **kwds)
        returns_gradient = hasattr(out, "__iter__") and len(out) == 2
        if not returns_gradient:
            warnings.warn(
                "custom distance metric does not return gradient; inverse_transform "
                "will be unavailable. To enable using inverse_transform method, "
                "define a distance function that returns a tuple of (distance "
                "[float], gradient [np.array])",
                UserWarning,
                stacklevel=4,
            )
        return Metric("callable", kwds, metric, returns_gradient)
    if not isinstance(metric, str) or metric not in ALIASES:
        raise ValueError(
            f"metric={metric!r} is neither callable nor a recognised string; "
            f"gpuml's UMAP takes {sorted(ALIASES)}, 'precomputed' or a callable."
        )
    name = ALIASES[metric]
    if sparse and name not in SPARSE:
        raise ValueError(f"Metric {metric} is not supported for sparse data")
    d = X.shape[1]
    names = _KWDS.get(name, {})
    unknown = set(kwds) - set(names)
    if unknown:
        raise ValueError(
            f"metric_kwds {sorted(unknown)} are not parameters of metric={metric!r}"
            + (f" (it takes {sorted(names)})" if names else " (it takes none)")
            + "."
        )
    resolved = {names[key]: value for key, value in kwds.items()}
    if name in ("minkowski", "wminkowski"):
        p = float(resolved.get("p", 2.0))
        if not p > 0:
            raise ValueError(f"metric={metric!r} needs p > 0; got p={p}.")
        resolved["p"] = p
    for key, shape in (("w", (d,)), ("sigma", (d,)), ("vinv", (d, d))):
        if key in names.values():
            value = resolved.get(key)
            value = np.ones(shape) if value is None else np.asarray(value, float)
            if key == "vinv" and value.ndim == 2 and value.shape == shape:
                value = (value + value.T) / 2.0  # the same quadratic form
            if value.shape != shape:
                raise ValueError(
                    f"metric_kwds[{key!r}] of metric={metric!r} must have shape "
                    f"{shape} for data of {d} features; got {value.shape}."
                )
            if not np.isfinite(value).all():
                raise ValueError(
                    f"metric_kwds[{key!r}] of metric={metric!r} must be finite."
                )
            if key == "sigma" and not (value > 0).all():
                raise ValueError(
                    f"metric_kwds['sigma'] of metric={metric!r} holds the "
                    "features' variances and must be positive (a variance of 0 "
                    "makes every distance infinite)."
                )
            if key == "w" and (value < 0).any():
                raise ValueError("Input weights should be all non-negative")
            resolved[key] = value
    if name == "haversine" and d != 2:
        raise ValueError("haversine is only defined for 2 dimensional data")
    if name == "hellinger":
        values = X.data if sparse else X
        if values.size and bool((values < 0).any()):
            raise ValueError("Metric 'hellinger' does not support negative values")
    return Metric(name, resolved)


# ------------------------------------------------------------------ helpers


def _sparse_module(A):
    """scipy.sparse or cupyx.scipy.sparse, the family of ``A``."""
    if type(A).__module__.startswith("cupyx"):
        import cupyx.scipy.sparse as cusp

        return cusp
    import scipy.sparse as sp

    return sp


def _float64(A):
    """``A`` in float64 (cupyx's sparse ``astype`` takes no ``copy``)."""
    if A.dtype == np.float64:
        return A
    return A.astype(np.float64)


def _dense(A, xp):
    return xp.asarray(A.toarray()) if is_sparse(A) else A


def _products(Q, F, xp):
    """``Q @ F.T`` as a dense float64 (q, n) array. Sparse rows meet a
    dense copy of ``F`` where it is small (a sparse-dense product; the
    product of two sparse matrices is slow to build when it is nearly
    dense)."""
    if is_sparse(Q) and is_sparse(F) and 8 * F.shape[0] * F.shape[1] <= _DENSE_BYTES:
        F = _dense(F, xp)
    return _float64(_dense(Q @ F.T, xp))


def _row_sums(A, xp):
    return xp.asarray(A.sum(axis=1)).ravel().astype(np.float64)


def _map_values(A, function, xp):
    """``function`` applied to each value (0 stays 0 for sparse ``A``)."""
    if is_sparse(A):
        out = A.copy()
        out.data = function(out.data.astype(np.float64))
        return out
    return function(_float64(A))


def _scale_columns(A, scale, xp):
    if is_sparse(A):
        return A @ _sparse_module(A).diags(xp.asarray(scale))
    return A * xp.asarray(scale)[None, :]


def _safe_divide(num, den, xp):
    """``num / den`` where ``den`` is nonzero, else 0."""
    ok = den != 0
    return xp.where(ok, num / xp.where(ok, den, 1.0), 0.0)


# --------------------------------------------------------------- the tiles


def _euclidean(Q, F, xp):
    sq = _row_sums(_map_values(Q, lambda v: v * v, xp), xp)
    sf = _row_sums(_map_values(F, lambda v: v * v, xp), xp)
    d2 = sq[:, None] + sf[None, :] - 2.0 * _products(Q, F, xp)
    return xp.sqrt(xp.maximum(d2, 0.0))


def _mahalanobis(Q, F, M, xp):
    M = xp.asarray(M)
    QM, FM = Q @ M, F @ M
    sq = (QM * Q).sum(axis=1)
    sf = (FM * F).sum(axis=1)
    d2 = sq[:, None] + sf[None, :] - 2.0 * (QM @ F.T)
    return xp.sqrt(xp.maximum(d2, 0.0))


def _angular(dots, nq, nf, xp):
    """umap-learn's cosine from products and squared norms: both rows zero
    0, one 1, else ``1 - x.y / (|x| |y|)`` (clipped at 0)."""
    zq, zf = (nq == 0)[:, None], (nf == 0)[None, :]
    scale = xp.sqrt(xp.where(zq, 1.0, nq[:, None]) * xp.where(zf, 1.0, nf[None, :]))
    d = xp.maximum(1.0 - dots / scale, 0.0)
    d = xp.where(zq | zf, 1.0, d)
    return xp.where(zq & zf, 0.0, d)


def _cosine(Q, F, xp):
    nq = _row_sums(_map_values(Q, lambda v: v * v, xp), xp)
    nf = _row_sums(_map_values(F, lambda v: v * v, xp), xp)
    return _angular(_products(Q, F, xp), nq, nf, xp)


def _correlation(Q, F, xp):
    d = Q.shape[1]
    if not is_sparse(Q):
        Qc = Q - Q.mean(axis=1, keepdims=True)
        Fc = F - F.mean(axis=1, keepdims=True)
        return _cosine(Qc, Fc, xp)
    # sum (x - mx)(y - my) = x.y - d mx my; |x - mx|^2 = |x|^2 - d mx^2
    mq, mf = _row_sums(Q, xp) / d, _row_sums(F, xp) / d
    nq = _row_sums(_map_values(Q, lambda v: v * v, xp), xp) - d * mq * mq
    nf = _row_sums(_map_values(F, lambda v: v * v, xp), xp) - d * mf * mf
    dots = _products(Q, F, xp) - d * mq[:, None] * mf[None, :]
    nq, nf = xp.maximum(nq, 0.0), xp.maximum(nf, 0.0)
    return _angular(dots, nq, nf, xp)


def _hellinger(Q, F, xp):
    """umap-learn's: both rows zero 0, one 1, else ``sqrt(1 - sum sqrt(x y)
    / sqrt(|x|_1 |y|_1))`` (0 where rounding puts the ratio above 1, as its
    sparse version)."""
    lq, lf = _row_sums(Q, xp), _row_sums(F, xp)
    roots = _products(_map_values(Q, xp.sqrt, xp), _map_values(F, xp.sqrt, xp), xp)
    zq, zf = (lq == 0)[:, None], (lf == 0)[None, :]
    scale = xp.sqrt(xp.where(zq, 1.0, lq[:, None]) * xp.where(zf, 1.0, lf[None, :]))
    d = xp.sqrt(xp.maximum(1.0 - roots / scale, 0.0))
    d = xp.where(zq | zf, 1.0, d)
    return xp.where(zq & zf, 0.0, d)


def _binary(name, Q, F, xp):
    """The binary metrics from the counts of nonzero features: ``tt`` in
    both rows (a product of 0/1 matrices), ``nq`` and ``nf`` in each."""

    def ones(v):
        return xp.where(v != 0, 1.0, 0.0)

    Bq, Bf = _map_values(Q, ones, xp), _map_values(F, ones, xp)
    n = float(Q.shape[1])
    tt = _products(Bq, Bf, xp)
    nq, nf = _row_sums(Bq, xp)[:, None], _row_sums(Bf, xp)[None, :]
    tf, ft = nq - tt, nf - tt
    ne = tf + ft
    if name == "jaccard":
        union = nq + nf - tt
        return _safe_divide(union - tt, union, xp)
    if name == "matching":
        return ne / n
    if name == "dice":
        return _safe_divide(ne, 2.0 * tt + ne, xp)
    if name == "kulsinski":
        return xp.where(ne == 0, 0.0, (ne - tt + n) / (ne + n))
    if name in ("rogerstanimoto", "sokalmichener"):
        return 2.0 * ne / (n + ne)
    if name == "russellrao":
        return xp.where((tt == nq) & (tt == nf), 0.0, (n - tt) / n)
    if name == "sokalsneath":
        return _safe_divide(ne, 0.5 * tt + ne, xp)
    if name == "yule":
        ff = n - tt - tf - ft
        zero = (tf == 0) | (ft == 0)
        return xp.where(zero, 0.0, _safe_divide(2.0 * tf * ft, tt * ff + tf * ft, xp))
    raise AssertionError(name)


def _haversine(Q, F, xp):
    lat_q, lon_q = Q[:, 0][:, None], Q[:, 1][:, None]
    lat_f, lon_f = F[:, 0][None, :], F[:, 1][None, :]
    sin_lat = xp.sin(0.5 * (lat_q - lat_f))
    sin_lon = xp.sin(0.5 * (lon_q - lon_f))
    inner = xp.sqrt(sin_lat**2 + xp.cos(lat_q) * xp.cos(lat_f) * sin_lon**2)
    return 2.0 * xp.arcsin(xp.minimum(inner, 1.0))


def _accumulate(metric: Metric, Q, F, xp, n_features=None):
    """A feature-by-feature metric by broadcasting over chunks of features
    (dense float64 rows; a (q, n, chunk) temporary of at most
    ``_CHUNK_BYTES``); ``n_features`` divides hamming's count (the data's,
    when ``Q`` and ``F`` keep only the features their rows use)."""
    name, kw = metric.name, metric.kwds
    q, n, d = Q.shape[0], F.shape[0], Q.shape[1]
    step = max(1, min(d, _CHUNK_BYTES // (8 * max(q * n, 1))))
    total = xp.zeros((q, n))
    extra = xp.zeros((q, n)) if name == "braycurtis" else None
    p = kw.get("p", 2.0)
    w = xp.asarray(kw["w"]) if "w" in kw else None
    for f0 in range(0, d, step):
        f1 = min(d, f0 + step)
        x, y = Q[:, None, f0:f1], F[None, :, f0:f1]
        diff = xp.abs(x - y)
        if name == "manhattan":
            total += diff.sum(axis=2)
        elif name == "chebyshev":
            total = xp.maximum(total, diff.max(axis=2))
        elif name in ("minkowski", "wminkowski"):
            powered = diff**p
            if w is not None:
                powered = powered * w[f0:f1]
            total += powered.sum(axis=2)
        elif name == "canberra":
            total += _safe_divide(diff, xp.abs(x) + xp.abs(y), xp).sum(axis=2)
        elif name == "braycurtis":
            total += diff.sum(axis=2)
            extra += xp.abs(x + y).sum(axis=2)
        elif name == "hamming":
            total += (x != y).sum(axis=2)
        else:
            raise AssertionError(name)
    if name in ("minkowski", "wminkowski"):
        return total ** (1.0 / p)
    if name == "braycurtis":
        return _safe_divide(total, extra, xp)
    if name == "hamming":
        return total / (n_features or d)
    return total


def _host_cdist(metric: Metric, Q, F):
    """SciPy's ``cdist`` where its definition is umap-learn's (dense host
    rows), or None."""
    from scipy.spatial.distance import cdist

    name, kw = metric.name, metric.kwds
    if name == "manhattan":
        return cdist(Q, F, "cityblock")
    if name in ("chebyshev", "canberra", "hamming"):
        return cdist(Q, F, name)
    if name == "minkowski":
        return cdist(Q, F, "minkowski", p=kw["p"])
    if name == "wminkowski":
        return cdist(Q, F, "minkowski", p=kw["p"], w=kw["w"])
    if name == "braycurtis":
        num = cdist(Q, F, "cityblock")
        den = cdist(Q, -F, "cityblock")  # sum |x + y|
        return _safe_divide(num, den, np)
    return None


def pairwise(metric: Metric, Q, F, xp):
    """umap-learn's distances of the rows of ``Q`` to the rows of ``F``
    (both dense or both sparse, in ``xp``'s family): a dense float64 (q, n)
    array in ``xp``."""
    name = metric.name
    if name == "callable":
        return xp.asarray(_callable_pairwise(metric, to_host(Q), to_host(F)))
    Q, F = _float64(Q), _float64(F)
    if name == "euclidean":
        return _euclidean(Q, F, xp)
    if name == "seuclidean":
        scale = 1.0 / np.sqrt(metric.kwds["sigma"])
        return _euclidean(
            _scale_columns(Q, scale, xp), _scale_columns(F, scale, xp), xp
        )
    if name == "mahalanobis":
        return _mahalanobis(Q, F, metric.kwds["vinv"], xp)
    if name == "cosine":
        return _cosine(Q, F, xp)
    if name == "correlation":
        return _correlation(Q, F, xp)
    if name == "hellinger":
        return _hellinger(Q, F, xp)
    if name in BINARY:
        return _binary(name, Q, F, xp)
    n_features = Q.shape[1]
    if is_sparse(Q):
        Q, F = _used_columns(Q, F, xp)
    if name == "haversine":
        return _haversine(Q, F, xp)
    if xp is np:
        out = _host_cdist(metric, Q, F)
        if out is not None:
            return out * (Q.shape[1] / n_features) if name == "hamming" else out
    return _accumulate(metric, Q, F, xp, n_features)


def _used_columns(Q, F, xp):
    """Sparse rows as dense ones over the features either uses (a feature
    zero in every row adds nothing to a feature-by-feature metric)."""
    Q, F = Q.tocsr(), F.tocsr()
    used = xp.unique(xp.concatenate([Q.indices, F.indices]).astype(np.int64))
    if used.shape[0] == 0:
        used = xp.zeros(1, dtype=np.int64)
    m = used.shape[0]
    # the columns by a product with a 0/1 selector (cuSPARSE on the device)
    select = _sparse_module(Q).coo_matrix(
        (xp.ones(m), (used, xp.arange(m))), shape=(Q.shape[1], m)
    )
    select = select.tocsr()
    return _dense(Q @ select, xp), _dense(F @ select, xp)


def _callable_pairwise(metric: Metric, Q, F):
    """A callable's distances (host): a numba loop for a numba-jitted
    function, else a Python loop. Each call gets copies of the two rows (a
    metric may write into them: the data stay as given)."""
    func, kwds = metric.func, metric.kwds
    # numba's loop compiles in seconds: worth it beyond a few 100,000 pairs
    if _is_numba(func) and Q.shape[0] * F.shape[0] > 250_000:
        loop = _numba_loop(func, metric.returns_gradient, len(kwds))
        return loop(np.ascontiguousarray(Q), np.ascontiguousarray(F), *kwds.values())
    out = np.empty((Q.shape[0], F.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(F.shape[0]):
            value = func(Q[i].copy(), F[j].copy(), **kwds)
            out[i, j] = value[0] if metric.returns_gradient else value
    return out


def _is_numba(func) -> bool:
    return type(func).__module__.startswith("numba") and hasattr(func, "py_func")


_LOOPS: dict = {}


def _numba_loop(func, returns_gradient: bool, n_kwds: int):
    """A jitted loop over every pair of rows calling ``func`` (compiled once
    per function)."""
    key = (func, returns_gradient, n_kwds)
    if key not in _LOOPS:
        import numba

        if returns_gradient:

            @numba.njit
            def distance(x, y, *kwds):
                return func(x, y, *kwds)[0]

        else:

            @numba.njit
            def distance(x, y, *kwds):
                return func(x, y, *kwds)

        @numba.njit
        def loop(Q, F, *kwds):
            out = np.empty((Q.shape[0], F.shape[0]))
            for i in range(Q.shape[0]):
                for j in range(F.shape[0]):
                    out[i, j] = distance(Q[i].copy(), F[j].copy(), *kwds)
            return out

        _LOOPS[key] = loop
    return _LOOPS[key]


# ------------------------------------------------------------ neighbours


def _rows(A, start, stop):
    return A[start:stop]


def select_host(D, k: int, offset: int = 0, rows=None):
    """The k smallest of each row of a host tile (NaN as infinity), equal
    distances by index, or by :func:`~gpuml.neighbors._search.tie_keys` of
    (``rows``, index) when ``rows`` (the query rows' numbers) is given:
    (distances, indices). The candidates (distances at or below each row's
    k-th) sorted by (row, distance, tie), the first k of each row kept."""
    D = np.where(np.isnan(D), np.inf, D)
    t, n = D.shape
    k = min(k, n)
    kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
    r, c = np.nonzero(D <= kth)
    d = D[r, c]
    ties = c if rows is None else tie_keys(np.asarray(rows)[r], c + offset)
    order = np.lexsort((ties, d, r))
    r, c, d = r[order], c[order], d[order]
    rank = np.arange(r.shape[0]) - np.searchsorted(r, np.arange(t))[r]
    kept = rank < k
    return d[kept].reshape(t, k), c[kept].reshape(t, k) + offset


def _euclidean_exact_host(Q, F, dists, indices, rows):
    """The host twin of ``euclidean_exact`` (gpuml/_cuda/neighbors.cu): the
    selected neighbours' euclidean distances computed again directly (dense
    float64 host rows), each row sorted again by (distance, tie key)."""
    step = max(1, (_CHUNK_BYTES // 8) // max(indices.shape[1] * Q.shape[1], 1))
    for start in range(0, Q.shape[0], step):
        stop = min(Q.shape[0], start + step)
        diff = F[indices[start:stop]] - Q[start:stop, None, :]
        dists[start:stop] = np.sqrt(np.einsum("qkd,qkd->qk", diff, diff))
    order = np.lexsort((tie_keys(rows[:, None], indices), dists), axis=1)
    return np.take_along_axis(dists, order, axis=1), np.take_along_axis(
        indices, order, axis=1
    )


def _kneighbors_scikit(metric: Metric, F, Q, k: int, first: int, query_is_fit: bool):
    """The host search of dense rows in a metric of scikit-learn's (threaded)
    brute search, its distances umap-learn's: scikit-learn's k + 1 nearest,
    (euclidean) their distances computed again directly, a fit's own
    distance 0, sorted by (distance, tie key); the rows whose (k+1)-th
    distance ties the k-th (duplicates at the edge) found again over whole
    rows by :func:`select_host`."""
    from gpuml._sklearn_compat import sklearn_own

    NearestNeighbors = sklearn_own("sklearn.neighbors", "NearestNeighbors")

    n, q = F.shape[0], Q.shape[0]
    kk = min(k + 1, n)
    search = NearestNeighbors(n_neighbors=kk, metric=metric.name, algorithm="brute")
    dists, indices = search.fit(F).kneighbors(Q)
    dists, indices = dists.astype(np.float64), indices.astype(np.int64)
    rows = np.arange(first, first + q)
    if metric.name == "euclidean":
        dists, indices = _euclidean_exact_host(
            _float64(Q), _float64(F), dists, indices, rows
        )
    else:
        if query_is_fit:  # (rounding: scikit-learn's can leave 6e-8)
            dists[indices == rows[:, None]] = 0.0
        order = np.lexsort((tie_keys(rows[:, None], indices), dists), axis=1)
        dists = np.take_along_axis(dists, order, axis=1)
        indices = np.take_along_axis(indices, order, axis=1)
    if kk > k:
        edges = np.flatnonzero(dists[:, k] <= dists[:, k - 1])
        step = max(1, (_CHUNK_BYTES // 8) // max(n, 1))
        for start in range(0, edges.size, step):
            edge = edges[start : start + step]
            D = pairwise(metric, _float64(Q[edge]), _float64(F), np)
            if query_is_fit:
                D[np.arange(edge.size), edge] = 0.0
            d_, i_ = select_host(np.asarray(D), k, rows=rows[edge])
            if metric.name == "euclidean":
                d_, i_ = _euclidean_exact_host(
                    _float64(Q[edge]), _float64(F), d_, i_, rows[edge]
                )
            dists[edge, :k], indices[edge, :k] = d_, i_
    return dists[:, :k], indices[:, :k]


def kneighbors(
    metric: Metric, X_fit, X_query, k: int, xp, query_is_fit: bool, scikit=False
):
    """The exact k nearest rows of ``X_fit`` to each row of ``X_query``
    under ``metric``: ``(distances float64, indices int64)`` of shape (q, k)
    in ``xp``, ascending, equal distances in the order of
    :func:`~gpuml.neighbors._search.tie_keys` (a fit's own row first, at
    distance 0, when ``query_is_fit``); dense euclidean distances computed
    again directly for the selected rows. On the device the tiles feed
    gpuml's selection kernel; on the host, dense rows in a metric whose
    distances scikit-learn's brute search gives as umap-learn's (``scikit``)
    take that search (:func:`_kneighbors_scikit`), a callable metric's and
    every other search tiles of query rows."""
    n, q = X_fit.shape[0], X_query.shape[0]
    first = 0 if query_is_fit else n  # the query rows' numbers in the tie keys
    if xp is not np and metric.name != "callable":
        from gpuml.neighbors._search import device_kneighbors

        def tile(start, stop, c0, c1):
            return pairwise(
                metric, _rows(X_query, start, stop), _rows(X_fit, c0, c1), xp
            )

        dists, indices = device_kneighbors(X_fit, X_query, k, tile, hashed_ties=True)
    elif scikit:
        Fh = to_host(X_fit)
        Qh = Fh if query_is_fit else to_host(X_query)
        dists, indices = _kneighbors_scikit(metric, Fh, Qh, k, first, query_is_fit)
        dists, indices = xp.asarray(dists), xp.asarray(indices)
    else:
        Fh = to_host(X_fit)
        Qh = Fh if query_is_fit else to_host(X_query)
        step = max(1, min(q, (_CHUNK_BYTES // 8) // max(n, 1)))
        out_d, out_i = [], []
        for start in range(0, q, step):
            stop = min(q, start + step)
            D = pairwise(metric, _rows(Qh, start, stop), Fh, np)
            if query_is_fit and metric.name != "callable":  # (rounding)
                D[np.arange(stop - start), np.arange(start, stop)] = 0.0
            rows = np.arange(first + start, first + stop)
            d_, i_ = select_host(np.asarray(D, dtype=np.float64), k, rows=rows)
            out_d.append(d_)
            out_i.append(i_)
        dists, indices = np.concatenate(out_d), np.concatenate(out_i)
        if metric.name == "euclidean" and not is_sparse(Fh):
            rows = np.arange(first, first + q)
            dists, indices = _euclidean_exact_host(
                _float64(Qh), _float64(Fh), dists, indices.astype(np.int64), rows
            )
        dists, indices = xp.asarray(dists), xp.asarray(indices.astype(np.int64))
    if query_is_fit and metric.name != "callable":
        # a row's distance to itself is 0 (a tile's rounding can leave 1e-8)
        own = indices == xp.arange(q)[:, None]
        dists = xp.where(own, 0.0, dists)
    return dists, indices


# ---------------------------------------------------------- sparse unique


def unique_rows(X):
    """``(index, inverse)`` of the distinct rows of ``X`` (dense or sparse,
    any family; computed on the host): ``X[index]`` are the distinct rows,
    ``X[index][inverse]`` is ``X``. Dense rows in ``np.unique``'s order;
    sparse rows (stored zeros dropped) in the order of their bytes."""
    if not is_sparse(X):
        _, index, inverse = np.unique(
            to_host(X), axis=0, return_index=True, return_inverse=True
        )
        return index, inverse.ravel()
    A = to_host(X).tocsr(copy=True)
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    keys = np.empty(A.shape[0], dtype=object)
    for i in range(A.shape[0]):
        s, e = A.indptr[i], A.indptr[i + 1]
        keys[i] = (
            A.indices[s:e].astype(np.int64).tobytes() + b"|" + A.data[s:e].tobytes()
        )
    _, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return index, inverse.ravel()


def take_rows(X, index, xp):
    """Rows ``index`` (host integers) of ``X`` in its namespace (sparse
    device rows through a host copy)."""
    if is_sparse(X):
        if xp is np:
            return X[index]
        from gpuml._array import to_namespace

        return to_namespace(to_host(X)[index].tocsr(), xp)
    return X[xp.asarray(index)]


# ------------------------------------------------------- inverse_transform


def inverse_transform_error(model) -> str | None:
    """umap-learn's reason why a fitted UMAP has no ``inverse_transform``
    for its input (its ValueError's text), or None: sparse training data,
    or a metric without a gradient (``'precomputed'``, the binary metrics,
    hamming, a callable returning no gradient). ``inverse_transform``
    raises ``ValueError(reason)``."""
    if is_sparse(getattr(model, "_raw_data", None)):
        return "Inverse transform not available for sparse input."
    metric = getattr(model, "_metric", None)
    if metric is None or not metric.has_gradient:
        return "Inverse transform not available for given metric."
    return None
