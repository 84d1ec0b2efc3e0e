"""Lasso and ElasticNet by batched coordinate descent, on the GPU or the CPU.

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
of sweeps stays the GPU's algorithm (with sparse X or random selection
there, and around the sweep kernels otherwise) and the tests' oracle.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, metadata_routing
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    take_rows,
    to_family,
    to_host,
    to_namespace,
)
from gpuml._linalg import sparse_module
from gpuml._reductions import column_mean
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    align_sparse_output,
    enet_cd_dense,
    enet_cd_gram,
    enet_cd_sparse,
    fixed_seed,
    validate_estimator_params,
)
from gpuml._validation import (
    FLOAT_DTYPES,
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_X_y,
    validate_data,
)
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin

_ACCEPT_SPARSE = ("csr", "csc", "coo")
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
NON_FINITE = (
    "Coordinate descent iterations resulted in non-finite parameter"
    " values. The input data may contain large values and need to"
    " be preprocessed."
)


# --------------------------------------------------------------------------
# Operators: what a coordinate update reads and keeps up to date.
# --------------------------------------------------------------------------


def xp_contiguous(array):
    """``array`` in C order (itself when it is)."""
    return namespace_of(array).ascontiguousarray(array)


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
        """``(||R||², Rᵀy)`` per candidate."""
        qw = (W * self.B).sum(axis=0)
        return self.y_norm2 + (W * self.Qw).sum(axis=0) - 2.0 * qw, self.y_norm2 - qw

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
    if _compiled_solver(ops, W, xp):
        return _solve_compiled(ops, W, l1, l2, max_iter, tol, positive, seeds)
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


def _compiled_solver(ops, W, xp: ModuleType) -> bool:
    """Whether this batch runs candidate by candidate through scikit-learn's
    compiled solver: on the CPU, for an operator that can (the fold
    operators of cross-validation's GPU batches cannot)."""
    return (
        COMPILED_CPU
        and xp is np
        and bool(getattr(ops, "compiled", False))
        and W.dtype in FLOAT_DTYPES
    )


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


# --------------------------------------------------------------------------
# The data of a fit: centred and weighted once, shared by the candidates.
# --------------------------------------------------------------------------


class _EnetData:
    """The centred, weighted problem of one fit (or fold), as scikit-learn's
    ``_pre_fit`` prepares it, and the operator that the solver reads.

    ``kind`` is ``"gram"`` (``G`` and ``Xy`` formed once), ``"dense"``
    (residual form) or ``"sparse"`` (raw CSC X, ``Y`` centred but not
    weighted, ``sw`` the rescaled weights).
    """

    def __init__(
        self, kind, X, Y, X_offset, y_offset, sw, xp, G=None, Xy=None, host=None
    ):
        self.kind, self.X, self.Y, self.sw, self.xp = kind, X, Y, sw, xp
        self.X_offset, self.y_offset, self.G, self.Xy = X_offset, y_offset, G, Xy
        # the GPU's Gram form (see _device_gram): X and Y are the raw data,
        # and host holds Xy, the diagonal of G and the centred targets'
        # squared norms on the host
        self.host = host

    def ops(self, targets):
        """The operator for candidates whose targets are the columns
        ``targets`` (host ints) of Y."""
        xp = self.xp
        if self.host is not None:
            targets = np.asarray(targets, dtype=np.int64)
            B = np.ascontiguousarray(self.host["Xy"][:, targets])
            y_norm2 = xp.asarray(self.host["y_norm2"][targets])
            norm2 = xp.asarray(self.host["diag"])
            return _GramOps(self.G, xp.asarray(B), y_norm2, xp, norm2=norm2)
        index = xp.asarray(np.asarray(targets, dtype=np.int64))
        Y = self.Y[:, index]
        if self.kind == "gram":
            # (the targets kept for the CPU's compiled solver only)
            targets_kept = Y if xp is np else None
            return _GramOps(
                self.G, self.Xy[:, index], (Y * Y).sum(axis=0), xp, Y=targets_kept
            )
        if self.kind == "dense":
            return _DenseOps(self.X, Y, xp)
        return _SparseOps(self.X, self.X_offset, self.sw, Y, xp)


def _writeable(X) -> bool:
    flags = getattr(X, "flags", None)
    return bool(getattr(flags, "writeable", True))


def _prepare(
    X, Y, sw, *, fit_intercept: bool, precompute, overwrite_X: bool, xp: ModuleType
) -> _EnetData:
    """Centre (weighted means) and weight the data as scikit-learn's
    ``_pre_fit`` does, and choose the operator: a Gram matrix for dense X
    when ``precompute`` is True or an array, or when ``n_samples >=
    n_features``; residuals otherwise and for sparse X."""
    n_samples, n_features = X.shape
    if (
        xp is not np
        and not is_sparse(X)
        and not _given_precompute(precompute)
        and (precompute is True or n_samples >= n_features)
        and 0 < n_features <= _DEVICE_GRAM_MAX
    ):
        data = _device_gram(X, Y, sw, fit_intercept, xp)
        if data is not None:
            return data
    if fit_intercept:
        y_offset = column_mean(Y, sw, xp=xp)
    else:
        y_offset = xp.zeros(Y.shape[1], dtype=X.dtype)
    Y = Y - y_offset
    if is_sparse(X):
        X = X.tocsc()
        if fit_intercept:
            weights = xp.ones(n_samples, dtype=X.dtype) if sw is None else sw
            X_offset = xp.asarray(X.T @ weights) / weights.sum()
        else:
            X_offset = xp.zeros(n_features, dtype=X.dtype)
        return _EnetData("sparse", X, Y, X_offset, y_offset, sw, xp)
    if fit_intercept:
        X_offset = column_mean(X, sw, xp=xp)
    else:
        X_offset = xp.zeros(n_features, dtype=X.dtype)
    if fit_intercept or sw is not None:
        if not (overwrite_X and _writeable(X)):
            X = X.copy()
        if fit_intercept:
            X -= X_offset
        if sw is not None:
            root = xp.sqrt(sw)
            X *= root[:, None]
            Y = Y * root[:, None]
    G = _given_gram(precompute, X, X_offset, fit_intercept, xp)
    if G is None and (precompute is True or n_samples >= n_features):
        G = X.T @ X
    if G is None:
        return _EnetData("dense", X, Y, X_offset, y_offset, sw, xp)
    return _EnetData("gram", X, Y, X_offset, y_offset, sw, xp, G=G, Xy=X.T @ Y)


#: The most features whose Gram matrix the GPU forms with gpuml's moment
#: kernels (its float64 sums come to the host once, (p + t)² values).
_DEVICE_GRAM_MAX = 2048


def _device_gram(X, Y, sw, fit_intercept: bool, xp: ModuleType):
    """The Gram form of dense data on the GPU, from gpuml's moment kernels
    and cuBLAS (Ridge's: ``_DeviceRidgeMoments``), without centring or
    copying X: the weighted Gram matrix of the centred rows, ``Xᵀ y`` and
    the targets' squared norms are summed in float64 at the weighted means
    (scikit-learn's offsets, in the data's dtype) and cast to the data's
    dtype. The same system as the general path's, more accurately summed,
    and no CuPy element-wise kernel to compile. None when a sum overflows
    the dtype (the general path then fails or warns as it does)."""
    from gpuml.linear_model._ridge_moments import _DeviceRidgeMoments

    n_samples, p = X.shape
    t = Y.shape[1]
    dtype = X.dtype
    moments = _DeviceRidgeMoments(X, Y, sw, fit_intercept, xp, [None])
    with np.errstate(all="ignore"):
        if fit_intercept:
            X_offset, y_offset = (
                np.asarray(to_host(column_mean(a, moments.weights, xp=xp)), dtype)
                for a in (moments.X, moments.Y)
            )
            centre = np.concatenate((X_offset, y_offset)).astype(np.float64)
        else:
            X_offset, y_offset = np.zeros(p, dtype), np.zeros(t, dtype)
            centre = None
        sums, _ = moments._design_sums(slice(0, n_samples), fit_intercept, centre)
        sums = np.asarray(to_host(sums))
        G = sums[:p, :p].astype(dtype)
        Xy = sums[:p, p : p + t].astype(dtype)
        y_norm2 = np.diagonal(sums[p : p + t, p : p + t]).astype(dtype)
    if not all(np.isfinite(a).all() for a in (G, Xy, y_norm2, X_offset, y_offset)):
        return None
    host = {"Xy": Xy, "y_norm2": y_norm2, "diag": np.ascontiguousarray(G.diagonal())}
    return _EnetData(
        "gram",
        X,
        Y,
        xp.asarray(X_offset),
        xp.asarray(y_offset),
        sw,
        xp,
        G=xp.asarray(G),
        Xy=xp.asarray(Xy),
        host=host,
    )


def _given_precompute(precompute) -> bool:
    """Whether ``precompute`` is a Gram matrix (not a flag)."""
    return not (isinstance(precompute, (bool, np.bool_)) or precompute is None)


def _given_gram(precompute, X, X_offset, fit_intercept: bool, xp: ModuleType):
    """A Gram matrix passed as ``precompute``, checked as scikit-learn
    checks it; None when none was given or, with a warning, when X was
    centred (scikit-learn then recomputes it)."""
    if not _given_precompute(precompute):
        return None
    n_features = X.shape[1]
    if fit_intercept and not np.allclose(to_host(X_offset), np.zeros(n_features)):
        warnings.warn(
            "Gram matrix was provided but X was centered to fit intercept: "
            "recomputing Gram matrix.",
            UserWarning,
            stacklevel=4,
        )
        return None
    G = check_array(precompute, xp=xp, dtype=X.dtype, input_name="precompute")
    f1 = n_features // 2
    f2 = min(f1 + 1, n_features - 1)
    expected = float(to_host(X[:, f1] @ X[:, f2]))
    actual = float(to_host(G[f1, f2]))
    rtol = 1e-4 if X.dtype == np.float32 else 1e-7
    if not np.isclose(expected, actual, rtol=rtol, atol=1e-5):
        raise ValueError(
            "Gram matrix passed in via 'precompute' parameter "
            "did not pass validation when a single element was "
            "checked - please check that it was computed "
            f"properly. For element ({f1},{f2}) we computed "
            f"{expected} but the user-supplied value was "
            f"{actual}."
        )
    return G


def _rescaled_weights(sample_weight, n_samples: int, dtype, xp: ModuleType):
    """scikit-learn's weights for the elastic net: None for a number (a
    constant weight changes nothing), else validated and rescaled to sum to
    ``n_samples``."""
    if sample_weight is None or isinstance(sample_weight, numbers.Number):
        return None
    sw = check_sample_weight(sample_weight, n_samples, xp=xp, dtype=dtype)
    return sw * (n_samples / sw.sum())


def _all_finite(values) -> bool:
    """Whether a (small) result holds no NaN or infinity, checked on the
    host."""
    return bool(np.isfinite(to_host(values)).all())


def _random_seeds(random_state, n: int) -> list[int]:
    """The seeds scikit-learn's solver draws, one per target (its path
    function checks ``random_state`` afresh for each)."""
    return [
        int(check_random_state(random_state).randint(0, _RAND_R_MAX)) for _ in range(n)
    ]


def fit_candidates(
    data: _EnetData,
    alphas,
    l1_ratios,
    *,
    coef_init=None,
    max_iter: int,
    tol: float,
    positive: bool,
    seeds=None,
):
    """Fit every ``(alpha, l1_ratio)`` candidate on every target of ``data``.

    Returns ``coefs (k, t, p)``, ``intercepts (k, t)``, ``dual_gaps (k, t)``
    (scikit-learn's units) and ``n_iter (k, t)`` (host), for ``k``
    candidates and ``t`` targets. ``coef_init`` is (t, p) or None;
    ``seeds`` (t values) selects coordinates at random as scikit-learn does.
    """
    xp = data.xp
    dtype = data.X.dtype
    n_samples, n_features = data.X.shape
    n_targets = data.Y.shape[1]
    k = len(alphas)
    alphas = np.asarray(alphas, dtype=np.float64)
    l1_ratios = np.asarray(l1_ratios, dtype=np.float64)
    l1 = np.repeat(alphas * l1_ratios * n_samples, n_targets)
    l2 = np.repeat(alphas * (1.0 - l1_ratios) * n_samples, n_targets)
    targets = np.tile(np.arange(n_targets), k)
    if coef_init is None:
        W = xp.zeros((n_features, k * n_targets), dtype=dtype)
    else:
        W = xp.tile(xp.asarray(coef_init, dtype=dtype).T, (1, k))
    W, gaps, n_iter, _ = enet_coordinate_descent_batch(
        data.ops(targets),
        W,
        xp.asarray(l1.astype(dtype)),
        xp.asarray(l2.astype(dtype)),
        max_iter=max_iter,
        tol=tol,
        positive=positive,
        seeds=None if seeds is None else np.tile(seeds, k),
        xp=xp,
    )
    # small arrays: finished on the host (no device kernel to compile)
    coefs = np.asarray(to_host(W)).T.reshape(k, n_targets, n_features)
    X_offset, y_offset = (to_host(a) for a in (data.X_offset, data.y_offset))
    intercepts = y_offset[None, :] - coefs @ X_offset
    gaps = (np.asarray(to_host(gaps)) / n_samples).reshape(k, n_targets)
    if xp is not np:
        coefs = xp.asarray(np.ascontiguousarray(coefs))
        intercepts, gaps = xp.asarray(intercepts), xp.asarray(gaps)
    return coefs, intercepts, gaps, n_iter.reshape(k, n_targets)


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class ElasticNet(
    LinearRegressorMixin,
    MultiOutputMixin,
    RegressorMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Linear regression with combined L1 and L2 priors, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.ElasticNet` (same
    parameters, attributes and results). It minimises
    ``1 / (2 n_samples) ||y - Xw||² + alpha l1_ratio ||w||_1 +
    0.5 alpha (1 - l1_ratio) ||w||²`` by coordinate descent with
    scikit-learn's updates, gap-safe screening and stopping rule, computing
    with CuPy when a GPU is usable (see :func:`gpuml.set_config`), else with
    NumPy/SciPy. Several targets are fitted together (each its own problem),
    as are the candidates of a search (see ``docs/search.rst``).

    Parameters
    ----------
    alpha : float, default=1.0
        Constant that multiplies the penalty terms, a non-negative float.
    l1_ratio : float, default=0.5
        The mixing parameter, ``0 <= l1_ratio <= 1``: 1 is the lasso
        penalty, 0 the ridge penalty.
    fit_intercept : bool, default=True
        Whether to fit the intercept (the data are centred, with sample
        weights when given).
    precompute : bool or array-like of shape (n_features, n_features), \
            default=False
        Whether to use a precomputed Gram matrix (True, or the matrix
        itself). With False, gpuml still forms the Gram matrix when X is
        dense and has at least as many samples as features (the updates are
        the same; a GPU runs them faster); sparse X is never densified.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates.
    copy_X : bool, default=True
        If False, X may be centred in place when it is already in the
        compute namespace and dtype.
    tol : float, default=1e-4
        Tolerance: when the largest update of a sweep is at most ``tol``
        times the largest coefficient, the duality gap is checked against
        ``tol * ||y||² / n_samples``.
    warm_start : bool, default=False
        Start from the previous solution.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``, drawn
        as scikit-learn draws it (the same coordinates, the same result).
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or draw one at random at each step.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients, NumPy or CuPy like the training X.
    sparse_coef_ : sparse matrix of shape (1, n_features) or \
            (n_targets, n_features)
        ``coef_`` as a sparse matrix (SciPy, or cupyx for device input).
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term; 0.0 when ``fit_intercept=False``.
    n_iter_ : int or list of int
        Sweeps run by the solver, per target when there are several.
    dual_gap_ : float or ndarray of shape (n_targets,)
        The duality gaps at the end of the optimisation.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Lasso : The elastic net with ``l1_ratio=1``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import ElasticNet
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4))
    >>> y = X @ np.array([1.0, 0.0, -2.0, 0.0]) + 0.5
    >>> model = ElasticNet(alpha=0.01, l1_ratio=0.7).fit(X, y)
    >>> np.round(model.coef_, 1)  # -0.: scikit-learn's solver's signed zero
    array([ 1.,  0., -2., -0.])
    >>> round(float(model.intercept_), 1)
    0.5
    """

    # check_input is no metadata to route (as in scikit-learn)
    __metadata_request__fit = {"check_input": metadata_routing.UNUSED}

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "precompute": ["boolean", "array-like"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "copy_X": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        l1_ratio=0.5,
        fit_intercept=True,
        precompute=False,
        max_iter=1000,
        copy_X=True,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.copy_X = copy_X
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection

    def _validated(self, X, y, xp, *, reset=True):
        X, y = validate_data(
            self,
            X,
            y,
            xp=xp,
            reset=reset,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=FLOAT_DTYPES,
            multi_output=True,
            y_numeric=True,
        )
        if is_sparse(y):
            raise TypeError(
                "Sparse data was passed, but dense data is required. Use "
                "'.toarray()' to convert to a dense numpy array."
            )
        return X, y

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Fit the model by coordinate descent.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse,
            or any ``__cuda_array_interface__`` / ``__dlpack__`` producer.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Sample weights (rescaled internally to sum to ``n_samples``).
        check_input : bool, default=True
            Accepted for compatibility; the input is always checked.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        if self.alpha == 0:
            warnings.warn(
                "With alpha=0, this algorithm does not converge "
                "well. You are advised to use the LinearRegression "
                "estimator",
                stacklevel=2,
            )
        warm = self.warm_start and hasattr(self, "coef_")
        coef_init = self.coef_ if warm else None
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = self._validated(X, y, xp)
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        n_samples, n_targets = X.shape[0], Y.shape[1]
        sw = _rescaled_weights(sample_weight, n_samples, X.dtype, xp)
        transferred = family != ("host" if xp is np else "device")
        with np.errstate(invalid="ignore", over="ignore"):
            data = _prepare(
                X,
                Y,
                sw,
                fit_intercept=self.fit_intercept,
                precompute=self.precompute,
                overwrite_X=transferred or not self.copy_X,
                xp=xp,
            )
        if coef_init is not None:
            coef_init = to_namespace(coef_init, xp).reshape(n_targets, -1)
        seeds = _random_seeds(self.random_state, n_targets)
        with np.errstate(invalid="ignore", over="ignore"):
            coefs, intercepts, gaps, n_iter = fit_candidates(
                data,
                [self.alpha],
                [self.l1_ratio],
                coef_init=coef_init,
                max_iter=self.max_iter,
                tol=self.tol,
                positive=self.positive,
                seeds=seeds if self.selection == "random" else None,
            )
        coef, intercept = coefs[0], intercepts[0]
        gaps = np.asarray(to_host(gaps[0])).astype(X.dtype)
        if not (_all_finite(coef) and _all_finite(intercept)):
            raise ValueError(NON_FINITE)
        if n_targets == 1:
            self.coef_ = to_family(coef[0], family)
            self.dual_gap_ = to_host(gaps)[0]
            self.n_iter_ = int(n_iter[0, 0])
            if not self.fit_intercept:
                self.intercept_ = 0.0
            elif y.ndim == 1:
                self.intercept_ = to_family(intercept, family)[0]
            else:
                self.intercept_ = to_family(intercept, family)
        else:
            self.coef_ = to_family(coef, family)
            self.dual_gap_ = to_family(gaps, family)
            self.n_iter_ = [int(i) for i in n_iter[0]]
            self.intercept_ = (
                to_family(intercept, family) if self.fit_intercept else 0.0
            )
        return self

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    _batch_names = frozenset({"alpha", "l1_ratio"})
    # A batch costs about the sum of its candidates' sweeps.
    _batch_cost_per_candidate = True

    def _batch_params(self) -> frozenset:
        """Parameters whose values may differ within one batched fit: the
        penalties (every candidate is its own coordinate descent on shared
        data). A given Gram matrix is not the folds', so it fits one by one."""
        if _given_precompute(self.precompute):
            return frozenset()
        return self._batch_names

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """Fit one model per entry of ``param_sets`` on each training fold.

        Parameters
        ----------
        X, y : arrays in the compute namespace
            The whole data of the search.
        param_sets : list of dict
            The candidates' ``alpha`` (and ``l1_ratio``) values; the other
            parameters are this estimator's.
        folds : list of index arrays, or None
            Training rows of each fold; None for one fit on all rows.
        sample_weight : array of shape (n_samples,), default=None

        Returns
        -------
        batches : iterator of RidgeBatch
            One per fold; ``batch.predict(X)`` stacks the candidates'
            predictions on a leading axis.
        """
        from sklearn.base import clone

        from gpuml.base import BatchUnsupported
        from gpuml.linear_model._ridge_batch import RidgeBatch

        validate_estimator_params(self)
        if _given_precompute(self.precompute):
            raise BatchUnsupported("a given Gram matrix fits one candidate at a time")
        alphas, l1_ratios = [], []
        for params in param_sets:
            candidate = clone(self).set_params(**params)
            validate_estimator_params(candidate)
            alphas.append(float(candidate.alpha))
            l1_ratios.append(float(candidate.l1_ratio))
        xp = compute_namespace()
        X, y = check_X_y(
            X,
            y,
            xp=xp,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=FLOAT_DTYPES,
            multi_output=True,
            y_numeric=True,
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        if sample_weight is not None and not isinstance(sample_weight, numbers.Number):
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
        seeds = _random_seeds(self.random_state, Y.shape[1])

        def fit_fold(train):
            X_fold, Y_fold, sw = X, Y, sample_weight
            if train is not None:
                rows = xp.asarray(np.asarray(train, dtype=np.int64))
                X_fold, Y_fold = take_rows(X, rows, xp), take_rows(Y, rows, xp)
                if sw is not None and not isinstance(sw, numbers.Number):
                    sw = take_rows(sw, rows, xp)
            for alpha in alphas:
                if alpha == 0:
                    warnings.warn(
                        "With alpha=0, this algorithm does not converge "
                        "well. You are advised to use the LinearRegression "
                        "estimator",
                        stacklevel=3,
                    )
            sw = _rescaled_weights(sw, X_fold.shape[0], X.dtype, xp)
            with np.errstate(invalid="ignore", over="ignore"):
                data = _prepare(
                    X_fold,
                    Y_fold,
                    sw,
                    fit_intercept=self.fit_intercept,
                    precompute=self.precompute,
                    overwrite_X=train is not None,  # X[rows] is a fresh copy
                    xp=xp,
                )
                coefs, intercepts, _, _ = fit_candidates(
                    data,
                    alphas,
                    l1_ratios,
                    max_iter=self.max_iter,
                    tol=self.tol,
                    positive=self.positive,
                    seeds=seeds if self.selection == "random" else None,
                )
            if not (_all_finite(coefs) and _all_finite(intercepts)):
                raise ValueError(NON_FINITE)
            return RidgeBatch(coefs, intercepts, y.ndim == 1)

        return (fit_fold(train) for train in ([None] if folds is None else folds))

    @property
    def sparse_coef_(self):
        """Sparse representation of the fitted ``coef_``."""
        coef = self.coef_
        xp = namespace_of(coef)
        coef = xp.atleast_2d(xp.asarray(coef))  # a user's list too, as scikit-learn
        if xp is np:
            import scipy.sparse as sp

            return align_sparse_output(sp.csr_array(coef))
        return sparse_module(xp).csr_matrix(coef)

    def _predict_xp(self, X, xp: ModuleType):
        """Predictions in the compute namespace ``xp``."""
        check_is_fitted(self)
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=NUMERIC_FLOAT,
        )
        coef = self._fitted("coef_", xp)
        intercept = self._fitted("intercept_", xp)
        if X.dtype != coef.dtype:
            X = X.astype(coef.dtype)
        return xp.asarray(X @ coef.T) + intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class Lasso(ElasticNet):
    """Linear model with an L1 prior (the Lasso), on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.Lasso`: the
    :class:`ElasticNet` with ``l1_ratio=1``, minimising
    ``1 / (2 n_samples) ||y - Xw||² + alpha ||w||_1``.

    Parameters
    ----------
    alpha : float, default=1.0
        Constant that multiplies the L1 term, a non-negative float.
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    precompute : bool or array-like of shape (n_features, n_features), \
            default=False
        As for :class:`ElasticNet`.
    copy_X : bool, default=True
        If False, X may be centred in place.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates.
    tol : float, default=1e-4
        The tolerance of the stopping rule (see :class:`ElasticNet`).
    warm_start : bool, default=False
        Start from the previous solution.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or at random.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients, NumPy or CuPy like the training X.
    sparse_coef_ : sparse matrix of shape (1, n_features) or \
            (n_targets, n_features)
        ``coef_`` as a sparse matrix.
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term.
    n_iter_ : int or list of int
        Sweeps run by the solver.
    dual_gap_ : float or ndarray of shape (n_targets,)
        The duality gaps at the end of the optimisation.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ElasticNet : L1 and L2 penalties together.

    Examples
    --------
    >>> from gpuml.linear_model import Lasso
    >>> model = Lasso(alpha=0.1).fit([[0, 0], [1, 1], [2, 2]], [0, 1, 2])
    >>> model.coef_
    array([0.85, 0.  ])
    >>> round(float(model.intercept_), 2)
    0.15
    """

    _parameter_constraints: dict = {
        k: v for k, v in ElasticNet._parameter_constraints.items() if k != "l1_ratio"
    }
    _batch_names = frozenset({"alpha"})

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        precompute=False,
        copy_X=True,
        max_iter=1000,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        super().__init__(
            alpha=alpha,
            l1_ratio=1.0,
            fit_intercept=fit_intercept,
            precompute=precompute,
            copy_X=copy_X,
            max_iter=max_iter,
            tol=tol,
            warm_start=warm_start,
            positive=positive,
            random_state=random_state,
            selection=selection,
        )
