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

import copy
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    clone,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    take_rows,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    fit_context,
    validate_estimator_params,
)
from gpuml._validation import check_array, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.cluster import _lloyd_device
from gpuml.cluster._lloyd import (
    _sq_distances_to_own_center,
    absent_scores,
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
from gpuml.metrics._scorer import Scorer

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


def _best_runs(X, w, x_sq, xp, centers, labels, n_iter, starts) -> list:
    """Each candidate's kept run, ``(centres, labels, inertia, n_iter)``:
    of its runs (``starts[c]``, consecutive in ``centers``, ``labels`` and
    ``n_iter``; the centres padded to the widest candidate's), the first of
    lowest inertia, a later one only if its clustering differs
    (scikit-learn's rule)."""
    out = []
    offset = 0
    for runs in starts:
        k = len(runs[0])
        best = None
        for r in range(offset, offset + len(runs)):
            value = inertia(X, centers[r, :k], labels[r], w, x_sq, xp)
            if best is None or (
                value < best[1] and not same_clustering(labels[r], labels[best[0]], xp)
            ):
                best = (r, value)
        r, value = best
        out.append((centers[r, :k], labels[r], value, int(n_iter[r])))
        offset += len(runs)
    return out


def _warn_few_clusters(labels, n_clusters: int, xp) -> None:
    distinct = int(xp.unique(labels).size)
    if distinct < n_clusters:
        warnings.warn(
            f"Number of distinct clusters ({distinct}) found smaller than "
            f"n_clusters ({n_clusters}). Possibly due to duplicate "
            "points in X.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _pad_clusters(centers, width: int, xp):
    """``centers`` ``(k, n_features)`` with zero rows up to ``width``."""
    k, p = centers.shape
    if k == width:
        return centers
    return xp.concatenate([centers, xp.zeros((width - k, p), dtype=centers.dtype)])


def _inertias(sq_distances, sample_weight):
    """``(k,)`` weighted sums of stacked squared distances ``(k, n)``, as
    :meth:`KMeans.score` sums one candidate's (float64 sums; the weights
    checked as its, so that all-zero or ill-shaped weights raise its
    error)."""
    xp = namespace_of(sq_distances)
    w = check_sample_weight(
        sample_weight, sq_distances.shape[1], xp=xp, dtype=sq_distances.dtype
    )
    return xp.sum(sq_distances.astype(xp.float64) * w[None, :], axis=1)


def _weighted_sum(y_true, sq_distances, sample_weight=None):
    """One candidate's inertia (:func:`_inertias`), a float."""
    return float(to_host(_inertias(sq_distances[None, :], sample_weight)[0]))


class _NegativeInertia(Scorer):
    """``scoring=None`` for a search's batch of KMeans candidates: each
    candidate's :meth:`KMeans.score` (minus the weighted inertia of the
    scored rows) from their squared distances to their centres, stacked."""

    needs_y = False

    def __init__(self):
        super().__init__(_weighted_sum, -1, {}, "_sq_distances")

    def score_predictions(self, y_true, y_preds, sample_weight=None, **kwargs):
        return -_inertias(y_preds, sample_weight)


class KMeansBatch:
    """The candidates of a search's batch fitted on one fold: their centres
    (each padded with zeros to the widest) and the batch model's response
    methods, stacked on a leading candidate axis."""

    def __init__(self, centers: list, xp):
        self._xp = xp
        self.n_clusters = [c.shape[0] for c in centers]
        width = max(self.n_clusters)
        self._centers = xp.stack([_pad_clusters(c, width, xp) for c in centers])
        self._absent = absent_scores(self.n_clusters, width, centers[0].dtype, xp)

    def __len__(self) -> int:
        return len(self.n_clusters)

    def _data(self, X):
        return check_array(X, xp=self._xp, accept_sparse="csr", dtype=_FLOAT_DTYPES)

    def _labels(self, X):
        centers = self._centers.astype(X.dtype, copy=False)
        absent = None if self._absent is None else self._absent.astype(X.dtype)
        return assign(X, centers, self._xp, absent), centers

    def predict(self, X):
        """``(k, n_samples)`` labels, each candidate's :meth:`KMeans.predict`."""
        return self._labels(self._data(X))[0]

    def _sq_distances(self, X):
        """``(k, n_samples)``: each sample's squared distance to its centre,
        as :meth:`KMeans.score` computes it, for each candidate."""
        X = self._data(X)
        xp = self._xp
        labels, centers = self._labels(X)
        x_sq = sq_norms(X, xp) if is_sparse(X) else None
        return xp.stack(
            [
                _sq_distances_to_own_center(X, centers[c], labels[c], x_sq, xp)
                for c in range(len(self))
            ]
        )


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
                runs.append(self._runs(X, w, w_host, [[start]], x_sq, xp))
            centers = xp.concatenate([r[0] for r in runs])
            labels = xp.concatenate([r[1] for r in runs])
            n_iter = np.concatenate([r[2] for r in runs])
        else:
            centers, labels, n_iter = self._runs(X, w, w_host, [starts], x_sq, xp)
        (best_centers, best_labels, best_inertia, best_n_iter) = _best_runs(
            X, w, x_sq, xp, centers, labels, n_iter, [starts]
        )[0]
        if mean is not None:
            best_centers = best_centers + mean
        _warn_few_clusters(best_labels, self.n_clusters, xp)
        self.cluster_centers_ = to_family(best_centers, family)
        self._n_features_out = self.n_clusters
        self.labels_ = to_family(best_labels, family)
        self.inertia_ = best_inertia
        self.n_iter_ = best_n_iter
        return self

    def _runs(self, X, w, w_host, starts, x_sq, xp):
        """Lloyd's iterations of the runs ``starts`` (each candidate's list
        of initial centres; candidates with fewer clusters padded to the
        widest) in one batch: ``(centres, labels, n_iter)`` of every run, in
        order, the centres padded."""
        widths = [len(runs[0]) for runs in starts]
        width = max(widths)
        padded, n_valid = [], []
        for k, runs in zip(widths, starts, strict=True):
            padded += [_pad_clusters(start, width, xp) for start in runs]
            n_valid += [k] * len(runs)
        return lloyd(
            X,
            w,
            w_host,
            xp.stack(padded),
            x_sq,
            max_iter=self.max_iter,
            tol=self._tol,
            xp=xp,
            verbose=bool(self.verbose),
            n_valid=None if min(widths) == width else np.asarray(n_valid),
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

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _batch_params(self) -> frozenset:
        """``n_clusters`` and ``n_init``: a fold's candidates run their
        restarts in one batched Lloyd iteration (runs with fewer clusters
        padded). Not for an array or callable ``init`` (its centres fix the
        clusters) or ``verbose`` (whose lines follow one run at a time)."""
        if not isinstance(self.init, str) or self.verbose:
            return frozenset()
        return frozenset({"n_clusters", "n_init"})

    # scoring=None: KMeans.score of each candidate, batched
    _batch_passthrough_scorer = _NegativeInertia

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`KMeansBatch` per training fold (all rows when
        ``folds`` is None): every candidate's restarts, each seeded as the
        candidate's own fit on the fold would seed it (from a fresh copy of
        its ``random_state``, as a search's clone for each fit is), run in
        one batch on the device (a batch per candidate on the host), and the
        best run of each kept by scikit-learn's rule. Raises what any
        candidate's fit raises (too few samples)."""
        validate_estimator_params(self)
        candidates = [clone(self).set_params(**params) for params in param_sets]
        for candidate in candidates:
            validate_estimator_params(candidate)
        xp = compute_namespace()
        if xp is not np:
            _lloyd_device.prefetch()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=_FLOAT_DTYPES)
        if sample_weight is not None:  # its shape and values, once
            sample_weight = check_sample_weight(
                to_namespace(sample_weight, xp),
                X.shape[0],
                xp=xp,
                dtype=X.dtype,
                allow_all_zero_weights=True,
            )
        for train in [None] if folds is None else folds:
            rows = None if train is None else xp.asarray(np.asarray(train, np.int64))
            X_fold = X if rows is None else take_rows(X, rows, xp)
            w = sample_weight
            if w is not None and rows is not None:
                w = w[rows]
            # each fold's weights as the candidate's own fit checks them (a
            # fold of zero weights raises its error)
            w = check_sample_weight(w, X_fold.shape[0], xp=xp, dtype=X.dtype)
            yield self._fit_fold(X_fold, w, candidates, xp)

    def _fit_fold(self, X, w, candidates, xp) -> KMeansBatch:
        for candidate in candidates:
            candidate._check_params_vs_input(X, xp)
        w_host = to_host(w)
        mean = None
        if not is_sparse(X):
            mean = X.mean(axis=0)
            X = X - mean
        x_sq = sq_norms(X, xp)
        first_cdf = None
        if self.init == "k-means++":
            first_cdf = first_seed_cdf(w_host)
        starts = []
        for candidate in candidates:
            random_state = check_random_state(copy.deepcopy(candidate.random_state))
            starts.append(
                [
                    candidate._initial_centers(
                        X,
                        x_sq,
                        w,
                        w_host,
                        self.init,
                        random_state,
                        candidate.n_clusters,
                        xp,
                        first_cdf,
                    )
                    for _ in range(candidate._n_init)
                ]
            )
        # On the device every candidate's restarts are one Lloyd batch (one
        # pass over the data an iteration for all); on the host, where the
        # padding's arithmetic is the cost (n_clusters 2..20 on 24,000 x
        # 16: 14.2-14.7 s padded against 10.7 s), each candidate's restarts
        # are a batch of their own. (max_iter and tol are the same for every
        # candidate of the batch: the first one's.)
        batches = [starts] if xp is not np else [[runs] for runs in starts]
        results = []
        for batch in batches:
            centers, labels, n_iter = candidates[0]._runs(X, w, w_host, batch, x_sq, xp)
            results += _best_runs(X, w, x_sq, xp, centers, labels, n_iter, batch)
        kept = []
        for candidate, (best, labels_, _, _) in zip(candidates, results, strict=True):
            _warn_few_clusters(labels_, candidate.n_clusters, xp)
            kept.append(best if mean is None else best + mean)
        return KMeansBatch(kept, xp)
