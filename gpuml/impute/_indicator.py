"""Binary indicators of missing values: :class:`MissingIndicator`, and the
validation and masks that :class:`~gpuml.impute.SimpleImputer` shares with it.

The mask is computed in the compute namespace ``xp`` (NumPy or CuPy) for
numeric data, dense or sparse (a boolean matrix of the input's structure,
never densified), and on the host for object (string) data, with
scikit-learn's own ``_get_mask``. Errors are scikit-learn's.
"""

from __future__ import annotations

import numbers
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import assert_all_finite as sk_assert_all_finite
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._linalg import sparse_coords, sparse_module
from gpuml._sklearn_compat import (
    MissingValues,
    StrOptions,
    align_sparse_output,
    check_feature_names_in,
    check_n_features,
    fit_context,
    get_mask,
    is_pandas_na,
    is_scalar_nan,
)
from gpuml._validation import assert_all_finite, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.impute._kernels import bincount, missing_mask

_UNSUPPORTED_DTYPE = (
    "{name} does not support data with dtype {dtype}. Please provide either a "
    "numeric array (with a floating point or integer dtype) or categorical "
    "data represented either as an array with integer dtype or an array of "
    "string values with an object dtype."
)


def _is_nan(missing_values) -> bool:
    return bool(is_pandas_na(missing_values) or is_scalar_nan(missing_values))


def _check_inputs_dtype(X, missing_values) -> None:
    if is_pandas_na(missing_values):
        return
    if X.dtype.kind in "fiu" and not isinstance(missing_values, numbers.Real):
        raise ValueError(
            "'X' and 'missing_values' types are expected to be both numerical. "
            f"Got X.dtype={X.dtype} and  type(missing_values)="
            f"{type(missing_values)}."
        )


def _validate(estimator, X, *, in_fit, dtype, allow_nan, accept_sparse):
    """Validate ``X`` and move it to where it is computed on.

    Returns ``(X, xp)``: numeric data in the compute namespace; object,
    string and integer sparse data on the host (``xp`` is NumPy).
    Validation runs where the data are (host data are not uploaded before
    their dtype is known); the NaN/inf scan runs in ``xp``.
    """
    xp = compute_namespace()
    X = validate_data(
        estimator,
        X,
        xp=np if input_family(X) == HOST else xp,
        reset=in_fit,
        accept_sparse=accept_sparse,
        dtype=dtype,
        ensure_all_finite=False,
    )
    if X.dtype.kind == "O":
        sk_assert_all_finite(
            X, allow_nan=allow_nan, estimator_name=type(estimator).__name__
        )
        return X, np
    if X.dtype.kind not in "biuf" or (is_sparse(X) and X.dtype.kind in "iu"):
        # strings and bytes (refused by the caller with scikit-learn's
        # message), and integer sparse data (cupyx holds floats and bools
        # only): on the host, as given
        return X, np
    X = to_namespace(X, xp)
    assert_all_finite(
        X, xp=xp, allow_nan=allow_nan, estimator=estimator, input_name="X"
    )
    return X, xp


def _mask(X, missing_values, xp: ModuleType):
    """The missing-value mask of ``X``: dense bool, or for sparse ``X`` a
    bool array over its stored values."""
    values = X.data if is_sparse(X) else X
    if values.dtype.kind == "O":
        return get_mask(values, missing_values)
    return missing_mask(values, missing_values, is_nan=_is_nan(missing_values), xp=xp)


def _sparse_like(X, data, xp: ModuleType):
    """A sparse matrix of ``X``'s format and structure holding ``data``."""
    if xp is np:
        from scipy import sparse as sp

        kind = sp.csr_array if X.format == "csr" else sp.csc_array
        return align_sparse_output(
            kind((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)
        )
    cusp = sparse_module(xp)
    kind = cusp.csr_matrix if X.format == "csr" else cusp.csc_matrix
    return kind((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)


def _drop_false(mask, xp: ModuleType):
    """A copy of the sparse boolean ``mask`` without its stored False values
    (SciPy's ``eliminate_zeros``; by hand for cupyx, whose own is for
    floating-point data)."""
    if xp is np:
        mask = mask.copy()
        mask.eliminate_zeros()
        return mask
    keep = mask.data
    major = sparse_coords(mask, xp)[0 if mask.format == "csr" else 1]
    n_major = mask.shape[0 if mask.format == "csr" else 1]
    indptr = xp.zeros(n_major + 1, dtype=mask.indptr.dtype)
    indptr[1:] = xp.cumsum(bincount(major[keep], None, n_major, xp))
    kind = type(mask)
    return kind((mask.data[keep], mask.indices[keep], indptr), shape=mask.shape)


def _bool_sparse_op(mask, method: str, xp: ModuleType):
    """``mask.toarray()`` or ``mask.tocsc()`` of a sparse boolean mask (on
    cupyx through float32, the dtype its cuSPARSE conversions take)."""
    if xp is np:
        return getattr(mask, method)()
    return getattr(mask.astype(xp.float32), method)().astype(bool)


class MissingIndicator(TransformerMixin, DeviceCacheMixin, BaseEstimator):
    """Binary indicators for missing values.

    Same API and results as :class:`sklearn.impute.MissingIndicator`; the
    mask is computed in the compute namespace (on the GPU when one is used)
    and returned in the family of the input.

    Parameters
    ----------
    missing_values : int, float, str, np.nan or None, default=np.nan
        The placeholder for the missing values.

    features : {'missing-only', 'all'}, default='missing-only'
        Whether the mask represents the features with missing values at fit
        time only, or all features.

    sparse : bool or 'auto', default='auto'
        Whether the mask is sparse (CSC) or dense; ``'auto'``: as the input.

    error_on_new : bool, default=True
        If True, :meth:`transform` raises an error for features with missing
        values that had none in :meth:`fit` (``features='missing-only'``).

    Attributes
    ----------
    features_ : ndarray of shape (n_missing_features,) or (n_features,)
        The indices of the features that :meth:`transform` returns.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.impute.MissingIndicator : The scikit-learn estimator.
    SimpleImputer : Univariate imputation of missing values.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.impute import MissingIndicator
    >>> X1 = np.array([[np.nan, 1, 3], [4, 0, np.nan], [8, 1, 0]])
    >>> X2 = np.array([[5, 1, np.nan], [np.nan, 2, 3], [2, 4, 0]])
    >>> indicator = MissingIndicator().fit(X1)
    >>> indicator.transform(X2)
    array([[False,  True],
           [ True, False],
           [False, False]])
    """

    _parameter_constraints: dict = {
        "missing_values": [MissingValues()],
        "features": [StrOptions({"missing-only", "all"})],
        "sparse": ["boolean", StrOptions({"auto"})],
        "error_on_new": ["boolean"],
    }

    def __init__(
        self,
        *,
        missing_values=np.nan,
        features="missing-only",
        sparse="auto",
        error_on_new=True,
    ):
        self.missing_values = missing_values
        self.features = features
        self.sparse = sparse
        self.error_on_new = error_on_new

    def _validate_input(self, X, in_fit: bool):
        X, xp = _validate(
            self,
            X,
            in_fit=in_fit,
            dtype=None,
            allow_nan=bool(is_scalar_nan(self.missing_values)),
            accept_sparse=("csc", "csr"),
        )
        _check_inputs_dtype(X, self.missing_values)
        if X.dtype.kind not in "iufO":
            raise ValueError(
                _UNSUPPORTED_DTYPE.format(name="MissingIndicator", dtype=X.dtype)
            )
        if is_sparse(X) and self.missing_values == 0:
            raise ValueError(
                "Sparse input with missing_values=0 is not supported. Provide a "
                "dense array instead."
            )
        return X, xp

    def _mask_and_features(self, mask, xp: ModuleType):
        """The output mask (before column selection) and the host indices of
        the features with missing values (all features for ``'all'``)."""
        n_features = mask.shape[1]
        if is_sparse(mask):
            mask = _drop_false(mask, xp)
            _, cols = sparse_coords(mask, xp)
            n_missing = to_host(bincount(cols, None, n_features, xp))
            if self.sparse is False:
                mask = _bool_sparse_op(mask, "toarray", xp)
            elif mask.format == "csr":
                mask = _bool_sparse_op(mask, "tocsc", xp)
        else:
            n_missing = to_host(xp.sum(mask, axis=0))
            if self.sparse is True:
                if xp is np:
                    from scipy import sparse as sp

                    mask = align_sparse_output(sp.csc_array(mask))
                else:
                    dense = mask.astype(xp.float32)
                    mask = sparse_module(xp).csc_matrix(dense).astype(bool)
        if self.features == "all":
            return mask, np.arange(n_features)
        return mask, np.flatnonzero(n_missing)

    def _data_mask(self, X, xp: ModuleType):
        mask = _mask(X, self.missing_values, xp)
        return _sparse_like(X, mask, xp) if is_sparse(X) else mask

    def _fit(self, X, y=None, precomputed=False, family=None):
        """Fit on ``X`` (a mask already when ``precomputed``); the mask."""
        self._reset_device_cache()
        self._precomputed = precomputed
        if precomputed:
            if not (hasattr(X, "dtype") and X.dtype.kind == "b"):
                raise ValueError("precomputed is True but the input data is not a mask")
            check_n_features(self, X, reset=True)
            mask, xp = X, namespace_of(X)
        else:
            family = input_family(X)
            X, xp = self._validate_input(X, in_fit=True)
            mask = self._data_mask(X, xp)
        self._n_features = mask.shape[1]
        mask, features = self._mask_and_features(mask, xp)
        self.features_ = to_family(features, family)
        return mask, xp

    def _select(self, mask, xp: ModuleType):
        if self.features_.shape[0] < self._n_features:
            mask = mask[:, self._fitted("features_", xp)]
        return mask

    def _transform_precomputed(self, mask, xp: ModuleType):
        """The indicator columns of a precomputed ``mask`` (SimpleImputer's)."""
        mask, _ = self._mask_and_features(mask, xp)
        return self._select(mask, xp)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the transformer on `X`.

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
        self._fit(X, y)
        return self

    def transform(self, X):
        """Generate missing values indicator for `X`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input data to complete.

        Returns
        -------
        Xt : {ndarray, sparse matrix} of shape (n_samples, n_features) \
or (n_samples, n_features_with_missing)
            The boolean missing indicator for `X`, in the family of `X`.
        """
        check_is_fitted(self)
        X_in = X
        family = input_family(X)
        if self._precomputed:
            if not (hasattr(X, "dtype") and X.dtype.kind == "b"):
                raise ValueError("precomputed is True but the input data is not a mask")
            mask, xp = X, namespace_of(X)
        else:
            X, xp = self._validate_input(X, in_fit=False)
            mask = self._data_mask(X, xp)
        mask, features = self._mask_and_features(mask, xp)
        if self.features == "missing-only":
            new = np.setdiff1d(features, to_host(self.features_))
            if self.error_on_new and new.size > 0:
                raise ValueError(
                    f"The features {new} have missing values in transform but "
                    "have no missing values in fit."
                )
        mask = self._select(mask, xp)
        return to_output(to_family(mask, family), X_in, self.get_feature_names_out)

    @fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Generate missing values indicator for `X`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input data to complete.

        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        Xt : {ndarray, sparse matrix} of shape (n_samples, n_features) \
or (n_samples, n_features_with_missing)
            The boolean missing indicator for `X`, in the family of `X`.
        """
        X_in = X
        mask, xp = self._fit(X, y)
        mask = self._select(mask, xp)
        return to_output(
            to_family(mask, input_family(X_in)), X_in, self.get_feature_names_out
        )

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
        prefix = self.__class__.__name__.lower()
        features = to_host(self.features_)
        return np.asarray(
            [f"{prefix}_{name}" for name in input_features[features]], dtype=object
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = []
        return tags
