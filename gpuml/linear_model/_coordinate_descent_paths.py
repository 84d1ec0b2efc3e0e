"""The cross-validated elastic-net paths of LassoCV and ElasticNetCV (see
:mod:`gpuml.linear_model._coordinate_descent_cv`): the folds' operators,
which let one batched coordinate descent fit every (fold, ``l1_ratio``)
candidate of a path step on the GPU, each on its own fold's data; the
alpha grid; the paths and their held-out mean squared errors. On the CPU
each fold's paths run on their own, through scikit-learn's compiled solver.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.utils import check_random_state

from gpuml._array import is_sparse, to_host
from gpuml._linalg import sparse_t_dot
from gpuml._reductions import column_mean
from gpuml.linear_model import _coordinate_descent_solver as solver
from gpuml.linear_model._coordinate_descent import _prepare
from gpuml.linear_model._coordinate_descent_solver import (
    _RAND_R_MAX,
    enet_coordinate_descent_batch,
    gram_norms,
)

# --------------------------------------------------------------------------
# The folds' Gram statistics, one batched descent for all folds
# --------------------------------------------------------------------------


class _FoldGramOps:
    """Gram operator of candidates that each have their own fold's data.

    ``G`` (F, p, p) holds the folds' Gram matrices; candidate ``c`` reads
    ``G[fold[c]]``, with its own ``B = Xᵀy`` column (p, k) and squared
    column norms ``norm2`` (p, k). Candidates are ordered by fold, so the
    columns of a fold are contiguous (and stay so as candidates retire): a
    product with the state runs one matrix product per fold. The state is
    ``Qw[:, c] = G[fold[c]] @ W[:, c]``. The interface is that of the
    solver's operators (``_GramOps``).
    """

    gram = True

    def __init__(self, G, B, y_norm2, fold_norm2, fold, xp: ModuleType):
        self.G, self.xp = G, xp
        self.B, self.y_norm2 = xp.ascontiguousarray(B), y_norm2
        self.fold = np.asarray(fold, dtype=np.int64)  # host, sorted
        self.fold_device = xp.asarray(self.fold)
        self._rows = [None]  # a box shared with the operators of take()
        # (F, p): the diagonals of G
        self.norm2 = xp.ascontiguousarray(fold_norm2.T[:, self.fold_device])

    @property
    def rows(self):
        """Row ``j`` of every fold's Gram matrix, ``rows[j]`` (p, F): what
        a coordinate's update reads (made at the first, and shared with
        the operators of :meth:`take`; a GPU's kernel sweeps never read
        it)."""
        if self._rows[0] is None:
            self._rows[0] = self.xp.ascontiguousarray(self.G.transpose(1, 2, 0))
        return self._rows[0]

    def _runs(self):
        """``(fold, first, stop)`` of each fold's contiguous columns."""
        edges = np.flatnonzero(np.diff(self.fold)) + 1
        starts = np.concatenate(([0], edges))
        stops = np.concatenate((edges, [self.fold.size]))
        return [(int(self.fold[a]), a, b) for a, b in zip(starts, stops, strict=True)]

    def _product(self, V):
        """``G[fold[c]] @ V[:, c]`` for every column."""
        out = self.xp.empty_like(V)
        for f, a, b in self._runs():
            out[:, a:b] = self.G[f] @ V[:, a:b]
        return out

    def start(self, W):
        self.Qw = self._product(W)

    def grad(self, j):
        return self.B[j] - self.Qw[j]

    def step(self, j, delta):
        self.Qw += self.rows[j][:, self.fold_device] * delta[None, :]

    def bulk(self, Delta):
        self.Qw += self._product(Delta)

    def xtr(self, W):
        return self.B - self.Qw

    def norms(self, W):
        return gram_norms(self, W)

    def take(self, keep):
        xp = self.xp
        keep_host = np.asarray(to_host(keep), dtype=np.int64)
        out = _FoldGramOps.__new__(_FoldGramOps)
        out.G, out.xp, out._rows = self.G, xp, self._rows
        out.fold = self.fold[keep_host]
        out.fold_device = self.fold_device[keep]
        out.B = xp.ascontiguousarray(self.B[:, keep])
        out.norm2 = xp.ascontiguousarray(self.norm2[:, keep])
        out.y_norm2 = self.y_norm2[keep]
        if hasattr(self, "Qw"):
            out.Qw = xp.ascontiguousarray(self.Qw[:, keep])
        return out

    def kernel_sweep(self, W, l1, l2, excluded, skip, positive: bool, done=None):
        """One cyclic sweep on the GPU: the Gram sweep kernel of
        ``gpuml/_cuda/enet.cu`` launched once per fold on the fold's
        columns (views into the (p, k) arrays, whose row stride ``k`` the
        kernel is given), as the solver's ``_kernel_sweep`` does for one
        shared Gram matrix. Returns each candidate's largest update and
        largest coefficient."""
        from gpuml import _cuda

        cupy = self.xp
        n_features, k = W.shape
        d_w_max = cupy.zeros(k, dtype=W.dtype)
        w_max = cupy.zeros(k, dtype=W.dtype)
        if done is not None:
            done = cupy.ascontiguousarray(done).view(cupy.uint8)
        l1, l2 = cupy.ascontiguousarray(l1), cupy.ascontiguousarray(l2)
        excluded = cupy.ascontiguousarray(excluded).view(cupy.uint8)
        skip = cupy.asarray(skip.astype(np.uint8))
        self.Qw = cupy.ascontiguousarray(self.Qw)
        kernel = _cuda.kernel("enet", f"enet_gram_sweep<{_cuda.ctype(W.dtype)}>")
        for f, a, b in self._runs():
            args = (
                self.G[f],
                self.B[:, a:],
                self.Qw[:, a:],
                W[:, a:],
                l1[a:],
                l2[a:],
                excluded[:, a:],
                skip,
                0 if done is None else done[a:],  # stopped candidates: null, or flags
                np.int64(n_features),
                np.int64(k),  # the row stride; the grid has b - a blocks
                np.int32(positive),
                d_w_max[a:],
                w_max[a:],
            )
            kernel((b - a,), (128,), args)
        return d_w_max, w_max


class _FoldDenseOps:
    """Residual operator of candidates that each have their own fold's
    (centred, weighted) dense data, for folds with fewer rows than
    features.

    ``XT`` (F, p, n) holds the folds' X transposed, each padded with rows
    of zeros to the longest fold's ``n`` (a padded row adds zeros to every
    sum and its residual stays zero); candidate ``c`` reads
    ``XT[fold[c]]``, with its own padded target column of ``Y`` (n, k),
    squared column norms ``norm2`` (p, k) and residuals ``R`` (n, k).
    Candidates are ordered by fold, as for :class:`_FoldGramOps`.
    """

    gram = False

    def __init__(self, XT, Y, fold, xp: ModuleType):
        self.XT, self.Y, self.xp = XT, Y, xp
        self.fold = np.asarray(fold, dtype=np.int64)  # host, sorted
        self.fold_device = xp.asarray(self.fold)
        self.fold_norm2 = xp.ascontiguousarray((XT * XT).sum(axis=2))  # (F, p)
        self.norm2 = xp.ascontiguousarray(self.fold_norm2.T[:, self.fold_device])
        self.y_norm2 = (Y * Y).sum(axis=0)

    _runs = _FoldGramOps._runs

    def _column(self, j):
        """Column ``j`` of each candidate's X: (n, k)."""
        return self.XT[:, j, :][self.fold_device].T

    def _product(self, V):
        """``X[fold[c]] @ V[:, c]`` for every column: (n, k)."""
        out = self.xp.empty((self.XT.shape[2], V.shape[1]), dtype=V.dtype)
        for f, a, b in self._runs():
            out[:, a:b] = self.XT[f].T @ V[:, a:b]
        return out

    def start(self, W):
        self.R = self.Y - self._product(W)

    def grad(self, j):
        return (self._column(j) * self.R).sum(axis=0)

    def step(self, j, delta):
        self.R -= self._column(j) * delta[None, :]

    def bulk(self, Delta):
        self.R -= self._product(Delta)

    def xtr(self, W):
        # (W unused: the GPU solver's gap check passes None)
        out = self.xp.empty((self.XT.shape[1], self.R.shape[1]), dtype=self.R.dtype)
        for f, a, b in self._runs():
            out[:, a:b] = self.XT[f] @ self.R[:, a:b]
        return out

    def norms(self, W):
        return (self.R * self.R).sum(axis=0), (self.R * self.Y).sum(axis=0)

    def take(self, keep):
        xp = self.xp
        keep_host = np.asarray(to_host(keep), dtype=np.int64)
        out = _FoldDenseOps.__new__(_FoldDenseOps)
        out.XT, out.xp, out.fold_norm2 = self.XT, xp, self.fold_norm2
        out.fold = self.fold[keep_host]
        out.fold_device = self.fold_device[keep]
        out.Y, out.y_norm2 = self.Y[:, keep], self.y_norm2[keep]
        out.norm2 = xp.ascontiguousarray(self.norm2[:, keep])
        if hasattr(self, "R"):
            out.R = self.R[:, keep]
        return out

    def kernel_sweep(self, W, l1, l2, excluded, skip, positive: bool, done=None):
        """One cyclic sweep on the GPU: the dense sweep kernel of
        ``gpuml/_cuda/enet.cu`` launched once per fold on the fold's columns
        (views into the (n, k) and (p, k) arrays, whose row stride ``k`` the
        kernel is given)."""
        from gpuml import _cuda

        cupy = self.xp
        n_features, k = W.shape
        n_rows = self.XT.shape[2]
        d_w_max = cupy.zeros(k, dtype=W.dtype)
        w_max = cupy.zeros(k, dtype=W.dtype)
        if done is not None:
            done = cupy.ascontiguousarray(done).view(cupy.uint8)
        l1, l2 = cupy.ascontiguousarray(l1), cupy.ascontiguousarray(l2)
        excluded = cupy.ascontiguousarray(excluded).view(cupy.uint8)
        skip = cupy.asarray(skip.astype(np.uint8))
        self.R = cupy.ascontiguousarray(self.R)
        kernel = _cuda.kernel("enet", f"enet_dense_sweep<{_cuda.ctype(W.dtype)}>")
        for f, a, b in self._runs():
            args = (
                self.XT[f],
                self.fold_norm2[f],
                self.R[:, a:],
                W[:, a:],
                l1[a:],
                l2[a:],
                excluded[:, a:],
                skip,
                0 if done is None else done[a:],
                np.int64(n_rows),
                np.int64(n_features),
                np.int64(k),  # the row stride; the grid has b - a blocks
                np.int32(positive),
                d_w_max[a:],
                w_max[a:],
            )
            kernel((b - a,), (256,), args)  # ENET_THREADS of enet.cu
        return d_w_max, w_max


def _fold_gram_ops(folds, xp: ModuleType):
    """The :class:`_FoldGramOps` of the folds' Gram operators (``_GramOps``
    of ``n_l1`` candidates each: the statistics as the fold's own fit reads
    them, on the CPU or the GPU)."""
    return _FoldGramOps(
        xp.stack([ops.G for ops in folds]),
        xp.concatenate([ops.B for ops in folds], axis=1),
        xp.concatenate([ops.y_norm2 for ops in folds]),
        xp.stack([ops.norm2 for ops in folds]),
        np.repeat(np.arange(len(folds)), [ops.B.shape[1] for ops in folds]),
        xp,
    )


def _fold_dense_ops(folds, xp: ModuleType):
    """The :class:`_FoldDenseOps` of the folds' residual operators
    (``_DenseOps`` of ``n_l1`` candidates each, on centred, weighted X)."""
    n_rows = max(ops.X.shape[0] for ops in folds)
    n_features = folds[0].X.shape[1]
    widths = [ops.Y.shape[1] for ops in folds]
    XT = xp.zeros((len(folds), n_features, n_rows), dtype=folds[0].X.dtype)
    Y = xp.zeros((n_rows, sum(widths)), dtype=folds[0].X.dtype)
    at = 0
    for f, ops in enumerate(folds):
        n = ops.X.shape[0]
        XT[f, :, :n] = ops.X.T
        Y[:n, at : at + widths[f]] = ops.Y
        at += widths[f]
    return _FoldDenseOps(XT, Y, np.repeat(np.arange(len(folds)), widths), xp)


# --------------------------------------------------------------------------
# The alpha grid, the paths, the held-out errors
# --------------------------------------------------------------------------


def alpha_grid(X, y, sw, *, l1_ratio, fit_intercept, eps, n_alphas, positive, xp):
    """scikit-learn's ``_alpha_grid`` on the whole data (``sw`` the
    unscaled weights or None): ``alpha_max``, the smallest alpha whose
    coefficients are all zero, down to ``eps * alpha_max``, host float64."""
    if l1_ratio == 0:
        raise ValueError(
            "Automatic alpha grid generation is not supported for"
            " l1_ratio=0. Please supply a grid by providing "
            "your estimator with the appropriate `alphas=` "
            "argument."
        )
    if fit_intercept:
        y = y - column_mean(y[:, None], sw, xp=xp)[0]
        if is_sparse(X):
            weights = xp.ones(X.shape[0], dtype=X.dtype) if sw is None else sw
            X_mean = xp.asarray(sparse_t_dot(X, weights, xp)) / weights.sum()
        else:
            X_mean = column_mean(X, sw, xp=xp)
    yw = y if sw is None else y * sw
    Xyw = xp.asarray(sparse_t_dot(X, yw, xp) if is_sparse(X) else X.T @ yw)
    if fit_intercept:
        Xyw = Xyw - X_mean * yw.sum()
    n_samples = X.shape[0] if sw is None else float(sw.sum())
    if positive:
        top = max(0.0, float(Xyw.max()))
    else:
        top = float(xp.sqrt((Xyw * Xyw).max()))
    alpha_max = top / (n_samples * l1_ratio)
    if alpha_max <= np.finfo(np.float64).resolution:
        return np.full(n_alphas, np.finfo(np.float64).resolution)
    return np.geomspace(alpha_max, alpha_max * eps, num=n_alphas)


def _path(ops, l1, l2, seeds, n_features, dtype, *, max_iter, tol, positive, xp):
    """The coefficients (n_alphas, p, k) of ``k`` candidates along their
    paths: at step ``i`` candidate ``c`` has the penalties ``l1[i, c]``,
    ``l2[i, c]`` (host, solver units) and starts from its step ``i - 1``."""
    n_steps, k = l1.shape
    W = xp.zeros((n_features, k), dtype=dtype)
    out = xp.empty((n_steps, n_features, k), dtype=dtype)
    for i in range(n_steps):
        W, _, _, _ = enet_coordinate_descent_batch(
            ops,
            W,
            xp.asarray(l1[i].astype(dtype)),
            xp.asarray(l2[i].astype(dtype)),
            max_iter=max_iter,
            tol=tol,
            positive=positive,
            seeds=None if seeds is None else seeds[i],
            xp=xp,
        )
        out[i] = W
    return out


def _penalties(alphas, l1_ratios, n_samples):
    """Solver units of ``alphas`` (n_l1, n_alphas): ``(l1, l2)`` as
    (n_alphas, n_l1) host arrays."""
    ratios = np.asarray(l1_ratios, dtype=np.float64)[:, None]
    l1 = alphas * ratios * n_samples
    l2 = alphas * (1.0 - ratios) * n_samples
    return l1.T, l2.T


def path_mse(
    X,
    y,
    sw,
    folds,
    alphas,
    l1_ratios,
    *,
    fit_intercept: bool,
    precompute,
    max_iter: int,
    tol: float,
    positive: bool,
    seeds,
    n_jobs=None,
    xp: ModuleType,
):
    """Held-out mean squared errors (n_l1, n_folds, n_alphas), host, of
    the paths of every ``l1_ratio`` (the rows of ``alphas``) on every fold,
    as scikit-learn's ``_path_residuals`` computes them. ``seeds`` (n_l1,
    n_folds, n_alphas) selects coordinates at random, or is None."""
    n_features = X.shape[1]
    n_l1, n_alphas = alphas.shape
    # "auto": gpuml's own choice (the Gram form where n_train >= p, see _prepare)
    flag = False if isinstance(precompute, str) else precompute
    fits = {}  # fold -> (coefs (n_alphas, p, n_l1), X_offset, y_offset)
    # (fold, operator, X_offset, y_offset, n_train) by form: the folds whose
    # paths run as one batch on the GPU; where scikit-learn's compiled solver
    # fits each problem (the CPU, and random selection on the GPU, which has
    # no sweep kernel: on a host copy of the fold's operator), every fold
    # runs its own paths
    own = solver.COMPILED_CPU and (xp is np or seeds is not None)
    batched = {} if own else {"gram": [], "dense": []}
    solve = dict(max_iter=max_iter, tol=tol, positive=positive, xp=xp)

    def fit_fold(f, train):
        """The fold's own paths (``f, coefs, X_offset, y_offset``), or its
        entry of a GPU batch (``kind, entry``)."""
        rows = xp.asarray(train)
        X_train, y_train = X[rows], y[rows]
        sw_train = None
        if sw is not None:
            sw_train = sw[rows]
            sw_train = sw_train * (X_train.shape[0] / sw_train.sum())
            if not is_sparse(X) and bool((sw_train < 0).any()):
                # scikit-learn's fold, scaled by the weights' square roots,
                # then fails its check
                raise ValueError("Input contains NaN.")
        data = _prepare(
            X_train,
            y_train[:, None],
            sw_train,
            fit_intercept=fit_intercept,
            precompute=flag,
            overwrite_X=True,  # X[rows] is a fresh copy
            xp=xp,
        )
        n_train = X_train.shape[0]
        if data.kind in batched:
            # the fold's operator, as its own fit reads its data (the Gram
            # form keeps its statistics only)
            ops = data.ops([0] * n_l1)
            return data.kind, (f, ops, data.X_offset, data.y_offset, n_train)
        # the fold's own descent per step, over its l1_ratios
        l1, l2 = _penalties(alphas, l1_ratios, n_train)
        fold_seeds = None if seeds is None else seeds[:, f, :].T
        coefs = _path(
            data.ops([0] * n_l1), l1, l2, fold_seeds, n_features, X.dtype, **solve
        )
        return f, (coefs, data.X_offset, data.y_offset)

    # Folds that run their own paths (scikit-learn's compiled solver, which
    # releases the GIL: the CPU, and wide sparse X or random selection on the
    # GPU) run ``n_jobs`` at a time in threads, as scikit-learn's own
    # LinearModelCV runs them; the threading backend whatever joblib's
    # configured one (a Dask backend would ship device arrays to workers).
    if effective_n_jobs(n_jobs) == 1:
        results = [fit_fold(f, train) for f, (train, _) in enumerate(folds)]
    else:
        results = Parallel(n_jobs=n_jobs, backend="threading")(
            delayed(fit_fold)(f, train) for f, (train, _) in enumerate(folds)
        )
    for key, value in results:
        if key in batched:
            batched[key].append(value)
        else:
            fits[key] = value
    del results
    for kind, group in batched.items():
        if not group:
            continue
        # every (fold, l1_ratio) pair a candidate of one descent per step
        folds_ops = [entry[1] for entry in group]
        if kind == "gram":
            ops = _fold_gram_ops(folds_ops, xp)
        else:
            ops = _fold_dense_ops(folds_ops, xp)
        del folds_ops
        parts = [_penalties(alphas, l1_ratios, entry[4]) for entry in group]
        l1 = np.concatenate([p[0] for p in parts], axis=1)
        l2 = np.concatenate([p[1] for p in parts], axis=1)
        chosen = None
        if seeds is not None:  # (n_alphas, k)
            chosen = np.concatenate([seeds[:, e[0], :].T for e in group], axis=1)
        coefs = _path(ops, l1, l2, chosen, n_features, X.dtype, **solve)
        del ops
        for i, (f, _, X_offset, y_offset, _) in enumerate(group):
            part = coefs[:, :, i * n_l1 : (i + 1) * n_l1]
            fits[f] = (part, X_offset, y_offset)
    mse = []
    for f, (_, test) in enumerate(folds):
        coefs, X_offset, y_offset = fits[f]
        # (p, n_l1 * n_alphas), l1_ratio-major
        C = coefs.transpose(1, 2, 0).reshape(n_features, n_l1 * n_alphas)
        rows = xp.asarray(test)
        intercepts = y_offset - X_offset @ C
        residues = xp.asarray(X[rows] @ C) - y[rows][:, None]
        residues += intercepts[None, :]
        squared = residues**2
        if sw is None:
            fold_mse = squared.mean(axis=0)
        else:
            w = sw[rows]
            fold_mse = (squared * w[:, None]).sum(axis=0) / w.sum()
        mse.append(fold_mse.reshape(n_l1, n_alphas))
    return np.asarray(to_host(xp.stack(mse))).transpose(1, 0, 2)


def _path_seeds(random_state, n_l1: int, n_folds: int, n_alphas: int):
    """The seeds scikit-learn's solver draws along the paths: one per
    alpha, from a generator checked afresh for each (l1_ratio, fold) path,
    in the order scikit-learn runs them."""
    seeds = np.empty((n_l1, n_folds, n_alphas), dtype=np.int64)
    for r in range(n_l1):
        for f in range(n_folds):
            rng = check_random_state(random_state)
            seeds[r, f] = [rng.randint(0, _RAND_R_MAX) for _ in range(n_alphas)]
    return seeds
