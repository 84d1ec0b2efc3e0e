"""K-means clustering, every restart of a fit run together as one batch.

scikit-learn's :class:`sklearn.cluster.KMeans` runs its ``n_init``
restarts one after another, each a loop of Lloyd iterations over chunks of
rows. Here the restarts of a fit are one batch: their centres are a
``(n_runs, n_clusters, n_features)`` array, and each Lloyd iteration is
one pass of the assignment over the data against every run's centres and
one of the new centres' sums, for all runs still iterating (a run leaves
the batch when it converges): on the GPU for dense data, two kernels of
gpuml's (``_lloyd_device.py``: no score matrix in memory, sums in a fixed
order); elsewhere a matrix product and a one-hot product. The iterates are
scikit-learn's:

- the assignment takes the centre of smallest ``||c||^2 - 2 x.c``, the
  first one on a tie, as scikit-learn's Lloyd kernel does;
- an empty cluster takes the sample farthest from its centre (scikit-learn's
  ``_relocate_empty_clusters``, with NumPy's ``argpartition`` on the host:
  the event is rare and the order of the farthest samples must be
  scikit-learn's);
- a run stops when its labels did not change (strict convergence) or when
  the squared shift of its centres is within ``tol`` times the mean variance
  of the features; without strict convergence, the labels are assigned
  again to the final centres;
- of the runs, the first one of lowest inertia is kept, a later one only if
  its clustering differs (scikit-learn's ``_is_same_clustering``).

The initial centres are drawn from the same ``random_state`` stream, draw
for draw, as scikit-learn's (``k-means++`` with ``2 + log(k)`` local trials
per centre, or ``random``): on the CPU a fit gives scikit-learn's result;
on the GPU, where sums are ordered differently, a near-tie between
candidate centres can go the other way, and for float32 data with many
rows the draws land elsewhere (scikit-learn searches them in a float32
cumulative sum made row after row, whose rounding a parallel sum does not
reproduce; docs/differences.rst). 'elkan' names the same iterates
(Elkan's bounds skip distance computations, not change them), served by the
batched Lloyd iteration.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._sklearn_compat import Interval, StrOptions, fit_context
from gpuml._validation import check_array, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.cluster import _lloyd_device
from gpuml.cluster._lloyd import (
    assign,
    dense_rows,
    distances,
    first_seed_cdf,
    inertia,
    kmeans_plusplus,
    lloyd,
    same_clustering,
    sq_norms,
    tolerance,
)

_FLOAT_DTYPES = (np.float64, np.float32)


def check_params_vs_input(estimator, X, xp, *, default_n_init: int) -> None:
    """scikit-learn's ``_BaseKMeans._check_params_vs_input`` for KMeans and
    MiniBatchKMeans: ``n_samples >= n_clusters``, ``_tol`` (computed in
    ``xp``) and ``_n_init`` (``'auto'``: 1 for k-means++ and an array,
    ``default_n_init`` for 'random' and a callable; 1 with a warning for an
    array ``init``)."""
    if X.shape[0] < estimator.n_clusters:
        raise ValueError(
            f"n_samples={X.shape[0]} should be >= n_clusters={estimator.n_clusters}."
        )
    estimator._tol = tolerance(X, estimator.tol, xp)
    init = estimator.init
    if estimator.n_init == "auto":
        drawn = callable(init) or (isinstance(init, str) and init == "random")
        estimator._n_init = default_n_init if drawn else 1
    else:
        estimator._n_init = estimator.n_init
    if _is_array_like(init) and estimator._n_init != 1:
        warnings.warn(
            "Explicit initial center position passed: performing only one "
            f"init in {type(estimator).__name__} instead of "
            f"n_init={estimator._n_init}.",
            RuntimeWarning,
            stacklevel=4,
        )
        estimator._n_init = 1


def _is_array_like(value) -> bool:
    return not isinstance(value, str) and not callable(value) and value is not None


class KMeans(
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    ClusterMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """K-Means clustering, with every restart fitted together on the GPU.

    scikit-learn's :class:`sklearn.cluster.KMeans`: same parameters,
    attributes and results (see the module documentation for how the
    restarts are batched and what makes the iterates scikit-learn's).

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters and of centroids.
    init : {'k-means++', 'random'}, callable or array-like of shape \
            (n_clusters, n_features), default='k-means++'
        How the initial centres are chosen: greedy k-means++ (scikit-learn's,
        with its draws), ``n_clusters`` rows drawn with probability
        proportional to their weight, a callable ``init(X, n_clusters,
        random_state)`` (given the centred data, in the compute namespace),
        or the centres themselves.
    n_init : 'auto' or int, default='auto'
        Number of restarts; 'auto' is 1 for 'k-means++' and an array, 10
        otherwise. The restarts run as one batch.
    max_iter : int, default=300
        Maximum number of Lloyd iterations of a run.
    tol : float, default=1e-4
        Convergence tolerance on the squared shift of the centres, relative
        to the mean variance of the features.
    verbose : int, default=0
        Print each iteration's inertia (the restarts then run one by one, so
        that the lines are in scikit-learn's order).
    random_state : int, RandomState instance or None, default=None
        Random draws of the initialisation.
    copy_x : bool, default=True
        Accepted for compatibility: gpuml never writes to the input data.
    algorithm : {'lloyd', 'elkan'}, default='lloyd'
        Both are served by the batched Lloyd iteration ('elkan' gives the
        same iterates).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres, in the family of the training data.
    labels_ : ndarray of shape (n_samples,)
        The cluster of each training sample.
    inertia_ : float
        Weighted sum of squared distances of the samples to their centres.
    n_iter_ : int
        Number of iterations of the run kept.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.cluster import KMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> kmeans = KMeans(n_clusters=2, random_state=0, n_init="auto").fit(X)
    >>> kmeans.labels_
    array([1, 1, 1, 0, 0, 0], dtype=int32)
    >>> kmeans.predict([[0, 0], [12, 3]])
    array([1, 0], dtype=int32)
    >>> kmeans.cluster_centers_
    array([[10.,  2.],
           [ 1.,  2.]])
    """

    _parameter_constraints: dict = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"k-means++", "random"}), callable, "array-like"],
        "n_init": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "copy_x": ["boolean"],
        "algorithm": [StrOptions({"lloyd", "elkan"})],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        copy_x=True,
        algorithm="lloyd",
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.copy_x = copy_x
        self.algorithm = algorithm

    def _check_params_vs_input(self, X, xp) -> None:
        check_params_vs_input(self, X, xp, default_n_init=10)
        self._algorithm = self.algorithm
        if self._algorithm == "elkan" and self.n_clusters == 1:
            warnings.warn(
                "algorithm='elkan' doesn't make sense for a single cluster. "
                "Using 'lloyd' instead.",
                RuntimeWarning,
                stacklevel=3,
            )
            self._algorithm = "lloyd"

    def _validate_center_shape(self, X, centers, n_centroids=None) -> None:
        n_centroids = self.n_clusters if n_centroids is None else n_centroids
        if centers.shape[0] != n_centroids:
            raise ValueError(
                f"The shape of the initial centers {centers.shape} does not "
                f"match the number of clusters {n_centroids}."
            )
        if centers.shape[1] != X.shape[1]:
            raise ValueError(
                f"The shape of the initial centers {centers.shape} does not "
                f"match the number of features of the data {X.shape[1]}."
            )

    def _initial_centers(
        self, X, x_sq, w, w_host, init, random_state, n_clusters, xp, first_cdf=None
    ):
        """One run's initial centres (``init`` an array: already centred;
        ``first_cdf``: :func:`first_seed_cdf` of ``w_host`` for k-means++,
        made once for all runs)."""
        if isinstance(init, str) and init == "k-means++":
            rows = kmeans_plusplus(
                X, n_clusters, x_sq, w, w_host, random_state, xp, first_cdf
            )
            return dense_rows(X, rows, xp)
        if isinstance(init, str) and init == "random":
            rows = random_state.choice(
                X.shape[0], size=n_clusters, replace=False, p=w_host / w_host.sum()
            )
            return dense_rows(X, rows, xp)
        if callable(init):
            centers = init(X, n_clusters, random_state=random_state)
            centers = check_array(centers, xp=xp, dtype=X.dtype)
            if is_sparse(centers):
                centers = centers.toarray()
            self._validate_center_shape(X, centers, n_clusters)
            return centers
        return init

    def _init_centroids(
        self,
        X,
        x_squared_norms,
        init,
        random_state,
        sample_weight,
        init_size=None,
        n_centroids=None,
    ):
        """Initial centres of ``X`` (scikit-learn's private ``_BaseKMeans``
        hook, which its tests call): ``init_size`` rows drawn first when
        given, then ``init`` as in :meth:`fit`, in the family of ``X``."""
        xp = compute_namespace()
        family = input_family(X)
        X = to_namespace(X, xp)
        x_sq = to_namespace(x_squared_norms, xp)
        w = to_namespace(sample_weight, xp)
        n_clusters = self.n_clusters if n_centroids is None else n_centroids
        if init_size is not None and init_size < X.shape[0]:
            rows = xp.asarray(random_state.randint(0, X.shape[0], init_size))
            X, x_sq, w = X[rows], x_sq[rows], w[rows]
        if _is_array_like(init):
            init = to_namespace(init, xp)
        centers = self._initial_centers(
            X, x_sq, w, to_host(w), init, random_state, n_clusters, xp
        )
        return to_family(centers, family)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute k-means clustering.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample (not used by a callable or array
            ``init``).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        xp = compute_namespace()
        if xp is not np:
            _lloyd_device.prefetch()  # compiles while the data are checked
        family = input_family(X)
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=_FLOAT_DTYPES)
        self._reset_device_cache()
        self._check_params_vs_input(X, xp)
        random_state = check_random_state(self.random_state)
        w = check_sample_weight(sample_weight, X.shape[0], xp=xp, dtype=X.dtype)
        w_host = to_host(w)

        init = self.init
        if _is_array_like(init):
            init = check_array(init, xp=xp, dtype=X.dtype, input_name="init")
            init = init.toarray() if is_sparse(init) else init.copy()
            self._validate_center_shape(X, init)
        mean = None
        if not is_sparse(X):
            # Centred data, for accurate distances (as scikit-learn).
            mean = X.mean(axis=0)
            X = X - mean
            if _is_array_like(self.init):
                init = init - mean
        x_sq = sq_norms(X, xp)

        first_cdf = None
        if isinstance(init, str) and init == "k-means++" and self._n_init > 1:
            first_cdf = first_seed_cdf(w_host)
        starts = [
            self._initial_centers(
                X, x_sq, w, w_host, init, random_state, self.n_clusters, xp, first_cdf
            )
            for _ in range(self._n_init)
        ]
        if self.verbose:
            runs = []
            for start in starts:
                print("Initialization complete")
                runs.append(self._runs(X, w, w_host, start[None], x_sq, xp))
            centers = xp.concatenate([r[0] for r in runs])
            labels = xp.concatenate([r[1] for r in runs])
            n_iter = np.concatenate([r[2] for r in runs])
        else:
            centers, labels, n_iter = self._runs(
                X, w, w_host, xp.stack(starts), x_sq, xp
            )

        best = None
        for r in range(self._n_init):
            value = inertia(X, centers[r], labels[r], w, x_sq, xp)
            if best is None or (
                value < best[1] and not same_clustering(labels[r], labels[best[0]], xp)
            ):
                best = (r, value)
        r, best_inertia = best
        best_centers, best_labels = centers[r], labels[r]
        if mean is not None:
            best_centers = best_centers + mean

        distinct = int(xp.unique(best_labels).size)
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than "
                f"n_clusters ({self.n_clusters}). Possibly due to duplicate "
                "points in X.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.cluster_centers_ = to_family(best_centers, family)
        self._n_features_out = self.n_clusters
        self.labels_ = to_family(best_labels, family)
        self.inertia_ = best_inertia
        self.n_iter_ = int(n_iter[r])
        return self

    def _runs(self, X, w, w_host, starts, x_sq, xp):
        return lloyd(
            X,
            w,
            w_host,
            starts,
            x_sq,
            max_iter=self.max_iter,
            tol=self._tol,
            xp=xp,
            verbose=bool(self.verbose),
        )

    def _test_data(self, X, xp):
        return validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=_FLOAT_DTYPES
        )

    def _labels(self, X, xp):
        centers = self._fitted("cluster_centers_", xp).astype(X.dtype, copy=False)
        return assign(X, centers[None], xp)[0], centers

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then return the cluster of each sample (``labels_``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the cluster each sample belongs to.
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X):
        """The closest centre of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the cluster each sample belongs to, in the family of
            ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = self._test_data(X, xp)
        return to_output(to_family(self._labels(X, xp)[0], family), X_in)

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit, then return the distances of ``X`` to the centres.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Distance of each sample to each centre.
        """
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def transform(self, X):
        """Euclidean distance of each sample to each centre.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            The distances, in the family of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = self._test_data(X, xp)
        centers = self._fitted("cluster_centers_", xp)
        d = distances(X, centers, xp)
        return to_output(
            to_family(d, family), X_in, lambda: self.get_feature_names_out()
        )

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the inertia of ``X`` with the fitted centres.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample.

        Returns
        -------
        score : float
            Minus the weighted sum of squared distances to the closest centre.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        X = self._test_data(X, xp)
        w = check_sample_weight(sample_weight, X.shape[0], xp=xp, dtype=X.dtype)
        labels, centers = self._labels(X, xp)
        return -inertia(X, centers, labels, w, sq_norms(X, xp), xp)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
