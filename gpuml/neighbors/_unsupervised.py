"""NearestNeighbors: scikit-learn's unsupervised neighbours search, exact,
on the GPU for dense data and the common metrics.

On a GPU, ``kneighbors`` and ``kneighbors_graph`` run
:func:`gpuml.neighbors._search.device_kneighbors` for dense data, at most
:data:`~gpuml.neighbors._search.MAX_DEVICE_K` neighbours and the metrics
"euclidean" (also "l2", "minkowski" with p=2), "manhattan" ("cityblock",
"l1", "minkowski" with p=1), "cosine", "correlation" and "precomputed".
Everything else (other metrics, sparse data, the CPU, the radius queries)
is scikit-learn's :class:`sklearn.neighbors.NearestNeighbors`, fitted on a
host copy when first needed.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors as _SkNearestNeighbors
from sklearn.utils.validation import check_is_fitted

from gpuml import _cuml
from gpuml._array import (
    DEVICE,
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
)
from gpuml._cuml import ENGINE_CONSTRAINT
from gpuml._sklearn_compat import (
    align_sparse_output,
    fit_context,
    is_index,
    nearest_neighbors_constraints,
    neighbors_fit_method,
)
from gpuml._validation import NUMERIC_FLOAT, validate_data
from gpuml.neighbors._search import (
    MAX_DEVICE_K,
    device_kneighbors,
    device_metric,
    drop_self,
)

_EFFECTIVE = {1: "manhattan", 2: "euclidean"}


class NearestNeighbors(BaseEstimator):
    """Unsupervised learner for implementing neighbor searches.

    scikit-learn's :class:`sklearn.neighbors.NearestNeighbors` (same
    parameters, attributes and results), with ``kneighbors`` and
    ``kneighbors_graph`` computed exactly on the GPU when one is in use,
    for dense data and the metrics euclidean, manhattan, cosine,
    correlation and precomputed.

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbors to use by default for :meth:`kneighbors` queries.
    radius : float, default=1.0
        Range of parameter space to use by default for
        :meth:`radius_neighbors` queries.
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        scikit-learn's algorithm, where scikit-learn computes (the GPU's
        search is always exact and brute force).
    leaf_size : int, default=30
        Leaf size passed to BallTree or KDTree (scikit-learn's search).
    metric : str or callable, default='minkowski'
        Metric to use for distance computation.
    p : float, default=2
        Parameter for the Minkowski metric.
    metric_params : dict, default=None
        Additional keyword arguments for the metric function.
    n_jobs : int, default=None
        The number of parallel jobs of scikit-learn's search.
    engine : {"auto", "gpuml", "cuml"}, default="auto"
        Whose kernels answer ``kneighbors`` on the GPU. ``"gpuml"``: gpuml's
        exact search in float64. ``"cuml"``: cuML's brute-force search
        (cuML must be installed; float32 data and the metrics euclidean,
        manhattan, cosine and correlation; distances computed in float32,
        so neighbours at nearly equal distances may come in another
        order). ``"auto"``: cuML's from 500,000 fitted float32 samples
        (where it measured 4x faster), else gpuml's (see :doc:`/rapids`).

    Attributes
    ----------
    effective_metric_ : str
        Metric used to compute distances to neighbors.
    effective_metric_params_ : dict
        Parameters for the metric used to compute distances to neighbors.
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when they are all
        strings.
    n_samples_fit_ : int
        Number of samples in the fitted data.
    engine_ : {"gpuml", "cuml"}
        The engine that answers ``kneighbors`` on the GPU.

    See Also
    --------
    sklearn.neighbors.NearestNeighbors : The scikit-learn estimator.

    Notes
    -----
    On a GPU, distances are computed in float64 (returned in the input's
    float dtype) and equal neighbours are ordered by index; scikit-learn
    orders ties as its selection leaves them, so indices can differ where
    distances are equal. ``radius_neighbors`` and
    ``radius_neighbors_graph`` return host arrays (ragged lists of
    neighbours), computed by scikit-learn. Device memory for a search: the
    data in float64, a score tile of at most 2 GB (a quarter of the free
    memory) and the results.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.neighbors import NearestNeighbors
    >>> samples = [[0, 0, 2], [1, 0, 0], [0, 0, 1]]
    >>> neigh = NearestNeighbors(n_neighbors=2).fit(samples)
    >>> distances, indices = neigh.kneighbors([[0, 0, 1.3]])
    >>> indices
    array([[2, 0]])
    >>> np.round(distances, 2)
    array([[0.3, 0.7]])
    """

    _parameter_constraints: dict = {
        **nearest_neighbors_constraints(),
        "engine": ENGINE_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        n_neighbors=5,
        radius=1.0,
        algorithm="auto",
        leaf_size=30,
        metric="minkowski",
        p=2,
        metric_params=None,
        n_jobs=None,
        engine="auto",
    ):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.n_jobs = n_jobs
        self.engine = engine

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the nearest neighbors estimator from the training dataset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples) if metric='precomputed'
            Training data (host or device family).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : NearestNeighbors
            The fitted nearest neighbors estimator.
        """
        xp = compute_namespace()
        self._metric = device_metric(self.metric, self.p, self.metric_params)
        self._host = None
        if isinstance(X, NearestNeighbors):  # a fitted index, as scikit-learn's
            X = X._host_model()
        self._family = input_family(X)
        if xp is np or self._metric is None or is_sparse(X) or is_index(X):
            if self.engine == "cuml":
                why = "search sparse data" if is_sparse(X) else None
                why = why or f"search with metric={self.metric!r} on the GPU"
                _cuml.choose_engine(self, xp, why, prefer_cuml=False)
            self.engine_ = "gpuml"
            host = self._sklearn_estimator()
            host.fit(to_host(X) if self._family == DEVICE else X)
            self._host, self._fit_X = host, None
            for name in ("n_features_in_", "feature_names_in_", "n_samples_fit_"):
                if hasattr(host, name):
                    setattr(self, name, getattr(host, name))
            self.effective_metric_ = host.effective_metric_
            self.effective_metric_params_ = host.effective_metric_params_
            return self
        # scikit-learn's rule (dtype="numeric": strings, even numeric ones,
        # are refused), then float64 for what is not float32 or float64
        X = validate_data(self, X, xp=xp, dtype=NUMERIC_FLOAT)
        if self._metric == "precomputed" and bool((X < 0).any()):
            raise ValueError(
                "Negative values in data passed to precomputed distance matrix."
            )
        unsupported = _cuml.kneighbors_unsupported(self._metric, X.dtype)
        prefer_cuml = _cuml.kneighbors_prefers_cuml(X.shape[0])
        self.engine_ = _cuml.choose_engine(self, xp, unsupported, prefer_cuml)
        self._fit_X = X
        self.n_samples_fit_ = X.shape[0]
        metric = self.metric
        if metric == "minkowski":
            p = (self.metric_params or {}).get("p", self.p)
            metric = _EFFECTIVE[p]
        self.effective_metric_ = metric
        self.effective_metric_params_ = {}
        return self

    @property
    def _fit_method(self) -> str:
        """scikit-learn's name of the search: ``"brute"`` for gpuml's device
        search, else that of scikit-learn's (``"kd_tree"``, ...)."""
        if "_fit_X" not in self.__dict__:
            raise AttributeError("_fit_method")
        if self._fit_X is not None:
            return "brute"
        return neighbors_fit_method(self._host)

    def _sklearn_estimator(self):
        """scikit-learn's NearestNeighbors with these parameters."""
        params = self.get_params()
        del params["engine"]
        return _SkNearestNeighbors(**params)

    def _host_model(self):
        """scikit-learn's estimator fitted on a host copy (made once)."""
        if self._host is None:
            self._host = self._sklearn_estimator().fit(to_host(self._fit_X))
        return self._host

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Find the K-neighbors of a point.

        Parameters
        ----------
        X : {array-like, sparse matrix}, shape (n_queries, n_features), \
            or (n_queries, n_indexed) if metric == 'precomputed', default=None
            The query points (host or device family). If not provided,
            neighbors of each indexed point are returned, the point itself
            not counted as its own neighbor.
        n_neighbors : int, default=None
            Number of neighbors required for each sample. The default is
            the value passed to the constructor.
        return_distance : bool, default=True
            Whether or not to return the distances.

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries, n_neighbors)
            Distances to the neighbors, if ``return_distance``.
        neigh_ind : ndarray of shape (n_queries, n_neighbors)
            Indices of the nearest points in the population matrix.
            Both in the family of ``X`` (of the training data when ``X`` is
            None).
        """
        check_is_fitted(self)
        family = self._family if X is None else input_family(X)
        result = self._kneighbors(X, n_neighbors, return_distance)
        if not return_distance:
            return to_family(result, family)
        return tuple(to_family(r, family) for r in result)

    def _searches_on_device(self, X, k) -> bool:
        """Whether a query of ``k`` neighbours of ``X`` (None: the fitted
        rows) runs gpuml's device search, whose equal distances are ordered
        by index (else scikit-learn's search on the host answers)."""
        return (
            self._fit_X is not None
            and compute_namespace() is not np
            and (X is None or not is_sparse(X))
            and isinstance(k, numbers.Integral)
            and 0 < k < MAX_DEVICE_K
        )

    def _kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """:meth:`kneighbors` with the results where they were computed
        (CuPy for gpuml's device search, NumPy for scikit-learn's): the
        search behind ``kneighbors`` and the k-nearest-neighbours
        estimators."""
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if not self._searches_on_device(X, k):
            host_X = None if X is None else to_host(X)
            return self._host_model().kneighbors(host_X, n_neighbors, return_distance)
        xp = compute_namespace()
        query_is_train = X is None
        if query_is_train:
            Q = self._fit_X
            k += 1
        else:
            Q = validate_data(self, X, xp=xp, reset=False, dtype=NUMERIC_FLOAT)
            if self._metric == "precomputed" and bool((Q < 0).any()):
                raise ValueError(
                    "Negative values in data passed to precomputed distance matrix."
                )
        if k > self.n_samples_fit_:
            if query_is_train:
                k -= 1
                inequality = "n_neighbors < n_samples_fit"
            else:
                inequality = "n_neighbors <= n_samples_fit"
            raise ValueError(
                f"Expected {inequality}, but n_neighbors = {k}, n_samples_fit = "
                f"{self.n_samples_fit_}, n_samples = {Q.shape[0]}"
            )
        if self.engine_ == "cuml":
            distances, indices = _cuml.kneighbors(
                self._fit_X, Q.astype(self._fit_X.dtype, copy=False), k, self._metric
            )
            distances = distances.astype(np.float64)  # as gpuml's search returns
        else:
            distances, indices = device_kneighbors(self._fit_X, Q, k, self._metric)
        if query_is_train:
            distances, indices = drop_self(to_host(distances), to_host(indices))
        if self._metric == "cosine" and Q.dtype == np.float32:
            # scikit-learn's cosine search keeps float32; its others give
            # float64 distances for any input
            distances = distances.astype(np.float32)
        return (distances, indices) if return_distance else indices

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """Compute the (weighted) graph of k-Neighbors for points in X.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            The query points (host or device family); None for the fitted
            points, each not its own neighbor.
        n_neighbors : int, default=None
            Number of neighbors for each sample. The default is the value
            passed to the constructor.
        mode : {'connectivity', 'distance'}, default='connectivity'
            Type of returned matrix: 'connectivity' returns the connectivity
            matrix with ones and zeros, 'distance' the distances between
            neighbors.

        Returns
        -------
        A : sparse matrix of shape (n_queries, n_samples_fit)
            CSR matrix (SciPy, or cupyx in the device family) where
            ``A[i, j]`` is the weight (1 or the distance) of the edge from
            ``i`` to ``j``.
        """
        check_is_fitted(self)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if mode == "connectivity":
            indices = self.kneighbors(X, k, return_distance=False)
            data = None
        elif mode == "distance":
            data, indices = self.kneighbors(X, k, return_distance=True)
        else:
            raise ValueError(
                'Unsupported mode, must be one of "connectivity", '
                f'or "distance" but got "{mode}" instead'
            )
        family = input_family(indices)
        indices = to_host(indices)
        n_queries, k = indices.shape
        data = np.ones(n_queries * k) if data is None else to_host(data).ravel()
        indptr = np.arange(0, n_queries * k + 1, k)
        shape = (n_queries, self.n_samples_fit_)
        graph = sp.csr_matrix((data, indices.ravel(), indptr), shape=shape)
        if family == HOST:
            return align_sparse_output(graph)
        return to_family(graph, family)

    def radius_neighbors(
        self, X=None, radius=None, return_distance=True, sort_results=False
    ):
        """Find the neighbors within a given radius of a point or points:
        scikit-learn's, on host copies (see
        :meth:`sklearn.neighbors.NearestNeighbors.radius_neighbors`).
        Returns host arrays."""
        check_is_fitted(self)
        X = None if X is None else to_host(X)
        return self._host_model().radius_neighbors(
            X, radius, return_distance, sort_results
        )

    def radius_neighbors_graph(
        self, X=None, radius=None, mode="connectivity", sort_results=False
    ):
        """Compute the (weighted) graph of Neighbors for points in X:
        scikit-learn's, on host copies (see
        :meth:`sklearn.neighbors.NearestNeighbors.radius_neighbors_graph`).
        Returns a SciPy CSR matrix."""
        check_is_fitted(self)
        X = None if X is None else to_host(X)
        return self._host_model().radius_neighbors_graph(X, radius, mode, sort_results)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags
