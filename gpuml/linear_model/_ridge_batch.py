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

import numpy as np

from gpuml._array import is_sparse, namespace_of, to_host
from gpuml._linalg import block_grams, device_eigh
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
# Rows per block of the GPU's batched Gram GEMM (see _linalg.block_grams).
_GRAM_BLOCK_ROWS = 2048
# Thread blocks of the kernel that forms a chunk's design (one row each).
_DESIGN_BLOCKS = 8192
# Largest system that a GPU Ridge.fit solves by Cholesky on the host in
# float64 (about a millisecond for 256 features) rather than with CuPy.
_HOST_SOLVE_MAX = 1024
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
        downdater = _GramDowndater if xp is np else _DeviceGramDowndater
        solve = downdater(X, Y, sample_weight, ridge.fit_intercept, xp)
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
            self.shift_x, self.shift_y = self._shift(X), self._shift(Y)
        else:
            self.shift_x = xp.zeros(X.shape[1], dtype=X.dtype)
            self.shift_y = xp.zeros(Y.shape[1], dtype=X.dtype)
        self._whole = None

    def _shift(self, A):
        """The columns' means, by which the data are shifted."""
        return column_mean(A, xp=self.xp)

    def _fold_statistics(self, train):
        """The statistics of the rows ``train`` (all if None): the whole
        data's minus those of the rows left out, when those are fewer.

        The left-out rows are found on the host (the fold indices are a
        small integer array; on the GPU this spares a scan kernel).
        """
        if train is None:
            return self._statistics(None)
        host_train = np.asarray(to_host(train))
        left_out = np.ones(self.X.shape[0], dtype=bool)
        left_out[host_train] = False
        left_out = np.flatnonzero(left_out)
        if left_out.shape[0] >= host_train.shape[0]:
            return self._statistics(train)
        if self._whole is None:
            self._whole = self._statistics(None)
        removed = self._statistics(self.xp.asarray(left_out))
        return [a - b for a, b in zip(self._whole, removed, strict=True)]

    def __call__(self, train, alphas):
        xp = self.xp
        gram, cross, sum_x, sum_y, total = self._fold_statistics(train)
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


class _DeviceGramDowndater(_GramDowndater):
    """:class:`_GramDowndater` on the GPU, with gpuml's kernels and cuBLAS only.

    A chunk of rows becomes the augmented design ``Z = [X - sx, Y - sy, 1]``
    (one gather-and-shift kernel; ``Zw = w Z`` with weights), and ``Zwᵀ Z``
    gives all the statistics of the chunk at once: the Gram and cross
    products, the column sums and the total weight. It is computed per block
    of rows by one batched GEMM and the blocks are added up in float64 on
    the device; the downdate and the centring run on the host in float64; the
    eigendecomposition is one cuSOLVER call on the device and the shrinkage
    for every alpha one gpuml kernel between two GEMMs. Nothing here is a
    CuPy element-wise or reduction kernel, so nothing compiles on first use
    but gpuml's own modules.
    """

    def __init__(self, X, Y, weights, fit_intercept: bool, xp: ModuleType):
        from gpuml import _cuda

        # scikit-learn solves in X's dtype, targets and weights included.
        Y = _cuda.cast(xp.ascontiguousarray(Y), X.dtype)
        if weights is not None:
            weights = _cuda.cast(xp.ascontiguousarray(weights), X.dtype)
        super().__init__(xp.ascontiguousarray(X), Y, weights, fit_intercept, xp)

    def _shift(self, A):
        """The columns' means: a cuBLAS product with a vector of ``1 / n``.

        The shift only keeps the sums away from cancellation (any shift
        gives the same fit: the offsets come from the shifted sums), so
        float32 accumulation is enough, at a sixteenth of the time of the exact
        float64 means. One column takes gpuml's float64 sum instead (CuPy's
        matrix-vector product would compile kernels of its own).
        """
        from gpuml import _cuda

        n, k = A.shape
        if k > 1:
            return self.xp.asarray(np.full(n, 1.0 / n, dtype=A.dtype)) @ A
        total = to_host(_cuda.column_sums(_cuda.cast(A, np.float64), None))
        return self.xp.asarray((total / n).astype(A.dtype))

    def system(self, train):
        """``(A, B, X_offset, y_offset)``, float64 on the host: the centred
        Gram and cross products of the rows ``train`` (all if None) and the
        offsets that give the intercepts."""
        gram, cross, sum_x, sum_y, total = self._fold_statistics(train)
        shift_x = np.asarray(to_host(self.shift_x), dtype=np.float64)
        shift_y = np.asarray(to_host(self.shift_y), dtype=np.float64)
        if self.fit_intercept:
            mean_x, mean_y = sum_x / total, sum_y / total
            gram = gram - total * np.outer(mean_x, mean_x)
            cross = cross - total * np.outer(mean_x, mean_y)
            X_offset, y_offset = mean_x + shift_x, mean_y + shift_y
        else:
            X_offset, y_offset = shift_x, shift_y
        return gram, cross, X_offset, y_offset

    def __call__(self, train, alphas):
        from gpuml import _cuda

        xp = self.xp
        gram, cross, X_offset, y_offset = self.system(train)
        dtype = self.X.dtype
        p, t = cross.shape
        k = alphas.shape[0]
        # The eigendecomposition on the device (cuSOLVER), the shrinkage by
        # gpuml's kernel and two GEMMs: coefs (k * t, p) = S Vᵀ-rows.
        evals, V = device_eigh(xp.asarray(gram.astype(dtype)))
        projected = V @ xp.asarray(cross.astype(dtype))  # (p, t)
        S = xp.empty((k * t, p), dtype=dtype)
        eps_p = np.dtype(dtype).type(p * np.finfo(dtype).eps)
        args = (evals, projected, _cuda.cast(alphas, dtype), np.int64(p))
        args += (np.int64(t), np.int64(k * t), eps_p, S)
        _cuda.launch("ridge", f"eigen_shrink<{_cuda.ctype(dtype)}>", S.size, args)
        coefs = S @ V  # (k * t, p)
        fitted = to_host(coefs @ xp.asarray(X_offset.astype(dtype)))  # (k * t,)
        intercepts = y_offset[None, :] - fitted.reshape(k, t)
        return coefs.reshape(k, t, p), xp.asarray(intercepts.astype(dtype))

    def _statistics(self, rows):
        """Float64 host ``Σw x̃x̃ᵀ, Σw x̃ỹᵀ, Σw x̃, Σw ỹ, Σw`` over ``rows``.

        Each chunk of rows becomes ``Z`` (padded with zero rows to whole
        blocks), one batched GEMM gives every block's ``Zwᵀ Z`` and one kernel
        adds them to a float64 total on the device; the total comes to the
        host once.
        """
        from gpuml import _cuda

        xp, X, Y, weights = self.xp, self.X, self.Y, self.weights
        n_rows = X.shape[0] if rows is None else rows.shape[0]
        p, t = X.shape[1], Y.shape[1]
        width = p + t + 1
        total = xp.zeros((width, width), dtype=xp.float64)
        block = max(1, min(_GRAM_BLOCK_ROWS, n_rows))
        step = max(block, _CHUNK_ELEMENTS // width // block * block)
        dtype = _cuda.ctype(X.dtype)
        null = 0
        for lo in range(0, n_rows, step):
            count = min(step, n_rows - lo)
            padded = -(-count // block) * block
            Z = xp.empty((padded, width), dtype=X.dtype)
            Zw = Z if weights is None else xp.empty_like(Z)
            design = _cuda.kernel("ridge", f"ridge_design<{dtype}>")
            design(
                (min(padded, _DESIGN_BLOCKS),),
                (_cuda.THREADS,),
                (
                    X,
                    Y,
                    null if rows is None else rows,
                    np.int64(lo),
                    np.int64(count),
                    np.int64(padded),
                    np.int64(p),
                    np.int64(t),
                    self.shift_x,
                    self.shift_y,
                    null if weights is None else weights,
                    Z,
                    null if weights is None else Zw,
                ),
            )
            parts = block_grams(Zw, Z, block)
            args = (parts, np.int64(parts.shape[0]), np.int64(total.size), total)
            _cuda.launch("ridge", f"add_blocks<{dtype}>", total.size, args)
        total = to_host(total)
        return (
            total[:p, :p],
            total[:p, p : p + t],
            total[p + t, :p],
            total[p + t, p : p + t],
            total[p + t, p + t],
        )


__all__ = ["RidgeBatch", "fit_batch"]
