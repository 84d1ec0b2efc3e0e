"""RidgeCV: ridge regression whose penalty is chosen by cross-validation.

``cv=None`` (the default) is scikit-learn's efficient leave-one-out: one
decomposition of the centred, weighted data serves every alpha, and the
leave-one-out errors of all alphas follow from it in a few matrix products
(scikit-learn's ``_RidgeGCV``, whose intercept and sample-weight treatment
is followed exactly, so that the errors and the chosen alpha are
scikit-learn's). The decomposition is one of

- ``"gram"``: the eigendecomposition of ``X Xᵀ`` (n_samples <= n_features),
- ``"cov"``: the eigendecomposition of ``Xᵀ X`` (n_features < n_samples),
- ``"svd"``: the thin SVD of ``X`` (dense ``X`` only),

computed with ``xp`` (cuSOLVER on the GPU, LAPACK on the CPU), in float64
as scikit-learn computes. Each is written as a basis ``B`` (n_samples, k)
and per-alpha weights ``f`` (n_alphas, k) with a constant ``g`` (0 or 1)::

    alpha * c = B (f * Bᵀy) + g y        (the dual coefficients, scaled)
    alpha * d = diag(B diag(f) Bᵀ) + g   (the hat matrix's complement)
    d        -= alpha * G⁻¹√s * √s / sum(s)   (with an intercept)
    looe      = c / d

so that all alphas are computed together (:func:`_loo_errors`).

Any other ``cv`` is a :class:`gpuml.model_selection.GridSearchCV` over
gpuml's :class:`~gpuml.linear_model.Ridge`, as scikit-learn delegates to its
own: the search keeps the data on the device and fits all alphas of a fold
from one factorisation.
"""

from __future__ import annotations

import warnings
from numbers import Real
from types import ModuleType

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MultiOutputMixin,
    RegressorMixin,
)
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
    namespace_of,
    to_family,
    to_family_attribute,
    to_host,
)
from gpuml._linalg import eigh, sparse_module, thin_svd
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    routing_enabled,
    validate_estimator_params,
)
from gpuml._validation import (
    FLOAT_DTYPES,
    check_sample_weight,
    quickly_finite,
    validate_data,
)
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._ridge import Ridge
from gpuml.linear_model._ridge_problem import (
    _ACCEPT_SPARSE,
    _dense_targets,
    _make_problem,
)
from gpuml.metrics import Scorer, check_scoring, get_scorer, get_scorer_names

# Largest number of leave-one-out errors (alphas x samples x targets) held
# at once; more alphas are taken in chunks.
_MAX_LOO_VALUES = 1 << 25
# Widest sparse data whose search fits by gpuml's (exact, batched) cholesky
# solver; wider sparse data use sparse_cg, as scikit-learn does.
_MAX_SPARSE_GRAM = 8192


def raise_for_params(params: dict, owner, method: str) -> None:
    """scikit-learn's error for metadata passed without routing."""
    if params and not routing_enabled():
        raise ValueError(
            f"Passing extra keyword arguments to {type(owner).__name__}.{method} "
            "is only supported if enable_metadata_routing=True, which you can set "
            "using `sklearn.set_config`. See the User Guide "
            "<https://scikit-learn.org/stable/metadata_routing.html> for more "
            f"details. Extra parameters passed are: {set(params)}"
        )


def check_alphas(alphas, *, strict: bool) -> np.ndarray:
    """scikit-learn's checks of ``alphas`` (strictly positive for the
    leave-one-out, non-negative for a search); a host float array.

    As scikit-learn, a one-element list is checked (and updated) in place.
    """
    bound = "neither" if strict else "left"

    def check(value, name):
        return check_scalar(
            value, name, target_type=Real, min_val=0.0, include_boundaries=bound
        )

    if isinstance(alphas, (np.ndarray, list, tuple)):
        n_alphas = 1 if np.ndim(alphas) == 0 else len(alphas)
        if n_alphas != 1:
            for index, alpha in enumerate(alphas):
                check(alpha, f"alphas[{index}]")
        else:
            alphas[0] = check(alphas[0], "alphas")
    return np.asarray(alphas)


def gcv_mode_of(X, gcv_mode) -> str:
    """scikit-learn's ``_check_gcv_mode``: "svd", "gram" or "cov"."""
    if gcv_mode == "svd":
        if is_sparse(X):
            warnings.warn(
                "The 'svd' mode is not supported for sparse X, we fallback to "
                "`gcv_mode='eigen'`. Passing `gcv_mode='svd'` on sparse X will "
                "raise an error in 1.11, use the default or pass "
                "`gcv_mode='eigen'` to suppress this warning.",
                FutureWarning,
                stacklevel=4,
            )
        else:
            return "svd"
    n_samples, n_features = X.shape
    return "gram" if n_samples <= n_features else "cov"


def check_finite_products(matrix, xp: ModuleType) -> None:
    """scikit-learn's ``LinAlgError`` where ``X Xᵀ`` or ``Xᵀ X`` (``matrix``)
    overflowed (features near 1e154 and above), before its
    eigendecomposition: LAPACK's decomposition of a matrix of infinities
    can come back as zeros, zero coefficients, a plausible wrong model. The
    input check's one-pass test first (:func:`gpuml._validation.quickly_finite`),
    the element-wise one only where it does not prove finiteness."""
    if not (quickly_finite(matrix, xp) or bool(xp.isfinite(matrix).all())):
        raise np.linalg.LinAlgError(
            "Eigenvalues did not converge: the products of the centred, "
            "weighted features overflow float64 (values near 1e154 and "
            "above). Scale the features, or use gcv_mode='svd'."
        )


class _Decomposition:
    """One decomposition of the centred, weighted problem, for all alphas.

    ``B`` (n, k), ``By = Bᵀy`` (k, t), ``Bs = Bᵀ√s`` (k,), the spectrum
    ``values`` (k,) (eigenvalues, or singular values for "svd") and ``g``.
    """

    def __init__(self, problem, sqrt_sw, mode: str, xp: ModuleType):
        self.problem = problem
        self.mode = mode
        self.xp = xp
        n_samples, n_features = problem.X.shape
        if mode == "gram":
            K = _kernel(problem, sqrt_sw, xp)
            check_finite_products(K, xp)
            self.values, B = eigh(K, xp)
            self.g = 0.0
        elif mode == "cov":
            G = problem.gram()
            check_finite_products(G, xp)
            self.values, self.V = eigh(G, xp)
            B = problem.matvec(self.V)  # the centred, weighted X, times V
            self.g = 1.0
        else:
            B, self.values, Vt = thin_svd(problem.X, xp)
            self.V = Vt.T
            self.g = 0.0 if n_samples <= n_features else 1.0
        self.B = B
        self.B2 = B * B  # for the diagonals of B diag(f) Bᵀ
        self.By = B.T @ problem.y
        self.Bs = B.T @ sqrt_sw

    def weights(self, alphas):
        """``f`` of every alpha: (n_alphas, k)."""
        values = self.values[None, :]
        alphas = alphas[:, None]
        if self.mode == "gram":
            return 1.0 / (values + alphas)
        if self.mode == "cov":
            return -1.0 / (values + alphas)
        scaled = alphas / (values**2 + alphas)
        return scaled - self.g

    def coef(self, alphas):
        """(t, p) coefficients, target ``j`` with the penalty ``alphas[j]``."""
        a = alphas[:, None]  # (t, 1)
        if self.mode == "gram":
            dual = self.B @ (self.By / (self.values[None, :] + a).T)
            return self.problem.rmatvec(dual).T
        if self.mode == "cov":
            return (self.V @ (self.By / (self.values[None, :] + a).T)).T
        s = self.values[None, :]
        return (self.V @ (self.By * (s / (s**2 + a)).T)).T


def _kernel(problem, sqrt_sw, xp: ModuleType):
    """``X Xᵀ`` of the centred, weighted data (scikit-learn's
    ``_compute_gram``: sparse data are centred implicitly)."""
    X = problem.X
    if not is_sparse(X):
        return X @ X.T
    if problem.sqrt_sw is not None:
        X = sparse_module(xp).diags(problem.sqrt_sw) @ X
    K = X @ X.T
    K = K.toarray() if hasattr(K, "toarray") else xp.asarray(K)
    X_mean = problem.X_offset
    X_Xm = X @ X_mean
    return (
        K
        - X_Xm[:, None] * sqrt_sw[None, :]
        - sqrt_sw[:, None] * X_Xm[None, :]
        + (X_mean @ X_mean) * sqrt_sw[:, None] * sqrt_sw[None, :]
    )


def _loo_errors(decomposition, alphas, y, sqrt_sw, fit_intercept, xp):
    """Leave-one-out errors (n_alphas, n_samples, n_targets) of the scaled
    problem, all alphas at once (see the module's docstring)."""
    B, g = decomposition.B, decomposition.g
    F = decomposition.weights(alphas)  # (a, k)
    alpha_c = B @ (F[:, :, None] * decomposition.By[None]) + g * y[None]
    alpha_d = decomposition.B2 @ F.T + g  # (n, a)
    if fit_intercept:
        sw_sum = sqrt_sw @ sqrt_sw
        Ginv_sqrt_sw = B @ (F * decomposition.Bs[None, :]).T + g * sqrt_sw[:, None]
        alpha_d = alpha_d - Ginv_sqrt_sw * (sqrt_sw / sw_sum)[:, None]
    return alpha_c / alpha_d.T[:, :, None]


class _IdentityRegressor(RegressorMixin, BaseEstimator):
    """Returns its input as predictions: how a scorer scores the
    leave-one-out predictions (scikit-learn's device)."""

    def decision_function(self, y_predict):
        return y_predict

    def predict(self, y_predict):
        return y_predict


class _IdentityClassifier(ClassifierMixin, BaseEstimator):
    """Returns its input as decision values; predicts as a linear
    classifier (``scores > 0`` for one column, else the argmax)."""

    def __init__(self, classes):
        self.classes_ = classes

    def decision_function(self, y_predict):
        return y_predict

    def predict(self, y_predict):
        xp = namespace_of(y_predict)
        if y_predict.ndim == 1:
            indices = (y_predict > 0).astype(xp.int64)
        else:
            indices = xp.argmax(y_predict, axis=1)
        # classes_ stays on the host (scikit-learn's scorers read it)
        return xp.asarray(self.classes_)[indices]


def _float64_copy(values, xp: ModuleType):
    """A float64 copy of ``values`` (gpuml's cast or a memcpy on the GPU:
    no CuPy copy kernel to compile)."""
    if xp is not np and not is_sparse(values):
        from gpuml import _cuda

        values = xp.ascontiguousarray(values)
        if values.dtype == np.float64:
            return _cuda.copy(values)
        cast = _cuda.cast(values, np.float64)
        if cast is not None:
            return cast
    return values.astype(xp.float64)


def _fit_gcv_device(
    estimator, problem, alphas, y_ndim, per_target_option, family, original_dtype, xp
):
    """:func:`fit_gcv` on the GPU for dense, tall data scored by the mean
    squared error (no scorer, no stored values): scikit-learn's "cov"
    (eigen) leave-one-out with cuBLAS, cuSOLVER and two gpuml kernels.

    The eigendecomposition of ``Xᵀ X`` (one cuSOLVER call), ``B = X V``,
    ``B²``, and the products of :func:`_loo_errors` formed transposed (one
    GEMM each, every alpha of a chunk together); ``loo_squares`` then sums
    the squared leave-one-out errors of every (alpha, target) in one pass.
    The spectrum, ``Bᵀ y`` and the coefficients are small and computed on
    the host, in float64. No CuPy element-wise or reduction kernel runs
    (but the centring's subtraction in :func:`_make_problem`).
    """
    from gpuml import _cuda
    from gpuml._linalg import device_eigh

    fit_intercept = estimator.fit_intercept
    Xs, Y = problem.X, problem.y  # centred and weighted, float64
    n_samples = Xs.shape[0]
    n_targets = Y.shape[1]
    root = problem.sqrt_sw
    gram = Xs.T @ Xs
    check_finite_products(gram, xp)
    values, V_rows = device_eigh(gram)
    B = xp.ascontiguousarray(Xs @ V_rows.T)  # (n, p)
    B2 = xp.empty_like(B)
    _cuda.launch("ridge", "square_values<double>", B.size, (B, np.int64(B.size), B2))
    ones = xp.asarray(np.ones(n_samples)) if root is None else root
    By = np.asarray(to_host(B.T @ Y))  # (p, t)
    Bs = np.asarray(to_host(B.T @ ones))  # (p,)
    sw_sum = float(to_host(ones @ ones))
    values_h = np.asarray(to_host(values))
    V_h = np.asarray(to_host(V_rows)).T

    if np.ndim(alphas) == 0:
        host_alphas = np.array([float(alphas)])
    else:
        host_alphas = np.array([float(a) for a in alphas])
    n_alphas = host_alphas.shape[0]
    chunk = max(1, _MAX_LOO_VALUES // max(1, n_samples * n_targets))
    sums = np.empty((n_alphas, n_targets))
    for start in range(0, n_alphas, chunk):
        stop = min(start + chunk, n_alphas)
        a = stop - start
        F = -1.0 / (values_h[None, :] + host_alphas[start:stop, None])  # (a, p)
        M = (F[:, :, None] * By[None]).transpose(0, 2, 1).reshape(a * n_targets, -1)
        Ct = xp.asarray(np.ascontiguousarray(M)) @ B.T  # (a t, n)
        Dt = xp.asarray(F) @ B2.T  # (a, n)
        Et = xp.asarray(F * Bs[None, :]) @ B.T if fit_intercept else None
        out = xp.zeros(a * n_targets, dtype=np.float64)
        blocks = (min(-(-n_samples // _cuda.THREADS), 1024), a * n_targets)
        _cuda.kernel("ridge", "loo_squares<double>")(
            blocks,
            (_cuda.THREADS,),
            (
                Ct, Dt, 0 if Et is None else Et, Y, 0 if root is None else root,
                np.float64(1.0), np.float64(1.0 / sw_sum), np.int64(n_samples),
                np.int64(n_targets), out,
            ),
        )  # fmt: skip
        sums[start:stop] = np.asarray(to_host(out)).reshape(a, n_targets)
    if per_target_option:
        score_table = -sums / n_samples  # (a, t)
        if y_ndim == 1:
            score_table = score_table[:, 0]
    else:
        score_table = -sums.sum(axis=1) / (n_samples * n_targets)
    # The first best alpha, as scikit-learn's strict ">" keeps it.
    if score_table.ndim == 2:
        best = np.argmax(score_table, axis=0)
        best_score = score_table[best, np.arange(score_table.shape[1])]
    else:
        best = np.argmax(score_table).reshape(1)
        best_score = score_table[best[0]]
    per_target = per_target_option and y_ndim == 2
    if per_target and n_targets > 1:
        alpha_ = to_family(host_alphas[best], family)
        target_alphas = host_alphas[best]
    else:
        alpha_ = float(host_alphas[best[0]])
        target_alphas = np.full(n_targets, alpha_)
    # "cov"'s coefficients: V (Bᵀy / (values + alpha))
    coef = (V_h @ (By / (values_h[None, :] + target_alphas[:, None]).T)).T  # (t, p)
    estimator.alpha_ = alpha_
    estimator.best_score_ = to_family_attribute(best_score, family)
    dtype = original_dtype if original_dtype is not None else np.float64
    if fit_intercept:
        X_offset, y_offset = (to_host(v) for v in (problem.X_offset, problem.y_offset))
        intercept = y_offset - coef @ X_offset
    if y_ndim == 1 or n_targets == 1:
        coef = coef[0]
        if fit_intercept and y_ndim == 1:
            intercept = intercept[0]
    estimator.coef_ = to_family(coef.astype(dtype), family)
    if fit_intercept:
        estimator.intercept_ = to_family_attribute(intercept.astype(dtype), family)
    else:
        estimator.intercept_ = 0.0


def fit_gcv(
    estimator,
    X,
    y,
    sample_weight,
    alphas,
    *,
    scorer,
    score_params,
    is_clf: bool,
    family: str,
    original_dtype,
    xp: ModuleType,
):
    """scikit-learn's ``_RidgeGCV.fit`` on validated ``xp`` data; sets
    ``alpha_``, ``best_score_``, ``coef_``, ``intercept_`` (and
    ``cv_results_``) on ``estimator``, in ``family``."""
    fit_intercept = estimator.fit_intercept
    per_target_option = getattr(estimator, "alpha_per_target", False)
    X_in = X
    X, y = _float64_copy(X, xp), _float64_copy(_dense_targets(y), xp)
    if sample_weight is not None:
        # negative weights: scikit-learn's leave-one-out fails (LinAlgError
        # from the square roots' NaN); a clear error here, not a number
        sample_weight = check_sample_weight(
            sample_weight, X.shape[0], xp=xp, dtype=xp.float64, ensure_non_negative=True
        )
    unscaled_y = y
    with np.errstate(over="ignore", invalid="ignore"):
        problem = _make_problem(
            X,
            y,
            sample_weight,
            fit_intercept=fit_intercept,
            overwrite_X=X is not X_in,
            xp=xp,
        )
    n_samples = X.shape[0]
    sqrt_sw = problem.sqrt_sw
    if sqrt_sw is None:
        sqrt_sw = xp.asarray(np.ones(n_samples))  # a copy, no fill kernel
    mode = gcv_mode_of(problem.X, estimator._gcv_mode())
    if (
        xp is not np
        and scorer is None
        and not estimator.store_cv_results
        and mode == "cov"
        and not is_sparse(problem.X)
    ):
        _fit_gcv_device(
            estimator, problem, alphas, y.ndim, per_target_option, family,
            original_dtype, xp,
        )  # fmt: skip
        return
    decomposition = _Decomposition(problem, sqrt_sw, mode, xp)

    if np.ndim(alphas) == 0:
        host_alphas = np.array([float(alphas)])
    else:
        host_alphas = np.array([float(a) for a in alphas])
    device_alphas = xp.asarray(host_alphas)
    n_alphas = host_alphas.shape[0]
    Y = problem.y  # (n, t), centred and weighted
    n_y = 1 if y.ndim == 1 else y.shape[1]
    per_target = per_target_option and y.ndim == 2
    store = estimator.store_cv_results
    results = [] if store else None
    scores = []
    # A gpuml scorer of predictions scores many alphas' at once (one
    # transfer per chunk rather than one per alpha).
    batched = (
        isinstance(scorer, Scorer)
        and scorer.batched
        and scorer._response_method == "predict"
        and not is_clf
        and y.ndim == 1
    )
    chunk = max(1, _MAX_LOO_VALUES // max(1, n_samples * Y.shape[1]))
    for start in range(0, n_alphas, chunk):
        stop = min(start + chunk, n_alphas)
        looe = _loo_errors(
            decomposition, device_alphas[start:stop], Y, sqrt_sw, fit_intercept, xp
        )
        if scorer is None:
            squared = looe**2
            if per_target_option:
                scores.append(-squared.mean(axis=1))  # (a, t)
            else:
                scores.append(-squared.reshape(stop - start, -1).mean(axis=1))
            if store:
                results.append(squared)
            continue
        predictions = Y[None] - looe
        if sample_weight is not None:
            predictions /= sqrt_sw[None, :, None]
        predictions += problem.y_offset[None, None, :]
        if store:
            results.append(predictions)
        if batched:  # all alphas of the chunk in one reduction
            scores.extend(
                to_host(
                    scorer.score_predictions(
                        unscaled_y, predictions[:, :, 0], **score_params
                    )
                ).tolist()
            )
            continue
        for prediction in predictions:
            scores.append(
                _score(
                    prediction if y.ndim == 2 else prediction[:, 0],
                    unscaled_y,
                    n_y=n_y,
                    scorer=scorer,
                    score_params=score_params,
                    is_clf=is_clf,
                    per_target=per_target_option,
                    xp=xp,
                )
            )

    if scorer is None:
        score_table = xp.concatenate(scores, axis=0)
        if per_target_option and y.ndim == 1:
            score_table = score_table[:, 0]
    else:
        score_table = xp.asarray(np.asarray([to_host(s) for s in scores]))
    # The first best alpha, as scikit-learn's strict ">" keeps it.
    if score_table.ndim == 2:
        best = xp.argmax(score_table, axis=0)  # (t,)
        best_score = score_table[best, xp.arange(score_table.shape[1])]
    else:
        best = xp.argmax(score_table).reshape(1)
        best_score = score_table[best[0]]
    best_host = np.asarray(to_host(best))
    if per_target and n_y > 1:
        alpha_ = to_family(xp.asarray(host_alphas[best_host]), family)
        target_alphas = device_alphas[best]
    else:
        alpha_ = float(host_alphas[best_host[0]])
        target_alphas = xp.full(Y.shape[1], alpha_, dtype=xp.float64)
    coef = decomposition.coef(target_alphas)  # (t, p)

    estimator.alpha_ = alpha_
    if scorer is None:
        estimator.best_score_ = to_family_attribute(best_score, family)
    elif best_score.ndim == 0:
        estimator.best_score_ = float(best_score)
    else:
        estimator.best_score_ = to_family(best_score, family)
    dtype = original_dtype if original_dtype is not None else xp.float64
    if fit_intercept:
        intercept = problem.y_offset - coef @ problem.X_offset
    if y.ndim == 1 or n_y == 1:
        coef = coef[0]
        if fit_intercept and y.ndim == 1:
            intercept = intercept[0]
    estimator.coef_ = to_family(coef.astype(dtype), family)
    if fit_intercept:
        estimator.intercept_ = to_family_attribute(intercept.astype(dtype), family)
    else:
        estimator.intercept_ = 0.0
    if store:
        values = xp.concatenate(results, axis=0)  # (a, n, t)
        values = values.transpose(1, 2, 0)
        if y.ndim == 1:
            values = values[:, 0, :]
        estimator.cv_results_ = to_family(values.astype(dtype), family)


def _score(prediction, y, *, n_y, scorer, score_params, is_clf, per_target, xp):
    """One alpha's score of its leave-one-out predictions (scikit-learn's
    ``_RidgeGCV._score``)."""
    if is_clf:
        identity = _IdentityClassifier(classes=np.arange(n_y))
        return scorer(identity, prediction, xp.argmax(y, axis=1), **score_params)
    identity = _IdentityRegressor()
    if per_target:
        return np.asarray(
            [
                float(
                    to_host(scorer(identity, prediction[:, j], y[:, j], **score_params))
                )
                for j in range(n_y)
            ]
        )
    return scorer(identity, prediction, y, **score_params)


class _BaseRidgeCV(DeviceCacheMixin, BaseEstimator):
    """What RidgeCV and RidgeClassifierCV share: the choice between the
    leave-one-out and a search, scoring and metadata routing."""

    _parameter_constraints: dict = {
        "alphas": ["array-like", Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        "cv": ["cv_object"],
        "gcv_mode": [StrOptions({"auto", "svd", "eigen"}), None],
        "store_cv_results": ["boolean"],
        "alpha_per_target": ["boolean"],
    }

    def _gcv_mode(self):
        return getattr(self, "gcv_mode", None)

    def _get_scorer(self):
        """scikit-learn's ``_get_scorer``: the scorer of ``scoring``, or the
        estimator's own score (requesting weights) under routing."""
        if routing_enabled() and self.scoring is None:
            return self._get_scorer_instance().set_score_request(sample_weight=True)
        return check_scoring(estimator=self, scoring=self.scoring, allow_none=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def get_metadata_routing(self):
        """Get metadata routing of this object (as scikit-learn's).

        Returns
        -------
        routing : MetadataRouter
            The routing of ``fit``'s metadata to the scorer and splitter.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                scorer=self._get_scorer(),
                method_mapping=MethodMapping().add(caller="fit", callee="score"),
            )
            .add(
                splitter=self.cv,
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def _fit_validated(
        self, X, y, sample_weight, params, *, family, original_dtype, xp, is_clf
    ):
        """The leave-one-out on validated ``xp`` data (``cv=None``)."""
        alphas = check_alphas(self.alphas, strict=True)
        scorer = self._get_scorer()
        if sample_weight is not None:
            params = {**params, "sample_weight": sample_weight}
        if routing_enabled():
            score_params = process_routing(self, "fit", **params).scorer.score
        else:
            score_params = (
                {} if sample_weight is None else {"sample_weight": sample_weight}
            )
        if self.scoring is None:
            scorer = None
        fit_gcv(
            self,
            X,
            y,
            sample_weight,
            alphas,
            scorer=scorer,
            score_params=dict(score_params),
            is_clf=is_clf,
            family=family,
            original_dtype=original_dtype,
            xp=xp,
        )

    def _fit_search(self, X, y, sample_weight, params, estimator, family):
        """A GridSearchCV of ``estimator`` over the alphas (``cv`` given)."""
        from gpuml.model_selection import GridSearchCV

        if self.store_cv_results:
            raise ValueError("cv!=None and store_cv_results=True are incompatible")
        if getattr(self, "alpha_per_target", False):
            raise ValueError("cv!=None and alpha_per_target=True are incompatible")
        alphas = check_alphas(self.alphas, strict=False)
        scorer = self._get_scorer()
        if sample_weight is not None:
            if (
                not isinstance(sample_weight, Real)
                and input_family(sample_weight) == "host"
            ):
                # (gpuml's search splits arrays only: a list or another
                # array-like would reach every fold whole)
                sample_weight = np.asarray(sample_weight)
            params = {**params, "sample_weight": sample_weight}
        if routing_enabled():
            estimator.set_fit_request(sample_weight=True)
        search = GridSearchCV(
            estimator,
            {"alpha": alphas},
            cv=self.cv,
            scoring=scorer if routing_enabled() else self.scoring,
        )
        search.fit(X, y, **params)
        best = search.best_estimator_
        self.alpha_ = best.alpha
        self.best_score_ = search.best_score_
        self.coef_ = to_family(best.coef_, family)
        self.intercept_ = _intercept(best, family)
        return best


def _intercept(model, family: str):
    """A fitted Ridge's ``intercept_`` in ``family``; 0.0 without an
    intercept, as scikit-learn's for any number of targets."""
    if not model.fit_intercept:
        return 0.0
    return to_family_attribute(model.intercept_, family)


def _solver_for(X) -> str:
    """The inner Ridge's solver of a search: gpuml's exact (and batched)
    cholesky, but sparse_cg (scikit-learn's choice) for wide sparse data."""
    if is_sparse(X) and X.shape[1] > _MAX_SPARSE_GRAM:
        return "sparse_cg"
    return "cholesky"


def floating_dtype(X):
    """``X``'s floating dtype, or None (the attributes are then float64)."""
    dtype = getattr(X, "dtype", None)
    return dtype if getattr(dtype, "kind", None) == "f" else None


class RidgeCV(MultiOutputMixin, RegressorMixin, _BaseRidgeCV):
    """Ridge regression with built-in cross-validation, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.RidgeCV` (same
    parameters, attributes and results). By default it performs efficient
    leave-one-out cross-validation: one decomposition of the data (on the
    GPU by cuSOLVER when one is used) gives the leave-one-out errors of
    every alpha. Fitted attributes live in the family of the training input;
    predictions come back in the family of their input.

    Parameters
    ----------
    alphas : array-like of shape (n_alphas,), default=(0.1, 1.0, 10.0)
        Alpha values to try; strictly positive for the leave-one-out.
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    scoring : str, callable, default=None
        The score to maximise. None: the negative mean squared error of the
        leave-one-out (``cv=None``), R² otherwise.
    cv : int, cross-validation generator or an iterable, default=None
        None: efficient leave-one-out. Anything else: the splits of a
        :class:`gpuml.model_selection.GridSearchCV` over gpuml's
        :class:`~gpuml.linear_model.Ridge`.
    gcv_mode : {"auto", "svd", "eigen"}, default="auto"
        The leave-one-out's decomposition: ``"eigen"`` (and ``"auto"``)
        decomposes ``X Xᵀ`` when n_samples <= n_features, else ``Xᵀ X``;
        ``"svd"`` takes the SVD of dense X (sparse X falls back to
        ``"eigen"`` with scikit-learn's FutureWarning).
    store_cv_results : bool, default=False
        Whether to keep each alpha's leave-one-out values in
        ``cv_results_`` (``cv=None`` only).
    alpha_per_target : bool, default=False
        Whether to choose one alpha per target (``cv=None`` only).

    Attributes
    ----------
    cv_results_ : ndarray of shape (n_samples, n_alphas) or \
            (n_samples, n_targets, n_alphas)
        Squared leave-one-out errors (``scoring=None``) or leave-one-out
        predictions, when ``store_cv_results=True``.
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Weight vector(s).
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term; 0.0 when ``fit_intercept=False``.
    alpha_ : float or ndarray of shape (n_targets,)
        The chosen penalty (one per target with ``alpha_per_target``).
    best_score_ : float or ndarray of shape (n_targets,)
        The score of the chosen penalty.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Ridge : Ridge regression with a given penalty.
    RidgeClassifierCV : Ridge classifier with built-in cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import RidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=100)
    >>> model = RidgeCV(alphas=[1e-3, 1e-2, 1e-1, 1.0, 10.0]).fit(X, y)
    >>> model.alpha_
    0.1
    >>> round(model.score(X, y), 3)
    0.978
    """

    def __init__(
        self,
        alphas=(0.1, 1.0, 10.0),
        *,
        fit_intercept=True,
        scoring=None,
        cv=None,
        gcv_mode=None,
        store_cv_results=False,
        alpha_per_target=False,
    ):
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.scoring = scoring
        self.cv = cv
        self.gcv_mode = gcv_mode
        self.store_cv_results = store_cv_results
        self.alpha_per_target = alpha_per_target

    def fit(self, X, y, sample_weight=None, **params):
        """Fit the ridge model, choosing its alpha by cross-validation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family).
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Individual weights for each sample.
        **params : dict
            Metadata for the scorer (with metadata routing enabled).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        raise_for_params(params, self, "fit")
        check_alphas(self.alphas, strict=self.cv is None)
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        original_dtype = floating_dtype(X)
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
        if self.cv is not None:
            ridge = Ridge(fit_intercept=self.fit_intercept, solver=_solver_for(X))
            self._fit_search(X, y, sample_weight, params, ridge, family)
            return self
        self._fit_validated(
            X,
            y,
            sample_weight,
            params,
            family=family,
            original_dtype=original_dtype,
            xp=xp,
            is_clf=False,
        )
        return self

    _predict_xp = Ridge._predict_xp
    predict = Ridge.predict
    score = Ridge.score

    def _get_scorer_instance(self):
        """The scorer of ``score`` (R²), for routing ``sample_weight``."""
        return get_scorer("r2")
