"""liblinear's L2-regularised squared-loss problems, many at once, on the device.

Every problem is ``min_w 0.5 ||w||² + Σ_i c_i loss(x_i · w, t_i)`` over the
rows ``x_i`` of one matrix (liblinear's: the intercept, when fitted, is a
synthetic last column of value ``intercept_scaling``, penalised with the
rest); problem ``j`` has its own targets ``t[:, j]`` (±1 for a classifier,
the values for a regressor) and per-sample costs ``c[:, j]`` (``C`` times the
sample and class weights). The ``k`` problems of a fit (the classes of
one-vs-rest) and of a search (every ``C`` as well) are the columns of one
batch. Each objective is 1-strongly convex in ``w`` (the penalty), so the
optimum is unique and ``||w - w*|| <= ||∇f(w)||`` for a differentiable
objective: the stopping rule below bounds the distance to the optimum.

The algorithm, :func:`newton`, is for the squared losses (``squared_hinge``,
``squared_epsilon_insensitive``) with the L2 penalty: once differentiable
and piecewise quadratic. A batched Newton method: the direction solves the
generalised Hessian's system ``(I + X' diag(h) X) d = -g`` by preconditioned
conjugate gradients (one product ``X @ P`` and one ``X' @ Q`` per CG step for
all ``k`` problems: matrix products, cuBLAS or cuSPARSE on the GPU), the step
is the exact minimiser along ``d`` (the objective is a piecewise quadratic in
the step; a safeguarded Newton iteration on its piecewise-linear slope finds
it in a few elementwise passes). Near the optimum the active set stops
changing and a step lands on the optimum. It stops a problem when ``||g|| <=
eps ||g(0)||`` with liblinear's primal ``eps`` (scikit-learn's ``tol`` scaled
as liblinear scales it), which bounds ``||w - w*||`` by the same amount (or,
where rounding stops the steps, when ``||g||`` is at most ``1e-12`` of the
magnitude of its terms: the bound ``||w - w*|| <= ||g||`` still holds). Both
of scikit-learn's ``dual`` choices have this optimum; gpuml solves the
primal for either.

The other problems (the non-smooth ``hinge`` and ``epsilon_insensitive``
losses, the L1 penalty, Crammer and Singer's multi-class method) are
solved by scikit-learn's own compiled liblinear on a host copy of the data
(``gpuml/svm/_classes.py``): its methods are sequential over the samples
or the features, so a device would take a kernel launch per coordinate,
and a Python loop over them ran hundreds of times slower than liblinear
(hinge, 5,000 x 20, 4 classes: 48 s against 0.12 s).

A smooth surrogate of the hinge (a Huber or squared hinge) would be fast on
the device but has another optimum; it is not used.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import is_sparse, to_host

HINGE = "hinge"  # targets ±1: margin losses
EPSILON = "epsilon"  # real targets: epsilon-insensitive losses


@dataclass
class Solution:
    """``W`` (p, k) in the data's namespace; per problem (host): iterations
    taken and whether the stopping rule was met."""

    W: object
    n_iter: np.ndarray
    converged: np.ndarray


def _column_norms(A, xp: ModuleType):
    return xp.sqrt((A * A).sum(axis=0))


class _SquaredLoss:
    """Derivatives of ``Σ c_i rho(z_i)`` for the squared hinge (``kind``
    HINGE: ``rho = max(0, 1 - t z)²``) or the squared epsilon-insensitive loss
    (EPSILON: ``rho = max(0, |z - t| - ε)²``), per column of ``Z`` (n, k)."""

    def __init__(self, kind: str, T, C, epsilon: float, xp: ModuleType):
        self.kind, self.T, self.C, self.epsilon, self.xp = kind, T, C, epsilon, xp

    def slope_curvature(self, Z):
        """``(rho'(Z) c, rho''(Z) c)`` elementwise (the generalised second
        derivative: ``2c`` on the active pieces, 0 elsewhere)."""
        xp = self.xp
        if self.kind == HINGE:
            r = xp.maximum(1.0 - self.T * Z, 0.0)
            return -2.0 * self.C * self.T * r, 2.0 * self.C * (r > 0)
        e = Z - self.T
        r = xp.maximum(xp.abs(e) - self.epsilon, 0.0)
        return 2.0 * self.C * xp.sign(e) * r, 2.0 * self.C * (r > 0)


def _line_search(loss: _SquaredLoss, W, D, Z, U, xp: ModuleType, max_steps=100):
    """The exact minimiser ``t >= 0`` of ``f(W + t D)`` per column.

    ``φ(t) = 0.5 ||w + t d||² + Σ c rho(z + t u)`` (``u = X d``) is a convex
    piecewise quadratic; its slope ``φ'`` is piecewise linear and
    increasing. A Newton step on ``φ'`` (exact on the current piece) is kept
    when it stays inside the bracket of slopes of opposite signs, else the
    bracket is halved (or doubled while no positive slope is known).
    Columns with ``φ'(0) = 0`` (a zero direction) get ``t = 0``; a slope
    within rounding of zero (``1e-13`` of its terms' magnitude) is zero.
    """
    wd = (W * D).sum(axis=0)
    dd = (D * D).sum(axis=0)

    def slopes(t):
        """``φ'(t)``, ``φ''(t)`` and the magnitude of ``φ'``'s terms."""
        s, h = loss.slope_curvature(Z + t * U)
        su = s * U
        size = xp.abs(wd) + t * dd + xp.abs(su).sum(axis=0)
        return wd + t * dd + su.sum(axis=0), dd + (h * U * U).sum(axis=0), size

    k = W.shape[1]
    lo = xp.zeros(k)
    hi = xp.full(k, xp.inf)
    d0 = slopes(lo)[0]
    scale = xp.abs(d0)
    t = xp.ones(k)
    done = scale == 0
    for _ in range(max_steps):
        d1, d2, size = slopes(t)
        # zero to rounding: a small share of the slope or of its terms
        done = done | (xp.abs(d1) <= xp.maximum(1e-13 * scale, 1e-13 * size))
        if bool(done.all()):
            break
        lo = xp.where(d1 < 0, t, lo)
        hi = xp.where(d1 > 0, t, hi)
        newton = t - d1 / xp.where(d2 > 0, d2, 1.0)
        inside = (newton > lo) & (newton < hi)
        fallback = xp.where(xp.isinf(hi), 2.0 * t, 0.5 * (lo + hi))
        stuck = hi - lo <= 1e-15 * hi
        done = done | stuck
        t = xp.where(done, t, xp.where(inside, newton, fallback))
    # unresolved columns take the best step known to decrease f
    return xp.where(done | (d1 <= 0), t, lo) * (scale > 0)


def _conjugate_gradients(X, XT, h, G, running, diagonal, eta, xp, max_steps):
    """Solve ``(I + X' diag(h) X) D = -G`` for the ``running`` columns by
    Jacobi-preconditioned CG, each column until its residual is at most
    ``eta`` times its ``||G||``; the others get ``D = 0``."""
    R = -G * running
    target = eta * _column_norms(G, xp)
    D = xp.zeros_like(G)
    Y = R / diagonal
    P = Y.copy()
    rz = (R * Y).sum(axis=0)
    for _ in range(max_steps):
        active = running & (_column_norms(R, xp) > target)
        if not bool(active.any()):
            break
        Q = P + XT @ (h * (X @ P))
        pq = (P * Q).sum(axis=0)
        alpha = xp.where(active & (pq > 0), rz / xp.where(pq > 0, pq, 1.0), 0.0)
        D += alpha * P
        R -= alpha * Q
        Y = R / diagonal
        rz_new = (R * Y).sum(axis=0)
        beta = xp.where(active, rz_new / xp.where(rz > 0, rz, 1.0), 0.0)
        P = Y + beta * P
        rz = xp.where(active, rz_new, rz)
    return D


# A gradient below this share of its terms' magnitude is rounding.
_GRADIENT_ROUNDING = 1e-12


def newton(X, T, C, *, kind, epsilon, eps, max_iter, xp: ModuleType) -> Solution:
    """Minimise the ``k`` squared-loss problems (see the module docstring).

    Parameters
    ----------
    X : float64 (n, p) dense or CSR, in ``xp`` (the intercept column included)
    T, C : float64 (n, k): targets and per-sample costs of each problem
    kind : HINGE or EPSILON
    epsilon : float (EPSILON only)
    eps : float64 (k,) host array: a problem stops once ``||g|| <= eps
        ||g(0)||``
    max_iter : int, Newton iterations at most
    """
    n, p = X.shape
    k = T.shape[1]
    XT = X.T.tocsr() if is_sparse(X) else X.T
    squares = X.multiply(X).T.tocsr() if is_sparse(X) else (X * X).T
    loss = _SquaredLoss(kind, T, C, epsilon, xp)
    W = xp.zeros((p, k))
    Z = xp.zeros((n, k))
    bound = best = None
    n_iter = np.zeros(k, dtype=np.int64)
    converged = np.zeros(k, dtype=bool)
    for _ in range(max_iter + 1):
        s, h = loss.slope_curvature(Z)
        G = W + XT @ s
        norms = _column_norms(G, xp)
        if bound is None:
            g0 = norms
            bound = xp.asarray(eps) * g0
        ok = norms <= bound
        if best is not None and bool((~ok & (norms >= best)).any()):
            # no progress over the smallest gradient so far (the previous
            # one, or a cycle of steps at rounding level): at rounding when
            # the gradient is a small share of the magnitude of its terms
            # (the bound ||w - w*|| <= ||g|| holds all the same)
            size = _column_norms(W, xp) + _column_norms(abs(XT) @ xp.abs(s), xp)
            ok |= (norms >= best) & (norms <= _GRADIENT_ROUNDING * size)
        best = norms if best is None else xp.minimum(best, norms)
        converged |= to_host(ok)
        running_host = ~converged & (n_iter < max_iter)
        if not running_host.any():
            break
        running = xp.asarray(running_host)
        # inexact Newton: the CG residual shrinks with the gradient
        ratio = norms / xp.where(g0 > 0, g0, 1.0)
        eta = xp.minimum(0.1, xp.sqrt(ratio))
        diagonal = 1.0 + squares @ h
        D = _conjugate_gradients(
            X, XT, h, G, running, diagonal, eta, xp, max_steps=2 * p + 20
        )
        U = X @ D
        t = _line_search(loss, W, D, Z, U, xp)
        step = t * D
        W_new = W + step
        stalled = to_host((W_new == W).all(axis=0)) & running_host
        W = W_new
        Z = X @ W
        n_iter += running_host
        if stalled.any():
            # a step that changes nothing cannot improve: converged if the
            # gradient is rounding (as above), else stopped short (reported
            # as the iteration limit)
            size = _column_norms(W, xp) + _column_norms(abs(XT) @ xp.abs(s), xp)
            rounding = to_host(norms <= _GRADIENT_ROUNDING * size)
            converged |= stalled & rounding
            n_iter[stalled & ~rounding] = max_iter
    return Solution(W, n_iter, converged)
