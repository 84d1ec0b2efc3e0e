"""Univariate imputation: :class:`SimpleImputer` (its indicator is
:class:`~gpuml.impute.MissingIndicator`, in :mod:`._indicator`).

Numeric data (dense, or sparse CSC/CSR) are imputed in the compute namespace
``xp`` (NumPy or CuPy) by the column kernels of :mod:`._kernels`: the mean,
the median (columns sorted on the device) and the most frequent value (a
run-length count of the sorted columns, ties to the smallest value), with
scikit-learn's results; sparse columns are never densified. Two cases run
column by column on the host, as scikit-learn does: object (string) columns
(with scikit-learn's own helpers) and a callable ``strategy``.

Fitted attributes are in the family of the training input, outputs in the
family of the input; errors and warnings are scikit-learn's.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    HOST,
    compute_namespace,
    input_family,
    into_input,
    is_sparse,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._backend import is_cupy_object
from gpuml._linalg import sparse_coords, sparse_module
from gpuml._sklearn_compat import (
    MissingValues,
    StrOptions,
    align_sparse_output,
    check_feature_names_in,
    fit_context,
    get_mask,
    host_most_frequent,
)
from gpuml.base import DeviceCacheMixin
from gpuml.impute._indicator import (
    _UNSUPPORTED_DTYPE,
    MissingIndicator,
    _check_inputs_dtype,
    _is_nan,
    _mask,
    _sparse_like,
    _validate,
)
from gpuml.impute._kernels import (
    bincount,
    column_mean,
    column_median,
    column_most_frequent,
    sparse_column_mean,
    sparse_column_median,
    sparse_column_most_frequent,
)

# scikit-learn's FLOAT_DTYPES: preserved by mean, median and callables.
_FLOAT_DTYPES = (np.float64, np.float32, np.float16)
_SPARSE_ZERO = (
    "Imputation not possible when missing_values == 0 and input is sparse. "
    "Provide a dense array instead."
)


class _BaseImputer(TransformerMixin, DeviceCacheMixin, BaseEstimator):
    """Parameters and the ``add_indicator`` machinery of the imputers."""

    _parameter_constraints: dict = {
        "missing_values": [MissingValues()],
        "add_indicator": ["boolean"],
        "keep_empty_features": ["boolean"],
    }

    def __init__(
        self, *, missing_values=np.nan, add_indicator=False, keep_empty_features=False
    ):
        self.missing_values = missing_values
        self.add_indicator = add_indicator
        self.keep_empty_features = keep_empty_features

    def _fit_indicator(self, mask, family: str) -> None:
        """Fit :attr:`indicator_` on the missing-value mask of the training data."""
        if self.add_indicator:
            self.indicator_ = MissingIndicator(
                missing_values=self.missing_values, error_on_new=False
            )
            self.indicator_._fit(mask, precomputed=True, family=family)
        else:
            self.indicator_ = None

    def _concatenate_indicator(self, X_imputed, mask, xp: ModuleType):
        """``X_imputed`` with the indicator columns of ``mask`` appended."""
        if not self.add_indicator:
            return X_imputed
        X_indicator = self.indicator_._transform_precomputed(mask, xp)
        if is_sparse(X_imputed):
            # the indicator in the data's dtype (what SciPy's hstack gives;
            # cupyx's takes one dtype)
            X_indicator = X_indicator.astype(X_imputed.dtype)
            stacked = sparse_module(xp).hstack(
                (X_imputed, X_indicator), format=X_imputed.format
            )
            return align_sparse_output(stacked) if xp is np else stacked
        return xp.concatenate((X_imputed, X_indicator.astype(X_imputed.dtype)), axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = _is_nan(self.missing_values)
        tags.input_tags.sparse = True
        return tags


class SimpleImputer(_BaseImputer):
    """Univariate imputer for completing missing values with simple strategies.

    Replace missing values by a statistic of each column (mean, median, most
    frequent value) or by a constant. Same API and results as
    :class:`sklearn.impute.SimpleImputer`; numeric statistics and the
    imputation are computed on the GPU when one is used (see
    :func:`gpuml.set_config`), and outputs come back in the family of the
    input.

    Parameters
    ----------
    missing_values : int, float, str, np.nan, None or pandas.NA, default=np.nan
        The placeholder for the missing values. All occurrences of
        `missing_values` are imputed.

    strategy : str or callable, default='mean'
        ``"mean"``, ``"median"`` (numeric data only), ``"most_frequent"``
        (the smallest of the most frequent values), ``"constant"``
        (``fill_value``), or a callable returning the statistic of a 1-d
        array of a column's non-missing values.

    fill_value : str or numerical value, default=None
        The value of ``strategy="constant"``; None means 0 for numerical
        data and ``"missing_value"`` for strings or object data.

    copy : bool, default=True
        If False, impute in place where possible (a writeable float array or
        CSC matrix of the compute namespace).

    add_indicator : bool, default=False
        If True, a :class:`MissingIndicator` transform is stacked onto the
        output (features with missing values at fit time only).

    keep_empty_features : bool, default=False
        If True, features made only of missing values at fit time are kept,
        imputed with 0 (with ``fill_value`` for ``strategy="constant"``);
        otherwise they are dropped by :meth:`transform`.

    Attributes
    ----------
    statistics_ : ndarray of shape (n_features,)
        The imputation fill value of each feature (NaN for features dropped
        by :meth:`transform`).

    indicator_ : MissingIndicator or None
        The indicator of ``add_indicator=True``, else None.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.impute.SimpleImputer : The scikit-learn estimator.
    MissingIndicator : Binary indicators for missing values.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.impute import SimpleImputer
    >>> imp_mean = SimpleImputer(missing_values=np.nan, strategy="mean")
    >>> imp_mean.fit([[7, 2, 3], [4, np.nan, 6], [10, 5, 9]])
    SimpleImputer()
    >>> X = [[np.nan, 2, 3], [4, np.nan, 6], [10, np.nan, 9]]
    >>> print(imp_mean.transform(X))
    [[ 7.   2.   3. ]
     [ 4.   3.5  6. ]
     [10.   3.5  9. ]]
    """

    _parameter_constraints: dict = {
        **_BaseImputer._parameter_constraints,
        "strategy": [
            StrOptions({"mean", "median", "most_frequent", "constant"}),
            callable,
        ],
        "fill_value": "no_validation",
        "copy": ["boolean"],
    }

    def __init__(
        self,
        *,
        missing_values=np.nan,
        strategy="mean",
        fill_value=None,
        copy=True,
        add_indicator=False,
        keep_empty_features=False,
    ):
        super().__init__(
            missing_values=missing_values,
            add_indicator=add_indicator,
            keep_empty_features=keep_empty_features,
        )
        self.strategy = strategy
        self.fill_value = fill_value
        self.copy = copy

    def _validate_input(self, X, in_fit: bool):
        """scikit-learn's checks; returns ``(X, xp)`` (see :func:`_validate`)."""
        if self.strategy in ("most_frequent", "constant"):
            # A list with strings becomes an object array, not a unicode one.
            is_str_list = isinstance(X, list) and any(
                isinstance(elem, str) for row in X for elem in row
            )
            dtype = object if is_str_list else None
        else:
            dtype = _FLOAT_DTYPES
        if not in_fit and self._fit_dtype.kind == "O":
            dtype = self._fit_dtype
        try:
            X, xp = _validate(
                self,
                X,
                in_fit=in_fit,
                dtype=dtype,
                allow_nan=_is_nan(self.missing_values),
                accept_sparse="csc",
            )
        except ValueError as error:
            if "could not convert" in str(error):
                raise ValueError(
                    f"Cannot use {self.strategy} strategy with non-numeric "
                    f"data:\n{error}"
                ) from None
            raise
        if in_fit:
            self._fit_dtype = X.dtype
        _check_inputs_dtype(X, self.missing_values)
        if X.dtype.kind not in "iufO":
            raise ValueError(
                _UNSUPPORTED_DTYPE.format(name="SimpleImputer", dtype=X.dtype)
            )
        if is_sparse(X) and self.missing_values == 0:
            raise ValueError(_SPARSE_ZERO)
        if self.strategy == "constant":
            self._check_fill_dtype(X, in_fit)
        return X, xp

    def _check_fill_dtype(self, X, in_fit: bool) -> None:
        if in_fit and self.fill_value is not None:
            fill_dtype = type(self.fill_value)
            message = (
                f"fill_value={self.fill_value!r} (of type {fill_dtype!r}) cannot be "
                f"cast to the input data that is {X.dtype!r}. If fill_value is a "
                "Python scalar, instead pass  a numpy scalar (e.g. "
                "fill_value=np.uint8(0) if your data is of type np.uint8). Make "
                "sure that both dtypes are of the same kind."
            )
        elif not in_fit:
            fill_dtype = self._fill_dtype
            message = (
                f"The dtype of the filling value (i.e. {fill_dtype!r}) cannot be "
                f"cast to the input data that is {X.dtype!r}. Make sure that the "
                "dtypes of the input data are of the same kind between fit and "
                "transform."
            )
        else:
            return
        if not np.can_cast(fill_dtype, X.dtype, casting="same_kind"):
            raise ValueError(message)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the imputer on `X`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        family = input_family(X)
        X, xp = self._validate_input(X, in_fit=True)
        self._reset_device_cache()
        if self.fill_value is None:
            fill_value = 0 if X.dtype.kind in "iuf" else "missing_value"
        else:
            fill_value = self.fill_value
        self._fill_dtype = X.dtype
        mask = _mask(X, self.missing_values, xp)
        if is_sparse(X):
            self._fit_indicator(_sparse_like(X, mask, xp), family)
            statistics = self._sparse_fit(X, mask, fill_value, xp)
        else:
            self._fit_indicator(mask, family)
            statistics = self._dense_fit(X, mask, fill_value, xp, family)
        if family != HOST and statistics.dtype.kind == "O":
            statistics = statistics.astype(np.float64)  # CuPy has no objects
        self.statistics_ = to_family(statistics, family)
        return self

    def _dense_fit(self, X, mask, fill_value, xp: ModuleType, family: str):
        """The statistics of dense ``X``: an ``xp`` array, or a host one for
        the constant, object data and callables (which receive columns in
        the family of the input: NumPy for host data computed on the GPU)."""
        strategy, keep = self.strategy, self.keep_empty_features
        if strategy == "constant":
            statistics = np.full(X.shape[1], fill_value, dtype=object)
            if not keep:
                statistics[to_host(xp.all(mask, axis=0))] = np.nan
            return statistics
        if callable(strategy):
            if family == HOST:
                X, mask = to_host(X), to_host(mask)
            statistics = np.empty(X.shape[1])
            for i in range(X.shape[1]):
                value = strategy(X[:, i][~mask[:, i]])
                # a CuPy 0-d result: NumPy refuses its implicit conversion
                statistics[i] = value.item() if is_cupy_object(value) else value
            return statistics
        if X.dtype.kind == "O":  # most_frequent of strings: scikit-learn's
            statistics = np.empty(X.shape[1], dtype=object)
            for i in range(X.shape[1]):
                column = X[:, i][~mask[:, i]]
                empty = column.shape[0] == 0 and keep
                statistics[i] = 0 if empty else host_most_frequent(column, np.nan, 0)
            return statistics
        kernel = {
            "mean": column_mean,
            "median": column_median,
            "most_frequent": column_most_frequent,
        }[strategy]
        statistics = kernel(X, mask, xp=xp)
        if keep:
            statistics = xp.where(xp.isnan(statistics), 0, statistics)
        return statistics

    def _sparse_fit(self, X, mask, fill_value, xp: ModuleType):
        """The statistics of CSC ``X`` (``mask`` over its stored values)."""
        n_samples, n_features = X.shape
        _, cols = sparse_coords(X, xp)
        keep = self.keep_empty_features
        if self.strategy == "constant":
            statistics = np.full(n_features, fill_value, dtype=np.float64)
            if not keep:
                # scikit-learn's rule: no stored value that is not missing
                # (a column of implicit zeros included).
                stored = to_host(bincount(cols, None, n_features, xp))
                n_missing = to_host(bincount(cols, mask, n_features, xp))
                statistics[stored == n_missing] = np.nan
            return statistics
        kernel = {
            "mean": sparse_column_mean,
            "median": sparse_column_median,
            "most_frequent": sparse_column_most_frequent,
        }.get(self.strategy)
        if kernel is not None:
            statistics = kernel(X.data, cols, mask, n_samples, n_features, xp)
            if keep:  # no stored value that is neither missing nor zero
                nonzero = (X.data != 0) & ~mask
                n_nonzero = bincount(cols, nonzero, n_features, xp)
                statistics = xp.where(n_nonzero == 0, 0.0, statistics)
            return statistics
        # Callables: scikit-learn's per-column loop, on the host.
        X, mask = to_host(X), to_host(mask)
        statistics = np.empty(n_features)
        for i in range(n_features):
            column = X.data[X.indptr[i] : X.indptr[i + 1]]
            column = column[~mask[X.indptr[i] : X.indptr[i + 1]]]
            column = column[column != 0]  # scikit-learn passes no zero
            statistics[i] = 0 if len(column) == 0 and keep else self.strategy(column)
        return statistics

    def transform(self, X):
        """Impute all missing values in `X`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input data to complete.

        Returns
        -------
        X_imputed : {ndarray, sparse matrix} of shape (n_samples, n_features_out)
            `X` with imputed values, in the family of the input.
        """
        check_is_fitted(self)
        X_in = X
        family = input_family(X)
        X, xp = self._validate_input(X, in_fit=False)
        statistics = to_host(self.statistics_)
        if X.shape[1] != statistics.shape[0]:
            raise ValueError(
                f"X has {X.shape[1]} features per sample, expected "
                f"{statistics.shape[0]}"
            )
        mask = _mask(X, self.missing_values, xp)
        full_mask = _sparse_like(X, mask, xp) if is_sparse(X) else mask
        copied = False
        if self.keep_empty_features:
            valid = statistics.astype(self._fill_dtype, copy=False)
        else:
            invalid = np.asarray(get_mask(statistics, np.nan), dtype=bool)
            valid = statistics[~invalid].astype(self._fill_dtype, copy=False)
            if invalid.any():
                invalid_features = np.arange(X.shape[1])[invalid]
                if hasattr(self, "feature_names_in_"):
                    invalid_features = self.feature_names_in_[invalid_features]
                warnings.warn(
                    "Skipping features without any observed values:"
                    f" {invalid_features}. At least one non-missing value is needed"
                    f" for imputation with strategy='{self.strategy}'.",
                    stacklevel=2,
                )
                kept = xp.asarray(np.flatnonzero(~invalid))
                X = X[:, kept]
                copied = True
                if is_sparse(X):
                    mask = _mask(X, self.missing_values, xp)
                else:
                    mask = mask[:, kept]
        # Assigned into X, as scikit-learn does: X's dtype is kept.
        valid = valid if X.dtype.kind == "O" else xp.asarray(valid).astype(X.dtype)
        if is_sparse(X):
            if self.copy and not copied:
                X = X.copy()
            _, cols = sparse_coords(X, xp)
            X.data[...] = xp.where(mask, valid[cols], X.data)
        elif self.copy or not getattr(X.flags, "writeable", True):
            X = xp.where(mask, valid[None, :], X)
        else:
            X[...] = xp.where(mask, valid[None, :], X)
        X = self._concatenate_indicator(X, full_mask, xp)
        X = into_input(to_family(X, family), X_in, self.copy)
        return to_output(X, X_in, self.get_feature_names_out)

    def inverse_transform(self, X):
        """Convert the data back to the original representation.

        Only possible with ``add_indicator=True``, and only for features that
        have an indicator (missing values at :meth:`fit`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features + n_features_missing_indicator)
            The imputed data and the missing indicator mask, as returned by
            :meth:`transform`.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The original `X` with missing values as it was prior to imputation.
        """
        check_is_fitted(self)
        if not self.add_indicator:
            raise ValueError(
                "'inverse_transform' works only when 'SimpleImputer' is "
                "instantiated with 'add_indicator=True'. "
                f"Got 'add_indicator={self.add_indicator}' instead."
            )
        family = input_family(X)
        xp = compute_namespace()
        X_in, X = X, to_namespace(X if hasattr(X, "shape") else np.asarray(X), xp)
        features = self.indicator_._fitted("features_", xp)
        n_imputed = X.shape[1] - features.shape[0]
        imputed = X[:, :n_imputed]
        X_original = xp.zeros((X.shape[0], self.statistics_.shape[0]))
        X_original[:, features] = X[:, n_imputed:].astype(bool)
        full_mask = X_original.astype(bool)
        # scikit-learn's rule: the imputed columns fill, in order, the
        # original columns whose indicator is not all True.
        targets = np.flatnonzero(~to_host(xp.all(full_mask, axis=0)))
        if targets.shape[0] < n_imputed:
            n_original = self.statistics_.shape[0]
            raise IndexError(
                f"index {n_original} is out of bounds for axis 1 with size {n_original}"
            )
        X_original[:, xp.asarray(targets[:n_imputed])] = imputed
        X_original[full_mask] = self.missing_values
        return to_output(to_family(X_original, family), X_in)

    def get_feature_names_out(self, input_features=None):
        """Get output feature names for transformation.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input features; ``feature_names_in_`` or ``x0, x1, ...`` when None.

        Returns
        -------
        feature_names_out : ndarray of str objects
            Transformed feature names.
        """
        check_is_fitted(self, "n_features_in_")
        input_features = check_feature_names_in(self, input_features)
        statistics = to_host(self.statistics_)
        names = input_features[~np.asarray(get_mask(statistics, np.nan), dtype=bool)]
        if not self.add_indicator:
            return names
        indicator_names = self.indicator_.get_feature_names_out(input_features)
        return np.concatenate([names, indicator_names])
