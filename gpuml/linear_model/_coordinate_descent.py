"""Lasso and ElasticNet, on the GPU or the CPU.

A fit (or a fold of a search) prepares its problem once, as scikit-learn's
``_pre_fit`` does (:class:`_EnetData`: centred and weighted, the Gram matrix
formed for dense X with ``n_samples >= n_features``, and on the GPU for
sparse X of that shape too), and hands every
``(alpha, l1_ratio)`` candidate and target of it to one batched coordinate
descent (:func:`fit_candidates`), whose solver and operators live in
:mod:`gpuml.linear_model._coordinate_descent_solver`.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils import check_random_state, metadata_routing
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
)
from gpuml._linalg import sparse_module, sparse_t_dot
from gpuml._reductions import column_mean
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    align_sparse_output,
    validate_estimator_params,
)
from gpuml._validation import (
    FLOAT_DTYPES,
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_X_y,
    validate_data,
)
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._coordinate_descent_solver import (
    _RAND_R_MAX,
    _DenseOps,
    _GramOps,
    _SparseOps,
    enet_coordinate_descent_batch,
)

_ACCEPT_SPARSE = ("csr", "csc", "coo")
NON_FINITE = (
    "Coordinate descent iterations resulted in non-finite parameter"
    " values. The input data may contain large values and need to"
    " be preprocessed."
)


# --------------------------------------------------------------------------
# The data of a fit: centred and weighted once, shared by the candidates.
# --------------------------------------------------------------------------


class _EnetData:
    """The centred, weighted problem of one fit (or fold), as scikit-learn's
    ``_pre_fit`` prepares it, and the operator that the solver reads.

    ``kind`` is ``"gram"`` (``G`` and ``Xy`` formed once), ``"dense"``
    (residual form) or ``"sparse"`` (raw CSC X, ``Y`` centred but not
    weighted, ``sw`` the rescaled weights).
    """

    def __init__(
        self, kind, X, Y, X_offset, y_offset, sw, xp, G=None, Xy=None, host=None
    ):
        self.kind, self.X, self.Y, self.sw, self.xp = kind, X, Y, sw, xp
        self.X_offset, self.y_offset, self.G, self.Xy = X_offset, y_offset, G, Xy
        # the GPU's Gram form (see _device_gram): X and Y are the raw data,
        # and host holds Xy, the diagonal of G and the centred targets'
        # squared norms on the host
        self.host = host

    def ops(self, targets):
        """The operator for candidates whose targets are the columns
        ``targets`` (host ints) of Y."""
        xp = self.xp
        if self.host is not None:
            targets = np.asarray(targets, dtype=np.int64)
            B = np.ascontiguousarray(self.host["Xy"][:, targets])
            y_norm2 = xp.asarray(self.host["y_norm2"][targets])
            norm2 = xp.asarray(self.host["diag"])
            return _GramOps(self.G, xp.asarray(B), y_norm2, xp, norm2=norm2)
        index = xp.asarray(np.asarray(targets, dtype=np.int64))
        Y = self.Y[:, index]
        if self.kind == "gram":
            # (the targets kept for the CPU's compiled solver only)
            targets_kept = Y if xp is np else None
            return _GramOps(
                self.G, self.Xy[:, index], (Y * Y).sum(axis=0), xp, Y=targets_kept
            )
        if self.kind == "dense":
            return _DenseOps(self.X, Y, xp)
        return _SparseOps(self.X, self.X_offset, self.sw, Y, xp)


def _writeable(X) -> bool:
    flags = getattr(X, "flags", None)
    return bool(getattr(flags, "writeable", True))


def _prepare(
    X, Y, sw, *, fit_intercept: bool, precompute, overwrite_X: bool, xp: ModuleType
) -> _EnetData:
    """Centre (weighted means) and weight the data as scikit-learn's
    ``_pre_fit`` does, and choose the operator: a Gram matrix for dense X
    when ``precompute`` is True or an array, or when ``n_samples >=
    n_features``; residuals otherwise and for sparse X.

    On the GPU, sparse X of at most :data:`_DEVICE_GRAM_MAX` features takes
    a dense form, whose sweeps are one kernel launch each (the sparse
    residual form's are a few CuPy operations per coordinate): its Gram
    matrix (:func:`_sparse_device_gram`) on the same condition as dense X,
    else X densified (at most ``n_features`` squared values). Negative
    weights keep it sparse (as scikit-learn's sparse solver takes them: a
    Gram matrix of such weights need not be positive, and the dense
    residual form takes their square roots)."""
    n_samples, n_features = X.shape
    if (
        xp is not np
        and is_sparse(X)
        and not _given_precompute(precompute)
        and 0 < n_features <= _DEVICE_GRAM_MAX
        and (sw is None or not bool((sw < 0).any()))
    ):
        if precompute is True or n_samples >= n_features:
            data = _sparse_device_gram(X, Y, sw, fit_intercept, xp)
            if data is not None:
                return data
        else:
            X, overwrite_X = X.toarray(), True
    if (
        xp is not np
        and not is_sparse(X)
        and not _given_precompute(precompute)
        and (precompute is True or n_samples >= n_features)
        and 0 < n_features <= _DEVICE_GRAM_MAX
    ):
        data = _device_gram(X, Y, sw, fit_intercept, xp)
        if data is not None:
            return data
    if fit_intercept:
        y_offset = column_mean(Y, sw, xp=xp)
    else:
        y_offset = xp.zeros(Y.shape[1], dtype=X.dtype)
    Y = Y - y_offset
    if is_sparse(X):
        X = X.tocsc()
        X_offset = _sparse_offset(X, sw, fit_intercept, xp)
        return _EnetData("sparse", X, Y, X_offset, y_offset, sw, xp)
    if fit_intercept:
        X_offset = column_mean(X, sw, xp=xp)
    else:
        X_offset = xp.zeros(n_features, dtype=X.dtype)
    if fit_intercept or sw is not None:
        if not (overwrite_X and _writeable(X)):
            X = X.copy()
        if fit_intercept:
            X -= X_offset
        if sw is not None:
            root = xp.sqrt(sw)
            X *= root[:, None]
            Y = Y * root[:, None]
    G = _given_gram(precompute, X, X_offset, fit_intercept, xp)
    if G is None and (precompute is True or n_samples >= n_features):
        G = X.T @ X
    if G is None:
        return _EnetData("dense", X, Y, X_offset, y_offset, sw, xp)
    return _EnetData("gram", X, Y, X_offset, y_offset, sw, xp, G=G, Xy=X.T @ Y)


#: The most features whose Gram matrix the GPU forms with gpuml's moment
#: kernels (its float64 sums come to the host once, (p + t)² values).
_DEVICE_GRAM_MAX = 2048


def _device_gram(X, Y, sw, fit_intercept: bool, xp: ModuleType):
    """The Gram form of dense data on the GPU, from gpuml's moment kernels
    and cuBLAS (Ridge's: ``_DeviceRidgeMoments``), without centring or
    copying X: the weighted Gram matrix of the centred rows, ``Xᵀ y`` and
    the targets' squared norms are summed in float64 at the weighted means
    (scikit-learn's offsets, in the data's dtype) and cast to the data's
    dtype. The same system as the general path's, more accurately summed,
    and no CuPy element-wise kernel to compile. None when a sum overflows
    the dtype (the general path then fails or warns as it does)."""
    from gpuml.linear_model._ridge_moments import _DeviceRidgeMoments

    n_samples, p = X.shape
    t = Y.shape[1]
    dtype = X.dtype
    moments = _DeviceRidgeMoments(X, Y, sw, fit_intercept, xp, [None])
    with np.errstate(all="ignore"):
        if fit_intercept:
            X_offset, y_offset = (
                np.asarray(to_host(column_mean(a, moments.weights, xp=xp)), dtype)
                for a in (moments.X, moments.Y)
            )
            centre = np.concatenate((X_offset, y_offset)).astype(np.float64)
        else:
            X_offset, y_offset = np.zeros(p, dtype), np.zeros(t, dtype)
            centre = None
        sums, _ = moments._design_sums(slice(0, n_samples), fit_intercept, centre)
        sums = np.asarray(to_host(sums))
        G = sums[:p, :p].astype(dtype)
        Xy = sums[:p, p : p + t].astype(dtype)
        y_norm2 = np.diagonal(sums[p : p + t, p : p + t]).astype(dtype)
    return _gram_form(X, Y, X_offset, y_offset, sw, xp, G, Xy, y_norm2)


def _gram_form(X, Y, X_offset, y_offset, sw, xp, G, Xy, y_norm2):
    """The GPU's Gram form of a fit's data (:func:`_device_gram`'s and
    :func:`_sparse_device_gram`'s sums, host or device arrays in the data's
    dtype): ``Xy``, ``y_norm2`` and ``G``'s diagonal also kept on the host,
    whence the operators of any targets are made; None when a sum or an
    offset is not finite (the general path then fails or warns as it
    does)."""
    G = xp.asarray(G)
    host = {
        "Xy": np.asarray(to_host(Xy)),
        "y_norm2": np.asarray(to_host(y_norm2)),
        "diag": np.ascontiguousarray(to_host(G.diagonal())),
    }
    parts = (*host.values(), to_host(X_offset), to_host(y_offset))
    if not (all(np.isfinite(a).all() for a in parts) and bool(xp.isfinite(G).all())):
        return None
    return _EnetData(
        "gram", X, Y, xp.asarray(X_offset), xp.asarray(y_offset), sw, xp,
        G=G, Xy=xp.asarray(Xy), host=host,
    )  # fmt: skip


def _sparse_offset(X, sw, fit_intercept: bool, xp: ModuleType):
    """The weighted column means of sparse X (zeros without an intercept),
    in X's dtype, as scikit-learn's sparse solver takes them."""
    if not fit_intercept:
        return xp.zeros(X.shape[1], dtype=X.dtype)
    weights = xp.ones(X.shape[0], dtype=X.dtype) if sw is None else sw
    return xp.asarray(sparse_t_dot(X, weights, xp)) / weights.sum()


#: How many values a block of densified rows of sparse X holds while its
#: Gram matrix is summed (float64: 128 MiB).
_GRAM_BLOCK = 1 << 24


def _sparse_device_gram(X, Y, sw, fit_intercept: bool, xp: ModuleType):
    """The Gram form of sparse X (:func:`_device_gram`'s, for the GPU): the
    weighted Gram matrix of the centred rows, ``Xᵀ y`` and the targets'
    squared norms, summed in float64 over blocks of rows made dense and
    centred at the weighted means (scikit-learn's offsets, in the data's
    dtype, as its sparse solver takes them), cast to the data's dtype. Any
    namespace (the tests run it with NumPy and SciPy); None when a sum
    overflows the dtype."""
    n_samples, p = X.shape
    dtype = X.dtype
    X = X.tocsr()
    X_offset = _sparse_offset(X, sw, fit_intercept, xp)
    if fit_intercept:
        y_offset = column_mean(Y, sw, xp=xp)
    else:
        y_offset = xp.zeros(Y.shape[1], dtype=dtype)
    mean, y_mean = X_offset.astype(xp.float64), y_offset.astype(xp.float64)
    w64 = (xp.ones(n_samples) if sw is None else sw).astype(xp.float64)
    G = xp.zeros((p, p), dtype=xp.float64)
    Xy = xp.zeros((p, Y.shape[1]), dtype=xp.float64)
    y_norm2 = xp.zeros(Y.shape[1], dtype=xp.float64)
    step = max(1, _GRAM_BLOCK // p)
    with np.errstate(all="ignore"):
        for lo in range(0, n_samples, step):
            rows = slice(lo, min(lo + step, n_samples))
            D = xp.asarray(X[rows].toarray(), dtype=xp.float64) - mean
            R = Y[rows].astype(xp.float64) - y_mean
            w = w64[rows, None]
            DW = D * w
            G += DW.T @ D
            Xy += DW.T @ R
            y_norm2 += (R * R * w).sum(axis=0)
        G = (G + G.T) / 2  # (D w)ᵀ D rounds apart from Dᵀ (D w)
        G, Xy, y_norm2 = (a.astype(dtype) for a in (G, Xy, y_norm2))
    return _gram_form(X, Y, X_offset, y_offset, sw, xp, G, Xy, y_norm2)


def _given_precompute(precompute) -> bool:
    """Whether ``precompute`` is a Gram matrix (not a flag)."""
    return not (isinstance(precompute, (bool, np.bool_)) or precompute is None)


def _given_gram(precompute, X, X_offset, fit_intercept: bool, xp: ModuleType):
    """A Gram matrix passed as ``precompute``, checked as scikit-learn
    checks it; None when none was given or, with a warning, when X was
    centred (scikit-learn then recomputes it)."""
    if not _given_precompute(precompute):
        return None
    n_features = X.shape[1]
    if fit_intercept and not np.allclose(to_host(X_offset), np.zeros(n_features)):
        warnings.warn(
            "Gram matrix was provided but X was centered to fit intercept: "
            "recomputing Gram matrix.",
            UserWarning,
            stacklevel=4,
        )
        return None
    G = check_array(precompute, xp=xp, dtype=X.dtype, input_name="precompute")
    f1 = n_features // 2
    f2 = min(f1 + 1, n_features - 1)
    expected = float(to_host(X[:, f1] @ X[:, f2]))
    actual = float(to_host(G[f1, f2]))
    rtol = 1e-4 if X.dtype == np.float32 else 1e-7
    if not np.isclose(expected, actual, rtol=rtol, atol=1e-5):
        raise ValueError(
            "Gram matrix passed in via 'precompute' parameter "
            "did not pass validation when a single element was "
            "checked - please check that it was computed "
            f"properly. For element ({f1},{f2}) we computed "
            f"{expected} but the user-supplied value was "
            f"{actual}."
        )
    return G


def _rescaled_weights(sample_weight, n_samples: int, dtype, xp: ModuleType):
    """scikit-learn's weights for the elastic net: None for a number (a
    constant weight changes nothing), else validated and rescaled to sum to
    ``n_samples``."""
    if sample_weight is None or isinstance(sample_weight, numbers.Number):
        return None
    sw = check_sample_weight(sample_weight, n_samples, xp=xp, dtype=dtype)
    return sw * (n_samples / sw.sum())


def _all_finite(values) -> bool:
    """Whether a (small) result holds no NaN or infinity, checked on the
    host."""
    return bool(np.isfinite(to_host(values)).all())


def _random_seeds(random_state, n: int) -> list[int]:
    """The seeds scikit-learn's solver draws, one per target (its path
    function checks ``random_state`` afresh for each)."""
    return [
        int(check_random_state(random_state).randint(0, _RAND_R_MAX)) for _ in range(n)
    ]


def fit_candidates(
    data: _EnetData,
    alphas,
    l1_ratios,
    *,
    coef_init=None,
    max_iter: int,
    tol: float,
    positive: bool,
    seeds=None,
):
    """Fit every ``(alpha, l1_ratio)`` candidate on every target of ``data``.

    Returns ``coefs (k, t, p)``, ``intercepts (k, t)``, ``dual_gaps (k, t)``
    (scikit-learn's units) and ``n_iter (k, t)`` (host), for ``k``
    candidates and ``t`` targets. ``coef_init`` is (t, p) or None;
    ``seeds`` (t values) selects coordinates at random as scikit-learn does.
    """
    xp = data.xp
    dtype = data.X.dtype
    n_samples, n_features = data.X.shape
    n_targets = data.Y.shape[1]
    k = len(alphas)
    alphas = np.asarray(alphas, dtype=np.float64)
    l1_ratios = np.asarray(l1_ratios, dtype=np.float64)
    l1 = np.repeat(alphas * l1_ratios * n_samples, n_targets)
    l2 = np.repeat(alphas * (1.0 - l1_ratios) * n_samples, n_targets)
    targets = np.tile(np.arange(n_targets), k)
    if coef_init is None:
        W = xp.zeros((n_features, k * n_targets), dtype=dtype)
    else:
        W = xp.tile(xp.asarray(coef_init, dtype=dtype).T, (1, k))
    W, gaps, n_iter, _ = enet_coordinate_descent_batch(
        data.ops(targets),
        W,
        xp.asarray(l1.astype(dtype)),
        xp.asarray(l2.astype(dtype)),
        max_iter=max_iter,
        tol=tol,
        positive=positive,
        seeds=None if seeds is None else np.tile(seeds, k),
        xp=xp,
    )
    # small arrays: finished on the host (no device kernel to compile)
    coefs = np.asarray(to_host(W)).T.reshape(k, n_targets, n_features)
    X_offset, y_offset = (to_host(a) for a in (data.X_offset, data.y_offset))
    intercepts = y_offset[None, :] - coefs @ X_offset
    gaps = (np.asarray(to_host(gaps)) / n_samples).reshape(k, n_targets)
    if xp is not np:
        coefs = xp.asarray(np.ascontiguousarray(coefs))
        intercepts, gaps = xp.asarray(intercepts), xp.asarray(gaps)
    return coefs, intercepts, gaps, n_iter.reshape(k, n_targets)


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class ElasticNet(
    LinearRegressorMixin,
    MultiOutputMixin,
    RegressorMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Linear regression with combined L1 and L2 priors, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.ElasticNet` (same
    parameters, attributes and results). It minimises
    ``1 / (2 n_samples) ||y - Xw||² + alpha l1_ratio ||w||_1 +
    0.5 alpha (1 - l1_ratio) ||w||²`` by coordinate descent with
    scikit-learn's updates, gap-safe screening and stopping rule, computing
    with CuPy when a GPU is usable (see :func:`gpuml.set_config`), else with
    NumPy/SciPy. Several targets are fitted together (each its own problem),
    as are the candidates of a search (see ``docs/search.rst``).

    Parameters
    ----------
    alpha : float, default=1.0
        Constant that multiplies the penalty terms, a non-negative float.
    l1_ratio : float, default=0.5
        The mixing parameter, ``0 <= l1_ratio <= 1``: 1 is the lasso
        penalty, 0 the ridge penalty.
    fit_intercept : bool, default=True
        Whether to fit the intercept (the data are centred, with sample
        weights when given).
    precompute : bool or array-like of shape (n_features, n_features), \
            default=False
        Whether to use a precomputed Gram matrix (True, or the matrix
        itself). With False, gpuml still forms the Gram matrix when X is
        dense and has at least as many samples as features (the updates are
        the same; a GPU runs them faster); sparse X is never densified.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates.
    copy_X : bool, default=True
        If False, X may be centred in place when it is already in the
        compute namespace and dtype.
    tol : float, default=1e-4
        Tolerance: when the largest update of a sweep is at most ``tol``
        times the largest coefficient, the duality gap is checked against
        ``tol * ||y||² / n_samples``.
    warm_start : bool, default=False
        Start from the previous solution.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``, drawn
        as scikit-learn draws it (the same coordinates, the same result).
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or draw one at random at each step.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients, NumPy or CuPy like the training X.
    sparse_coef_ : sparse matrix of shape (1, n_features) or \
            (n_targets, n_features)
        ``coef_`` as a sparse matrix (SciPy, or cupyx for device input).
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term; 0.0 when ``fit_intercept=False``.
    n_iter_ : int or list of int
        Sweeps run by the solver, per target when there are several.
    dual_gap_ : float or ndarray of shape (n_targets,)
        The duality gaps at the end of the optimisation.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Lasso : The elastic net with ``l1_ratio=1``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import ElasticNet
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4))
    >>> y = X @ np.array([1.0, 0.0, -2.0, 0.0]) + 0.5
    >>> model = ElasticNet(alpha=0.01, l1_ratio=0.7).fit(X, y)
    >>> np.round(model.coef_, 1)  # -0.: scikit-learn's solver's signed zero
    array([ 1.,  0., -2., -0.])
    >>> round(float(model.intercept_), 1)
    0.5
    """

    # check_input is no metadata to route (as in scikit-learn)
    __metadata_request__fit = {"check_input": metadata_routing.UNUSED}

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "precompute": ["boolean", "array-like"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "copy_X": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        l1_ratio=0.5,
        fit_intercept=True,
        precompute=False,
        max_iter=1000,
        copy_X=True,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.copy_X = copy_X
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection

    def _validated(self, X, y, xp, *, reset=True):
        X, y = validate_data(
            self,
            X,
            y,
            xp=xp,
            reset=reset,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=FLOAT_DTYPES,
            multi_output=True,
            y_numeric=True,
        )
        if is_sparse(y):
            raise TypeError(
                "Sparse data was passed, but dense data is required. Use "
                "'.toarray()' to convert to a dense numpy array."
            )
        return X, y

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Fit the model by coordinate descent.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse,
            or any ``__cuda_array_interface__`` / ``__dlpack__`` producer.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Sample weights (rescaled internally to sum to ``n_samples``).
        check_input : bool, default=True
            Accepted for compatibility; the input is always checked.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        if self.alpha == 0:
            warnings.warn(
                "With alpha=0, this algorithm does not converge "
                "well. You are advised to use the LinearRegression "
                "estimator",
                stacklevel=2,
            )
        warm = self.warm_start and hasattr(self, "coef_")
        coef_init = self.coef_ if warm else None
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = self._validated(X, y, xp)
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        n_samples, n_targets = X.shape[0], Y.shape[1]
        sw = _rescaled_weights(sample_weight, n_samples, X.dtype, xp)
        transferred = family != ("host" if xp is np else "device")
        with np.errstate(invalid="ignore", over="ignore"):
            data = _prepare(
                X,
                Y,
                sw,
                fit_intercept=self.fit_intercept,
                precompute=self.precompute,
                overwrite_X=transferred or not self.copy_X,
                xp=xp,
            )
        if coef_init is not None:
            coef_init = to_namespace(coef_init, xp).reshape(n_targets, -1)
        seeds = _random_seeds(self.random_state, n_targets)
        with np.errstate(invalid="ignore", over="ignore"):
            coefs, intercepts, gaps, n_iter = fit_candidates(
                data,
                [self.alpha],
                [self.l1_ratio],
                coef_init=coef_init,
                max_iter=self.max_iter,
                tol=self.tol,
                positive=self.positive,
                seeds=seeds if self.selection == "random" else None,
            )
        coef, intercept = coefs[0], intercepts[0]
        gaps = np.asarray(to_host(gaps[0])).astype(X.dtype)
        if not (_all_finite(coef) and _all_finite(intercept)):
            raise ValueError(NON_FINITE)
        if n_targets == 1:
            self.coef_ = to_family(coef[0], family)
            self.dual_gap_ = to_host(gaps)[0]
            self.n_iter_ = int(n_iter[0, 0])
            if not self.fit_intercept:
                self.intercept_ = 0.0
            elif y.ndim == 1:
                self.intercept_ = to_family(intercept, family)[0]
            else:
                self.intercept_ = to_family(intercept, family)
        else:
            self.coef_ = to_family(coef, family)
            self.dual_gap_ = to_family(gaps, family)
            self.n_iter_ = [int(i) for i in n_iter[0]]
            self.intercept_ = (
                to_family(intercept, family) if self.fit_intercept else 0.0
            )
        return self

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    _batch_names = frozenset({"alpha", "l1_ratio"})
    # A batch costs about the sum of its candidates' sweeps.
    _batch_cost_per_candidate = True

    def _batch_params(self) -> frozenset:
        """Parameters whose values may differ within one batched fit: the
        penalties (every candidate is its own coordinate descent on shared
        data). A given Gram matrix is not the folds', so it fits one by one."""
        if _given_precompute(self.precompute):
            return frozenset()
        return self._batch_names

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """Fit one model per entry of ``param_sets`` on each training fold.

        Parameters
        ----------
        X, y : arrays in the compute namespace
            The whole data of the search.
        param_sets : list of dict
            The candidates' ``alpha`` (and ``l1_ratio``) values; the other
            parameters are this estimator's.
        folds : list of index arrays, or None
            Training rows of each fold; None for one fit on all rows.
        sample_weight : array of shape (n_samples,), default=None

        Returns
        -------
        batches : iterator of RidgeBatch
            One per fold; ``batch.predict(X)`` stacks the candidates'
            predictions on a leading axis.
        """
        from sklearn.base import clone

        from gpuml.base import BatchUnsupported
        from gpuml.linear_model._ridge_batch import RidgeBatch

        validate_estimator_params(self)
        if _given_precompute(self.precompute):
            raise BatchUnsupported("a given Gram matrix fits one candidate at a time")
        alphas, l1_ratios = [], []
        for params in param_sets:
            candidate = clone(self).set_params(**params)
            validate_estimator_params(candidate)
            alphas.append(float(candidate.alpha))
            l1_ratios.append(float(candidate.l1_ratio))
        xp = compute_namespace()
        X, y = check_X_y(
            X,
            y,
            xp=xp,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=FLOAT_DTYPES,
            multi_output=True,
            y_numeric=True,
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        if sample_weight is not None and not isinstance(sample_weight, numbers.Number):
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
        seeds = _random_seeds(self.random_state, Y.shape[1])

        def fit_fold(train):
            X_fold, Y_fold, sw = X, Y, sample_weight
            if train is not None:
                rows = xp.asarray(np.asarray(train, dtype=np.int64))
                X_fold, Y_fold = take_rows(X, rows, xp), take_rows(Y, rows, xp)
                if sw is not None and not isinstance(sw, numbers.Number):
                    sw = take_rows(sw, rows, xp)
            for alpha in alphas:
                if alpha == 0:
                    warnings.warn(
                        "With alpha=0, this algorithm does not converge "
                        "well. You are advised to use the LinearRegression "
                        "estimator",
                        stacklevel=3,
                    )
            sw = _rescaled_weights(sw, X_fold.shape[0], X.dtype, xp)
            with np.errstate(invalid="ignore", over="ignore"):
                data = _prepare(
                    X_fold,
                    Y_fold,
                    sw,
                    fit_intercept=self.fit_intercept,
                    precompute=self.precompute,
                    overwrite_X=train is not None,  # X[rows] is a fresh copy
                    xp=xp,
                )
                coefs, intercepts, _, _ = fit_candidates(
                    data,
                    alphas,
                    l1_ratios,
                    max_iter=self.max_iter,
                    tol=self.tol,
                    positive=self.positive,
                    seeds=seeds if self.selection == "random" else None,
                )
            if not (_all_finite(coefs) and _all_finite(intercepts)):
                raise ValueError(NON_FINITE)
            return RidgeBatch(coefs, intercepts, y.ndim == 1)

        return (fit_fold(train) for train in ([None] if folds is None else folds))

    @property
    def sparse_coef_(self):
        """Sparse representation of the fitted ``coef_``."""
        coef = self.coef_
        xp = namespace_of(coef)
        coef = xp.atleast_2d(xp.asarray(coef))  # a user's list too, as scikit-learn
        if xp is np:
            import scipy.sparse as sp

            return align_sparse_output(sp.csr_array(coef))
        return sparse_module(xp).csr_matrix(coef)

    def _predict_xp(self, X, xp: ModuleType):
        """Predictions in the compute namespace ``xp``."""
        check_is_fitted(self)
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=NUMERIC_FLOAT,
        )
        coef = self._fitted("coef_", xp)
        intercept = self._fitted("intercept_", xp)
        if X.dtype != coef.dtype:
            X = X.astype(coef.dtype)
        return xp.asarray(X @ coef.T) + intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class Lasso(ElasticNet):
    """Linear model with an L1 prior (the Lasso), on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.Lasso`: the
    :class:`ElasticNet` with ``l1_ratio=1``, minimising
    ``1 / (2 n_samples) ||y - Xw||² + alpha ||w||_1``.

    Parameters
    ----------
    alpha : float, default=1.0
        Constant that multiplies the L1 term, a non-negative float.
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    precompute : bool or array-like of shape (n_features, n_features), \
            default=False
        As for :class:`ElasticNet`.
    copy_X : bool, default=True
        If False, X may be centred in place.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates.
    tol : float, default=1e-4
        The tolerance of the stopping rule (see :class:`ElasticNet`).
    warm_start : bool, default=False
        Start from the previous solution.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or at random.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients, NumPy or CuPy like the training X.
    sparse_coef_ : sparse matrix of shape (1, n_features) or \
            (n_targets, n_features)
        ``coef_`` as a sparse matrix.
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term.
    n_iter_ : int or list of int
        Sweeps run by the solver.
    dual_gap_ : float or ndarray of shape (n_targets,)
        The duality gaps at the end of the optimisation.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ElasticNet : L1 and L2 penalties together.

    Examples
    --------
    >>> from gpuml.linear_model import Lasso
    >>> model = Lasso(alpha=0.1).fit([[0, 0], [1, 1], [2, 2]], [0, 1, 2])
    >>> model.coef_
    array([0.85, 0.  ])
    >>> round(float(model.intercept_), 2)
    0.15
    """

    _parameter_constraints: dict = {
        k: v for k, v in ElasticNet._parameter_constraints.items() if k != "l1_ratio"
    }
    _batch_names = frozenset({"alpha"})

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        precompute=False,
        copy_X=True,
        max_iter=1000,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        super().__init__(
            alpha=alpha,
            l1_ratio=1.0,
            fit_intercept=fit_intercept,
            precompute=precompute,
            copy_X=copy_X,
            max_iter=max_iter,
            tol=tol,
            warm_start=warm_start,
            positive=positive,
            random_state=random_state,
            selection=selection,
        )
