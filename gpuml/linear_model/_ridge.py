"""Ridge regression on the GPU or the CPU, with scikit-learn's API and results.

``fit`` reads: validate (into the compute namespace ``xp``) → centre and
weight the problem → resolve the solver (one function) → call a pure solver
from the registry → store attributes in the training input's family.

All solvers see the same centred, weighted least-squares problem
(:class:`_RidgeProblem`), so dense and sparse input share every solver but
``"svd"``: sparse data is centred implicitly, never densified.

:func:`ridge_path` solves many penalties from one eigendecomposition of the
Gram (or kernel) matrix; the model-selection search uses it to fit all the
alphas of a fold at the cost of one.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin

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
from gpuml._linalg import thin_svd
from gpuml._sklearn_compat import Interval, StrOptions, validate_estimator_params
from gpuml._validation import (
    FLOAT_DTYPES,
    check_array,
    check_sample_weight,
    check_X_y,
    validate_data,
)
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._ridge_batch import fit_batch
from gpuml.linear_model._ridge_moments import _HOST_SOLVE_MAX, _DeviceRidgeMoments
from gpuml.linear_model._ridge_problem import (
    _ACCEPT_SPARSE,
    NON_FINITE_SYSTEM,
    _check_alpha,
    _dense_targets,
    _eigh_solve,
    _make_problem,
    _path_from_problem,
    _RidgeProblem,
    _shifted_solve,
    check_finite_system,
    has_negative,
)
from gpuml.linear_model._ridge_solvers import (
    solve_lsqr,
    solve_positive,
    solve_sag,
    solve_sparse_cg,
)


def _device_gram_fit(X, solver: str, xp: ModuleType) -> bool:
    """Whether a fit takes the GPU's Gram path: dense, tall data whose
    (small) system the host solves, with the cholesky solver."""
    if xp is np or solver != "cholesky" or is_sparse(X):
        return False
    n_samples, n_features = X.shape
    return 0 < n_features <= min(n_samples, _HOST_SOLVE_MAX)


def _fit_from_device_gram(X, y, sample_weight, alpha, fit_intercept, xp):
    """``(coef (t, p), intercept (t,))`` of a cholesky fit on the GPU, or
    None when a positive definite system cannot be factorised.

    The statistics come from gpuml's kernels and cuBLAS over ``X`` (see
    ``_DeviceRidgeMoments.fit_system``; ``X`` is neither copied nor
    centred in place), centred at the general path's offsets as
    scikit-learn centres, so that an extreme weight gives the general
    path's system and its outcome; the small system is solved on the host
    in float64, by Cholesky, with the minimum-norm solution when it is
    singular, as :func:`_solve_cholesky` does. Raises scikit-learn's
    ``ValueError`` when the system or the offsets overflow.
    """
    Y = y.reshape(-1, 1) if y.ndim == 1 else y
    moments = _DeviceRidgeMoments(X, Y, sample_weight, fit_intercept, xp, [None])
    A, B, X_offset, y_offset = moments.fit_system()
    host_alpha = np.asarray(to_host(alpha), dtype=np.float64)
    try:
        coef = _shifted_solve(A, B, host_alpha, np)
    except np.linalg.LinAlgError:
        if _all_positive(host_alpha):
            return None  # the general path, with scikit-learn's SVD fallback
        coef = _eigh_solve(A, B, host_alpha[None, :], np)[0]
    coef = coef.T  # (t, p)
    intercept = y_offset - coef @ X_offset
    return xp.asarray(coef.astype(X.dtype)), xp.asarray(intercept.astype(X.dtype))


# --------------------------------------------------------------------------
# Solvers: pure functions with one signature, returning (coef (t, p), n_iter).
# --------------------------------------------------------------------------


def _solve_cholesky(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    # scikit-learn's solve checks that its system is finite: an overflow
    # while centring, weighting or forming the Gram matrix raises.
    if problem.use_kernel():
        K = problem.X @ problem.X.T
        check_finite_system(K, problem.y, xp=xp)
        try:
            dual = _shifted_solve(K, problem.y, alpha, xp)
        except np.linalg.LinAlgError:
            return _solve_svd(problem, alpha, max_iter=max_iter, tol=tol, xp=xp)
        return problem.rmatvec(dual).T, None
    A = problem.gram()
    B = problem.rmatvec(problem.y)
    check_finite_system(A, B, xp=xp)
    try:
        coef = _shifted_solve(A, B, alpha, xp)
    except np.linalg.LinAlgError:
        if not problem.sparse and _all_positive(alpha):
            # Positive definite, yet too ill-conditioned to factorise (an
            # extreme weight or value): scikit-learn's SVD fallback.
            return _solve_svd(problem, alpha, max_iter=max_iter, tol=tol, xp=xp)
        # Singular (alpha == 0 and rank-deficient X): minimum-norm solution.
        coef = _eigh_solve(A, B, alpha[None, :], xp)[0]
    return coef.T, None


def _all_positive(alpha) -> bool:
    return bool(np.all(np.asarray(to_host(alpha)) > 0))


def _solve_svd(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    U, s, Vt = thin_svd(problem.X, xp, host_max=_HOST_SOLVE_MAX)
    UTy = U.T @ problem.y  # (k, t)
    s = s[:, None]
    nonzero = s > 1e-15
    d = xp.where(nonzero, s / (s**2 + alpha[None, :]), 0)
    return (Vt.T @ (d * UTy)).T, None


_SOLVERS = {
    "cholesky": _solve_cholesky,
    "svd": _solve_svd,
    "sparse_cg": solve_sparse_cg,
    "lsqr": solve_lsqr,
    "sag": solve_sag,
    "saga": solve_sag,
    "lbfgs": solve_positive,
}
# Solvers that compute in float64 whatever X's dtype (SciPy's lsqr and
# L-BFGS-B do; conjugate gradients standing in for sag reach a tight
# tolerance only in float64).
_FLOAT64_SOLVERS = frozenset({"lsqr", "sag", "saga", "lbfgs"})
# Solvers whose alphas share one factorisation in a batched search.
_DIRECT_SOLVERS = frozenset({"auto", "cholesky", "svd"})


def _raise_negative_weights(solver: str):
    """Raise what scikit-learn's Ridge raises for negative sample weights:
    their square roots are NaN, which its cholesky solver's finiteness check
    and its SVD refuse (its sparse_cg returns NaN coefficients; gpuml
    raises there too, naming the cause)."""
    if solver == "svd":
        raise np.linalg.LinAlgError("SVD did not converge")
    if solver == "cholesky":
        raise ValueError(NON_FINITE_SYSTEM)
    raise ValueError("Negative values in data passed to `sample_weight`")


def _resolve_solver(
    solver: str,
    *,
    positive: bool,
    sparse: bool,
    fit_intercept: bool,
    max_iter,
    tol: float,
) -> str:
    """The one place where ``solver="auto"`` is decided, and where a solver
    is refused for these settings: scikit-learn's rules, errors and warning
    (``_BaseRidge.fit`` and ``_ridge_regression``), in its order."""
    if solver == "lbfgs" and not positive:
        raise ValueError(
            "'lbfgs' solver can be used only when positive=True. "
            "Please use another solver."
        )
    if positive:
        if solver not in ("auto", "lbfgs"):
            raise ValueError(
                f"solver='{solver}' does not support positive fitting. Please"
                " set the solver to 'auto' or 'lbfgs', or set `positive=False`"
            )
        return "lbfgs"
    if sparse and fit_intercept:
        # gpuml's cholesky also fits sparse X with an intercept (its Gram
        # matrix is centred implicitly), where scikit-learn's raises.
        if solver in ("svd", "saga"):
            raise ValueError(
                f"solver='{solver}' does not support fitting the intercept "
                "on sparse data. Please set the solver to 'auto' or "
                "'lsqr', 'sparse_cg', 'sag', 'lbfgs' "
                "or set `fit_intercept=False`"
            )
        if solver == "sag":
            if max_iter is None and tol > 1e-4:
                warnings.warn(
                    '"sag" solver requires many iterations to fit '
                    "an intercept with sparse inputs. Either set the "
                    'solver to "auto" or "sparse_cg", or set a low '
                    '"tol" and a high "max_iter" (especially if inputs are '
                    "not standardized).",
                    UserWarning,
                    stacklevel=3,
                )
                return "sag"
            return "sparse_cg"  # as scikit-learn: its sag needs a loose tol
    if solver == "auto":
        return "sparse_cg" if sparse else "cholesky"
    if solver == "svd" and sparse:
        raise TypeError(
            "SVD solver does not support sparse inputs currently. Please set the "
            "solver to 'auto', 'cholesky', 'lsqr', 'sparse_cg', 'sag' or 'saga'."
        )
    return solver


def _batches_alphas(estimator) -> bool:
    """Whether a search may fit all of ``estimator``'s alphas in one pass:
    with a direct solver (one factorisation serves every alpha) and gpuml's
    engine. Iterative solvers and ``positive=True`` fit one by one."""
    return (
        estimator.solver in _DIRECT_SOLVERS
        and not estimator.positive
        and getattr(estimator, "engine", "gpuml") != "cuml"
    )


class Ridge(
    LinearRegressorMixin,
    MultiOutputMixin,
    RegressorMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Linear least squares with l2 regularization, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.Ridge` (same
    parameters, attributes and results). It minimises
    ``||y - Xw||² + alpha * ||w||²`` and computes with CuPy when a GPU is
    usable (see :func:`gpuml.set_config`), else with NumPy/SciPy. Predictions
    come back in the family of their input (NumPy in, NumPy out; CuPy in,
    CuPy out); fitted attributes live in the family of the training input.

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
        Regularization strength, a non-negative float. An array gives one
        penalty per target.
    fit_intercept : bool, default=True
        Whether to fit the intercept (the data are centred, with sample
        weights when given).
    copy_X : bool, default=True
        If False, X may be overwritten (centred in place) when it is already
        in the compute namespace and dtype. A host array fitted on the GPU is
        copied to the device anyway, and that copy is reused.
    max_iter : int, default=None
        Maximum iterations of the iterative solvers: ``"sparse_cg"``
        (default: 10 x the size of the linear system), ``"lsqr"`` (default:
        SciPy's 2 x n_features) and ``"sag"``/``"saga"`` (default: sag's
        1,000 passes over the data). No effect on the direct solvers, nor on
        ``"lbfgs"``, whose constrained solve is exact and finite.
    tol : float, default=1e-4
        Stopping tolerance of the iterative solvers: the relative residual
        of the normal equations for ``"sparse_cg"``, ``"sag"`` and
        ``"saga"``; SciPy's ``atol`` and ``btol`` for ``"lsqr"``. No effect
        on the direct solvers and ``"lbfgs"``.
    solver : {"auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", \
            "saga", "lbfgs"}, default="auto"
        scikit-learn's names and rules (``"lbfgs"`` only with
        ``positive=True``; ``positive=True`` only with ``"auto"`` or
        ``"lbfgs"``; sparse X with an intercept not with ``"svd"`` or
        ``"saga"``, and ``"sag"`` there runs ``"sparse_cg"`` unless
        ``tol > 1e-4``, with scikit-learn's warning). Each reaches the unique
        optimum (to its tolerance for the iterative ones):

        - ``"auto"``: ``"lbfgs"`` when ``positive=True``, else
          ``"cholesky"`` for dense X and ``"sparse_cg"`` for sparse X.
        - ``"cholesky"``: one Cholesky factorisation of the (Gram or kernel)
          matrix; falls back to the minimum-norm solution when singular.
          Unlike scikit-learn it also accepts sparse X with an intercept
          (the Gram matrix is centred implicitly; its size is
          n_features²).
        - ``"svd"``: a thin SVD of X (through a QR for tall X); the most
          stable; dense X only.
        - ``"sparse_cg"``: conjugate gradients on all targets at once.
        - ``"lsqr"``: LSQR with SciPy's recurrences, damping
          ``sqrt(alpha)`` and stopping rules, on all targets at once
          (scikit-learn runs ``scipy.sparse.linalg.lsqr`` per target).
        - ``"sag"``, ``"saga"``: scikit-learn's stochastic solvers converge
          to the ridge optimum; gpuml reaches it deterministically, by the
          conjugate gradients of ``"sparse_cg"`` with sag's iteration budget
          and warning. ``n_iter_`` counts the passes over the data.
        - ``"lbfgs"`` (``positive=True``): the exact bound-constrained
          optimum, by an active-set non-negative least-squares solve on the
          square root of the regularised Gram matrix (scikit-learn
          approaches it by L-BFGS-B).

        ``"lsqr"``, ``"sag"``, ``"saga"`` and ``"lbfgs"`` compute in
        float64 whatever X's dtype; the attributes keep X's dtype.
    positive : bool, default=False
        When True, constrains the coefficients to be non-negative (solver
        ``"auto"`` or ``"lbfgs"``); the intercept is free.
    random_state : int, RandomState instance or None, default=None
        Accepted for compatibility; no gpuml solver is randomised.
    engine : {"auto", "gpuml", "cuml"}, default="auto"
        Whose kernels fit the model on the GPU. ``"gpuml"``: gpuml's own.
        ``"cuml"``: cuML's Ridge (cuML must be installed; dense X and the
        direct solvers; searches then fit one alpha at a time).
        ``"auto"``: gpuml's, which measured faster (see :doc:`/rapids`).
        The attributes, predictions and output family are gpuml's either way.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Weight vector(s), NumPy or CuPy like the training X.
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term; 0.0 when ``fit_intercept=False``.
    n_iter_ : None or ndarray of shape (n_targets,)
        Iterations per target of ``"lsqr"``, ``"sag"`` and ``"saga"``
        (int32); None for the other solvers, as in scikit-learn.
    solver_ : str
        The solver used.
    engine_ : {"gpuml", "cuml"}
        The engine that fitted the model.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ridge_path : Coefficients for many alphas from one factorisation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5))
    >>> y = X @ np.arange(5.0) + 1.0
    >>> model = Ridge(alpha=1e-3).fit(X, y)
    >>> bool(np.allclose(model.coef_, [0.0, 1.0, 2.0, 3.0, 4.0], atol=1e-2))
    True
    >>> round(float(model.intercept_), 2)
    1.0

    Non-negative coefficients (the third feature's is clamped at zero):

    >>> y = X @ np.array([1.0, 2.0, -3.0, 0.5, 1.0]) + 1.0
    >>> positive = Ridge(alpha=1.0, positive=True).fit(X, y)
    >>> positive.solver_, bool(positive.coef_[2] == 0.0)
    ('lbfgs', True)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions(set(_SOLVERS) | {"auto"})],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "engine": ENGINE_CONSTRAINT,
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        solver="auto",
        positive=False,
        random_state=None,
        engine="auto",
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state
        self.engine = engine

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse,
            or any ``__cuda_array_interface__`` / ``__dlpack__`` producer.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Individual weights for each sample.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
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
        y = _dense_targets(y)
        n_targets = 1 if y.ndim == 1 else y.shape[1]
        solver = _resolve_solver(
            self.solver,
            positive=self.positive,
            sparse=is_sparse(X),
            fit_intercept=self.fit_intercept,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
        alpha = _check_alpha(self.alpha, n_targets, X.dtype, xp)
        if has_negative(sample_weight, xp):
            _raise_negative_weights(solver)
        # Data copied across the bus is a fresh buffer and may be centred in
        # place. Device inputs wrapped without a copy (PyTorch, cuDF) are the
        # caller's memory, like any array already in the compute namespace.
        transferred = family != (DEVICE if xp is not np else HOST)
        unsupported = _cuml.ridge_unsupported(solver, is_sparse(X))
        # "auto" keeps gpuml's solvers: 2.2x faster than cuML's fit (issue 18)
        engine = _cuml.choose_engine(self, xp, unsupported, prefer_cuml=False)
        if engine == "cuml":
            coef, intercept = _cuml.fit_ridge(
                X,
                y,
                sample_weight,
                alpha,
                solver=solver,
                fit_intercept=self.fit_intercept,
                may_mutate_X=transferred or not self.copy_X,
            )
            self._set_fitted(coef, intercept, None, solver, y.ndim, family, engine)
            return self
        fitted = None
        if _device_gram_fit(X, solver, xp):
            try:
                fitted = _fit_from_device_gram(
                    X, y, sample_weight, alpha, self.fit_intercept, xp
                )
            except ValueError:
                # The offsets or the system overflowed (or the weights are
                # all zero): the general path below raises scikit-learn's
                # error where scikit-learn raises it.
                fitted = None
        if fitted is not None:
            coef, intercept = fitted
            self._set_fitted(coef, intercept, None, solver, y.ndim, family, engine)
            return self
        may_overwrite = transferred or not self.copy_X
        out_dtype = X.dtype
        if solver in _FLOAT64_SOLVERS and X.dtype != np.float64:
            X, y, alpha = (
                X.astype(np.float64),
                y.astype(np.float64),
                alpha.astype(np.float64),
            )
            if sample_weight is not None:
                sample_weight = sample_weight.astype(np.float64)
            may_overwrite = True  # a copy made here
        # Overflows while centring or forming the system are checked (and
        # raise scikit-learn's error) rather than warned about.
        with np.errstate(over="ignore", invalid="ignore"):
            problem = _make_problem(
                X,
                y,
                sample_weight,
                fit_intercept=self.fit_intercept,
                overwrite_X=may_overwrite,
                xp=xp,
            )
            coef, n_iter = _SOLVERS[solver](
                problem, alpha, max_iter=self.max_iter, tol=self.tol, xp=xp
            )
        # An overflow inside the SVD or the conjugate gradients (scikit-learn
        # returns NaN or partly zeroed coefficients with a warning): no NaN
        # model is returned silently.
        check_finite_system(coef, xp=xp)
        intercept = problem.y_offset - coef @ problem.X_offset
        coef = coef.astype(out_dtype, copy=False)
        intercept = intercept.astype(out_dtype, copy=False)
        self._set_fitted(coef, intercept, n_iter, solver, y.ndim, family, engine)
        return self

    def _set_fitted(self, coef, intercept, n_iter, solver, y_ndim, family, engine):
        self.engine_ = engine
        if coef.shape[0] == 1:
            # One target, from a 1-d y or (as scikit-learn 1.9 fits it) a
            # column vector: coef_ of shape (n_features,), 1-d predictions.
            self.coef_ = to_family(coef[0], family)
            # scikit-learn's type: a NumPy scalar of X's dtype (a 0-d CuPy
            # array for device input) for a 1-d y, an array of shape (1,)
            # for a column vector, and the float 0.0 without an intercept.
            intercept = to_family(intercept, family)
            if not self.fit_intercept:
                self.intercept_ = 0.0
            elif y_ndim == 1:
                self.intercept_ = intercept[0]
            else:
                self.intercept_ = intercept
        else:
            self.coef_ = to_family(coef, family)
            # scikit-learn's float 0.0 without an intercept
            self.intercept_ = (
                to_family(intercept, family) if self.fit_intercept else 0.0
            )
        self.n_iter_ = n_iter
        self.solver_ = solver

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _search_seconds(self, n_train, n_features, candidates, n_folds):
        """A search's time on one GPU, estimated (see
        :func:`gpuml.model_selection._dask.worth_dispatching`): per fold a
        Gram matrix (``n_train * p**2`` multiply-adds at about 1e13 a
        second) and an eigendecomposition (``p**3`` at about 1e11 a second:
        cuSOLVER's 1,024-wide ``ssyevd`` takes 11 ms on an H100), and per
        candidate its test predictions."""
        p = n_features
        per_fold = n_train * p * p / 1e13 + p**3 / 1e11
        predictions = len(candidates) * n_train / 4 * p / 1e12
        return n_folds * (per_fold + predictions)

    def _batch_params(self) -> frozenset:
        """Parameters whose values may differ within one batched fit.

        All alphas share one factorisation when the solver is direct; the
        iterative ``"sparse_cg"``, and cuML's engine, fit candidate by
        candidate.
        """
        if not _batches_alphas(self):
            return frozenset()
        return frozenset({"alpha"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """Fit one model per entry of ``param_sets`` on each training fold.

        Parameters
        ----------
        X, y : arrays in the compute namespace
            The whole data of the search (already on the compute device).
        param_sets : list of dict
            The candidates' ``alpha`` values (the other parameters are this
            estimator's).
        folds : list of index arrays, or None
            Training rows of each fold; None for one fit on all rows.
        sample_weight : array of shape (n_samples,), default=None

        Returns
        -------
        batches : iterator of RidgeBatch
            One per fold; ``batch.predict(X)`` stacks the candidates'
            predictions on a leading axis. See ``_ridge_batch.py``.
        """
        validate_estimator_params(self)
        solver = _resolve_solver(
            self.solver,
            positive=self.positive,
            sparse=is_sparse(X),
            fit_intercept=self.fit_intercept,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        if solver not in _DIRECT_SOLVERS:
            # Iterative solvers stop at `tol`, so a factorisation would give
            # (slightly) different models than one-by-one fits; a positive
            # fit solves one constrained problem per alpha.
            raise BatchUnsupported(f"solver {solver!r} fits one alpha at a time")
        if self.engine == "cuml":
            raise BatchUnsupported("engine='cuml' fits one alpha at a time")
        return fit_batch(
            self,
            X,
            y,
            param_sets,
            folds=folds,
            sample_weight=sample_weight,
            xp=compute_namespace(),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.solver != "svd"
        return tags


def ridge_path(X, y, alphas, *, sample_weight=None, fit_intercept=True):
    """Ridge coefficients for many penalties from one factorisation.

    One eigendecomposition of the centred Gram matrix ``Xᵀ W X`` (or of the
    kernel matrix ``X W Xᵀ`` when there are more features than samples)
    serves every alpha, so the cost is that of a single fit plus a small
    matrix product per alpha. Each result equals ``Ridge(alpha=a).fit(X, y)``
    up to rounding.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data (host or device family).
    y : array-like of shape (n_samples,) or (n_samples, n_targets)
        Target values.
    alphas : array-like of shape (n_alphas,)
        Non-negative penalties.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    fit_intercept : bool, default=True
        Whether to fit intercepts.

    Returns
    -------
    coefs : ndarray of shape (n_alphas, n_features) or \
            (n_alphas, n_targets, n_features)
        One row (or block) per alpha, in the family of ``X``.
    intercepts : ndarray of shape (n_alphas,) or (n_alphas, n_targets)
        Intercepts, zeros when ``fit_intercept=False``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import ridge_path
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    >>> coefs, intercepts = ridge_path(X, y, [0.1, 1.0, 10.0])
    >>> coefs.shape, intercepts.shape
    ((3, 3), (3,))
    """
    xp = compute_namespace()
    family = input_family(X)
    X, y = check_X_y(
        X,
        y,
        xp=xp,
        accept_sparse=_ACCEPT_SPARSE,
        dtype=FLOAT_DTYPES,
        multi_output=True,
        y_numeric=True,
    )
    alphas = check_array(
        alphas, xp=xp, ensure_2d=False, dtype=X.dtype, input_name="alphas"
    ).ravel()
    if bool((alphas < 0).any()):
        raise ValueError("alphas must be non-negative.")
    if sample_weight is not None:
        sample_weight = check_sample_weight(
            sample_weight, X.shape[0], xp=xp, dtype=X.dtype
        )
    if has_negative(sample_weight, xp):
        raise ValueError(NON_FINITE_SYSTEM)  # as Ridge's cholesky solver
    with np.errstate(over="ignore", invalid="ignore"):
        problem = _make_problem(
            X, y, sample_weight, fit_intercept=fit_intercept, overwrite_X=False, xp=xp
        )
        coefs, intercepts = _path_from_problem(problem, alphas, xp)
    if y.ndim == 1:
        coefs, intercepts = coefs[:, 0, :], intercepts[:, 0]
    return to_family(coefs, family), to_family(intercepts, family)
