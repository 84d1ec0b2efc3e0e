"""Term weighting: :class:`TfidfTransformer`.

The arithmetic is scikit-learn's, written once against an array namespace
``xp`` (NumPy/SciPy or CuPy/cupyx) for CSR and CSC matrices:

- document frequency: the stored values of each column (a ``bincount`` of a
  CSR matrix's column indices, the ``indptr`` steps of a CSC matrix), as
  scikit-learn's ``_document_frequency`` counts them;
- ``idf = log(n_samples / df) + 1`` in the data's float dtype, both counts
  raised by one with ``smooth_idf``;
- transform: ``log(tf) + 1`` with ``sublinear_tf``, each stored value
  times its column's idf, then every row scaled to unit l1 or l2 norm.

The idf is computed on the host from the counts (one value per column, by
scikit-learn's formula). The row norms are scikit-learn's
(``sklearn.preprocessing.normalize``) on the host; on a GPU the whole
transform of a CSR matrix is one gpuml kernel (``tfidf_rows``), a thread per
row in scikit-learn's order and precision (float64 sums), so that no CuPy
kernel is compiled on a new machine; other index types fall back to one
float64 ``bincount`` per call, with the same rules.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted

from gpuml import _cuda
from gpuml._array import (
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_family_attribute,
    to_host,
)
from gpuml._backend import get_cupy
from gpuml._linalg import dense_to_csr, sparse_coords
from gpuml._sklearn_compat import StrOptions, align_sparse_output, fit_context
from gpuml._validation import validate_data
from gpuml.base import DeviceCacheMixin

# The dtypes transform computes in, as scikit-learn's; others become float64.
_FLOAT_DTYPES = (np.float64, np.float32)


def document_frequency(X, xp: ModuleType):
    """The number of stored values in each column of a CSR or CSC matrix
    (int64; on a GPU a CSR matrix's by gpuml's counting kernel)."""
    if X.format == "csc":
        return xp.diff(X.indptr)
    if xp is not np:
        counts = xp.zeros(X.shape[1], dtype=xp.int64)  # a memset
        name = f"csr_column_counts<{_cuda.ctype(X.indices.dtype)}>"
        if X.nnz and name in _cuda.MODULES["arrays"]:
            args = (X.indices, np.int64(X.nnz), counts)
            _cuda.launch("arrays", name, X.nnz, args)
            return counts
    if X.indices.shape[0] == 0:  # cupy.bincount cannot take an empty array
        return xp.zeros(X.shape[1], dtype=xp.int64)
    return xp.bincount(X.indices, minlength=X.shape[1])


def inverse_document_frequency(X, smooth_idf: bool, xp: ModuleType):
    """scikit-learn's ``idf_`` of a CSR or CSC count matrix, in the data's
    float dtype (float64 for integer counts), as a NumPy array: the document
    frequencies are counted where ``X`` lives, the idf computed from them on
    the host by scikit-learn's formula (one value per column)."""
    dtype = X.dtype if X.dtype in _FLOAT_DTYPES else np.dtype(np.float64)
    df = to_host(document_frequency(X, xp)).astype(dtype)
    df += float(smooth_idf)
    n_samples = X.shape[0] + int(smooth_idf)
    with np.errstate(divide="ignore"):  # warned below
        idf = np.full(df.shape, n_samples, dtype=dtype) / df
    if not smooth_idf and bool((df == 0).any()):
        # A column no document holds gets an infinite idf, as scikit-learn's
        # does, with NumPy's warning.
        warnings.warn(
            "divide by zero encountered in divide", RuntimeWarning, stacklevel=3
        )
    np.log(idf, out=idf)
    idf += 1.0
    return idf


def normalize_rows(X, norm: str, xp: ModuleType):
    """Scale the rows of CSR ``X`` to unit ``norm`` ("l1" or "l2") in place,
    as scikit-learn's ``normalize`` does (it is used on the host)."""
    if xp is np:
        return normalize(X, norm=norm, copy=False)
    return _normalize_rows_by_bincount(X, norm, xp)


def _normalize_rows_by_bincount(X, norm: str, xp: ModuleType):
    """:func:`normalize_rows` in any namespace (the GPU's way for what
    :func:`_device_tfidf` does not take)."""
    if X.data.shape[0] == 0:
        return X
    rows, _ = sparse_coords(X, xp)
    values = X.data * X.data if norm == "l2" else xp.abs(X.data)
    sums = xp.bincount(rows, weights=values.astype(xp.float64), minlength=X.shape[0])
    if norm == "l2":
        sums = xp.sqrt(sums)
    sums[sums == 0.0] = 1.0  # empty rows are left as they are
    X.data[...] = (X.data / sums[rows]).astype(X.dtype, copy=False)
    return X


# Whole term counts up to this have their sublinear tf read from a table of
# NumPy's values (the device's log may differ from NumPy's in the last bit).
_SUBLINEAR_COUNTS = 1 << 14
_sublinear_tables: dict = {}


def _sublinear_table(dtype):
    """``log(k) + 1`` for k = 1 .. ``_SUBLINEAR_COUNTS`` in ``dtype``, as
    NumPy computes it in scikit-learn's ``transform``, on the current
    device (made once per device and dtype)."""
    cupy = get_cupy()
    key = (cupy.cuda.Device().id, np.dtype(dtype))
    if key not in _sublinear_tables:
        logs = np.arange(1, _SUBLINEAR_COUNTS + 1, dtype=dtype)
        np.log(logs, out=logs)
        logs += 1.0
        _sublinear_tables[key] = cupy.asarray(logs)
    return _sublinear_tables[key]


def _device_tfidf(X, idf, sublinear: bool, norm):
    """The whole transform of a device CSR matrix in one gpuml kernel (a new
    matrix; its index arrays are copies): each row's values in the order and
    precision of scikit-learn's code, so the results are scikit-learn's. None
    for index types the kernel does not take."""
    t, i = _cuda.ctype(X.dtype), _cuda.ctype(X.indices.dtype)
    name = f"tfidf_rows<{t}, {i}>"
    if (
        name not in _cuda.MODULES["arrays"]
        or X.indptr.dtype != X.indices.dtype
        or (idf is not None and idf.dtype != X.dtype)  # NumPy's casting: CuPy's
    ):
        return None
    data = _cuda.copy(X.data)
    n_rows = X.shape[0]
    norm_code = {None: 0, "l1": 1, "l2": 2}[norm]
    logs = _sublinear_table(X.dtype)
    args = (X.data, X.indices, X.indptr, np.int64(n_rows))
    args += (0 if idf is None else idf, np.int32(sublinear))
    args += (logs, np.int64(logs.shape[0]), np.int32(norm_code), data)
    _cuda.launch("arrays", name, n_rows, args)
    canonical = getattr(X, "_has_canonical_format", None)
    indices, indptr = _cuda.copy(X.indices), _cuda.copy(X.indptr)
    return _cuda.csr_from_parts(data, indices, indptr, X.shape, canonical)


def _same_csr_structure(X_in, X) -> bool:
    """Whether ``X_in`` is a writeable CSR matrix of ``X``'s dtype and
    stored values, into which ``X``'s values can be written back (the case
    of a host matrix transformed on the device with ``copy=False``)."""
    return (
        is_sparse(X_in)
        and X_in.format == "csr"
        and X_in.dtype == X.dtype
        and X_in.nnz == X.nnz
        and getattr(X_in.data.flags, "writeable", True)
    )


class TfidfTransformer(
    OneToOneFeatureMixin,
    TransformerMixin,
    DeviceCacheMixin,
    BaseEstimator,
    auto_wrap_output_keys=None,  # sparse output: no set_output, as scikit-learn's
):
    """Transform a count matrix to a normalized tf or tf-idf representation.

    scikit-learn's :class:`sklearn.feature_extraction.text.TfidfTransformer`,
    computed on the GPU when one is in use (CuPy and cupyx sparse matrices),
    else with NumPy and SciPy. The idf of term ``t`` is ``log(n / df(t)) +
    1``, or ``log((1 + n) / (1 + df(t))) + 1`` with ``smooth_idf``, where
    ``n`` is the number of documents and ``df(t)`` the number of documents
    whose row stores a value for ``t``.

    Parameters
    ----------
    norm : {'l1', 'l2'} or None, default='l2'
        Each output row has unit norm: ``'l2'``, the sum of squares of its
        elements is 1; ``'l1'``, the sum of their absolute values is 1;
        ``None``, no normalization.
    use_idf : bool, default=True
        Enable inverse-document-frequency reweighting. If False, idf(t) = 1.
    smooth_idf : bool, default=True
        Smooth idf weights by adding one to document frequencies, as if an
        extra document contained every term once. Prevents zero divisions.
    sublinear_tf : bool, default=False
        Apply sublinear tf scaling, i.e. replace tf with 1 + log(tf).

    Attributes
    ----------
    idf_ : array of shape (n_features,)
        The inverse document frequency vector, only defined if ``use_idf``
        is True: float64, or float32 for float32 counts; in the family (host
        or device) of the training input.
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.feature_extraction.text.TfidfTransformer : The scikit-learn
        estimator.

    Notes
    -----
    ``transform`` returns a CSR matrix in the family of its input: SciPy for
    host data (a sparse matrix or array as scikit-learn's
    ``sparse_interface`` setting says, as scikit-learn's own does), cupyx
    for device data. On a GPU a CSR matrix with int32 or int64 indices is
    transformed by one kernel in scikit-learn's order and precision (the
    same bits; with ``sublinear_tf``, tf values other than whole counts up
    to 16,384 use the device's ``log``, which may differ in the last bit);
    other inputs sum the row norms in another order (float64 results agree
    to about 1e-15).

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.feature_extraction.text import TfidfTransformer
    >>> counts = np.array([[3, 0, 1], [2, 0, 0], [3, 0, 0], [4, 0, 0]])
    >>> tfidf = TfidfTransformer().fit(counts)
    >>> print(np.round(tfidf.idf_, 4))
    [1.     2.6094 1.9163]
    >>> print(np.round(tfidf.transform(counts).toarray(), 4))
    [[0.8427 0.     0.5383]
     [1.     0.     0.    ]
     [1.     0.     0.    ]
     [1.     0.     0.    ]]
    """

    _parameter_constraints: dict = {
        "norm": [StrOptions({"l1", "l2"}), None],
        "use_idf": ["boolean"],
        "smooth_idf": ["boolean"],
        "sublinear_tf": ["boolean"],
    }

    def __init__(self, *, norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=False):
        self.norm = norm
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the idf vector (global term weights).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A matrix of term/token counts (host or device family).
        y : None
            This parameter is not needed to compute tf-idf.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        xp = compute_namespace()
        family = input_family(X)
        # Integer counts become float64, the dtype of their idf_ (cupyx
        # sparse matrices hold floats only); the counted structure is kept.
        X = validate_data(
            self, X, xp=xp, accept_sparse=("csr", "csc"), dtype=_FLOAT_DTYPES
        )
        self._reset_device_cache()
        self.__dict__.pop("idf_", None)
        if not is_sparse(X):
            X = dense_to_csr(X, xp)
        if self.use_idf:
            idf = inverse_document_frequency(X, self.smooth_idf, xp)
            self.idf_ = to_family_attribute(idf, family)
        return self

    def transform(self, X, copy=True):
        """Transform a count matrix to a tf or tf-idf representation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A matrix of term/token counts (host or device family).
        copy : bool, default=True
            Whether to copy X and operate on the copy or perform in-place
            operations. ``copy=False`` is only effective with a CSR matrix
            of float32 or float64 with writeable values; a host matrix
            transformed on the GPU gets the device's values copied back
            into it.

        Returns
        -------
        vectors : sparse matrix of shape (n_samples, n_features)
            Tf-idf-weighted document-term matrix (CSR), in the family of
            ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=_FLOAT_DTYPES
        )
        if not is_sparse(X):
            X = dense_to_csr(X, xp)
        idf = self._fitted("idf_", xp) if hasattr(self, "idf_") else None
        if xp is not np:
            done = _device_tfidf(X, idf, self.sublinear_tf, self.norm)
            if done is not None:
                return self._output(done, X_in, copy, family)
        if X is X_in and (copy or not getattr(X.data.flags, "writeable", True)):
            X = X.copy()  # else validation made a new matrix, or in place
        if self.sublinear_tf:
            xp.log(X.data, out=X.data)
            X.data += 1.0
        if idf is not None:
            X.data *= idf[X.indices]
        if self.norm is not None:
            X = normalize_rows(X, self.norm, xp)
        return self._output(X, X_in, copy, family)

    @staticmethod
    def _output(X, X_in, copy: bool, family: str):
        """The transformed ``X`` in the input's family; with ``copy=False``,
        written into the input's values where they can take them."""
        if not copy and X_in is not X and _same_csr_structure(X_in, X):
            X_in.data[...] = to_family(X.data, family)  # in place, as asked
            X = X_in
        X = to_family(X, family)
        return align_sparse_output(X) if family == HOST else X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
