"""liblinear's L2-regularised problems, many at once, with certified accuracy.

Every problem is ``min_w 0.5 ||w||² + Σ_i c_i loss(x_i · w, t_i)`` over the
rows ``x_i`` of one matrix (liblinear's: the intercept, when fitted, is a
synthetic last column of value ``intercept_scaling``, penalised with the
rest); problem ``j`` has its own targets ``t[:, j]`` (±1 for a classifier,
the values for a regressor) and per-sample costs ``c[:, j]`` (``C`` times the
sample and class weights). The ``k`` problems of a fit (the classes of
one-vs-rest) and of a search (every ``C`` as well) are the columns of one
batch. Each objective is 1-strongly convex in ``w`` (the penalty), so the
optimum is unique and ``||w - w*|| <= ||∇f(w)||`` for a differentiable
objective, ``||w - w*|| <= sqrt(2 gap)`` for any duality gap: both stopping
rules below bound the distance to the optimum.

Two algorithms:

- :func:`newton` for the squared losses (``squared_hinge``,
  ``squared_epsilon_insensitive``): once differentiable and piecewise
  quadratic. A batched Newton method: the direction solves the generalised
  Hessian's system ``(I + X' diag(h) X) d = -g`` by preconditioned conjugate
  gradients (one product ``X @ P`` and one ``X' @ Q`` per CG step for all
  ``k`` problems: matrix products, cuBLAS or cuSPARSE on the GPU), the step
  is the exact minimiser along ``d`` (the objective is a piecewise quadratic
  in the step; a safeguarded Newton iteration on its piecewise-linear slope
  finds it in a few elementwise passes). Near the optimum the active set
  stops changing and a step lands on the optimum. It stops a problem when
  ``||g|| <= eps ||g(0)||`` with liblinear's primal ``eps`` (scikit-learn's
  ``tol`` scaled as liblinear scales it), which bounds ``||w - w*||`` by the
  same amount (or, where rounding stops the steps, when ``||g||`` is at
  most ``1e-12`` of the magnitude of its terms: the bound ``||w - w*|| <=
  ||g||`` still holds). Both of scikit-learn's ``dual`` choices have this optimum;
  gpuml solves the primal for either.
- :func:`dual_cd` for the non-smooth losses (``hinge``,
  ``epsilon_insensitive``; scikit-learn's only formulation is the dual):
  liblinear's dual coordinate descent over the samples (a random order per
  pass, from ``random_state``), all ``k`` problems stepped together. It is
  sequential over the samples, so it runs on the host (NumPy; on a GPU the
  data are copied to the host once and the coefficients back): a per-sample
  loop of device kernels would cost a launch per sample and pass. A problem
  stops on liblinear's rule (the projected gradient's spread over a pass at
  most ``tol`` for the hinge; for the epsilon-insensitive loss the sum of
  the violations of a pass at most ``tol`` times the first pass's, computed
  along the pass), or when its duality gap ``P(w) - D(alpha)`` is at most ``(tol
  max(||w||, 1))² / 2``, so that ``||w - w*|| <= tol max(||w||, 1)``, or
  at most ``1e-13`` of the sum of its terms' magnitudes (the gap is then
  rounding; ``||w - w*|| <= sqrt(2 gap)`` still holds), or when a whole pass
  changes no dual variable (a fixed point of the updates: the KKT conditions
  hold to rounding).

- :func:`l1_cd` for ``penalty="l1"`` (squared hinge, primal):
  liblinear's coordinate descent over the features (a Newton step per
  coordinate, soft-thresholded, with Armijo backtracking), on the host, one
  problem at a time; it stops on liblinear's rule (the minimum-norm
  subgradient's L1 norm at most ``eps`` times its initial value) or at a
  fixed point of the passes (no coefficient moves by more than ``1e-14`` of
  the largest).

A smooth surrogate of the hinge (a Huber or squared hinge) would be fast on
the device but has another optimum; it is not used.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np
from scipy import sparse as sp

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


def dual_gap(X, W, T, C, alpha, *, kind, epsilon):
    """The duality gap of each problem and the magnitude of its terms (host
    arrays; ``W`` (p, k), ``alpha`` (n, k) the dual variables, signed for
    EPSILON): ``(gap, size)``, the gap known to about ``eps * size``."""
    Z = np.asarray(X @ W)
    ww = (W * W).sum(axis=0)
    if kind == HINGE:
        primal_loss = (C * np.maximum(1.0 - T * Z, 0.0)).sum(axis=0)
        dual_linear = alpha.sum(axis=0)
        size = ww + primal_loss + dual_linear
        return ww + primal_loss - dual_linear, size
    primal_loss = (C * np.maximum(np.abs(Z - T) - epsilon, 0.0)).sum(axis=0)
    dual_linear = (T * alpha).sum(axis=0) - epsilon * np.abs(alpha).sum(axis=0)
    size = ww + primal_loss + (np.abs(T * alpha)).sum(axis=0)
    size += epsilon * np.abs(alpha).sum(axis=0)
    return ww + primal_loss - dual_linear, size


# A gap below this share of its terms' magnitude is rounding: the updates
# cannot reduce it further in float64.
_GAP_ROUNDING = 1e-13


def _rows(X) -> list:
    """Host X's rows as ``(columns, values)`` pairs (``columns`` a slice for
    dense X), made once for the per-sample loop."""
    if sp.issparse(X):
        ptr = X.indptr
        return [
            (X.indices[ptr[i] : ptr[i + 1]], X.data[ptr[i] : ptr[i + 1]])
            for i in range(X.shape[0])
        ]
    return [(slice(None), row) for row in X]


def _cd_problem(rows, q, t, c, *, kind, epsilon, tol, max_iter, seed, X):
    """One problem's dual coordinate descent (scalars as Python floats: the
    loop's cost is the interpreter's). Returns ``(w, passes, converged)``."""
    n, p = X.shape
    w = np.zeros(p)
    q_list, t_list, c_list = q.tolist(), t.tolist(), c.tolist()
    alpha = [0.0] * n
    for i in np.flatnonzero(q == 0).tolist():
        # a zero row: its dual variable goes to its best bound, w stays
        if kind == HINGE:
            alpha[i] = c_list[i]
        elif abs(t_list[i]) > epsilon:
            alpha[i] = c_list[i] if t_list[i] > 0 else -c_list[i]
    order = np.flatnonzero(q > 0)
    rng = np.random.RandomState(seed)
    hinge = kind == HINGE
    initial = None
    for passes in range(1, max_iter + 1):
        rng.shuffle(order)
        changed = False
        pg_max, pg_min, violation = -np.inf, np.inf, 0.0
        for i in order.tolist():
            idx, x = rows[i]
            z = float(w[idx] @ x)
            old, qi, ci = alpha[i], q_list[i], c_list[i]
            if hinge:
                ti = t_list[i]
                g = ti * z - 1.0
                pg = min(g, 0.0) if old == 0 else max(g, 0.0) if old == ci else g
                pg_max, pg_min = max(pg_max, pg), min(pg_min, pg)
                new = min(max(old - g / qi, 0.0), ci)
                delta = (new - old) * ti
            else:
                g = z - t_list[i]
                gp, gn = g + epsilon, g - epsilon
                if old == 0:
                    violation += max(gn, -gp, 0.0)
                elif old >= ci:
                    violation += max(gp, 0.0)
                elif old <= -ci:
                    violation += max(-gn, 0.0)
                else:
                    violation += abs(gp) if old > 0 else abs(gn)
                if g + epsilon < qi * old:
                    new = old - (g + epsilon) / qi
                elif g - epsilon > qi * old:
                    new = old - (g - epsilon) / qi
                else:
                    new = 0.0
                new = min(max(new, -ci), ci)
                delta = new - old
            if new != old:
                changed = True
                alpha[i] = new
                w[idx] += delta * x
        a = np.array(alpha)[:, None]
        gap, size = dual_gap(
            X, w[:, None], t[:, None], c[:, None], a, kind=kind, epsilon=epsilon
        )
        bound = max(0.5 * tol * tol * max(float(w @ w), 1.0), _GAP_ROUNDING * size[0])
        # liblinear's rules: the projected gradient's spread over the pass
        # (hinge), the violations' sum relative to the first pass's (SVR)
        if hinge:
            liblinear_rule = pg_max - pg_min <= tol
        else:
            initial = violation if initial is None else initial
            liblinear_rule = violation <= tol * initial
        if liblinear_rule or gap[0] <= bound or not changed:
            return w, passes, True
    return w, max_iter, False


def dual_cd(X, T, C, *, kind, epsilon, tol, max_iter, seed) -> Solution:
    """liblinear's dual coordinate descent for the hinge (HINGE) and
    epsilon-insensitive (EPSILON) losses, on the host (see the module
    docstring). ``X`` (n, p) host float64, dense or CSR; ``T``, ``C`` (n,
    k) host; ``seed`` the order of the passes (each problem takes the same
    orders as its own fit would: a batch's problems are its single fits)."""
    X = X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
    if sp.issparse(X):
        q = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        q = np.einsum("ij,ij->i", X, X)
    rows = _rows(X)
    k = T.shape[1]
    W = np.zeros((X.shape[1], k))
    n_iter = np.zeros(k, dtype=np.int64)
    converged = np.zeros(k, dtype=bool)
    for j in range(k):
        W[:, j], n_iter[j], converged[j] = _cd_problem(
            rows,
            q,
            np.ascontiguousarray(T[:, j]),
            np.ascontiguousarray(C[:, j]),
            kind=kind,
            epsilon=epsilon,
            tol=tol,
            max_iter=max_iter,
            seed=seed,
            X=X,
        )
    return Solution(W, n_iter, converged)


def _columns(X) -> list:
    """Host X's columns as ``(rows, values)`` pairs (``rows`` a slice for
    dense X)."""
    if sp.issparse(X):
        X = X.tocsc()
        ptr = X.indptr
        return [
            (X.indices[ptr[j] : ptr[j + 1]], X.data[ptr[j] : ptr[j + 1]])
            for j in range(X.shape[1])
        ]
    F = np.asfortranarray(X)
    return [(slice(None), F[:, j]) for j in range(X.shape[1])]


def _l1_problem(columns, t, c, *, eps, max_iter, sigma=0.01, max_search=30):
    """liblinear's coordinate descent for one L1-regularised squared-hinge
    problem, ``||w||_1 + Σ c_i max(0, 1 - t_i x_i · w)²``: a Newton step per
    coordinate (soft-thresholded) with Armijo backtracking. Stops when the
    minimum-norm subgradient's L1 norm is at most ``eps`` times its value at
    ``w = 0`` (liblinear's rule), or when a pass moves no coefficient by more
    than ``1e-14`` of the largest (rounding: a fixed point). Returns ``(w,
    passes, converged)``."""
    p = len(columns)
    w = np.zeros(p)
    b = np.ones(t.shape[0])  # 1 - t z
    start = None
    for passes in range(1, max_iter + 1):
        violation = moved = 0.0
        for j in range(p):
            rows, x = columns[j]
            tx = t[rows] * x
            bj, cj = b[rows], c[rows]
            active = bj > 0
            g = -2.0 * float((cj * tx * bj)[active].sum())
            h = 2.0 * float((cj * tx * tx)[active].sum()) + 1e-12
            gp, gn, wj = g + 1.0, g - 1.0, w[j]
            if wj == 0:
                violation += max(-gp, gn, 0.0)
            else:
                violation += abs(gp) if wj > 0 else abs(gn)
            if gp < h * wj:
                d = -gp / h
            elif gn > h * wj:
                d = -gn / h
            else:
                d = -wj
            if d == 0.0:
                continue
            before = float((cj * np.maximum(bj, 0.0) ** 2).sum())
            delta = g * d + abs(wj + d) - abs(wj)
            step = 1.0
            for _ in range(max_search):
                new_b = bj - step * d * tx
                after = float((cj * np.maximum(new_b, 0.0) ** 2).sum())
                change = abs(wj + step * d) - abs(wj) + after - before
                if change <= sigma * step * delta:
                    w[j] = wj + step * d
                    moved = max(moved, abs(step * d))
                    b[rows] = new_b
                    break
                step *= 0.5
        if start is None:
            start = violation
        # converged, or a pass whose steps are rounding (a fixed point)
        if violation <= eps * start or moved <= 1e-14 * np.abs(w).max():
            return w, passes, True
    return w, max_iter, False


def l1_cd(X, T, C, *, eps, max_iter) -> Solution:
    """The L1-regularised squared-hinge problems (columns of ``T``, ``C``),
    one at a time on the host (``X`` host float64, dense or sparse; ``eps``
    (k,) liblinear's primal tolerances)."""
    columns = _columns(X)
    k = T.shape[1]
    W = np.zeros((X.shape[1], k))
    n_iter = np.zeros(k, dtype=np.int64)
    converged = np.zeros(k, dtype=bool)
    for j in range(k):
        W[:, j], n_iter[j], converged[j] = _l1_problem(
            columns,
            np.ascontiguousarray(T[:, j]),
            np.ascontiguousarray(C[:, j]),
            eps=float(eps[j]),
            max_iter=max_iter,
        )
    return Solution(W, n_iter, converged)
