"""L1, elastic-net and liblinear logistic regression: a batched proximal
Newton method, on the GPU or the CPU.

It serves ``LogisticRegression(solver="saga")`` (every ``l1_ratio``) and
``solver="liblinear"`` (L1 and L2, primal or ``dual=True``: one optimum).
The objective of a candidate is scikit-learn's, over the total sample
weight ``S`` (sample weights times class weights)::

    F(W) = (1/S) sum_i s_i loss_i(W) + (1 - rho)/(2 C S) ||W||^2
           + rho/(C S) ||W||_1

with the logistic loss (one row of ``W``) for two classes and the
multinomial loss (one row per class) otherwise. With ``fit_intercept`` the
data get a constant column: ``1`` and not penalised for saga; liblinear's
synthetic feature ``intercept_scaling``, penalised like any coefficient
(liblinear's own, different objective), its weight times
``intercept_scaling`` being the intercept.

Why proximal Newton (the method of liblinear's newGLMNET and glmnet): the
penalty is not smooth, so L-BFGS does not apply, and first-order methods
(proximal gradient, FISTA) converge at a rate set by the data's condition
number: on ill-conditioned data they need thousands of passes to agree with
scikit-learn to 1e-6. Newton's quadratic model converges in a few tens of
iterations whatever the conditioning, once the zeros are found, and each
iteration's data work is dense linear algebra that a GPU does well:

1. one pass for all candidates: decision values ``Z @ W'`` (one GEMM or
   sparse product), the pointwise terms, the gradient ``Z' R`` (one more);
2. each candidate's Hessian ``Z' D Z`` (``D`` its diagonal weights; one
   ``q x q`` block per pair of classes), by cuBLAS (cuSPARSE for CSR);
3. coordinate descent on the quadratic model plus the penalty, vectorised
   across the candidates (each coordinate update reads a column of its
   candidate's Hessian: no data pass), over each candidate's working set
   (coordinates that are non-zero or violate optimality; the others stay
   zero), a few sweeps to find the zeros; then the model's exact minimiser
   on that sign pattern (one batched symmetric solve: LU where Cholesky
   shows the matrix well conditioned, else a pseudo-inverse), moving to the
   first zero crossing and solving again where a sign would flip (an
   active-set refinement). Without an L1 term that is Newton's step, which
   serves newton-cg and newton-cholesky;
4. a backtracking (Armijo) line search on the true objective, each
   candidate with its own step (one data pass per trial for the candidates
   still searching);
5. with more than two classes and an L1 term, before each iteration, the
   exact minimiser of the penalty over a shift of each feature's
   coefficients that is the same for every class (:func:`_class_shifts`,
   on the host): the multinomial loss does not see that shift, so
   Newton's model has no curvature along it and cannot take it, yet the
   L1 optimum needs it (the signs of a feature's classes balance there).

Every candidate stops on its own criterion: the largest entry of the
minimum-norm subgradient of ``F`` at most ``tol`` (the gradient test of
gpuml's L-BFGS, with the subdifferential of the penalty: at a zero the
gradient's excess over the threshold). That bounds the distance to the
optimum, so the coefficients and their zeros agree with scikit-learn's
saga and liblinear run to a tight tolerance. ``max_iter`` bounds the Newton
iterations. All arithmetic is float64 (a float32 X is cast once): the
Hessian of float32 data in float32 would not resolve the optimum to
float32's own precision.

Costs: the Hessians are ``k`` arrays of ``(rows * q)^2`` float64 numbers,
so the method suits data of up to a few thousand features (times classes);
the coordinate sweeps are a Python loop whose every step is a few
vectorised operations over the candidates (on a GPU, launches of a few
small kernels: latency-bound for wide data, where a sweep kernel would
pay), and the sign-pattern solve is cubic in the number of coordinates
free for some candidate. A candidate's steps do not depend on the other
candidates of its batch (its own working set, sweeps, solve method and
step), so a batch gives each candidate its own fit's result up to the
rounding of the batched products.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import is_sparse, to_host
from gpuml._linalg import sparse_module

# Halvings of a line search before a candidate gives up.
_MAX_HALVINGS = 50
# Armijo's sufficient-decrease fraction.
_SIGMA = 1e-4
# Coordinate-descent sweeps on one quadratic model, at most.
_MAX_SWEEPS = 20


@dataclass
class ProximalResult:
    """Per candidate: coefficients (k, rows, p), intercepts (k, rows), both
    float64; the objective's last value; Newton iterations; whether the
    optimality test was met; whether a line search failed."""

    coef: object
    intercept: object
    value: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    failed: np.ndarray


def _augmented(X, column: float, xp: ModuleType):
    """``[X, column]`` in float64 (CSR stays CSR)."""
    n = X.shape[0]
    if is_sparse(X):
        sparse = sparse_module(xp)
        X = X.astype(np.float64)
        if column is None:
            return X.tocsr()
        constant = sparse.csr_matrix(xp.full((n, 1), float(column)))
        return sparse.hstack([X, constant], format="csr")
    X = X.astype(np.float64)
    if column is None:
        return X
    return xp.concatenate([X, xp.full((n, 1), float(column))], axis=1)


class _Problem:
    """The smooth part of ``k`` candidates' objectives, its derivatives, and
    the penalty weights (see the module docstring)."""

    def __init__(self, Z, y_index, n_classes, weights, l1, l2, mask, xp):
        self.Z, self.xp = Z, xp
        self.ZT = Z.T.tocsr() if is_sparse(Z) else Z.T
        n, self.q = Z.shape
        self.rows = 1 if n_classes == 2 else n_classes
        self.weights = xp.ones(n) if weights is None else weights
        self.total = float(to_host(self.weights.sum()))
        if self.total == 0:
            raise ZeroDivisionError("float division by zero")
        if self.rows == 1:
            self.target = y_index.astype(np.float64)[:, None]  # (n, 1)
        else:
            self.target = xp.zeros((n, 1, n_classes))
            self.target[xp.arange(n), 0, y_index] = 1.0
        self.l1, self.l2 = l1, l2  # (k,)
        self.mask = mask  # (rows * q,) 1 where penalised

    def _raw(self, W):
        """Decision values (n, k, rows) of the rows ``W`` (k, rows * q)."""
        k = W.shape[0]
        raw = self.Z @ W.reshape(k * self.rows, self.q).T
        return self.xp.asarray(raw).reshape(self.Z.shape[0], k, self.rows)

    def _terms(self, W, derivatives: bool):
        """Weighted losses (n, k); with ``derivatives`` the residuals
        (n, k, rows) and probabilities."""
        xp = self.xp
        z = self._raw(W)
        w = self.weights[:, None]
        if self.rows == 1:
            z = z[:, :, 0]
            y = self.target
            loss = (xp.logaddexp(0.0, z) - y * z) * w
            if not derivatives:
                return loss, None, None
            e = xp.exp(-xp.abs(z))
            p = xp.where(z >= 0, 1.0, e) / (1.0 + e)
            return loss, ((p - y) * w)[:, :, None], p[:, :, None]
        top = z.max(axis=2, keepdims=True)
        e = xp.exp(z - top)
        total = e.sum(axis=2, keepdims=True)
        lse = (top + xp.log(total))[:, :, 0]
        loss = (lse - (z * self.target).sum(axis=2)) * w
        if not derivatives:
            return loss, None, None
        P = e / total
        return loss, (P - self.target) * w[:, :, None], P

    def penalty(self, W, idx):
        """``(smooth penalty, L1 penalty)`` (k,) of the rows ``W`` of the
        candidates ``idx``."""
        masked = W * self.mask
        return (
            0.5 * self.l2[idx] * (masked * W).sum(axis=1),
            self.l1[idx] * self.xp.abs(masked).sum(axis=1),
        )

    def objective(self, W, idx):
        """``F`` (k,) at the rows ``W`` of the candidates ``idx``."""
        loss = self._terms(W, False)[0]
        smooth, l1 = self.penalty(W, idx)
        return loss.sum(axis=0) / self.total + smooth + l1

    def derivatives(self, W, idx):
        """``(F, gradient of the smooth part (k, D), Hessians (k, D, D))``."""
        xp = self.xp
        k, rows, q = W.shape[0], self.rows, self.q
        loss, residual, P = self._terms(W, True)
        n = residual.shape[0]
        grad = self.ZT @ residual.reshape(n, k * rows)  # (q, k * rows)
        grad = xp.asarray(grad).T.reshape(k, rows * q) / self.total
        grad += self.l2[idx, None] * self.mask * W
        smooth, l1 = self.penalty(W, idx)
        value = loss.sum(axis=0) / self.total + smooth + l1
        H = xp.empty((k, rows * q, rows * q))
        w = self.weights[:, None]
        for a in range(rows):
            for b in range(a, rows):
                if rows == 1:
                    d = P[:, :, 0] * (1.0 - P[:, :, 0]) * w
                elif a == b:
                    d = P[:, :, a] * (1.0 - P[:, :, a]) * w
                else:
                    d = -P[:, :, a] * P[:, :, b] * w
                for c in range(k):
                    block = self._weighted_gram(d[:, c]) / self.total
                    H[c, a * q : (a + 1) * q, b * q : (b + 1) * q] = block
                    if a != b:
                        H[c, b * q : (b + 1) * q, a * q : (a + 1) * q] = block.T
        diagonal = xp.arange(rows * q)
        H[:, diagonal, diagonal] += self.l2[idx, None] * self.mask
        return value, grad, H

    def _weighted_gram(self, d):
        """``Z' diag(d) Z`` (q, q), dense."""
        if is_sparse(self.Z):
            scaled = sparse_module(self.xp).diags(d) @ self.Z
            return (self.ZT @ scaled).toarray()
        return self.ZT @ (self.Z * d[:, None])


def _subgradient(W, grad, thresholds, xp):
    """The minimum-norm subgradient of ``F`` at ``W`` (``grad``: the smooth
    part's gradient; ``thresholds``: the L1 weight of each coefficient)."""
    shrunk = xp.sign(grad) * xp.maximum(xp.abs(grad) - thresholds, 0.0)
    return xp.where(W != 0, grad + thresholds * xp.sign(W), shrunk)


def _coordinate_descent(W, grad, H, thresholds, allowed, targets, xp):
    """Minimise ``grad'(V - W) + (V - W)'H(V - W)/2 + sum thresholds |V|``
    by cyclic coordinate descent, every candidate (row) at once, each over
    its own working set (``allowed``, (k, D) bool: the other coordinates
    keep their values); a candidate stops when its model's violation is at
    most its ``targets`` entry, all after :data:`_MAX_SWEEPS` sweeps. A
    candidate's updates do not depend on the others'. Returns ``V``."""
    if not bool(to_host((thresholds > 0).any())):  # no L1: Newton's step
        return _polish(W, W, grad, H, thresholds, allowed, xp, rounds=1)
    V = W.copy()
    HD = xp.zeros_like(W)  # H (V - W), kept up to date
    diagonal = xp.arange(H.shape[1])
    hdiag = H[:, diagonal, diagonal]
    inverse = xp.where(hdiag > 0, 1.0 / xp.where(hdiag > 0, hdiag, 1.0), 0.0)
    shrink = thresholds * inverse
    columns = xp.ascontiguousarray(H.transpose(2, 0, 1))  # (D, k, D)
    work = np.flatnonzero(to_host(allowed.any(axis=0))).tolist()
    # a candidate without an L1 term takes Newton's step (the polish) alone
    running = to_host((thresholds > 0).any(axis=1))
    for _ in range(_MAX_SWEEPS):
        if not running.any():
            break
        move = allowed & xp.asarray(running)[:, None]
        for j in work:
            u = V[:, j].copy()  # a view otherwise, overwritten below
            z = u - (grad[:, j] + HD[:, j]) * inverse[:, j]
            new = xp.sign(z) * xp.maximum(xp.abs(z) - shrink[:, j], 0.0)
            new = xp.where(move[:, j], new, u)
            V[:, j] = new
            HD += (new - u)[:, None] * columns[j]
        model = _subgradient(V, grad + HD, thresholds, xp)
        violation = to_host(xp.where(allowed, xp.abs(model), 0.0).max(axis=1))
        running &= violation > targets
        if not running.any():
            break
    return _polish(W, V, grad, H, thresholds, allowed, xp)


def _model(W, V, grad, H, thresholds, xp):
    """The quadratic model plus penalty (k,) at ``V`` (from ``W``)."""
    step = V - W
    curvature = (xp.matmul(H, step[:, :, None])[:, :, 0] * step).sum(axis=1)
    return (
        (grad * step).sum(axis=1)
        + 0.5 * curvature
        + (thresholds * xp.abs(V)).sum(axis=1)
    )


def _symmetric_solve(A, b, xp):
    """``A x = b`` for a batch of symmetric positive semi-definite ``A``
    with unit diagonals: by LU for each matrix that a Cholesky
    factorisation shows well conditioned (pivots above 1e-6), else by a
    pseudo-inverse through the eigendecomposition (a multinomial loss's
    flat directions that no penalty removes). Each matrix's method is its
    own, whatever the others of the batch."""
    diagonal = xp.arange(A.shape[1])
    try:
        pivots = xp.linalg.cholesky(A)[:, diagonal, diagonal]  # NaN on a GPU
        well = to_host(xp.isfinite(pivots).all(axis=1) & (pivots.min(axis=1) > 1e-6))
    except np.linalg.LinAlgError:  # NumPy: one failure fails the batch
        well = np.array([_positive_definite(matrix) for matrix in A])
    solved = xp.empty_like(b)
    good = np.flatnonzero(well)
    if good.size:
        index = xp.asarray(good)
        solved[index] = xp.linalg.solve(A[index], b[index])
    bad = np.flatnonzero(~well)
    if bad.size:
        index = xp.asarray(bad)
        values, vectors = xp.linalg.eigh(A[index])
        cut = 1e-12 * values.max(axis=1, keepdims=True)
        inverse = xp.where(values > cut, 1.0 / xp.where(values > cut, values, 1.0), 0.0)
        solved[index] = xp.matmul(
            vectors,
            inverse[:, :, None] * xp.matmul(vectors.transpose(0, 2, 1), b[index]),
        )
    return solved


def _positive_definite(A) -> bool:
    """:func:`_symmetric_solve`'s test for one host matrix."""
    try:
        return bool(np.diagonal(np.linalg.cholesky(A)).min() > 1e-6)
    except np.linalg.LinAlgError:
        return False


def _polish(W, V, grad, H, thresholds, allowed, xp, rounds: int = 8):
    """Coordinate descent's ``V``, improved by the exact minimiser of the
    model on its sign pattern (an active-set, "feature-sign" refinement).

    On the non-zero (and unpenalised) coordinates ``F`` the model's
    minimiser on the pattern solves ``H_FF s_F = -(grad + thresholds
    sign(V) + H s)_F`` with the other coordinates of the step ``s`` fixed:
    one batched symmetric solve (a pseudo-inverse through the
    eigendecomposition of the diagonally scaled matrix, for the multinomial
    loss's singular directions). Where that flips signs the point moves
    towards it up to the first coefficient that reaches zero, which leaves
    ``F`` (the model is convex: it decreases along the way), and the solve
    is repeated, at most ``rounds`` times. Coordinate descent converges
    slowly on ill-conditioned Hessians (nearly collinear columns); this
    makes the step Newton's once the zeros are found, whatever the
    conditioning. A candidate keeps its coordinate-descent ``V`` where
    this does not lower the model.
    """
    start = V
    for _ in range(rounds):
        free = allowed & ((V != 0) | (thresholds == 0))
        M = free.astype(np.float64)
        fixed = (V - W) * (1.0 - M)
        rhs = -(
            grad + thresholds * xp.sign(V) + xp.matmul(H, fixed[:, :, None])[:, :, 0]
        )
        # solved on the coordinates free for some candidate (an L1 fit's
        # few non-zeros), each candidate's others masked to the identity
        cols = xp.asarray(np.flatnonzero(to_host(free.any(axis=0))))
        Mc = M[:, cols]
        A = H[:, cols][:, :, cols] * Mc[:, :, None] * Mc[:, None, :]
        diagonal = xp.arange(cols.shape[0])
        A[:, diagonal, diagonal] += 1.0 - Mc
        scale = 1.0 / xp.sqrt(xp.maximum(A[:, diagonal, diagonal], 1e-300))
        A = A * scale[:, :, None] * scale[:, None, :]
        b = (rhs[:, cols] * Mc * scale)[:, :, None]
        solved = _symmetric_solve(A, b, xp)
        target = W + fixed
        target[:, cols] += Mc * scale * solved[:, :, 0]
        # the first zero crossing of a penalised coefficient on the way
        crosses = free & (thresholds > 0) & (xp.sign(target) != xp.sign(V))
        denominator = xp.where(crosses, V - target, 1.0)
        at = xp.where(crosses, V / denominator, 1.0)
        first = at.min(axis=1, keepdims=True)
        moved = V + first * (target - V)
        moved = xp.where(crosses & (at <= first), 0.0, moved)
        V = moved
        if not bool(to_host(crosses.any())):
            break
    better = _model(W, V, grad, H, thresholds, xp) <= _model(
        W, start, grad, H, thresholds, xp
    )
    return xp.where(better[:, None], V, start)


def _class_shifts(W, l1, l2, penalised):
    """The shift ``s`` (k, q) of each penalised feature's coefficients over
    the classes that minimises the elastic-net penalty of ``W + s`` (host
    arrays; ``W`` (k, rows, q), ``l1``/``l2`` (k,), ``penalised`` (q,)
    bool), the one nearest 0 where several do.

    The multinomial loss is blind to such a shift (every row's decision
    values move together), so it lowers the objective by the penalty alone;
    Newton's model cannot take it where the classes' coefficients of a
    feature all differ from zero (its curvature there is rounding, which
    the solve cuts): at the optimum of an L1 penalty the signs of a
    feature's coefficients over the classes balance, so without the shift
    a fit can stop short of the zero it needs (a ConvergenceWarning on
    features of large scale). The penalty along ``s`` is convex and
    piecewise quadratic: its minimiser is a breakpoint (``-W``) or the
    stationary point of a piece, all tried here."""
    k, rows, q = W.shape
    V = W.transpose(0, 2, 1)  # (k, q, rows)
    a, b = l1[:, None, None], l2[:, None, None]
    points = [np.zeros((k, q, 1)), -V]
    if (l2 > 0).any():
        below = np.arange(rows + 1)  # breakpoints below the stationary point
        safe = np.where(b > 0, b, 1.0)
        roots = -(a * (2 * below - rows) + b * V.sum(axis=2, keepdims=True))
        points.append(np.where(b > 0, roots / (rows * safe), 0.0))
    P = np.concatenate(points, axis=2)  # (k, q, m) trial shifts
    moved = V[:, :, None, :] + P[:, :, :, None]
    phi = (a[..., None] * np.abs(moved) + 0.5 * b[..., None] * moved * moved).sum(
        axis=3
    )
    best = phi.min(axis=2, keepdims=True)
    near = phi <= best + 1e-13 * np.abs(best)  # rounding: take the nearest 0
    choice = np.where(near, np.abs(P), np.inf).argmin(axis=2)
    shifts = np.take_along_axis(P, choice[:, :, None], axis=2)[:, :, 0]
    return np.where(penalised[None, :] & (l1[:, None] > 0), shifts, 0.0)


def _check_magnitude(Z, total: float, xp: ModuleType) -> None:
    """A clear error where the data's magnitude would overflow the
    second-order model: its curvature sums ``total`` weights times squared
    values, beyond float64's range from values near 1e154 (a factorisation
    then fails with LinAlgError, after NumPy's overflow warnings)."""
    values = Z.data if is_sparse(Z) else Z
    largest = float(xp.abs(values).max()) if values.size else 0.0
    if largest * largest * max(total, 1.0) <= np.finfo(np.float64).max:
        return
    raise ValueError(
        "The L1/elastic-net solver's second-order model overflows: the "
        f"features' values (up to {largest:.3g}) squared exceed float64's "
        "range. Scale the features first (for example with StandardScaler)."
    )


def proximal_newton(
    X,
    y_index,
    n_classes: int,
    weights,
    C,
    l1_ratio,
    *,
    fit_intercept: bool,
    intercept_column: float,
    penalize_intercept: bool,
    tol: float,
    max_iter: int,
    xp: ModuleType,
    x0=None,
) -> ProximalResult:
    """Fit ``k`` candidates (``C`` and ``l1_ratio``: host float sequences)
    on the same data; see the module docstring.

    ``weights``: (n,) float64 sample weights with class weights folded in,
    or None; ``intercept_column``: the value of the intercept's synthetic
    feature; ``x0``: (k, rows, p + fit_intercept) float64 starting rows in
    the synthetic feature's scale, or None for zeros.
    """
    Z = _augmented(X, intercept_column if fit_intercept else None, xp)
    q = Z.shape[1]
    rows = 1 if n_classes == 2 else n_classes
    C = np.asarray(C, dtype=np.float64)
    ratio = np.asarray(l1_ratio, dtype=np.float64)
    k = C.shape[0]
    mask = np.ones(q)
    if fit_intercept and not penalize_intercept:
        mask[-1] = 0.0
    penalised = mask > 0
    mask = xp.asarray(np.tile(mask, rows))
    # the penalties need the total weight, which the problem computes
    problem = _Problem(Z, y_index, n_classes, weights, None, None, mask, xp)
    _check_magnitude(Z, float(problem.total), xp)
    inverse = np.where(np.isinf(C), 0.0, 1.0 / C) / problem.total
    l1_host, l2_host = inverse * ratio, inverse * (1.0 - ratio)
    problem.l1, problem.l2 = xp.asarray(l1_host), xp.asarray(l2_host)
    shifting = rows > 1 and bool((l1_host > 0).any())
    D = rows * q
    W = xp.zeros((k, D)) if x0 is None else xp.asarray(x0).reshape(k, D).copy()
    n_iter = np.zeros(k, dtype=np.int32)
    converged = np.zeros(k, dtype=bool)
    failed = np.zeros(k, dtype=bool)
    values = np.full(k, np.nan)
    active = np.arange(k)
    thresholds_all = problem.l1[:, None] * mask[None, :]
    for iteration in range(max_iter + 1):
        if active.size == 0:
            break
        idx = xp.asarray(active)
        Wa = W[idx]
        if shifting:  # the loss's flat directions, where Newton's step is blind
            host = np.asarray(to_host(Wa)).reshape(active.size, rows, q)
            shifts = _class_shifts(host, l1_host[active], l2_host[active], penalised)
            if shifts.any():
                Wa = xp.asarray((host + shifts[:, None, :]).reshape(active.size, D))
                W[idx] = Wa
        value, grad, H = problem.derivatives(Wa, idx)
        thresholds = thresholds_all[idx]
        violation = to_host(xp.abs(_subgradient(Wa, grad, thresholds, xp)).max(axis=1))
        values[active] = to_host(value)
        done = violation <= tol
        converged[active[done]] = True
        if iteration == max_iter:
            break
        keep = ~done
        if not keep.any():
            break
        active, violation = active[keep], violation[keep]
        keep_d = xp.asarray(np.flatnonzero(keep))
        Wa, grad, H = Wa[keep_d], grad[keep_d], H[keep_d]
        value, thresholds, idx = value[keep_d], thresholds[keep_d], idx[keep_d]
        n_iter[active] += 1
        # each candidate's working set: non-zero, unpenalised or (nearly)
        # violating optimality; the others stay zero this iteration
        near = (Wa != 0) | (xp.abs(grad) >= 0.9 * thresholds)
        targets = np.maximum(0.1 * tol, 0.1 * np.minimum(violation, 1.0) ** 1.5)
        V = _coordinate_descent(Wa, grad, H, thresholds, near, targets, xp)
        step = V - Wa
        l1_now = problem.penalty(Wa, idx)[1]
        decrease = (grad * step).sum(axis=1) + problem.penalty(V, idx)[1] - l1_now
        t = np.ones(active.size)
        searching = np.arange(active.size)
        accepted = np.zeros(active.size, dtype=bool)
        for _ in range(_MAX_HALVINGS):
            s = xp.asarray(searching)
            ts = xp.asarray(t[searching])[:, None]
            trial = Wa[s] + ts * step[s]
            f_trial = problem.objective(trial, idx[s])
            bound = value[s] + _SIGMA * ts[:, 0] * decrease[s]
            # rounding: the values of a converging fit differ in their last
            # digits only
            slack = 1e-12 * xp.abs(value[s])
            ok = to_host(f_trial <= bound + slack)
            W[xp.asarray(active[searching[ok]])] = trial[xp.asarray(np.flatnonzero(ok))]
            accepted[searching[ok]] = True
            searching = searching[~ok]
            if searching.size == 0:
                break
            t[searching] *= 0.5
        if searching.size:  # no decrease found: those stop
            failed[active[searching]] = True
            active = active[accepted]
    W = W.reshape(k, rows, q)
    if rows > 1:
        # without an L1 term the multinomial loss is blind to a shift of a
        # feature's coefficients over the classes: the L2 optimum has zero
        # sums, and an unpenalised fit takes that one (scikit-learn's)
        smooth = xp.asarray(ratio == 0)[:, None, None] & (mask.reshape(rows, q) > 0)
        W = xp.where(smooth, W - W.mean(axis=1, keepdims=True), W)
    if fit_intercept:
        coef, intercept = W[:, :, :-1], W[:, :, -1] * intercept_column
        if rows > 1 and not penalize_intercept:
            # the multinomial loss is blind to a shift of all intercepts:
            # the one of zero sum (the optimum a start at zero keeps)
            intercept = intercept - intercept.mean(axis=1, keepdims=True)
    else:
        coef, intercept = W, xp.zeros((k, rows))
    return ProximalResult(coef, intercept, values, n_iter, converged, failed)
