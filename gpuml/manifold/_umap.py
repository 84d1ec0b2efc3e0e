"""UMAP: Uniform Manifold Approximation and Projection, as a scikit-learn
estimator, on the GPU.

``fit`` reads as umap-learn's: validate; the exact k nearest neighbours
(:mod:`gpuml.neighbors._search`; other metrics and sparse data:
:mod:`gpuml.manifold._umap_metrics`), less those at
``disconnection_distance`` or beyond; the fuzzy simplicial set
(:mod:`gpuml.manifold._umap_graph`); with a target, its intersection with
the labels' simplicial set; an initial layout (spectral, PCA, random or
given), scaled as umap-learn scales it; the stochastic gradient descent
(:mod:`gpuml.manifold._umap_layout`). On a GPU every step runs on the
device except the spectral initialisation's small eigenproblems below 4,096
points, the supervised intersection (SciPy on the graph), the
initialisation's scaling of an (n, n_components) array, a callable
metric's distances, ``unique=True``'s search for distinct rows and the
TruncatedSVD start of sparse data (host copies); on the CPU the same
algorithm runs with NumPy and SciPy. densMAP (:mod:`gpuml.manifold._umap_densmap`)
lays out on the device too (its local radii are summed on the host);
non-euclidean output metrics (:mod:`gpuml.manifold._umap_output_metric`)
lay out on the host, the neighbours, graph and start still on the device.
The model operations (composition, ``inverse_transform``, ``update``,
``precomputed_knn``, transform with precomputed distances or to a graph)
are in :mod:`gpuml.manifold._umap_ops`.
"""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import curve_fit
from scipy.sparse.csgraph import connected_components
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from gpuml import _cuda, _cuml
from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._cuml import ENGINE_CONSTRAINT
from gpuml._sklearn_compat import Interval, Options, StrOptions, fit_context
from gpuml._validation import (
    assert_fits_dtype,
    check_array,
    validate_data,
)
from gpuml.base import DeviceCacheMixin
from gpuml.manifold import (
    _umap_densmap,
    _umap_ops,
    _umap_output_metric,
    _umap_target,
)
from gpuml.manifold import _umap_graph as graph_steps
from gpuml.manifold import _umap_layout as layout_steps
from gpuml.manifold import _umap_metrics as metric_steps
from gpuml.neighbors._search import (
    MAX_DEVICE_K,
    device_kneighbors,
    device_metric,
    neighbours_of,
)

_METRICS = {"euclidean", "l2", "manhattan", "cityblock", "l1", "cosine", "correlation"}
# Up to this many points the spectral initialisation runs on the host, GPU
# or not: ARPACK (SciPy's eigsh, as umap-learn's) on the sparse graph, and
# a dense eigenproblem where ARPACK fails or the graph is tiny.
_HOST_SPECTRAL = 4096
# Up to this many points, the dense eigenproblem only (a few milliseconds;
# at 2,000 points it took 0.33 s on an H100's host, ARPACK about 0.01 s).
_DENSE_SPECTRAL = 512


def find_ab_params(spread: float, min_dist: float) -> tuple[float, float]:
    """umap-learn's ``a`` and ``b``: the curve ``1 / (1 + a x^(2b))`` fitted
    by least squares to 1 below ``min_dist`` and ``exp(-(x - min_dist) /
    spread)`` beyond it, over ``[0, 3 * spread]``."""

    def curve(x, a, b):
        return 1.0 / (1.0 + a * x ** (2 * b))

    x = np.linspace(0, spread * 3, 300)
    y = np.where(x < min_dist, 1.0, np.exp(-(x - min_dist) / spread))
    (a, b), _ = curve_fit(curve, x, y)
    return float(a), float(b)


def default_epochs(n_samples: int) -> int:
    """umap-learn's default number of epochs of a fit."""
    return 500 if n_samples <= 10_000 else 200


def memory_estimate(n_samples: int, n_features: int, n_neighbors: int, dim: int) -> int:
    """Bytes of GPU memory a fit needs at most, about: the kNN search (data
    in float64, a score tile of up to 2 GB, results), the graph's 2 n k entries
    (keys, values, sort order, weights, sampling clocks: about 44 bytes
    each) and two copies of the embedding."""
    from gpuml.neighbors._search import device_memory_estimate

    knn = device_memory_estimate(n_samples, n_samples, n_features, n_neighbors)
    graph = 44 * 2 * n_samples * n_neighbors
    return knn + graph + 8 * n_samples * dim


class UMAP(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, DeviceCacheMixin, BaseEstimator
):
    """Uniform Manifold Approximation and Projection.

    umap-learn's :class:`umap.UMAP` (the parameters listed here, with their
    meaning and defaults) as a scikit-learn estimator, computed on the GPU
    when one is in use: the exact nearest neighbours, the fuzzy simplicial
    set, the spectral initialisation and the layout's gradient descent
    (a callable metric's distances on the host).

    Parameters
    ----------
    n_neighbors : int, default=15
        The size of the local neighbourhood (in samples, the point itself
        counted, as in umap-learn) used to approximate the manifold; at
        most 127 on the GPU.
    n_components : int, default=2
        The dimension of the embedding (at most 16 on the GPU).
    metric : str or callable, default='euclidean'
        The metric of the input space, with umap-learn's definitions and
        names: 'euclidean', 'manhattan', 'chebyshev', 'minkowski',
        'wminkowski', 'seuclidean', 'mahalanobis', 'canberra',
        'braycurtis', 'cosine', 'correlation', 'hellinger', 'haversine',
        'hamming', the binary metrics 'jaccard', 'dice', 'matching',
        'kulsinski', 'rogerstanimoto', 'russellrao', 'sokalmichener',
        'sokalsneath', 'yule', and umap-learn's aliases ('l2', 'l1',
        'cityblock', 'taxicab', 'linfinity'...); sparse ``X`` takes
        umap-learn's sparse metrics (see :doc:`/umap`). A callable
        ``metric(x, y, **metric_kwds)`` of two dense rows (numba-jitted or
        not) returns a distance or ``(distance, gradient)``; it runs on the
        host. With 'precomputed', ``X`` is a square matrix of distances,
        dense, or sparse (a kNN graph: each row's stored distances are its
        candidate neighbours, missing entries never neighbours), and
        ``transform`` takes the new points' distances to the training
        points.
    metric_kwds : dict, default=None
        The metric's parameters, by umap-learn's names: ``p`` (minkowski,
        wminkowski), ``w`` (wminkowski), ``sigma`` (seuclidean: the
        variances), ``vinv`` (mahalanobis: the inverse covariance); a
        callable's keyword arguments.
    n_epochs : int, default=None
        The number of training epochs: 500 for at most 10,000 samples, else
        200, when None (umap-learn's rule).
    learning_rate : float, default=1.0
        The initial learning rate of the embedding optimisation.
    init : {'spectral', 'pca', 'random'} or ndarray of shape \
            (n_samples, n_components), default='spectral'
        The initial layout. 'spectral' uses the graph Laplacian's
        eigenvectors (PCA when the graph is not connected).
    min_dist : float, default=0.1
        The effective minimum distance between embedded points.
    spread : float, default=1.0
        The effective scale of embedded points.
    set_op_mix_ratio : float, default=1.0
        Interpolates between the fuzzy union (1.0) and intersection (0.0) of
        the local fuzzy simplicial sets.
    local_connectivity : float, default=1.0
        The number of nearest neighbours assumed connected at a local level.
    repulsion_strength : float, default=1.0
        The weight of negative samples in the optimisation.
    negative_sample_rate : int, default=5
        The number of negative samples per positive sample.
    a : float, default=None
        The embedding's curve parameter; found from ``min_dist`` and
        ``spread`` when None.
    b : float, default=None
        The embedding's curve parameter; found from ``min_dist`` and
        ``spread`` when None.
    target_metric : {'categorical', 'ordinal', 'count', 'string', \
            'euclidean', 'manhattan', 'cosine', 'correlation'}, \
            default='categorical'
        In supervised UMAP, the target's metric: 'categorical' labels (-1:
        unlabelled); the other discrete metrics of umap-learn (``ordinal``
        and ``count`` for numbers, ``string`` for strings, compared by edit
        distance); or one of the data's metrics, for a continuous target
        (of one or more columns), whose own neighbours make a graph that
        is intersected with the data's ('l2', 'l1' and 'cityblock' are
        aliases).
    target_n_neighbors : int, default=-1
        The neighbours of each sample in a continuous target's graph; -1:
        ``n_neighbors``.
    target_weight : float, default=0.5
        In supervised UMAP, the weight of the target against the data (0:
        the data only, 1: the target as much as possible).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the negative samples: with a seed, a
        fit repeats exactly on the same device.
    transform_seed : int, RandomState instance or None, default=42
        Seeds the negative samples of ``transform``, ``inverse_transform``
        and ``update`` (umap-learn's parameter and default).
    transform_mode : {'embedding', 'graph'}, default='embedding'
        'graph': ``fit`` stops at the fuzzy simplicial set (no
        ``embedding_``), ``fit_transform`` returns ``graph_`` and
        ``transform`` the new points' memberships to the training points (a
        sparse matrix of shape (n_queries, n_samples) in the family of X).
    precomputed_knn : tuple, default=(None, None, None)
        ``(knn_indices, knn_dists)`` or ``(knn_indices, knn_dists,
        search_index)``: NumPy arrays of shape (n_samples, k), k at least
        ``n_neighbors`` (cut to it), each row's nearest neighbours, itself
        first, and their distances, used instead of a search (umap-learn's
        checks and warnings). ``transform`` needs the third element (any
        object: gpuml searches the training data itself) and raises
        ``NotImplementedError`` without it.
    n_jobs : int, default=-1
        The host threads of the BLAS and OpenMP libraries during ``fit`` and
        ``transform`` (-1: as they are); the host computes everything on
        the CPU and the graph's and the start's steps on the GPU. umap-learn's
        parameter (its numba threads), with its rule: a positive integer or
        -1. Unlike umap-learn, a seed does not turn parallelism off.
    force_approximation_algorithm : bool, default=False
        umap-learn's switch to approximate (NN-descent) neighbours below
        4,096 samples. gpuml's neighbours are exact at every size, so it
        changes nothing; it is accepted so that umap-learn's code runs.
    low_memory : bool, default=True
        umap-learn's switch to NN-descent's slower, leaner neighbour search.
        gpuml's search is exact and bounded in memory by its tiles at every
        setting, so it changes nothing; it is accepted so that umap-learn's
        code runs.
    unique : bool, default=False
        Embed each distinct row once (umap-learn's rule): the fit runs on the
        distinct rows and every copy of a row gets its position, so
        duplicates do not crowd each other's neighbourhoods. ``graph_`` is
        then the distinct rows' (in ``np.unique``'s order) and
        ``_unique_inverse_`` maps each row to its distinct row. Not with
        ``metric='precomputed'``.
    disconnection_distance : float > 0, default=None
        Neighbours at this distance or beyond are removed from the kNN
        graph; None: umap-learn's default, the largest distance of a
        bounded metric (1 for jaccard, dice and hellinger, 2 for cosine and
        correlation), else infinity. Points left without an edge are
        embedded at NaN, with umap-learn's warning.
    densmap : bool, default=False
        densMAP (umap-learn's): the layout also keeps the local densities of
        the data, adding in its last ``dens_frac`` of epochs the gradient of
        the correlation between the points' local radii in the data and in
        the embedding. The default number of epochs is then 200 more (700
        up to 10,000 samples, else 400). Euclidean ``output_metric`` only;
        no ``transform``.
    dens_lambda : float, default=2.0
        densMAP's weight of the density correlation (>= 0; 0: UMAP's layout).
    dens_frac : float, default=0.3
        The fraction of the epochs, at the end, that include the density
        correlation (in [0, 1]).
    dens_var_shift : float, default=0.1
        Added to the variance of the embedding's local radii (>= 0), which
        keeps the correlation's gradient stable.
    output_dens : bool, default=False
        Compute the local radii (log) of each point in the data and in the
        embedding (``rad_orig_``, ``rad_emb_``), with or without densMAP;
        ``fit_transform`` then returns ``(embedding, r_orig, r_emb)`` as
        umap-learn's does.
    output_metric : str or callable, default='euclidean'
        The metric of the embedding's space (umap-learn's): 'euclidean'
        ('l2'); or, laid out on the host by umap-learn's generic rule,
        'manhattan' ('l1', 'taxicab'), 'chebyshev' ('linf', 'linfinity',
        'linfty'), 'minkowski' (``p``), 'seuclidean' (``sigma``),
        'wminkowski' (``w``, ``p``), 'mahalanobis' (``vinv``), 'canberra',
        'braycurtis', 'cosine', 'correlation', 'haversine' (latitude and
        longitude in radians: ``n_components=2``) and 'hyperboloid' (these
        layouts run on the host, also when a GPU computes the rest); or a
        callable ``f(x, y, *kwds) -> (distance, gradient)`` of two 1-D
        arrays (a numba-jitted one runs in a jitted loop, any other in a
        Python loop). umap-learn's 'hellinger', 'softmax_hellinger',
        'symmetric_kl' and Gaussian energies are not gpuml's (a callable
        can stand in); metrics without a gradient are errors.
    output_metric_kwds : dict, default=None
        The output metric's parameters (by name for the named metrics; in
        order, as positional arguments, for a callable, as umap-learn).
    verbose : bool, default=False
        Print the stages and the progress of the epochs.
    engine : {"auto", "gpuml", "cuml"}, default="auto"
        Whose kernels fit on the GPU. ``"gpuml"``: gpuml's (exact
        neighbours). ``"cuml"``: cuML's UMAP with these settings (cuML must
        be installed; unsupervised, ``init`` other than ``'pca'``, the
        metrics above but ``'precomputed'``); its neighbours are approximate
        (nn-descent) above 50,000 samples unless ``random_state`` is set.
        ``transform`` is gpuml's either way. ``"auto"``: cuML's from
        500,000 samples with the euclidean or cosine metric and no
        ``random_state`` (where it measured several times faster), and where
        gpuml's kernels cannot go (``n_neighbors`` or ``n_components`` above
        their limits); otherwise gpuml's (see :doc:`/rapids`).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The embedding of the training data (float32), in the family (host or
        device) of the training input.
    graph_ : sparse matrix of shape (n_samples, n_samples)
        The fuzzy simplicial set (CSR; SciPy, or cupyx for device input).
    n_features_in_ : int
        Number of features seen during :term:`fit`.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when they are all
        strings.
    engine_ : {"gpuml", "cuml"}
        The engine that fitted the embedding.
    rad_orig_ : ndarray of shape (n_samples,)
        With ``output_dens``: each point's local radius in the data (log of
        the membership-weighted mean squared distance to its graph
        neighbours), in the family of the training input.
    rad_emb_ : ndarray of shape (n_samples,)
        With ``output_dens``: each point's local radius in the embedding
        (over the fuzzy simplicial set of the embedding's own neighbours).

    Model operations (umap-learn's): ``a * b``, ``a + b`` and ``a - b``
    combine two models fitted on the same samples into a new one (the fuzzy
    intersection, union or contrastive difference of their graphs, laid out
    again); :meth:`inverse_transform` maps embedded points back to the data
    space; :meth:`update` adds rows to a fitted model. A model fitted on one
    sample embeds it at the origin and cannot ``transform``.

    See Also
    --------
    gpuml.neighbors.NearestNeighbors : The exact neighbours search.
    gpuml.metrics.trustworthiness : A measure of the embedding's quality.

    Notes
    -----
    Differences from umap-learn: the neighbours are exact (umap-learn
    approximates them above 4,096 samples); the gradient descent updates
    every vertex in parallel from the positions at the start of each part
    of an epoch (four parts above 4,096 samples), so a seeded fit repeats
    on the same device (umap-learn's seeded fits run on one thread); a
    disconnected graph starts from PCA (sparse data: TruncatedSVD, on the
    host) rather than umap-learn's per-component spectral layout; targets
    take umap-learn's target metrics but ``hierarchical_categorical`` and
    metrics gpuml's data do not have (see ``target_metric``). Device
    memory: see :func:`memory_estimate`; a fit that cannot fit raises
    ``MemoryError`` before it starts.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from gpuml.manifold import UMAP
    >>> X, _ = load_digits(return_X_y=True)
    >>> embedding = UMAP(n_epochs=50, random_state=0).fit_transform(X[:300])
    >>> embedding.shape
    (300, 2)
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 2, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "metric": [StrOptions(set(metric_steps.ALIASES) | {"precomputed"}), callable],
        "metric_kwds": [dict, None],
        "n_epochs": [Interval(Integral, 1, None, closed="left"), None],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "init": [StrOptions({"spectral", "pca", "random"}), "array-like"],
        "min_dist": [Interval(Real, 0, None, closed="left")],
        "spread": [Interval(Real, 0, None, closed="neither")],
        "set_op_mix_ratio": [Interval(Real, 0, 1, closed="both")],
        "local_connectivity": [Interval(Real, 0, None, closed="left")],
        "repulsion_strength": [Interval(Real, 0, None, closed="left")],
        "negative_sample_rate": [Interval(Integral, 0, None, closed="left")],
        "a": [Interval(Real, 0, None, closed="neither"), None],
        "b": [Interval(Real, 0, None, closed="neither"), None],
        "target_metric": [StrOptions(set(_umap_target.DISCRETE) | _METRICS)],
        "target_n_neighbors": [
            Interval(Integral, 2, None, closed="left"),
            Options(Integral, {-1}),
        ],
        "target_weight": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
        "transform_seed": ["random_state"],
        "transform_mode": [StrOptions({"embedding", "graph"})],
        "precomputed_knn": "no_validation",
        "n_jobs": [Interval(Integral, 1, None, closed="left"), Options(Integral, {-1})],
        "force_approximation_algorithm": ["boolean"],
        "low_memory": ["boolean"],
        "unique": ["boolean"],
        "disconnection_distance": [Interval(Real, 0, None, closed="neither"), None],
        "densmap": ["boolean"],
        "dens_lambda": [Interval(Real, 0, None, closed="left")],
        "dens_frac": [Interval(Real, 0, 1, closed="both")],
        "dens_var_shift": [Interval(Real, 0, None, closed="left")],
        "output_dens": ["boolean"],
        "output_metric": [str, callable],
        "output_metric_kwds": [dict, None],
        "verbose": ["verbose"],
        "engine": ENGINE_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        n_neighbors=15,
        n_components=2,
        metric="euclidean",
        metric_kwds=None,
        n_epochs=None,
        learning_rate=1.0,
        init="spectral",
        min_dist=0.1,
        spread=1.0,
        set_op_mix_ratio=1.0,
        local_connectivity=1.0,
        repulsion_strength=1.0,
        negative_sample_rate=5,
        a=None,
        b=None,
        target_metric="categorical",
        target_n_neighbors=-1,
        target_weight=0.5,
        random_state=None,
        transform_seed=42,
        transform_mode="embedding",
        precomputed_knn=(None, None, None),
        n_jobs=-1,
        force_approximation_algorithm=False,
        low_memory=True,
        unique=False,
        disconnection_distance=None,
        densmap=False,
        dens_lambda=2.0,
        dens_frac=0.3,
        dens_var_shift=0.1,
        output_dens=False,
        output_metric="euclidean",
        output_metric_kwds=None,
        verbose=False,
        engine="auto",
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.metric = metric
        self.metric_kwds = metric_kwds
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.init = init
        self.min_dist = min_dist
        self.spread = spread
        self.set_op_mix_ratio = set_op_mix_ratio
        self.local_connectivity = local_connectivity
        self.repulsion_strength = repulsion_strength
        self.negative_sample_rate = negative_sample_rate
        self.a = a
        self.b = b
        self.target_metric = target_metric
        self.target_n_neighbors = target_n_neighbors
        self.target_weight = target_weight
        self.random_state = random_state
        self.transform_seed = transform_seed
        self.transform_mode = transform_mode
        self.precomputed_knn = precomputed_knn
        self.n_jobs = n_jobs
        self.force_approximation_algorithm = force_approximation_algorithm
        self.low_memory = low_memory
        self.unique = unique
        self.disconnection_distance = disconnection_distance
        self.densmap = densmap
        self.dens_lambda = dens_lambda
        self.dens_frac = dens_frac
        self.dens_var_shift = dens_var_shift
        self.output_dens = output_dens
        self.output_metric = output_metric
        self.output_metric_kwds = output_metric_kwds
        self.verbose = verbose
        self.engine = engine

    # ----------------------------------------------------------------- fit

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, ensure_all_finite=True):
        """Fit X into an embedded space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or \
                (n_samples, n_samples)
            The data (host or device family), or its distances with
            ``metric='precomputed'``.
        y : array-like of shape (n_samples,), default=None
            Categorical labels for supervised UMAP (-1: unlabelled).
        ensure_all_finite : bool or 'allow-nan', default=True
            scikit-learn's meaning (False: NaN and infinity accepted,
            'allow-nan': NaN only), umap-learn's keyword. Only a callable
            ``metric`` can measure rows with NaN or infinity: with a named
            metric the data must be finite whatever this says.

        Returns
        -------
        self : UMAP
            The fitted estimator.
        """
        with _host_threads(self.n_jobs):
            return self._fit(X, y, ensure_all_finite)

    def _fit(self, X, y, ensure_all_finite=True):
        xp = compute_namespace()
        _start_compiles(xp)
        family = input_family(X)
        X_given, fit_rows = X, id(X)  # a search's fold rows share neighbours
        self._reset_device_cache()
        self.__dict__.pop("_log_start", None)
        self.__dict__.pop("_unique_inverse_", None)
        self.__dict__.pop("rad_orig_", None)
        self.__dict__.pop("rad_emb_", None)
        self.__dict__.pop("_composed", None)
        self.__dict__.pop("_search_index", None)
        self._log("fit started")
        # sparse data (CSR, CSC, COO: as CSR); a precomputed kNN graph may
        # be sparse (its stored distances)
        X = self._validated(X, xp, ensure_all_finite, reset=True)
        self._log("data validated (copied to the device for the GPU)")
        n = X.shape[0]
        if self.metric == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"Precomputed distances must be a square matrix; got shape {X.shape}."
            )
        if self.min_dist > self.spread:
            raise ValueError("min_dist must be less than or equal to spread")
        distance = self._output_distance()
        self._checked_init(n)
        if y is not None:
            y = self._checked_target(y, n)
        self._metric = None
        if self.metric != "precomputed":
            self._metric = metric_steps.resolve(self.metric, self.metric_kwds, X)
        dd = self._disconnection_distance()
        inverse, X_all = None, X
        if self.unique:
            if self.metric == "precomputed":
                raise ValueError(
                    "unique=True is not available with metric='precomputed': "
                    "equal rows of a distance matrix are not equal points."
                )
            index, inverse = metric_steps.unique_rows(X)
            X = metric_steps.take_rows(X, index, xp)
            y = None if y is None else y[index]
            X_given = fit_rows = None  # no neighbours shared with a search
            n = X.shape[0]
            if not isinstance(self.init, str):
                raise ValueError(
                    "unique=True takes a named init ('spectral', 'pca' or "
                    "'random'), not an array: the array's rows would be the "
                    "distinct rows'."
                )
        rng = check_random_state(self.random_state)
        a, b = self._ab()
        self._supervised = y is not None
        if n == 1:  # umap-learn's special case
            _umap_ops.fit_one_sample(self, X_all, a, b, rng, family, inverse)
            return self
        k = self.n_neighbors
        if k >= n:
            warnings.warn(
                "n_neighbors is larger than the dataset size; truncating to "
                "X.shape[0] - 1",
                UserWarning,
                stacklevel=2,
            )
            k = n - 1
        device = xp is not np
        dim = self.n_components
        beyond_kernels = k > MAX_DEVICE_K or dim > layout_steps.MAX_DEVICE_COMPONENTS
        unsupported = _cuml.umap_unsupported(self.metric, self.init, y is not None)
        if unsupported is None and self.unique:
            unsupported = "embed each distinct row once (unique=True)"
        if unsupported is None and is_sparse(X):
            unsupported = "embed sparse data with gpuml's exact neighbours"
        if unsupported is None and (self.metric_kwds or np.isfinite(dd)):
            unsupported = "take metric_kwds or a disconnection_distance"
        if unsupported is None and (self.densmap or self.output_dens):
            unsupported = "fit densMAP or return the local radii (output_dens)"
        if unsupported is None and distance is not None:
            unsupported = f"embed in output_metric={self.output_metric!r}"
        given_knn = _umap_ops.given_knn(self, n, k, xp)
        if unsupported is None and given_knn is not None:
            unsupported = "start from a precomputed_knn"
        if unsupported is None and self.transform_mode == "graph":
            unsupported = "stop at the graph (transform_mode='graph')"
        prefer_cuml = beyond_kernels or _cuml.umap_prefers_cuml(
            n, self.metric, self.random_state
        )
        engine = _cuml.choose_engine(self, xp, unsupported, prefer_cuml)
        # umap-learn gives densMAP 200 more epochs by default
        epochs_by_size = default_epochs(n) + (200 if self.densmap else 0)
        n_epochs = self.n_epochs or epochs_by_size
        if engine == "cuml":
            self._fit_cuml(X, k, n_epochs, a, b, rng, family, fit_rows)
            return self
        if device and beyond_kernels:
            raise ValueError(
                f"On the GPU, gpuml's UMAP takes n_neighbors <= {MAX_DEVICE_K} and "
                f"n_components <= {layout_steps.MAX_DEVICE_COMPONENTS}; got "
                f"{self.n_neighbors} and {dim}. Use the CPU for more "
                "(gpuml.config_context(device='cpu')), or cuML's kernels "
                "(engine='cuml', with cuML installed)."
            )
        if device:
            width = X.shape[1]
            if is_sparse(X):  # the stored values' share of a dense row
                width = min(width, 2 * int(X.nnz) // max(n, 1) + 1)
            _check_memory(n, width, k, dim)
        prune_epochs = n_epochs if n_epochs > 10 else epochs_by_size
        # k neighbours, the point itself first among them (umap-learn's kNN)
        key = ("umap", self._metric_key(), k, xp.__name__)
        spec = self._metric or "precomputed"
        if given_knn is not None:
            dists, indices = given_knn
        else:
            dists, indices = neighbours_of(
                fit_rows, X_given, key, lambda: _kneighbors(X, X, k, spec, xp)
            )
        # umap-learn's disconnection: neighbours at disconnection_distance or
        # beyond are no neighbours (index -1, distance inf)
        far = _beyond(dists, dd, self.metric)
        removed = 0 if far is None else int(far.sum())
        if far is not None:
            far = xp.asarray(far)
            indices = xp.where(far, -1, indices)
            dists = xp.where(far, xp.inf, dists)
        self._log("nearest neighbours done")
        if device:
            values = graph_steps.memberships_device(
                dists, indices, self.local_connectivity, bipartite=False
            )
            edges, top = graph_steps.union_device(
                values, indices, self.set_op_mix_ratio
            )
            graph = edges.csr()
        else:
            values, _, _ = graph_steps.memberships_numpy(
                dists, indices, self.local_connectivity, bipartite=False
            )
            edges = graph_steps.union_numpy(values, indices, self.set_op_mix_ratio)
            graph = edges.csr()
        if y is not None:
            target_k = k if self.target_n_neighbors == -1 else self.target_n_neighbors
            graph = _umap_target.intersect(
                graph, y, self.target_metric, self.target_weight, target_k
            )
            edges = graph_steps.edges_from_csr(graph, xp)
            top = xp.asarray(
                np.array([graph.data.max()], dtype=np.float32).view(np.uint32)
            )
        self._log("fuzzy simplicial set done")
        _disconnection_warning(removed, graph, dd, X_all.shape[0], self.verbose)
        if self.transform_mode == "graph":  # umap-learn's: no layout
            if inverse is not None:
                self._unique_inverse_ = inverse
            fitted = (graph, X_all, k, a, b, rng, family, fit_rows, "gpuml")
            self._set_fitted(None, *fitted)
            return self
        if device:
            periods = graph_steps.schedule_device(
                edges.weights, top, n_epochs, prune_epochs
            )
        else:
            periods = graph_steps.schedule_numpy(edges.weights, n_epochs, prune_epochs)
        start = self._initial_layout(X, graph, edges, dim, rng, xp)
        self._log("initial layout done")
        seed = int(rng.randint(np.iinfo(np.int32).max)) << 31 | int(
            rng.randint(np.iinfo(np.int32).max)
        )
        gradient, rad_orig = self._gradient(
            distance, a, b, edges, periods, dists, indices, n
        )
        settings = self._layout_settings(a, b, self.learning_rate, True, seed, gradient)
        embedding = layout_steps.layout(
            xp,
            xp.asarray(start),
            None,
            edges.indptr,
            edges.keys,
            periods,
            n_epochs,
            settings,
        )
        self._log("layout done")
        if self.output_dens:
            rad_emb = _embedding_radii(embedding, k, xp)
            if inverse is not None:
                rad_orig, rad_emb = rad_orig[inverse], rad_emb[inverse]
            self.rad_orig_ = to_family(xp.asarray(rad_orig), family)
            self.rad_emb_ = to_family(xp.asarray(rad_emb), family)
        # vertices with no edge left: NaN, as umap-learn marks them
        alone = np.asarray(graph.sum(axis=1)).ravel() == 0
        if alone.any():
            embedding[xp.asarray(alone)] = xp.nan
        if inverse is not None:  # every row at its distinct row's position
            embedding, X = embedding[xp.asarray(inverse)], X_all
            self._unique_inverse_ = inverse
        self._set_fitted(embedding, graph, X, k, a, b, rng, family, fit_rows, "gpuml")
        return self

    def _output_distance(self):
        """The output metric's batch gradient function, or None for a
        euclidean one; umap-learn's errors (and densMAP's: euclidean only)."""
        distance = _umap_output_metric.resolve(
            self.output_metric, self.output_metric_kwds, self.n_components
        )
        if self.densmap and (
            callable(self.output_metric)
            or self.output_metric not in _umap_output_metric.EUCLIDEAN
        ):
            raise ValueError(
                "Non-Euclidean output metric not supported for densMAP: "
                f"output_metric={self.output_metric!r} with densmap=True (use "
                "output_metric='euclidean')."
            )
        return distance

    def _gradient(self, distance, a, b, edges, periods, dists, indices, n):
        """The layout's gradient other than the euclidean one (densMAP's, an
        output metric's) or None; and with densMAP or ``output_dens``, the
        data's local radii (host; see :mod:`~gpuml.manifold._umap_densmap`)."""
        gradient, rad_orig = None, None
        if distance is not None:
            gradient = _umap_output_metric.GenericGradient(
                distance, a, b, self.repulsion_strength, moves=2
            )
        if not (self.densmap or self.output_dens):
            return gradient, None
        heads, tails, kept = _umap_densmap.graph_edges(edges.keys, periods, n)
        mu = to_host(edges.weights)
        distances = _umap_densmap.knn_edge_distances(
            dists, indices, heads[kept], tails[kept], n
        )
        rad_orig, mu_sum = _umap_densmap.data_radii(
            heads[kept], tails[kept], mu[kept], distances, n
        )
        if self.densmap:
            R = (rad_orig - np.mean(rad_orig)) / np.std(rad_orig)
            gradient = _umap_densmap.DensmapGradient(
                a=a,
                b=b,
                gamma=self.repulsion_strength,
                dens_lambda=self.dens_lambda,
                dens_frac=self.dens_frac,
                var_shift=self.dens_var_shift,
                heads=heads,
                tails=tails,
                kept=kept,
                mu=mu,
                R=R,
                mu_sum=mu_sum,
            )
        return gradient, rad_orig

    def _fit_cuml(self, X, k, n_epochs, a, b, rng, family, fit_rows):
        """The fit by cuML's UMAP (``engine="cuml"``): the same settings,
        gpuml's ``a``, ``b``, epochs and initial array; cuML's neighbours
        (approximate above 50,000 samples without a ``random_state``)."""
        init = self.init
        if not isinstance(init, str):
            init = self._initial_layout(X, None, None, self.n_components, rng, np)
        seed = None
        if self.random_state is not None:
            seed = int(rng.randint(np.iinfo(np.int32).max))
        embedding, graph = _cuml.fit_umap(
            X,
            k=k,
            n_epochs=n_epochs,
            a=a,
            b=b,
            init=init,
            seed=seed,
            params={
                "n_components": self.n_components,
                "metric": self.metric,
                "learning_rate": self.learning_rate,
                "min_dist": self.min_dist,
                "spread": self.spread,
                "set_op_mix_ratio": self.set_op_mix_ratio,
                "local_connectivity": self.local_connectivity,
                "repulsion_strength": self.repulsion_strength,
                "negative_sample_rate": self.negative_sample_rate,
            },
        )
        self._log("fitted by cuML's UMAP")
        self._set_fitted(embedding, graph, X, k, a, b, rng, family, fit_rows, "cuml")

    def _set_fitted(self, embedding, graph, X, k, a, b, rng, family, fit_rows, engine):
        """The fitted attributes, and what ``transform`` needs."""
        self.engine_ = engine
        self.__dict__.pop("embedding_", None)
        if embedding is not None:  # none with transform_mode='graph'
            self.embedding_ = to_family(embedding, family)
        self.graph_ = to_family(graph, family)
        self._raw_data = to_family(X, family)
        self._n_neighbors = k
        self._fit_rows = fit_rows
        self._a, self._b = a, b

    def fit_transform(self, X, y=None, ensure_all_finite=True):
        """Fit X into an embedded space and return that transformed output.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data (host or device family).
        y : array-like of shape (n_samples,), default=None
            Categorical labels for supervised UMAP (-1: unlabelled).
        ensure_all_finite : bool or 'allow-nan', default=True
            As in :meth:`fit`.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Embedding of the training data (float32), in the family of ``X``;
            with ``transform_mode='graph'``, ``graph_``.
        r_orig : ndarray of shape (n_samples,)
            With ``output_dens=True`` only: the log local radii of the data
            (``rad_orig_``).
        r_emb : ndarray of shape (n_samples,)
            With ``output_dens=True`` only: the log local radii of the
            embedding (``rad_emb_``).
        """
        self.fit(X, y, ensure_all_finite=ensure_all_finite)
        if self.transform_mode == "graph":
            return self.graph_
        embedding = to_output(self.embedding_, X, self.get_feature_names_out)
        if self.output_dens:  # umap-learn's tuple
            return embedding, self.rad_orig_, self.rad_emb_
        return embedding

    def transform(self, X, ensure_all_finite=True):
        """Embed new points against the fitted ones.

        Each new point's neighbours among the training data give its
        memberships, its first position (their weighted mean) and the edges
        of a shorter optimisation in which only the new points move
        (umap-learn's ``transform``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features)
            New data (host or device family); with ``metric='precomputed'``
            their distances to the training points, of shape (n_queries,
            n_samples), dense or sparse (at least ``n_neighbors`` stored
            distances per row).
        ensure_all_finite : bool or 'allow-nan', default=True
            As in :meth:`fit`.

        Returns
        -------
        X_new : ndarray of shape (n_queries, n_components)
            Embedding of the new data (float32), in the family of ``X``;
            with ``transform_mode='graph'``, the new points' memberships to
            the training points (sparse, of shape (n_queries, n_samples)).
        """
        check_is_fitted(self)
        with _host_threads(self.n_jobs):
            return self._transform(X, ensure_all_finite)

    def _transform(self, X, ensure_all_finite=True):
        if self.densmap:
            raise NotImplementedError(
                "Transforming data into an existing embedding is not supported for "
                "densMAP (umap-learn's rule): fit with densmap=False to transform."
            )
        _umap_ops.check_transformable(self)
        xp = compute_namespace()
        _start_compiles(xp)
        family = input_family(X)
        X_given = X
        precomputed = self.metric == "precomputed"
        X = self._validated(X, xp, ensure_all_finite, reset=False)
        train = self._fitted("_raw_data", xp)
        if not precomputed:
            X = _like(X, train, xp)  # sparse queries for a sparse fit, else dense
        n_train, k, q = train.shape[0], self._n_neighbors, X.shape[0]
        key = ("umap", self._metric_key(), k, xp.__name__)

        def search():
            if precomputed:  # X: the new points' distances to the training points
                return _umap_ops.precomputed_neighbours(X, train, k, xp)
            return _kneighbors(train, X, k, self._metric, xp)

        dists, indices = neighbours_of(self._fit_rows, X_given, key, search)
        # umap-learn's transform: neighbours at disconnection_distance or
        # beyond are no neighbours (their distances stay)
        far = _beyond(dists, self._disconnection_distance(), self.metric)
        if far is not None:
            indices = xp.where(xp.asarray(far), -1, indices)
        lc = max(0.0, self.local_connectivity - 1.0)
        device = xp is not np
        if device:
            values = graph_steps.memberships_device(dists, indices, lc, bipartite=True)
        else:
            values, _, _ = graph_steps.memberships_numpy(
                dists, indices, lc, bipartite=True
            )
        if self.transform_mode == "graph":
            return _umap_ops.membership_graph(values, indices, n_train, family)
        reference = self._fitted("embedding_", xp)
        # One row of k entries per new point (keys row * n_train + column).
        indices_h, values_h = to_host(indices), to_host(values)
        indices_h = np.where(indices_h < 0, 0, indices_h)  # weight 0 there
        rows = np.repeat(np.arange(q, dtype=np.int64), k)
        weights = values_h.ravel().astype(np.float32)
        keys = rows * n_train + indices_h.ravel()
        indptr = np.arange(0, q * k + 1, k, dtype=np.int64)
        n_epochs = (
            (100 if q <= 10_000 else 30)
            if self.n_epochs is None
            else self.n_epochs // 3
        )
        n_epochs = max(n_epochs, 1)
        start = _graph_mean(indptr, indices_h, weights, to_host(reference))
        periods = graph_steps.schedule_numpy(weights, n_epochs, n_epochs)
        distance = self._output_distance()
        gradient = None
        if distance is not None:
            gradient = _umap_output_metric.GenericGradient(
                distance, self._a, self._b, self.repulsion_strength
            )
        settings = self._layout_settings(
            self._a,
            self._b,
            self.learning_rate / 4.0,
            False,
            _umap_ops.seed_of(self.transform_seed),
            gradient,
        )
        graph = (xp.asarray(indptr), xp.asarray(keys), xp.asarray(periods))
        embedding = layout_steps.layout(
            xp, xp.asarray(start), _far_nan(reference, xp), *graph, n_epochs, settings
        )
        return to_output(
            to_family(embedding, family), X_given, self.get_feature_names_out
        )

    def inverse_transform(self, X):
        """Map points of the embedding back into the data space.

        umap-learn's algorithm: each point's nearest training embeddings (as
        many as the data have features, at most the training size), their
        memberships ``1 / (1 + a d^(2b))``, a start at the weighted mean of
        their training rows, then a gradient descent in the data space
        toward those rows (away from random ones). Not for
        ``metric='precomputed'``, sparse training data, a composed model or
        ``transform_mode='graph'`` (ValueError).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_components)
            Points of the embedding (host or device family).

        Returns
        -------
        X_original : ndarray of shape (n_queries, n_features)
            Points in the data space, in the training data's dtype and the
            family of ``X``.
        """
        with _host_threads(self.n_jobs):
            return _umap_ops.inverse_transform(self, X)

    def update(self, X, ensure_all_finite=True):
        """Add new data to the fitted model (umap-learn's ``update``).

        The rows of ``X`` are appended to the training data; the neighbours
        and the graph of all rows are computed again, and the embedding is
        optimised again (``n_epochs``, or the fit's default for the new size
        when None) from the old embedding, each new row starting at the mean
        of its neighbours among the old rows. Not for
        ``metric='precomputed'``, supervised fits, ``unique=True`` or
        composed models (ValueError).

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            The new data (host or device family).
        ensure_all_finite : bool or 'allow-nan', default=True
            scikit-learn's meaning: True refuses NaN and infinity,
            'allow-nan' accepts NaN only, False accepts both.

        Returns
        -------
        self : UMAP
            The updated estimator (``embedding_``, ``graph_`` of all rows).
        """
        with _host_threads(self.n_jobs):
            return _umap_ops.update(self, X, ensure_all_finite)

    def __mul__(self, other):
        """The model of the fuzzy intersection of two models' graphs (the
        same samples), laid out again (umap-learn's ``*``)."""
        if not isinstance(other, UMAP):
            return NotImplemented
        return _umap_ops.compose(self, other, "*")

    def __add__(self, other):
        """The model of the fuzzy union of two models' graphs (the same
        samples), laid out again (umap-learn's ``+``)."""
        if not isinstance(other, UMAP):
            return NotImplemented
        return _umap_ops.compose(self, other, "+")

    def __sub__(self, other):
        """The model of umap-learn's contrastive difference of two models'
        graphs (``-``: the left's edges weighted by the complement of the
        right's), laid out again."""
        if not isinstance(other, UMAP):
            return NotImplemented
        return _umap_ops.compose(self, other, "-")

    # ------------------------------------------------------------- helpers

    @property
    def _n_features_out(self) -> int:
        """The embedding's dimension (``get_feature_names_out``: umap0, ...);
        with ``transform_mode='graph'``, the graph's columns."""
        if self.transform_mode == "graph":
            return self.graph_.shape[1]
        return self.embedding_.shape[1]

    def _layout_settings(self, a, b, initial_alpha, same_space, seed, gradient=None):
        """The layout's settings; a fit reports its epochs with ``verbose``,
        a transform does not (as umap-learn's). ``gradient``: densMAP's or
        an output metric's, or None (euclidean)."""
        return layout_steps.LayoutSettings(
            a=a,
            b=b,
            gamma=self.repulsion_strength,
            initial_alpha=initial_alpha,
            negative_rate=self.negative_sample_rate,
            same_space=same_space,
            seed=seed,
            verbose=bool(self.verbose) and same_space,
            gradient=gradient,
        )

    def _validated(self, X, xp, ensure_all_finite, reset: bool):
        """``X`` for ``fit`` (``reset``), ``transform`` or ``update``: dense, or
        sparse as CSR, float32 or float64, finite by :meth:`_finite_rule`;
        umap-learn computes in float32 and refuses what overflows it
        (infinity passes where ``ensure_all_finite`` lets it)."""
        rule = self._finite_rule(ensure_all_finite)
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=reset,
            accept_sparse="csr",
            dtype=(np.float32, np.float64),
            ensure_all_finite=rule,
        )
        if rule is True:
            assert_fits_dtype(X, np.float32, xp=xp, input_name="X")
        return X

    def _finite_rule(self, ensure_all_finite):
        """scikit-learn's ``ensure_all_finite`` for the data: as given for a
        callable metric (which may measure NaN or infinity), else True
        (gpuml's named metrics need finite values)."""
        if ensure_all_finite not in (True, False, "allow-nan"):
            raise ValueError(
                "ensure_all_finite should be a bool or 'allow-nan'; got "
                f"{ensure_all_finite!r}."
            )
        return ensure_all_finite if callable(self.metric) else True

    def _disconnection_distance(self) -> float:
        """umap-learn's: ``disconnection_distance``, or for None the metric's
        largest distance (1 for jaccard, dice and hellinger, 2 for cosine
        and correlation), else infinity."""
        if self.disconnection_distance is None:
            return metric_steps.disconnection_default(self.metric)
        return self.disconnection_distance

    def _metric_key(self):
        """The metric and its keywords, for a search's shared neighbours."""
        if not self.metric_kwds:
            return self.metric
        import joblib

        return (self.metric, joblib.hash(self.metric_kwds))

    def _ab(self) -> tuple[float, float]:
        if self.a is None or self.b is None:
            return find_ab_params(self.spread, self.min_dist)
        return float(self.a), float(self.b)

    def _log(self, message: str) -> None:
        """With ``verbose``, the stage and the seconds since fit began (the
        device's work finished first, so that the times are the stages')."""
        if not self.verbose:
            return
        import time

        from gpuml._backend import get_cupy, gpu_available

        if gpu_available():
            get_cupy().cuda.Device().synchronize()
        now = time.perf_counter()
        start = self.__dict__.setdefault("_log_start", now)
        print(f"UMAP: {message} ({now - start:.3f} s)", flush=True)

    def _initial_layout(self, X, graph, edges, dim: int, rng, xp):
        """umap-learn's initial layout, scaled as umap-learn scales it (the
        spectral and PCA layouts to at most 10 with noise of 1e-4, then
        every layout to [0, 10] per column): a host float32 array."""
        init = self.init
        n = X.shape[0]
        if isinstance(init, str) and init == "random":
            start = rng.uniform(low=-10.0, high=10.0, size=(n, dim)).astype(np.float32)
        elif isinstance(init, str):
            start = None
            if init == "spectral":
                start = _spectral_layout(graph, edges, dim, xp)
            if start is None:
                if self.metric != "precomputed":
                    start = _pca_layout(X, dim, xp, rng)
                else:
                    start = _umap_ops.mds_layout(X, dim, xp)
            if start is None:
                start = rng.uniform(low=-10.0, high=10.0, size=(n, dim))
            expansion = 10.0 / np.abs(start).max()
            start = (start * expansion).astype(np.float32)
            start += rng.normal(scale=0.0001, size=start.shape).astype(np.float32)
        else:
            start = self._checked_init(n)
        low, high = start.min(axis=0), start.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        # C order: the eigenvectors of np.linalg.eigh come Fortran-ordered
        return np.ascontiguousarray(10.0 * (start - low) / span, dtype=np.float32)

    def _checked_init(self, n: int):
        """An array ``init`` as a host float32 array of shape (n_samples,
        n_components), or None for a named initialisation.

        umap-learn's rules: a 2-D array of finite values that fit in
        float32 (NaN, infinity or 1e300 raise its ValueError rather than
        giving a NaN embedding).
        """
        if isinstance(self.init, str):
            return None
        init = check_array(self.init, xp=np, dtype=(np.float32, np.float64))
        assert_fits_dtype(init, np.float32, xp=np)
        dim = self.n_components
        if init.shape != (n, dim):
            raise ValueError(
                f"init must have shape (n_samples, n_components) = {(n, dim)}; "
                f"got {init.shape}."
            )
        return init.astype(np.float32)

    def _checked_target(self, y, n: int):
        """Supervised UMAP's target as a host array, validated as umap-learn
        validates it: numeric and finite (strings for
        ``target_metric='string'``); a column vector of shape (n_samples, 1)
        is read as its one column; several columns only for a continuous
        metric."""
        if self.target_metric == "string":
            y = np.asarray(to_host(y))
            if y.ndim == 2 and y.shape[1] == 1:
                y = y[:, 0]
            if y.ndim != 1 or not all(isinstance(value, str) for value in y):
                raise ValueError(
                    "target_metric='string' takes a 1d array of strings as y; "
                    f"got an array of shape {y.shape} and dtype {y.dtype}."
                )
        else:
            y = check_array(y, xp=np, ensure_2d=False, dtype="numeric", input_name="y")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y[:, 0]
            continuous = self.target_metric not in _umap_target.DISCRETE
            if y.ndim != 1 and not (continuous and y.ndim == 2):
                raise ValueError(
                    f"y should be a 1d array, got an array of shape {y.shape} "
                    "instead (several columns need a continuous target_metric, "
                    "such as 'euclidean')."
                )
        if y.shape[0] != n:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{n}, {y.shape[0]}]"
            )
        return y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.sparse = True
        tags.non_deterministic = self.random_state is None
        return tags


def _start_compiles(xp) -> None:
    """On a GPU, the neighbour search's and UMAP's kernel modules start
    compiling (or loading) in background threads at once: on a machine with
    an empty kernel cache the two compiles then overlap each other and the
    data's validation (an H100: 0.73 s and 1.34 s, one after the other
    before)."""
    if xp is not np:
        _cuda.prefetch_module("neighbors")
        _cuda.prefetch_module("umap")


def _host_threads(n_jobs: int):
    """The host's BLAS and OpenMP threads limited to ``n_jobs`` (-1: as
    they are)."""
    if n_jobs == -1:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=n_jobs)


def _check_memory(n: int, n_features: int, k: int, dim: int) -> None:
    """A clear error, before any work, when a fit cannot fit the GPU."""
    from gpuml._backend import get_cupy

    cupy = get_cupy()
    need = memory_estimate(n, n_features, k, dim)
    free, _ = cupy.cuda.runtime.memGetInfo()
    free += cupy.get_default_memory_pool().free_bytes()
    if need > free:
        raise MemoryError(
            f"UMAP of {n:,} samples x {n_features} features with n_neighbors={k} "
            f"needs about {need / 2**30:.1f} GiB of GPU memory; {free / 2**30:.1f} GiB "
            "is free. Fit on a sample of the data, free GPU memory, or use the CPU "
            "(gpuml.config_context(device='cpu'))."
        )


def _kneighbors(X_fit, X_query, k: int, metric, xp):
    """Exact kNN, self included for a fit: (distances, indices) in ``xp``
    (float64 and int64 on the device). ``metric``: "precomputed" or a
    :class:`~gpuml.manifold._umap_metrics.Metric`; dense data in the metrics
    of the device's search take that search on the GPU, everything else
    :func:`gpuml.manifold._umap_metrics.kneighbors`. Equal distances in the
    order of :func:`~gpuml.neighbors._search.tie_keys` on both backends (a
    row's own index first among its duplicates, the others' copies in an
    order of their own per query, as umap-learn's NN-descent picks them);
    euclidean distances of the selected rows computed directly, so that a
    duplicate's is 0."""
    if metric == "precomputed" and is_sparse(X_query):
        dists, indices = _sparse_precomputed_knn(to_host(X_query).tocsr(), k)
        return xp.asarray(dists), xp.asarray(indices)
    if isinstance(metric, str) and metric != "precomputed":
        metric = metric_steps.Metric(metric_steps.ALIASES[metric])
    if metric == "precomputed":
        if xp is not np:
            return device_kneighbors(X_fit, X_query, k, "precomputed", hashed_ties=True)
        D = np.asarray(X_query, dtype=np.float64)
        first = 0 if X_query is X_fit else X_fit.shape[0]
        rows = np.arange(first, first + D.shape[0])
        return metric_steps.select_host(D, k, rows=rows)
    scikit = _searched_as_before(metric, X_fit, X_query, xp)
    if xp is not np and scikit:
        resolved = device_metric(metric.name)
        return device_kneighbors(X_fit, X_query, k, resolved, hashed_ties=True)
    return metric_steps.kneighbors(
        metric, X_fit, X_query, k, xp, X_query is X_fit, scikit=scikit
    )


def _searched_as_before(metric, X_fit, X_query, xp) -> bool:
    """Whether the device's neighbour search of dense data (scikit-learn's
    on the CPU) finds umap-learn's neighbours: the euclidean and manhattan
    metrics, and cosine and correlation without a zero (or constant) row,
    whose distances umap-learn defines by its own convention."""
    if is_sparse(X_fit) or is_sparse(X_query) or metric.kwds:
        return False
    if metric.name in ("euclidean", "manhattan"):
        return True
    if metric.name not in ("cosine", "correlation"):
        return False
    for A in (X_fit,) if X_query is X_fit else (X_fit, X_query):
        if metric.name == "cosine":
            flat = xp.abs(A).max(axis=1) == 0
        else:
            flat = A.max(axis=1) == A.min(axis=1)
        if bool(flat.any()):
            return False
    return True


def _like(X, train, xp):
    """Query rows in the kind (sparse CSR or dense) of the training rows."""
    if is_sparse(train) and not is_sparse(X):
        return to_namespace(sp.csr_matrix(to_host(X)), xp)
    if not is_sparse(train) and is_sparse(X):
        return xp.asarray(X.toarray())
    return X


def _far_nan(reference, xp):
    """The training embedding for a transform's layout, its NaN rows (points
    disconnected from the manifold) moved far away: as umap-learn's layout
    skips a NaN negative sample, they then push nothing (a repulsion of
    1e-16 at 1e6). A new point with an edge to one starts at NaN (its
    neighbours' mean) and stays there, as in umap-learn."""
    nan = np.isnan(to_host(reference))  # on the host: no kernel to compile
    if not nan.any():
        return reference
    return xp.where(xp.asarray(nan), xp.float32(1e6), reference)


def _beyond(dists, distance: float, metric):
    """The neighbours at ``distance`` or beyond (a host boolean array of the
    kNN's shape), or None when there are none: found on a host copy of the
    distances (a fit's first use compiles no CuPy kernel for it); skipped
    where ``distance`` is infinite and the metric's distances are finite
    (every named metric's, of validated finite data)."""
    if np.isinf(distance) and not callable(metric):
        return None
    far = to_host(dists) >= distance
    return far if far.any() else None


def _disconnection_warning(removed, graph, distance, total_rows, verbose):
    """umap-learn's ``raise_disconnected_warning``: its texts, when vertices
    of the graph (a SciPy CSR) are left without an edge, and its 10%
    threshold between "a few" and "a large number"."""
    disconnected = int((np.asarray(graph.sum(axis=1)).ravel() == 0).sum())
    if verbose and disconnected == 0 and removed > 0:
        print(
            f"Disconnection_distance = {distance} has removed {removed} edges.  "
            "This is not a problem as no vertices were disconnected."
        )
    elif 0 < disconnected <= 0.1 * total_rows:
        warnings.warn(
            "A few of your vertices were disconnected from the manifold.  This "
            "shouldn't cause problems.\n"
            f"Disconnection_distance = {distance} has removed {removed} edges.\n"
            f"It has only fully disconnected {disconnected} vertices.\n"
            "Use umap.utils.disconnected_vertices() to identify them.",
            UserWarning,
            stacklevel=5,
        )
    elif disconnected > 0.1 * total_rows:
        warnings.warn(
            "A large number of your vertices were disconnected from the manifold.\n"
            f"Disconnection_distance = {distance} has removed {removed} edges.\n"
            f"It has fully disconnected {disconnected} vertices.\n"
            "You might consider using find_disconnected_points() to find and "
            "remove these points from your data.\n"
            "Use umap.utils.disconnected_vertices() to identify them.",
            UserWarning,
            stacklevel=5,
        )


def _embedding_radii(embedding, k: int, xp):
    """The embedding's log local radii (umap-learn's ``rad_emb``): its own
    ``k`` nearest neighbours (euclidean, on the device with a GPU), their
    fuzzy simplicial set, then the mean on the host
    (:func:`~gpuml.manifold._umap_densmap.embedding_radii`)."""
    n = embedding.shape[0]
    dists, indices = _kneighbors(embedding, embedding, k, "euclidean", xp)
    if xp is not np:
        values = graph_steps.memberships_device(dists, indices, 1.0, bipartite=False)
        edges, _ = graph_steps.union_device(values, indices, 1.0)
    else:
        values, _, _ = graph_steps.memberships_numpy(
            dists, indices, 1.0, bipartite=False
        )
        edges = graph_steps.union_numpy(values, indices, 1.0)
    keys, weights = to_host(edges.keys), to_host(edges.weights)
    kept = weights > 0
    heads, tails = keys[kept] // n, keys[kept] % n
    return _umap_densmap.embedding_radii(embedding, heads, tails, weights[kept], n)


def _sparse_precomputed_knn(D, k: int):
    """The k nearest of a sparse matrix of distances (host CSR; a kNN graph):
    each row's own index first at distance 0, then its stored entries by
    distance (ties by index); a row with fewer than k - 1 stored entries is
    padded with index -1 (no neighbour, membership 0) at its largest
    distance."""
    if (D.data < 0).any():
        raise ValueError(
            "Negative values in data passed to precomputed distance matrix."
        )
    n = D.shape[0]
    dists = np.zeros((n, k))
    indices = np.full((n, k), -1, dtype=np.int64)
    indices[:, 0] = np.arange(n)
    for i in range(n):
        start, stop = D.indptr[i], D.indptr[i + 1]
        columns, values = D.indices[start:stop], D.data[start:stop]
        others = columns != i
        columns, values = columns[others], values[others].astype(np.float64)
        order = np.lexsort((columns, values))[: k - 1]
        found = order.shape[0]
        indices[i, 1 : 1 + found] = columns[order]
        dists[i, 1 : 1 + found] = values[order]
        dists[i, 1 + found :] = dists[i, found]
    if (D.data < 0).any():
        raise ValueError(
            "Negative values in data passed to precomputed distance matrix."
        )
    return dists, indices


def _spectral_layout(graph, edges, dim: int, xp):
    """The eigenvectors of the normalised graph Laplacian for its ``dim``
    smallest nonzero eigenvalues (host array), or None when the graph is
    not connected or the eigensolver fails. Up to 4,096 points on the host
    (GPU or not): a dense eigenproblem up to 512 points, else ARPACK (dense
    where it does not converge); beyond, ARPACK on the CPU, or on the GPU
    :func:`~gpuml.manifold._umap_graph.top_eigenvectors_device` on the
    device's graph (checked for connectedness there too)."""
    n = graph.shape[0]
    k = dim + 1
    if k >= n:
        return None
    host = n <= _HOST_SPECTRAL or xp is np
    try:
        if host:
            if connected_components(graph, directed=False)[0] > 1:
                return None
            degree = np.asarray(graph.sum(axis=0)).ravel()
            scale = sp.diags(1.0 / np.sqrt(degree))
            normalised = (scale @ graph.astype(np.float64) @ scale).tocsr()
        if host and n > _DENSE_SPECTRAL:
            values, vectors = _arpack(normalised, k, dense_fallback=n <= _HOST_SPECTRAL)
        elif host:
            values, vectors = np.linalg.eigh(normalised.toarray())
        else:
            if not graph_steps.connected_device(edges):
                return None
            normalised = graph_steps.normalised_adjacency_device(edges)
            values, vectors = graph_steps.top_eigenvectors_device(normalised, k)
    except (np.linalg.LinAlgError, RuntimeError, FloatingPointError):
        # the eigensolver failed (SciPy's ArpackError is a RuntimeError):
        # another start, as umap-learn falls back on one
        return None
    order = np.argsort(values)[::-1][1:k]  # the largest of D^-1/2 W D^-1/2
    vectors = vectors[:, order]
    return vectors if np.isfinite(vectors).all() else None


def _arpack(normalised, k: int, dense_fallback: bool):
    """The ``k`` largest eigenpairs of a host sparse symmetric matrix by
    ARPACK (umap-learn's settings: tolerance 1e-4, ``sqrt(n)`` Lanczos
    vectors, a start of ones); where it does not converge, by a dense
    eigenproblem when ``dense_fallback`` (else its error)."""
    from scipy.sparse.linalg import ArpackNoConvergence, eigsh

    n = normalised.shape[0]
    ncv = max(2 * k + 1, int(np.sqrt(n)))
    try:
        return eigsh(
            normalised, k, which="LA", ncv=ncv, tol=1e-4, v0=np.ones(n), maxiter=n * 5
        )
    except ArpackNoConvergence:
        if not dense_fallback:
            raise
        return np.linalg.eigh(normalised.toarray())


def _pca_layout(X, dim: int, xp, rng=None):
    """The data's first ``dim`` principal components (host array); for
    sparse data, as umap-learn's, scikit-learn's TruncatedSVD (on the host;
    no centring); None for data with NaN or infinity (a callable metric's)."""
    from gpuml._linalg import thin_svd

    if is_sparse(X):
        from gpuml._sklearn_compat import sklearn_own

        TruncatedSVD = sklearn_own("sklearn.decomposition", "TruncatedSVD")

        host = to_host(X)
        if dim >= host.shape[1] or not np.isfinite(host.data).all():
            return None
        svd = TruncatedSVD(n_components=dim, random_state=rng)
        return svd.fit_transform(host).astype(np.float64)
    if not bool(xp.isfinite(X).all()):
        return None
    centred = X - X.mean(axis=0)
    if centred.shape[1] < dim:
        return None
    U, s, _ = thin_svd(centred.astype(np.float64), xp)
    return to_host(U[:, :dim] * s[:dim])


def _graph_mean(indptr, indices, weights, embedding):
    """A new point's first position: the weighted mean of its neighbours'
    embeddings (NaN for a row of zero weights), as umap-learn's
    ``init_graph_transform``."""
    q, k = indices.shape
    w = weights.reshape(q, k).astype(np.float64)
    total = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        # (an edge of weight 0 adds nothing, even to a NaN position)
        terms = np.where(w[:, :, None] > 0, w[:, :, None] * embedding[indices], 0.0)
        mean = terms.sum(axis=1) / total
    return mean.astype(np.float32)
