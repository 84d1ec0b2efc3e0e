"""What KNeighborsClassifier and KNeighborsRegressor share.

``fit`` validates ``X`` and ``y`` with scikit-learn's rules and messages (in
the estimator's own name), then fits a :class:`NearestNeighbors` of the same
parameters: on the GPU, gpuml's exact float64 search (equal distances
ordered by index) for dense data and the metrics it computes; elsewhere
(the CPU, sparse data, other metrics) scikit-learn's own search with the
same ``algorithm``, so that the neighbours, ties included, are those
scikit-learn's estimators find. The vote or the average over the neighbours
is computed in the compute namespace ``xp`` by the functions of
``_classification.py`` and ``_regression.py``, which follow scikit-learn's
arithmetic step by step (the same sums in the same order on the CPU).

**Batched candidates.** ``n_neighbors`` and ``weights`` are batch
parameters: a search fits one model per fold at the largest ``n_neighbors``
of the batch and answers every candidate from one search of the fold's rows
(:class:`FoldNeighbours`): the ``k`` nearest are the first ``k`` of the
largest-``k`` result. That prefix is exactly what a search for ``k`` returns
where the ``k``-th and ``k + 1``-th distances differ; where they are equal
the choice among the tied rows is the search's own. gpuml's device search
orders them by index, so its prefix is its ``k``-search's answer; for
scikit-learn's searches (trees, or ``argpartition``) a candidate whose
boundary is tied in some row is searched again at its own ``k``, so that
every candidate gets the neighbours its own fit would. ``algorithm="auto"``
picks a tree or brute force by ``n_neighbors`` too (brute force from half
the fitted rows): candidates on each side of that line share one search per
side.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, clone
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from gpuml._array import (
    input_family,
    input_namespace,
    namespace_of,
    take_rows,
    to_family,
    to_host,
    to_namespace,
)
from gpuml._sklearn_compat import (
    is_index,
    sklearn_kneighbors_mixin,
    validate_estimator_params,
)
from gpuml._validation import check_y, validate_data
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.neighbors._unsupervised import NearestNeighbors

# The parameters passed on to NearestNeighbors (besides n_neighbors).
_SEARCH_PARAMS = ("algorithm", "leaf_size", "metric", "p", "metric_params", "n_jobs")

ZERO_WEIGHTS = (
    "All neighbors of some sample is getting zero weights. "
    "Please modify 'weights' to avoid this case if you are "
    "using a user-defined function."
)


def get_weights(dist, weights, xp: ModuleType):
    """scikit-learn's ``_get_weights``: None for uniform weights, inverse
    distances for ``"distance"`` (a query at distance zero from some fitted
    rows gives them weight 1 and the others 0), else ``weights(dist)``: a
    user's function, written for NumPy as scikit-learn documents it, gets the
    distances as a NumPy array (its result returns to ``xp``)."""
    if weights in (None, "uniform"):
        return None
    if weights == "distance":
        with np.errstate(divide="ignore"):
            dist = 1.0 / dist
        inf_mask = xp.isinf(dist)
        inf_row = xp.any(inf_mask, axis=1)
        return xp.where(inf_row[:, None], inf_mask.astype(dist.dtype), dist)
    return to_namespace(np.asarray(weights(to_host(dist))), xp)


def check_some_weight(weights, xp: ModuleType) -> None:
    """scikit-learn's error for a row of weights that are all zero."""
    if weights is not None and bool(xp.any(xp.all(weights == 0, axis=1))):
        raise ValueError(ZERO_WEIGHTS)


class KNeighborsBase(
    DeviceCacheMixin, sklearn_kneighbors_mixin(), MultiOutputMixin, BaseEstimator
):
    """Parameters, ``fit``, ``kneighbors``, ``kneighbors_graph`` and the
    batched-candidates protocol of the k-nearest-neighbours estimators.
    Subclasses store their targets (``_store_targets``) and answer a batch
    (``_batch_model``). scikit-learn's ``KNeighborsMixin`` is a base only
    for ``issubclass`` checks (scikit-learn's tests pick ``n_neighbors``
    or ``radius`` by it): every method of it is overridden here."""

    def __init__(
        self,
        n_neighbors=5,
        *,
        weights="uniform",
        algorithm="auto",
        leaf_size=30,
        p=2,
        metric="minkowski",
        metric_params=None,
        n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def _fit(self, X, y):
        self._reset_device_cache()
        self._family = input_family(X)
        if is_index(X) or isinstance(X, NearestNeighbors):
            # a fitted index (scikit-learn's trees or neighbours estimators),
            # searched by scikit-learn as its estimators search it
            y = check_y(y, xp=np, multi_output=True, estimator=self)
        else:
            # X, then y (scikit-learn's check_X_y), each where it lives: the
            # labels stay on the host for device data (a device cannot hold
            # strings)
            if y is None:
                check_y(None, xp=np, estimator=self)  # scikit-learn's error
            X = validate_data(
                self,
                X,
                xp=input_namespace(X),
                accept_sparse="csr",
                allow_nan=self.metric == "nan_euclidean",
            )
            y = check_y(y, xp=input_namespace(y), multi_output=True, estimator=self)
            check_consistent_length(X, y)
        self._store_targets(y)
        params = {name: getattr(self, name) for name in _SEARCH_PARAMS}
        self._nn = NearestNeighbors(
            n_neighbors=self.n_neighbors, engine="gpuml", **params
        ).fit(X)
        self.n_samples_fit_ = self._nn.n_samples_fit_
        self.effective_metric_ = self._nn.effective_metric_
        self.effective_metric_params_ = self._nn.effective_metric_params_
        return self

    @property
    def _fit_method(self) -> str:
        """scikit-learn's name of the search: ``"brute"`` on the GPU, else
        that of scikit-learn's search (``"kd_tree"``, ``"ball_tree"``...)."""
        nn = self.__dict__.get("_nn")
        if nn is None:
            raise AttributeError("_fit_method")
        return nn._fit_method

    def _query(self, X):
        """Query rows validated as scikit-learn's ``kneighbors`` validates
        them (None stays None; a precomputed matrix is checked by the
        search)."""
        if X is None or self.metric == "precomputed":
            return X
        return validate_data(
            self,
            X,
            xp=input_namespace(X),
            reset=False,
            accept_sparse="csr",
            allow_nan=self.metric == "nan_euclidean",
        )

    def _neighbors_xp(self, X, xp: ModuleType, return_distance=True):
        """``(distances or None, indices)`` of ``X``'s ``n_neighbors``
        nearest fitted rows, in ``xp``."""
        check_is_fitted(self)
        result = self._nn._kneighbors(self._query(X), self.n_neighbors, return_distance)
        if not return_distance:
            return None, to_namespace(result, xp)
        return tuple(to_namespace(r, xp) for r in result)

    def _output_family(self, X) -> str:
        return self._family if X is None else input_family(X)

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Find the K-neighbors of a point.

        Returns indices of and distances to the neighbors of each point.

        Parameters
        ----------
        X : {array-like, sparse matrix}, shape (n_queries, n_features), \
            or (n_queries, n_indexed) if metric == 'precomputed', default=None
            The query point or points (host or device family). If not
            provided, neighbors of each indexed point are returned, the point
            itself not counted as its own neighbor.
        n_neighbors : int, default=None
            Number of neighbors required for each sample. The default is the
            value passed to the constructor.
        return_distance : bool, default=True
            Whether or not to return the distances.

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries, n_neighbors)
            Distances to the neighbors, if ``return_distance``.
        neigh_ind : ndarray of shape (n_queries, n_neighbors)
            Indices of the nearest points in the population matrix. Both in
            the family of ``X`` (of the training data when ``X`` is None).
        """
        check_is_fitted(self)
        family = self._output_family(X)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        result = self._nn._kneighbors(self._query(X), k, return_distance)
        if not return_distance:
            return to_family(result, family)
        return tuple(to_family(r, family) for r in result)

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """Compute the (weighted) graph of k-Neighbors for points in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features), \
            or (n_queries, n_indexed) if metric == 'precomputed', default=None
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
            ``A[i, j]`` is the weight of the edge from ``i`` to ``j``.
        """
        check_is_fitted(self)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        return self._nn.kneighbors_graph(self._query(X), k, mode)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = tags.input_tags.pairwise
        tags.input_tags.allow_nan = self.metric == "nan_euclidean"
        return tags

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _batch_params(self) -> frozenset:
        """``{"n_neighbors", "weights"}``: every candidate of a fold from one
        neighbour search at the largest ``n_neighbors``; none for a
        precomputed metric (the protocol's folds are rows of ``X``, a
        distance matrix's folds are blocks)."""
        if self.metric == "precomputed":
            return frozenset()
        return frozenset({"n_neighbors", "weights"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One batch model per fold (``folds``: training rows, host int64;
        None: all rows) answering every candidate of ``param_sets`` (values
        of ``n_neighbors`` and ``weights``) from one neighbour search of the
        rows it is given (see the module's docstring)."""
        if sample_weight is not None:
            raise BatchUnsupported("k-nearest neighbours take no sample_weight")
        if self.metric == "precomputed":
            raise BatchUnsupported("a precomputed metric's folds are blocks")
        candidates = []
        for params in param_sets:
            candidate = clone(self).set_params(**params)
            validate_estimator_params(candidate)
            candidates.append(candidate)
        if any(c.n_neighbors is None for c in candidates):
            raise BatchUnsupported("n_neighbors=None")
        ks = [c.n_neighbors for c in candidates]
        for train in [None] if folds is None else folds:
            if train is None:
                X_fold, y_fold = X, y
            else:
                rows = np.asarray(train, dtype=np.int64)
                X_fold = _rows(X, rows)
                y_fold = _rows(y, rows)
            fold = FoldNeighbours(self, X_fold, y_fold, ks)
            yield self._batch_model(fold, candidates)

    def _batch_model(self, fold, candidates):  # pragma: no cover - abstract
        raise NotImplementedError


def _rows(values, rows: np.ndarray):
    """``values[rows]`` where ``values`` live."""
    xp = namespace_of(values)
    return take_rows(values, to_namespace(rows, xp), xp)


class FoldNeighbours:
    """One fold's neighbour search shared by candidates that differ in
    ``n_neighbors`` (and ``weights``).

    ``FoldNeighbours(estimator, X, y, ks)`` fits ``estimator`` at the
    largest of ``ks`` on the fold's rows (``base``: its labels, classes and
    search serve every candidate); calling it with query rows gives
    ``{k: (distances, indices)}`` for every ``k`` of ``ks`` (arrays where the
    search computed them), the same neighbours as a fit at ``k`` would give
    (see the module's docstring). The last query's answer is kept, so that
    the scorers of one fold share one search.
    """

    def __init__(self, estimator, X, y, ks):
        ks = sorted(set(ks))
        base = clone(estimator).set_params(n_neighbors=ks[-1], weights="uniform")
        self.base = base.fit(X, y)
        self.groups = [(self.base, ks)]
        if estimator.algorithm == "auto" and self.base._fit_method == "brute":
            # scikit-learn's "auto" takes brute force from n_neighbors >=
            # n_samples // 2 (NeighborsBase._fit); below it a tree may be
            # its choice, whose ties fall otherwise
            small = [k for k in ks if k < self.base.n_samples_fit_ // 2]
            if small and len(small) < len(ks):
                other = clone(base).set_params(n_neighbors=small[-1]).fit(X, y)
                if other._fit_method != "brute":
                    large = ks[len(small) :]
                    self.groups = [(other, small), (self.base, large)]
        self._last = None

    def __call__(self, X) -> dict:
        if self._last is not None and self._last[0] is X:
            return self._last[1]
        query = self.base._query(X)
        found = {}
        for model, ks in self.groups:
            nn, top = model._nn, ks[-1]
            dist, ind = nn._kneighbors(query, top, True)
            exact_prefix = nn._searches_on_device(query, top)
            for k in ks:
                answer = dist[:, :k], ind[:, :k]
                if k < top and not exact_prefix:
                    tied = dist[:, k - 1] == dist[:, k]
                    if bool(tied.any()):
                        answer = _search_again(model, query, k, tied, answer)
                found[k] = answer
        self._last = (X, found)
        return found

    def neighbours_xp(self, X, k: int, xp: ModuleType):
        """``(distances, indices)`` of candidate ``k`` in ``xp``."""
        dist, ind = self(X)[k]
        return to_namespace(dist, xp), to_namespace(ind, xp)


def _search_again(model, query, k: int, tied, prefix):
    """The ``k`` nearest neighbours of ``query`` by ``model``'s own search,
    for a prefix of a larger search (``prefix``: host arrays) whose rows
    ``tied`` have equal distances at the ``k``-th and ``k + 1``-th
    neighbour. A tree answers each query row on its own, so only the tied
    rows are searched again; scikit-learn's brute force computes distances
    by blocks of rows (products whose rounding may depend on the block), so
    all of them are."""
    nn = model._nn
    if model._fit_method not in ("kd_tree", "ball_tree"):
        return nn._kneighbors(query, k, True)
    rows = np.flatnonzero(to_host(tied))
    dist, ind = (np.array(a) for a in prefix)
    dist[rows], ind[rows] = nn._kneighbors(
        query[to_namespace(rows, namespace_of(query))], k, True
    )
    return dist, ind
