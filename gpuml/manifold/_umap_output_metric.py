"""UMAP's output metrics: embeddings in a space other than the euclidean.

umap-learn's ``output_metric`` names the metric of the embedding's space;
the layout then follows that metric's gradient (umap-learn's
``optimize_layout_generic``): an edge sampled at distance ``d`` pulls its
head along ``2 b (w - 1) / (d + 1e-6)`` times the gradient of ``d``, a
negative sample pushes it along ``gamma 2 b w / (d + 1e-6)`` times that
gradient, with ``w = 1 / (1 + a d^(2b))`` (1 at ``d = 0``), each move
clipped to 4 per coordinate. :class:`GenericGradient` is that rule for
:func:`gpuml.manifold._umap_layout.layout_numpy`: each vertex moves itself,
as in gpuml's euclidean layout (umap-learn also moves the tail with the
reversed gradient, ``move_other``).

The metrics are a small registry (:data:`GRADIENTS`) of functions over
batches of pairs, ``(x, y, **kwds) -> (d, grad)`` with ``x`` and ``y`` of
shape (m, dim), each the formula of umap-learn's ``*_grad`` function of
the same name (written again, vectorised). A callable ``output_metric``
returning ``(distance, gradient)`` for one pair, as umap-learn's, runs pair
by pair on the host (float64 rows): a numba-jitted one in a jitted loop, any other in a
Python loop (slow: small data only).

Where it runs: the generic layout is host code (NumPy); on a GPU the
embedding is copied to the host for it and back (see
:func:`gpuml.manifold._umap_layout.layout`).
"""

from __future__ import annotations

import numpy as np

from gpuml.manifold import _umap_metrics as metric_steps

#: The output metrics that are euclidean: the layout's own fast path.
EUCLIDEAN = ("euclidean", "l2")


def _euclidean(x, y):
    diff = x - y
    d = np.sqrt((diff * diff).sum(axis=1))
    return d, diff / (1e-6 + d)[:, None]


def _standardised_euclidean(x, y, sigma=None):
    sigma = np.ones(x.shape[1]) if sigma is None else np.asarray(sigma, np.float64)
    diff = x - y
    d = np.sqrt((diff * diff / sigma).sum(axis=1))
    return d, diff / (1e-6 + d[:, None] * sigma)


def _manhattan(x, y):
    diff = x - y
    return np.abs(diff).sum(axis=1), np.sign(diff)


def _chebyshev(x, y):
    diff = x - y
    at = np.abs(diff).argmax(axis=1)
    rows = np.arange(x.shape[0])
    grad = np.zeros_like(diff)
    grad[rows, at] = np.sign(diff[rows, at])
    return np.abs(diff[rows, at]), grad


def _sign(values):
    """umap-learn's ``sign``: -1 below 0, else 1 (1 at 0)."""
    return np.where(values < 0, -1.0, 1.0)


def _weighted_minkowski(x, y, w=None, p=2.0):
    w = np.ones(x.shape[1]) if w is None else np.asarray(w, np.float64)
    diff = x - y
    S = (w * np.abs(diff) ** p).sum(axis=1)
    d = S ** (1.0 / p)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_denom = np.where(S > 0, S ** ((1.0 - p) / p), 0.0)
    grad = w * np.abs(diff) ** (p - 1.0) * _sign(diff) * inv_denom[:, None]
    return d, grad


def _minkowski(x, y, p=2.0):
    return _weighted_minkowski(x, y, None, p)


def _mahalanobis(x, y, vinv=None):
    vinv = np.eye(x.shape[1]) if vinv is None else np.asarray(vinv, np.float64)
    diff = x - y
    g = diff @ vinv.T
    d = np.sqrt((g * diff).sum(axis=1))
    return d, g / (1e-6 + d)[:, None]


def _canberra(x, y):
    diff = x - y
    denominator = np.abs(x) + np.abs(y)
    some = denominator > 0
    safe = np.where(some, denominator, 1.0)
    d = np.where(some, np.abs(diff) / safe, 0.0).sum(axis=1)
    grad = np.where(
        some, np.sign(diff) / safe - np.abs(diff) * np.sign(x) / safe**2, 0.0
    )
    return d, grad


def _braycurtis(x, y):
    numerator = np.abs(x - y).sum(axis=1)
    denominator = np.abs(x + y).sum(axis=1)
    some = denominator > 0
    safe = np.where(some, denominator, 1.0)
    d = np.where(some, numerator / safe, 0.0)
    grad = np.where(some[:, None], (np.sign(x - y) - d[:, None]) / safe[:, None], 0.0)
    return d, grad


def _cosine(x, y):
    dot = (x * y).sum(axis=1)
    norm_x, norm_y = (x * x).sum(axis=1), (y * y).sum(axis=1)
    both = (norm_x > 0) & (norm_y > 0)
    nx = np.sqrt(np.where(both, norm_x, 1.0))
    ny = np.sqrt(np.where(both, norm_y, 1.0))
    d = np.where(both, 1.0 - dot / (nx * ny), np.where(norm_x + norm_y > 0, 1.0, 0.0))
    grad = x * (dot / (nx**3 * ny))[:, None] - y / (nx * ny)[:, None]
    return d, np.where(both[:, None], grad, 0.0)


def _correlation(x, y):
    cx = x - x.mean(axis=1, keepdims=True)
    cy = y - y.mean(axis=1, keepdims=True)
    d, grad = _cosine(cx, cy)
    return d, grad - grad.mean(axis=1, keepdims=True)


def _haversine(x, y):
    sin_lat = np.sin(0.5 * (x[:, 0] - y[:, 0]))
    cos_lat = np.cos(0.5 * (x[:, 0] - y[:, 0]))
    sin_long = np.sin(0.5 * (x[:, 1] - y[:, 1]))
    cos_long = np.cos(0.5 * (x[:, 1] - y[:, 1]))
    cos_x, cos_y = np.cos(x[:, 0] + np.pi / 2), np.cos(y[:, 0] + np.pi / 2)
    a_1 = cos_x * cos_y * sin_long**2 + sin_lat**2
    d = 2.0 * np.arcsin(np.sqrt(np.clip(np.abs(a_1), 0, 1)))
    denominator = np.sqrt(np.abs(a_1 - 1)) * np.sqrt(np.abs(a_1)) + 1e-6
    grad = np.stack(
        [
            sin_lat * cos_lat - np.sin(x[:, 0] + np.pi / 2) * cos_y * sin_long**2,
            cos_x * cos_y * sin_long * cos_long,
        ],
        axis=1,
    )
    return d, grad / denominator[:, None]


def _hyperboloid(x, y):
    s = np.sqrt(1 + (x * x).sum(axis=1))
    t = np.sqrt(1 + (y * y).sum(axis=1))
    B = s * t - (x * y).sum(axis=1)
    B = np.where(B <= 1, 1.0 + 1e-8, B)
    coeff = 1.0 / (np.sqrt(B - 1) * np.sqrt(B + 1))
    grad = coeff[:, None] * (x * (t / s)[:, None] - y)
    return np.arccosh(B), grad


#: umap-learn's output metrics with gradients that gpuml has, by name.
GRADIENTS = {
    "manhattan": _manhattan,
    "taxicab": _manhattan,
    "l1": _manhattan,
    "chebyshev": _chebyshev,
    "linfinity": _chebyshev,
    "linfty": _chebyshev,
    "linf": _chebyshev,
    "minkowski": _minkowski,
    "seuclidean": _standardised_euclidean,
    "standardised_euclidean": _standardised_euclidean,
    "wminkowski": _weighted_minkowski,
    "weighted_minkowski": _weighted_minkowski,
    "mahalanobis": _mahalanobis,
    "canberra": _canberra,
    "braycurtis": _braycurtis,
    "cosine": _cosine,
    "correlation": _correlation,
    "haversine": _haversine,
    "hyperboloid": _hyperboloid,
    "euclidean": _euclidean,  # the generic rule, for tests; fits use the fast path
}
#: umap-learn's output metrics with gradients that gpuml does not have (a
#: callable returning (distance, gradient) can stand in for them).
NOT_HERE = (
    "hellinger",
    "softmax_hellinger",
    "symmetric_kl",
    "spherical_gaussian_energy",
    "diagonal_gaussian_energy",
    "gaussian_energy",
)
#: umap-learn's metrics without a gradient: not output metrics.
NO_GRADIENT = frozenset({"poincare", "ll_dirichlet", "hamming"}) | metric_steps.BINARY


def resolve(output_metric, kwds, n_components: int):
    """The batch function ``(x, y) -> (d, grad)`` of ``output_metric``, or
    None for a euclidean one; umap-learn's ValueErrors for what it refuses
    ('precomputed', metrics without a gradient, unknown names, callables
    that return no gradient, haversine beyond 2 dimensions)."""
    kwds = {} if kwds is None else dict(kwds)
    if callable(output_metric):
        # umap-learn tries two random points in [-10, 10]
        x, y = np.random.default_rng(0).uniform(-10, 10, size=(2, n_components))
        returned = output_metric(x, y, **kwds)
        if not (hasattr(returned, "__iter__") and len(returned) == 2):
            raise ValueError(
                "custom output_metric must return a tuple of (distance [float], "
                "gradient [np.array])"
            )
        return _pairwise(output_metric, tuple(kwds.values()))
    if not isinstance(output_metric, str):
        raise ValueError(
            "output_metric is neither callable nor a recognised string; got "
            f"{output_metric!r}."
        )
    if output_metric == "precomputed":
        raise ValueError("output_metric cannot be 'precomputed'")
    if output_metric in NO_GRADIENT:
        raise ValueError(
            f"gradient function is not yet implemented for {output_metric}: it "
            "cannot be an output_metric."
        )
    if output_metric in NOT_HERE:
        raise ValueError(
            f"output_metric={output_metric!r} is umap-learn's, not gpuml's; pass "
            "a callable returning (distance, gradient) for it, or use one of "
            f"{sorted(set(GRADIENTS) | set(EUCLIDEAN))}."
        )
    if output_metric in EUCLIDEAN:
        return None
    if output_metric not in GRADIENTS:
        raise ValueError(
            "output_metric is neither callable nor a recognised string; got "
            f"{output_metric!r}."
        )
    if output_metric == "haversine" and n_components != 2:
        raise ValueError(
            "haversine is only defined for 2 dimensional data: output_metric="
            f"'haversine' needs n_components=2, got {n_components}."
        )
    function = GRADIENTS[output_metric]
    try:
        function(np.zeros((1, n_components)), np.ones((1, n_components)), **kwds)
    except TypeError as error:
        raise ValueError(
            f"output_metric_kwds {kwds} do not fit output_metric={output_metric!r}: "
            f"{error}"
        ) from None

    def batch(x, y):
        return function(x, y, **kwds)

    return batch


def _pairwise(function, args: tuple):
    """A one-pair callable ``f(x, y, *args) -> (d, grad)`` as a batch
    function: a numba dispatcher in a jitted loop, else a Python loop."""
    try:
        import numba
        from numba.core.registry import CPUDispatcher
    except ImportError:  # pragma: no cover - numba comes with umap-learn
        CPUDispatcher = ()
    if isinstance(function, CPUDispatcher):

        @numba.njit
        def loop(x, y, f, args):
            m = x.shape[0]
            d = np.empty(m)
            grad = np.empty(x.shape)
            for i in range(m):
                dist, g = f(x[i], y[i], *args)
                d[i] = dist
                for j in range(x.shape[1]):
                    grad[i, j] = g[j]
            return d, grad

        def batch(x, y):
            return loop(
                np.ascontiguousarray(x, np.float64),
                np.ascontiguousarray(y, np.float64),
                function,
                args,
            )

        return batch

    def batch(x, y):
        m = x.shape[0]
        d, grad = np.empty(m), np.empty(x.shape)
        for i in range(m):
            dist, g = function(x[i], y[i], *args)
            d[i], grad[i] = dist, g
        return d, grad

    return batch


class GenericGradient:
    """umap-learn's generic layout rule (``optimize_layout_generic``) for the
    host layout: :meth:`attract` and :meth:`repel` give each vertex's clipped
    moves (before the learning rate) toward an edge's tail and away from a
    negative sample, in the metric ``distance`` (a batch function of
    :func:`resolve`).

    ``moves=2`` in a fit: umap-learn moves both ends of a sampled edge
    (``move_other``), so in its symmetric graph each end moves toward the
    other twice per period, as head of its edge and as tail of the reverse
    one, with the same gradient; here the head takes both moves when its own
    direction is sampled, from its position then. Measured on the iris
    (n_neighbors=10, 200 epochs, seed 42, CPU), trustworthiness against
    umap-learn 0.5.12's (k=10), one move / two moves / umap-learn: hyperboloid
    0.813 / 0.946 / 0.964, correlation 0.868 / 0.977 / 0.950, canberra
    0.836 / 0.882 / 0.891, braycurtis 0.788 / 0.836 / 0.839, haversine
    (on the sphere, cosine) 0.861 / 0.894 / 0.896. (gpuml's euclidean
    layout moves once: measured better there; see
    :mod:`~gpuml.manifold._umap_layout`.) A transform, whose tails do not
    move, takes one."""

    def __init__(self, distance, a: float, b: float, gamma: float, moves: int = 1):
        self.distance, self.a, self.b, self.gamma = distance, a, b, gamma
        self.moves = moves

    def start_epoch(self, embedding, epoch: int, n_epochs: int) -> None:
        """Nothing to prepare per epoch."""

    def _weight(self, d):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.where(d > 0, 1.0 / (1.0 + self.a * d ** (2 * self.b)), 1.0)

    def attract(self, current, other, edges, heads, tails):
        d, grad = self.distance(current.astype(np.float64), other.astype(np.float64))
        coeff = 2 * self.b * (self._weight(d) - 1) / (d + 1e-6)
        step = np.clip(coeff[:, None] * grad, -4, 4)
        return (self.moves * step).astype(np.float32)

    def repel(self, current, other):
        d, grad = self.distance(current.astype(np.float64), other.astype(np.float64))
        coeff = self.gamma * 2 * self.b * self._weight(d) / (d + 1e-6)
        return np.clip(coeff[:, None] * grad, -4, 4).astype(np.float32)
