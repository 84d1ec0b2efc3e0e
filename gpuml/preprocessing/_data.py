"""Feature scaling: :class:`StandardScaler`.

The statistics are computed by small pure functions written once against an
array namespace ``xp`` (NumPy or CuPy), for dense arrays and for CSR/CSC
matrices (SciPy or cupyx). Sparse statistics never densify: every stored
value is mapped to its row and column, and per-column sums are ``bincount``
reductions, which both namespaces have. Accumulation is always in float64,
whatever the input dtype, as in scikit-learn.

Incremental fitting (``partial_fit``) combines the statistics of the batches
seen so far with those of the new batch by the pairwise update of Chan, Golub
and LeVeque, as scikit-learn's ``_incremental_mean_and_var`` does.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    into_input,
    is_sparse,
    to_family,
    to_family_attribute,
    to_namespace,
    to_output,
)
from gpuml._linalg import sparse_coords
from gpuml._reductions import column_moments
from gpuml._sklearn_compat import (
    CallbackSupportMixin,
    fit_context,
    init_callback_context,
)
from gpuml._validation import check_array, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin

# scikit-learn's ``supported_float_dtypes`` for NumPy and CuPy: these dtypes
# are preserved, anything else is converted to float64.
_FLOAT_DTYPES = (np.float64, np.float32, np.float16)

_CENTER_SPARSE_MSG = (
    "Cannot center sparse matrices: pass `with_mean=False` "
    "instead. See docstring for motivation and alternatives."
)
# scikit-learn's message, missing full stop included.
_UNCENTER_SPARSE_MSG = (
    "Cannot uncenter sparse matrices: pass `with_mean=False` "
    "instead See docstring for motivation and alternatives."
)


# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def _column_sums(xp: ModuleType, cols, values, n_features: int):
    """Per-column sum of per-stored-value ``values`` (float64)."""
    if cols.shape[0] == 0:  # cupy.bincount cannot take an empty array
        return xp.zeros(n_features, dtype=xp.float64)
    return xp.bincount(cols, weights=values, minlength=n_features)


def _combine(last_mean, last_var, last_n, new_sum, new_unnormalized_var, new_n, xp):
    """Merge running statistics with those of a new batch (all float64).

    ``last_*`` summarise the data seen so far (``last_n`` is a count or a sum
    of weights per feature), ``new_*`` the batch. This is scikit-learn's
    update formula; where a feature has no value in the batch (``new_n`` is
    0) the running statistics are kept, and where it had none before
    (``last_n`` is 0) the batch statistics are taken, instead of the 0/0 that
    scikit-learn's formula gives there. ``last_var`` None skips the variance.
    """
    updated_n = last_n + new_n
    keep_last = (new_n == 0) & (last_n > 0)
    empty_before = last_n == 0
    last_sum = xp.where(empty_before, 0.0, last_mean * last_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        updated_mean = xp.where(keep_last, last_mean, (last_sum + new_sum) / updated_n)
        if last_var is None:
            return updated_mean, None, updated_n
        last_unnormalized_var = last_var * last_n
        last_over_new_n = last_n / new_n
        updated_unnormalized_var = (
            last_unnormalized_var
            + new_unnormalized_var
            + last_over_new_n / updated_n * (last_sum / last_over_new_n - new_sum) ** 2
        )
        updated_unnormalized_var = xp.where(
            empty_before, new_unnormalized_var, updated_unnormalized_var
        )
        updated_var = xp.where(
            keep_last, last_var, updated_unnormalized_var / updated_n
        )
    return updated_mean, updated_var, updated_n


def dense_incremental_mean_var(X, last_mean, last_var, last_n, sample_weight, *, xp):
    """Update per-feature mean, variance and count with a dense batch ``X``.

    NaNs in ``X`` are ignored. Statistics are float64. ``last_mean`` and
    ``last_var`` may be the scalar 0.0 (first batch) and ``last_var`` None
    (no variance wanted); ``last_n`` is an array of shape (n_features,).
    With ``sample_weight``, counts are sums of weights.

    The batch variance is the corrected two-pass formula of Chan, Golub and
    LeVeque, as in scikit-learn's ``_incremental_mean_and_var``.
    """
    f64 = xp.float64
    n_samples, n_features = X.shape
    last_n = xp.asarray(last_n, dtype=f64)
    if xp is not np:
        # On the GPU: two fused passes of the column-moments kernel (count and
        # sum, then the corrected sums of squares around the batch mean).
        new_n, new_sum, _ = column_moments(X, sample_weight, xp=xp)
        new_unnormalized_var = None
        if last_var is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                batch_mean = new_sum / new_n
            _, correction, squares = column_moments(X, sample_weight, batch_mean, xp=xp)
            new_unnormalized_var = squares - correction**2 / new_n
        return _combine(
            last_mean, last_var, last_n, new_sum, new_unnormalized_var, new_n, xp
        )
    nan_mask = xp.isnan(X)
    has_nan = bool(nan_mask.any())
    sum_op = xp.nansum if has_nan else xp.sum
    if sample_weight is not None:
        w = sample_weight.astype(f64, copy=False)
        X_filled = xp.where(nan_mask, 0, X) if has_nan else X
        new_sum = w @ X_filled.astype(f64, copy=False)
        # Subtracting the weight of the NaNs (exactly 0 for columns without
        # any) keeps equal counts bit-identical across such columns.
        new_n = xp.zeros(n_features, dtype=f64) + xp.sum(w)
        if has_nan:
            new_n = new_n - w @ nan_mask.astype(f64)
    else:
        w = None
        new_sum = sum_op(X, axis=0, dtype=f64)
        new_n = xp.full(n_features, float(n_samples), dtype=f64)
        if has_nan:
            new_n = new_n - xp.sum(nan_mask, axis=0, dtype=f64)

    new_unnormalized_var = None
    if last_var is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            temp = X - new_sum / new_n  # float64, shape of X
            if w is not None:
                if has_nan:
                    temp = xp.where(nan_mask, 0.0, temp)
                correction = w @ temp
                temp *= temp
                new_unnormalized_var = w @ temp
            else:
                correction = sum_op(temp, axis=0)
                temp *= temp
                new_unnormalized_var = sum_op(temp, axis=0)
            new_unnormalized_var -= correction**2 / new_n
    return _combine(
        last_mean, last_var, last_n, new_sum, new_unnormalized_var, new_n, xp
    )


def sparse_mean_var(X, sample_weight, *, xp):
    """Per-feature weighted mean, variance and sum of weights of CSR/CSC ``X``.

    Stored NaNs are ignored, implicit zeros count as zeros. Everything is
    float64. Same algorithm as scikit-learn's ``csr_mean_variance_axis0``:
    the corrected two-pass variance over the stored values, with the
    implicit zeros added in closed form.
    """
    f64 = xp.float64
    n_samples, n_features = X.shape
    rows, cols = sparse_coords(X, xp)
    if sample_weight is None:
        w = xp.ones(n_samples, dtype=f64)
    else:
        w = sample_weight.astype(f64, copy=False)
    nan_mask = xp.isnan(X.data)
    values = xp.where(nan_mask, 0, X.data).astype(f64, copy=False)
    stored_w = w[rows]
    valid_w = xp.where(nan_mask, 0.0, stored_w)

    sum_w = xp.sum(w) - _column_sums(
        xp, cols, xp.where(nan_mask, stored_w, 0.0), n_features
    )
    sum_w_stored = _column_sums(xp, cols, valid_w, n_features)
    has_zeros = _column_sums(xp, cols, xp.ones_like(valid_w), n_features) != n_samples
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = _column_sums(xp, cols, valid_w * values, n_features) / sum_w
        diff = values - mean[cols]
        correction = _column_sums(xp, cols, valid_w * diff, n_features)
        var = _column_sums(xp, cols, valid_w * diff * diff, n_features)
        zeros_w = sum_w - sum_w_stored
        correction = xp.where(has_zeros, correction - zeros_w * mean, correction)
        var = xp.where(has_zeros, var + zeros_w * mean**2, var)
        var = (var - correction**2 / sum_w) / sum_w
    return mean, var, sum_w


def sparse_incremental_mean_var(X, last_mean, last_var, last_n, sample_weight, *, xp):
    """Update per-feature mean, variance and sum of weights with CSR/CSC ``X``."""
    mean, var, n = sparse_mean_var(X, sample_weight, xp=xp)
    last_n = xp.asarray(last_n, dtype=xp.float64)
    if not bool(xp.any(last_n > 0)):
        return mean, var, n
    return _combine(
        xp.asarray(last_mean, dtype=xp.float64),
        xp.asarray(last_var, dtype=xp.float64),
        last_n,
        mean * n,
        var * n,
        n,
        xp,
    )


def sparse_non_nan_weight(X, sample_weight, *, xp):
    """Per-feature sum of the weights of the non-NaN values (float64)."""
    n_samples, n_features = X.shape
    rows, cols = sparse_coords(X, xp)
    if sample_weight is None:
        w = xp.ones(n_samples, dtype=xp.float64)
    else:
        w = sample_weight.astype(xp.float64, copy=False)
    nan_w = xp.where(xp.isnan(X.data), w[rows], 0.0)
    return xp.sum(w) - _column_sums(xp, cols, nan_w, n_features)


def scale_from_var(var, mean, n_samples_seen, *, xp):
    """Standard deviations, with 1 for features indistinguishable from constant.

    A feature is constant when its variance is within the error bound of the
    two-pass variance algorithm (scikit-learn's ``_is_constant_feature``).
    """
    eps = float(np.finfo(np.float64).eps)
    upper_bound = n_samples_seen * eps * var + (n_samples_seen * mean * eps) ** 2
    with np.errstate(invalid="ignore"):
        return xp.where(var <= upper_bound, 1.0, xp.sqrt(var))


def _scale_sparse(X, factor, *, xp, inplace: bool):
    """Multiply column j of CSR/CSC ``X`` by ``factor[j]``."""
    if not inplace:
        X = X.copy()
    _, cols = sparse_coords(X, xp)
    X.data *= factor[cols]
    return X


def _may_overwrite(validated, original, copy: bool) -> bool:
    """Whether ``copy=False`` may write into ``validated``: the caller's own array."""
    if copy or validated is not original:
        return False
    data = validated.data if is_sparse(validated) else validated
    return bool(getattr(data.flags, "writeable", True))


# --------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------


class StandardScaler(
    CallbackSupportMixin,
    OneToOneFeatureMixin,
    TransformerMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Standardize features by removing the mean and scaling to unit variance.

    The standard score of a sample ``x`` is ``z = (x - u) / s``, where ``u``
    is the mean of the training samples (or zero if ``with_mean=False``) and
    ``s`` their standard deviation (or one if ``with_std=False``). Same API
    and results as :class:`sklearn.preprocessing.StandardScaler`; statistics
    and transforms are computed on the GPU when one is used (see
    :func:`gpuml.set_config`), and outputs come back in the family of the
    input (NumPy/SciPy in, NumPy/SciPy out; CuPy/cupyx in, CuPy/cupyx out).

    Sparse CSR or CSC matrices are accepted with ``with_mean=False`` (centring
    would destroy their sparsity); their variance is computed without
    densifying.

    Parameters
    ----------
    copy : bool, default=True
        If False, try to avoid a copy and scale in place instead. This is done
        only when the input is already a float array (or CSR matrix) of the
        compute namespace, writeable, and of a preserved dtype; otherwise a
        new array is returned.

    with_mean : bool, default=True
        If True, center the data before scaling. Raises an error on sparse
        input.

    with_std : bool, default=True
        If True, scale the data to unit variance.

    Attributes
    ----------
    scale_ : ndarray of shape (n_features,) or None
        Per-feature scaling, ``sqrt(var_)``, with 1 for features whose
        variance is zero (up to rounding). None when ``with_std=False``.

    mean_ : ndarray of shape (n_features,) or None
        The per-feature mean of the training set. None when ``with_mean=False``
        and ``with_std=False``.

    var_ : ndarray of shape (n_features,) or None
        The per-feature variance of the training set, used to compute
        ``scale_``. None when ``with_std=False``.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    n_samples_seen_ : int, float or ndarray of shape (n_features,)
        The number of samples (or the sum of their weights) seen per feature,
        NaNs excluded; a scalar when it is the same for every feature. Reset
        by :meth:`fit`, incremented by :meth:`partial_fit`. Its type follows
        scikit-learn exactly.

    See Also
    --------
    sklearn.preprocessing.StandardScaler : The scikit-learn estimator.

    Notes
    -----
    NaNs are treated as missing values: disregarded in fit, and kept in
    transform. The standard deviation is the biased estimator
    (``numpy.std(x, ddof=0)``). Fitted arrays are float64 and live in the
    family of the training input, so a model fitted on NumPy data pickles
    and loads where there is no GPU.

    Examples
    --------
    >>> from gpuml.preprocessing import StandardScaler
    >>> data = [[0, 0], [0, 0], [1, 1], [1, 1]]
    >>> scaler = StandardScaler().fit(data)
    >>> print(scaler.mean_)
    [0.5 0.5]
    >>> print(scaler.transform(data))
    [[-1. -1.]
     [-1. -1.]
     [ 1.  1.]
     [ 1.  1.]]
    >>> print(scaler.transform([[2, 2]]))
    [[3. 3.]]
    """

    _parameter_constraints: dict = {
        "copy": ["boolean"],
        "with_mean": ["boolean"],
        "with_std": ["boolean"],
    }

    def __init__(self, *, copy=True, with_mean=True, with_std=True):
        self.with_mean = with_mean
        self.with_std = with_std
        self.copy = copy

    def _reset(self) -> None:
        """Drop the fitted statistics (parameters are untouched)."""
        for name in ("scale_", "n_samples_seen_", "mean_", "var_"):
            self.__dict__.pop(name, None)
        self._reset_device_cache()

    def fit(self, X, y=None, sample_weight=None):
        """Compute the mean and standard deviation used for later scaling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data used to compute the per-feature mean and standard
            deviation. NaNs are ignored.

        y : None
            Ignored.

        sample_weight : array-like of shape (n_samples,), default=None
            Individual weights for each sample.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        self._reset()
        return self.partial_fit(X, y, sample_weight)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the mean and standard deviation with a batch of samples.

        The statistics of the batch are merged with those of the batches seen
        so far (Chan, Golub and LeVeque, "Algorithms for computing the sample
        variance: analysis and recommendations", The American Statistician
        37.3, 1983), so that fitting in batches gives the result of one fit.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch. NaNs are ignored.

        y : None
            Ignored.

        sample_weight : array-like of shape (n_samples,), default=None
            Individual weights for each sample.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        xp = compute_namespace()
        family = input_family(X)
        first_call = not hasattr(self, "n_samples_seen_")
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=first_call,
            accept_sparse=("csr", "csc"),
            dtype=_FLOAT_DTYPES,
            allow_nan=True,
        )
        # scikit-learn's callbacks (1.9+): one task per call, seeing the data
        # as given (the fit may have uploaded a copy).
        context = init_callback_context(self).call_on_fit_task_begin(
            estimator=self, X=X_in, y=y, metadata={"sample_weight": sample_weight}
        )
        if first_call:
            self._reset_device_cache()
        n_features = X.shape[1]
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )

        # The running count, as an array of one entry per feature (a scalar
        # is stored when all are equal), with scikit-learn's dtype rules.
        count_dtype = xp.int64 if sample_weight is None else X.dtype
        if first_call:
            n_seen = xp.zeros(n_features, dtype=count_dtype)
        else:
            n_seen = xp.asarray(to_namespace(self.n_samples_seen_, xp))
            if n_seen.size == 1:
                n_seen = xp.broadcast_to(n_seen.reshape(()), (n_features,))
                n_seen = n_seen.astype(count_dtype)
        first_pass = not hasattr(self, "scale_")
        last_mean = 0.0 if first_pass else self._state(self.mean_, xp)
        last_var = 0.0 if first_pass else self._state(self.var_, xp)

        if is_sparse(X):
            if self.with_mean:
                raise ValueError(_CENTER_SPARSE_MSG)
            # The Cython kernels scikit-learn uses count in the data's dtype.
            sparse_count_dtype = (
                X.dtype if X.dtype in (xp.float32, xp.float64) else xp.float64
            )
            if self.with_std:
                if first_pass:
                    mean, var, n_seen = sparse_mean_var(X, sample_weight, xp=xp)
                else:
                    mean, var, n_seen = sparse_incremental_mean_var(
                        X, last_mean, last_var, n_seen, sample_weight, xp=xp
                    )
                n_seen = n_seen.astype(sparse_count_dtype)
            else:
                mean = var = None
                non_nan = sparse_non_nan_weight(X, sample_weight, xp=xp)
                n_seen = n_seen + non_nan.astype(count_dtype)
        elif not self.with_mean and not self.with_std:
            # scikit-learn counts samples here, ignoring sample_weight.
            mean = var = None
            counted = X.shape[0] - xp.sum(xp.isnan(X), axis=0)
            n_seen = (n_seen + counted).astype(n_seen.dtype)
        else:
            mean, var, n_seen = dense_incremental_mean_var(
                X,
                last_mean,
                last_var if self.with_std else None,
                n_seen,
                sample_weight,
                xp=xp,
            )

        # A scalar when every feature saw the same count (scikit-learn's rule).
        if bool(xp.max(n_seen) == xp.min(n_seen)):
            n_seen = n_seen[0]
        scale = scale_from_var(var, mean, n_seen, xp=xp) if self.with_std else None

        self.n_samples_seen_ = to_family_attribute(n_seen, family)
        self.mean_ = None if mean is None else to_family(mean, family)
        self.var_ = None if var is None else to_family(var, family)
        self.scale_ = None if scale is None else to_family(scale, family)
        context.call_on_fit_task_end(
            estimator=self,
            X=X_in,
            y=y,
            metadata={"sample_weight": sample_weight},
            reconstruction_attributes={},
        )
        return self

    @staticmethod
    def _state(value, xp: ModuleType):
        """A running statistic, or None, in ``xp``."""
        return None if value is None else to_namespace(value, xp)

    def transform(self, X, copy=None):
        """Standardize ``X``: subtract the mean and divide by the scale.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to scale. NaNs are kept.

        copy : bool, default=None
            Copy the input X or not; None uses the ``copy`` parameter.

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        copy = self.copy if copy is None else copy
        family = input_family(X)
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse="csr",
            dtype=_FLOAT_DTYPES,
            allow_nan=True,
        )
        X = self._apply(
            X, xp, inverse=False, inplace=_may_overwrite(X, X_in, copy), copy=copy
        )
        X = into_input(to_family(X, family), X_in, copy)
        return to_output(X, X_in, lambda: self._output_columns(X_in))

    def inverse_transform(self, X, copy=None):
        """Scale back the data to the original representation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to scale back.

        copy : bool, default=None
            Copy the input X or not; None uses the ``copy`` parameter.

        Returns
        -------
        X_original : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        copy = self.copy if copy is None else copy
        family = input_family(X)
        X_in = X
        X = check_array(
            X, xp=xp, accept_sparse="csr", dtype=_FLOAT_DTYPES, allow_nan=True
        )
        X = self._apply(
            X, xp, inverse=True, inplace=_may_overwrite(X, X_in, copy), copy=copy
        )
        X = into_input(to_family(X, family), X_in, copy)
        return to_output(X, X_in, lambda: self._output_columns(X_in))

    def _output_columns(self, X):
        """A cuDF DataFrame's column names, kept by its scaled copy."""
        return list(X.columns) if hasattr(X, "columns") else None

    def _apply(self, X, xp: ModuleType, *, inverse: bool, inplace: bool, copy: bool):
        """Standardize validated ``X`` (or undo it), dense or sparse."""
        if not is_sparse(X):
            return self._dense_apply(X, xp, inverse=inverse, inplace=inplace, copy=copy)
        if self.with_mean:
            raise ValueError(_UNCENTER_SPARSE_MSG if inverse else _CENTER_SPARSE_MSG)
        scale = self._fitted("scale_", xp)
        if scale is not None:
            return _scale_sparse(
                X, scale if inverse else 1 / scale, xp=xp, inplace=inplace
            )
        return X.copy() if copy else X

    def _dense_apply(
        self, X, xp: ModuleType, *, inverse: bool, inplace: bool, copy: bool
    ):
        """Center and scale (or undo it) in X's dtype, as scikit-learn does."""
        steps = []
        if self.with_mean:
            mean = self._fitted("mean_", xp).astype(X.dtype)
            steps.append(("add" if inverse else "subtract", mean))
        if self.with_std:
            scale = self._fitted("scale_", xp).astype(X.dtype)
            steps.append(("multiply" if inverse else "divide", scale))
        if inverse:
            steps.reverse()
        if not steps:
            return X.copy() if copy else X
        for name, operand in steps:
            ufunc = getattr(xp, name)
            X = ufunc(X, operand, out=X) if inplace else ufunc(X, operand)
            inplace = True  # the first step made a new array
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = not self.with_mean
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
