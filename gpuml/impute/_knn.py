"""Multivariate imputation by nearest neighbours: :class:`KNNImputer`.

scikit-learn's algorithm (``sklearn/impute/_knn.py``), computed in the
compute namespace ``xp`` (NumPy or CuPy):

1. the ``nan_euclidean`` distances of the rows to impute ("receivers") to
   every fitted row, by matrix products, with scikit-learn's order of
   operations (:func:`nan_euclidean`): with ``X0`` the data with missing
   values as 0 and ``M`` the missing masks, ``|x0|^2 + |y0|^2 - 2 x0.y0``
   less ``X0^2 M_Y^T`` and ``M_X Y0^2^T``, scaled by
   ``n_features / n_present``; float32 data take their Euclidean part in
   float64 as scikit-learn's upcast does. Receivers go in chunks of
   scikit-learn's ``working_memory``;
2. per column, the donors (fitted rows with the column present): the
   ``n_neighbors`` smallest distances by ``argpartition`` on the donors'
   distance matrix (NaN distances last, weighted 0), receivers without any
   defined distance getting the column's mean;
3. the (weighted) mean of the donors' values.

A callable ``metric`` computes the distances on the host with
scikit-learn's ``pairwise_distances``, and a callable ``weights`` receives
the donors' distances on the host; the rest stays in ``xp``.
"""

from __future__ import annotations

from numbers import Integral
from types import ModuleType

import numpy as np
from sklearn import get_config
from sklearn.metrics import pairwise_distances
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    HOST,
    input_family,
    into_input,
    to_family,
    to_host,
    to_output,
)
from gpuml._sklearn_compat import (
    Hidden,
    Interval,
    StrOptions,
    check_feature_names_in,
    fit_context,
    is_scalar_nan,
)
from gpuml.impute._base import _FLOAT_DTYPES, _BaseImputer
from gpuml.impute._indicator import _mask, _validate


def nan_euclidean(X, Y, missing_X, missing_Y, xp: ModuleType):
    """scikit-learn's ``nan_euclidean_distances(X, Y)`` (``X`` is not ``Y``)
    in ``xp``, from the data and their missing masks (``X`` and ``Y`` are
    not modified)."""
    dtype = X.dtype
    X = xp.where(missing_X, 0, X).astype(dtype, copy=False)
    Y = xp.where(missing_Y, 0, Y).astype(dtype, copy=False)
    # euclidean_distances(X, Y, squared=True): float32 upcast to float64
    work = xp.float64
    X64, Y64 = X.astype(work, copy=False), Y.astype(work, copy=False)
    XX = xp.einsum("ij,ij->i", X64, X64)[:, None]
    YY = xp.einsum("ij,ij->i", Y64, Y64)[None, :]
    distances = -2 * (X64 @ Y64.T)
    distances += XX
    distances += YY
    distances = xp.maximum(distances, 0).astype(dtype, copy=False)
    # the missing coordinates' share, removed
    distances -= (X * X) @ missing_Y.T.astype(dtype)
    distances -= missing_X.astype(dtype) @ (Y * Y).T
    distances = xp.maximum(distances, 0)
    present_count = (~missing_X).astype(work) @ (~missing_Y).T.astype(work)
    distances[present_count == 0] = xp.nan
    present_count = xp.maximum(1, present_count)
    distances = (distances / present_count).astype(dtype, copy=False)
    distances *= X.shape[1]
    return xp.sqrt(distances)


def _weights(dist, weights, xp: ModuleType):
    """scikit-learn's ``_get_weights`` in ``xp`` (a callable on the host),
    with NaN weights set to 0 as ``KNNImputer`` does."""
    if callable(weights):
        weight_matrix = weights(to_host(dist) if xp is not np else dist)
    else:
        weight_matrix = None if weights in (None, "uniform") else weights
    if weight_matrix is None:  # uniform (a callable may return None)
        return xp.where(xp.isnan(dist), 0, xp.ones_like(dist))
    if isinstance(weight_matrix, str):  # "distance"
        with np.errstate(divide="ignore", invalid="ignore"):
            weight_matrix = 1.0 / dist
        inf_mask = xp.isinf(weight_matrix)
        inf_row = xp.any(inf_mask, axis=1, keepdims=True)
        weight_matrix = xp.where(inf_row, inf_mask, weight_matrix)
    else:
        weight_matrix = xp.asarray(weight_matrix)
    return xp.where(xp.isnan(weight_matrix), 0, weight_matrix)


def _impute_column(dist, n_neighbors: int, donor_values, weights, xp: ModuleType):
    """The imputed values of one column: the weighted mean of the values of
    each receiver's ``n_neighbors`` nearest donors (scikit-learn's
    ``_calc_impute``; ``dist`` has a defined distance in every row)."""
    donors_idx = xp.argpartition(dist, n_neighbors - 1, axis=1)[:, :n_neighbors]
    donors_dist = xp.take_along_axis(dist, donors_idx, axis=1)
    weight_matrix = _weights(donors_dist, weights, xp)
    donors = donor_values[donors_idx]
    dtype = xp.result_type(donors.dtype, weight_matrix.dtype)
    scale = weight_matrix.sum(axis=1, dtype=dtype)
    return xp.multiply(donors, weight_matrix, dtype=dtype).sum(axis=1) / scale


def _chunk_rows(n_fit: int) -> int:
    """Receivers per chunk of distances (scikit-learn's ``working_memory``)."""
    working_memory = get_config()["working_memory"]
    return max(1, int(working_memory * 2**20 // max(1, 8 * n_fit)))


class KNNImputer(_BaseImputer):
    """Imputation for completing missing values using k-Nearest Neighbors.

    Each sample's missing values are imputed using the mean value from
    `n_neighbors` nearest neighbors found in the training set. Two samples
    are close if the features that neither is missing are close. Same API
    and results as :class:`sklearn.impute.KNNImputer`; the ``nan_euclidean``
    distances, the choice of donors and their mean are computed on the GPU
    when one is used (see :func:`gpuml.set_config`), and outputs come back in
    the family of the input.

    Parameters
    ----------
    missing_values : int, float, str, np.nan or None, default=np.nan
        The placeholder for the missing values. All occurrences of
        `missing_values` are imputed.

    n_neighbors : int, default=5
        Number of neighboring samples to use for imputation.

    weights : {'uniform', 'distance'} or callable, default='uniform'
        Weight function used in prediction: ``'uniform'`` (all neighbours
        weigh the same), ``'distance'`` (the inverse of their distance), or
        a callable taking an array of distances and returning an array of
        weights of the same shape (called on the host with NumPy arrays).

    metric : {'nan_euclidean'} or callable, default='nan_euclidean'
        Distance metric for searching neighbors: ``'nan_euclidean'``, or a
        callable ``func_metric(x, y, *, missing_values=np.nan)`` of two rows
        returning a scalar distance (computed on the host by scikit-learn's
        ``pairwise_distances``).

    copy : bool, default=True
        If True, a copy of X is created. If False, imputation is done
        in place whenever possible (a writeable NumPy float array whose
        shape the output keeps).

    add_indicator : bool, default=False
        If True, a :class:`MissingIndicator` transform is stacked onto the
        output (features with missing values at fit time only).

    keep_empty_features : bool, default=False
        If True, features made only of missing values at fit time are kept,
        imputed with 0; otherwise they are dropped by :meth:`transform`.

    Attributes
    ----------
    indicator_ : MissingIndicator or None
        The indicator of ``add_indicator=True``, else None.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.impute.KNNImputer : The scikit-learn estimator.
    SimpleImputer : Univariate imputation of missing values.

    Notes
    -----
    Donors at equal distance are chosen by ``argpartition``: on the CPU,
    NumPy's, as scikit-learn; CuPy's may choose other donors among those
    at the same distance.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.impute import KNNImputer
    >>> X = [[1, 2, np.nan], [3, 4, 3], [np.nan, 6, 5], [8, 8, 7]]
    >>> imputer = KNNImputer(n_neighbors=2)
    >>> imputer.fit_transform(X)
    array([[1. , 2. , 4. ],
           [3. , 4. , 3. ],
           [5.5, 6. , 5. ],
           [8. , 8. , 7. ]])
    """

    # the training data, in the family of the training input (moved with
    # the public attributes by gpuml's searches: gpuml.base)
    _family_attributes = ("_fit_X", "_mask_fit_X")

    _parameter_constraints: dict = {
        **_BaseImputer._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "weights": [StrOptions({"uniform", "distance"}), callable, Hidden(None)],
        "metric": [StrOptions({"nan_euclidean"}), callable],
        "copy": ["boolean"],
    }

    def __init__(
        self,
        *,
        missing_values=np.nan,
        n_neighbors=5,
        weights="uniform",
        metric="nan_euclidean",
        copy=True,
        add_indicator=False,
        keep_empty_features=False,
    ):
        super().__init__(
            missing_values=missing_values,
            add_indicator=add_indicator,
            keep_empty_features=keep_empty_features,
        )
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.copy = copy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = bool(is_scalar_nan(self.missing_values))
        tags.input_tags.sparse = False
        return tags

    def _validate_input(self, X, in_fit: bool):
        return _validate(
            self,
            X,
            in_fit=in_fit,
            dtype=_FLOAT_DTYPES,
            allow_nan=bool(is_scalar_nan(self.missing_values)),
            accept_sparse=False,
        )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the imputer on X (the training data are kept).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted `KNNImputer` class instance.
        """
        family = input_family(X)
        X, xp = self._validate_input(X, in_fit=True)
        self._reset_device_cache()
        uploaded = family == HOST and xp is not np  # a new device array
        if self.copy and not uploaded:
            X = X.copy()  # (maybe the caller's array, or a view of it)
        mask = _mask(X, self.missing_values, xp)
        self._fit_X = to_family(X, family)
        self._mask_fit_X = to_family(mask, family)
        self._valid_mask = to_host(~xp.all(mask, axis=0))
        self._fit_indicator(mask, family)
        return self

    def transform(self, X):
        """Impute all missing values in X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The input data to complete.

        Returns
        -------
        X : ndarray of shape (n_samples, n_output_features)
            The imputed dataset, in the family of the input.
            `n_output_features` is the number of features that are not
            always missing during `fit` (all with ``keep_empty_features``),
            plus the indicator's.
        """
        check_is_fitted(self)
        X_in = X
        family = input_family(X)
        X, xp = self._validate_input(X, in_fit=False)
        X = X.copy()
        mask = _mask(X, self.missing_values, xp)
        valid_mask = self._valid_mask
        valid = xp.asarray(np.flatnonzero(valid_mask))
        mask_host = to_host(mask)
        rows_missing = np.flatnonzero(mask_host[:, valid_mask].any(axis=1))
        if rows_missing.shape[0]:
            self._impute(X, mask, mask_host, rows_missing, xp)
        if self.keep_empty_features:
            X[:, xp.asarray(np.flatnonzero(~valid_mask))] = 0
        else:
            X = X[:, valid]
        X = self._concatenate_indicator(X, mask, xp)
        X = into_input(to_family(X, family), X_in, self.copy)
        return to_output(X, X_in, self.get_feature_names_out)

    def _impute(self, X, mask, mask_host, rows_missing, xp: ModuleType) -> None:
        """Fill ``X``'s missing entries of ``rows_missing`` in place."""
        fit_X = self._fitted("_fit_X", xp)
        mask_fit = self._fitted("_mask_fit_X", xp)
        mask_fit_host = to_host(self._mask_fit_X)
        n_fit = fit_X.shape[0]
        step = _chunk_rows(n_fit)
        columns = np.flatnonzero(self._valid_mask)
        donors_of = {}  # column: its donors' indices, host and xp
        for start in range(0, rows_missing.shape[0], step):
            rows = rows_missing[start : start + step]
            rows_xp = xp.asarray(rows)
            dist = self._distances(X[rows_xp], fit_X, mask[rows_xp], mask_fit, xp)
            for col in columns:
                receivers = np.flatnonzero(mask_host[rows, col])
                if receivers.shape[0] == 0:
                    continue
                if col not in donors_of:
                    donors = np.flatnonzero(~mask_fit_host[:, col])
                    donors_of[col] = donors, xp.asarray(donors)
                donors, donors_xp = donors_of[col]
                receivers_xp = xp.asarray(receivers)
                subset = dist[receivers_xp][:, donors_xp]
                all_nan = to_host(xp.isnan(subset).all(axis=1))
                if all_nan.any():
                    # receivers without a defined distance: the column's mean
                    values = xp.where(mask_fit[:, col], 0, fit_X[:, col])
                    col_mean = values.sum() * 1.0 / donors.shape[0]
                    X[xp.asarray(rows[receivers[all_nan]]), col] = col_mean
                    if all_nan.all():
                        continue
                    receivers = receivers[~all_nan]
                    subset = subset[xp.asarray(np.flatnonzero(~all_nan))]
                n_neighbors = min(self.n_neighbors, donors.shape[0])
                values = _impute_column(
                    subset, n_neighbors, fit_X[donors_xp, col], self.weights, xp
                )
                X[xp.asarray(rows[receivers]), col] = values

    def _distances(self, X, fit_X, missing_X, missing_fit, xp: ModuleType):
        """Distances of the receivers ``X`` to the fitted rows, in ``xp``."""
        if not callable(self.metric):
            return nan_euclidean(X, fit_X, missing_X, missing_fit, xp)
        finite = "allow-nan" if is_scalar_nan(self.missing_values) else True
        dist = pairwise_distances(
            to_host(X),
            to_host(fit_X),
            metric=self.metric,
            missing_values=self.missing_values,
            ensure_all_finite=finite,
        )
        return xp.asarray(dist)

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
        names = input_features[self._valid_mask]
        if not self.add_indicator:
            return names
        indicator_names = self.indicator_.get_feature_names_out(input_features)
        return np.concatenate([names, indicator_names])
