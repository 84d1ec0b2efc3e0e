"""Polynomial and interaction features: :class:`PolynomialFeatures`.

Dense data take scikit-learn's one pass over the combinations, written
against an array namespace ``xp`` (NumPy or CuPy): each block of degree
``d`` is the block of degree ``d - 1`` times one input column, broadcast,
so every output column is one product of two columns (``x0^3`` is
``x0^2 * x0``), computed in scikit-learn's order of operations.

Sparse data (CSR, and CSC through CSR) are expanded without densifying, by
the idea of scikit-learn's CSR kernel (Nystrom and Hughes' "K-simplex
numbers") generalised to any degree and vectorised: for each degree ``D``
the products of ``D`` stored entries of a row are enumerated in
lexicographic order by extending each partial product once per stored
entry after its last (its parent found by a ``searchsorted`` of the
running count of extensions), and each product's output column is
its rank among the ``D``-combinations of the features, summed term by term
from binomial coefficients (:func:`_n_combinations`). No Python loop over
rows, columns or combinations: a handful of array operations per degree,
the same on the host and the device.
"""

from __future__ import annotations

import collections.abc
from itertools import chain, combinations
from itertools import combinations_with_replacement as combinations_w_r
from numbers import Integral
from types import ModuleType

import numpy as np
import scipy.sparse as sp
from scipy.special import comb
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    input_namespace,
    is_sparse,
    namespace_of,
    to_family,
    to_output,
)
from gpuml._backend import import_cupyx
from gpuml._linalg import sparse_coords
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    align_sparse_output,
    check_feature_names_in,
    fit_context,
)
from gpuml._validation import validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._data import _FLOAT_DTYPES
from gpuml.preprocessing._scalers import canonical

# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def _n_combinations(m, r: int, interaction_only: bool):
    """The number of ``r``-combinations of ``m`` features (an int array
    ``m``, elementwise): with repetition ``C(m + r - 1, r)``, without
    ``C(m, r)``.

    Exact in integers: after step ``k`` the running value is a binomial
    coefficient (a product of ``k`` consecutive integers divided by ``k!``),
    and each step divides before it multiplies (``k / gcd(out, k)``
    divides the new factor), so nothing overflows that the result does not.
    """
    xp = namespace_of(m)
    top = m + (r - 1) if not interaction_only else m
    out = xp.ones_like(m)
    for k in range(1, r + 1):
        g = xp.gcd(out, k)
        out = (out // g) * ((top - r + k) // (k // g))
    return out


def expand_dense(X, out, *, max_degree: int, interaction_only: bool, bias: bool, xp):
    """Write the polynomial features of degrees ``0..max_degree`` of ``X``
    into ``out`` (``n_samples x n_out_full``), scikit-learn's dense loop.

    ``out[:, start:end]`` of degree ``d - 1`` excluding features below
    ``j``, times column ``j`` of ``X``, gives the degree-``d`` terms whose
    lowest feature is ``j``.
    """
    n_features = X.shape[1]
    col = 0
    if bias:
        out[:, 0] = 1
        col = 1
    if max_degree == 0:
        return out
    out[:, col : col + n_features] = X
    index = list(range(col, col + n_features))
    col += n_features
    index.append(col)
    for _ in range(2, max_degree + 1):
        new_index = []
        end = index[-1]
        for j in range(n_features):
            start = index[j]
            new_index.append(col)
            if interaction_only:
                start += index[j + 1] - index[j]
            next_col = col + end - start
            if next_col <= col:
                break
            xp.multiply(out[:, start:end], X[:, j : j + 1], out=out[:, col:next_col])
            col = next_col
        new_index.append(col)
        index = new_index
    return out


def _expand_degree(
    rows,
    cols,
    data,
    row_end,
    degree: int,
    n_features: int,
    interaction_only: bool,
    *,
    xp: ModuleType,
):
    """``(rows, columns, values)`` of the degree-``degree`` block of a
    canonical CSR matrix's expansion (columns counted from the block's
    start), sorted by row then column.

    A partial product is ``(row, last stored position, rank so far,
    value)``; it is extended by every stored position of its row after its
    last (from the last itself, with repetition), in order, so that the
    products come out in lexicographic order of their positions, which is
    the order of their output columns.
    """
    n = xp.full(1, n_features, dtype=xp.int64)
    pos = xp.arange(rows.shape[0], dtype=xp.int64)
    feature = cols[pos].astype(xp.int64)
    rank = _n_combinations(n, degree, interaction_only) - _n_combinations(
        n - feature, degree, interaction_only
    )
    term_rows, value = rows, data
    for step in range(2, degree + 1):
        r = degree - step + 1
        first = pos + 1 if interaction_only else pos
        counts = xp.maximum(row_end[term_rows] - first, 0)
        ends = xp.cumsum(counts)
        total = int(ends[-1]) if ends.shape[0] else 0
        # each new product's parent (CuPy's repeat takes no array of counts)
        parent = xp.searchsorted(ends, xp.arange(total, dtype=xp.int64), side="right")
        starts = ends - counts
        q = first[parent] + (xp.arange(total, dtype=xp.int64) - starts[parent])
        low = feature[parent] + (1 if interaction_only else 0)
        feature = cols[q].astype(xp.int64)
        rank = (
            rank[parent]
            + _n_combinations(n - low, r, interaction_only)
            - _n_combinations(n - feature, r, interaction_only)
        )
        value = value[parent] * data[q]
        term_rows = term_rows[parent]
        pos = q
    return term_rows, rank, value


def expand_csr(
    X,
    *,
    min_degree: int,
    max_degree: int,
    interaction_only: bool,
    bias: bool,
    xp: ModuleType,
):
    """``(data, indices, indptr, n_columns)`` of the polynomial features
    of degrees ``min_degree..max_degree`` (and the bias column) of CSR
    ``X``, in scikit-learn's column order; every product of stored entries
    is stored (explicit zeros too), as by scikit-learn's CSR kernel."""
    X = canonical(X)
    if not getattr(X, "has_sorted_indices", True):
        X = X.copy()
        X.sort_indices()
    n_samples, n_features = X.shape
    rows, cols = sparse_coords(X, xp)
    rows = rows.astype(xp.int64)
    indptr = X.indptr.astype(xp.int64)
    row_end = indptr[1:]
    blocks = []
    offset = 0
    if bias:
        blocks.append(
            (
                xp.arange(n_samples, dtype=xp.int64),
                xp.zeros(n_samples, dtype=xp.int64),
                xp.ones(n_samples, dtype=X.dtype),
            )
        )
        offset = 1
    for degree in range(max(1, min_degree), max_degree + 1):
        width = int(
            comb(
                n_features + (0 if interaction_only else degree - 1), degree, exact=True
            )
        )
        if width == 0:
            continue
        block_rows, block_cols, values = _expand_degree(
            rows, cols, X.data, row_end, degree, n_features, interaction_only, xp=xp
        )
        blocks.append((block_rows, block_cols + offset, values))
        offset += width
    if blocks:
        out_rows = xp.concatenate([b[0] for b in blocks])
        out_cols = xp.concatenate([b[1] for b in blocks])
        out_data = xp.concatenate([b[2] for b in blocks]).astype(X.dtype, copy=False)
    else:
        out_rows = out_cols = xp.zeros(0, dtype=xp.int64)
        out_data = xp.zeros(0, dtype=X.dtype)
    order = xp.lexsort(xp.stack([out_cols, out_rows]))
    counts = (
        xp.bincount(out_rows, minlength=n_samples)
        if out_rows.shape[0]
        else (xp.zeros(n_samples, dtype=xp.int64))
    )
    out_indptr = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(counts)])
    index_dtype = xp.int32 if max(offset, out_rows.shape[0]) < 2**31 else xp.int64
    return (
        out_data[order],
        out_cols[order].astype(index_dtype),
        out_indptr.astype(index_dtype),
        offset,
    )


def _csr(xp: ModuleType, parts, shape):
    """A SciPy or cupyx CSR matrix of ``(data, indices, indptr)``."""
    if xp is np:
        return sp.csr_matrix(parts, shape=shape)
    return import_cupyx("scipy.sparse").csr_matrix(parts, shape=shape)


# --------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------


class PolynomialFeatures(DeviceCacheMixin, TransformerMixin, BaseEstimator):
    """Generate polynomial and interaction features.

    A new feature matrix of all polynomial combinations of the features
    with degree less than or equal to the specified degree: for a sample
    ``[a, b]`` the degree-2 features are ``[1, a, b, a^2, ab, b^2]``. Same
    API, results, column order and feature names as
    :class:`sklearn.preprocessing.PolynomialFeatures`, computed on the GPU
    when one is used (see :func:`gpuml.set_config`), outputs in the family
    of the input. CSR and CSC matrices stay sparse (in their format).

    Parameters
    ----------
    degree : int or tuple (min_degree, max_degree), default=2
        The maximal degree of the polynomial features, or the minimum and
        maximum. ``min_degree=0`` and ``min_degree=1`` are equivalent: the
        degree zero term is set by ``include_bias``.

    interaction_only : bool, default=False
        If True, only products of at most ``degree`` *distinct* features
        are produced (no ``x[0] ** 2``).

    include_bias : bool, default=True
        If True, include a column of ones (the feature in which all powers
        are zero).

    order : {'C', 'F'}, default='C'
        Order of the output array in the dense case (on either device).

    Attributes
    ----------
    powers_ : ndarray of shape (`n_output_features_`, `n_features_in_`)
        ``powers_[i, j]`` is the exponent of the jth input in the ith
        output (a host array).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    n_output_features_ : int
        The total number of polynomial output features.

    See Also
    --------
    sklearn.preprocessing.PolynomialFeatures : The scikit-learn estimator.

    Notes
    -----
    The number of output features grows polynomially with the number of
    input features and exponentially with the degree. Sparse input is
    expanded by a vectorised generalisation of scikit-learn's CSR kernel
    to any degree (scikit-learn takes column products of CSC matrices from
    degree 4), so values agree and so does the format.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import PolynomialFeatures
    >>> X = np.arange(6).reshape(3, 2)
    >>> poly = PolynomialFeatures(2)
    >>> poly.fit_transform(X)
    array([[ 1.,  0.,  1.,  0.,  0.,  1.],
           [ 1.,  2.,  3.,  4.,  6.,  9.],
           [ 1.,  4.,  5., 16., 20., 25.]])
    >>> poly = PolynomialFeatures(interaction_only=True)
    >>> poly.fit_transform(X)
    array([[ 1.,  0.,  1.,  0.],
           [ 1.,  2.,  3.,  6.],
           [ 1.,  4.,  5., 20.]])
    """

    _parameter_constraints: dict = {
        "degree": [Interval(Integral, 0, None, closed="left"), "array-like"],
        "interaction_only": ["boolean"],
        "include_bias": ["boolean"],
        "order": [StrOptions({"C", "F"})],
    }

    def __init__(
        self, degree=2, *, interaction_only=False, include_bias=True, order="C"
    ):
        self.degree = degree
        self.interaction_only = interaction_only
        self.include_bias = include_bias
        self.order = order

    # scikit-learn's private static helpers, with its signatures (its tests
    # call them on the class).
    @staticmethod
    def _combinations(
        n_features, min_degree, max_degree, interaction_only, include_bias
    ):
        choose = combinations if interaction_only else combinations_w_r
        terms = chain.from_iterable(
            choose(range(n_features), i)
            for i in range(max(1, min_degree), max_degree + 1)
        )
        if include_bias:
            terms = chain(choose(range(n_features), 0), terms)
        return terms

    @staticmethod
    def _num_combinations(
        n_features, min_degree, max_degree, interaction_only, include_bias
    ):
        """The number of terms :meth:`_combinations` gives, counted."""
        if interaction_only:
            total = sum(
                comb(n_features, i, exact=True)
                for i in range(max(1, min_degree), min(max_degree, n_features) + 1)
            )
        else:
            total = comb(n_features + max_degree, max_degree, exact=True) - 1
            if min_degree > 0:
                d = min_degree - 1
                total -= comb(n_features + d, d, exact=True) - 1
        return total + 1 if include_bias else total

    def _count(self, n_features: int, min_degree: int) -> int:
        return self._num_combinations(
            n_features,
            min_degree,
            self._max_degree,
            self.interaction_only,
            self.include_bias,
        )

    @property
    def powers_(self):
        """Exponent of each of the inputs in each output."""
        check_is_fitted(self)
        n = self.n_features_in_
        terms = self._combinations(
            n,
            self._min_degree,
            self._max_degree,
            self.interaction_only,
            self.include_bias,
        )
        return np.vstack([np.bincount(c, minlength=n) for c in terms])

    def get_feature_names_out(self, input_features=None):
        """Get output feature names for transformation.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input features: ``feature_names_in_`` (or ``x0, x1, ...``) when
            None; else they must match ``feature_names_in_`` if defined.

        Returns
        -------
        feature_names_out : ndarray of str objects
            Transformed feature names, such as ``"x0^2 x1"``.
        """
        powers = self.powers_
        input_features = check_feature_names_in(self, input_features)
        names = []
        for row in powers:
            (inds,) = np.nonzero(row)
            if len(inds):
                names.append(
                    " ".join(
                        f"{input_features[i]}^{row[i]}"
                        if row[i] != 1
                        else input_features[i]
                        for i in inds
                    )
                )
            else:
                names.append("1")
        return np.asarray(names, dtype=object)

    def _check_degree(self) -> None:
        """Set ``_min_degree`` and ``_max_degree``, with scikit-learn's errors."""
        degree = self.degree
        if isinstance(degree, Integral):
            if degree == 0 and not self.include_bias:
                raise ValueError(
                    "Setting degree to zero and include_bias to False would result in"
                    " an empty output array."
                )
            self._min_degree, self._max_degree = 0, degree
            return
        if isinstance(degree, collections.abc.Iterable) and len(degree) == 2:
            low, high = degree
            if not (
                isinstance(low, Integral)
                and isinstance(high, Integral)
                and 0 <= low <= high
            ):
                raise ValueError(
                    "degree=(min_degree, max_degree) must "
                    "be non-negative integers that fulfil "
                    "min_degree <= max_degree, got "
                    f"{degree}."
                )
            if high == 0 and not self.include_bias:
                raise ValueError(
                    "Setting both min_degree and max_degree to zero and include_bias to"
                    " False would result in an empty output array."
                )
            self._min_degree, self._max_degree = low, high
            return
        raise ValueError(
            "degree must be a non-negative int or tuple "
            f"(min_degree, max_degree), got {degree}."
        )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the number of output features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data (only its shape and names are used; it is checked in
            its own namespace, where it lives).

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        xp = input_namespace(X)
        n_features = validate_data(self, X, xp=xp, accept_sparse=("csr", "csc")).shape[
            1
        ]
        self._reset_device_cache()
        self._check_degree()
        self.n_output_features_ = self._count(n_features, self._min_degree)
        if self.n_output_features_ > np.iinfo(np.intp).max:
            raise ValueError(
                "The output that would result from the current configuration would"
                f" have {self.n_output_features_} features which is too large to be"
                f" indexed by {np.intp().dtype.name}. Please change some or all of the"
                " following:\n- The number of features in the input, currently"
                f" {n_features=}\n- The range of degrees to calculate, currently"
                f" [{self._min_degree}, {self._max_degree}]\n- Whether to include only"
                f" interaction terms, currently {self.interaction_only}\n- Whether to"
                f" include a bias term, currently {self.include_bias}."
            )
        self._n_out_full = self._count(n_features, 0)
        return self

    def transform(self, X):
        """Transform data to polynomial features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to transform, row by row. CSR and CSC matrices stay
            sparse.

        Returns
        -------
        XP : {ndarray, sparse matrix} of shape (n_samples, NP)
            The polynomial features, in the family (host or device) of
            ``X`` and its sparse format.
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
        )
        if is_sparse(X):
            fmt = X.format
            data, indices, indptr, width = expand_csr(
                X.tocsr() if fmt != "csr" else X,
                min_degree=self._min_degree,
                max_degree=self._max_degree,
                interaction_only=self.interaction_only,
                bias=self.include_bias,
                xp=xp,
            )
            XP = _csr(xp, (data, indices, indptr), (X.shape[0], width))
            XP = XP.asformat(fmt) if fmt != "csr" else XP
            return align_sparse_output(to_family(XP, family))
        XP = self._transform_dense(X, xp)
        return to_output(
            to_family(XP, family), X_in, lambda: list(self.get_feature_names_out())
        )

    def _transform_dense(self, X, xp: ModuleType):
        n_samples = X.shape[0]
        XP = xp.empty((n_samples, self._n_out_full), dtype=X.dtype, order=self.order)
        expand_dense(
            X,
            XP,
            max_degree=self._max_degree,
            interaction_only=self.interaction_only,
            bias=self.include_bias,
            xp=xp,
        )
        if self._min_degree <= 1:
            return XP
        n_full, n_out = self._n_out_full, self.n_output_features_
        if not self.include_bias:
            return xp.array(XP[:, n_full - n_out :], copy=True, order=self.order)
        out = xp.empty((n_samples, n_out), dtype=XP.dtype, order=self.order)
        out[:, 0] = 1
        out[:, 1:] = XP[:, n_full - n_out + 1 :]
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
