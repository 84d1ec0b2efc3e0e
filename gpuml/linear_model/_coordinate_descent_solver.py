"""The elastic net's batched coordinate descent, on the GPU or the CPU.

One solver, :func:`enet_coordinate_descent_batch`, fits a *batch* of
elastic-net problems that share their data: many ``(alpha, l1_ratio)``
candidates, for one target or several. Column ``c`` of the batch has its own
coefficients, penalties and target; every candidate's arithmetic is that of
scikit-learn's coordinate descent on its own problem
(``sklearn/linear_model/_cd_fast.pyx``): the same cyclic updates, the same
gap-safe screening, the same duality gap and stopping rule. So a batch of
candidates gives what fitting each on its own gives, and a single fit is a
batch of one.

The data enter through one of three *operators*, which hold what the updates
read and keep up to date:

- :class:`_GramOps` (dense X with ``n_samples >= n_features``, or a given
  Gram matrix): ``G = Xᵀ X`` and ``Xᵀ y`` are formed once (centred and
  weighted); a coordinate update reads one row of ``G @ W`` and adds a rank-1
  term to it, ``O(n_features * k)`` for ``k`` candidates.
- :class:`_DenseOps` (dense, wide X): the residuals ``R = y - X W`` of every
  candidate, ``O(n_samples * k)`` per update.
- :class:`_SparseOps` (sparse X, never densified nor centred): weighted
  residuals as scikit-learn's sparse solver keeps them, the centring applied
  implicitly.

The operators are written on the array namespace ``xp`` (NumPy or CuPy).
Per sweep the coordinates are visited in a Python loop, each a few
vectorised operations across the candidates (no transfer to the host);
candidates that have converged leave the batch at the next gap check, the
only place where the host reads device values. On the GPU a cyclic sweep on
a Gram matrix or on dense residuals is instead one launch of a kernel of
``gpuml/_cuda/enet.cu`` (a block per candidate, the same updates).

``selection="random"`` draws coordinates with scikit-learn's own generator
(its xorshift, seeded as it seeds it), so random fits match scikit-learn's
too; candidates then run one after another, each as a batch of one.

On the CPU (NumPy) the batch's problems are instead solved one after
another by scikit-learn's compiled solver (``COMPILED_CPU``): each
operator hands it what scikit-learn's fit would (``solve_one``: the Gram
matrix and its ``Xᵀy`` column, the centred, weighted X in Fortran order, or
the CSC data with its means and weights), so the data's preparation, the
Gram-or-residuals choice and the warm starts stay gpuml's, and the sweeps,
gap, ``n_iter`` and ConvergenceWarning are scikit-learn's. The Python loop
of sweeps stays the GPU's algorithm (with sparse X there, and around the
sweep kernels otherwise) and the tests' oracle. On the GPU,
``selection="random"`` and sparse X's residual form have no sweep kernel:
their problems go to the compiled solver too, on a host copy of the
operator (``host_twin``, made once per operator) rather than through a loop
of a few kernel launches per coordinate (see :func:`_compiled_operator`).
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from gpuml._array import namespace_of, to_host, to_namespace
from gpuml._sklearn_compat import (
    enet_cd_dense,
    enet_cd_gram,
    enet_cd_sparse,
    fixed_seed,
)
from gpuml._validation import FLOAT_DTYPES

# scikit-learn's generator for selection="random" (sklearn/utils/_random.pxd).
_RAND_R_MAX = 2147483647

MESSAGE_CONV = (
    "Objective did not converge. You might want to increase "
    "the number of iterations, check the scale of the "
    "features or consider increasing regularisation."
)
MESSAGE_RIDGE = (
    "Linear regression models with a zero l1 penalization "
    "strength are more efficiently fitted using one of the "
    "solvers implemented in "
    "sklearn.linear_model.Ridge/RidgeCV instead."
)

# --------------------------------------------------------------------------
# Operators: what a coordinate update reads and keeps up to date.
# --------------------------------------------------------------------------


def xp_contiguous(array):
    """``array`` in C order (itself when it is)."""
    return namespace_of(array).ascontiguousarray(array)


def gram_norms(ops, W):
    """``(||R||², Rᵀy)`` per candidate of a Gram operator (its ``B = Xᵀy``,
    ``Qw = G W`` and ``y_norm2``), without forming the residuals ``R``."""
    qw = (W * ops.B).sum(axis=0)
    return ops.y_norm2 + (W * ops.Qw).sum(axis=0) - 2.0 * qw, ops.y_norm2 - qw


class _GramOps:
    """``G = Xᵀ X`` (p, p) and ``B = Xᵀ y`` per candidate (p, k); the state
    is ``Qw = G @ W``. The residual's norms come from ``G`` (as
    scikit-learn's ``enet_coordinate_descent_gram``). ``Y`` (n, k), the
    centred, weighted targets, is what scikit-learn's compiled solver reads
    ``||y||²`` from (None: the batched sweeps only)."""

    gram = True

    def __init__(self, G, B, y_norm2, xp: ModuleType, norm2=None, Y=None):
        self.G, self.B = xp.ascontiguousarray(G), xp.ascontiguousarray(B)
        self.y_norm2, self.xp, self.Y = y_norm2, xp, Y
        if norm2 is None:
            norm2 = xp.ascontiguousarray(xp.diagonal(G))
        self.norm2 = norm2

    @property
    def compiled(self) -> bool:
        return self.Y is not None

    def host_twin(self):
        """A NumPy copy for the compiled solver; without the targets (the
        GPU's Gram form keeps none), a stand-in whose squared norm is each
        target's, all that solver reads of them."""
        G, B, y_norm2, norm2 = (
            np.asarray(to_host(a)) for a in (self.G, self.B, self.y_norm2, self.norm2)
        )
        Y = self.Y
        Y = np.sqrt(np.maximum(y_norm2, 0))[None, :] if Y is None else to_host(Y)
        return _GramOps(G, B, y_norm2, np, norm2=norm2, Y=np.asarray(Y))

    def solve_one(self, c, w, l1, l2, *, max_iter, tol, rng, random, positive):
        """Candidate ``c`` by scikit-learn's compiled Gram solver, from ``w``."""
        q, y = (np.ascontiguousarray(a[:, c]) for a in (self.B, self.Y))
        return enet_cd_gram(
            w, l1, l2, self.G, q, y, max_iter, tol, rng, random, positive
        )

    def start(self, W):
        self.Qw = self.G @ W

    def grad(self, j):
        return self.B[j] - self.Qw[j]

    def step(self, j, delta):
        self.Qw += self.G[j][:, None] * delta[None, :]

    def bulk(self, Delta):
        self.Qw += self.G @ Delta

    def xtr(self, W):
        return self.B - self.Qw

    def norms(self, W):
        return gram_norms(self, W)

    def take(self, keep):
        out = _GramOps.__new__(_GramOps)
        out.G, out.xp, out.norm2 = self.G, self.xp, self.norm2
        out.B, out.y_norm2 = xp_contiguous(self.B[:, keep]), self.y_norm2[keep]
        out.Y = None if self.Y is None else self.Y[:, keep]
        if hasattr(self, "Qw"):
            out.Qw = xp_contiguous(self.Qw[:, keep])
        return out


class _DenseOps:
    """Centred, weighted dense X (n, p); the state is the residuals ``R``
    (n, k) of every candidate (as ``enet_coordinate_descent``)."""

    gram = False

    def __init__(self, X, Y, xp: ModuleType):
        self.X, self.Y, self.xp = X, Y, xp
        self.XT = xp.ascontiguousarray(X.T)  # a contiguous column per feature
        self.norm2 = (X * X).sum(axis=0)
        self.y_norm2 = (Y * Y).sum(axis=0)

    def start(self, W):
        self.R = self.Y - self.X @ W

    def grad(self, j):
        return self.XT[j] @ self.R

    def step(self, j, delta):
        self.R -= self.XT[j][:, None] * delta[None, :]

    def bulk(self, Delta):
        self.R -= self.X @ Delta

    def xtr(self, W):
        return self.X.T @ self.R

    def norms(self, W):
        return (self.R * self.R).sum(axis=0), (self.R * self.Y).sum(axis=0)

    compiled = True

    def host_twin(self):
        """A NumPy copy for the compiled solver."""
        return _DenseOps(np.asarray(to_host(self.X)), np.asarray(to_host(self.Y)), np)

    def solve_one(self, c, w, l1, l2, *, max_iter, tol, rng, random, positive):
        """Candidate ``c`` by scikit-learn's compiled dense solver (X in
        Fortran order: ``XT``'s transpose), from ``w``."""
        y = np.ascontiguousarray(self.Y[:, c])
        return enet_cd_dense(
            w, l1, l2, self.XT.T, y, max_iter, tol, rng, random, positive
        )

    def take(self, keep):
        out = _DenseOps.__new__(_DenseOps)
        out.X, out.XT, out.xp, out.norm2 = self.X, self.XT, self.xp, self.norm2
        out.Y, out.y_norm2 = self.Y[:, keep], self.y_norm2[keep]
        if hasattr(self, "R"):
            out.R = self.R[:, keep]
        return out


class _SparseOps:
    """Raw CSC X with its (weighted) column means and the weights, as
    scikit-learn's ``sparse_enet_coordinate_descent``: the state is the
    weighted residuals ``R = sw * (y - (X - mean) W)``; ``Y`` holds the
    centred, unweighted targets (n, k)."""

    gram = False

    def __init__(self, X, mean, sw, Y, xp: ModuleType):
        self.X, self.mean, self.sw, self.Y, self.xp = X, mean, sw, Y, xp
        self.center = bool((to_host(mean) != 0).any())
        self.indptr = np.asarray(to_host(X.indptr), dtype=np.int64)
        self.columns = {}
        w = xp.ones(X.shape[0], dtype=X.dtype) if sw is None else sw
        squares = X.power(2).T @ w
        sums = X.T @ w
        self.norm2 = xp.asarray(squares - 2 * mean * sums + mean * mean * w.sum())
        self.Yw = Y if sw is None else Y * sw[:, None]
        self.y_norm2 = (Y * self.Yw).sum(axis=0)

    def _column(self, j):
        """``(rows, values, weighted values)`` of column ``j`` (views, made
        once per column)."""
        cached = self.columns.get(j)
        if cached is None:
            lo, hi = self.indptr[j], self.indptr[j + 1]
            rows, values = self.X.indices[lo:hi], self.X.data[lo:hi]
            weighted = values if self.sw is None else values * self.sw[rows]
            cached = self.columns[j] = (rows, values, weighted)
        return cached

    def _matvec(self, V):
        """``sw * ((X - mean) @ V)`` for V of shape (p, k)."""
        out = self.X @ V
        if self.center:
            out = out - (self.mean @ V)[None, :]
        return out if self.sw is None else out * self.sw[:, None]

    def start(self, W):
        self.R = self.Yw - self._matvec(W)
        self.R_sum = self.R.sum(axis=0)

    def grad(self, j):
        rows, values, _ = self._column(j)
        out = values @ self.R[rows]
        if self.center:
            out = out - self.R_sum * self.mean[j]
        return out

    def step(self, j, delta):
        rows, _, weighted = self._column(j)
        self.R[rows] -= weighted[:, None] * delta[None, :]
        if self.center:
            if self.sw is None:
                self.R += self.mean[j] * delta[None, :]
            else:
                self.R += (self.mean[j] * self.sw)[:, None] * delta[None, :]

    def bulk(self, Delta):
        self.R -= self._matvec(Delta)

    def xtr(self, W):
        out = self.X.T @ self.R
        if self.center:
            out = out - self.mean[:, None] * self.R_sum[None, :]
        return self.xp.asarray(out)

    def norms(self, W):
        xp = self.xp
        if self.sw is None:
            r_norm2 = (self.R * self.R).sum(axis=0)
        else:
            nonzero = self.sw != 0
            safe = xp.where(nonzero, self.sw, 1)
            r_norm2 = xp.where(nonzero[:, None], self.R**2 / safe[:, None], 0).sum(0)
        return r_norm2, (self.R * self.Y).sum(axis=0)

    def host_twin(self):
        """A NumPy/SciPy copy for the compiled solver."""
        host = (
            None if a is None else np.asarray(to_host(a))
            for a in (self.mean, self.sw, self.Y)
        )
        return _SparseOps(to_namespace(self.X, np), *host, np)

    @property
    def compiled(self) -> bool:
        """Whether scikit-learn's compiled sparse solver can read X (its
        indices as int32)."""
        return max(self.X.nnz, self.X.shape[0]) < np.iinfo(np.int32).max

    def solve_one(self, c, w, l1, l2, *, max_iter, tol, rng, random, positive):
        """Candidate ``c`` by scikit-learn's compiled sparse solver, from
        ``w``."""
        X = self.X
        if X.indices.dtype != np.int32 or X.indptr.dtype != np.int32:
            # (once per operator: the paths solve many problems on it)
            X = self.X = X.copy()
            X.indices, X.indptr = (a.astype(np.int32) for a in (X.indices, X.indptr))
        y = np.ascontiguousarray(self.Y[:, c])
        return enet_cd_sparse(
            w, l1, l2, X.data, X.indices, X.indptr, y, self.sw, self.mean,
            max_iter, tol, rng, random, positive,
        )  # fmt: skip

    def take(self, keep):
        out = _SparseOps.__new__(_SparseOps)
        for name in ("X", "mean", "sw", "xp", "center", "indptr", "norm2", "columns"):
            setattr(out, name, getattr(self, name))
        out.Y, out.Yw = self.Y[:, keep], self.Yw[:, keep]
        out.y_norm2 = self.y_norm2[keep]
        if hasattr(self, "R"):
            out.R, out.R_sum = self.R[:, keep], self.R_sum[keep]
        return out


# --------------------------------------------------------------------------
# The batched solver
# --------------------------------------------------------------------------


def _duality_gap(ops, W, l1, l2, positive: bool, xp: ModuleType):
    """scikit-learn's duality gap per candidate, with ``XtA`` and its dual
    norm (formulation A for ``l1 > 0``, B for ``l1 == 0 < l2``, the squared
    gradient for ordinary least squares)."""
    r_norm2, ry = ops.norms(W)
    w_l2 = (W * W).sum(axis=0)
    XtR = ops.xtr(W)
    XtA = XtR - l2[None, :] * W
    # formulation A (l1 > 0)
    dual_norm = XtA.max(axis=0) if positive else xp.abs(XtA).max(axis=0)
    w_l1 = xp.abs(W).sum(axis=0)
    quad = r_norm2 + l2 * w_l2
    primal = 0.5 * quad + l1 * w_l1
    scale = xp.where(dual_norm > l1, l1 / xp.where(dual_norm > l1, dual_norm, 1), 1)
    gap_a = primal - (-0.5 * scale**2 * quad + scale * ry)
    # l1 == 0: XtA = XᵀR, its squared norm
    squared = (XtR * XtR).sum(axis=0)
    safe_l2 = xp.where(l2 > 0, l2, 1)
    gap_b = r_norm2 + 0.5 * l2 * w_l2 - ry + squared / (2 * safe_l2)
    no_l1 = l1 == 0
    gap = xp.where(no_l1, xp.where(l2 > 0, gap_b, squared), gap_a)
    XtA = xp.where(no_l1[None, :], XtR, XtA)
    dual_norm = xp.where(no_l1, squared, dual_norm)
    return gap, XtA, dual_norm


def _screen(ops, W, XtA, dual_norm, gap, l1, l2, candidates, excluded, xp):
    """Gap-safe screening (scikit-learn's rule, Eq. 11 of arXiv:1802.07481)
    for the candidates flagged in ``candidates``: features proved zero at
    the optimum are set to zero (the state updated) and excluded. Returns
    ``(W, excluded)``."""
    safe_l1 = xp.where(l1 > 0, l1, 1)
    norm2 = _per_candidate(ops.norm2)
    # columns of zeros (with l2 == 0) and l1 == 0 candidates, which are not
    # screened, are kept away from divisions by zero
    bound = xp.maximum(l1, dual_norm)
    theta = XtA / xp.where(bound > 0, bound, 1)[None, :]
    root = xp.sqrt(norm2 + l2[None, :])
    d = (1 - xp.abs(theta)) / xp.where(root > 0, root, 1)
    radius = xp.sqrt(2 * xp.abs(gap)) / safe_l1
    drop = (d > radius[None, :]) | (norm2 == 0)
    newly = drop & ~excluded & (candidates & (l1 > 0))[None, :]
    Delta = xp.where(newly, -W, 0)
    ops.bulk(Delta)
    return W + Delta, excluded | newly


def _per_candidate(norm2):
    """The squared column norms as (p, 1) or, for an operator whose
    candidates have data of their own (cross-validation's folds), (p, k)."""
    return norm2[:, None] if norm2.ndim == 1 else norm2


def _xorshift(state: int) -> int:
    """scikit-learn's ``our_rand_r``: the next state (the draw is the state
    modulo 2**31)."""
    if state == 0:
        state = 1
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def enet_coordinate_descent_batch(
    ops,
    W,
    l1,
    l2,
    *,
    max_iter: int,
    tol: float,
    positive: bool = False,
    seeds=None,
    xp: ModuleType,
):
    """Coordinate descent for a batch of elastic nets sharing their data.

    Minimises, for each candidate ``c`` (a column),
    ``0.5 ||y_c - X w_c||² + l1[c] ||w_c||_1 + 0.5 l2[c] ||w_c||²`` (the
    penalties in scikit-learn's solver units: ``alpha * l1_ratio *
    n_samples`` and ``alpha * (1 - l1_ratio) * n_samples``), from ``W``.

    Parameters
    ----------
    ops : _GramOps, _DenseOps or _SparseOps
        The shared data and each candidate's target (see the module).
    W : array of shape (n_features, k)
        Starting coefficients (copied).
    l1, l2 : arrays of shape (k,)
    max_iter, tol : scikit-learn's; a candidate stops when its largest
        update is at most ``tol`` times its largest coefficient and its
        duality gap is at most ``tol * ||y_c||²``.
    positive : bool
    seeds : sequence of k ints, or None
        None: cyclic selection, all candidates at once. Otherwise random
        selection, each candidate with scikit-learn's generator from its
        seed (candidates then run one after another).

    Returns
    -------
    W : array (n_features, k); gaps : array (k,) (solver units);
    n_iter : host int array (k,); tols : array (k,) (``tol * ||y_c||²``).
    A ConvergenceWarning (scikit-learn's message) per candidate that did
    not converge. On the CPU (:data:`COMPILED_CPU`) the candidates run one
    by one through scikit-learn's compiled solver, which warns itself; the
    gaps and tolerances are then float64, as it returns them.
    """
    compiled = _compiled_operator(ops, W, seeds, xp)
    if compiled is not None:
        W_host, gaps, n_iter, tols = _solve_compiled(
            compiled, np.asarray(to_host(W)), to_host(l1), to_host(l2), max_iter,
            tol, positive, seeds,
        )  # fmt: skip
        return xp.asarray(W_host), xp.asarray(gaps), n_iter, xp.asarray(tols)
    if seeds is None and _sweep_kernel(ops, W, xp):
        W, gaps, n_iter, failed = _solve_device(
            ops, W, l1, l2, max_iter, tol, positive, xp
        )
        tols = xp.asarray(tol * np.asarray(to_host(ops.y_norm2), dtype=W.dtype))
        if failed.any():
            _warn_not_converged(gaps, tols, l1, failed)
        return W, gaps, n_iter, tols
    tols = tol * ops.y_norm2
    if seeds is None:
        W, gaps, n_iter, failed = _solve(
            ops, W, l1, l2, max_iter, tol, positive, None, xp
        )
    else:
        parts = [
            _solve(
                ops.take(xp.asarray([c])), W[:, c : c + 1], l1[c : c + 1],
                l2[c : c + 1], max_iter, tol, positive, int(seeds[c]), xp,
            )
            for c in range(W.shape[1])
        ]  # fmt: skip
        W = xp.concatenate([p[0] for p in parts], axis=1)
        gaps = xp.concatenate([p[1] for p in parts])
        n_iter = np.concatenate([p[2] for p in parts])
        failed = np.concatenate([p[3] for p in parts])
    if failed.any():
        _warn_not_converged(gaps, tols, l1, failed)
    return W, gaps, n_iter, tols


#: Whether the CPU (NumPy) runs each problem of a batch with scikit-learn's
#: compiled coordinate descent (``sklearn/linear_model/_cd_fast.pyx``, the
#: arithmetic that the batched sweeps mirror) rather than the batched sweeps,
#: a Python loop over coordinates: one fit is then as fast as scikit-learn's,
#: where the loop was 4 to 270 times slower (benchmarks/bench_enet_cpu.py,
#: 2026-11-27). The batched sweeps stay the GPU's algorithm and, on the
#: CPU, the tests' oracle of its bookkeeping.
COMPILED_CPU = True


def _compiled_operator(ops, W, seeds, xp: ModuleType):
    """The operator on which scikit-learn's compiled solver runs this batch,
    candidate by candidate, or None (the batched sweeps). On the CPU, the
    operator itself where it can (the fold operators of cross-validation's
    GPU batches cannot). On the GPU, where no sweep kernel serves the batch
    (``selection="random"``, and sparse X's residual form: wide sparse X, or
    negative weights), the operator's host copy (``host_twin``, made at its
    first batch and kept on it: a path solves many on the same data).

    The sparse residual form on the GPU was a Python loop of about eight
    CuPy launches per coordinate and sweep (all candidates at once): at
    p > 2,048 features at least 0.16 s a sweep whatever the data's size,
    where the compiled solver's sweep costs a few nanoseconds per stored
    value and candidate (a text matrix of 2,000,000 values: about 6 ms). It
    loses only for very many candidates of very large matrices (estimated,
    candidates x stored values above about 25,000 x p). Measured on an
    H100 (benchmarks/bench_sparse_cd.py, 20,000 x 10,000, 1,000,000 stored):
    a Lasso fit 16.2 s before, 0.19 s after."""
    if not (COMPILED_CPU and W.dtype in FLOAT_DTYPES):
        return None
    if xp is not np:
        no_kernel = seeds is not None or isinstance(ops, _SparseOps)
        if not no_kernel or not hasattr(ops, "host_twin"):
            return None
        twin = getattr(ops, "_host_twin", None)
        if twin is None:
            twin = ops._host_twin = ops.host_twin()
        ops = twin
    return ops if bool(getattr(ops, "compiled", False)) else None


def _solve_compiled(ops, W, l1, l2, max_iter, tol, positive, seeds):
    """The batch's candidates one after another, each by scikit-learn's
    compiled solver (``ops.solve_one``) from its column of ``W``; the
    solver draws the seed of ``selection="random"`` from ``seeds``, and
    warns itself where a candidate stops at ``max_iter``. Returns what
    :func:`enet_coordinate_descent_batch` returns (the gaps in float64, as
    the solver gives them)."""
    n_features, k = W.shape
    out = np.empty((n_features, k), dtype=W.dtype)
    gaps = np.empty(k, dtype=np.float64)
    tols = np.empty(k, dtype=np.float64)
    n_iter = np.empty(k, dtype=np.int64)
    l1, l2 = np.asarray(l1, dtype=np.float64), np.asarray(l2, dtype=np.float64)
    for c in range(k):
        w = np.array(W[:, c], dtype=W.dtype)  # contiguous, the solver's to update
        w, gaps[c], tols[c], n_iter[c] = ops.solve_one(
            c, w, float(l1[c]), float(l2[c]), max_iter=max_iter, tol=tol,
            rng=fixed_seed(0 if seeds is None else seeds[c]),
            random=seeds is not None, positive=positive,
        )  # fmt: skip
        out[:, c] = w
    return out, gaps, n_iter, tols


def _warn_not_converged(gaps, tols, l1, failed) -> None:
    """scikit-learn's ConvergenceWarning, once per candidate that stopped at
    ``max_iter`` (gaps and tolerances in the solver's units, as its)."""
    gaps, tols, l1 = (
        np.asarray(to_host(a), dtype=np.float64) for a in (gaps, tols, l1)
    )
    for c in np.flatnonzero(failed):
        message = (
            MESSAGE_CONV + f" Duality gap: {gaps[c]:.6e}, tolerance: {tols[c]:.3e}"
        )
        if l1[c] < np.finfo(np.float64).eps:
            message += "\n" + MESSAGE_RIDGE
        warnings.warn(message, ConvergenceWarning, stacklevel=4)


class _WorkingSet:
    """The candidates of a batch still iterating, and the results of those
    that stopped. Retiring candidates shrinks every working array (the host
    learns which, at a gap check, where it reads device values anyway)."""

    def __init__(self, ops, W, l1, l2, tols, xp: ModuleType):
        k = W.shape[1]
        self.xp = xp
        self.ops, self.W, self.l1, self.l2, self.tols = ops, W, l1, l2, tols
        self.denominators = _per_candidate(ops.norm2) + l2[None, :]
        self.excluded = xp.zeros(W.shape, dtype=bool)
        self.live = np.arange(k)  # positions in the batch
        self.out_W = xp.empty_like(W)
        self.out_gap = xp.empty(k, dtype=W.dtype)
        self.out_iter = np.zeros(k, dtype=np.int64)
        self.failed = np.zeros(k, dtype=bool)

    def retire(self, done, gap, n_iter: int, failed: bool = False) -> None:
        """Store the results of the working candidates flagged in ``done``
        and drop them from the working set."""
        xp = self.xp
        done_host = np.asarray(to_host(done), dtype=bool)
        if not done_host.any():
            return
        positions = self.live[done_host]
        where = xp.asarray(positions)
        rows = xp.asarray(np.flatnonzero(done_host))  # integer indices: no mask
        self.out_W[:, where] = self.W[:, rows]
        self.out_gap[where] = gap[rows]
        self.out_iter[positions] = n_iter
        self.failed[positions] = failed
        keep_host = ~done_host
        self.live = self.live[keep_host]
        if not keep_host.any():
            return
        keep = xp.asarray(np.flatnonzero(keep_host))
        self.ops = self.ops.take(keep)
        self.W, self.excluded = self.W[:, keep], self.excluded[:, keep]
        self.l1, self.l2, self.tols = self.l1[keep], self.l2[keep], self.tols[keep]
        self.denominators = self.denominators[:, keep]


#: Whether cyclic sweeps on a Gram matrix or on dense residuals run as one
#: CUDA kernel launch per sweep on the GPU (``gpuml/_cuda/enet.cu``) rather
#: than a few CuPy operations per coordinate; the tests compare the two.
SWEEP_KERNEL = True
_GRAM_THREADS = 128
_DENSE_THREADS = 256  # ENET_THREADS of enet.cu


def _sweep_kernel(ops, W, xp: ModuleType) -> bool:
    return (
        SWEEP_KERNEL
        and xp is not np
        and (isinstance(ops, (_GramOps, _DenseOps)) or hasattr(ops, "kernel_sweep"))
        and W.dtype in FLOAT_DTYPES
    )


def _kernel_sweep(ops, W, l1, l2, excluded, skip, positive: bool, done=None):
    """One cyclic sweep of every working candidate by one kernel launch (a
    block per candidate): ``W`` and the operator's state (``Qw`` or ``R``)
    are updated in place; returns each candidate's largest update and
    largest coefficient, as the per-coordinate loop does. ``done`` (a uint8
    device array of ``k`` flags, or None) marks candidates to leave as they
    are (their two results are then not written)."""
    from gpuml import _cuda

    if hasattr(ops, "kernel_sweep"):  # an operator with its own launches
        return ops.kernel_sweep(W, l1, l2, excluded, skip, positive, done)
    cupy = namespace_of(W)
    n_features, k = W.shape
    t = _cuda.ctype(W.dtype)
    d_w_max = cupy.zeros(k, dtype=W.dtype)
    w_max = cupy.zeros(k, dtype=W.dtype)
    common = (
        W,
        cupy.ascontiguousarray(l1),
        cupy.ascontiguousarray(l2),
        cupy.ascontiguousarray(excluded).view(cupy.uint8),
        cupy.asarray(skip.astype(np.uint8)),
        0 if done is None else done,
    )
    tail = (np.int32(positive), d_w_max, w_max)
    if ops.gram:
        ops.Qw = cupy.ascontiguousarray(ops.Qw)
        args = (ops.G, ops.B, ops.Qw, *common, np.int64(n_features), np.int64(k))
        kernel, threads = f"enet_gram_sweep<{t}>", _GRAM_THREADS
    else:
        ops.R = cupy.ascontiguousarray(ops.R)
        norm2 = cupy.ascontiguousarray(ops.norm2)
        sizes = (np.int64(ops.R.shape[0]), np.int64(n_features), np.int64(k))
        args = (ops.XT, norm2, ops.R, *common, *sizes)
        kernel, threads = f"enet_dense_sweep<{t}>", _DENSE_THREADS
    _cuda.kernel("enet", kernel)((k,), (threads,), (*args, *tail))
    return d_w_max, w_max


def _random_order(active, state: int):
    """One sweep's coordinates drawn as scikit-learn draws them, and the
    generator's next state."""
    order = np.empty(active.size, dtype=np.int64)
    for i in range(active.size):
        state = _xorshift(state)
        order[i] = active[(state % (_RAND_R_MAX + 1)) % active.size]
    return order, state


def _solve(ops, W, l1, l2, max_iter, tol, positive, seed, xp):
    """The batch's coordinate descent (``seed``: random selection, k == 1)."""
    n_features = W.shape[0]
    norm2 = ops.norm2
    # (a column of zeros in every candidate's data is skipped)
    nonzero_host = (np.asarray(to_host(_per_candidate(norm2))) != 0).any(axis=1)
    nonzero = xp.asarray(nonzero_host)
    ws = _WorkingSet(ops, W.copy(), l1, l2, tol * ops.y_norm2, xp)
    ws.ops.start(ws.W)
    gap, XtA, dual_norm = _duality_gap(ws.ops, ws.W, l1, l2, positive, xp)
    done = gap <= ws.tols
    if ws.ops.gram:
        done &= gap >= 0  # a singular Gram matrix may give dubious gaps
    ws.W, ws.excluded = _screen(
        ws.ops, ws.W, XtA, dual_norm, gap, l1, l2, ~done, ws.excluded, xp
    )
    ws.retire(done, gap, 0)
    rand_state = seed
    for n_iter in range(max_iter):
        if ws.live.size == 0:
            break
        ops, W, excluded, l1 = ws.ops, ws.W, ws.excluded, ws.l1
        # coordinates that no working candidate updates: excluded by every
        # one of them, or columns of zeros
        counts = np.asarray(to_host(excluded.sum(axis=1)))
        skip = (counts == ws.live.size) | ~nonzero_host
        partly_excluded = counts > 0
        if seed is None:
            order = np.flatnonzero(~skip)
        else:
            screened = bool(to_host(l1)[0] > 0)
            active = np.flatnonzero(~skip) if screened else np.arange(n_features)
            order, rand_state = _random_order(active, rand_state)
            d_w_max = xp.zeros(1, dtype=W.dtype)
            w_max = xp.zeros(1, dtype=W.dtype)
            W_old = None
        if seed is None and _sweep_kernel(ops, W, xp):
            ws.W = W = xp.ascontiguousarray(W)  # updated in place by the kernel
            d_w_max, w_max = _kernel_sweep(ops, W, l1, ws.l2, excluded, skip, positive)
            order = ()  # the sweep is done
            W_old = None
        elif seed is None:
            W_old = W.copy()
        for j in order:
            if not nonzero_host[j]:
                continue
            w_j = W[j]
            tmp = ops.grad(j) + w_j * ops.norm2[j]
            # sign(tmp) * max(|tmp| - l1, 0), to the bit; 0 for tmp < 0 when
            # positive (scikit-learn's update)
            new = xp.maximum(tmp - l1, 0)
            if not positive:
                new += xp.minimum(tmp + l1, 0)
            new /= ws.denominators[j]
            if partly_excluded[j]:
                new = xp.where(excluded[j], w_j, new)
            delta = new - w_j
            ops.step(j, delta)
            W[j] = new
            if seed is not None:
                d_w_max = xp.maximum(d_w_max, xp.abs(delta))
                w_max = xp.maximum(w_max, xp.abs(new))
        if seed is None and W_old is not None:
            d_w_max = xp.abs(W - W_old).max(axis=0)
            w_max = xp.where(nonzero[:, None], xp.abs(W), 0).max(axis=0)
        last = n_iter == max_iter - 1
        check = (w_max == 0) | (d_w_max / xp.where(w_max == 0, 1, w_max) <= tol)
        if not (last or bool(check.any())):
            continue
        if last:
            check = xp.ones_like(check)
        gap, XtA, dual_norm = _duality_gap(ops, W, l1, ws.l2, positive, xp)
        done = check & (gap <= ws.tols)
        ws.W, ws.excluded = _screen(
            ops, W, XtA, dual_norm, gap, l1, ws.l2, check & ~done, excluded, xp
        )
        ws.retire(done, gap, n_iter + 1)
        if last and ws.live.size:
            left = xp.asarray(np.flatnonzero(~np.asarray(to_host(done), dtype=bool)))
            ws.retire(xp.ones(ws.live.size, dtype=bool), gap[left], max_iter, True)
    return ws.out_W, ws.out_gap, ws.out_iter, ws.failed


class _HostView:
    """What :func:`_duality_gap` and :func:`_screen` read of a device
    operator, copied to the host (NumPy, in the data's dtype) at a gap
    check; the screening's bulk update is kept for the device to apply."""

    def __init__(self, r_norm2, ry, XtR, norm2):
        self._norms, self._xtr, self.norm2 = (r_norm2, ry), XtR, norm2
        self.Delta = None

    def norms(self, W):
        return self._norms

    def xtr(self, W):
        return self._xtr

    def bulk(self, Delta):
        self.Delta = Delta


def _host_view(ops, W_host, host):
    """The gap check's inputs of every candidate: ``(||R||², Rᵀy)`` and
    ``XᵀR`` on the host. The Gram form reads ``W`` (given), ``Qw`` and the
    constant ``B``; the dense form forms ``XᵀR`` by cuBLAS and the norms on
    the device."""
    if ops.gram:
        Qw = to_host(ops.Qw)
        B, y_norm2 = host["B"], host["y_norm2"]
        qw = (W_host * B).sum(axis=0)
        r_norm2 = y_norm2 + (W_host * Qw).sum(axis=0) - 2.0 * qw
        return _HostView(r_norm2, y_norm2 - qw, B - Qw, host["norm2"])
    r_norm2, ry = (to_host(v) for v in ops.norms(None))
    return _HostView(r_norm2, ry, to_host(ops.xtr(None)), host["norm2"])


def _solve_device(ops, W, l1, l2, max_iter, tol, positive, xp):
    """:func:`_solve` for the GPU's sweep kernels: the same iterates and
    stopping rule, with the bookkeeping on the host.

    Each sweep is one kernel launch for the whole batch; a candidate that
    has stopped keeps its column (its block returns at once) instead of
    being removed from the working arrays. The convergence check, the
    duality gap and the gap-safe screening read small arrays (``(k,)`` and
    ``(p, k)``) that come to the host when a check is due and are computed
    there with the NumPy code of the CPU path, in the data's dtype. So a
    fit compiles no CuPy element-wise or reduction kernel on the Gram form
    (its first use on a new machine costs gpuml's ``enet`` module alone);
    the dense form's norms are two CuPy reductions.
    """
    dtype = W.dtype
    n_features, k = W.shape
    l1_h = np.asarray(to_host(l1), dtype=dtype)
    l2_h = np.asarray(to_host(l2), dtype=dtype)
    norm2_h = np.asarray(to_host(ops.norm2), dtype=dtype)
    y_norm2_h = np.asarray(to_host(ops.y_norm2), dtype=dtype)
    host = {"norm2": norm2_h, "y_norm2": y_norm2_h}
    if ops.gram:
        host["B"] = np.asarray(to_host(ops.B))
    tols = tol * y_norm2_h
    nonzero_h = (_per_candidate(norm2_h) != 0).any(axis=1)
    W_h = np.ascontiguousarray(to_host(W), dtype=dtype)
    W = xp.asarray(W_h.copy())  # a copy to the device: no kernel

    def start(W):
        ops.start(W)
        if ops.gram:
            ops.Qw = xp.ascontiguousarray(ops.Qw)
        else:
            ops.R = xp.ascontiguousarray(ops.R)

    start(W)
    l1_d, l2_d = xp.asarray(l1_h), xp.asarray(l2_h)
    excluded = np.zeros((n_features, k), dtype=bool)
    done = np.zeros(k, dtype=bool)
    gaps = np.zeros(k, dtype=dtype)
    n_iter = np.zeros(k, dtype=np.int64)
    failed = np.zeros(k, dtype=bool)

    def gap_check(candidates, W_h, excluded, finish_at):
        """Gaps of ``candidates``; those within tolerance finish at
        ``finish_at`` iterations, the others are screened. Returns the new
        ``(W_h, excluded)``, the device ``W``/state updated."""
        view = _host_view(ops, W_h, host)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            gap, XtA, dual_norm = _duality_gap(view, W_h, l1_h, l2_h, positive, np)
        finished = candidates & (gap <= tols)
        if ops.gram and finish_at == 0:
            finished &= gap >= 0  # a singular Gram matrix may give dubious gaps
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            W_new, excluded = _screen(
                view, W_h, XtA, dual_norm, gap, l1_h, l2_h,
                candidates & ~finished, excluded, np,
            )  # fmt: skip
        gaps[finished] = gap[finished]
        n_iter[finished] = finish_at
        done[finished] = True
        if view.Delta is not None and view.Delta.any():
            # the state afresh from the screened coefficients (a GEMM; the
            # CPU path adds the screened features' terms instead: the two
            # differ in rounding only)
            nonlocal W
            W = xp.asarray(np.ascontiguousarray(W_new))
            start(W)
        return W_new, excluded, gap

    W_h, excluded, _ = gap_check(~done, W_h, excluded, 0)
    for it in range(max_iter):
        if done.all():
            break
        # coordinates that no working candidate updates
        skip = (excluded | done[None, :]).all(axis=1) | ~nonzero_h
        d_w_max, w_max = _kernel_sweep(
            ops, W, l1_d, l2_d, xp.asarray(excluded.view(np.uint8)), skip,
            positive, xp.asarray(done.view(np.uint8)),
        )  # fmt: skip
        d_w_max, w_max = to_host(d_w_max), to_host(w_max)
        last = it == max_iter - 1
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = d_w_max / np.where(w_max == 0, 1, w_max)
        check = ~done & ((w_max == 0) | (ratio <= tol))
        if not (last or check.any()):
            continue
        if last:
            check = ~done
        W_h = np.asarray(to_host(W))
        W_h, excluded, gap = gap_check(check, W_h, excluded, it + 1)
        if last and not done.all():
            left = ~done
            gaps[left], n_iter[left], failed[left] = gap[left], max_iter, True
            done[left] = True
    return W, xp.asarray(gaps), n_iter, failed
