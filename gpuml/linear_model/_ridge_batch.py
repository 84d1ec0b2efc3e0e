"""Ridge's batched fit: every alpha of a search, on every fold, at once.

This is Ridge's side of the batched-candidates protocol of
:mod:`gpuml.model_selection` (see ``docs/search.rst``): the search hands
:meth:`Ridge._fit_batch <gpuml.linear_model.Ridge._fit_batch>` the whole
(device-resident) data, the training rows of each fold and the alphas of a
group of candidates, and gets back, per fold, a :class:`RidgeBatch` whose
``predict`` returns all candidates' predictions as one stacked array.

All alphas of a fold share one eigendecomposition of the fold's centred
Gram matrix, whose statistics :mod:`~gpuml.linear_model._ridge_moments`
builds from the fold's own rows only (the numerics, and what was measured,
are described there). Sparse or wide data take one path of
eigendecompositions per fold (the Gram or kernel matrix of the fold's rows).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gpuml._array import is_sparse, namespace_of
from gpuml._validation import (
    FLOAT_DTYPES,
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_X_y,
)
from gpuml.base import BatchUnsupported
from gpuml.linear_model._ridge_moments import (
    _check_fold_weights,
    _DeviceRidgeMoments,
    _RidgeMoments,
)
from gpuml.linear_model._ridge_problem import (
    _ACCEPT_SPARSE,
    _check_alpha,
    _dense_targets,
    _make_problem,
    _path_from_problem,
)

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
            dtype=NUMERIC_FLOAT,  # as Ridge.predict: no strings
        )
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but Ridge is expecting "
                f"{n_features} features as input."
            )
        xp = namespace_of(self.coefs)
        if xp is np or is_sparse(X):
            if X.dtype != self.coefs.dtype:
                X = X.astype(self.coefs.dtype)
            flat = X @ self.coefs.reshape(k * n_targets, n_features).T
            out = flat.reshape(X.shape[0], k, n_targets).transpose(1, 0, 2)
            out = out + self.intercepts[:, None, :]
        else:  # one GEMM and one kernel that adds the intercepts
            from gpuml import _cuda

            X = _cuda.cast(X, self.coefs.dtype)
            flat = X @ self.coefs.reshape(k * n_targets, n_features).T
            out = xp.empty((k, X.shape[0], n_targets), dtype=flat.dtype)
            n = X.shape[0]
            _cuda.launch(
                "ridge",
                f"add_intercepts<{_cuda.ctype(flat.dtype)}>",
                flat.size,
                (
                    xp.ascontiguousarray(flat),
                    _cuda.cast(xp.ascontiguousarray(self.intercepts), flat.dtype),
                    np.int64(n),
                    np.int64(k),
                    np.int64(n_targets),
                    out,
                ),
            )
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
    alphas = xp.asarray(
        np.stack(
            [_check_alpha(ps["alpha"], Y.shape[1], X.dtype, np) for ps in param_sets]
        )
    )  # (k, n_targets), stacked on the host: one copy, no kernel
    if folds is None:
        folds = [None]
    n_features = X.shape[1]
    smallest_fold = min(X.shape[0] if f is None else f.shape[0] for f in folds)
    if not is_sparse(X) and n_features <= min(smallest_fold, _MAX_SYSTEM):
        moments = _RidgeMoments if xp is np else _DeviceRidgeMoments
        solve = moments(X, Y, sample_weight, ridge.fit_intercept, xp, folds)
        return (
            RidgeBatch(*solve(fold, alphas), single_target)
            for fold in range(len(folds))
        )
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
        train = xp.asarray(train)  # host indices, as the search gives them
        X, Y = X[train], Y[train]
        sample_weight = None if sample_weight is None else sample_weight[train]
    _check_fold_weights(sample_weight, xp)
    problem = _make_problem(
        X,
        Y,
        sample_weight,
        fit_intercept=fit_intercept,
        overwrite_X=train is not None,  # X[train] is a fresh copy
        xp=xp,
    )
    return _path_from_problem(problem, alphas, xp)


__all__ = ["RidgeBatch", "fit_batch"]
