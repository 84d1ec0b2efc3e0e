"""Range scaling: :class:`MinMaxScaler` and :class:`MaxAbsScaler`.

Both keep per-feature extrema, so incremental fitting (``partial_fit``) is
exact: the running minimum (maximum) of the batches is the minimum (maximum)
of their union. The statistics are computed once, against an array namespace
``xp`` (NumPy or CuPy), and kept in the dtype of the training data, as in
scikit-learn; NaNs are ignored in fit and kept in transform. Batches are
combined with ``fmin``/``fmax``, so a feature that is all NaN in one batch
keeps the extrema of the others (scikit-learn's ``minimum``/``maximum``
make it NaN for good).

Sparse CSR/CSC matrices (MaxAbsScaler) are never densified: the per-column
maximum of the stored absolute values is a segmented maximum (a sort by
column then value, :func:`segment_max`), and the implicit zeros of a column
that is not full take part as a zero.
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
    to_output,
)
from gpuml._linalg import sparse_coords
from gpuml._sklearn_compat import fit_context
from gpuml._validation import check_array, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._data import _FLOAT_DTYPES, _may_overwrite, _scale_sparse

# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def handle_zeros_in_scale(scale, xp: ModuleType):
    """``scale`` with 1 where it is below ten machine epsilons (of its dtype).

    scikit-learn's ``_handle_zeros_in_scale``: NaN scales stay NaN.
    """
    tiny = 10 * float(np.finfo(scale.dtype).eps)
    return xp.where(scale < tiny, xp.asarray(1.0, dtype=scale.dtype), scale)


def segment_max(segments, values, n_segments: int, *, xp: ModuleType):
    """Maximum of ``values`` per segment id in ``segments`` (``-inf`` if none).

    ``values`` must be NaN-free. Both namespaces have ``lexsort``: the values
    are sorted by segment, then by value, and the last of each segment is
    taken.
    """
    out = xp.full(n_segments, -np.inf, dtype=values.dtype)
    if values.shape[0] == 0:  # cupy.bincount cannot take an empty array
        return out
    keys = xp.stack([values.astype(xp.float64), segments.astype(xp.float64)])
    order = xp.lexsort(keys)
    counts = xp.bincount(segments, minlength=n_segments)
    ends = xp.cumsum(counts) - 1
    present = counts > 0
    out[present] = values[order][ends[present]]
    return out


def canonical(X):
    """CSR/CSC ``X`` with duplicate entries summed (a copy only if needed)."""
    if getattr(X, "has_canonical_format", True):
        return X
    X = X.copy()
    X.sum_duplicates()
    return X


def sparse_column_abs_max(X, *, xp: ModuleType):
    """Per-column maximum of ``|x|`` of CSR/CSC ``X``, NaNs ignored.

    Implicit zeros count as zeros; a column whose entries are all stored
    NaNs gets NaN (scikit-learn's ``min_max_axis(..., ignore_nan=True)``).
    """
    X = canonical(X)
    n_samples, n_features = X.shape
    _, cols = sparse_coords(X, xp)
    data = X.data
    nan = xp.isnan(data)
    values = xp.where(nan, xp.asarray(-np.inf, dtype=data.dtype), xp.abs(data))
    max_abs = segment_max(cols, values, n_features, xp=xp)
    if cols.shape[0]:
        n_stored = xp.bincount(cols, minlength=n_features)
    else:
        n_stored = xp.zeros(n_features, dtype=xp.int64)
    # Implicit zeros (a column not full) take part as a zero.
    max_abs = xp.where(n_stored < n_samples, xp.maximum(max_abs, 0), max_abs)
    return xp.where(max_abs == -np.inf, xp.asarray(np.nan, dtype=data.dtype), max_abs)


def _writable_copy(X, X_in, copy: bool):
    """Validated ``X``, or a copy of it where it may not be written to."""
    return X if _may_overwrite(X, X_in, copy) else X.copy()


class _RangeScalerMixin(DeviceCacheMixin):
    """Validation and output shared by the two scalers."""

    def _validated(self, X, xp: ModuleType, *, reset: bool, accept_sparse):
        return validate_data(
            self,
            X,
            xp=xp,
            reset=reset,
            accept_sparse=accept_sparse,
            dtype=_FLOAT_DTYPES,
            allow_nan=True,
        )

    @staticmethod
    def _output(X, family: str, X_in, copy: bool):
        columns = list(X_in.columns) if hasattr(X_in, "columns") else None
        X = into_input(to_family(X, family), X_in, copy)
        return to_output(X, X_in, lambda: columns)

    def _count(self, X, first_pass: bool) -> None:
        if first_pass:
            self.n_samples_seen_ = X.shape[0]
        else:
            self.n_samples_seen_ += X.shape[0]


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class MinMaxScaler(
    _RangeScalerMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Transform features by scaling each feature to a given range.

    ``X_scaled = X * scale_ + min_`` maps the training minimum and maximum of
    each feature to ``feature_range``. Same API and results as
    :class:`sklearn.preprocessing.MinMaxScaler`; the extrema and the
    transform are computed on the GPU when one is used (see
    :func:`gpuml.set_config`), and outputs come back in the family of the
    input (NumPy in, NumPy out; CuPy in, CuPy out).

    Parameters
    ----------
    feature_range : tuple (min, max), default=(0, 1)
        Desired range of transformed data.

    copy : bool, default=True
        If False, scale in place where the input is already a writeable
        float array of the compute namespace; otherwise a new array is
        returned.

    clip : bool, default=False
        Clip transformed values of held-out data to ``feature_range``.

    Attributes
    ----------
    min_ : ndarray of shape (n_features,)
        Per-feature adjustment for minimum, ``feature_range[0] - data_min_ *
        scale_``.

    scale_ : ndarray of shape (n_features,)
        Per-feature relative scaling of the data, ``(feature_range[1] -
        feature_range[0]) / data_range_`` (a zero range counts as 1).

    data_min_ : ndarray of shape (n_features,)
        Per-feature minimum seen in the data (NaNs ignored).

    data_max_ : ndarray of shape (n_features,)
        Per-feature maximum seen in the data (NaNs ignored).

    data_range_ : ndarray of shape (n_features,)
        Per-feature range ``data_max_ - data_min_`` seen in the data.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    n_samples_seen_ : int
        The number of samples processed; reset by :meth:`fit`, incremented
        by :meth:`partial_fit`.

    See Also
    --------
    sklearn.preprocessing.MinMaxScaler : The scikit-learn estimator.
    MaxAbsScaler : Scale each feature by its maximum absolute value.

    Notes
    -----
    NaNs are treated as missing values: disregarded in fit, and kept in
    transform. Fitted arrays have the dtype of the training data and live
    in its family. Sparse input is refused, as by scikit-learn.

    Examples
    --------
    >>> from gpuml.preprocessing import MinMaxScaler
    >>> data = [[-1, 2], [-0.5, 6], [0, 10], [1, 18]]
    >>> scaler = MinMaxScaler().fit(data)
    >>> print(scaler.data_max_)
    [ 1. 18.]
    >>> print(scaler.transform(data))
    [[0.   0.  ]
     [0.25 0.25]
     [0.5  0.5 ]
     [1.   1.  ]]
    >>> print(scaler.transform([[2, 2]]))
    [[1.5 0. ]]
    """

    _parameter_constraints: dict = {
        "feature_range": [tuple],
        "copy": ["boolean"],
        "clip": ["boolean"],
    }

    def __init__(self, feature_range=(0, 1), *, copy=True, clip=False):
        self.feature_range = feature_range
        self.copy = copy
        self.clip = clip

    def _reset(self) -> None:
        """Drop the fitted statistics (parameters are untouched)."""
        for name in ("scale_", "min_", "n_samples_seen_", "data_min_", "data_max_"):
            self.__dict__.pop(name, None)
        self.__dict__.pop("data_range_", None)

    def fit(self, X, y=None):
        """Compute the minimum and maximum to be used for later scaling.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data used to compute the per-feature minimum and maximum.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        self._reset()
        return self.partial_fit(X, y)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Update the minimum and maximum with a batch of samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch. NaNs are ignored.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        low, high = self.feature_range
        if low >= high:
            raise ValueError(
                "Minimum of desired feature range must be smaller than maximum. "
                f"Got {self.feature_range}."
            )
        if is_sparse(X):
            raise TypeError(
                "MinMaxScaler does not support sparse input. "
                "Consider using MaxAbsScaler instead."
            )
        xp = compute_namespace()
        family = input_family(X)
        first_pass = not hasattr(self, "n_samples_seen_")
        X = self._validated(X, xp, reset=first_pass, accept_sparse=False)
        if first_pass:
            self._reset_device_cache()
        low = xp.asarray(low, dtype=X.dtype)
        high = xp.asarray(high, dtype=X.dtype)
        data_min = xp.nanmin(X, axis=0)
        data_max = xp.nanmax(X, axis=0)
        if not first_pass:
            data_min = xp.fmin(self._fitted("data_min_", xp), data_min)
            data_max = xp.fmax(self._fitted("data_max_", xp), data_max)
        data_range = data_max - data_min
        scale = (high - low) / handle_zeros_in_scale(data_range, xp)
        self._count(X, first_pass)
        self.scale_ = to_family(scale, family)
        self.min_ = to_family(low - data_min * scale, family)
        self.data_min_ = to_family(data_min, family)
        self.data_max_ = to_family(data_max, family)
        self.data_range_ = to_family(data_range, family)
        return self

    def transform(self, X):
        """Scale features of ``X`` according to ``feature_range``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data that will be transformed.

        Returns
        -------
        Xt : ndarray of shape (n_samples, n_features)
            Transformed data, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = self._validated(X, xp, reset=False, accept_sparse=False)
        X = _writable_copy(X, X_in, self.copy)
        xp.multiply(X, self._fitted("scale_", xp), out=X)
        xp.add(X, self._fitted("min_", xp), out=X)
        if self.clip:
            low, high = self.feature_range
            xp.clip(
                X,
                xp.asarray(low, dtype=X.dtype),
                xp.asarray(high, dtype=X.dtype),
                out=X,
            )
        return self._output(X, family, X_in, self.copy)

    def inverse_transform(self, X):
        """Undo the scaling of ``X`` according to ``feature_range``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data that will be transformed back. It cannot be sparse.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Transformed data, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = check_array(X, xp=xp, dtype=_FLOAT_DTYPES, allow_nan=True)
        X = _writable_copy(X, X_in, self.copy)
        xp.subtract(X, self._fitted("min_", xp), out=X)
        xp.divide(X, self._fitted("scale_", xp), out=X)
        return self._output(X, family, X_in, self.copy)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class MaxAbsScaler(
    _RangeScalerMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Scale each feature by its maximum absolute value.

    Each feature is divided by its maximum absolute value in the training
    set, so that it lies in ``[-1, 1]``. Nothing is shifted or centred, so
    sparsity is kept: CSR and CSC matrices come back in their format, with
    the same stored entries. Same API and results as
    :class:`sklearn.preprocessing.MaxAbsScaler`, computed on the GPU when
    one is used, outputs in the family of the input.

    Parameters
    ----------
    copy : bool, default=True
        If False, scale in place where the input is already a writeable
        float array (or sparse matrix) of the compute namespace.

    clip : bool, default=False
        Clip transformed values of held-out data to ``[-1, 1]``.

    Attributes
    ----------
    scale_ : ndarray of shape (n_features,)
        Per-feature relative scaling of the data (``max_abs_``, with 1 for
        features whose maximum absolute value is zero).

    max_abs_ : ndarray of shape (n_features,)
        Per-feature maximum absolute value (NaNs ignored).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    n_samples_seen_ : int
        The number of samples processed; reset by :meth:`fit`, incremented
        by :meth:`partial_fit`.

    See Also
    --------
    sklearn.preprocessing.MaxAbsScaler : The scikit-learn estimator.
    MinMaxScaler : Scale each feature to a given range.

    Notes
    -----
    NaNs are treated as missing values: disregarded in fit, and kept in
    transform.

    Examples
    --------
    >>> from gpuml.preprocessing import MaxAbsScaler
    >>> X = [[ 1., -1.,  2.],
    ...      [ 2.,  0.,  0.],
    ...      [ 0.,  1., -1.]]
    >>> transformer = MaxAbsScaler().fit(X)
    >>> print(transformer.transform(X))
    [[ 0.5 -1.   1. ]
     [ 1.   0.   0. ]
     [ 0.   1.  -0.5]]
    """

    _parameter_constraints: dict = {
        "copy": ["boolean"],
        "clip": ["boolean"],
    }

    def __init__(self, *, copy=True, clip=False):
        self.copy = copy
        self.clip = clip

    def _reset(self) -> None:
        """Drop the fitted statistics (parameters are untouched)."""
        for name in ("scale_", "n_samples_seen_", "max_abs_"):
            self.__dict__.pop(name, None)

    def fit(self, X, y=None):
        """Compute the maximum absolute value to be used for later scaling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data used to compute the per-feature maximum absolute value.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        self._reset()
        return self.partial_fit(X, y)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Update the maximum absolute value with a batch of samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch. NaNs are ignored.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        xp = compute_namespace()
        family = input_family(X)
        first_pass = not hasattr(self, "n_samples_seen_")
        X = self._validated(X, xp, reset=first_pass, accept_sparse=("csr", "csc"))
        if first_pass:
            self._reset_device_cache()
        if is_sparse(X):
            max_abs = sparse_column_abs_max(X, xp=xp)
        else:
            max_abs = xp.nanmax(xp.abs(X), axis=0)
        if not first_pass:
            max_abs = xp.fmax(self._fitted("max_abs_", xp), max_abs)
        self._count(X, first_pass)
        self.max_abs_ = to_family(max_abs, family)
        self.scale_ = to_family(handle_zeros_in_scale(max_abs, xp), family)
        return self

    def transform(self, X):
        """Scale the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data that should be scaled.

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = self._validated(X, xp, reset=False, accept_sparse=("csr", "csc"))
        inplace = _may_overwrite(X, X_in, self.copy)
        scale = self._fitted("scale_", xp)
        if is_sparse(X):
            X = _scale_sparse(X, 1.0 / scale, xp=xp, inplace=inplace)
            if self.clip:
                xp.clip(X.data, -1.0, 1.0, out=X.data)
        else:
            X = X if inplace else X.copy()
            xp.divide(X, scale, out=X)
            if self.clip:
                one = xp.asarray(1.0, dtype=X.dtype)
                xp.clip(X, -one, one, out=X)
        return self._output(X, family, X_in, self.copy)

    def inverse_transform(self, X):
        """Scale the data back to the original representation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data that should be transformed back.

        Returns
        -------
        X_original : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = check_array(
            X, xp=xp, accept_sparse=("csr", "csc"), dtype=_FLOAT_DTYPES, allow_nan=True
        )
        inplace = _may_overwrite(X, X_in, self.copy)
        scale = self._fitted("scale_", xp)
        if is_sparse(X):
            X = _scale_sparse(X, scale, xp=xp, inplace=inplace)
        else:
            X = X if inplace else X.copy()
            xp.multiply(X, scale, out=X)
        return self._output(X, family, X_in, self.copy)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags
