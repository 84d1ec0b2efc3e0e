"""Row normalization: :class:`Normalizer`.

Each sample (row) is divided by its l1, l2 or max norm, written once
against an array namespace ``xp`` (NumPy or CuPy). CSR matrices stay sparse
with the same stored entries: the row norms are ``bincount`` reductions of
the stored values (accumulated in float64, as scikit-learn's Cython kernels
do) or a segmented maximum, and the stored values are divided in place.
"""

from __future__ import annotations

from types import ModuleType

from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils._param_validation import StrOptions

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
from gpuml._validation import validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._data import _FLOAT_DTYPES, _may_overwrite
from gpuml.preprocessing._scalers import canonical, handle_zeros_in_scale, segment_max


def _row_sums(xp: ModuleType, rows, values, n_rows: int):
    """Per-row sum of per-stored-value float64 ``values``."""
    if rows.shape[0] == 0:  # cupy.bincount cannot take an empty array
        return xp.zeros(n_rows, dtype=xp.float64)
    return xp.bincount(rows, weights=values, minlength=n_rows)


def normalize_dense(X, norm: str, *, xp: ModuleType):
    """Divide each row of dense float ``X`` by its norm, in place.

    Norms are in ``X``'s dtype; those below ten machine epsilons count as 1
    (scikit-learn's ``normalize``).
    """
    if norm == "l1":
        norms = xp.sum(xp.abs(X), axis=1)
    elif norm == "l2":
        norms = xp.sqrt(xp.einsum("ij,ij->i", X, X))
    else:
        norms = xp.max(xp.abs(X), axis=1)
    norms = handle_zeros_in_scale(norms, xp)
    xp.divide(X, norms[:, None], out=X)
    return X


def normalize_csr(X, norm: str, *, xp: ModuleType):
    """Divide each row of CSR ``X`` by its norm, in place on ``X.data``.

    The l1 and l2 norms are accumulated in float64 and the values divided in
    float64 (scikit-learn's ``inplace_csr_row_normalize_l1/l2``); rows whose
    norm is exactly zero are left as they are. The max norm is taken in
    ``X``'s dtype.
    """
    X = canonical(X)
    rows, _ = sparse_coords(X, xp)
    data = X.data
    if norm == "max":
        norms = segment_max(rows, xp.abs(data), X.shape[0], xp=xp)
        norms = norms[rows]
        X.data[...] = xp.where(norms > 0, data / xp.where(norms > 0, norms, 1), data)
        return X
    if norm == "l1":
        sums = _row_sums(xp, rows, xp.abs(data).astype(xp.float64), X.shape[0])
    else:
        squares = (data * data).astype(xp.float64)
        sums = xp.sqrt(_row_sums(xp, rows, squares, X.shape[0]))
    sums = xp.where(sums == 0, 1.0, sums)
    X.data[...] = (data.astype(xp.float64) / sums[rows]).astype(data.dtype)
    return X


class Normalizer(
    DeviceCacheMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Normalize samples individually to unit norm.

    Each sample (row of the data matrix) with at least one non-zero
    component is rescaled independently of the other samples so that its
    norm (l1, l2 or max) equals one. Same API and results as
    :class:`sklearn.preprocessing.Normalizer`, computed on the GPU when one
    is used (see :func:`gpuml.set_config`); outputs come back in the family
    of the input. CSR matrices (and CSC ones, converted to CSR as
    scikit-learn does) stay sparse.

    Parameters
    ----------
    norm : {'l1', 'l2', 'max'}, default='l2'
        The norm to use to normalize each non zero sample. If norm='max'
        is used, values will be rescaled by the maximum of the absolute
        values.

    copy : bool, default=True
        If False, normalize in place where the input is already a writeable
        float array (or CSR matrix) of the compute namespace.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.Normalizer : The scikit-learn estimator.

    Notes
    -----
    This estimator is stateless: :meth:`fit` only validates its parameters
    and the data. NaNs are refused, as by scikit-learn.

    Examples
    --------
    >>> from gpuml.preprocessing import Normalizer
    >>> X = [[4, 1, 2, 2],
    ...      [1, 3, 9, 3],
    ...      [5, 7, 5, 1]]
    >>> transformer = Normalizer().fit(X)
    >>> print(transformer.transform(X))
    [[0.8 0.2 0.4 0.4]
     [0.1 0.3 0.9 0.3]
     [0.5 0.7 0.5 0.1]]
    """

    _parameter_constraints: dict = {
        "norm": [StrOptions({"l1", "l2", "max"})],
        "copy": ["boolean"],
    }

    def __init__(self, norm="l2", *, copy=True):
        self.norm = norm
        self.copy = copy

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Only validate the parameters and the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data; its number of features (and names) is recorded.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        validate_data(self, X, xp=compute_namespace(), accept_sparse="csr")
        # No fitted arrays; the mixin marks a gpuml estimator, which a
        # search feeds data on the device (gpuml.base.accepts_device_input).
        self._reset_device_cache()
        return self

    def transform(self, X, copy=None):
        """Scale each non zero row of ``X`` to unit norm.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to normalize, row by row.

        copy : bool, default=None
            Copy the input X or not; None uses the ``copy`` parameter.

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Transformed array, in the family (host or device) of ``X``.
        """
        copy = self.copy if copy is None else copy
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=_FLOAT_DTYPES
        )
        if not _may_overwrite(X, X_in, copy):
            X = X.copy()
        if is_sparse(X):
            X = normalize_csr(X, self.norm, xp=xp)
        else:
            X = normalize_dense(X, self.norm, xp=xp)
        columns = list(X_in.columns) if hasattr(X_in, "columns") else None
        X = into_input(to_family(X, family), X_in, copy)
        return to_output(X, X_in, lambda: columns)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = False
        return tags
