"""Scaling robust to outliers: :class:`RobustScaler`.

The median and the interquartile range (or any ``quantile_range``) of each
feature are computed against an array namespace ``xp`` (NumPy or CuPy) from
one column-wise sort: NaNs sort last in both namespaces, so the order
statistics of a column are the first ``n_valid`` entries of its sorted copy.
Percentiles interpolate linearly between order statistics with NumPy's
formula (``np.nanpercentile``'s default method), in float64; the median is
the mean of the two middle values in the data's dtype (``np.nanmedian``).

Sparse CSC/CSR matrices (with ``with_centering=False``) are sorted a block
of columns at a time, each block densified: the implicit zeros take part in
the percentiles, as in scikit-learn.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from scipy import stats
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
from gpuml._reductions import sorted_column_median
from gpuml._sklearn_compat import fit_context
from gpuml._validation import check_array, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._data import _FLOAT_DTYPES, _may_overwrite, _scale_sparse
from gpuml.preprocessing._scalers import handle_zeros_in_scale

_CENTER_SPARSE_MSG = (
    "Cannot center sparse matrices: use `with_centering=False`"
    " instead. See docstring for motivation and alternatives."
)
# Densified columns per block of a sparse matrix: about 2**26 values.
_BLOCK_VALUES = 1 << 26


# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def _order_statistic(X_sorted, index, *, xp: ModuleType):
    """Entry ``index[j]`` of column ``j`` of ``X_sorted``."""
    return xp.take_along_axis(X_sorted, index[None, :], axis=0)[0]


def sorted_columns(X, *, xp: ModuleType):
    """Each column of dense ``X`` sorted (NaNs last), and its non-NaN count."""
    X_sorted = xp.sort(X, axis=0)
    n_valid = X.shape[0] - xp.sum(xp.isnan(X), axis=0)
    return X_sorted, n_valid


def column_nanpercentiles(X_sorted, n_valid, percentiles, *, xp: ModuleType):
    """Per-column percentiles of the non-NaN values (float64), one row each.

    NumPy's "linear" method: the virtual index ``(n - 1) * q`` between two
    order statistics ``a`` and ``b``, interpolated as ``a + (b - a) * g``
    (``b - (b - a) * (1 - g)`` when ``g >= 0.5``).
    """
    f64 = xp.float64
    count = n_valid.astype(f64)
    last = xp.maximum(n_valid - 1, 0)
    rows = []
    for percentile in percentiles:
        virtual = (count - 1) * (float(percentile) / 100.0)
        previous = xp.floor(virtual)
        above = virtual >= count - 1
        low_index = xp.where(above, last, xp.maximum(previous, 0).astype(last.dtype))
        high_index = xp.where(above, last, xp.minimum(low_index + 1, last))
        gamma = xp.where(above, 0.0, virtual - previous)
        a = _order_statistic(X_sorted, low_index, xp=xp).astype(f64)
        b = _order_statistic(X_sorted, high_index, xp=xp).astype(f64)
        diff = b - a
        value = xp.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        rows.append(xp.where(n_valid == 0, np.nan, value))
    return xp.stack(rows)


def _dense_blocks(X, *, xp: ModuleType):
    """Dense ``X`` whole, or a sparse ``X`` as dense blocks of columns."""
    if not is_sparse(X):
        yield X
        return
    X = X.tocsc()
    step = max(1, _BLOCK_VALUES // max(X.shape[0], 1))
    for start in range(0, X.shape[1], step):
        yield X[:, start : start + step].toarray()


class RobustScaler(
    DeviceCacheMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Scale features using statistics that are robust to outliers.

    The median is removed and the data scaled by the quantile range
    (the interquartile range by default), per feature. Same API and results
    as :class:`sklearn.preprocessing.RobustScaler`, computed on the GPU when
    one is used (see :func:`gpuml.set_config`); outputs come back in the
    family of the input.

    Parameters
    ----------
    with_centering : bool, default=True
        If True, center the data before scaling. Raises an error on sparse
        input in :meth:`fit`.

    with_scaling : bool, default=True
        If True, scale the data to the quantile range.

    quantile_range : tuple (q_min, q_max), 0.0 < q_min < q_max < 100.0, \
        default=(25.0, 75.0)
        Quantile range used to calculate ``scale_``, in percent.

    copy : bool, default=True
        If False, scale in place where the input is already a writeable
        float array (or sparse matrix) of the compute namespace.

    unit_variance : bool, default=False
        If True, scale so that normally distributed features have a
        variance of 1.

    Attributes
    ----------
    center_ : ndarray of shape (n_features,) or None
        The median value of each feature (NaNs ignored), in the data's
        dtype; None when ``with_centering=False``.

    scale_ : ndarray of shape (n_features,) or None
        The (scaled) quantile range of each feature, float64, with 1 for
        a zero range; None when ``with_scaling=False``.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.RobustScaler : The scikit-learn estimator.

    Notes
    -----
    NaNs are treated as missing values: disregarded in fit, and kept in
    transform. Percentiles follow ``numpy.nanpercentile``'s default
    (linear) method. A sparse matrix's quantiles are computed from blocks
    of densified columns (about 2**26 values at a time).

    Examples
    --------
    >>> from gpuml.preprocessing import RobustScaler
    >>> X = [[ 1., -2.,  2.],
    ...      [ -2.,  1.,  3.],
    ...      [ 4.,  1., -2.]]
    >>> transformer = RobustScaler().fit(X)
    >>> print(transformer.transform(X))
    [[ 0.  -2.   0. ]
     [-1.   0.   0.4]
     [ 1.   0.  -1.6]]
    """

    _parameter_constraints: dict = {
        "with_centering": ["boolean"],
        "with_scaling": ["boolean"],
        "quantile_range": [tuple],
        "copy": ["boolean"],
        "unit_variance": ["boolean"],
    }

    def __init__(
        self,
        *,
        with_centering=True,
        with_scaling=True,
        quantile_range=(25.0, 75.0),
        copy=True,
        unit_variance=False,
    ):
        self.with_centering = with_centering
        self.with_scaling = with_scaling
        self.quantile_range = quantile_range
        self.unit_variance = unit_variance
        self.copy = copy

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the median and quantiles to be used for scaling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data used to compute the median and quantiles. NaNs are
            ignored.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted scaler.
        """
        xp = compute_namespace()
        family = input_family(X)
        X = validate_data(
            self, X, xp=xp, accept_sparse="csc", dtype=_FLOAT_DTYPES, allow_nan=True
        )
        self._reset_device_cache()
        q_min, q_max = self.quantile_range
        if not 0 <= q_min <= q_max <= 100:
            raise ValueError(f"Invalid quantile range: {self.quantile_range}")
        if self.with_centering and is_sparse(X):
            raise ValueError(_CENTER_SPARSE_MSG)
        centers, quantiles, all_nan = [], [], False
        if self.with_centering or self.with_scaling:
            for block in _dense_blocks(X, xp=xp):
                X_sorted, n_valid = sorted_columns(block, xp=xp)
                all_nan = all_nan or bool(xp.any(n_valid == 0))
                if self.with_centering:
                    centers.append(sorted_column_median(X_sorted, n_valid, xp=xp))
                if self.with_scaling:
                    quantiles.append(
                        column_nanpercentiles(X_sorted, n_valid, (q_min, q_max), xp=xp)
                    )
        if all_nan:  # as np.nanmedian and np.nanpercentile warn
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        self.center_ = to_family(centers[0], family) if centers else None
        self.scale_ = None
        if self.with_scaling:
            quantiles = xp.concatenate(quantiles, axis=1)
            scale = handle_zeros_in_scale(quantiles[1] - quantiles[0], xp)
            if self.unit_variance:
                adjust = stats.norm.ppf(q_max / 100.0) - stats.norm.ppf(q_min / 100.0)
                scale = scale / float(adjust)
            self.scale_ = to_family(scale, family)
        return self

    def transform(self, X):
        """Center and scale the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to scale. NaNs are kept.

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=("csr", "csc"),
            dtype=_FLOAT_DTYPES,
            allow_nan=True,
        )
        return self._output(
            self._apply(X, X_in, xp, inverse=False), family, X_in, self.copy
        )

    def inverse_transform(self, X):
        """Scale the data back to the original representation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rescaled data to be transformed back.

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
        return self._output(
            self._apply(X, X_in, xp, inverse=True), family, X_in, self.copy
        )

    def _apply(self, X, X_in, xp: ModuleType, *, inverse: bool):
        """Center and scale (or undo it) in X's dtype, as scikit-learn does.

        Sparse data are only scaled (a dense fit's center is not applied).
        """
        inplace = _may_overwrite(X, X_in, self.copy)
        if is_sparse(X):
            if not self.with_scaling:
                return X if inplace else X.copy()
            scale = self._fitted("scale_", xp)
            return _scale_sparse(
                X, scale if inverse else 1.0 / scale, xp=xp, inplace=inplace
            )
        X = X if inplace else X.copy()
        if not inverse and self.with_centering:
            xp.subtract(X, self._fitted("center_", xp), out=X)
        if self.with_scaling:
            scale = self._fitted("scale_", xp)
            (xp.multiply if inverse else xp.divide)(X, scale, out=X)
        if inverse and self.with_centering:
            xp.add(X, self._fitted("center_", xp), out=X)
        return X

    @staticmethod
    def _output(X, family: str, X_in, copy: bool):
        columns = list(X_in.columns) if hasattr(X_in, "columns") else None
        X = into_input(to_family(X, family), X_in, copy)
        return to_output(X, X_in, lambda: columns)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.with_centering
        tags.input_tags.allow_nan = True
        return tags
