"""KNeighborsRegressor: scikit-learn's k-nearest-neighbours average, with
the neighbours found on the GPU when one is in use.

The average follows scikit-learn's arithmetic: uniform weights take the
mean of the neighbours' targets (``mean(y[ind], axis=1)``); distance or
callable weights divide, per output, the sum of weighted targets by the sum
of the weights. See ``_kneighbors.py`` for the search and the batched
candidates.
"""

from __future__ import annotations

from types import ModuleType

from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from gpuml._array import compute_namespace, to_family, to_output
from gpuml._sklearn_compat import fit_context, kneighbors_constraints
from gpuml.neighbors._kneighbors import KNeighborsBase, get_weights


def average(y, ind, weights, xp: ModuleType):
    """The neighbours' (weighted) average of the targets ``y`` ((n_fit,) or
    (n_fit, n_outputs)) for neighbour indices ``ind`` (n, k): (n,) or
    (n, n_outputs), as scikit-learn's ``KNeighborsRegressor.predict``."""
    Y = y.reshape((-1, 1)) if y.ndim == 1 else y
    if weights is None:
        y_pred = xp.mean(Y[ind], axis=1)
    else:
        y_pred = xp.empty((ind.shape[0], Y.shape[1]), dtype=xp.float64)
        denom = xp.sum(weights, axis=1)
        for j in range(Y.shape[1]):
            num = xp.sum(Y[ind, j] * weights, axis=1)
            y_pred[:, j] = num / denom
    return y_pred.ravel() if y.ndim == 1 else y_pred


class KNeighborsRegressor(RegressorMixin, KNeighborsBase):
    """Regression based on k-nearest neighbors.

    scikit-learn's :class:`sklearn.neighbors.KNeighborsRegressor` (same
    parameters, attributes and results): the target is predicted by the
    average of the targets of the nearest neighbours, found by
    :class:`gpuml.neighbors.NearestNeighbors`: exactly on the GPU when one
    is in use (dense data; metrics euclidean, manhattan, cosine, correlation
    and precomputed), by scikit-learn's search otherwise. In a gpuml
    search, the candidates that differ in ``n_neighbors`` and ``weights``
    share one neighbour search per fold.

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbors to use by default for :meth:`kneighbors` queries.
    weights : {'uniform', 'distance'}, callable or None, default='uniform'
        Weight function used in prediction: 'uniform' (all neighbours weigh
        the same), 'distance' (the inverse of their distance; a query at
        distance zero from fitted points is given their average), or a
        function of the (n_queries, n_neighbors) distances (an array of the
        compute namespace: CuPy on the GPU) returning weights of that shape.
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        scikit-learn's algorithm, where scikit-learn searches (the GPU's
        search is exact and brute force).
    leaf_size : int, default=30
        Leaf size passed to BallTree or KDTree.
    p : float, default=2
        Power parameter for the Minkowski metric.
    metric : str, DistanceMetric object or callable, default='minkowski'
        Metric to use for distance computation (any of scikit-learn's).
    metric_params : dict, default=None
        Additional keyword arguments for the metric function.
    n_jobs : int, default=None
        The number of parallel jobs of scikit-learn's search.

    Attributes
    ----------
    effective_metric_ : str or callable
        The distance metric used.
    effective_metric_params_ : dict
        Additional keyword arguments for the metric function.
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when they are all
        strings.
    n_samples_fit_ : int
        Number of samples in the fitted data.

    See Also
    --------
    sklearn.neighbors.KNeighborsRegressor : The scikit-learn estimator.
    KNeighborsClassifier : Classifier implementing the k-nearest neighbors
        vote.

    Notes
    -----
    Among neighbours at equal distances, the GPU's search keeps those of
    smallest index; scikit-learn's searches keep those they meet first, so
    where a tie straddles the ``n_neighbors``-th neighbour the two may
    average different targets.

    Examples
    --------
    >>> from gpuml.neighbors import KNeighborsRegressor
    >>> X = [[0], [1], [2], [3]]
    >>> y = [0, 0, 1, 1]
    >>> neigh = KNeighborsRegressor(n_neighbors=2).fit(X, y)
    >>> neigh.predict([[1.5]])
    array([0.5])
    """

    _parameter_constraints: dict = kneighbors_constraints("KNeighborsRegressor")

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the k-nearest neighbors regressor from the training dataset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples) if metric='precomputed'
            Training data (host or device family).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Target values.

        Returns
        -------
        self : KNeighborsRegressor
            The fitted k-nearest neighbors regressor.
        """
        return self._fit(X, y)

    def _store_targets(self, y) -> None:
        self._y = y

    def _predict_xp(self, X, xp: ModuleType):
        check_is_fitted(self)
        uniform = self.weights in (None, "uniform")
        dist, ind = self._neighbors_xp(X, xp, return_distance=not uniform)
        weights = get_weights(dist, self.weights, xp)
        return average(self._fitted("_y", xp), ind, weights, xp)

    def predict(self, X):
        """Predict the target for the provided data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features), \
                or (n_queries, n_indexed) if metric == 'precomputed', or None
            Test samples (host or device family). If `None`, predictions for
            all indexed points are returned; in this case, points are not
            considered their own neighbors.

        Returns
        -------
        y : ndarray of shape (n_queries,) or (n_queries, n_outputs)
            Target values, in the family of ``X``.
        """
        y_pred = self._predict_xp(X, compute_namespace())
        return to_output(to_family(y_pred, self._output_family(X)), X)

    def score(self, X, y, sample_weight=None):
        """Return the coefficient of determination R² of the prediction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or None
            Test samples. If `None`, predictions for all indexed points are
            used; in this case, points are not considered their own
            neighbors (a leave-one-out estimate).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True values for `X`.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            R² of ``self.predict(X)`` with respect to `y`, computed where
            the predictions are (gpuml's ``r2_score``).
        """
        from gpuml.metrics import r2_score

        y_pred = self._predict_xp(X, compute_namespace())
        return r2_score(y, y_pred, sample_weight=sample_weight)

    def _batch_model(self, fold, candidates):
        return KNeighborsRegressorBatch(fold, candidates)


class KNeighborsRegressorBatch:
    """The candidates of one fold (one neighbour search, see
    ``FoldNeighbours``): ``predict`` gives (k, n) or (k, n, n_outputs)
    predictions stacked in the candidates' order."""

    def __init__(self, fold, candidates):
        self.fold, self.candidates = fold, candidates

    def __len__(self) -> int:
        return len(self.candidates)

    def predict(self, X):
        xp = compute_namespace()
        y = self.fold.base._fitted("_y", xp)
        stack = []
        for candidate in self.candidates:
            dist, ind = self.fold.neighbours_xp(X, candidate.n_neighbors, xp)
            weights = get_weights(dist, candidate.weights, xp)
            stack.append(average(y, ind, weights, xp))
        return xp.stack(stack)
