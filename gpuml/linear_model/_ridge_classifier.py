"""RidgeClassifier and RidgeClassifierCV: ridge regression on {-1, 1} targets.

The labels are binarised as scikit-learn does (``LabelBinarizer(pos_label=1,
neg_label=-1)``: one column for two classes, one per class otherwise, the
indicator matrix itself for multi-label targets), class weights become
sample weights, and the regression is gpuml's :class:`Ridge` (or
:class:`RidgeCV`'s leave-one-out, or its search). Labels are binarised on
the host (one copy of ``n_samples`` labels per fit); the targets and the
fit are then in the compute namespace.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from gpuml._array import (
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
from gpuml._sklearn_compat import StrOptions, validate_estimator_params
from gpuml._validation import (
    FLOAT_DTYPES,
    NUMERIC_FLOAT,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.linear_model._ridge import Ridge, _batches_alphas
from gpuml.linear_model._ridge_cv import (
    _BaseRidgeCV,
    _intercept,
    _solver_for,
    check_alphas,
    floating_dtype,
    raise_for_params,
)
from gpuml.linear_model._ridge_problem import _ACCEPT_SPARSE
from gpuml.metrics import get_scorer


class _RidgeClassifierMixin(ClassifierMixin):
    """Binarised targets, decision values and predictions (scikit-learn's
    ``_RidgeClassifierMixin`` with ``LinearClassifierMixin``'s methods)."""

    def _prepare_data(self, X, y, sample_weight, xp: ModuleType):
        """Validate ``X`` (into ``xp``) and ``y``, binarise ``y``.

        Returns ``X``, the host labels ``y``, the weights (with the class
        weights; ones when none are given) and the targets ``Y`` in ``xp``.
        """
        # the labels stay on the host (a device cannot hold strings): X into
        # xp, then y, in scikit-learn's order of checks
        X = validate_data(
            self, X, xp=xp, accept_sparse=_ACCEPT_SPARSE, dtype=FLOAT_DTYPES
        )
        y = to_host(check_y(y, xp=np, multi_output=True, estimator=self))
        check_consistent_length(X, y)
        self._label_binarizer = LabelBinarizer(pos_label=1, neg_label=-1)
        Y = self._label_binarizer.fit_transform(y)
        if is_sparse(Y):
            Y = Y.toarray()
        Y = to_namespace(np.asarray(Y, dtype=X.dtype), xp)
        self.classes_ = self._label_binarizer.classes_
        if not self._label_binarizer.y_type_.startswith("multilabel"):
            y = column_or_1d(y, warn=True)
        sample_weight = check_sample_weight(
            sample_weight, X.shape[0], xp=xp, dtype=X.dtype
        )
        if self.class_weight:
            reweighting = compute_sample_weight(self.class_weight, y)
            sample_weight = sample_weight * xp.asarray(reweighting, dtype=X.dtype)
        return X, y, sample_weight, Y

    def _store_classes(self, family: str) -> None:
        """``classes_`` in the training input's family (NumPy for labels a
        device cannot hold)."""
        classes = self._label_binarizer.classes_
        if family != "host" and classes.dtype.kind in "biuf":
            classes = to_family(classes, family)
        self.classes_ = classes

    def _decision_xp(self, X, xp: ModuleType):
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
        scores = X @ (coef.T if coef.ndim == 2 else coef) + intercept
        if scores.ndim > 1 and scores.shape[1] == 1:
            scores = scores.reshape(-1)
        return scores

    def decision_function(self, X):
        """Predict confidence scores for samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Signed distances to the hyperplanes (one column for a binary
            problem), NumPy or CuPy like ``X``.
        """
        family = input_family(X)
        return to_output(
            to_family(self._decision_xp(X, compute_namespace()), family), X
        )

    def predict(self, X):
        """Predict class labels for samples in ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted labels (an indicator matrix for multi-label targets),
            NumPy or CuPy like ``X`` (NumPy for labels a device cannot hold).
        """
        check_is_fitted(self, attributes=["_label_binarizer"])
        xp = compute_namespace()
        family = input_family(X)
        scores = self._decision_xp(X, xp)
        binarizer = self._label_binarizer
        if binarizer.y_type_.startswith("multilabel"):
            if binarizer.sparse_input_:
                signs = 2.0 * (to_host(scores) > 0) - 1.0
                return binarizer.inverse_transform(signs)
            return to_output(to_family((scores > 0).astype(xp.int64), family), X)
        if scores.ndim == 1:
            indices = (scores > 0).astype(xp.int64)
        else:
            indices = xp.argmax(scores, axis=1)
        classes = self.classes_
        if classes.dtype.kind not in "biuf":  # strings or objects: the host
            return classes[to_host(indices)]
        return to_output(to_family(self._fitted("classes_", xp)[indices], family), X)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given test data and labels (gpuml's
        ``accuracy_score``: on the device for device predictions)."""
        from gpuml.metrics import accuracy_score

        y_pred = self.predict(X)
        if sample_weight is not None and input_family(y_pred) == HOST:
            # labels a device cannot hold (strings) are compared on the host,
            # with the weights (a search keeps them on the device)
            sample_weight = to_host(sample_weight)
        return accuracy_score(y, y_pred, sample_weight=sample_weight)

    def _get_scorer_instance(self):
        """The scorer of ``score`` (accuracy), for routing ``sample_weight``."""
        return get_scorer("accuracy")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


class RidgeClassifier(_RidgeClassifierMixin, DeviceCacheMixin, BaseEstimator):
    """Classifier using Ridge regression, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.RidgeClassifier`:
    the labels become ``{-1, 1}`` targets (one column per class, one column
    for two classes) fitted by gpuml's :class:`Ridge`; the predicted class is
    that of the largest decision value (its sign for two classes).

    Parameters
    ----------
    alpha : float, default=1.0
        Regularization strength, a non-negative float.
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    copy_X : bool, default=True
        If False, X may be overwritten.
    max_iter : int, default=None
        Maximum iterations of the iterative solvers (see :class:`Ridge`).
    tol : float, default=1e-4
        Stopping tolerance of the iterative solvers (see :class:`Ridge`).
    class_weight : dict or "balanced", default=None
        Weights of the classes, as sample weights (``"balanced"``:
        ``n_samples / (n_classes * np.bincount(y))``).
    solver : {"auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", \
            "saga", "lbfgs"}, default="auto"
        :class:`Ridge`'s solvers, with scikit-learn's rules.
    positive : bool, default=False
        When True, constrains the coefficients to be non-negative (solver
        ``"auto"`` or ``"lbfgs"``).
    random_state : int, RandomState instance or None, default=None
        Accepted for compatibility.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        Coefficients (one row per class; a vector for two classes).
    intercept_ : float or ndarray of shape (n_targets,)
        Independent terms; 0.0 when ``fit_intercept=False``.
    n_iter_ : None or ndarray of shape (n_targets,)
        Iterations of ``"lsqr"``, ``"sag"`` and ``"saga"``; None otherwise.
    solver_ : str
        The solver used.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    RidgeClassifierCV : Ridge classifier with built-in cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import RidgeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    >>> clf = RidgeClassifier().fit(X, y)
    >>> clf.classes_
    array(['no', 'yes'], dtype='<U3')
    >>> round(clf.score(X, y), 2)
    0.96
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in Ridge._parameter_constraints.items() if k != "engine"},
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        class_weight=None,
        solver="auto",
        positive=False,
        random_state=None,
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.class_weight = class_weight
        self.solver = solver
        self.positive = positive
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit the ridge classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (an indicator matrix for multi-label targets).
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
        X, y, sample_weight, Y = self._prepare_data(X, y, sample_weight, xp)
        params = {
            name: getattr(self, name)
            for name in Ridge._parameter_constraints
            if name != "engine"
        }
        ridge = Ridge(**params).fit(X, Y, sample_weight=sample_weight)
        self.coef_ = to_family(ridge.coef_, family)
        self.intercept_ = _intercept(ridge, family)
        self.n_iter_ = ridge.n_iter_
        self.solver_ = ridge.solver_
        self._store_classes(family)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.solver != "svd"
        return tags

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _batch_params(self) -> frozenset:
        """``{"alpha"}``: all alphas of a fold from one factorisation, as
        Ridge's; none for the iterative solvers, ``positive=True`` and
        balanced class weights (which depend on each fold's labels)."""
        if not _batches_alphas(self) or self.class_weight == "balanced":
            return frozenset()
        return frozenset({"alpha"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """Fit one classifier per ``alpha`` of ``param_sets`` on each fold.

        The labels are binarised once, on the whole data: a fold that holds
        every class gets the columns its own fit would (multi-label targets,
        and folds that lack a class, are fitted one by one). Returns one
        :class:`RidgeClassifierBatch` per fold.
        """
        validate_estimator_params(self)
        if not _batches_alphas(self) or self.class_weight == "balanced":
            raise BatchUnsupported("this RidgeClassifier fits one alpha at a time")
        xp = compute_namespace()
        host_y = to_host(y)
        binarizer = LabelBinarizer(pos_label=1, neg_label=-1).fit(host_y)
        if binarizer.y_type_ not in ("binary", "multiclass"):
            raise BatchUnsupported("multi-label targets fit one alpha at a time")
        host_y = column_or_1d(host_y)
        classes = binarizer.classes_
        for train in folds or ():
            if np.unique(host_y[np.asarray(train)]).shape[0] != classes.shape[0]:
                raise BatchUnsupported("a fold lacks a class")
        Y = xp.asarray(binarizer.transform(host_y), dtype=xp.float64)
        if self.class_weight:
            weights = xp.asarray(compute_sample_weight(self.class_weight, host_y))
            if sample_weight is not None:
                weights = weights * xp.asarray(sample_weight)
            sample_weight = weights
        params = {
            name: getattr(self, name)
            for name in Ridge._parameter_constraints
            if name != "engine"
        }
        batches = Ridge(**params)._fit_batch(
            X, Y, param_sets, folds=folds, sample_weight=sample_weight
        )
        if classes.dtype.kind in "biuf":
            classes = xp.asarray(classes)
        return (RidgeClassifierBatch(batch, classes) for batch in batches)


class RidgeClassifierBatch:
    """``k`` fitted ridge classifiers (one per alpha) sharing one fold.

    Responses stack the candidates on a leading axis: ``decision_function``
    gives (k, n) for two classes and (k, n, n_classes) otherwise;
    ``predict`` (k, n) labels.
    """

    def __init__(self, batch, classes):
        self.batch = batch  # a RidgeBatch of the {-1, 1} targets
        self.classes_ = classes

    def __len__(self) -> int:
        return len(self.batch)

    def decision_function(self, X):
        scores = self.batch.predict(X)  # (k, n, n_columns)
        return scores[:, :, 0] if scores.shape[2] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        xp = namespace_of(scores)
        if scores.ndim == 2:
            indices = (scores > 0).astype(xp.int64)
        else:
            indices = scores.argmax(axis=2)
        if namespace_of(self.classes_) is xp:
            return self.classes_[indices]
        return self.classes_[to_host(indices)]  # labels a device cannot hold


class RidgeClassifierCV(_RidgeClassifierMixin, _BaseRidgeCV):
    """Ridge classifier with built-in cross-validation, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.RidgeClassifierCV`.
    By default the penalty is chosen by efficient leave-one-out
    cross-validation of the ``{-1, 1}`` targets (one decomposition for all
    alphas, as :class:`RidgeCV`); with ``cv`` given, by a
    :class:`gpuml.model_selection.GridSearchCV` of :class:`RidgeClassifier`.

    Parameters
    ----------
    alphas : array-like of shape (n_alphas,), default=(0.1, 1.0, 10.0)
        Alpha values to try; strictly positive for the leave-one-out.
    fit_intercept : bool, default=True
        Whether to fit the intercept.
    scoring : str, callable, default=None
        The score to maximise. None: the negative mean squared error of the
        leave-one-out targets (``cv=None``), accuracy otherwise.
    cv : int, cross-validation generator or an iterable, default=None
        None: efficient leave-one-out; else the search's splits.
    class_weight : dict or "balanced", default=None
        Weights of the classes, as sample weights.
    store_cv_results : bool, default=False
        Whether to keep each alpha's leave-one-out values in
        ``cv_results_`` (``cv=None`` only).

    Attributes
    ----------
    cv_results_ : ndarray of shape (n_samples, n_targets, n_alphas)
        Squared leave-one-out errors (``scoring=None``) or leave-one-out
        decision values, when ``store_cv_results=True``.
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients (a vector for two classes).
    intercept_ : float or ndarray of shape (n_targets,)
        Independent terms; 0.0 when ``fit_intercept=False``.
    alpha_ : float
        The chosen penalty.
    best_score_ : float
        The score of the chosen penalty.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    RidgeClassifier : Ridge classifier with a given penalty.
    RidgeCV : Ridge regression with built-in cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import RidgeClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4))
    >>> y = np.digitize(X[:, 0] - X[:, 2], [-0.5, 0.5])
    >>> clf = RidgeClassifierCV(alphas=[0.1, 1.0, 10.0]).fit(X, y)
    >>> clf.classes_
    array([0, 1, 2])
    >>> clf.alpha_
    10.0
    """

    _parameter_constraints: dict = {
        **{
            k: v
            for k, v in _BaseRidgeCV._parameter_constraints.items()
            if k not in ("gcv_mode", "alpha_per_target")
        },
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        alphas=(0.1, 1.0, 10.0),
        *,
        fit_intercept=True,
        scoring=None,
        cv=None,
        class_weight=None,
        store_cv_results=False,
    ):
        self.alphas = alphas
        self.fit_intercept = fit_intercept
        self.scoring = scoring
        self.cv = cv
        self.class_weight = class_weight
        self.store_cv_results = store_cv_results

    def fit(self, X, y, sample_weight=None, **params):
        """Fit the ridge classifier, choosing its alpha by cross-validation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family).
        y : array-like of shape (n_samples,)
            Class labels.
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
        X, y, sample_weight, Y = self._prepare_data(X, y, sample_weight, xp)
        if self.cv is None:
            self._fit_validated(
                X,
                Y,
                sample_weight,
                params,
                family=family,
                original_dtype=original_dtype,
                xp=xp,
                is_clf=True,
            )
        else:
            classifier = RidgeClassifier(
                fit_intercept=self.fit_intercept, solver=_solver_for(X)
            )
            self._fit_search(X, y, sample_weight, params, classifier, family)
        self._store_classes(family)
        return self
