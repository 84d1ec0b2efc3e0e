"""Categorical encoders: :class:`OneHotEncoder` and :class:`OrdinalEncoder`.

Both subclass scikit-learn's classes, so that what is not repeated at every
fold of a search is scikit-learn's own code: parameter validation, category
discovery in ``fit`` (the unique values of each column, the user's
``categories`` checks, the infrequent-category grouping of ``min_frequency``
and ``max_categories``, ``drop_idx_``), ``get_feature_names_out``,
``inverse_transform`` and their error messages.

``transform`` of numeric data (a NumPy or CuPy array of integers or floats)
runs in the compute namespace ``xp`` (NumPy or CuPy, see
:func:`gpuml.set_config`): the code of each value is a ``searchsorted``
against the column's sorted categories (NaN, scikit-learn's last category,
by a mask), unknown and missing values are masks, the infrequent grouping is
a table look-up, and :class:`OneHotEncoder` builds its CSR matrix from the
codes (one stored 1 a row and kept column: ``indices`` are the column
offsets plus the codes), or its dense array by a scatter of the same codes.
Numeric device data are never copied to the host for ``transform``; only
the unknown values of an error message are. Object and string data, pandas
frames and other array-likes take scikit-learn's host code.

``fit`` always runs on the host: a CuPy input is copied to the host once and
scikit-learn finds its categories. The fitted attributes (``categories_``,
``drop_idx_``, ``infrequent_categories_``) are therefore NumPy arrays
whatever the family of the training data: they are small, and
scikit-learn's methods read them; ``transform`` keeps their device copies
in a private cache (dropped on pickling).
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import OneHotEncoder as _SkOneHotEncoder
from sklearn.preprocessing import OrdinalEncoder as _SkOrdinalEncoder
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    DEVICE,
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._backend import get_cupy, is_cudf_object, is_cupy_object
from gpuml._linalg import sparse_module
from gpuml._sklearn_compat import (
    align_sparse_output,
    check_feature_names,
    check_n_features,
    check_unknown,
    ensure_sparse_index_int32,
    get_output_config,
)
from gpuml._validation import check_array
from gpuml.base import DeviceCacheMixin

# The value dtypes cupyx sparse matrices hold; OneHotEncoder's CSR output of
# device data with another ``dtype`` (integers) is float64.
_CUPYX_DTYPES = ("bool", "float32", "float64", "complex64", "complex128")

# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def category_tables(categories_, dtype, xp: ModuleType) -> list:
    """The ``tables`` of :func:`encode_columns` for fitted ``categories_``
    (NumPy arrays, NaN last where it is a category) and data of ``dtype``:
    per column, the non-NaN categories in ``xp`` (in their common dtype with
    ``dtype``) and whether NaN is a category."""
    tables = []
    for categories in categories_:
        has_nan = categories.size > 0 and bool(
            categories.dtype.kind == "f" and np.isnan(categories[-1])
        )
        values = categories[:-1] if has_nan else categories
        common = np.result_type(values.dtype, dtype)
        tables.append((to_namespace(values.astype(common), xp), has_nan))
    return tables


def encode_columns(X, tables, xp: ModuleType):
    """The category codes of numeric ``X`` and the mask of known values.

    ``tables[i]`` is ``(categories, has_nan)``: the sorted non-NaN
    categories of column ``i`` (an ``xp`` array in ``X``'s dtype) and
    whether NaN is a category (the last, as scikit-learn keeps it). Returns
    ``(codes, known)``, both of shape ``X.shape``; unknown values get code 0,
    as scikit-learn's encoding of them does.
    """
    n_samples, n_features = X.shape
    codes = xp.zeros((n_samples, n_features), dtype=xp.int64)
    known = xp.zeros((n_samples, n_features), dtype=bool)
    for i, (categories, has_nan) in enumerate(tables):
        column = X[:, i]
        n_categories = categories.shape[0]
        if n_categories:
            position = xp.searchsorted(categories, column)
            position = xp.minimum(position, n_categories - 1)
            found = categories[position] == column
        else:
            position = xp.zeros(n_samples, dtype=xp.int64)
            found = xp.zeros(n_samples, dtype=bool)
        if has_nan and X.dtype.kind == "f":
            is_nan = xp.isnan(column)
            position = xp.where(is_nan, n_categories, position)
            found = found | is_nan
        codes[:, i] = xp.where(found, position, 0)
        known[:, i] = found
    return codes, known


def group_infrequent(
    codes, known, infrequent, mappings, ignore, *, unknown_to_group, xp
):
    """scikit-learn's ``_map_infrequent_categories`` on ``xp`` arrays, in place.

    ``infrequent[i]`` is the host array of column ``i``'s infrequent category
    indices (or None), ``mappings[i]`` the ``xp`` array mapping codes to
    grouped codes (or None), ``ignore`` a dict of column to the code left as
    it is (the missing values of OrdinalEncoder). Unknown values go to the
    infrequent group; with ``unknown_to_group`` they become known.
    """
    for i, indices in enumerate(infrequent):
        if indices is None:
            continue
        codes[:, i] = xp.where(known[:, i], codes[:, i], int(indices[0]))
        if unknown_to_group:
            known[:, i] = True
    for i, mapping in enumerate(mappings):
        if mapping is None:
            continue
        column = codes[:, i]
        if i in ignore:  # the ignored code may lie past the mapping
            update = column != ignore[i]
            codes[:, i] = xp.where(update, mapping[xp.where(update, column, 0)], column)
        else:
            codes[:, i] = mapping[column]


def one_hot(codes, known, offsets, n_out: int, *, dtype, sparse_output: bool, xp):
    """The one-hot matrix of the grouped ``codes``, with a 1 where ``known``.

    ``offsets`` (host, one per column) is the first output column of each
    feature. Dense: an ``xp`` array of ``dtype`` with the 1s scattered at
    ``(r, offsets[j] + codes[r, j])`` for each known ``(r, j)``. Sparse: the
    ``(indices, indptr)`` of the same matrix as CSR (``xp`` int64 arrays;
    the values are ones), which :func:`csr_in_family` assembles.
    """
    n_samples = codes.shape[0]
    columns = codes + xp.asarray(offsets, dtype=codes.dtype)[None, :]
    if not sparse_output:
        out = xp.zeros((n_samples, n_out), dtype=dtype)
        rows, features = xp.nonzero(known)
        out[rows, columns[rows, features]] = 1
        return out
    indices = columns[known]  # row by row, as CSR stores them
    indptr = xp.zeros(n_samples + 1, dtype=xp.int64)
    indptr[1:] = xp.cumsum(known.sum(axis=1, dtype=xp.int64))
    return indices, indptr


def csr_in_family(indices, indptr, shape, dtype, family: str):
    """The CSR matrix of ones at ``(indices, indptr)`` in ``family``: a SciPy
    ``csr_array`` of ``dtype`` with int32 indices where they fit (what
    scikit-learn's OneHotEncoder returns), or a cupyx ``csr_matrix`` (of
    float64 values where cupyx cannot hold ``dtype``)."""
    if family != DEVICE:
        indices, indptr = to_host(indices), to_host(indptr)
        data = np.ones(indices.shape[0])
        out = sp.csr_array((data, indices, indptr), shape=shape, dtype=dtype)
        ensure_sparse_index_int32(out)
        return align_sparse_output(out)
    cupy = get_cupy()
    indices, indptr = to_namespace(indices, cupy), to_namespace(indptr, cupy)
    value_dtype = np.dtype(dtype)
    if value_dtype.name not in _CUPYX_DTYPES:
        value_dtype = np.dtype(np.float64)
    data = cupy.ones(indices.shape[0], dtype=value_dtype)
    parts = (data, indices.astype(cupy.int32), indptr.astype(cupy.int32))
    return sparse_module(cupy).csr_matrix(parts, shape=shape)


# --------------------------------------------------------------------------
# Families: what goes to scikit-learn's host code and what comes back
# --------------------------------------------------------------------------


def _host_input(X):
    """``X`` as scikit-learn's host code takes it (device data copied)."""
    if is_cudf_object(X):
        return X.to_pandas()
    if input_family(X) == DEVICE:
        return to_host(X)
    return X


def _in_family(result, family: str):
    """A numeric host ``result`` in ``family`` (object arrays stay NumPy:
    CuPy has none; integer sparse matrices become float64 cupyx ones)."""
    if family != DEVICE or result.dtype.kind not in "biufc":
        return result
    if is_sparse(result) and result.dtype.name not in _CUPYX_DTYPES:
        result = result.astype(np.float64)
    return to_family(result, family)


def _dtype_kind(dtype) -> str | None:
    """The kind of ``np.dtype(dtype)``; None where NumPy refuses it (the
    host path then raises NumPy's error, as scikit-learn does)."""
    try:
        return np.dtype(dtype).kind
    except TypeError:
        return None


class _DeviceEncoder(DeviceCacheMixin):
    """What both encoders add to scikit-learn's: the host ``fit`` of any
    family and the numeric transform in ``xp``."""

    # Small host structures read by scikit-learn's methods: left on the host
    # when a search moves a fitted model to the device family.
    _host_attributes = ("categories_", "drop_idx_", "feature_names_in_")

    def fit(self, X, y=None):
        """Fit the encoder to `X`: scikit-learn's ``fit`` on the host.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to determine the categories of each feature (NumPy,
            pandas, CuPy: device data are copied to the host once).

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted encoder.
        """
        self._reset_device_cache()
        return super().fit(_host_input(X), y)

    def _computes_on_device(self, X) -> bool:
        """Whether ``X`` takes the ``xp`` path: a 2-D NumPy or CuPy array of
        integers or floats, with numeric categories and output dtype."""
        array = isinstance(X, np.ndarray) and not isinstance(X, np.matrix)
        if not (array or (is_cupy_object(X) and not is_sparse(X))):
            return False
        if X.ndim != 2 or X.dtype.kind not in "iuf":
            return False
        if _dtype_kind(self.dtype) not in ("b", "i", "u", "f"):
            return False
        return all(c.dtype.kind in "iuf" for c in self.categories_)

    def _tables(self, dtype, xp: ModuleType):
        """Per column ``(sorted non-NaN categories in xp, has NaN)`` and the
        infrequent mappings in ``xp``, cached per namespace and dtype."""
        cache = self.__dict__.setdefault("_gpuml_cache", {})
        key = ("encoder_tables", xp.__name__, np.dtype(dtype).str)
        hit = cache.get(key)
        if hit is not None and hit[0] is self.categories_:
            return hit[1], hit[2]
        tables = category_tables(self.categories_, dtype, xp)
        mappings = [
            None if m is None else to_namespace(np.asarray(m, dtype=np.int64), xp)
            for m in getattr(self, "_default_to_infrequent_mappings", None)
            or [None] * len(self.categories_)
        ]
        cache[key] = (self.categories_, tables, mappings)
        return tables, mappings

    def _validate_numeric(self, X, xp: ModuleType):
        """scikit-learn's checks of ``transform``'s input (its ``_check_X``,
        then feature names and count), ``X`` returned in ``xp``."""
        X_checked = check_array(X, xp=xp, dtype=None, allow_nan=True)
        check_feature_names(self, X, reset=False)
        check_n_features(self, X_checked, reset=False)
        return X_checked

    def _encode(self, X, xp, *, handle_unknown, warn_on_unknown=False, ignore=None):
        """scikit-learn's ``_transform`` of numeric ``X`` in ``xp``: the
        grouped codes and the mask of values that are encoded."""
        tables, mappings = self._tables(X.dtype, xp)
        codes, known = encode_columns(X, tables, xp)
        unknown_columns = np.flatnonzero(~to_host(xp.all(known, axis=0)))
        if unknown_columns.size and handle_unknown == "error":
            i = int(unknown_columns[0])
            values = to_host(X[:, i][~known[:, i]])  # the unknown values only
            diff = check_unknown(values, self.categories_[i])
            raise ValueError(
                f"Found unknown categories {diff} in column {i} during transform"
            )
        if unknown_columns.size and warn_on_unknown:
            columns = unknown_columns.tolist()
            if handle_unknown == "infrequent_if_exist":
                message = (
                    f"Found unknown categories in columns {columns} during "
                    "transform. These unknown categories will be encoded as the "
                    "infrequent category."
                )
            else:
                message = (
                    f"Found unknown categories in columns {columns} during "
                    "transform. These unknown categories will be encoded as all "
                    "zeros"
                )
            warnings.warn(message, UserWarning, stacklevel=3)
        if self._infrequent_enabled:
            group_infrequent(
                codes,
                known,
                self._infrequent_indices,
                mappings,
                ignore or {},
                unknown_to_group=self.handle_unknown in ("infrequent_if_exist", "warn"),
                xp=xp,
            )
        return codes, known


class OneHotEncoder(_DeviceEncoder, _SkOneHotEncoder):
    """Encode categorical features as a one-hot numeric array.

    scikit-learn's :class:`sklearn.preprocessing.OneHotEncoder` (same
    parameters, attributes, results and errors; it is its subclass), whose
    :meth:`transform` of numeric data runs on the GPU when one is used (see
    :func:`gpuml.set_config`) and returns data in the family of the input:
    a SciPy CSR array or NumPy array for host data, a cupyx CSR matrix or
    CuPy array for device data. ``fit`` runs on the host (device data are
    copied there once), and the fitted attributes are NumPy arrays.

    Parameters
    ----------
    categories : 'auto' or a list of array-like, default='auto'
        Categories of each feature: found in the training data (``'auto'``)
        or given (``categories[i]`` for feature ``i``, sorted if numeric).

    drop : {'first', 'if_binary'} or array-like of shape (n_features,), \
default=None
        A category to drop per feature: none, the first, the first of
        binary features only, or ``drop[i]`` for feature ``i``.

    sparse_output : bool, default=True
        Whether :meth:`transform` returns a CSR matrix (a cupyx one for
        device data, whose values are float64 when ``dtype`` is an integer
        type: cupyx holds floating-point and boolean values only) or a dense
        array.

    dtype : number type, default=np.float64
        The output's dtype.

    handle_unknown : {'error', 'ignore', 'infrequent_if_exist', 'warn'}, \
default='error'
        An unknown category in :meth:`transform`: an error, all zeros
        (``'ignore'``), the infrequent category if there is one, else all
        zeros (``'infrequent_if_exist'``; ``'warn'`` does the same with a
        warning).

    min_frequency : int or float, default=None
        Categories seen fewer times (or in a smaller fraction of the
        samples) are grouped into an infrequent category.

    max_categories : int, default=None
        The most output categories per feature, the infrequent one included.

    feature_name_combiner : "concat" or callable, default="concat"
        ``callable(input_feature, category)`` giving a feature name out;
        ``"concat"`` gives ``input_feature + "_" + str(category)``.

    Attributes
    ----------
    categories_ : list of arrays
        The categories of each feature (NumPy arrays, whatever the training
        data's family).

    drop_idx_ : array of shape (n_features,)
        The index in ``categories_[i]`` of feature ``i``'s dropped category
        (None where none is), or None.

    infrequent_categories_ : list of ndarray
        The infrequent categories of each feature (None where none).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.OneHotEncoder : The scikit-learn estimator.
    OrdinalEncoder : Integer codes of categorical features.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import OneHotEncoder
    >>> X = np.array([[1, 10], [2, 10], [3, 20]])
    >>> enc = OneHotEncoder(sparse_output=False).fit(X)
    >>> enc.categories_
    [array([1, 2, 3]), array([10, 20])]
    >>> enc.transform([[2, 20], [3, 10]])
    array([[0., 1., 0., 0., 1.],
           [0., 0., 1., 1., 0.]])
    >>> enc.get_feature_names_out()
    array(['x0_1', 'x0_2', 'x0_3', 'x1_10', 'x1_20'], dtype=object)
    """

    def transform(self, X):
        """Transform `X` using one-hot encoding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to encode.

        Returns
        -------
        X_out : {ndarray, sparse matrix} of shape (n_samples, n_encoded_features)
            The one-hot encoding, in the family of `X`: a CSR matrix if
            ``sparse_output=True``, else a dense array.
        """
        check_is_fitted(self)
        output = get_output_config("transform", estimator=self)["dense"]
        if output != "default" and self.sparse_output:
            name = output.capitalize()
            raise ValueError(
                f"{name} output does not support sparse data. Set "
                f"sparse_output=False to output {output} dataframes or disable "
                f'{name} output via` ohe.set_output(transform="default").'
            )
        family = input_family(X)
        if not self._computes_on_device(X):
            result = _SkOneHotEncoder.transform.__wrapped__(self, _host_input(X))
            return to_output(_in_family(result, family), X, self.get_feature_names_out)
        xp = compute_namespace()
        X_in, X = X, self._validate_numeric(X, xp)
        if self.handle_unknown == "warn":
            warn_on_unknown, handle_unknown = True, "infrequent_if_exist"
        else:
            warn_on_unknown = self.drop is not None and self.handle_unknown in {
                "ignore",
                "infrequent_if_exist",
            }
            handle_unknown = self.handle_unknown
        codes, known = self._encode(
            X, xp, handle_unknown=handle_unknown, warn_on_unknown=warn_on_unknown
        )
        if self._drop_idx_after_grouping is not None:
            dropped = self._drop_idx_after_grouping
            # None (nothing dropped): a code never reached, and no shift
            drop = [
                len(c) if d is None else int(d)
                for d, c in zip(dropped, self.categories_, strict=True)
            ]
            drop = xp.asarray(np.asarray(drop, dtype=np.int64))[None, :]
            known = known & (codes != drop)
            codes = codes - (codes > drop)
        offsets = np.cumsum([0, *self._n_features_outs])
        n_out = int(offsets[-1])
        result = one_hot(
            codes,
            known,
            offsets[:-1],
            n_out,
            dtype=self.dtype,
            sparse_output=self.sparse_output,
            xp=xp,
        )
        if self.sparse_output:
            shape = (X.shape[0], n_out)
            return csr_in_family(*result, shape, self.dtype, family)
        return to_output(to_family(result, family), X_in, self.get_feature_names_out)

    def inverse_transform(self, X):
        """Convert the data back to the original representation.

        scikit-learn's, on the host; the result is in the family of `X`
        where it is numeric (object arrays are NumPy: CuPy has none).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_encoded_features)
            The transformed data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Inverse transformed array.
        """
        family = input_family(X)
        return _in_family(super().inverse_transform(_host_input(X)), family)


class OrdinalEncoder(_DeviceEncoder, _SkOrdinalEncoder):
    """Encode categorical features as an integer array.

    scikit-learn's :class:`sklearn.preprocessing.OrdinalEncoder` (same
    parameters, attributes, results and errors; it is its subclass), whose
    :meth:`transform` of numeric data runs on the GPU when one is used (see
    :func:`gpuml.set_config`) and returns data in the family of the input.
    ``fit`` runs on the host (device data are copied there once), and the
    fitted attributes are NumPy arrays.

    Parameters
    ----------
    categories : 'auto' or a list of array-like, default='auto'
        Categories of each feature: found in the training data (``'auto'``)
        or given (``categories[i]`` for feature ``i``, sorted if numeric).

    dtype : number type, default=np.float64
        The output's dtype.

    handle_unknown : {'error', 'use_encoded_value'}, default='error'
        An unknown category in :meth:`transform`: an error, or
        ``unknown_value``.

    unknown_value : int or np.nan, default=None
        The code of unknown categories (``handle_unknown='use_encoded_value'``
        only).

    encoded_missing_value : int or np.nan, default=np.nan
        The code of missing values.

    min_frequency : int or float, default=None
        Categories seen fewer times (or in a smaller fraction of the
        samples) are grouped into an infrequent category.

    max_categories : int, default=None
        The most output categories per feature, the infrequent one included.

    Attributes
    ----------
    categories_ : list of arrays
        The categories of each feature (NumPy arrays, whatever the training
        data's family).

    infrequent_categories_ : list of ndarray
        The infrequent categories of each feature (None where none).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.OrdinalEncoder : The scikit-learn estimator.
    OneHotEncoder : One-hot encoding of categorical features.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import OrdinalEncoder
    >>> X = np.array([[1.5, 10], [2.5, 10], [np.nan, 20]])
    >>> enc = OrdinalEncoder().fit(X)
    >>> enc.categories_
    [array([1.5, 2.5, nan]), array([10., 20.])]
    >>> enc.transform([[2.5, 20], [np.nan, 10]])
    array([[ 1.,  1.],
           [nan,  0.]])
    """

    def transform(self, X):
        """Transform `X` to ordinal codes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to encode.

        Returns
        -------
        X_out : ndarray of shape (n_samples, n_features)
            The codes, in the family of `X`.
        """
        check_is_fitted(self, "categories_")
        family = input_family(X)
        if not self._computes_on_device(X):
            result = _SkOrdinalEncoder.transform.__wrapped__(self, _host_input(X))
            return to_output(_in_family(result, family), X, self.get_feature_names_out)
        xp = compute_namespace()
        X_in, X = X, self._validate_numeric(X, xp)
        codes, known = self._encode(
            X, xp, handle_unknown=self.handle_unknown, ignore=self._missing_indices
        )
        result = codes.astype(self.dtype, copy=False)
        for i, missing in self._missing_indices.items():
            result[:, i][codes[:, i] == missing] = self.encoded_missing_value
        if self.handle_unknown == "use_encoded_value":
            result[~known] = self.unknown_value
        return to_output(to_family(result, family), X_in, self.get_feature_names_out)

    def inverse_transform(self, X):
        """Convert the data back to the original representation.

        scikit-learn's, on the host; the result is in the family of `X`
        where it is numeric (object arrays are NumPy: CuPy has none).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_encoded_features)
            The transformed data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Inverse transformed array.
        """
        family = input_family(X)
        return _in_family(super().inverse_transform(_host_input(X)), family)
