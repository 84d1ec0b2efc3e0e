"""LassoCV and ElasticNetCV: the penalty chosen by cross-validation along a
regularisation path, on the GPU or the CPU.

scikit-learn (``LinearModelCV``) fits, for every ``l1_ratio`` and every
fold, the whole alpha path by coordinate descent, each alpha warm-started
from the previous one, then scores every model on the fold's held-out rows.
gpuml computes the same models with the same updates
(:func:`~gpuml.linear_model._coordinate_descent.enet_coordinate_descent_batch`),
but fits the paths together:

- Each fold's data are taken from the device-resident X by an index array
  (never through the host), centred and weighted as scikit-learn's
  ``_pre_fit`` does (the fold's own means and weights: nothing depends on
  rows outside the fold).
- For dense X every (fold, ``l1_ratio``) pair is a candidate of **one
  batched coordinate descent per path step**, warm-started from its
  previous alpha and stopped by scikit-learn's duality-gap rule; the
  candidates share nothing but the step, each reads its own fold's data:
  the fold's Gram statistics where the fold has at least as many training
  rows as features or ``precompute=True`` (:class:`_FoldGramOps`; only the
  statistics are kept), else the fold's centred X, padded with rows of
  zeros to the longest fold, and residuals (:class:`_FoldDenseOps`). On a
  GPU a sweep is one launch of the Gram or dense sweep kernel per fold (all
  the fold's ``l1_ratio`` candidates).
- Sparse X (never densified) runs one batched descent per fold and step,
  over the fold's ``l1_ratio`` candidates.
- The held-out mean squared errors of every (``l1_ratio``, alpha, fold) are
  computed at the end, one matrix product per fold, and reach the host in
  one transfer.

The best alpha is then refitted on all the data by gpuml's
:class:`~gpuml.linear_model.Lasso` / :class:`~gpuml.linear_model.ElasticNet`.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state, check_scalar
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_family_attribute,
    to_host,
)
from gpuml._reductions import column_mean
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    routing_enabled,
    validate_estimator_params,
)
from gpuml._validation import FLOAT_DTYPES, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._coordinate_descent import (
    _RAND_R_MAX,
    NON_FINITE,
    ElasticNet,
    Lasso,
    _prepare,
    enet_coordinate_descent_batch,
)
from gpuml.linear_model._ridge_cv import raise_for_params

_ACCEPT_SPARSE = ("csr", "csc", "coo")


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
        """``(||R||², Rᵀy)`` per candidate."""
        qw = (W * self.B).sum(axis=0)
        return self.y_norm2 + (W * self.Qw).sum(axis=0) - 2.0 * qw, self.y_norm2 - qw

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
        out = self.xp.empty((self.XT.shape[1], self.R.shape[1]), dtype=W.dtype)
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
            X_mean = xp.asarray(X.T @ weights) / weights.sum()
        else:
            X_mean = column_mean(X, sw, xp=xp)
    yw = y if sw is None else y * sw
    Xyw = xp.asarray(X.T @ yw)
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
    # (fold, operator, X_offset, y_offset, n_train) by form
    batched = {"gram": [], "dense": []}
    solve = dict(max_iter=max_iter, tol=tol, positive=positive, xp=xp)
    for f, (train, _) in enumerate(folds):
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
            batched[data.kind].append((f, ops, data.X_offset, data.y_offset, n_train))
            del data
            continue
        # sparse: the fold's own descent per step, over its l1_ratios
        l1, l2 = _penalties(alphas, l1_ratios, n_train)
        fold_seeds = None if seeds is None else seeds[:, f, :].T
        coefs = _path(
            data.ops([0] * n_l1), l1, l2, fold_seeds, n_features, X.dtype, **solve
        )
        fits[f] = (coefs, data.X_offset, data.y_offset)
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


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class _LinearModelCV(
    LinearRegressorMixin, RegressorMixin, DeviceCacheMixin, BaseEstimator
):
    """What LassoCV and ElasticNetCV share (scikit-learn's
    ``LinearModelCV``)."""

    _parameter_constraints: dict = {
        "eps": [Interval(Real, 0, None, closed="neither")],
        "alphas": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "precompute": [StrOptions({"auto"}), "array-like", "boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "copy_X": ["boolean"],
        "cv": ["cv_object"],
        "verbose": ["verbose"],
        "n_jobs": [Integral, None],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    _predict_xp = ElasticNet._predict_xp

    def _l1_ratios(self) -> np.ndarray:
        return np.atleast_1d(getattr(self, "l1_ratio", 1.0))

    def fit(self, X, y, sample_weight=None, **params):
        """Fit the model along the alpha path, choosing alpha (and
        ``l1_ratio``) by cross-validation, then refit on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), \
                default=None
            Sample weights, used for fitting and for the weighted mean
            squared error of each test fold (the folds' errors are then
            averaged unweighted, as in scikit-learn).
        **params : dict
            Parameters for the CV splitter (with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        raise_for_params(params, self, "fit")
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = validate_data(
            self,
            X,
            y,
            xp=xp,
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
        if y.ndim > 1 and y.shape[1] > 1:
            raise ValueError(
                f"For multi-task outputs, use MultiTask{type(self).__name__}"
            )
        if y.ndim == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples, ), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=2,
            )
            y = y.ravel()
        if is_sparse(X):
            X = X.tocsr()  # rows are taken per fold
        if isinstance(sample_weight, numbers.Number):
            sample_weight = None
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
        l1_ratios = self._l1_ratios()
        alphas = self._alphas(X, y, sample_weight, l1_ratios, xp)

        cv = check_cv(self.cv)
        if routing_enabled():
            routed = process_routing(self, "fit", sample_weight=sample_weight, **params)
            split_params = routed.splitter.split
        else:
            split_params = {}
        placeholder = np.broadcast_to(np.float64(0), (X.shape[0], 1))
        y_host = np.asarray(to_host(y))
        folds = list(cv.split(placeholder, y_host, **split_params))
        n_l1, n_folds, n_alphas = len(l1_ratios), len(folds), alphas.shape[1]
        seeds = _path_seeds(self.random_state, n_l1, n_folds, n_alphas)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            mse_paths = path_mse(
                X,
                y,
                sample_weight,
                folds,
                alphas,
                l1_ratios,
                fit_intercept=self.fit_intercept,
                precompute=self.precompute,
                max_iter=self.max_iter,
                tol=self.tol,
                positive=self.positive,
                seeds=seeds if self.selection == "random" else None,
                xp=xp,
            )
        mean_mse = np.mean(mse_paths, axis=1)
        self.mse_path_ = np.squeeze(np.moveaxis(mse_paths, 2, 1))
        best_mse = np.inf
        grid = zip(l1_ratios, alphas, mean_mse, strict=True)
        for l1_ratio, l1_alphas, mse_alphas in grid:
            i_best = np.argmin(mse_alphas)
            if mse_alphas[i_best] < best_mse:
                best_alpha = l1_alphas[i_best]
                best_l1_ratio = l1_ratio
                best_mse = mse_alphas[i_best]
        if not np.isfinite(best_mse):
            raise ValueError(NON_FINITE)
        self.alpha_ = best_alpha
        if isinstance(self.alphas, Integral):
            self.alphas_ = alphas[0] if n_l1 == 1 else alphas
        else:
            self.alphas_ = alphas[0]
        if hasattr(self, "l1_ratio"):
            self.l1_ratio_ = best_l1_ratio

        # the arrays in the training input's family (host for host input)
        self.mse_path_ = to_family(self.mse_path_, family)
        self.alphas_ = to_family(self.alphas_, family)
        model = self._refit_model(best_alpha, best_l1_ratio)
        model.fit(X, y, sample_weight=sample_weight)
        self.coef_ = to_family(model.coef_, family)
        intercept = model.intercept_
        if not isinstance(intercept, float):  # 0.0 without an intercept
            intercept = to_family_attribute(intercept, family)
        self.intercept_ = intercept
        self.dual_gap_ = model.dual_gap_  # a host float, as ElasticNet's
        self.n_iter_ = model.n_iter_
        return self

    def _alphas(self, X, y, sample_weight, l1_ratios, xp) -> np.ndarray:
        """The grid (n_l1, n_alphas), host, each row decreasing."""
        if isinstance(self.alphas, Integral):
            return np.asarray(
                [
                    alpha_grid(
                        X,
                        y,
                        sample_weight,
                        l1_ratio=float(l1_ratio),
                        fit_intercept=self.fit_intercept,
                        eps=self.eps,
                        n_alphas=self.alphas,
                        positive=self.positive,
                        xp=xp,
                    )
                    for l1_ratio in l1_ratios
                ]
            )
        for index, alpha in enumerate(self.alphas):
            check_scalar(
                alpha,
                f"alphas[{index}]",
                target_type=Real,
                min_val=0.0,
                include_boundaries="left",
            )
        return np.tile(np.sort(self.alphas)[::-1], (len(l1_ratios), 1))

    def _refit_model(self, alpha, l1_ratio):
        """The estimator refitted on all the data with the chosen penalty."""
        precompute = self.precompute
        if isinstance(precompute, str) and precompute == "auto":
            precompute = False
        common = dict(
            alpha=alpha,
            fit_intercept=self.fit_intercept,
            precompute=precompute,
            max_iter=self.max_iter,
            tol=self.tol,
            copy_X=self.copy_X,
            positive=self.positive,
            random_state=self.random_state,
            selection=self.selection,
        )
        if hasattr(self, "l1_ratio"):
            return ElasticNet(l1_ratio=l1_ratio, **common)
        return Lasso(**common)

    def get_metadata_routing(self):
        """Get metadata routing of this object (as scikit-learn's).

        Returns
        -------
        routing : MetadataRouter
            The routing of ``fit``'s metadata to the CV splitter.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                splitter=check_cv(self.cv),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags


_COMMON_PARAMETERS = """
    eps : float, default=1e-3
        Length of the path: ``alpha_min / alpha_max = eps``.
    alphas : int or array-like, default=100
        The number of alphas of the automatic grid (from the smallest alpha
        whose coefficients are all zero down to ``eps`` times it, on a log
        scale), or the alphas themselves (tried in decreasing order).
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    precompute : "auto", bool or array-like of shape (n_features, \
n_features), default="auto"
        Whether to use a Gram matrix. gpuml forms each fold's Gram matrix
        whenever X is dense and the fold has at least as many rows as
        features (the same updates; ``True`` forces it for wide folds); a
        given matrix is checked against each fold, as scikit-learn does.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates, per alpha.
    tol : float, default=1e-4
        Tolerance of scikit-learn's stopping rule (the duality gap).
    copy_X : bool, default=True
        If False, X may be centred in place by the final refit.
    cv : int, cross-validation generator or iterable, default=None
        The splitting strategy (None: 5-fold :class:`~sklearn.model_selection.KFold`).
    verbose : bool or int, default=False
        Accepted for compatibility; gpuml prints nothing.
    n_jobs : int, default=None
        Accepted for compatibility: the folds are fitted together, on the
        compute device.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``, drawn
        as scikit-learn draws it.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or at random."""


class LassoCV(_LinearModelCV):
    """Lasso with the alpha chosen by cross-validation, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.LassoCV` (same
    parameters, attributes and results): the alpha path of every fold is
    fitted by coordinate descent with scikit-learn's updates and stopping
    rule, each alpha warm-started from the previous one, all folds together
    (one batched descent per path step, see the module), and the alpha of
    the least mean held-out squared error is refitted on all the data.

    Parameters
    ----------%s

    Attributes
    ----------
    alpha_ : float
        The alpha chosen by cross-validation.
    coef_ : ndarray of shape (n_features,)
        Coefficients of the refitted model, NumPy or CuPy like the
        training X.
    intercept_ : float
        Independent term.
    mse_path_ : ndarray of shape (n_alphas, n_folds)
        Mean squared error on each fold's test set, for each alpha.
    alphas_ : ndarray of shape (n_alphas,)
        The alphas tried, decreasing.
    dual_gap_ : float
        The duality gap of the refit.
    n_iter_ : int
        Sweeps run by the refit's solver.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Lasso : The Lasso with a given alpha.
    ElasticNetCV : The elastic net with alpha and ``l1_ratio`` chosen by
        cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LassoCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = X @ np.array([2.0, 0.0, -1.0, 0.0, 0.0, 0.5]) + 0.1 * rng.normal(size=200)
    >>> model = LassoCV(cv=5).fit(X, y)
    >>> model.mse_path_.shape
    (100, 5)
    >>> np.round(model.coef_, 1)
    array([ 2. ,  0. , -1. ,  0. ,  0. ,  0.5])
    """

    def __init__(
        self,
        *,
        eps=1e-3,
        alphas=100,
        fit_intercept=True,
        precompute="auto",
        max_iter=1000,
        tol=1e-4,
        copy_X=True,
        cv=None,
        verbose=False,
        n_jobs=None,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.eps = eps
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.tol = tol
        self.copy_X = copy_X
        self.cv = cv
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.positive = positive
        self.random_state = random_state
        self.selection = selection


class ElasticNetCV(_LinearModelCV):
    """Elastic net with alpha and ``l1_ratio`` chosen by cross-validation,
    on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.ElasticNetCV`
    (same parameters, attributes and results): the alpha path of every
    fold and every ``l1_ratio`` is fitted by coordinate descent with
    scikit-learn's updates and stopping rule, each alpha warm-started from
    the previous one, all (fold, ``l1_ratio``) pairs together (one batched
    descent per path step, see the module); the pair of least mean held-out
    squared error is refitted on all the data.

    Parameters
    ----------
    l1_ratio : float or list of float, default=0.5
        The mixing parameter(s) to try, ``0 <= l1_ratio <= 1`` (1: the
        lasso penalty). The automatic alpha grid needs ``l1_ratio > 0``.%s

    Attributes
    ----------
    alpha_ : float
        The alpha chosen by cross-validation.
    l1_ratio_ : float
        The ``l1_ratio`` chosen by cross-validation.
    coef_ : ndarray of shape (n_features,)
        Coefficients of the refitted model, NumPy or CuPy like the
        training X.
    intercept_ : float
        Independent term.
    mse_path_ : ndarray of shape (n_l1_ratio, n_alphas, n_folds)
        Mean squared error on each fold's test set (the ``l1_ratio`` axis
        dropped when there is one).
    alphas_ : ndarray of shape (n_alphas,) or (n_l1_ratio, n_alphas)
        The alphas tried for each ``l1_ratio``, decreasing.
    dual_gap_ : float
        The duality gap of the refit.
    n_iter_ : int
        Sweeps run by the refit's solver.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ElasticNet : The elastic net with given penalties.
    LassoCV : The Lasso with alpha chosen by cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import ElasticNetCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = X @ np.array([2.0, 0.0, -1.0, 0.0, 0.0, 0.5]) + 0.1 * rng.normal(size=200)
    >>> model = ElasticNetCV(l1_ratio=[0.5, 0.9, 1.0], cv=5).fit(X, y)
    >>> model.mse_path_.shape
    (3, 100, 5)
    >>> float(model.l1_ratio_)
    1.0
    >>> np.round(model.coef_, 1)
    array([ 2. ,  0. , -1. ,  0. ,  0. ,  0.5])
    """

    _parameter_constraints: dict = {
        **_LinearModelCV._parameter_constraints,
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), "array-like"],
    }

    def __init__(
        self,
        *,
        l1_ratio=0.5,
        eps=1e-3,
        alphas=100,
        fit_intercept=True,
        precompute="auto",
        max_iter=1000,
        tol=1e-4,
        cv=None,
        copy_X=True,
        verbose=0,
        n_jobs=None,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.l1_ratio = l1_ratio
        self.eps = eps
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.tol = tol
        self.cv = cv
        self.copy_X = copy_X
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.positive = positive
        self.random_state = random_state
        self.selection = selection


LassoCV.__doc__ %= _COMMON_PARAMETERS
ElasticNetCV.__doc__ %= _COMMON_PARAMETERS
