""":class:`KBinsDiscretizer`: bin continuous features into intervals.

It subclasses scikit-learn's class, so that parameter validation, ``fit``
(the bin edges of every strategy: uniform, quantile with its
``quantile_method``, k-means; ``subsample``; ``sample_weight``; the removal
of too narrow bins and its warning), ``inverse_transform``,
``get_feature_names_out`` and their error messages are scikit-learn's own.

``fit`` runs on the host: device data are copied there once and
scikit-learn finds the edges (a handful of numbers per feature; the
k-means strategy runs scikit-learn's ``KMeans`` on one column at a time).
``bin_edges_`` and ``n_bins_`` are therefore NumPy arrays whatever the
family of the training data.

``transform`` of a numeric NumPy or CuPy array runs in the compute
namespace ``xp`` (see :func:`gpuml.set_config`): each column's bin is
``searchsorted(bin_edges_[j][1:-1], X[:, j], side="right")``, as
scikit-learn computes it (the values cast to the output dtype first, then
compared in float64, the edges' dtype), and the one-hot
encodings are built from those bins by :mod:`gpuml.preprocessing._encoders`'
kernels (a CSR matrix of one stored 1 a row and feature, or the dense scatter
of the same). Device data stay on the device: CuPy in, CuPy (or cupyx CSR)
out. Other inputs (lists, pandas frames, sparse matrices) take
scikit-learn's host code.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.preprocessing import KBinsDiscretizer as _SkKBinsDiscretizer
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_namespace,
    to_output,
)
from gpuml._backend import is_cupy_object
from gpuml._sklearn_compat import check_feature_names, check_n_features
from gpuml._validation import check_array
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._encoders import (
    _host_input,
    _in_family,
    csr_in_family,
    one_hot,
)


def bin_columns(X, inner_edges, xp: ModuleType):
    """The bin of each value of ``X`` (an ``xp`` int64 array of its shape).

    ``inner_edges[j]`` is the ``xp`` float64 array ``bin_edges_[j][1:-1]``;
    a value equal to an edge goes to the bin on its right, values below the
    first edge to bin 0 and above the last to the last bin (scikit-learn's
    ``searchsorted(..., side="right")``, compared in float64).
    """
    codes = xp.empty(X.shape, dtype=xp.int64)
    for j, edges in enumerate(inner_edges):
        if edges.shape[0] == 0:  # one bin (all others too narrow)
            codes[:, j] = 0
            continue
        column = X[:, j].astype(xp.float64, copy=False)
        codes[:, j] = xp.searchsorted(edges, column, side="right")
    return codes


class KBinsDiscretizer(DeviceCacheMixin, _SkKBinsDiscretizer):
    """Bin continuous data into intervals.

    scikit-learn's :class:`sklearn.preprocessing.KBinsDiscretizer` (same
    parameters, attributes, results and errors; it is its subclass), whose
    :meth:`transform` of numeric arrays runs on the GPU when one is used
    (see :func:`gpuml.set_config`) and returns data in the family of the
    input: NumPy (or a SciPy CSR array) for host data, CuPy (or a cupyx CSR
    matrix) for device data. ``fit`` runs scikit-learn's code on the host
    (device data are copied there once); the fitted attributes are NumPy
    arrays.

    Parameters
    ----------
    n_bins : int or array-like of shape (n_features,), default=5
        The number of bins (at least 2), for all features or per feature.

    encode : {'onehot', 'onehot-dense', 'ordinal'}, default='onehot'
        The encoding of the bins: one-hot as a CSR matrix (a cupyx one for
        device data), one-hot as a dense array, or the bin index as a
        float.

    strategy : {'uniform', 'quantile', 'kmeans'}, default='quantile'
        How the edges are found: equal widths, equal numbers of samples,
        or one-dimensional k-means per feature.

    quantile_method : {"inverted_cdf", "averaged_inverted_cdf", \
"closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", \
"linear", "median_unbiased", "normal_unbiased"}, \
default="averaged_inverted_cdf"
        The quantile method of ``strategy='quantile'`` (NumPy's names;
        with ``sample_weight``, "inverted_cdf" and "averaged_inverted_cdf"
        only, unless subsampling).

    dtype : {np.float32, np.float64}, default=None
        The output's dtype; None keeps float32 input float32 and gives
        float64 for the rest.

    subsample : int or None, default=200_000
        The most samples used to find the edges (a random subset of them);
        None uses them all.

    random_state : int, RandomState instance or None, default=None
        The random subset of ``subsample`` and the k-means initialisation.

    Attributes
    ----------
    bin_edges_ : ndarray of ndarray of shape (n_features,)
        The edges of each feature's bins (NumPy arrays of ``n_bins_[j] + 1``
        increasing values).

    n_bins_ : ndarray of shape (n_features,), dtype=np.int64
        The number of bins per feature (fewer than asked where bins too
        narrow were removed).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.KBinsDiscretizer : The scikit-learn estimator.
    OneHotEncoder : One-hot encoding of categorical features.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import KBinsDiscretizer
    >>> X = np.array([[-2, 1, -4, -1], [-1, 2, -3, -0.5],
    ...               [0, 3, -2, 0.5], [1, 4, -1, 2]])
    >>> est = KBinsDiscretizer(n_bins=3, encode='ordinal',
    ...                        strategy='uniform').fit(X)
    >>> est.transform(X)
    array([[0., 0., 0., 0.],
           [1., 1., 1., 0.],
           [2., 2., 2., 1.],
           [2., 2., 2., 2.]])
    >>> est.bin_edges_[0]
    array([-2., -1.,  0.,  1.])
    >>> est.inverse_transform([[0., 1., 2., 0.]])
    array([[-1.5,  2.5, -1.5, -0.5]])
    """

    # Small host structures read by scikit-learn's methods: left on the host
    # when a search moves a fitted model to the device family.
    _host_attributes = ("bin_edges_", "n_bins_", "feature_names_in_")

    def fit(self, X, y=None, sample_weight=None):
        """Fit the estimator: scikit-learn's ``fit`` on the host.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to be discretized (NumPy, pandas, CuPy: device data are
            copied to the host once).

        y : None
            Ignored.

        sample_weight : ndarray of shape (n_samples,)
            The weight of each sample in the quantiles and k-means (None:
            equal weights).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        self._reset_device_cache()
        if sample_weight is not None:
            sample_weight = _host_input(sample_weight)
        return super().fit(_host_input(X), y, sample_weight=sample_weight)

    def _computes_on_device(self, X) -> bool:
        """Whether ``X`` takes the ``xp`` path: a 2-D NumPy or CuPy array of
        integers or floats."""
        array = isinstance(X, np.ndarray) and not isinstance(X, np.matrix)
        if not (array or (is_cupy_object(X) and not is_sparse(X))):
            return False
        return X.ndim == 2 and X.dtype.kind in "iuf"

    def _inner_edges(self, xp: ModuleType):
        """``bin_edges_[j][1:-1]`` per feature as ``xp`` float64 arrays,
        cached per namespace."""
        cache = self.__dict__.setdefault("_gpuml_cache", {})
        key = ("inner_edges", xp.__name__)
        hit = cache.get(key)
        if hit is not None and hit[0] is self.bin_edges_:
            return hit[1]
        edges = [
            to_namespace(np.asarray(e[1:-1], dtype=np.float64), xp)
            for e in self.bin_edges_
        ]
        cache[key] = (self.bin_edges_, edges)
        return edges

    def transform(self, X):
        """Discretize the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to be discretized.

        Returns
        -------
        Xt : {ndarray, sparse matrix}, dtype={np.float32, np.float64}
            Data in the binned space, in the family of `X`: a CSR matrix if
            ``encode='onehot'``, else a dense array.
        """
        check_is_fitted(self)
        family = input_family(X)
        if not self._computes_on_device(X):
            result = _SkKBinsDiscretizer.transform.__wrapped__(self, _host_input(X))
            return to_output(_in_family(result, family), X, self.get_feature_names_out)
        xp = compute_namespace()
        X_in = X
        X = check_array(X, xp=xp, dtype=None, estimator=self, input_name="X")
        check_feature_names(self, X_in, reset=False)
        check_n_features(self, X, reset=False)
        if self.dtype is not None:
            dtype = np.dtype(self.dtype)
        elif X.dtype == np.float32:
            dtype = np.dtype(np.float32)
        else:
            dtype = np.dtype(np.float64)
        # as scikit-learn: the values in the output dtype, compared in float64
        codes = bin_columns(X.astype(dtype, copy=False), self._inner_edges(xp), xp)
        names = self.get_feature_names_out
        if self.encode == "ordinal":
            return to_output(to_family(codes.astype(dtype), family), X_in, names)
        offsets = np.cumsum([0, *(int(n) for n in self.n_bins_)])
        n_out = int(offsets[-1])
        known = xp.ones(codes.shape, dtype=bool)
        sparse_output = self.encode == "onehot"
        result = one_hot(
            codes,
            known,
            offsets[:-1],
            n_out,
            dtype=dtype,
            sparse_output=sparse_output,
            xp=xp,
        )
        if sparse_output:
            return csr_in_family(*result, (X.shape[0], n_out), dtype, family)
        return to_output(to_family(result, family), X_in, names)

    def inverse_transform(self, X):
        """Transform discretized data back to original feature space.

        scikit-learn's, on the host (the bin centres); the result is in the
        family of `X`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Transformed data in the binned space.

        Returns
        -------
        X_original : ndarray, dtype={np.float32, np.float64}
            Data in the original feature space.
        """
        family = input_family(X)
        return _in_family(super().inverse_transform(_host_input(X)), family)
