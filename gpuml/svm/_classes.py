"""LinearSVC and LinearSVR: liblinear's objectives on the GPU or the CPU.

``fit`` reads: validate (scikit-learn's parameters, data checks and its
errors for the loss/penalty/dual combinations liblinear lacks) → build the
problems (one per one-vs-rest class, or one regression: targets and
per-sample costs ``C x sample weight x class weight``, liblinear's weighting)
→ solve them together (:mod:`gpuml.svm._solvers`) → store the attributes in
the training input's family.

The objective is liblinear's, ``0.5 ||w||² + Σ c_i loss_i`` with the
intercept fitted as a synthetic feature of value ``intercept_scaling``
whose weight is penalised with the others (so ``intercept_`` is
``intercept_scaling`` times that weight). One-vs-rest weighs the positive
class's samples by ``C`` times its class weight and every other sample by
``C`` alone, as liblinear does; a binary problem weighs each sample by its
own class's weight.

Which algorithm serves which of scikit-learn's options:

=====================================  =======================================
options                                solver
=====================================  =======================================
``squared_hinge``,                     gpuml's batched Newton-CG with exact
``squared_epsilon_insensitive``        line search, on the compute device
(L2 penalty, one-vs-rest, any          (:mod:`gpuml.svm._solvers`)
``dual``)
``hinge``, ``epsilon_insensitive``,    scikit-learn's own compiled liblinear
``penalty="l1"``,                      (``_fit_liblinear``) on a host copy
``multi_class="crammer_singer"``       of the data: scikit-learn's result,
                                       ``n_iter_`` and warnings bit for bit
=====================================  =======================================

liblinear's methods for the second group are sequential over the samples
or features: a device would take a kernel launch per coordinate, and
gpuml's earlier Python loops of the same methods were hundreds of times
slower than liblinear. Samples whose weight is not positive are dropped, as
liblinear drops them (a negative weight costs nothing). A search batches
``C`` (:meth:`_fit_batch`): all ``C`` values and classes of a fold are the
columns of one Newton solve; liblinear's problems take one compiled fit per
``C``, each with the seed its own fit would draw.
"""

from __future__ import annotations

import copy
import threading
import warnings
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from scipy import sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    DEVICE,
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    to_family,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._backend import import_cupyx
from gpuml._sklearn_compat import (
    Interval,
    StrOptions,
    fit_context,
    fit_liblinear,
    liblinear_dual,
    liblinear_solver_type,
    validate_estimator_params,
)
from gpuml._validation import (
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._logistic import (
    LogisticRegression,
    _dense,
    _encode_labels,
    _label_columns,
    _labels,
)
from gpuml.svm import _solvers

_NOT_CONVERGED = "Liblinear failed to converge, increase the number of iterations."

# scikit-learn's liblinear draws its orders from one random generator of the
# process, seeded at the start of each fit: fits in two threads at once (an
# in-process Dask cluster, a threading joblib backend) would draw from it in
# turn and lose scikit-learn's result for their seed. One fit at a time.
_LIBLINEAR_LOCK = threading.Lock()

_COMMON_CONSTRAINTS: dict = {
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "C": [Interval(Real, 0.0, None, closed="neither")],
    "fit_intercept": ["boolean"],
    "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
    "dual": ["boolean", StrOptions({"auto"})],
    "verbose": ["verbose"],
    "random_state": ["random_state"],
    "max_iter": [Interval(Integral, 0, None, closed="left")],
}


def _with_intercept(X, scaling: float, xp: ModuleType):
    """``[X, scaling]``: liblinear's synthetic intercept feature."""
    n = X.shape[0]
    if is_sparse(X):
        column = np.full((n, 1), float(scaling))
        if xp is np:
            return sp.hstack([X, sp.csr_matrix(column)], format="csr")
        cusparse = import_cupyx("scipy.sparse")
        return cusparse.hstack(
            [X, cusparse.csr_matrix(xp.asarray(column))], format="csr"
        )
    return xp.concatenate([X, xp.full((n, 1), float(scaling))], axis=1)


def _check_weights(sample_weight, n: int, xp: ModuleType):
    """Validated float64 sample weights (ones for None). liblinear drops the
    samples whose weight is not positive: the Newton problems give them no
    cost, scikit-learn's compiled liblinear drops them itself."""
    return check_sample_weight(sample_weight, n, xp=xp, dtype=xp.float64)


def _warn_if_not_converged(solution, max_iter: int) -> int:
    """scikit-learn's ConvergenceWarning; returns ``n_iter_`` (the most
    iterations of any problem, as scikit-learn reports)."""
    n_iter = int(solution.n_iter.max()) if solution.n_iter.size else 0
    if n_iter >= max_iter or not bool(solution.converged.all()):
        warnings.warn(_NOT_CONVERGED, ConvergenceWarning, stacklevel=4)
    return min(n_iter, max_iter)


class _LiblinearMixin:
    """What LinearSVC and LinearSVR share: the solver choice and the solve."""

    def _squared(self) -> bool:
        return self.loss.startswith("squared")

    def _resolve(self, X, penalty: str, multi_class: str) -> bool:
        """scikit-learn's ``dual`` and its errors; gpuml's refusals."""
        dual = liblinear_dual(self.dual, self.loss, penalty, multi_class, X)
        liblinear_solver_type(multi_class, penalty, self.loss, dual)
        return dual

    def _uses_newton(self) -> bool:
        """gpuml's batched device Newton method (the squared losses with the
        L2 penalty, one-vs-rest); scikit-learn's compiled liblinear on a host
        copy for the rest (see the module docstring)."""
        return (
            self._squared()
            and getattr(self, "penalty", "l2") == "l2"
            and getattr(self, "multi_class", "ovr") == "ovr"
        )

    def _newton(self, X, T, cost, eps, xp: ModuleType, kind: str, epsilon: float):
        """Solve the problems (columns of ``T`` and ``cost``) on ``X`` (with
        its intercept column) on the compute device; returns a
        :class:`_solvers.Solution` whose ``W`` is in ``xp``."""
        return _solvers.newton(
            X,
            T,
            cost,
            kind=kind,
            epsilon=epsilon,
            eps=eps,
            max_iter=self.max_iter,
            xp=xp,
        )

    def _compiled(self, X, y, weights, Cs, *, dual, class_weight=None, epsilon=0.1):
        """Each ``C`` by scikit-learn's compiled liblinear (``_fit_liblinear``,
        what scikit-learn's own fit calls) on a host copy of ``X``: its
        result, ``n_iter`` and ConvergenceWarning exactly. Returns ``(coefs,
        intercepts, n_iter)``: host arrays (rows, p) and (rows,) per ``C``,
        and the most iterations of any fit."""
        X_host = to_host(X)
        if not sp.issparse(X_host):
            X_host = np.ascontiguousarray(X_host)
        y_host = np.ascontiguousarray(to_host(y))
        w_host = np.ascontiguousarray(to_host(weights))
        # liblinear draws one seed from random_state per fit: each C takes the
        # draw its own fit would (a copy of the state), then the state moves
        # on by that one draw, as after scikit-learn's fit
        state = check_random_state(self.random_state)
        coefs, intercepts, n_iter = [], [], 0
        for C in Cs:
            with _LIBLINEAR_LOCK:
                coef, intercept, iterations = fit_liblinear(
                    X_host,
                    y_host,
                    C,
                    self.fit_intercept,
                    self.intercept_scaling,
                    class_weight,
                    getattr(self, "penalty", "l2"),
                    dual,
                    self.verbose,
                    self.max_iter,
                    self.tol,
                    copy.deepcopy(state),
                    getattr(self, "multi_class", "ovr"),
                    self.loss,
                    epsilon,
                    w_host,
                )
            coefs.append(coef)
            intercepts.append(np.broadcast_to(intercept, coef.shape[:1]))
            n_iter = max(n_iter, int(np.max(iterations)))
        state.randint(np.iinfo("i").max)
        return coefs, intercepts, n_iter

    def _augmented(self, X, xp):
        return (
            _with_intercept(X, self.intercept_scaling, xp) if self.fit_intercept else X
        )

    def _split(self, W, p: int, xp):
        """``(coef (k, p), intercept (k,))`` from the solution's (p', k)."""
        coef = W[:p].T
        if self.fit_intercept:
            return coef, self.intercept_scaling * W[p]
        return coef, xp.zeros(W.shape[1])

    def _checked_Cs(self, param_sets) -> list[float]:
        Cs = []
        for params in param_sets:
            # scikit-learn's validation of each candidate's C
            type(self)(**{**self.get_params(), **params})._validate_params()
            Cs.append(float(params["C"]))
        return Cs


def _svc_problems(y_index, n_classes: int, per_class, weights, Cs, tol, xp):
    """Targets, costs (n, len(Cs) * rows: C-major) and liblinear's primal
    tolerance per column, for the one-vs-rest (or binary) problems."""
    host_y = np.asarray(to_host(y_index))
    host_w = np.maximum(weights, 0.0)  # host weights, as liblinear keeps them
    kept = host_w > 0  # liblinear drops samples of non-positive weight first
    if n_classes == 2:
        T = (2.0 * (host_y == 1) - 1.0)[:, None]
        base = (host_w * per_class[host_y])[:, None]
        positives = [int(np.count_nonzero(kept & (host_y == 1)))]
    else:
        onehot = host_y[:, None] == np.arange(n_classes)[None, :]
        T = np.where(onehot, 1.0, -1.0)
        base = host_w[:, None] * np.where(onehot, per_class[None, :], 1.0)
        positives = [
            int(np.count_nonzero(kept & (host_y == c))) for c in range(n_classes)
        ]
    used = max(int(np.count_nonzero(kept)), 1)
    eps = np.array([tol * max(min(pos, used - pos), 1) / used for pos in positives])
    T_all = np.tile(T, (1, len(Cs)))
    cost = np.concatenate([C * base for C in Cs], axis=1)
    return xp.asarray(T_all), xp.asarray(cost), np.tile(eps, len(Cs))


class LinearSVC(_LiblinearMixin, ClassifierMixin, DeviceCacheMixin, BaseEstimator):
    """Linear support vector classification, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.svm.LinearSVC`: the same
    parameters, liblinear's objective (the intercept penalised through
    ``intercept_scaling``), its optimum, and the same attributes. The squared
    hinge (the default) is minimised on the compute device by a batched
    Newton method; the hinge loss, the L1 penalty and Crammer and Singer's
    method by scikit-learn's own compiled liblinear on a host copy of the
    data (see the module docstring). Predictions come back in the
    family of their input; fitted attributes live in the family of the
    training input.

    Parameters
    ----------
    penalty : {"l1", "l2"}, default="l2"
        ``"l1"`` (with the squared hinge, ``dual=False``): scikit-learn's
        liblinear on the host; the intercept's weight is penalised by the L1
        norm too, as liblinear does.
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
    dual : "auto" or bool, default="auto"
        scikit-learn's choice and errors; both formulations have the same
        optimum, which gpuml computes as described above.
    tol : float, default=1e-4
        Stopping tolerance: for the squared hinge, liblinear's primal rule
        (gradient norm at most ``tol`` times liblinear's scale times its
        initial norm, which bounds the distance to the optimum); otherwise
        liblinear's own.
    C : float, default=1.0
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        ``"crammer_singer"`` (``penalty``, ``loss`` and ``dual`` ignored) is
        fitted by scikit-learn's compiled liblinear on a host copy of the
        data: scikit-learn's result, ``n_iter_`` and warnings exactly.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1
        Value of the synthetic intercept feature (its weight is penalised).
    class_weight : dict or "balanced", default=None
    verbose : int, default=0
        Accepted for compatibility; prints nothing.
    random_state : int, RandomState instance or None, default=None
        Order of the coordinate-descent passes (hinge loss).
    max_iter : int, default=1000
        Newton iterations (squared hinge) or passes over the samples (hinge).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,), or 0.0
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        The most iterations of any one-vs-rest problem.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.svm import LinearSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    >>> model = LinearSVC(C=0.5).fit(X, y)
    >>> model.coef_.shape, model.intercept_.shape
    ((1, 3), (1,))
    >>> bool(model.score(X, y) > 0.85)
    True
    """

    _parameter_constraints: dict = {
        "penalty": [StrOptions({"l1", "l2"})],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "class_weight": [None, dict, StrOptions({"balanced"})],
        **_COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        penalty="l2",
        loss="squared_hinge",
        *,
        dual="auto",
        tol=1e-4,
        C=1.0,
        multi_class="ovr",
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        verbose=0,
        random_state=None,
        max_iter=1000,
    ):
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.penalty = penalty
        self.loss = loss

    def _problem(self, X, y, sample_weight, xp):
        """``(classes, y_index, weights, per-class weights)``, checked in
        scikit-learn's order."""
        classes, y_index = _encode_labels(y, xp)
        if y_index.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y_index.shape[0]}]"
            )
        if classes.shape[0] < 2:
            raise ValueError(
                "This solver needs samples of at least 2 classes in the data, but "
                f"the data contains only one class: {to_host(classes)[0]!r}"
            )
        host_classes = np.asarray(to_host(classes))
        host_weights = None
        if sample_weight is not None and input_family(sample_weight) == HOST:
            host_weights = sample_weight
        elif sample_weight is not None:
            host_weights = to_host(sample_weight)
        per_class = compute_class_weight(
            self.class_weight,
            classes=host_classes,
            y=host_classes[np.asarray(to_host(y_index))],
            sample_weight=host_weights,
        )
        return classes, y_index, per_class

    def _fit_problems(self, X, y_index, n_classes, per_class, weights, Cs, dual, xp):
        """Solve every class's problem for every ``C``: ``(W (k, rows, p), b
        (k, rows), n_iter)``, with scikit-learn's ConvergenceWarning."""
        host_weights = np.asarray(to_host(weights))
        if not bool((host_weights > 0).any()):
            raise ValueError(
                "LinearSVC needs at least one sample with a positive weight: "
                "liblinear drops the samples whose weight is zero or negative, "
                "and here that is every sample."
            )
        if not self._uses_newton():
            return self._fit_compiled(
                X, y_index, n_classes, per_class, host_weights, Cs, dual, xp
            )
        T, cost, eps = _svc_problems(
            y_index, n_classes, per_class, host_weights, Cs, self.tol, xp
        )
        solution = self._newton(
            self._augmented(X, xp), T, cost, eps, xp, _solvers.HINGE, 0.0
        )
        coef, intercept = self._split(solution.W, X.shape[1], xp)
        rows = 1 if n_classes == 2 else n_classes
        W = coef.reshape(len(Cs), rows, X.shape[1])
        n_iter = _warn_if_not_converged(solution, self.max_iter)
        return W, intercept.reshape(len(Cs), rows), n_iter

    def _fit_compiled(self, X, y_index, n_classes, per_class, weights, Cs, dual, xp):
        """The problems of scikit-learn's compiled liblinear (the hinge, the
        L1 penalty, Crammer and Singer's method), the class weights given as
        computed for the Newton problems. Binary Crammer-Singer keeps the
        difference of the two classes' rows, as scikit-learn's fit."""
        y_host = np.asarray(to_host(y_index))
        missing = np.setdiff1d(np.arange(n_classes), y_host[weights > 0])
        if missing.size:
            # liblinear fits the other classes only: scikit-learn's model
            # then has fewer rows of coefficients than classes_
            raise ValueError(
                f"LinearSVC(loss={self.loss!r}, penalty={self.penalty!r}, "
                f"multi_class={self.multi_class!r}) needs a sample with a "
                "positive weight in every class: liblinear drops the other "
                f"samples, leaving {missing.size} of the {n_classes} classes "
                "without one."
            )
        class_weight = dict(enumerate(np.asarray(per_class).tolist()))
        coefs, intercepts, n_iter = self._compiled(
            X, y_host, weights, Cs, dual=dual, class_weight=class_weight
        )
        if n_classes == 2 and self.multi_class == "crammer_singer":
            coefs = [coef[1:] - coef[:1] for coef in coefs]
            intercepts = [b[1:] - b[:1] for b in intercepts]
        return xp.asarray(np.stack(coefs)), xp.asarray(np.stack(intercepts)), n_iter

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model according to the given training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family; CSR for sparse).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples; samples of weight zero or less are
            dropped, as liblinear drops them.

        Returns
        -------
        self : object
            An instance of the estimator.
        """
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=np.float64)
        classes, y_index, per_class = self._problem(X, y, sample_weight, xp)
        dual = self._resolve(X, self.penalty, self.multi_class)
        weights = _check_weights(sample_weight, X.shape[0], xp)
        W, b, n_iter = self._fit_problems(
            X, y_index, int(classes.shape[0]), per_class, weights, [self.C], dual, xp
        )
        self.classes_ = classes
        self.coef_ = to_family(W[0], family)
        self.intercept_ = to_family(b[0], family) if self.fit_intercept else 0.0
        self.n_iter_ = n_iter
        return self

    # -- prediction --------------------------------------------------------

    def _decision_xp(self, X, xp):
        check_is_fitted(self)
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=NUMERIC_FLOAT
        )
        coef = _dense(self._fitted("coef_", xp))
        intercept = self._fitted("intercept_", xp)
        scores = X @ coef.astype(X.dtype).T + intercept
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def decision_function(self, X):
        """Confidence scores: signed distances to the hyperplanes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            NumPy or CuPy like ``X``.
        """
        family = input_family(X)
        scores = to_family(self._decision_xp(X, compute_namespace()), family)
        return to_output(
            scores, X, columns=lambda: _label_columns(self.classes_, scores)
        )

    def predict(self, X):
        """Class labels: host labels as NumPy, device labels in X's family.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        family = input_family(X)
        xp = compute_namespace()
        scores = self._decision_xp(X, xp)
        indices = (
            (scores > 0).astype(xp.int64) if scores.ndim == 1 else scores.argmax(1)
        )
        return to_output(_labels(self.classes_, indices, family), X)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given test data and labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        from gpuml.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)

    sparsify = LogisticRegression.sparsify
    densify = LogisticRegression.densify

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _batch_params(self) -> frozenset:
        """``C`` values are columns of one solve (with the classes)."""
        return frozenset({"C"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`LinearSVCBatch` per training fold (all rows when
        ``folds`` is None), every ``C`` of ``param_sets`` and every class
        solved together; a fold's labels are its own, as its fit's."""
        validate_estimator_params(self)
        Cs = self._checked_Cs(param_sets)
        xp = compute_namespace()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=np.float64)
        y_host = y if input_family(y) == HOST else None
        for train in [None] if folds is None else folds:
            if train is None:
                X_f, y_f, w_f = X, y, sample_weight
            else:
                rows = xp.asarray(train)
                X_f = X[rows]
                y_f = np.asarray(y_host)[train] if y_host is not None else y[rows]
                w_f = None
                if sample_weight is not None:
                    w_f = to_namespace(sample_weight, xp)[rows]
            classes, y_index, per_class = self._problem(X_f, y_f, w_f, xp)
            dual = self._resolve(X_f, self.penalty, self.multi_class)
            weights = _check_weights(w_f, X_f.shape[0], xp)
            W, b, _ = self._fit_problems(
                X_f, y_index, int(classes.shape[0]), per_class, weights, Cs, dual, xp
            )
            yield LinearSVCBatch(W, b, classes)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVCBatch:
    """``k`` fitted linear SVCs (one per ``C``) of one training fold.

    Responses stack the candidates on a leading axis: ``decision_function``
    gives (k, n) for binary problems and (k, n, n_classes) otherwise.
    """

    def __init__(self, W, b, classes):
        self.W, self.b, self.classes_ = W, b, classes

    def __len__(self) -> int:
        return self.W.shape[0]

    def decision_function(self, X):
        xp = namespace_of(self.W)
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        k, rows, p = self.W.shape
        if X.shape[1] != p:
            raise ValueError(
                f"X has {X.shape[1]} features, but LinearSVC is expecting "
                f"{p} features as input."
            )
        flat = X @ self.W.reshape(k * rows, p).astype(X.dtype).T
        scores = flat.reshape(X.shape[0], k, rows).transpose(1, 0, 2) + self.b[:, None]
        return scores[:, :, 0] if rows == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        xp = namespace_of(scores)
        indices = (
            (scores > 0).astype(xp.int64) if scores.ndim == 2 else scores.argmax(2)
        )
        family = DEVICE if xp is not np else HOST
        return _labels(self.classes_, indices, family)


class LinearSVR(
    _LiblinearMixin,
    LinearRegressorMixin,
    RegressorMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Linear support vector regression, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.svm.LinearSVR`: the same
    parameters, liblinear's objective (the intercept penalised through
    ``intercept_scaling``), its optimum and the same attributes. The squared
    epsilon-insensitive loss is minimised on the compute device by a batched
    Newton method; the epsilon-insensitive loss (the default) by
    scikit-learn's own compiled liblinear on a host copy of the data (see
    :mod:`gpuml.svm._classes`).

    Parameters
    ----------
    epsilon : float, default=0.0
        Half-width of the insensitive tube.
    tol : float, default=1e-4
        Stopping tolerance (as :class:`LinearSVC`'s).
    C : float, default=1.0
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, \
            default="epsilon_insensitive"
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
    dual : "auto" or bool, default="auto"
    verbose : int, default=0
        Accepted for compatibility; prints nothing.
    random_state : int, RandomState instance or None, default=None
    max_iter : int, default=1000

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,), or 0.0
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.svm import LinearSVR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=200)
    >>> model = LinearSVR(loss="squared_epsilon_insensitive").fit(X, y)
    >>> model.coef_.shape
    (3,)
    >>> bool(model.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        "epsilon": [Real],
        "loss": [StrOptions({"epsilon_insensitive", "squared_epsilon_insensitive"})],
        **_COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        epsilon=0.0,
        tol=1e-4,
        C=1.0,
        loss="epsilon_insensitive",
        fit_intercept=True,
        intercept_scaling=1.0,
        dual="auto",
        verbose=0,
        random_state=None,
        max_iter=1000,
    ):
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.dual = dual
        self.loss = loss

    def _targets(self, X, y, xp):
        y = check_y(y, xp=xp, y_numeric=True)
        if y.ndim != 1:
            y = y.ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y.shape[0]}]"
            )
        return y.astype(xp.float64)

    def _fit_problems(self, X, y, weights, Cs, dual, xp):
        """Every ``C``'s problem: ``(coef (k, p), intercept (k,), n_iter)``,
        with scikit-learn's ConvergenceWarning."""
        if not self._uses_newton():
            coefs, intercepts, n_iter = self._compiled(
                X, y, weights, Cs, dual=dual, epsilon=float(self.epsilon)
            )
            coef = xp.asarray(np.stack([c[0] for c in coefs]))
            return coef, xp.asarray(np.stack([b[0] for b in intercepts])), n_iter
        T = xp.tile(y[:, None], (1, len(Cs)))
        # liblinear drops the samples of non-positive weight: no cost
        cost = xp.maximum(weights, 0.0)[:, None] * xp.asarray(Cs)[None, :]
        eps = np.full(len(Cs), float(self.tol))  # liblinear: tol as given
        solution = self._newton(
            self._augmented(X, xp),
            T,
            cost,
            eps,
            xp,
            _solvers.EPSILON,
            float(self.epsilon),
        )
        coef, intercept = self._split(solution.W, X.shape[1], xp)
        return coef, intercept, _warn_if_not_converged(solution, self.max_iter)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model according to the given training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples; samples of weight zero or less are
            dropped, as liblinear drops them.

        Returns
        -------
        self : object
            An instance of the estimator.
        """
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=np.float64)
        y = self._targets(X, y, xp)
        dual = self._resolve(X, "l2", "ovr")
        weights = _check_weights(sample_weight, X.shape[0], xp)
        coef, intercept, n_iter = self._fit_problems(X, y, weights, [self.C], dual, xp)
        self.coef_ = to_family(coef[0], family)
        self.intercept_ = (
            to_family(intercept[:1], family) if self.fit_intercept else 0.0
        )
        self.n_iter_ = n_iter
        return self

    def _batch_params(self) -> frozenset:
        """``C`` values are columns of one solve."""
        return frozenset({"C"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`LinearSVRBatch` per training fold, every ``C`` of
        ``param_sets`` solved together."""
        validate_estimator_params(self)
        Cs = self._checked_Cs(param_sets)
        xp = compute_namespace()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=np.float64)
        y = self._targets(X, y, xp)
        dual = self._resolve(X, "l2", "ovr")
        weights = _check_weights(sample_weight, X.shape[0], xp)
        for train in [None] if folds is None else folds:
            if train is None:
                parts = X, y, weights
            else:
                rows = xp.asarray(train)
                parts = X[rows], y[rows], weights[rows]
            coef, intercept, _ = self._fit_problems(*parts, Cs, dual, xp)
            yield LinearSVRBatch(coef, intercept)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVRBatch:
    """``k`` fitted linear SVRs (one per ``C``) of one training fold;
    ``predict`` gives (k, n)."""

    def __init__(self, coef, intercept):
        self.coef, self.intercept = coef, intercept

    def __len__(self) -> int:
        return self.coef.shape[0]

    def predict(self, X):
        xp = namespace_of(self.coef)
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        if X.shape[1] != self.coef.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, but LinearSVR is expecting "
                f"{self.coef.shape[1]} features as input."
            )
        return (X @ self.coef.astype(X.dtype).T).T + self.intercept[:, None]
