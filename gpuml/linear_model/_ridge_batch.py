"""Ridge's batched fit: every alpha of a search, on every fold, at once.

This is Ridge's side of the batched-candidates protocol of
:mod:`gpuml.model_selection` (see ``docs/search.rst``): the search hands
:meth:`Ridge._fit_batch <gpuml.linear_model.Ridge._fit_batch>` the whole
(device-resident) data, the training rows of each fold and the alphas of a
group of candidates, and gets back, per fold, a :class:`RidgeBatch` whose
``predict`` returns all candidates' predictions as one stacked array.

The algebra, for dense data with more samples than features:

- All alphas share one eigendecomposition of the fold's centred Gram matrix
  ``Xᵀ W X``, so a fold costs one fit plus a small product per alpha.
- The folds share the Gram matrix of the whole data: a fold's Gram is the
  whole one minus that of the rows it leaves out (its test rows for
  ``KFold``), so each fold costs a pass over its *held-out* rows only.
  The data are first shifted by their global column means, which leaves the
  fitted models unchanged (there is an intercept) and keeps the subtraction
  free of cancellation in float32.

Sparse or wide data take one :func:`~gpuml.linear_model.ridge_path` per
fold (the Gram or kernel matrix of the fold's rows, eigendecomposed once).
"""

from __future__ import annotations

from types import ModuleType

from gpuml._array import is_sparse, namespace_of
from gpuml._reductions import column_mean
from gpuml._validation import (
    FLOAT_DTYPES,
    check_array,
    check_sample_weight,
    check_X_y,
)
from gpuml.base import BatchUnsupported
from gpuml.linear_model._ridge import (
    _ACCEPT_SPARSE,
    _check_alpha,
    _dense_targets,
    _eigh_solve,
    _make_problem,
    _path_from_problem,
)

# Rows of X (times n_features) handled per GEMM when accumulating a Gram.
_CHUNK_ELEMENTS = 1 << 24
# Largest dense system (features, or samples for wide data) solved in a batch.
_MAX_SYSTEM = 8192


class RidgeBatch:
    """``k`` fitted ridge models (one per candidate) sharing one training fold.

    Parameters
    ----------
    coefs : array of shape (k, n_targets, n_features)
    intercepts : array of shape (k, n_targets)
    single_target : bool
        Whether ``y`` was 1-D (predictions are then (k, n_samples)).
    """

    def __init__(self, coefs, intercepts, single_target: bool):
        self.coefs = coefs
        self.intercepts = intercepts
        self.single_target = single_target

    def __len__(self) -> int:
        return self.coefs.shape[0]

    def predict(self, X):
        """Stacked predictions: (k, n_samples) or (k, n_samples, n_targets)."""
        k, n_targets, n_features = self.coefs.shape
        X = check_array(
            X,
            xp=namespace_of(self.coefs),
            accept_sparse=_ACCEPT_SPARSE,
            dtype=FLOAT_DTYPES,
        )
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but Ridge is expecting "
                f"{n_features} features as input."
            )
        if X.dtype != self.coefs.dtype:
            X = X.astype(self.coefs.dtype)
        flat = X @ self.coefs.reshape(k * n_targets, n_features).T
        out = flat.reshape(X.shape[0], k, n_targets).transpose(1, 0, 2)
        out = out + self.intercepts[:, None, :]
        return out[:, :, 0] if self.single_target else out


def fit_batch(ridge, X, y, param_sets, *, folds, sample_weight, xp: ModuleType):
    """Fit ``ridge`` with each ``alpha`` of ``param_sets`` on each fold.

    Returns a generator of :class:`RidgeBatch`, one per entry of ``folds``
    (arrays of training-row indices; ``None`` means one fold of all rows).
    Raises if any candidate's fit would (the search then fits one by one).
    """
    X, y = check_X_y(
        X,
        y,
        xp=xp,
        accept_sparse=_ACCEPT_SPARSE,
        dtype=FLOAT_DTYPES,
        multi_output=True,
        y_numeric=True,
    )
    y = _dense_targets(y)
    single_target = y.ndim == 1
    Y = y.reshape(-1, 1) if single_target else y
    if sample_weight is not None:
        sample_weight = check_sample_weight(
            sample_weight, X.shape[0], xp=xp, dtype=X.dtype
        )
    alphas = xp.stack(
        [_check_alpha(ps["alpha"], Y.shape[1], X.dtype, xp) for ps in param_sets]
    )  # (k, n_targets)
    if folds is None:
        folds = [None]
    n_features = X.shape[1]
    smallest_fold = min(X.shape[0] if f is None else f.shape[0] for f in folds)
    if not is_sparse(X) and n_features <= min(smallest_fold, _MAX_SYSTEM):
        solve = _GramDowndater(X, Y, sample_weight, ridge.fit_intercept, xp)
        return (RidgeBatch(*solve(train, alphas), single_target) for train in folds)
    if min(n_features, smallest_fold) > _MAX_SYSTEM:
        raise BatchUnsupported("the fold's Gram and kernel matrices are too large")
    return (
        RidgeBatch(
            *_fit_rows(X, Y, sample_weight, train, alphas, ridge.fit_intercept, xp),
            single_target,
        )
        for train in folds
    )


def _fit_rows(X, Y, sample_weight, train, alphas, fit_intercept, xp):
    """All alphas on the rows ``train`` (sparse or wide data): one path."""
    if train is not None:
        X, Y = X[train], Y[train]
        sample_weight = None if sample_weight is None else sample_weight[train]
    problem = _make_problem(
        X,
        Y,
        sample_weight,
        fit_intercept=fit_intercept,
        overwrite_X=train is not None,  # X[train] is a fresh copy
        xp=xp,
    )
    return _path_from_problem(problem, alphas, xp)


class _GramDowndater:
    """Per-fold ridge solutions from the Gram matrix of the whole data.

    The statistics of the whole (shifted, weighted) data are computed once,
    on first use; a fold's are those minus the statistics of the rows it
    leaves out, or computed directly from its rows when they are fewer.
    """

    def __init__(self, X, Y, weights, fit_intercept: bool, xp: ModuleType):
        self.X, self.Y, self.weights, self.xp = X, Y, weights, xp
        self.fit_intercept = fit_intercept
        if fit_intercept:
            self.shift_x = column_mean(X, xp=xp)
            self.shift_y = column_mean(Y, xp=xp)
        else:
            self.shift_x = xp.zeros(X.shape[1], dtype=X.dtype)
            self.shift_y = xp.zeros(Y.shape[1], dtype=X.dtype)
        self._whole = None

    def __call__(self, train, alphas):
        xp = self.xp
        n_samples = self.X.shape[0]
        if train is None:
            stats = self._statistics(None)
        else:
            left_out = xp.ones(n_samples, dtype=bool)
            left_out[train] = False
            left_out = xp.flatnonzero(left_out)
            if left_out.shape[0] < train.shape[0]:
                if self._whole is None:
                    self._whole = self._statistics(None)
                removed = self._statistics(left_out)
                stats = [a - b for a, b in zip(self._whole, removed, strict=True)]
            else:
                stats = self._statistics(train)
        gram, cross, sum_x, sum_y, total = stats
        if self.fit_intercept:
            mean_x, mean_y = sum_x / total, sum_y / total
            gram = gram - total * xp.outer(mean_x, mean_x)
            cross = cross - total * xp.outer(mean_x, mean_y)
            X_offset, y_offset = mean_x + self.shift_x, mean_y + self.shift_y
        else:
            X_offset, y_offset = self.shift_x, self.shift_y
        coefs = _eigh_solve(gram, cross, alphas, xp).transpose(0, 2, 1)
        intercepts = y_offset[None, :] - coefs @ X_offset
        return coefs, intercepts

    def _statistics(self, rows):
        """``Σw x̃x̃ᵀ, Σw x̃ỹᵀ, Σw x̃, Σw ỹ, Σw`` over ``rows`` (all if None)."""
        xp, X, Y, weights = self.xp, self.X, self.Y, self.weights
        n_rows = X.shape[0] if rows is None else rows.shape[0]
        n_features, n_targets = X.shape[1], Y.shape[1]
        gram = xp.zeros((n_features, n_features), dtype=X.dtype)
        cross = xp.zeros((n_features, n_targets), dtype=X.dtype)
        sum_x = xp.zeros(n_features, dtype=X.dtype)
        sum_y = xp.zeros(n_targets, dtype=X.dtype)
        total = xp.zeros((), dtype=X.dtype)
        step = max(1, _CHUNK_ELEMENTS // max(n_features, 1))
        for lo in range(0, n_rows, step):
            index = slice(lo, lo + step) if rows is None else rows[lo : lo + step]
            Xc = X[index] - self.shift_x
            Yc = Y[index] - self.shift_y
            if weights is None:
                w = xp.ones(Xc.shape[0], dtype=X.dtype)
                Xw = Xc
            else:
                w = weights[index]
                Xw = Xc * w[:, None]
            gram += Xw.T @ Xc
            cross += Xw.T @ Yc
            sum_x += w @ Xc
            sum_y += w @ Yc
            total += w.sum()
        return gram, cross, sum_x, sum_y, total


__all__ = ["RidgeBatch", "fit_batch"]
