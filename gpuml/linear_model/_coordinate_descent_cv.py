"""LassoCV and ElasticNetCV: the penalty chosen by cross-validation along a
regularisation path, on the GPU or the CPU.

scikit-learn (``LinearModelCV``) fits, for every ``l1_ratio`` and every
fold, the whole alpha path by coordinate descent, each alpha warm-started
from the previous one, then scores every model on the fold's held-out rows.
gpuml computes the same models with the same updates
(:func:`~gpuml.linear_model._coordinate_descent_solver.enet_coordinate_descent_batch`),
but fits the paths together:

- Each fold's data are taken from the device-resident X by an index array
  (never through the host), centred and weighted as scikit-learn's
  ``_pre_fit`` does (the fold's own means and weights: nothing depends on
  rows outside the fold).
- For dense X every (fold, ``l1_ratio``) pair is a candidate of **one
  batched coordinate descent per path step**, warm-started from its
  previous alpha and stopped by scikit-learn's duality-gap rule; the
  candidates share nothing but the step, each reads its own fold's data:
  the fold's Gram statistics where the fold has at least as many training
  rows as features or ``precompute=True`` (``_FoldGramOps``; only the
  statistics are kept), else the fold's centred X, padded with rows of
  zeros to the longest fold, and residuals (``_FoldDenseOps``; both in
  ``_coordinate_descent_paths.py``, with the grid and the errors). On a
  GPU a sweep is one launch of the Gram or dense sweep kernel per fold (all
  the fold's ``l1_ratio`` candidates).
- Sparse X (never densified) runs one batched descent per fold and step,
  over the fold's ``l1_ratio`` candidates.
- On the CPU (NumPy) every fold runs its own paths, as for sparse X: each
  step's problems go one by one through scikit-learn's compiled coordinate
  descent (see ``COMPILED_CPU`` in ``_coordinate_descent_solver.py``),
  warm-started alike; batching them would only feed a Python loop over coordinates.
- The held-out mean squared errors of every (``l1_ratio``, alpha, fold) are
  computed at the end, one matrix product per fold, and reach the host in
  one transfer.

The best alpha is then refitted on all the data by gpuml's
:class:`~gpuml.linear_model.Lasso` / :class:`~gpuml.linear_model.ElasticNet`.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.model_selection import check_cv
from sklearn.utils import check_scalar
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_family_attribute,
    to_host,
)
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    routing_enabled,
    validate_estimator_params,
)
from gpuml._validation import FLOAT_DTYPES, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._coordinate_descent import NON_FINITE, ElasticNet, Lasso
from gpuml.linear_model._coordinate_descent_paths import (
    _path_seeds,
    alpha_grid,
    path_mse,
)
from gpuml.linear_model._ridge_cv import raise_for_params
from gpuml.model_selection._data import host_split_params

_ACCEPT_SPARSE = ("csr", "csc", "coo")


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class _LinearModelCV(
    LinearRegressorMixin, RegressorMixin, DeviceCacheMixin, BaseEstimator
):
    """What LassoCV and ElasticNetCV share (scikit-learn's
    ``LinearModelCV``)."""

    _parameter_constraints: dict = {
        "eps": [Interval(Real, 0, None, closed="neither")],
        "alphas": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "precompute": [StrOptions({"auto"}), "array-like", "boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "copy_X": ["boolean"],
        "cv": ["cv_object"],
        "verbose": ["verbose"],
        "n_jobs": [Integral, None],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    _predict_xp = ElasticNet._predict_xp

    def _l1_ratios(self) -> np.ndarray:
        return np.atleast_1d(getattr(self, "l1_ratio", 1.0))

    def fit(self, X, y, sample_weight=None, **params):
        """Fit the model along the alpha path, choosing alpha (and
        ``l1_ratio``) by cross-validation, then refit on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), \
                default=None
            Sample weights, used for fitting and for the weighted mean
            squared error of each test fold (the folds' errors are then
            averaged unweighted, as in scikit-learn).
        **params : dict
            Parameters for the CV splitter (with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        raise_for_params(params, self, "fit")
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = validate_data(
            self,
            X,
            y,
            xp=xp,
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
        if y.ndim > 1 and y.shape[1] > 1:
            raise ValueError(
                f"For multi-task outputs, use MultiTask{type(self).__name__}"
            )
        if y.ndim == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples, ), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=2,
            )
            y = y.ravel()
        if is_sparse(X):
            X = X.tocsr()  # rows are taken per fold
        if isinstance(sample_weight, numbers.Number):
            sample_weight = None
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
        l1_ratios = self._l1_ratios()
        alphas = self._alphas(X, y, sample_weight, l1_ratios, xp)

        cv = check_cv(self.cv)
        if routing_enabled():
            routed = process_routing(self, "fit", sample_weight=sample_weight, **params)
            split_params = host_split_params(routed.splitter.split)
        else:
            split_params = {}
        placeholder = np.broadcast_to(np.float64(0), (X.shape[0], 1))
        y_host = np.asarray(to_host(y))
        folds = list(cv.split(placeholder, y_host, **split_params))
        n_l1, n_folds, n_alphas = len(l1_ratios), len(folds), alphas.shape[1]
        seeds = _path_seeds(self.random_state, n_l1, n_folds, n_alphas)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            mse_paths = path_mse(
                X,
                y,
                sample_weight,
                folds,
                alphas,
                l1_ratios,
                fit_intercept=self.fit_intercept,
                precompute=self.precompute,
                max_iter=self.max_iter,
                tol=self.tol,
                positive=self.positive,
                seeds=seeds if self.selection == "random" else None,
                n_jobs=self.n_jobs,
                xp=xp,
            )
        mean_mse = np.mean(mse_paths, axis=1)
        self.mse_path_ = np.squeeze(np.moveaxis(mse_paths, 2, 1))
        best_mse = np.inf
        grid = zip(l1_ratios, alphas, mean_mse, strict=True)
        for l1_ratio, l1_alphas, mse_alphas in grid:
            i_best = np.argmin(mse_alphas)
            if mse_alphas[i_best] < best_mse:
                best_alpha = l1_alphas[i_best]
                best_l1_ratio = l1_ratio
                best_mse = mse_alphas[i_best]
        if not np.isfinite(best_mse):
            raise ValueError(NON_FINITE)
        self.alpha_ = best_alpha
        if isinstance(self.alphas, Integral):
            self.alphas_ = alphas[0] if n_l1 == 1 else alphas
        else:
            self.alphas_ = alphas[0]
        if hasattr(self, "l1_ratio"):
            self.l1_ratio_ = best_l1_ratio

        # the arrays in the training input's family (host for host input)
        self.mse_path_ = to_family(self.mse_path_, family)
        self.alphas_ = to_family(self.alphas_, family)
        model = self._refit_model(best_alpha, best_l1_ratio)
        model.fit(X, y, sample_weight=sample_weight)
        self.coef_ = to_family(model.coef_, family)
        intercept = model.intercept_
        if not isinstance(intercept, float):  # 0.0 without an intercept
            intercept = to_family_attribute(intercept, family)
        self.intercept_ = intercept
        self.dual_gap_ = model.dual_gap_  # a host float, as ElasticNet's
        self.n_iter_ = model.n_iter_
        return self

    def _alphas(self, X, y, sample_weight, l1_ratios, xp) -> np.ndarray:
        """The grid (n_l1, n_alphas), host, each row decreasing."""
        if isinstance(self.alphas, Integral):
            return np.asarray(
                [
                    alpha_grid(
                        X,
                        y,
                        sample_weight,
                        l1_ratio=float(l1_ratio),
                        fit_intercept=self.fit_intercept,
                        eps=self.eps,
                        n_alphas=self.alphas,
                        positive=self.positive,
                        xp=xp,
                    )
                    for l1_ratio in l1_ratios
                ]
            )
        for index, alpha in enumerate(self.alphas):
            check_scalar(
                alpha,
                f"alphas[{index}]",
                target_type=Real,
                min_val=0.0,
                include_boundaries="left",
            )
        return np.tile(np.sort(self.alphas)[::-1], (len(l1_ratios), 1))

    def _refit_model(self, alpha, l1_ratio):
        """The estimator refitted on all the data with the chosen penalty."""
        precompute = self.precompute
        if isinstance(precompute, str) and precompute == "auto":
            precompute = False
        common = dict(
            alpha=alpha,
            fit_intercept=self.fit_intercept,
            precompute=precompute,
            max_iter=self.max_iter,
            tol=self.tol,
            copy_X=self.copy_X,
            positive=self.positive,
            random_state=self.random_state,
            selection=self.selection,
        )
        if hasattr(self, "l1_ratio"):
            return ElasticNet(l1_ratio=l1_ratio, **common)
        return Lasso(**common)

    def get_metadata_routing(self):
        """Get metadata routing of this object (as scikit-learn's).

        Returns
        -------
        routing : MetadataRouter
            The routing of ``fit``'s metadata to the CV splitter.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                splitter=check_cv(self.cv),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags


_COMMON_PARAMETERS = """
    eps : float, default=1e-3
        Length of the path: ``alpha_min / alpha_max = eps``.
    alphas : int or array-like, default=100
        The number of alphas of the automatic grid (from the smallest alpha
        whose coefficients are all zero down to ``eps`` times it, on a log
        scale), or the alphas themselves (tried in decreasing order).
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    precompute : "auto", bool or array-like of shape (n_features, \
n_features), default="auto"
        Whether to use a Gram matrix. gpuml forms each fold's Gram matrix
        whenever X is dense and the fold has at least as many rows as
        features (the same updates; ``True`` forces it for wide folds); a
        given matrix is checked against each fold, as scikit-learn does.
    max_iter : int, default=1000
        The maximum number of sweeps over the coordinates, per alpha.
    tol : float, default=1e-4
        Tolerance of scikit-learn's stopping rule (the duality gap).
    copy_X : bool, default=True
        If False, X may be centred in place by the final refit.
    cv : int, cross-validation generator or iterable, default=None
        The splitting strategy (None: 5-fold :class:`~sklearn.model_selection.KFold`).
    verbose : bool or int, default=False
        Accepted for compatibility; gpuml prints nothing.
    n_jobs : int, default=None
        How many folds run their paths at once, in threads, where each runs
        its own (scikit-learn's compiled solver: on the CPU, and for sparse
        X of more than 2,048 features or ``selection="random"`` on the
        GPU); ``None`` means 1 unless in a :func:`joblib.parallel_config`
        context, as in scikit-learn. The GPU's batched folds (dense X, or
        sparse X of at most 2,048 features) are fitted together whatever
        its value.
    positive : bool, default=False
        Force the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seed of the coordinate selection when ``selection="random"``, drawn
        as scikit-learn draws it.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit the coordinates in order, or at random."""


class LassoCV(_LinearModelCV):
    """Lasso with the alpha chosen by cross-validation, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.LassoCV` (same
    parameters, attributes and results): the alpha path of every fold is
    fitted by coordinate descent with scikit-learn's updates and stopping
    rule, each alpha warm-started from the previous one, all folds together
    (one batched descent per path step, see the module), and the alpha of
    the least mean held-out squared error is refitted on all the data.

    Parameters
    ----------%s

    Attributes
    ----------
    alpha_ : float
        The alpha chosen by cross-validation.
    coef_ : ndarray of shape (n_features,)
        Coefficients of the refitted model, NumPy or CuPy like the
        training X.
    intercept_ : float
        Independent term.
    mse_path_ : ndarray of shape (n_alphas, n_folds)
        Mean squared error on each fold's test set, for each alpha.
    alphas_ : ndarray of shape (n_alphas,)
        The alphas tried, decreasing.
    dual_gap_ : float
        The duality gap of the refit.
    n_iter_ : int
        Sweeps run by the refit's solver.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Lasso : The Lasso with a given alpha.
    ElasticNetCV : The elastic net with alpha and ``l1_ratio`` chosen by
        cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LassoCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = X @ np.array([2.0, 0.0, -1.0, 0.0, 0.0, 0.5]) + 0.1 * rng.normal(size=200)
    >>> model = LassoCV(cv=5).fit(X, y)
    >>> model.mse_path_.shape
    (100, 5)
    >>> np.round(model.coef_, 1)
    array([ 2. ,  0. , -1. ,  0. ,  0. ,  0.5])
    """

    def __init__(
        self,
        *,
        eps=1e-3,
        alphas=100,
        fit_intercept=True,
        precompute="auto",
        max_iter=1000,
        tol=1e-4,
        copy_X=True,
        cv=None,
        verbose=False,
        n_jobs=None,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.eps = eps
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.tol = tol
        self.copy_X = copy_X
        self.cv = cv
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.positive = positive
        self.random_state = random_state
        self.selection = selection


class ElasticNetCV(_LinearModelCV):
    """Elastic net with alpha and ``l1_ratio`` chosen by cross-validation,
    on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.ElasticNetCV`
    (same parameters, attributes and results): the alpha path of every
    fold and every ``l1_ratio`` is fitted by coordinate descent with
    scikit-learn's updates and stopping rule, each alpha warm-started from
    the previous one, all (fold, ``l1_ratio``) pairs together (one batched
    descent per path step, see the module); the pair of least mean held-out
    squared error is refitted on all the data.

    Parameters
    ----------
    l1_ratio : float or list of float, default=0.5
        The mixing parameter(s) to try, ``0 <= l1_ratio <= 1`` (1: the
        lasso penalty). The automatic alpha grid needs ``l1_ratio > 0``.%s

    Attributes
    ----------
    alpha_ : float
        The alpha chosen by cross-validation.
    l1_ratio_ : float
        The ``l1_ratio`` chosen by cross-validation.
    coef_ : ndarray of shape (n_features,)
        Coefficients of the refitted model, NumPy or CuPy like the
        training X.
    intercept_ : float
        Independent term.
    mse_path_ : ndarray of shape (n_l1_ratio, n_alphas, n_folds)
        Mean squared error on each fold's test set (the ``l1_ratio`` axis
        dropped when there is one).
    alphas_ : ndarray of shape (n_alphas,) or (n_l1_ratio, n_alphas)
        The alphas tried for each ``l1_ratio``, decreasing.
    dual_gap_ : float
        The duality gap of the refit.
    n_iter_ : int
        Sweeps run by the refit's solver.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ElasticNet : The elastic net with given penalties.
    LassoCV : The Lasso with alpha chosen by cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import ElasticNetCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = X @ np.array([2.0, 0.0, -1.0, 0.0, 0.0, 0.5]) + 0.1 * rng.normal(size=200)
    >>> model = ElasticNetCV(l1_ratio=[0.5, 0.9, 1.0], cv=5).fit(X, y)
    >>> model.mse_path_.shape
    (3, 100, 5)
    >>> float(model.l1_ratio_)
    1.0
    >>> np.round(model.coef_, 1)
    array([ 2. ,  0. , -1. ,  0. ,  0. ,  0.5])
    """

    _parameter_constraints: dict = {
        **_LinearModelCV._parameter_constraints,
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), "array-like"],
    }

    def __init__(
        self,
        *,
        l1_ratio=0.5,
        eps=1e-3,
        alphas=100,
        fit_intercept=True,
        precompute="auto",
        max_iter=1000,
        tol=1e-4,
        cv=None,
        copy_X=True,
        verbose=0,
        n_jobs=None,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.l1_ratio = l1_ratio
        self.eps = eps
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.max_iter = max_iter
        self.tol = tol
        self.cv = cv
        self.copy_X = copy_X
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.positive = positive
        self.random_state = random_state
        self.selection = selection


LassoCV.__doc__ %= _COMMON_PARAMETERS
ElasticNetCV.__doc__ %= _COMMON_PARAMETERS
