"""Logistic regression on the GPU or the CPU, with scikit-learn's objective.

``fit`` reads: validate → encode the labels and fold class weights into the
sample weights → build the objective (:class:`_LogisticLoss`) → minimise it
with the device L-BFGS of :mod:`gpuml.linear_model._optimize` → store the
attributes in the training input's family.

The objective is scikit-learn's: ``(1/S) Σ s_i loss_i + ||W||² / (2 C S)``
with ``s_i`` the sample weight times the class weight of ``y_i`` and ``S``
their sum; the binary problem has one coefficient row (logistic loss), three
or more classes the full multinomial (softmax) loss with one row per class;
the intercept is not penalised.

:class:`_LogisticLoss` evaluates *many* candidates at once (one value of
``C`` each): the parameters are the rows of a ``(k, d)`` array and the data
pass is one matrix product for all of them. A single fit is a batch of one;
the model-selection search fits all the ``C`` values of a fold together
through :meth:`LogisticRegression._fit_batch`.
"""

from __future__ import annotations

import itertools
import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from scipy import sparse as sp
from scipy import special
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted

from gpuml import _cuda, _cuml
from gpuml._array import (
    DEVICE,
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    take_rows,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._backend import import_cupyx
from gpuml._cuml import ENGINE_CONSTRAINT
from gpuml._labels import encode_integer_labels
from gpuml._sklearn_compat import (
    CallbackSupportMixin,
    Hidden,
    Interval,
    StrOptions,
    align_sparse_output,
    check_y_host,
    fit_context,
    init_callback_context,
    validate_estimator_params,
)
from gpuml._validation import (
    FLOAT_DTYPES,
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.linear_model._logistic_proximal import proximal_newton
from gpuml.linear_model._optimize import WIDE, WIDE_CHUNK, LbfgsResult, lbfgs
from gpuml.metrics._base import type_of_target


def _convergence_message(result, row: int, max_iter: int) -> str:
    """scikit-learn's ConvergenceWarning text for one row of an L-BFGS run."""
    n_iter = min(int(result.n_iter[row]), max_iter)
    message = (
        f"lbfgs failed to converge after {n_iter} iteration(s) "
        f"(status={result.status[row]}):\n{result.message[row]}\n"
    )
    if n_iter == max_iter:
        message += (
            "\nIncrease the number of iterations to improve the convergence "
            f"(max_iter={max_iter})."
        )
    return message + (
        "\nYou might also want to scale the data as shown in:\n"
        "    https://scikit-learn.org/stable/modules/preprocessing.html\n"
        "Please also refer to the documentation for alternative solver options:\n"
        "    https://scikit-learn.org/stable/modules/linear_model.html"
        "#logistic-regression"
    )


def _expit(values, xp: ModuleType):
    """The logistic sigmoid, accurate in both tails (``exp`` of ``-|z|`` only,
    so nothing overflows)."""
    e = xp.exp(-xp.abs(values))
    p = 1.0 / (1.0 + e)
    return xp.where(values >= 0, p, e * p)


def _binary_terms(raw, intercept, target, weights, xp: ModuleType):
    """Weighted logistic losses and residuals ``w (sigmoid(z) - y)`` of the
    decision values ``z = raw + intercept`` (broadcast; ``raw`` in the data's
    dtype, the rest float64).

    One fused kernel on the GPU (``raw`` (n, k), made C-contiguous: the
    product of a cupyx sparse matrix comes back in Fortran order;
    ``intercept`` (k,) evenly spaced, ``target`` (n, 1) and ``weights`` (n,
    1) or (n, k) views of contiguous arrays); the NumPy expressions are the
    CPU path (``weights`` None there: all ones, no multiplication).
    """
    if xp is not np:
        raw = _cuda.c_order(raw)
        n, k = raw.shape
        item = intercept.itemsize
        loss, residual = xp.empty((n, k)), xp.empty((n, k))
        args = (raw, intercept, np.int64(intercept.strides[0] // item if k > 1 else 1))
        args += (target, weights, np.int32(weights.shape[1] != 1), np.int64(n))
        args += (np.int64(k), loss, residual)
        name = f"binary_logistic_terms<{_cuda.ctype(raw.dtype)}>"
        _cuda.launch("linear", name, n * k, args)
        return loss, residual
    z = raw + intercept
    # softplus(z) - y z and sigmoid(z) - y, each a single accurate pass of
    # SciPy's (log_expit(-z) = -log(1 + exp(z)) without overflow)
    loss = special.log_expit(-z)
    loss += target * z
    np.negative(loss, out=loss)
    residual = special.expit(z)
    residual -= target
    if weights is not None:  # None: all ones
        loss *= weights
        residual *= weights
    return loss, residual


class _LogisticLoss:
    """Values and gradients of ``k`` regularised logistic losses at once.

    Parameters
    ----------
    X : array of shape (n_samples, n_features), dense or CSR, in ``xp``
        On the GPU the decision values and the gradient's data pass are
        computed in its dtype (float32 X with float32 coefficients, as
        scikit-learn's lbfgs does, at the device's float32 throughput); on
        the CPU in float64 (float32 rows cast a block at a time): float32
        products made the values and gradients so noisy near the optimum
        that L-BFGS's line searches took up to seven times as many
        evaluations there (a 20,000 x 64 float32 search at ``tol=1e-6``:
        2.9 s against 0.8 s on two cores). The pointwise terms, sums and
        the optimiser are float64 on both.
    y : int array of shape (n_samples,)
        Class indices into the fitted classes.
    n_classes : int
    weights : float64 array of shape (n_samples,) or (n_samples, k), or None
        Sample weights times class weights: shared by the ``k`` rows, or one
        column per row (zero for the samples a row does not train on: the
        rows of several folds in one batch).
    inverse_C : float64 array of shape (k,)
        ``1 / C`` per candidate (0 for no penalty).
    fit_intercept : bool

    Parameter rows are ``[W (rows x p, row-major), b (rows)]``. One
    evaluation is two passes over ``X`` for all candidates (``X @ W'`` and
    ``X' @ residuals``), the pointwise terms (one fused kernel for binary
    problems), two matrix-vector sums over the samples, and one kernel that
    adds the penalty and assembles values and gradients.
    """

    def __init__(
        self, X, y, n_classes, weights, inverse_C, fit_intercept, xp, compact=True
    ):
        self.n_features_in = X.shape[1]
        self.columns = None
        if compact:
            X, self.columns = _used_columns(X, xp)
        if xp is np and X.dtype != np.float64:
            if 8 * (X.nnz if is_sparse(X) else X.size) <= _BLOCK_BYTES:
                X = X.astype(np.float64)  # one block: cast once, not per call
        self.X, self.xp = X, xp
        # X' for the gradient's pass: a device CSR matrix's transpose is a
        # CSC view, which cuSPARSE multiplies slowly; converted once here.
        if xp is not np and is_sparse(X):
            self.XT = X.T.tocsr()
            if X.has_canonical_format:  # so is its transpose; else CuPy checks
                self.XT.has_canonical_format = True
        else:
            self.XT = X.T
        self.n_rows = 1 if n_classes == 2 else n_classes
        self.n_features = X.shape[1]
        self.fit_intercept = fit_intercept
        n = X.shape[0]
        # Built on the host and copied: no fill kernel to compile on the GPU.
        self.ones = xp.asarray(np.ones(n))
        self.weights_are_ones = weights is None
        weights = self.ones if weights is None else weights
        # (n, 1) or (n, k): broadcast against the (n, k) terms of the rows.
        self.weights = weights[:, None] if weights.ndim == 1 else weights
        k = inverse_C.shape[0]
        if weights.ndim == 1:  # one total for every row
            total = float(n)
            if weights is not self.ones:  # a GEMM: CuPy's vector dot compiles
                column = weights.reshape(1, -1) @ self.ones.reshape(-1, 1)
                total = float(to_host(column)[0, 0])
            self.total = xp.asarray(np.full(k, total, dtype=np.float64))
            zero_total = total == 0
        else:
            self.total = self.ones @ weights  # sums by cuBLAS on the GPU
            # k totals, compared on the host: no comparison or reduction
            # kernel to compile on the GPU
            zero_total = bool(np.any(to_host(self.total) == 0))
        if zero_total:
            # scikit-learn's L-BFGS path divides by the total weight (sample
            # and class weights folded in): a total of zero, e.g.
            # class_weight={0: 0, 1: 0}, raises there rather than fitting.
            raise ZeroDivisionError("float division by zero")
        self.inverse_C = inverse_C
        self.gradient_mask = None  # see restrict_columns
        self.column_counts = None
        if self.n_rows == 1:
            # (n, 1): 1 for classes_[1]
            self.target = _as_float64(y, xp)[:, None]
        else:
            self.target = xp.zeros((n, n_classes))
            self.target[xp.arange(n), y] = 1.0

    @property
    def n_params(self) -> int:
        return self.n_rows * (self.n_features + int(self.fit_intercept))

    def restrict_columns(self, n_features) -> None:
        """Fit candidate ``i`` on the first ``n_features[i]`` columns of X
        only: its gradient is zero in the coefficients of the later columns.

        From a start at zero those coefficients then stay zero (L-BFGS's
        directions are built from gradients and steps that are zero there),
        so the row takes the steps of a fit on ``X[:, :n_features[i]]``, up
        to the rounding of sums that include zero products: the candidates
        of a search over a decomposition's ``n_components`` share one
        L-BFGS over its largest output (``model_selection/_truncation.py``).
        """
        if self.columns is not None:
            raise ValueError("restrict_columns needs all the columns of X")
        if not is_sparse(self.X):
            # The products of candidates with the same count take only their
            # columns (no flops on the zero coefficients), leaving the later
            # columns' gradients exactly zero: a Fortran-ordered X on the GPU
            # makes its leading columns a contiguous block for cuBLAS
            # (NumPy's BLAS takes the strided views as they are).
            self.column_counts = np.asarray(n_features, dtype=np.int64)
            if self.xp is not np:
                self.X = self.xp.asfortranarray(self.X)
                self.XT = self.X.T
            return
        # sparse X: full products, the later columns' gradients masked
        k, p = self.inverse_C.shape[0], self.n_features
        mask = np.ones((k, self.n_params))
        for row, m in enumerate(n_features):
            mask[row, : self.n_rows * p].reshape(self.n_rows, p)[:, m:] = 0.0
        self.gradient_mask = self.xp.asarray(mask)

    def _runs(self, rows):
        """``(start, stop, count)``: the runs of parameter rows (all the
        candidates, or those numbered ``rows``) with one column count, in
        order, as column ranges of the (n, k * n_rows) products."""
        counts = self.column_counts
        if rows is not None:
            counts = counts[to_host(rows)]
        edges = [0, *np.flatnonzero(np.diff(counts)) + 1, counts.shape[0]]
        r = self.n_rows
        return [(a * r, b * r, int(counts[a])) for a, b in itertools.pairwise(edges)]

    def _grouped_products(self, X, coef_T, runs, xp):
        """``X @ coef_T`` and the function that makes ``X' @ residual``
        where candidates use their leading columns only (zero elsewhere);
        ``runs`` from :meth:`_runs`."""
        raw = xp.empty((X.shape[0], coef_T.shape[1]), dtype=X.dtype)
        for a, b, m in runs:
            raw[:, a:b] = X[:, :m] @ coef_T[:m, a:b]

        def transposed(residual):
            grad = xp.zeros((X.shape[1], residual.shape[1]), dtype=residual.dtype)
            for a, b, m in runs:
                grad[:m, a:b] = X[:, :m].T @ residual[:, a:b]
            return grad

        return raw, transposed

    def split(self, params):
        """``(W (k, rows, p), b (k, rows))`` from parameter rows ``(k, d)``."""
        k = params.shape[0]
        n_coef = self.n_rows * self.n_features
        W = params[:, :n_coef].reshape(k, self.n_rows, self.n_features)
        if self.fit_intercept:
            b = params[:, n_coef:]
        else:
            b = self.xp.zeros((k, self.n_rows))
        return W, b

    def _coefficients(self, params, dtype):
        """The coefficients of the parameter rows as a (k * rows, p) array
        of ``dtype``."""
        k = params.shape[0]
        n_coef = self.n_rows * self.n_features
        if self.xp is np:
            return params[:, :n_coef].reshape(k * self.n_rows, -1).astype(dtype)
        flat = _cuda.cast_rows(params[:, :n_coef], dtype)
        return flat.reshape(k * self.n_rows, self.n_features)

    def split_as(self, params, dtype):
        """``(W (k, rows, p), b (k, rows))`` as contiguous arrays of ``dtype``,
        ``W`` over all the data's columns (zero in the empty ones)."""
        k = params.shape[0]
        W = self._coefficients(params, dtype).reshape(k, self.n_rows, self.n_features)
        if self.columns is not None:
            used = W
            W = self.xp.zeros((k, self.n_rows, self.n_features_in), dtype=dtype)
            W[:, :, self.columns] = used
        if not self.fit_intercept:
            return W, self.xp.zeros((k, self.n_rows), dtype=dtype)
        b = params[:, self.n_rows * self.n_features :]
        if self.xp is np:
            return W, b.astype(dtype)
        return W, _cuda.cast_rows(b, dtype)

    @property
    def takes_row_subsets(self) -> bool:
        """Whether :meth:`__call__` takes ``rows``: not with one column of
        weights per row (a GPU's joint fit of several folds)."""
        return self.weights.shape[1] == 1

    def __call__(self, params, rows=None):
        """Values ``(k,)`` and gradients ``(k, d)`` at the parameter rows;
        ``rows``: the indices (int64, in ``xp``) of the candidates those
        rows are, when L-BFGS evaluates only the candidates still
        searching."""
        xp = self.xp
        if xp is np:
            return self._call_by_blocks(params, rows)
        b = self.split(params)[1]
        dtype = self.X.dtype
        if self.column_counts is not None:
            raw, transposed = self._grouped_products(
                self.X, self._coefficients(params, dtype).T, self._runs(rows), xp
            )
            loss, residual = self._terms(raw, b, self.target, self.weights)
            grad_W = transposed(_as_dtype(residual, dtype, xp))
        else:
            raw = self.X @ self._coefficients(params, dtype).T
            loss, residual = self._terms(raw, b, self.target, self.weights)
            grad_W = self.XT @ _as_dtype(residual, dtype, xp)  # (p, k * rows)
        return self._finish(
            params, grad_W, self._sums(residual), self._sums(loss), rows
        )

    def _terms(self, raw, b, target, weights):
        """Weighted losses ``(n, k)`` and residuals ``(n, k * rows)`` of the
        decision values ``raw + b`` of ``n`` samples (``weights`` None on
        the CPU: all ones)."""
        xp = self.xp
        if self.n_rows == 1:
            return _binary_terms(raw, b[:, 0], target, weights, xp)
        n, k, rows = raw.shape[0], b.shape[0], self.n_rows
        z = raw.reshape(n, k, rows) + b[None]
        shifted = z - z.max(axis=2, keepdims=True)
        norm = xp.log(xp.exp(shifted).sum(axis=2, keepdims=True))
        target = target[:, None, :]
        loss = ((norm - shifted) * target).sum(axis=2)
        residual = xp.exp(shifted - norm) - target
        if weights is not None:
            loss *= weights
            residual *= weights[:, :, None]
        return loss, residual.reshape(n, k * rows)

    def _call_by_blocks(self, params, candidates=None):
        """:meth:`__call__` on the CPU: a block of rows at a time, in float64.

        Both products and the pointwise terms of a block are done while it
        is in cache, and the temporaries are a block's (about 16 MB, not
        ``n x k`` per array: a batch of many ``C`` on many rows stays
        within a few blocks' memory, as scikit-learn's one fit at a time
        does). A float32 ``X`` is cast a block at a time: float64 products
        without a float64 copy of ``X``.
        """
        k = params.shape[0]
        coef_T = self._coefficients(params, np.float64).T  # (p, k * rows)
        b = self.split(params)[1]
        loss_sum = np.zeros(k)
        grad_W = np.zeros((self.n_features, k * self.n_rows))
        grad_b = np.zeros(k * self.n_rows)
        runs = None if self.column_counts is None else self._runs(candidates)
        for rows, block in self._float64_blocks(k * self.n_rows):
            transposed = None
            if runs is not None:
                raw, transposed = self._grouped_products(block, coef_T, runs, np)
            else:
                raw = block @ coef_T
            # unweighted: no multiplication by ones (two passes of nine)
            weights = None if self.weights_are_ones else self.weights[rows]
            loss, residual = self._terms(raw, b, self.target[rows], weights)
            loss_sum += loss.sum(axis=0)
            grad_W += block.T @ residual if transposed is None else transposed(residual)
            grad_b += residual.sum(axis=0)
        return self._finish(params, grad_W, grad_b, loss_sum, candidates)

    def _float64_blocks(self, columns: int):
        """``(rows, block)``: ``X`` in blocks of rows as float64, each about
        :data:`_BLOCK_BYTES` of float64 data and of ``(rows, columns)``
        temporaries (views of a float64 ``X``; a CSR block shares ``X``'s
        arrays)."""
        X = self.X
        n = X.shape[0]
        width = X.nnz / max(n, 1) if is_sparse(X) else X.shape[1]
        step = max(1, int(_BLOCK_BYTES // (8 * max(width, 4 * columns, 1))))
        for start in range(0, n, step):
            stop = min(start + step, n)
            if is_sparse(X):
                first, last = X.indptr[start], X.indptr[stop]
                block = type(X)(
                    (
                        X.data[first:last].astype(np.float64, copy=False),
                        X.indices[first:last],
                        X.indptr[start : stop + 1] - first,
                    ),
                    shape=(stop - start, X.shape[1]),
                )
            else:
                block = X[start:stop].astype(np.float64, copy=False)
            yield slice(start, stop), block

    def _sums(self, values):
        """Column sums of (n, columns) float64 terms."""
        if self.xp is np:
            return self.ones @ values
        return _cuda.column_sums(values, self.ones)

    def _finish(self, params, grad_W, grad_b, loss_sum, candidates=None):
        """Values (k,) and gradients (k, d): data terms plus the penalty, over
        the total weight (one kernel on the GPU); ``candidates``: the
        candidates of the parameter rows, when not all of them."""
        xp = self.xp
        k, d = params.shape
        rows, p = self.n_rows, self.n_features
        inverse_C, total = self.inverse_C, self.total
        if candidates is not None:
            inverse_C = take_rows(inverse_C, candidates, xp)
            total = take_rows(total, candidates, xp)
        if xp is not np:
            value, grad = xp.empty(k), xp.empty((k, d))
            grad_W = _cuda.cast(_cuda.c_order(grad_W), xp.float64)
            if d >= WIDE:  # many coefficients: each row over many blocks
                args = (params, grad_W, grad_b, loss_sum, inverse_C, total)
                value, grad = self._finish_wide(*args, value, grad)
                return value, self._masked(grad, candidates)
            _cuda.kernel("linear", "logistic_finish")(
                (k,),
                (256,),
                (
                    params,
                    xp.ascontiguousarray(grad_W),
                    grad_b,
                    loss_sum,
                    inverse_C,
                    total,
                    np.int32(rows),
                    np.int64(p),
                    np.int32(self.fit_intercept),
                    value,
                    grad,
                ),
            )
            return value, self._masked(grad, candidates)
        coef = params[:, : rows * p]
        grad = np.empty((k, d))
        grad[:, : rows * p] = grad_W.T.reshape(k, rows * p)
        grad[:, : rows * p] += inverse_C[:, None] * coef
        if self.fit_intercept:
            grad[:, rows * p :] = grad_b.reshape(k, rows)
        value = loss_sum + 0.5 * inverse_C * (coef * coef).sum(axis=1)
        return value / total, self._masked(grad / total[:, None], candidates)

    def _masked(self, grad, candidates):
        """``grad`` with :meth:`restrict_columns`'s zeros (in place)."""
        if self.gradient_mask is None:
            return grad
        mask = self.gradient_mask
        if candidates is not None:
            mask = take_rows(mask, candidates, self.xp)
        grad *= mask
        return grad

    def _finish_wide(
        self, params, grad_W, grad_b, loss_sum, inverse_C, total, value, grad
    ):
        """:meth:`_finish` on a GPU for rows of :data:`WIDE` entries or more."""
        xp = self.xp
        k, d = params.shape
        squares = xp.zeros(k)  # a memset: no kernel
        args = (params, xp.ascontiguousarray(grad_W), grad_b, inverse_C)
        args += (total, np.int32(self.n_rows), np.int64(self.n_features))
        args += (np.int32(self.fit_intercept), np.int32(k), squares, grad)
        grid = (-(-d // WIDE_CHUNK), k)
        _cuda.kernel("linear", "logistic_wide_finish")(grid, (256,), args)
        args = (loss_sum, inverse_C, total, squares, np.int32(k), value)
        _cuda.launch("linear", "logistic_wide_value", k, args)
        return value, grad


# The float64 rows of a float32 X that the CPU multiplies at a time.
_BLOCK_BYTES = 2**24

# A CSR matrix of which at most this share of the columns holds a value is
# fitted on those columns alone (see _used_columns).
_USED_SHARE = 0.75


def _used_columns(X, xp: ModuleType):
    """``(X without its empty columns, the indices of the others)``, or ``(X,
    None)`` when compacting would not pay.

    A column without a stored value contributes nothing to the data term;
    from a start at zero its coefficient keeps a zero gradient, so L-BFGS
    never moves it (its direction is built from gradients and steps that
    are zero there) and leaves every product and norm as they are: fitting
    on the other columns takes the same steps, and the coefficients are
    exactly zero in the empty ones. A HashingVectorizer's 2**20 columns over
    a few thousand documents hold values in a few percent of them, and the
    optimiser's vectors (ten pairs per candidate) would otherwise be that
    wide: the text example of docs/text.rst on 1,000 documents took 16.9 s
    and 887 MB at peak on two cores (scikit-learn's classes 19 s and 526
    MB), 0.8 s and 345 MB on the used columns. Applied to CSR matrices on
    the CPU with at most :data:`_USED_SHARE` of their columns used. On the
    GPU every column stays, for the device's wide kernels: compacting there
    needs device kernels (a column mask, a scan, a gather) whose first-use
    compile and speed are not measured yet.
    """
    if xp is not np or not is_sparse(X) or X.format != "csr" or X.nnz == 0:
        return X, None
    used = np.zeros(X.shape[1], dtype=bool)
    used[X.indices] = True
    n_used = int(np.count_nonzero(used))
    if n_used > _USED_SHARE * X.shape[1]:
        return X, None
    position = np.cumsum(used, dtype=X.indices.dtype) - 1
    compact = type(X)(
        (X.data, position[X.indices], X.indptr), shape=(X.shape[0], n_used)
    )
    # positions keep the order of the columns: sorted stays sorted
    compact.has_sorted_indices = X.has_sorted_indices
    return compact, np.flatnonzero(used)


def _as_float64(values, xp: ModuleType):
    """``values`` as float64 (gpuml's cast kernel on the GPU)."""
    if xp is np:
        return values.astype(np.float64)
    return _cuda.cast(xp.ascontiguousarray(values), np.float64)


def _as_dtype(values, dtype, xp: ModuleType):
    """``values.astype(dtype, copy=False)`` (gpuml's cast kernel on the GPU)."""
    if xp is np:
        return values.astype(dtype, copy=False)
    return _cuda.cast(xp.ascontiguousarray(values), dtype)


def _encode_labels(y, xp: ModuleType):
    """``(classes, y_index)``: sorted labels (host for host y) and indices."""
    if input_family(y) == HOST:
        labels = check_y_host(y)
    else:
        labels = check_y(y, xp=xp)  # a column vector warns as on the host
        # Integers are always "binary" or "multiclass" labels.
        encoded = encode_integer_labels(labels, namespace_of(labels))
        if encoded is not None:
            return encoded[0], to_namespace(encoded[1], xp)
    kind = type_of_target(labels, namespace_of(labels), input_name="y")
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {kind}. Maybe you are trying to fit a classifier, "
            "which expects discrete classes on a regression target with "
            "continuous values."
        )
    lx = namespace_of(labels)
    classes, indices = lx.unique(labels, return_inverse=True)
    return classes, to_namespace(indices.ravel(), xp)


def _fold_labels(y, train, xp: ModuleType):
    """``(classes, indices)`` of a fold's own labels (host or device ``y``)."""
    if input_family(y) == HOST:
        return _encode_labels(np.asarray(y)[np.asarray(to_host(train))], xp)
    return _encode_labels(y[train], xp)


def _class_weights(class_weight, classes, y_index, sample_weight):
    """Per-sample class weights (host computation on the few counts)."""
    if class_weight is None:
        return None
    host_classes = np.asarray(to_host(classes))
    indices = np.asarray(to_host(y_index))
    weights = None if sample_weight is None else np.asarray(to_host(sample_weight))
    if class_weight == "balanced":
        totals = np.bincount(indices, weights=weights, minlength=host_classes.size)
        if np.any(totals <= 0):
            empty = host_classes[np.flatnonzero(totals <= 0)[0]]
            raise ValueError(
                f"class_weight='balanced' needs a positive total sample weight in "
                f"every class; class {empty!r} has none. Remove that class from y "
                "or give its samples positive weights."
            )
    per_class = compute_class_weight(
        class_weight,
        classes=host_classes,
        y=host_classes[indices],
        sample_weight=weights,
    )
    return per_class


def _has_every_class(y_index, train, n_classes: int, xp: ModuleType) -> bool:
    """Whether the rows ``train`` hold every one of the ``n_classes``."""
    if xp is not np and train.dtype == np.int64 and y_index.dtype == np.int64:
        counts = xp.zeros(n_classes, dtype=xp.uint64)
        args = (y_index, train, np.int64(train.shape[0]), counts)
        _cuda.launch("labels", "class_counts", train.shape[0], args)
        return bool(np.all(counts.get() > 0))
    return bool(np.all(to_host(xp.bincount(y_index[train], minlength=n_classes)) > 0))


def _union_of_rows(folds, n_samples: int, xp: ModuleType):
    """The sorted rows that appear in any of ``folds``."""
    if xp is np or any(f.dtype != np.int64 for f in folds):
        return xp.unique(xp.concatenate(folds))
    mask = xp.zeros(n_samples, dtype=xp.uint8)
    for rows in folds:
        _cuda.launch(
            "labels", "mark_rows", rows.shape[0], (rows, np.int64(rows.shape[0]), mask)
        )
    return xp.asarray(np.flatnonzero(mask.get()))


def _device_fold_weights(trains, union, sample_weight, k: int, n: int, xp):
    """The (n_union, folds * k) weights of a joint fit without class
    weights, by gpuml's kernel (each row its fold's sample weights, repeated
    rows adding up), or None for inputs it does not take."""
    if any(t.dtype != np.int64 for t in trains):
        return None
    if sample_weight is not None:
        if sample_weight.dtype != np.float64 or not sample_weight.flags.c_contiguous:
            return None
    n_union, n_cols = union.shape[0], len(trains) * k
    position = 0  # NULL: the union is every row
    if n_union != n:
        position = xp.empty(n, dtype=xp.int64)
        args = (union, np.int64(n_union), position)
        _cuda.launch("labels", "row_positions", n_union, args)
    W = xp.zeros((n_union, n_cols))
    weight = 0 if sample_weight is None else sample_weight
    for fold, rows in enumerate(trains):
        args = (rows, np.int64(rows.shape[0]), position, weight, 0, 0)
        args += (np.int64(fold), np.int64(k), np.int64(n_cols), W)
        _cuda.launch("labels", "fold_weights", rows.shape[0], args)
    return W


# The most multiply-adds of one joint evaluation's product ``X @ W`` for which
# folds are fitted together on a GPU: about 2 ms of an H100's or H200's work.
_JOINT_WORK = 2**33


def _fit_together(xp, n_union, n_columns, row_work) -> bool:
    """Whether folds are fitted as one L-BFGS, every row passing over the
    ``n_union`` rows of all the folds rather than its own fold's.

    A joint L-BFGS takes, each iteration, as many evaluations as its
    slowest row's line search, and every evaluation passes over all the
    folds' rows for every row (5-fold cross-validation: 1.25 times the
    arithmetic of fitting the folds apart). On a GPU it saves the host
    round trips of one optimisation per fold, which dominate small
    evaluations: together when one joint evaluation's product (``n_union``
    rows of ``row_work`` multiply-adds, for ``n_columns`` columns) is at
    most :data:`_JOINT_WORK` and its float64 temporaries (about four
    ``(n_union, n_columns)`` arrays) fit in a quarter of the free device
    memory. Larger evaluations are arithmetic-bound, and joined they were
    measured slower: a 1,000,000 x 256, 10-class search with ``tol=1e-6``
    took 216 evaluations joined against 90-138 per fold apart (19.7 s
    against 9.9 s on an H200). On the CPU, arithmetic is the cost (measured
    slower joined): apart.
    """
    if xp is np or n_union * n_columns * row_work > _JOINT_WORK:
        return False
    free = xp.cuda.runtime.memGetInfo()[0] + xp.get_default_memory_pool().free_bytes()
    return 4 * 8 * n_union * n_columns <= free / 4


SOLVERS = ("lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga")
# the solvers that the proximal Newton method serves (the others: L-BFGS)
NEWTON_SOLVERS = ("liblinear", "newton-cg", "newton-cholesky", "saga")


def _check_solver(solver, penalty, dual) -> None:
    """scikit-learn's solver x penalty x dual rules, with its messages."""
    if solver not in ("liblinear", "saga") and penalty not in ("l2", None):
        raise ValueError(
            f"Solver {solver} supports only 'l2' or None penalties, got {penalty} "
            "penalty."
        )
    if solver != "liblinear" and dual:
        raise ValueError(f"Solver {solver} supports only dual=False, got dual={dual}")
    if penalty == "elasticnet" and solver != "saga":
        raise ValueError(
            f"Only 'saga' solver supports elasticnet penalty, got solver={solver}."
        )
    if solver == "liblinear" and penalty is None:
        raise ValueError(
            "C=np.inf as well as penalty=None is not supported for the liblinear solver"
        )


def _newton_message(solver: str, result, row: int) -> str:
    """scikit-learn's ConvergenceWarning text of ``solver`` for a candidate
    of a proximal Newton run that did not converge."""
    if solver == "liblinear":
        return "Liblinear failed to converge, increase the number of iterations."
    if solver == "newton-cg":
        return (
            f"newton-cg failed to converge at loss = {result.value[row]}. Increase"
            " the number of iterations."
        )
    if solver == "newton-cholesky":
        return f"Newton solver did not converge after {result.n_iter[row]} iterations."
    return "The max_iter was reached which means the coef_ did not converge"


def _check_large_sparse(X, solver: str) -> None:
    """scikit-learn's refusal of 64-bit sparse indices for liblinear, sag
    and saga (its ``accept_large_sparse=False``)."""
    if solver not in ("liblinear", "sag", "saga") or not is_sparse(X):
        return
    keys = {"coo": ("col", "row"), "csr": ("indices", "indptr")}
    keys["csc"] = keys["bsr"] = keys["csr"]
    for key in keys.get(X.format, ()):
        dtype = getattr(X, key).dtype
        if dtype != np.int32:
            raise ValueError(
                "Only sparse matrices with 32-bit integer indices are accepted."
                f" Got {dtype} indices. Please do report a minimal"
                " reproducer on scikit-learn issue tracker so that support for"
                " your use-case can be studied by maintainers. See:"
                " https://scikit-learn.org/dev/developers/minimal_reproducer.html"
            )


def _check_liblinear(X, n_classes: int, l1: bool, dual: bool, xp: ModuleType) -> None:
    """scikit-learn's refusals of the liblinear solver (``l1``: an L1
    penalty)."""
    if n_classes > 2:
        raise ValueError(
            "The 'liblinear' solver does not support multiclass classification"
            " (n_classes >= 3). Either use another solver or wrap the "
            "estimator in a OneVsRestClassifier to keep applying a "
            "one-versus-rest scheme."
        )
    values = X.data if is_sparse(X) else X
    if values.size and float(to_host(values.max())) > 1e30:
        raise ValueError(
            "Using the 'liblinear' solver while X contains a maximum "
            "value > 1e30 results in a frozen fit. Please choose another "
            "solver or rescale the input X."
        )
    if l1 and dual:
        raise ValueError(
            "Unsupported set of arguments: The combination of penalty='l1' and "
            "loss='logistic_regression' are not supported when dual=True, "
            "Parameters: penalty='l1', loss='logistic_regression', dual=True"
        )


def _warn(message: str, category=UserWarning) -> None:
    """A warning of ``fit`` (or of the search's batched fit), attributed to
    the caller of ``fit`` (under its decorator), as scikit-learn's are."""
    warnings.warn(message, category, stacklevel=5)


class _IterationTasks:
    """scikit-learn's ``"lbfgs-iter"`` callback tasks of one fit.

    As scikit-learn's bridge to SciPy's ``callback``: the first task begins
    at the starting point; the end of each L-BFGS iteration ends the current
    task (with the estimator as fitted so far) and begins the next one;
    :meth:`close` ends the last, empty task. ``fitted(params)`` gives the
    fitted attributes at a point; it runs only for a hook that asks for the
    fitted estimator (scikit-learn's lazy ``reconstruction_attributes``).
    """

    def __init__(self, context, estimator, X, y, metadata, fitted, x0):
        self._context, self._fitted = context, fitted
        self._arguments = {"estimator": estimator, "X": X, "y": y, "metadata": metadata}
        self._task = self._begin(x0)

    def _attributes(self, params):
        return lambda: self._fitted(params)

    def _begin(self, params):
        task = self._context.subcontext(task_name="lbfgs-iter")
        task.call_on_fit_task_begin(
            **self._arguments, reconstruction_attributes=self._attributes(params)
        )
        return task

    def __call__(self, params) -> None:
        self._task.call_on_fit_task_end(
            **self._arguments, reconstruction_attributes=self._attributes(params)
        )
        self._task = self._begin(params)

    def close(self) -> None:
        self._task.call_on_fit_task_end(estimator=self._arguments["estimator"])


class LogisticRegression(
    CallbackSupportMixin, ClassifierMixin, DeviceCacheMixin, BaseEstimator
):
    """Logistic regression (L2, L1, elastic-net or no penalty), on the GPU
    or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.LogisticRegression`:
    the same parameters, solver names and rules, objective, attributes and
    results. Two device algorithms serve the solver names: ``"lbfgs"`` and
    ``"sag"`` (L2 or no penalty) run SciPy's L-BFGS-B algorithm (the one
    scikit-learn's lbfgs calls) on the compute device (see
    :mod:`gpuml.linear_model._optimize`); ``"saga"`` (every penalty),
    ``"liblinear"`` (L1 or L2, its penalised intercept), ``"newton-cg"`` and
    ``"newton-cholesky"`` run a batched proximal Newton method (see
    :mod:`gpuml.linear_model._logistic_proximal`). The device is CuPy's
    when a GPU is usable, else NumPy. Binary problems use the logistic loss,
    three or more classes the multinomial loss. Predictions come back in
    the family of their input; fitted attributes live in the family of the
    training input.

    Parameters
    ----------
    penalty : {"l1", "l2", "elasticnet", None}, default="deprecated"
        Deprecated in scikit-learn 1.8: use ``l1_ratio`` and ``C``. Setting
        it warns as scikit-learn does.
    C : float, default=1.0
        Inverse of regularisation strength; ``np.inf`` means no penalty.
    l1_ratio : float, default=0.0
        The L1 share of the penalty: 0 is L2, 1 is L1, in between the
        elastic net (``"saga"``; ``"liblinear"`` takes 0 or 1).
    dual : bool, default=False
        ``True`` only for liblinear's L2 penalty (the same optimum).
    tol : float, default=1e-4
        Stop when the largest entry of the (minimum-norm sub)gradient of the
        objective, over the total sample weight, is at most ``tol``
        (L-BFGS-B's ``gtol``, as scikit-learn's lbfgs uses it; the same test
        for every solver name).
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1
        liblinear only: the value of the synthetic feature whose (penalised)
        weight times ``intercept_scaling`` is the intercept.
    class_weight : dict, "balanced" or None, default=None
        Weights per class, multiplied into the sample weights.
    random_state : int, RandomState instance or None, default=None
        Accepted for compatibility; gpuml's methods are deterministic.
    solver : {"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", \
            "saga"}, default="lbfgs"
        scikit-learn's names, with its rules for penalties and ``dual``;
        see above for the algorithm that serves each.
    max_iter : int, default=100
        L-BFGS or Newton iterations, at most.
    verbose : int, default=0
        Print the L-BFGS optimiser's progress.
    warm_start : bool, default=False
        Start from the previous ``coef_`` and ``intercept_`` (not liblinear,
        as scikit-learn's).
    n_jobs : None
        Deprecated in scikit-learn 1.8; has no effect.
    engine : {"auto", "gpuml", "cuml"}, default="auto"
        Whose solver fits the model on the GPU. ``"gpuml"``: gpuml's.
        ``"cuml"``: cuML's quasi-Newton solver, for the L-BFGS solver names
        (cuML must be installed; the same objective, its own stopping rule,
        so results agree to about ``tol``; no ``warm_start`` from a previous
        fit; searches then fit one ``C`` at a time). ``"auto"``: gpuml's,
        which measured as fast and batches ``C`` in searches (see
        :doc:`/rapids`). Attributes, predictions and output family are
        gpuml's either way.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,)
        L-BFGS or Newton iterations, at most ``max_iter``.
    engine_ : {"gpuml", "cuml"}
        The engine that fitted the model.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    >>> model = LogisticRegression().fit(X, y)
    >>> model.classes_.tolist()
    [0, 1]
    >>> model.predict_proba(X[:2]).shape
    (2, 2)
    >>> bool(model.score(X, y) > 0.85)
    True

    An L1 penalty (``solver="saga"``) zeroes the coefficients of the
    features without signal:

    >>> sparse_model = LogisticRegression(solver="saga", l1_ratio=1.0, C=0.05)
    >>> sparse_model.fit(X, y).coef_[0, 1:].tolist()
    [0.0, 0.0]
    """

    _parameter_constraints: dict = {
        # scikit-learn's options: "l1" and "elasticnet" raise its error in fit
        "penalty": [
            StrOptions({"l1", "l2", "elasticnet"}),
            None,
            Hidden(StrOptions({"deprecated"})),
        ],
        "C": [Interval(Real, 0, None, closed="right")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        "dual": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "random_state": ["random_state"],
        "solver": [StrOptions(set(SOLVERS))],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "n_jobs": [None, Integral],
        "engine": ENGINE_CONSTRAINT,
    }

    def __init__(
        self,
        penalty="deprecated",
        *,
        C=1.0,
        l1_ratio=0.0,
        dual=False,
        tol=1e-4,
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        random_state=None,
        solver="lbfgs",
        max_iter=100,
        verbose=0,
        warm_start=False,
        n_jobs=None,
        engine="auto",
    ):
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.engine = engine

    if hasattr(CallbackSupportMixin, "set_callbacks"):  # scikit-learn >= 1.9

        def set_callbacks(self, *callbacks):
            """Set callbacks for the estimator (scikit-learn's method; as
            scikit-learn's ``LogisticRegression``, it warns for a solver
            other than ``"lbfgs"``, whose fits report no iterations).

            Parameters
            ----------
            *callbacks : callback instances
                The callbacks to set.

            Returns
            -------
            self : estimator instance
                The estimator instance itself.
            """
            if self.solver != "lbfgs":
                warnings.warn(
                    f"Callbacks are only supported in {type(self).__name__} for"
                    f" solver='lbfgs'. This estimator has solver='{self.solver}',"
                    " callbacks will be ignored during the solving of the "
                    "regression.",
                    stacklevel=2,
                )
            return super().set_callbacks(*callbacks)

    def _check_options(self) -> str | None:
        """scikit-learn's penalty and solver rules, warnings and errors, in
        its order (the parameters are validated already); returns the
        penalty: "l2", "l1", "elasticnet" or None."""
        if self.penalty == "deprecated":
            # scikit-learn's reading of l1_ratio and C into a penalty
            if self.l1_ratio == 0 or self.l1_ratio is None:
                penalty = "l2"
                if self.l1_ratio is None:
                    _warn(
                        "'l1_ratio=None' was deprecated in version 1.8 and will "
                        "trigger an error in 1.10. Use 0<=l1_ratio<=1 instead.",
                        FutureWarning,
                    )
            elif self.l1_ratio == 1:
                penalty = "l1"
            else:
                penalty = "elasticnet"
            if self.C == np.inf:
                penalty = None
        else:
            penalty = self.penalty
            _warn(
                "'penalty' was deprecated in version 1.8 and will be removed in"
                " 1.10. To avoid this warning, leave 'penalty' set to its default"
                " value and use 'l1_ratio' or 'C' instead."
                " Use l1_ratio=0 instead of penalty='l2',"
                " l1_ratio=1 instead of penalty='l1',"
                " l1_ratio set to a float between 0 and 1 instead of"
                " penalty='elasticnet', and C=np.inf instead of penalty=None.",
                FutureWarning,
            )
        _check_solver(self.solver, penalty, self.dual)
        if penalty != "elasticnet" and (
            self.l1_ratio is not None and 0 < self.l1_ratio < 1
        ):
            _warn(
                "l1_ratio parameter is only used when penalty is 'elasticnet'. "
                f"Got (penalty={penalty})"
            )
        if (self.penalty == "l2" and self.l1_ratio != 0) or (
            self.penalty == "l1" and self.l1_ratio != 1
        ):
            _warn(
                f"Inconsistent values: penalty={self.penalty} with "
                f"l1_ratio={self.l1_ratio}. penalty is deprecated. Please use "
                "l1_ratio only."
            )
        if penalty == "elasticnet" and self.l1_ratio is None:
            raise ValueError("l1_ratio must be specified when penalty is elasticnet.")
        if self.penalty is None and self.C != 1.0:  # not the default
            _warn("Setting penalty=None will ignore the C and l1_ratio parameters")
        if self.n_jobs is not None:
            _warn(
                "'n_jobs' has no effect since 1.8 and will be removed in 1.10. "
                f"You provided 'n_jobs={self.n_jobs}', please leave it unspecified.",
                FutureWarning,
            )
        return penalty

    def _proximal(self) -> bool:
        """Whether the proximal Newton method fits (liblinear, saga,
        newton-cg and newton-cholesky, with any penalty) rather than
        L-BFGS (lbfgs and sag: the same optimum for their L2 or no
        penalty): the solver name alone decides, so that one solver name
        is one algorithm whatever its penalty."""
        return self.solver in NEWTON_SOLVERS

    def _l1_ratio_of(self, penalty, l1_ratio) -> float:
        """The L1 share of the penalty of a candidate (``l1_ratio``: its
        value of the parameter)."""
        if penalty == "l1":
            return 1.0
        if penalty == "elasticnet":
            return float(l1_ratio)
        return 0.0

    def _inverse_C(self, C) -> float:
        if self.penalty is None or C == np.inf:
            return 0.0
        return 1.0 / C

    def _problem(self, X, y, sample_weight, xp):
        """Validated labels: ``(classes, class indices, sample weights)``."""
        classes, y_index = _encode_labels(y, xp)
        if y_index.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y_index.shape[0]}]"
            )
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=xp.float64
            )
        return classes, y_index, sample_weight

    def _loss(self, X, classes, y_index, sample_weight, inverse_C, xp, compact=True):
        """The objective of each ``1 / C`` in ``inverse_C`` (the rows of one
        batched L-BFGS), class weights folded into the sample weights;
        ``compact``: fitted on the used columns of a sparse X (a start at
        zero only)."""
        return _LogisticLoss(
            X,
            y_index,
            int(classes.shape[0]),
            self._weights(classes, y_index, sample_weight, xp),
            inverse_C,
            self.fit_intercept,
            xp,
            compact=compact,
        )

    def _weights(self, classes, y_index, sample_weight, xp):
        """The sample weights with the class weights folded in (None: all
        ones); raises scikit-learn's error for fewer than two classes."""
        if classes.shape[0] < 2:
            raise ValueError(
                "This solver needs samples of at least 2 classes in the data, but "
                f"the data contains only one class: {to_host(classes)[0]!r}"
            )
        weights = sample_weight
        per_class = _class_weights(self.class_weight, classes, y_index, weights)
        if per_class is not None:
            factors = xp.asarray(per_class, dtype=xp.float64)[y_index]
            weights = factors if weights is None else weights * factors
        return weights

    def _lbfgs(self, loss, x0, xp, callback):
        """The device L-BFGS on ``loss`` from ``x0``."""
        return lbfgs(
            loss,
            x0,
            max_iter=self.max_iter,
            tol=self.tol,
            xp=xp,
            row_subsets=loss.takes_row_subsets,
            verbose=self.verbose,
            callback=callback,
        )

    def _minimize(self, loss, xp, x0=None, callback=None):
        """L-BFGS on ``loss`` from ``x0`` (zeros by default), warning as
        scikit-learn does for each row that did not converge."""
        if x0 is None:
            x0 = xp.zeros((loss.inverse_C.shape[0], loss.n_params))
        if self.max_iter == 0 and self.solver == "sag":
            # scikit-learn's sag has not moved yet (its lbfgs takes a step)
            k = x0.shape[0]
            result = LbfgsResult(
                x0, None, np.zeros(k, np.int32), np.ones(k, np.int32), [""] * k
            )
        else:
            result = self._lbfgs(loss, x0, xp, callback)
        for row in np.flatnonzero(result.status != 0):
            message = _convergence_message(result, row, self.max_iter)
            if self.solver == "sag":
                message = (
                    "The max_iter was reached which means the coef_ did not converge"
                )
            warnings.warn(
                message,
                ConvergenceWarning,
                stacklevel=4,  # the caller of fit (under its decorator)
            )
        return result

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family; CSR for sparse).
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        penalty = self._check_options()
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        _check_large_sparse(X, self.solver)
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=FLOAT_DTYPES)
        # scikit-learn's callbacks (1.9+): the fit, and one task per iteration.
        # They see the data as given (the fit may have uploaded a copy).
        metadata = None if sample_weight is None else {"sample_weight": sample_weight}
        context = init_callback_context(
            self, max_subtasks=max(self.max_iter, 1) + 1
        ).call_on_fit_task_begin(estimator=self, X=X_in, y=y, metadata=metadata)
        classes, y_index, sample_weight = self._problem(X, y, sample_weight, xp)
        if self._proximal():
            unsupported = f"fit solver={self.solver!r} with the {penalty} penalty"
            self.engine_ = _cuml.choose_engine(self, xp, unsupported, False)
            self._fit_proximal(X, classes, y_index, sample_weight, penalty, xp)
            self.coef_ = to_family(self.coef_, family)
            if hasattr(self.intercept_, "shape"):
                self.intercept_ = to_family(self.intercept_, family)
            context.call_on_fit_task_end(
                estimator=self,
                X=X_in,
                y=y,
                metadata=metadata,
                reconstruction_attributes={},
            )
            return self
        unsupported = _cuml.logistic_unsupported(
            self,
            X,
            self.warm_start and hasattr(self, "coef_"),
            classes.shape[0] > 2
            and (sample_weight is not None or self.class_weight is not None),
        )
        # "auto" keeps gpuml's L-BFGS: within 1.3x of cuML's fit, and the
        # one that batches C in a search (issue 18)
        engine = _cuml.choose_engine(self, xp, unsupported, prefer_cuml=False)
        if engine == "cuml":
            weights = self._weights(classes, y_index, sample_weight, xp)
            coef, intercept, n_iter = _cuml.fit_logistic(
                X,
                y_index,
                int(classes.shape[0]),
                weights,
                self._inverse_C(self.C),
                fit_intercept=self.fit_intercept,
                max_iter=self.max_iter,
                tol=self.tol,
            )
            self.classes_ = classes
            self.coef_ = to_family(coef, family)
            self.intercept_ = to_family(intercept, family)
            self.n_iter_ = np.asarray([n_iter], dtype=np.int32)
            self.engine_ = engine
            context.call_on_fit_task_end(
                estimator=self,
                X=X_in,
                y=y,
                metadata=metadata,
                reconstruction_attributes={},
            )
            return self
        x0 = None
        if self.warm_start and hasattr(self, "coef_"):
            x0 = self._warm_start_params(classes, X.shape[1], xp)
        inverse_C = xp.asarray([self._inverse_C(self.C)])
        loss = self._loss(
            X, classes, y_index, sample_weight, inverse_C, xp, compact=x0 is None
        )
        if x0 is None:
            x0 = xp.zeros((1, loss.n_params))
        iterations = None
        if hasattr(self, "_skl_callbacks"):

            def fitted(params):
                W, b = loss.split_as(params, X.dtype)
                return {
                    "classes_": classes,
                    "coef_": to_family(W[0], family),
                    "intercept_": to_family(b[0], family),
                }

            iterations = _IterationTasks(context, self, X_in, y, metadata, fitted, x0)
        result = self._minimize(loss, xp, x0=x0, callback=iterations)
        if iterations is not None:
            iterations.close()
        W, b = loss.split_as(result.x, X.dtype)
        self.classes_ = classes
        self.coef_ = to_family(W[0], family)
        self.intercept_ = to_family(b[0], family)
        self.n_iter_ = np.minimum(result.n_iter, self.max_iter).astype(np.int32)
        self.engine_ = engine
        context.call_on_fit_task_end(
            estimator=self, X=X_in, y=y, metadata=metadata, reconstruction_attributes={}
        )
        return self

    def _fit_proximal(self, X, classes, y_index, sample_weight, penalty, xp):
        """Fit by the proximal Newton method (liblinear, or saga with an L1
        or elastic-net penalty): ``coef_``, ``intercept_``, ``n_iter_``
        (in ``xp``; the caller moves them to the input's family)."""
        n_classes = int(classes.shape[0])
        liblinear = self.solver == "liblinear"
        if liblinear:
            _check_liblinear(X, n_classes, penalty == "l1", self.dual, xp)
        weights = self._weights(classes, y_index, sample_weight, xp)
        x0 = None
        # scikit-learn's liblinear has no warm start
        if self.warm_start and hasattr(self, "coef_") and not liblinear:
            x0 = self._warm_start_params(classes, X.shape[1], xp)
            rows = 1 if n_classes == 2 else n_classes
            W = x0[:, : rows * X.shape[1]].reshape(1, rows, X.shape[1])
            if self.fit_intercept:
                W = xp.concatenate([W, x0[:, rows * X.shape[1] :, None]], axis=2)
            x0 = W
        C = np.inf if penalty is None else float(self.C)
        ratio = self._l1_ratio_of(penalty, self.l1_ratio)
        result = self._proximal_newton(
            X, y_index, n_classes, weights, [C], [ratio], xp, x0=x0
        )
        # liblinear's coefficients are float64 whatever X's dtype
        dtype = np.float64 if liblinear else X.dtype
        self.classes_ = classes
        self.coef_ = result.coef[0].astype(dtype)
        if self.fit_intercept:
            self.intercept_ = result.intercept[0].astype(dtype)
        elif liblinear:
            self.intercept_ = 0.0  # scikit-learn's liblinear: a float
        else:
            self.intercept_ = xp.zeros(result.intercept.shape[1], dtype=dtype)
        self.n_iter_ = result.n_iter[:1].astype(np.int32)

    def _proximal_newton(self, X, y_index, n_classes, weights, C, ratio, xp, x0=None):
        """:func:`proximal_newton` with this estimator's settings, warning
        as scikit-learn's saga or liblinear does for each candidate that
        did not converge."""
        liblinear = self.solver == "liblinear"
        result = proximal_newton(
            X,
            y_index,
            n_classes,
            weights,
            C,
            ratio,
            fit_intercept=self.fit_intercept,
            intercept_column=float(self.intercept_scaling) if liblinear else 1.0,
            penalize_intercept=liblinear,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            xp=xp,
            x0=x0,
        )
        for row in np.flatnonzero(~result.converged):
            warnings.warn(
                _newton_message(self.solver, result, row),
                ConvergenceWarning,
                stacklevel=4,
            )
        return result

    def _warm_start_params(self, classes, n_features, xp):
        rows = 1 if classes.shape[0] == 2 else int(classes.shape[0])
        coef = _dense(to_namespace(self.coef_, xp)).astype(xp.float64)
        if coef.shape != (rows, n_features):
            raise ValueError(
                f"Initialization coef is of shape {coef.shape}, expected shape "
                f"{(rows, n_features)}"
            )
        parts = [coef.reshape(1, -1)]
        if self.fit_intercept:
            parts.append(to_namespace(self.intercept_, xp).astype(xp.float64)[None])
        return xp.concatenate(parts, axis=1)

    # -- prediction --------------------------------------------------------

    def _decision_xp(self, X, xp):
        check_is_fitted(self)
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=NUMERIC_FLOAT
        )
        coef = _dense(self._fitted("coef_", xp))  # dense again if sparsified
        intercept = self._fitted("intercept_", xp)
        if hasattr(intercept, "astype"):  # liblinear's 0.0 is a float
            intercept = intercept.astype(X.dtype)
        scores = X @ coef.astype(X.dtype).T + intercept
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def decision_function(self, X):
        """Confidence scores: (n_samples,) for binary, else (n_samples, n_classes)."""
        family = input_family(X)
        scores = to_family(self._decision_xp(X, compute_namespace()), family)
        return to_output(
            scores, X, columns=lambda: _label_columns(self.classes_, scores)
        )

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes)."""
        family = input_family(X)
        xp = compute_namespace()
        scores = self._decision_xp(X, xp)
        proba = to_family(_probabilities(scores, xp, binary=scores.ndim == 1), family)
        return to_output(proba, X, columns=lambda: _label_columns(self.classes_, proba))

    def predict_log_proba(self, X):
        """Logarithm of the class probabilities, computed as a log-softmax of
        the decision values: finite where a probability rounds to 0."""
        family = input_family(X)
        xp = compute_namespace()
        scores = self._decision_xp(X, xp)
        log_proba = to_family(
            _log_probabilities(scores, xp, binary=scores.ndim == 1), family
        )
        return to_output(
            log_proba, X, columns=lambda: _label_columns(self.classes_, log_proba)
        )

    def predict(self, X):
        """Class labels: host labels as NumPy, device labels in X's family."""
        family = input_family(X)
        xp = compute_namespace()
        scores = self._decision_xp(X, xp)
        indices = (
            (scores > 0).astype(xp.int64) if scores.ndim == 1 else scores.argmax(1)
        )
        return to_output(_labels(self.classes_, indices, family), X)

    def _predict_proba_lr(self, X):
        """One-vs-rest probabilities: the sigmoid of each decision value,
        normalised over the classes (scikit-learn's ``LinearClassifierMixin``
        method of this name, which its tests compare with the multinomial
        ``predict_proba``)."""
        family = input_family(X)
        xp = compute_namespace()
        prob = _expit(self._decision_xp(X, xp), xp)
        if prob.ndim == 1:
            return to_family(xp.stack([1 - prob, prob], axis=1), family)
        total = prob.sum(axis=1, keepdims=True)
        # all zero (every sigmoid underflowed): uniform, as scikit-learn
        uniform = total == 0
        prob = xp.where(uniform, 1.0, prob) / xp.where(uniform, prob.shape[1], total)
        return to_family(prob, family)

    def sparsify(self):
        """Convert ``coef_`` to a sparse (CSR) matrix, as scikit-learn's
        ``SparseCoefMixin`` does.

        A host fit's ``coef_`` becomes SciPy's CSR matrix (a ``csr_array``
        under scikit-learn's ``sparse_interface="sparray"``), a device fit's
        a cupyx ``csr_matrix`` (fitted attributes stay in the family of the
        training input); ``intercept_`` is not converted.
        Predictions are unchanged: they multiply by the dense coefficients
        (``n_classes x n_features``, converted at each call), so sparsifying
        saves memory where the model is stored, not prediction time.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        check_is_fitted(
            self, msg="Estimator, %(name)s, must be fitted before sparsifying."
        )
        coef = self.coef_
        if namespace_of(coef) is np:
            self.coef_ = align_sparse_output(sp.csr_matrix(coef))
        elif not is_sparse(coef):
            self.coef_ = import_cupyx("scipy.sparse").csr_matrix(coef)
        return self

    def densify(self):
        """Convert a sparsified ``coef_`` back to a dense array (of its
        family); a no-op when it is dense.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        check_is_fitted(
            self, msg="Estimator, %(name)s, must be fitted before densifying."
        )
        self.coef_ = _dense(self.coef_)
        return self

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given test data and labels."""
        from gpuml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    # Each C has its own L-BFGS iterate: a batch costs about the sum of its
    # candidates' fits, so a Dask search may split it between workers.
    _batch_cost_per_candidate = True

    def _search_seconds(self, n_train, n_features, candidates, n_folds):
        """A search's time on one GPU, estimated (see
        :func:`gpuml.model_selection._dask.worth_dispatching`): each fit
        evaluates the loss and gradient on its training rows about
        ``0.4 * tol ** -0.3`` times (6 at the default ``tol``, 25 at 1e-6),
        at about 4.5e11 row-feature products a second (measured on an H200:
        600,000 x 384 float32, 6 classes, 16 ``C`` on 5 folds, 0.22 s at
        ``tol=1e-4`` and 0.80 s at ``tol=1e-6``). None with cuML's engine."""
        if self.engine == "cuml":
            return None
        passes = sum(0.4 * float(c.get("tol", self.tol)) ** -0.3 for c in candidates)
        return n_folds * n_train * n_features * passes / 4.5e11

    def _batch_params(self) -> frozenset:
        """``C`` values can be optimised together (one L-BFGS, or one
        proximal Newton run, over all rows), and so can ``l1_ratio`` values
        with saga and liblinear (whose candidates the proximal Newton method
        fits together); cuML's engine fits them one at a time."""
        if self.engine == "cuml":
            return frozenset()
        if self.solver in ("saga", "liblinear"):
            return frozenset({"C", "l1_ratio"})
        return frozenset({"C"})  # their l1_ratio > 0 raises

    def _batch_column_counts(self) -> bool:
        """Whether :meth:`_fit_batch` takes ``n_features`` (each candidate
        on the leading columns of X): with the L-BFGS solvers."""
        return self.engine != "cuml" and not self._proximal()

    def _fit_batch(
        self,
        X,
        y,
        param_sets,
        *,
        folds=None,
        sample_weight=None,
        all_classes=False,
        n_features=None,
    ):
        """Fit one model per dict of ``param_sets`` (values of ``C`` and,
        with saga or liblinear, ``l1_ratio``) on each training fold.

        Each candidate is checked as its own ``fit`` would check it (the
        same errors and warnings). The candidates are fitted together by
        the algorithm of the solver name: L-BFGS (lbfgs, sag) by
        :meth:`_fit_batch_lbfgs`, the proximal Newton method (saga,
        liblinear, newton-cg, newton-cholesky) by
        :meth:`_fit_batch_proximal`, one run per fold, each candidate
        stopping on its own test. Returns an iterator of
        :class:`LogisticBatch`, one per fold, the candidates in the order
        of ``param_sets`` (see ``docs/search.rst``). ``all_classes``: a hook
        of LogisticRegressionCV, every fold fitted with all the classes of
        ``y``, as scikit-learn's ``_log_reg_scoring_path`` fits them.
        ``n_features`` (where :meth:`_batch_column_counts`, with
        ``folds=None``): candidate ``i`` is fitted on ``X[:, :n_features[i]]``
        (its coefficients zero beyond them; see
        :meth:`LogisticBatch.truncated`).
        """
        validate_estimator_params(self)
        penalties = []
        for params in param_sets:
            C = params.get("C", self.C)
            if not isinstance(C, Real) or not C > 0:
                raise ValueError(f"C must be a positive float; got {C!r}.")
            candidate = clone(self).set_params(**params)
            validate_estimator_params(candidate)
            penalties.append(candidate._check_options())
        if not self._proximal():
            subset = [{"C": params.get("C", self.C)} for params in param_sets]
            yield from self._fit_batch_lbfgs(
                X, y, subset, folds=folds, sample_weight=sample_weight,
                all_classes=all_classes, n_features=n_features,
            )  # fmt: skip
            return
        if n_features is not None:
            raise BatchUnsupported(f"solver={self.solver!r} fits every column")
        ratios = [
            self._l1_ratio_of(penalty, params.get("l1_ratio", self.l1_ratio))
            for penalty, params in zip(penalties, param_sets, strict=True)
        ]
        Cs = [
            np.inf if penalty is None else float(params.get("C", self.C))
            for penalty, params in zip(penalties, param_sets, strict=True)
        ]
        yield from self._fit_batch_proximal(
            X, y, Cs, ratios, folds, sample_weight, all_classes
        )

    def _fit_batch_proximal(
        self, X, y, C, ratios, folds, sample_weight, all_classes=False
    ):
        """One :class:`LogisticBatch` per training fold (or of all rows for
        ``folds=None``) of the proximal Newton method's candidates (host
        sequences ``C`` and ``ratios``, the L1 shares), all of a fold in
        one run."""
        xp = compute_namespace()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=FLOAT_DTYPES)
        classes, y_index, sample_weight = self._problem(X, y, sample_weight, xp)
        fits = [(X, classes, y_index, sample_weight)]
        if folds is not None:
            n_classes = int(classes.shape[0])
            fits = []
            for train in folds:
                train = xp.asarray(train)
                w_fold = None if sample_weight is None else sample_weight[train]
                if all_classes or _has_every_class(y_index, train, n_classes, xp):
                    fits.append((X[train], classes, y_index[train], w_fold))
                else:
                    fits.append((X[train], *_fold_labels(y, train, xp), w_fold))
        for X_fit, fit_classes, fit_y, fit_weights in fits:
            n_classes = int(fit_classes.shape[0])
            if self.solver == "liblinear":
                _check_liblinear(X_fit, n_classes, max(ratios) > 0, self.dual, xp)
            weights = self._weights(fit_classes, fit_y, fit_weights, xp)
            result = self._proximal_newton(
                X_fit, fit_y, n_classes, weights, C, ratios, xp
            )
            yield LogisticBatch(
                result.coef.astype(X.dtype),
                result.intercept.astype(X.dtype),
                fit_classes,
                np.asarray(to_host(result.n_iter), dtype=np.int32),
            )

    def _fit_batch_lbfgs(
        self,
        X,
        y,
        param_sets,
        *,
        folds=None,
        sample_weight=None,
        all_classes=False,
        n_features=None,
    ):
        """Fit one model per ``C`` of ``param_sets`` on each training fold
        by L-BFGS.

        On a GPU, while one joint evaluation is small (see
        :func:`_fit_together`), the candidates of every fold that holds all
        the classes are rows of one batched L-BFGS: each row weighs the
        samples of its fold's training rows (zero elsewhere), so every
        evaluation is one pass over the folds' rows for all folds and
        candidates, and the host drives one optimisation instead of one per
        fold; otherwise, and on the CPU, one per fold. The labels are encoded
        once; a fold that lacks one of the classes is fitted on its own
        labels, as scikit-learn would, unless ``all_classes`` (a hook of
        LogisticRegressionCV: every fold is fitted with all the classes of
        ``y``, as scikit-learn's ``_log_reg_scoring_path`` fits them).
        Returns an iterator of :class:`LogisticBatch` (see
        ``docs/search.rst``), each with its candidates' L-BFGS iterations.
        """
        if self.engine == "cuml":
            raise BatchUnsupported("engine='cuml' fits one C at a time")
        xp = compute_namespace()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=FLOAT_DTYPES)
        inverse_C = []
        for params in param_sets:
            C = params["C"]
            if not isinstance(C, Real) or not C > 0:
                raise ValueError(f"C must be a positive float; got {C!r}.")
            inverse_C.append(self._inverse_C(C))
        inverse_C = xp.asarray(inverse_C, dtype=xp.float64)
        if n_features is not None:
            if folds is not None:
                raise BatchUnsupported("column counts are for one fit's rows")
            if len(n_features) != len(param_sets) or not all(
                0 < m <= X.shape[1] for m in n_features
            ):
                raise ValueError(
                    f"n_features must give 1 to {X.shape[1]} columns for each of "
                    f"the {len(param_sets)} candidates; got {list(n_features)!r}."
                )
        classes, y_index, sample_weight = self._problem(X, y, sample_weight, xp)
        if folds is None:
            loss = self._loss(
                X, classes, y_index, sample_weight, inverse_C, xp,
                compact=n_features is None,
            )  # fmt: skip
            if n_features is not None:
                loss.restrict_columns(n_features)
            yield self._batch_model(loss, self._minimize(loss, xp), X.dtype, classes)
            return
        folds = [xp.asarray(train) for train in folds]  # host indices, moved once
        n_classes = int(classes.shape[0])
        complete = [
            all_classes or _has_every_class(y_index, t, n_classes, xp) for t in folds
        ]
        joint = [t for t, ok in zip(folds, complete, strict=True) if ok]
        together = len(joint) > 1 and n_classes > 1  # else _loss raises
        if together:
            union = _union_of_rows(joint, X.shape[0], xp)
            together = _fit_together(
                xp,
                int(union.shape[0]),
                len(joint) * len(param_sets) * (1 if n_classes == 2 else n_classes),
                X.nnz / max(X.shape[0], 1) if is_sparse(X) else X.shape[1],
            )
        models = iter(
            self._fit_folds_together(
                X, classes, y_index, sample_weight, inverse_C, joint, union, xp
            )
            if together
            else []
        )
        for train, ok in zip(folds, complete, strict=True):
            if ok and together:
                yield next(models)
                continue
            w_fold = None if sample_weight is None else sample_weight[train]
            if ok:
                parts = X[train], classes, y_index[train], w_fold
            else:
                parts = (X[train], *_fold_labels(y, train, xp), w_fold)
            loss = self._loss(*parts, inverse_C, xp)
            yield self._batch_model(loss, self._minimize(loss, xp), X.dtype, parts[1])

    def _fit_folds_together(
        self, X, classes, y_index, sample_weight, inverse_C, trains, union, xp
    ) -> list:
        """One :class:`LogisticBatch` per training fold of ``trains``, all
        fitted as the rows of one L-BFGS (fold-major: fold ``f``'s
        candidates are rows ``f * k`` to ``(f + 1) * k``).

        The rows are fitted on the union of the folds' training rows, each
        row weighing its own fold's (repeated indices counted as often as
        they appear, class weights from its fold's labels); a row's
        objective is its fold's, term for term.
        """
        k, n = inverse_C.shape[0], X.shape[0]
        whole = union.shape[0] == n  # every sample trains some fold: no copy
        X_union = X if whole else take_rows(X, union, xp)
        y_union = y_index if whole else take_rows(y_index, union, xp)
        weights = None
        if xp is not np and self.class_weight is None:
            weights = _device_fold_weights(trains, union, sample_weight, k, n, xp)
        if weights is None:
            weights = self._fold_weights(
                classes, y_index, sample_weight, trains, union, whole, k, xp
            )
        loss = _LogisticLoss(
            X_union,
            y_union,
            int(classes.shape[0]),
            weights,
            xp.asarray(np.tile(to_host(inverse_C), len(trains))),
            self.fit_intercept,
            xp,
        )
        result = self._minimize(loss, xp)
        return [
            self._batch_model(loss, result, X.dtype, classes, slice(f * k, (f + 1) * k))
            for f in range(len(trains))
        ]

    def _fold_weights(
        self, classes, y_index, sample_weight, trains, union, whole, k, xp
    ):
        """The (n_union, folds * k) weights of the rows of a joint fit."""
        columns = []
        for train in trains:
            if sample_weight is None:
                weights = xp.ones(train.shape[0])
            else:
                weights = sample_weight[train]
            per_class = _class_weights(
                self.class_weight, classes, y_index[train], weights
            )
            if per_class is not None:
                factors = xp.asarray(per_class, dtype=xp.float64)
                weights = weights * factors[y_index[train]]
            positions = train if whole else xp.searchsorted(union, train)
            columns.append(
                xp.bincount(positions, weights=weights, minlength=union.shape[0])
            )
        return xp.repeat(xp.stack(columns, axis=1), k, axis=1)

    def _batch_model(self, loss, result, dtype, classes, rows=None) -> LogisticBatch:
        """The batch model of the L-BFGS ``result``'s rows ``rows`` (all by
        default), with their iterations (at most ``max_iter``)."""
        rows = slice(None) if rows is None else rows
        W, b = loss.split_as(result.x[rows], dtype)
        n_iter = np.minimum(result.n_iter[rows], self.max_iter).astype(np.int32)
        return LogisticBatch(W, b, classes, n_iter)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _dense(coef):
    """``coef``, dense (a sparsified ``coef_`` converted back, in its family)."""
    return coef.toarray() if is_sparse(coef) else coef


def _probabilities(scores, xp, *, binary: bool):
    """Probabilities from decision values, the classes on a new last axis
    (binary: one column of scores in, two out) or on the last axis
    (multinomial softmax)."""
    if binary:
        positive = _expit(scores, xp)
        return xp.stack([1 - positive, positive], axis=-1)
    top = scores.max(axis=-1, keepdims=True)
    exp = xp.exp(scores - top)
    return exp / exp.sum(axis=-1, keepdims=True)


def _log_probabilities(scores, xp, *, binary: bool):
    """The logarithm of :func:`_probabilities`, without taking a logarithm of
    a probability: ``-log(1 + exp(-+z))`` for the two binary columns, ``z -
    logsumexp(z)`` for the multinomial model."""
    if binary:
        return -xp.logaddexp(0.0, xp.stack([scores, -scores], axis=-1))
    shifted = scores - scores.max(axis=-1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))


def _label_columns(classes, response):
    """The classes as column names of a 2-D ``response`` (one column per
    class), for cuDF output; None for a 1-D one."""
    if response.ndim != 2 or response.shape[1] != len(classes):
        return None
    return [str(label) for label in to_host(classes).tolist()]


def _labels(classes, indices, family):
    """``classes[indices]``: on the device for device classes and X."""
    if namespace_of(classes) is np:
        return np.asarray(classes)[np.asarray(to_host(indices))]
    return to_family(classes[to_namespace(indices, namespace_of(classes))], family)


class LogisticBatch:
    """``k`` fitted logistic models (one per ``C``) sharing one training fold.

    Responses stack the candidates on a leading axis: ``decision_function``
    gives (k, n) for binary problems and (k, n, n_classes) otherwise.
    ``n_iter``: the candidates' L-BFGS iterations (host int32, (k,)).
    """

    def __init__(self, W, b, classes, n_iter=None):
        self.W, self.b, self.classes_ = W, b, classes
        self.n_iter = n_iter

    def __len__(self) -> int:
        return self.W.shape[0]

    def truncated(self, rows: slice, n_features: int) -> LogisticBatch:
        """The candidates ``rows`` as models of the first ``n_features``
        columns (of a fit with ``n_features`` counts, zero beyond them)."""
        W = namespace_of(self.W).ascontiguousarray(self.W[rows, :, :n_features])
        n_iter = None if self.n_iter is None else self.n_iter[rows]
        return LogisticBatch(W, self.b[rows], self.classes_, n_iter)

    def decision_function(self, X):
        xp = namespace_of(self.W)
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        k, rows, p = self.W.shape
        if X.shape[1] != p:
            raise ValueError(
                f"X has {X.shape[1]} features, but LogisticRegression is expecting "
                f"{p} features as input."
            )
        flat = X @ self.W.reshape(k * rows, p).astype(X.dtype).T
        scores = flat.reshape(X.shape[0], k, rows).transpose(1, 0, 2) + self.b[:, None]
        return scores[:, :, 0] if rows == 1 else scores

    def _binary_labels(self, X):
        """Binary predictions (k, n) on the GPU: one GEMM and one kernel that
        adds the intercepts and picks the labels; None when not that case."""
        xp = namespace_of(self.W)
        k, rows, p = self.W.shape
        if xp is np or rows != 1 or namespace_of(self.classes_) is np:
            return None
        label_type = _cuda.ctype(self.classes_.dtype)
        if label_type not in ("int", "long long"):
            return None
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        if X.shape[1] != p:
            return None
        flat = X @ _as_dtype(self.W.reshape(k, p), X.dtype, xp).T  # (n, k)
        n = X.shape[0]
        out = xp.empty((k, n), dtype=self.classes_.dtype)
        args = (_cuda.c_order(flat), _as_dtype(self.b.reshape(k), X.dtype, xp))
        args += (xp.ascontiguousarray(self.classes_), np.int64(n), np.int64(k), out)
        name = f"binary_labels<{_cuda.ctype(X.dtype)}, {label_type}>"
        _cuda.launch("labels", name, n * k, args)
        return out

    def predict_proba(self, X):
        scores = self.decision_function(X)
        return _probabilities(scores, namespace_of(scores), binary=scores.ndim == 2)

    def predict_log_proba(self, X):
        scores = self.decision_function(X)
        return _log_probabilities(scores, namespace_of(scores), binary=scores.ndim == 2)

    def predict(self, X):
        labels = self._binary_labels(X)
        if labels is not None:
            return labels
        scores = self.decision_function(X)
        xp = namespace_of(scores)
        indices = (
            (scores > 0).astype(xp.int64) if scores.ndim == 2 else scores.argmax(2)
        )
        family = DEVICE if xp is not np else HOST
        return _labels(self.classes_, indices, family)
