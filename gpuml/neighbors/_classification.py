"""KNeighborsClassifier: scikit-learn's k-nearest-neighbours vote, with the
neighbours found on the GPU when one is in use.

The vote follows scikit-learn's arithmetic: uniform votes are counts (the
most frequent class, the smallest label among equal counts, as
``scipy.stats.mode`` picks it); distance or callable weights are summed per
class as ``sklearn.utils.extmath.weighted_mode`` sums them (the first class
of the largest sum); probabilities accumulate each neighbour's weight in
neighbour order and are normalised by their sum, as
``KNeighborsClassifier.predict_proba`` does. See ``_kneighbors.py`` for the
search and the batched candidates.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    HOST,
    compute_namespace,
    input_family,
    namespace_of,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._sklearn_compat import fit_context, kneighbors_constraints
from gpuml.base import BatchUnsupported
from gpuml.metrics._base import type_of_target
from gpuml.neighbors._kneighbors import (
    KNeighborsBase,
    check_some_weight,
    get_weights,
)

_TARGET_TYPES = (
    "binary",
    "multiclass",
    "multiclass-multioutput",
    "multilabel-indicator",
    "multilabel-sequences",
)


def class_sums(labels, weights, n_classes: int, xp: ModuleType):
    """``(n, n_classes)`` float64 sums of the neighbours' weights (ones when
    ``weights`` is None) per class, added in neighbour order (the order of
    scikit-learn's ``predict_proba``). ``labels``: (n, k) class indices."""
    n, k = labels.shape
    sums = xp.zeros((n, n_classes), dtype=xp.float64)
    rows = xp.arange(n)
    for i in range(k):
        sums[rows, labels[:, i]] += 1.0 if weights is None else weights[:, i]
    return sums


def probabilities(labels, weights, n_classes: int, xp: ModuleType):
    """Class probabilities of the neighbours' vote (scikit-learn's
    ``predict_proba``)."""
    sums = class_sums(labels, weights, n_classes, xp)
    return sums / sums.sum(axis=1)[:, None]


def weighted_mode(labels, weights, n_classes: int, xp: ModuleType):
    """The class of the largest weighted count per row, as
    ``sklearn.utils.extmath.weighted_mode`` finds it (each class's count is
    a sum of a float64 row holding its weights and zeros; the first class
    of the largest count; class 0 when no count is positive)."""
    weights = weights.astype(xp.float64)
    n = labels.shape[0]
    best = xp.zeros(n, dtype=xp.int64)
    top = xp.zeros(n, dtype=xp.float64)
    for c in range(n_classes):
        counts = xp.sum(xp.where(labels == c, weights, 0.0), axis=1)
        best = xp.where(counts > top, c, best)
        top = xp.maximum(counts, top)
    return best


def vote(labels, weights, n_classes: int, xp: ModuleType):
    """The predicted class index per row (scikit-learn's ``predict``)."""
    if weights is None:
        return xp.argmax(class_sums(labels, None, n_classes, xp), axis=1)
    return weighted_mode(labels, weights, n_classes, xp)


def _take(classes, indices):
    """``classes[indices]``: where ``indices`` are, or on the host for
    labels a device cannot hold (strings, objects)."""
    if namespace_of(classes) is namespace_of(indices):
        return classes[indices]
    return classes[to_host(indices)]


class KNeighborsClassifier(ClassifierMixin, KNeighborsBase):
    """Classifier implementing the k-nearest neighbors vote.

    scikit-learn's :class:`sklearn.neighbors.KNeighborsClassifier` (same
    parameters, attributes and results), with the neighbours found by
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
        distance zero from fitted points is given their vote), or a function
        of the (n_queries, n_neighbors) distances (an array of the compute
        namespace: CuPy on the GPU) returning weights of that shape.
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        scikit-learn's algorithm, where scikit-learn searches (the GPU's
        search is exact and brute force).
    leaf_size : int, default=30
        Leaf size passed to BallTree or KDTree.
    p : float, default=2
        Power parameter for the Minkowski metric.
    metric : str or callable, default='minkowski'
        Metric to use for distance computation (any of scikit-learn's).
    metric_params : dict, default=None
        Additional keyword arguments for the metric function.
    n_jobs : int, default=None
        The number of parallel jobs of scikit-learn's search.

    Attributes
    ----------
    classes_ : array of shape (n_classes,) or list of such arrays
        Class labels known to the classifier (in the family of ``y``; NumPy
        for labels a device cannot hold).
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
    outputs_2d_ : bool
        False when ``y``'s shape is (n_samples, ) or (n_samples, 1) during
        fit, otherwise True.

    See Also
    --------
    sklearn.neighbors.KNeighborsClassifier : The scikit-learn estimator.
    KNeighborsRegressor : Regression based on k-nearest neighbors.

    Notes
    -----
    Among neighbours at equal distances, the GPU's search keeps those of
    smallest index; scikit-learn's searches keep those they meet first, so
    where a tie straddles the ``n_neighbors``-th neighbour the two may vote
    differently. Equal votes go to the smallest class label, as in
    scikit-learn.

    Examples
    --------
    >>> from gpuml.neighbors import KNeighborsClassifier
    >>> X = [[0], [1], [2], [3]]
    >>> y = [0, 0, 1, 1]
    >>> neigh = KNeighborsClassifier(n_neighbors=3).fit(X, y)
    >>> neigh.predict([[1.1]])
    array([0])
    >>> neigh.predict_proba([[0.9]])
    array([[0.666..., 0.333...]])
    """

    _parameter_constraints: dict = kneighbors_constraints("KNeighborsClassifier")

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the k-nearest neighbors classifier from the training dataset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples) if metric='precomputed'
            Training data (host or device family).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Target values.

        Returns
        -------
        self : KNeighborsClassifier
            The fitted k-nearest neighbors classifier.
        """
        return self._fit(X, y)

    def _store_targets(self, y) -> None:
        """``classes_``, ``outputs_2d_`` and the class indices ``_y``
        (scikit-learn's ``NeighborsBase._fit`` for classifiers)."""
        xp = namespace_of(y)
        if y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1):
            if y.ndim != 1:
                warnings.warn(
                    "A column-vector y was passed when a 1d array was expected. "
                    "Please change the shape of y to (n_samples,), for example "
                    "using ravel().",
                    DataConversionWarning,
                    stacklevel=4,
                )
            self.outputs_2d_ = False
            y = y.reshape((-1, 1))
        else:
            self.outputs_2d_ = True
        if xp is np:
            check_classification_targets(y)
        else:
            kind = type_of_target(y, xp, input_name="y")
            if kind not in _TARGET_TYPES:
                raise ValueError(
                    f"Unknown label type: {kind}. Maybe you are trying to fit a "
                    "classifier, which expects discrete classes on a "
                    "regression target with continuous values."
                )
        classes, codes = [], []
        for j in range(y.shape[1]):
            values, inverse = xp.unique(y[:, j], return_inverse=True)
            classes.append(values)
            codes.append(inverse.reshape(-1).astype(xp.int64))
        self._y = xp.stack(codes, axis=1)
        self.classes_ = classes
        if not self.outputs_2d_:
            self.classes_ = classes[0]
            self._y = self._y.reshape(-1)

    def _outputs(self, xp: ModuleType):
        """``[(classes, class indices of the fitted rows)]`` per output, in
        ``xp`` (the classes on the host where a device cannot hold them)."""
        codes = self._fitted("_y", xp)
        if not self.outputs_2d_:
            classes = self.classes_
            if classes.dtype.kind in "biuf":
                classes = self._fitted("classes_", xp)
            return [(classes, codes)]
        return [
            (to_namespace(c, xp) if c.dtype.kind in "biuf" else c, codes[:, j])
            for j, c in enumerate(self.classes_)
        ]

    def _weights(self, X, xp: ModuleType):
        """``(weights or None, neighbour indices)`` of the query ``X``."""
        uniform = self.weights in (None, "uniform")
        dist, ind = self._neighbors_xp(X, xp, return_distance=not uniform)
        weights = get_weights(dist, self.weights, xp)
        check_some_weight(weights, xp)
        return weights, ind

    def predict(self, X):
        """Predict the class labels for the provided data.

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
            Class labels for each data sample, in the family of ``X``
            (NumPy for labels a device cannot hold).
        """
        check_is_fitted(self)
        xp = compute_namespace()
        weights, ind = self._weights(X, xp)
        outputs = self._outputs(xp)
        columns = [
            vote(codes[ind], weights, classes.shape[0], xp)
            for classes, codes in outputs
        ]
        if not self.outputs_2d_:
            y_pred = _take(outputs[0][0], columns[0])
        else:
            numeric = all(c.dtype.kind in "biuf" for c, _ in outputs)
            lx = xp if numeric else np
            shape = (ind.shape[0], len(outputs))
            y_pred = lx.empty(shape, dtype=outputs[0][0].dtype)
            pairs = zip(outputs, columns, strict=True)
            for j, ((classes, _), column) in enumerate(pairs):
                y_pred[:, j] = to_namespace(classes, lx)[to_namespace(column, lx)]
        if y_pred.dtype.kind in "biuf":  # else labels a device cannot hold
            y_pred = to_family(y_pred, self._output_family(X))
        return to_output(y_pred, X)

    def predict_proba(self, X):
        """Return probability estimates for the test data X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features), \
                or (n_queries, n_indexed) if metric == 'precomputed', or None
            Test samples (host or device family). If `None`, predictions for
            all indexed points are returned; in this case, points are not
            considered their own neighbors.

        Returns
        -------
        p : ndarray of shape (n_queries, n_classes), or a list of n_outputs \
                of such arrays if n_outputs > 1.
            The class probabilities of the input samples (float64, in the
            family of ``X``). Classes are ordered by lexicographic order.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        weights, ind = self._weights(X, xp)
        family = self._output_family(X)
        result = [
            to_output(
                to_family(
                    probabilities(codes[ind], weights, classes.shape[0], xp), family
                ),
                X,
            )
            for classes, codes in self._outputs(xp)
        ]
        return result if self.outputs_2d_ else result[0]

    def score(self, X, y, sample_weight=None):
        """Return the mean accuracy on the given test data and labels.

        In multi-label classification, this is the subset accuracy.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or None
            Test samples. If `None`, predictions for all indexed points are
            used; in this case, points are not considered their own
            neighbors (a leave-one-out estimate).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True labels for `X`.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Mean accuracy of ``self.predict(X)`` w.r.t. `y` (gpuml's
            ``accuracy_score``: on the device for device predictions).
        """
        from gpuml.metrics import accuracy_score

        y_pred = self.predict(X)
        if sample_weight is not None and input_family(y_pred) == HOST:
            sample_weight = to_host(sample_weight)
        return accuracy_score(y, y_pred, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags

    def _batch_model(self, fold, candidates):
        return KNeighborsClassifierBatch(fold, candidates)


class KNeighborsClassifierBatch:
    """The candidates of one fold (one neighbour search, see
    ``FoldNeighbours``): ``predict`` gives (k, n) labels and
    ``predict_proba`` (k, n, n_classes) probabilities, stacked in the
    candidates' order."""

    def __init__(self, fold, candidates):
        base = fold.base
        if base.outputs_2d_:
            raise BatchUnsupported("multi-output targets are fitted one by one")
        self.fold, self.candidates = fold, candidates
        classes = base.classes_
        if classes.dtype.kind in "biuf":
            classes = base._fitted("classes_", compute_namespace())
        self.classes_ = classes

    def __len__(self) -> int:
        return len(self.candidates)

    def _responses(self, X, respond):
        xp = compute_namespace()
        base = self.fold.base
        codes = base._fitted("_y", xp)
        n_classes = base.classes_.shape[0]
        stack = []
        for candidate in self.candidates:
            dist, ind = self.fold.neighbours_xp(X, candidate.n_neighbors, xp)
            weights = get_weights(dist, candidate.weights, xp)
            check_some_weight(weights, xp)
            stack.append(respond(codes[ind], weights, n_classes, xp))
        return xp.stack(stack)

    def predict(self, X):
        return _take(self.classes_, self._responses(X, vote))

    def predict_proba(self, X):
        return self._responses(X, probabilities)
