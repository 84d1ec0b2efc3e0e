"""Mini-batch k-means: scikit-learn's algorithm step for step, each step's
assignment and centre update in the compute namespace.

:class:`MiniBatchKMeans` subclasses scikit-learn's
:class:`sklearn.cluster.MiniBatchKMeans` (its parameters, their validation,
its errors and warnings, its early-stopping rule ``_mini_batch_convergence``
and its reassignment schedule ``_random_reassign`` are scikit-learn's own
methods) and replaces the numerical work:

- the random draws are scikit-learn's, from the same ``RandomState`` in the
  same order, all on the host: the validation rows of the initialisation
  (``randint``), each initialisation's ``init_size`` rows and its k-means++
  or 'random' draws (gpuml's :class:`~gpuml.cluster.KMeans` draws them), each
  step's batch (``choice`` with ``p`` the normalised sample weights: the
  same uniform draws and the same search in the same cumulative sums,
  computed once), and the rows drawn to reassign small clusters;
- a step (:func:`minibatch_step`, scikit-learn's ``_mini_batch_step``)
  assigns the batch to its closest centres (the batched Lloyd kernel's
  :func:`~gpuml.cluster._lloyd.assign`), sums the weighted points of each
  centre with one one-hot product (:func:`~gpuml.cluster._lloyd.cluster_sums`)
  and moves each centre that got points to
  ``(old * count + sum of its points) / (count + their weight)``, as the
  per-centre loop of scikit-learn's ``_k_means_minibatch.pyx`` does;
- the per-centre weight sums (``_counts``, a host array of ``n_clusters``
  numbers, as in scikit-learn) and the decisions made from them (which
  clusters to reassign) stay on the host: each step brings back the
  batch's weight per centre and its inertia, a few numbers.

On the CPU, from the same initial centres and ``random_state``, a fit
gives scikit-learn's centres to rounding (the sums of a step are added in
another order) and its labels, ``n_steps_`` and ``n_iter_``. Rounding can
still flip an assignment at a near-tie, after which the two trajectories
are different draws of the same algorithm: equal in distribution, not
value for value. On the GPU, whose sums are ordered otherwise, this is the
claim.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.cluster import MiniBatchKMeans as _SkMiniBatchKMeans
from sklearn.utils import check_random_state

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    take_rows,
    to_family,
    to_host,
)
from gpuml._sklearn_compat import fit_context
from gpuml._validation import check_array, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.cluster._kmeans import (
    _FLOAT_DTYPES,
    KMeans,
    _is_array_like,
    check_params_vs_input,
)
from gpuml.cluster._lloyd import (
    assign,
    cluster_sums,
    dense_rows,
    inertia,
    sq_norms,
)


def labels_inertia(X, w, centers, xp):
    """Labels of ``X``'s rows (closest of ``centers``) and their weighted
    inertia (scikit-learn's ``_labels_inertia``)."""
    labels = assign(X, centers[None], xp)[0]
    return labels, inertia(X, centers, labels, w, sq_norms(X, xp), xp)


def minibatch_step(
    X,
    w,
    centers,
    counts,
    random_state,
    *,
    random_reassign: bool,
    reassignment_ratio: float,
    verbose: bool,
    xp,
):
    """One step of mini-batch k-means on the batch ``X`` (scikit-learn's
    ``_mini_batch_step``): returns the new centres and the batch's inertia
    to the old ones; ``counts`` (host, the weight each centre has gathered)
    is updated in place."""
    n_clusters = centers.shape[0]
    labels, value = labels_inertia(X, w, centers, xp)
    sums, weights = cluster_sums(X, labels[None], w, n_clusters, xp)
    sums = sums[0]
    batch_weights = to_host(weights[0])
    hit = batch_weights > 0
    before = np.where(hit, counts, 0).astype(counts.dtype)
    counts[hit] += batch_weights[hit]
    # 1 / count, as the .pyx scales (not a division); 0 where no point came.
    alpha = np.zeros_like(counts)
    alpha[hit] = 1 / counts[hit]
    moved = (centers * xp.asarray(before)[:, None] + sums) * xp.asarray(alpha)[:, None]
    new = xp.where(xp.asarray(hit)[:, None], moved, centers)

    if random_reassign and reassignment_ratio > 0:
        n_batch = X.shape[0]
        to_reassign = counts < reassignment_ratio * counts.max()
        # At most half the batch's samples become new centres.
        if to_reassign.sum() > 0.5 * n_batch:
            to_reassign[np.argsort(counts)[int(0.5 * n_batch) :]] = False
        n_reassigns = to_reassign.sum()
        if n_reassigns:
            rows = random_state.choice(n_batch, replace=False, size=n_reassigns)
            if verbose:
                print(f"[MiniBatchKMeans] Reassigning {n_reassigns} cluster centers.")
            targets = xp.asarray(np.flatnonzero(to_reassign))
            new[targets] = dense_rows(X, rows, xp)
        # scikit-learn's: reassigned counts reset to the smallest other one.
        counts[to_reassign] = np.min(counts[~to_reassign])
    return new, value


class MiniBatchKMeans(DeviceCacheMixin, _SkMiniBatchKMeans):
    """Mini-batch k-means, each step computed where the data live.

    scikit-learn's :class:`sklearn.cluster.MiniBatchKMeans` (a subclass:
    same parameters, validation, early stopping and reassignment rules):
    the same random draws in the same order, each batch's assignment and
    centre update in the compute namespace (see the module documentation).
    On the CPU a fit from the same initial centres gives scikit-learn's
    centres to rounding; in general, and on the GPU, its results are
    scikit-learn's in distribution (see :doc:`/differences`).

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters and of centroids.
    init : {'k-means++', 'random'}, callable or array-like of shape \
            (n_clusters, n_features), default='k-means++'
        How the initial centres are chosen, on ``init_size`` rows drawn from
        the data (see :class:`~gpuml.cluster.KMeans`; a callable gets those
        rows in the compute namespace, not centred).
    max_iter : int, default=100
        Maximum number of passes over the data (``max_iter * n_samples //
        batch_size`` steps).
    batch_size : int, default=1024
        Size of the mini-batches.
    verbose : int, default=0
        Verbosity (scikit-learn's lines).
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` on the whole data after the
        fit (else ``inertia_`` is the smoothed batch inertia times the
        total weight).
    random_state : int, RandomState instance or None, default=None
        Random draws of the initialisation, the batches and the
        reassignments.
    tol : float, default=0.0
        Early stopping when the squared change of the centres is within
        ``tol`` times the mean variance of the features (0 disables it).
    max_no_improvement : int, default=10
        Early stopping after this many steps without improvement of the
        smoothed batch inertia (None disables it).
    init_size : int, default=None
        Rows drawn for the initialisation (default ``3 * batch_size``).
    n_init : 'auto' or int, default='auto'
        Number of initialisations, the best on a validation subset kept
        ('auto': 1 for 'k-means++' and an array, 3 otherwise).
    reassignment_ratio : float, default=0.01
        Clusters whose count is below this fraction of the largest count
        are moved to random batch samples.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres, in the family of the training data.
    labels_ : ndarray of shape (n_samples,)
        The cluster of each training sample (when ``compute_labels``).
    inertia_ : float
        Weighted sum of squared distances of the samples to their centres
        (see ``compute_labels``).
    n_iter_ : int
        Number of passes over the data.
    n_steps_ : int
        Number of mini-batches processed.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.cluster import MiniBatchKMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0],
    ...               [4, 2], [4, 0], [4, 4],
    ...               [4, 5], [0, 1], [2, 2],
    ...               [3, 2], [5, 5], [1, -1]])
    >>> kmeans = MiniBatchKMeans(n_clusters=2, random_state=0, batch_size=6,
    ...                          n_init="auto")
    >>> kmeans = kmeans.partial_fit(X[0:6, :])
    >>> kmeans = kmeans.partial_fit(X[6:12, :])
    >>> kmeans.cluster_centers_
    array([[3.375, 3.   ],
           [0.75 , 0.5  ]])
    >>> kmeans.predict([[0, 0], [4, 4]])
    array([1, 0], dtype=int32)
    >>> kmeans = MiniBatchKMeans(n_clusters=2, random_state=0, batch_size=6,
    ...                          max_iter=10, n_init="auto").fit(X)
    >>> kmeans.cluster_centers_
    array([[3.20967742, 3.56451613],
           [1.32758621, 0.77586207]])
    >>> kmeans.predict([[0, 0], [4, 4]])
    array([1, 0], dtype=int32)
    """

    # KMeans's initialisation (scikit-learn's draws, in the compute
    # namespace) and its prediction methods, which read only
    # ``cluster_centers_`` and the validation hooks both classes share.
    _initial_centers = KMeans._initial_centers
    _init_centroids = KMeans._init_centroids
    _test_data = KMeans._test_data
    _labels = KMeans._labels
    predict = KMeans.predict
    transform = KMeans.transform
    fit_transform = KMeans.fit_transform
    score = KMeans.score

    def _check_params_vs_input(self, X, xp=np) -> None:
        """scikit-learn's checks and resolved settings (``_tol``,
        ``_n_init``, ``_batch_size``, ``_init_size``), the tolerance computed
        in ``xp``."""
        check_params_vs_input(self, X, xp, default_n_init=3)
        self._batch_size = min(self.batch_size, X.shape[0])
        self._init_size = self.init_size
        if self._init_size is None:
            self._init_size = 3 * self._batch_size
            if self._init_size < self.n_clusters:
                self._init_size = 3 * self.n_clusters
        elif self._init_size < self.n_clusters:
            warnings.warn(
                f"init_size={self._init_size} should be larger than "
                f"n_clusters={self.n_clusters}. Setting it to "
                "min(3*n_clusters, n_samples)",
                RuntimeWarning,
                stacklevel=3,
            )
            self._init_size = 3 * self.n_clusters
        self._init_size = min(self._init_size, X.shape[0])

    def _init_subsample(self, X, x_sq, w, init, random_state, xp):
        """One initialisation's centres, on ``init_size`` rows drawn first
        (scikit-learn's ``_init_centroids``), in ``xp``."""
        n_samples = X.shape[0]
        if self._init_size < n_samples:
            rows = xp.asarray(random_state.randint(0, n_samples, self._init_size))
            X, x_sq, w = take_rows(X, rows, xp), x_sq[rows], w[rows]
        return self._initial_centers(
            X, x_sq, w, to_host(w), init, random_state, self.n_clusters, xp
        )

    def _checked_init(self, X, xp):
        init = self.init
        if _is_array_like(init):
            init = check_array(init, xp=xp, dtype=X.dtype, input_name="init")
            init = init.toarray() if is_sparse(init) else init.copy()
            self._validate_center_shape(X, init)
        return init

    def _step(self, X, w, centers, random_state, xp):
        return minibatch_step(
            X,
            w,
            centers,
            self._counts,
            random_state,
            random_reassign=self._random_reassign(),
            reassignment_ratio=self.reassignment_ratio,
            verbose=bool(self.verbose),
            xp=xp,
        )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute the centroids on X by chunking it into mini-batches.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training instances.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample: batches are drawn with probabilities
            proportional to it (not used by a callable or array ``init``).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        xp = compute_namespace()
        family = input_family(X)
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=_FLOAT_DTYPES)
        self._reset_device_cache()
        self._check_params_vs_input(X, xp)
        random_state = check_random_state(self.random_state)
        w = check_sample_weight(sample_weight, X.shape[0], xp=xp, dtype=X.dtype)
        w_host = to_host(w)
        n_samples = X.shape[0]
        init = self._checked_init(X, xp)
        x_sq = sq_norms(X, xp)

        # The validation rows, then each initialisation's draws.
        valid = xp.asarray(random_state.randint(0, n_samples, self._init_size))
        X_valid, w_valid = take_rows(X, valid, xp), w[valid]
        best_inertia = None
        for init_idx in range(self._n_init):
            if self.verbose:
                print(f"Init {init_idx + 1}/{self._n_init} with method {init}")
            centers = self._init_subsample(X, x_sq, w, init, random_state, xp)
            value = labels_inertia(X_valid, w_valid, centers, xp)[1]
            if self.verbose:
                print(f"Inertia for init {init_idx + 1}/{self._n_init}: {value}")
            if best_inertia is None or value < best_inertia:
                init_centers, best_inertia = centers, value

        centers = init_centers
        self._counts = np.zeros(self.n_clusters, dtype=X.dtype)
        self._ewa_inertia = None
        self._ewa_inertia_min = None
        self._no_improvement = 0
        self._n_since_last_reassign = 0

        sum_of_weights = np.sum(w_host)
        n_steps = (self.max_iter * n_samples) // self._batch_size
        # RandomState.choice(n_samples, batch_size, p=w / sum) of every step:
        # its cumulative sums (float64, normalised) once, then each step's
        # uniform draws searched in them.
        p = w_host / sum_of_weights
        # NumPy's checks of p (and their errors), with a draw of no sample
        # from a RandomState of its own.
        np.random.RandomState(0).choice(n_samples, 0, p=p)
        cdf = np.cumsum(p.astype(np.float64))
        cdf /= cdf[-1]
        unit = xp.ones(self._batch_size, dtype=X.dtype)
        for i in range(n_steps):
            uniform = random_state.random_sample(self._batch_size)
            rows = cdf.searchsorted(uniform, side="right")
            batch = take_rows(X, xp.asarray(rows), xp)
            new, batch_inertia = self._step(batch, unit, centers, random_state, xp)
            if self._tol > 0.0:
                squared_diff = float(to_host(xp.sum((new - centers) ** 2)))
            else:
                squared_diff = 0
            centers = new
            if self._mini_batch_convergence(
                i, n_steps, n_samples, squared_diff, batch_inertia
            ):
                break

        self.cluster_centers_ = to_family(centers, family)
        self._n_features_out = self.n_clusters
        self.n_steps_ = i + 1
        self.n_iter_ = int(np.ceil(((i + 1) * self._batch_size) / n_samples))
        if self.compute_labels:
            labels, self.inertia_ = labels_inertia(X, w, centers, xp)
            self.labels_ = to_family(labels, family)
        else:
            self.inertia_ = self._ewa_inertia * sum_of_weights
        return self

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the centres with one mini-batch ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The mini-batch.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            The weight of each sample (not used by a callable or array
            ``init``).

        Returns
        -------
        self : object
            Updated estimator.
        """
        has_centers = hasattr(self, "cluster_centers_")
        xp = compute_namespace()
        family = input_family(X)
        X = validate_data(
            self,
            X,
            xp=xp,
            accept_sparse="csr",
            dtype=_FLOAT_DTYPES,
            reset=not has_centers,
        )
        self._random_state = getattr(
            self, "_random_state", check_random_state(self.random_state)
        )
        w = check_sample_weight(sample_weight, X.shape[0], xp=xp, dtype=X.dtype)
        self.n_steps_ = getattr(self, "n_steps_", 0)

        if has_centers:
            centers = self._fitted("cluster_centers_", xp)
        else:
            self._reset_device_cache()
            self._check_params_vs_input(X, xp)
            init = self._checked_init(X, xp)
            centers = self._init_subsample(
                X, sq_norms(X, xp), w, init, self._random_state, xp
            )
            self._counts = np.zeros(self.n_clusters, dtype=X.dtype)
            self._n_since_last_reassign = 0

        centers = self._step(X, w, centers, self._random_state, xp)[0]
        self.cluster_centers_ = to_family(centers, family)
        if self.compute_labels:
            labels, self.inertia_ = labels_inertia(X, w, centers, xp)
            self.labels_ = to_family(labels, family)
        self.n_steps_ += 1
        self._n_features_out = self.n_clusters
        return self
