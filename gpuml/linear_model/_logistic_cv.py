"""LogisticRegressionCV: logistic regression whose ``C`` (and ``l1_ratio``)
is chosen by cross-validation, on the GPU or the CPU.

``fit`` reads like scikit-learn's (``sklearn/linear_model/_logistic.py``):
the same deprecation warnings, checks and errors in the same order, the same
folds, scores, choice of ``C`` and fitted attributes (legacy or new layout).
What differs is how the grid is fitted:

- The data are validated once into the compute namespace (``X`` as float64,
  as scikit-learn casts it) and numeric labels uploaded once; every fold is
  an index array into them.
- Every ``C`` of every fold (and every ``l1_ratio`` where the solver batches
  it) is one call of :meth:`LogisticRegression._fit_batch` (the batched-
  candidates protocol of :mod:`gpuml.model_selection._batch`): one batched
  L-BFGS per fold, or one for all folds on a GPU while the joint problem is
  small. Each fold is fitted with all the classes of ``y`` (``all_classes``),
  as scikit-learn's ``_log_reg_scoring_path`` fits them.
- Each fold's ``k`` models are scored at once: their stacked responses on
  the fold's test rows go to one batched scorer call
  (:meth:`gpuml.metrics.Scorer.score_predictions`), on the device for device
  data. A scorer that is not gpuml's (a scikit-learn scorer object, a user's
  callable) scores each candidate through a fitted
  :class:`LogisticRegression` on the host, as scikit-learn does.
- ``refit=True`` fits the whole data at the best ``C`` with a
  :class:`LogisticRegression` warm-started from the folds' mean
  coefficients (scikit-learn's ``coef_init``); ``refit=False`` averages the
  folds' best coefficients, as scikit-learn does.

scikit-learn fits the ``C`` values of a fold in order, each warm-started
from the previous optimum; gpuml starts every ``C`` from zero (they are
optimised together). Both stop at ``tol``, so the paths, scores and chosen
``C`` agree to the optimiser's tolerance (exactly at a tight ``tol``); the
iteration counts ``n_iter_`` differ.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from numbers import Integral

import numpy as np
from sklearn.metrics import make_scorer as sk_make_scorer
from sklearn.model_selection import check_cv
from sklearn.utils import metadata_routing
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    DEVICE,
    compute_namespace,
    input_family,
    namespace_of,
    to_family,
    to_host,
)
from gpuml._sklearn_compat import (
    Hidden,
    Interval,
    StrOptions,
    check_y_host,
    deprecate_positional_args,
    fit_context,
    routing_enabled,
)
from gpuml._validation import (
    check_consistent_length,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.linear_model._logistic import (
    LogisticBatch,
    LogisticRegression,
    _dense,
    _encode_labels,
)
from gpuml.linear_model._ridge_cv import raise_for_params
from gpuml.metrics import Scorer, check_scoring, get_scorer, get_scorer_names
from gpuml.model_selection._batch import (
    batch_response,
    candidates_per_batch,
    memory_budget,
)
from gpuml.model_selection._data import SearchData, host_split_params, upload

_L1_RATIOS_DEFAULT_WARNING = (
    "The default value for l1_ratios will change from None to (0.0,) "
    "in version 1.10. From version 1.10 onwards, only array-like "
    "with values in [0, 1] will be allowed, None will be forbidden. "
    "To avoid this warning, explicitly set a value, "
    "e.g. l1_ratios=(0,)."
)


class LogisticRegressionCV(LogisticRegression):
    """Logistic regression with built-in cross-validation of ``C``, on the
    GPU or the CPU.

    A drop-in replacement for
    :class:`sklearn.linear_model.LogisticRegressionCV`: the same parameters,
    warnings, errors, folds, scores and fitted attributes. All the ``C``
    values of a fold are fitted together by one batched L-BFGS on the
    compute device (all folds together on a GPU while the problem is small)
    and scored together by one batched scorer call; the data move to the
    device once. Each ``C`` starts from zero rather than from the previous
    ``C``'s optimum (scikit-learn's warm-started path), so results agree to
    the solver's tolerance and ``n_iter_`` counts differ.

    The solvers and penalties are those of gpuml's
    :class:`LogisticRegression` (whose error is raised for the others).

    Parameters
    ----------
    Cs : int or array-like of float, default=10
        The ``C`` values to try; an int ``n`` means ``np.logspace(-4, 4, n)``.
    l1_ratios : array-like of float or None, default=None
        Elastic-net mixing values to try (0: the L2 penalty). Left at its
        default, it warns as scikit-learn 1.9 does and means None.
    fit_intercept : bool, default=True
    cv : int, cross-validation generator or iterable, default=None
        ``None``: 5-fold stratified cross-validation.
    dual : bool, default=False
        Only ``False`` (the dual formulation is liblinear's).
    penalty : {"l1", "l2", "elasticnet"}, default="deprecated"
        Deprecated in scikit-learn 1.8 (use ``l1_ratios`` and ``Cs``); setting
        it warns as scikit-learn does.
    scoring : str, callable or None, default=None
        Scorer name or ``scorer(estimator, X, y)``; None is accuracy. Left at
        its default, it warns as scikit-learn 1.9 does and means accuracy.
    solver : {"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", \
            "saga"}, default="lbfgs"
        The solvers of gpuml's :class:`LogisticRegression` (which device
        algorithm serves each name is said there); with "saga" (and
        "liblinear" for L1) ``l1_ratios`` other than 0 fit L1 and
        elastic-net penalties, every (C, l1_ratio) of a fold in one batch.
    tol : float, default=1e-4
    max_iter : int, default=100
    class_weight : dict, "balanced" or None, default=None
        ``"balanced"`` weights are computed once on the whole data, as
        scikit-learn does.
    n_jobs : int, default=None
        Accepted for compatibility: the folds are fitted in one process.
    verbose : int, default=0
    refit : bool, default=True
        Refit on all the data at the best ``C``, or (False) average the
        folds' best coefficients and ``C`` values.
    intercept_scaling : float, default=1.0
        Accepted for compatibility; used by liblinear only.
    random_state : int, RandomState instance or None, default=None
        Accepted for compatibility; L-BFGS is deterministic.
    use_legacy_attributes : bool, default=True
        scikit-learn 1.9's choice between the legacy attribute layout (dicts
        keyed by class) and the new one; left at its default, it warns as
        scikit-learn does and means True.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    Cs_ : ndarray of shape (n_cs,)
    l1_ratios_ : ndarray of shape (n_l1_ratios,)
    coefs_paths_ : dict or ndarray
        The coefficients of every fold and ``C`` (scikit-learn's shapes).
    scores_ : dict or ndarray
        The score of every fold and ``C`` (scikit-learn's shapes).
    C_ : ndarray of shape (n_classes,) or (1,), or float
    l1_ratio_ : ndarray of shape (n_classes,) or (1,), or float
    n_iter_ : ndarray
        L-BFGS iterations of every fold and ``C`` (gpuml's counts).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    ``coef_``, ``intercept_``, ``coefs_paths_`` and ``scores_`` live in the
    family of the training input; ``Cs_``, ``C_``, ``l1_ratios_``,
    ``l1_ratio_`` and ``n_iter_`` are NumPy.

    See Also
    --------
    LogisticRegression : Logistic regression at a given ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LogisticRegressionCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    >>> clf = LogisticRegressionCV(
    ...     Cs=[0.01, 0.1, 1.0, 10.0], l1_ratios=(0,), scoring="neg_log_loss",
    ...     use_legacy_attributes=False,
    ... ).fit(X, y)
    >>> clf.C_  # as scikit-learn's
    1.0
    >>> clf.scores_.shape  # (n_folds, n_l1_ratios, n_cs)
    (5, 1, 4)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    __metadata_request__score = {"sample_weight": metadata_routing.UNUSED}

    _parameter_constraints: dict = {
        **{
            k: v
            for k, v in LogisticRegression._parameter_constraints.items()
            if k not in ("C", "warm_start", "l1_ratio", "engine")
        },
        "Cs": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "l1_ratios": ["array-like", None, Hidden(StrOptions({"warn"}))],
        "cv": ["cv_object"],
        "scoring": [
            StrOptions(set(get_scorer_names())),
            callable,
            None,
            Hidden(StrOptions({"warn"})),
        ],
        "refit": ["boolean"],
        "penalty": [
            StrOptions({"l1", "l2", "elasticnet"}),
            Hidden(StrOptions({"deprecated"})),
        ],
        "use_legacy_attributes": ["boolean", Hidden(StrOptions({"warn"}))],
    }

    def __init__(
        self,
        *,
        Cs=10,
        l1_ratios="warn",
        fit_intercept=True,
        cv=None,
        dual=False,
        penalty="deprecated",
        scoring="warn",
        solver="lbfgs",
        tol=1e-4,
        max_iter=100,
        class_weight=None,
        n_jobs=None,
        verbose=0,
        refit=True,
        intercept_scaling=1.0,
        random_state=None,
        use_legacy_attributes="warn",
    ):
        self.Cs = Cs
        self.l1_ratios = l1_ratios
        self.fit_intercept = fit_intercept
        self.cv = cv
        self.dual = dual
        self.penalty = penalty
        self.scoring = scoring
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.solver = solver
        self.refit = refit
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state
        self.use_legacy_attributes = use_legacy_attributes

    # A cross-validation estimator: a search over its parameters fits it
    # whole (LogisticRegression's batched C does not apply).
    def _batch_params(self) -> frozenset:
        return frozenset()

    _search_seconds = None

    def _options(self):
        """scikit-learn's reading of ``l1_ratios``, ``penalty``, ``scoring``
        and ``use_legacy_attributes``, with its warnings, in its order:
        ``(l1_ratios, penalty, scoring, use_legacy_attributes)``."""
        if isinstance(self.l1_ratios, str) and self.l1_ratios == "warn":
            l1_ratios = None
            warnings.warn(_L1_RATIOS_DEFAULT_WARNING, FutureWarning, stacklevel=3)
        else:
            l1_ratios = self.l1_ratios
        if self.penalty == "deprecated":
            if self.l1_ratios is None:
                warnings.warn(
                    "'l1_ratios=None' was deprecated in version 1.8 and will "
                    "trigger an error in 1.10. Use an array-like with values"
                    "in [0, 1] instead.",
                    FutureWarning,
                    stacklevel=3,
                )
            if l1_ratios is None or np.all(np.asarray(l1_ratios) == 0):
                penalty = "l2"
            elif np.all(np.asarray(l1_ratios) == 1):
                penalty = "l1"
            else:
                penalty = "elasticnet"
        else:
            penalty = self.penalty
            warnings.warn(
                "'penalty' was deprecated in version 1.8 and will be removed in"
                " 1.10. To avoid this warning, leave 'penalty' set to its default"
                " value and use 'l1_ratios' and 'Cs' instead."
                " Use l1_ratios=(0,) instead of penalty='l2',"
                " l1_ratios=(1,) instead of penalty='l1',"
                " l1_ratios set to floats between 0 and 1 instead of"
                " penalty='elasticnet', and Cs=(np.inf,) instead of penalty=None.",
                FutureWarning,
                stacklevel=3,
            )
        if self.scoring == "warn":
            warnings.warn(
                "The default value of the parameter 'scoring' will change from "
                "None, i.e. accuracy, to 'neg_log_loss' in version 1.11. To "
                "silence this warning, explicitly set the scoring parameter: "
                "scoring='neg_log_loss' for the new, scoring='accuracy' or "
                "scoring=None for the old default.",
                FutureWarning,
                stacklevel=3,
            )
            scoring = None
        else:
            scoring = self.scoring
        if self.use_legacy_attributes == "warn":
            name = type(self).__name__
            warnings.warn(
                f"The fitted attributes of {name} will be "
                "simplified in scikit-learn 1.10 to remove redundancy. Set"
                "`use_legacy_attributes=False` to enable the new behavior now, or "
                "set it to `True` to silence this warning during the transition "
                "period while keeping the deprecated behavior for the time being. "
                "The default value of use_legacy_attributes will change from True "
                f"to False in scikit-learn 1.10. See the docstring of {name} "
                "for more details.",
                FutureWarning,
                stacklevel=3,
            )
            use_legacy_attributes = True
        else:
            use_legacy_attributes = self.use_legacy_attributes
        return l1_ratios, penalty, scoring, use_legacy_attributes

    def _logistic(self, penalty, l1_ratio, class_weight, **params):
        """The :class:`LogisticRegression` that fits a candidate: this
        estimator's options, the penalty as ``l1_ratio`` (``penalty`` is
        deprecated there too)."""
        if penalty != "elasticnet":
            l1_ratio = 1.0 if penalty == "l1" else 0.0
        return LogisticRegression(
            l1_ratio=l1_ratio,
            dual=self.dual,
            tol=self.tol,
            fit_intercept=self.fit_intercept,
            intercept_scaling=self.intercept_scaling,
            class_weight=class_weight,
            random_state=self.random_state,
            solver=self.solver,
            max_iter=self.max_iter,
            verbose=self.verbose,
            **params,
        )

    def _check_solver(self, penalty) -> None:
        """LogisticRegression's errors for a solver, penalty and ``dual`` it
        does not support (scikit-learn's ``_check_solver``, before the data
        are read)."""
        model = LogisticRegression(penalty=penalty, solver=self.solver, dual=self.dual)
        with warnings.catch_warnings():
            # (its deprecation warning for ``penalty``: LogisticRegressionCV
            # gave its own)
            warnings.simplefilter("ignore")
            model._check_options()

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, **params):
        """Fit the model, choosing ``C`` (and ``l1_ratio``) by cross-validation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (host or device family; CSR for sparse).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
        **params : dict
            Metadata for the splitter and the scorer (metadata routing).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        raise_for_params(params, self, "fit")
        l1_ratios, penalty, scoring, use_legacy_attributes = self._options()
        self._check_solver(penalty)
        if penalty == "elasticnet":
            if (
                l1_ratios is None
                or len(l1_ratios) == 0
                or any(
                    (
                        not isinstance(l1_ratio, numbers.Number)
                        or l1_ratio < 0
                        or l1_ratio > 1
                    )
                    for l1_ratio in l1_ratios
                )
            ):
                raise ValueError(
                    "l1_ratios must be an array-like of numbers between "
                    f"0 and 1; got (l1_ratios={l1_ratios!r})"
                )
            l1_ratios_ = l1_ratios
        else:
            if l1_ratios is not None and self.penalty != "deprecated":
                warnings.warn(
                    "l1_ratios parameter is only used when penalty "
                    f"is 'elasticnet'. Got (penalty={penalty})",
                    stacklevel=2,
                )
            l1_ratios_ = [None] if l1_ratios is None else l1_ratios

        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X_given = X
        X = validate_data(self, X, xp=xp, accept_sparse="csr", dtype=np.float64)
        on_device = input_family(y) == DEVICE
        y = check_y(y, xp=xp) if on_device else check_y_host(y)
        check_consistent_length(X, y)
        y_host = to_host(y) if on_device else y
        # (scikit-learn's errors for labels that are not classes)
        classes, _ = _encode_labels(y, xp if on_device else np)
        self.classes_ = classes
        classes_host = np.asarray(to_host(classes))
        n_classes = len(classes_host)
        is_binary = n_classes == 2
        if n_classes < 2:
            raise ValueError(
                "This solver needs samples of at least 2 classes"
                " in the data, but the data contains only one"
                f" class: {classes_host[0]}."
            )
        if sample_weight is not None:
            sample_weight_given = sample_weight
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=xp.float64
            )
        else:
            sample_weight_given = None

        if routing_enabled():
            routed = process_routing(
                self, "fit", sample_weight=sample_weight_given, **params
            )
            split_params = host_split_params(routed.splitter.split)
            score_params = dict(routed.scorer.score)
        else:
            split_params = {}
            score_params = dict(params)
            if sample_weight_given is not None:
                score_params["sample_weight"] = sample_weight_given
        if scoring is None:
            # scikit-learn's LogisticRegression.score: the fit's weights
            score_params = {}
            if sample_weight is not None:
                score_params["sample_weight"] = sample_weight
        elif (
            sample_weight is not None
            and score_params.get("sample_weight") is sample_weight_given
        ):
            score_params["sample_weight"] = sample_weight  # validated, moved once

        cv = check_cv(self.cv, y_host, classifier=True)
        folds = list(cv.split(X_given, y_host, **split_params))

        class_weight = self.class_weight
        if isinstance(class_weight, dict):
            if not (set(class_weight.keys()) <= set(classes_host)):
                raise ValueError(
                    "The given class_weight dict must have the class labels as "
                    f"keys; classes={classes_host} but key={class_weight.keys()}"
                )
        elif class_weight == "balanced":
            weights = compute_class_weight(
                class_weight,
                classes=classes_host,
                y=y_host,
                sample_weight=None if sample_weight is None else to_host(sample_weight),
            )
            class_weight = dict(zip(classes_host, weights, strict=True))

        Cs = self.Cs
        self.Cs_ = (
            np.logspace(-4, 4, Cs)
            if isinstance(Cs, numbers.Integral)
            else np.asarray(Cs)
        )
        # The data as the search holds them: y's numeric labels uploaded once,
        # the scorers' per-sample metadata too; folds index them.
        data = SearchData(X, upload(y, xp), {}, xp, score_params=score_params)
        view = data.compute_view()
        paths, scores, n_iter = self._fit_paths(
            view, folds, l1_ratios_, penalty, class_weight, sample_weight, scoring
        )
        self._assign(
            X,
            view,
            family,
            xp,
            paths=paths,
            scores=scores,
            n_iter=n_iter,
            l1_ratios=l1_ratios,
            l1_ratios_=l1_ratios_,
            penalty=penalty,
            class_weight=class_weight,
            sample_weight=sample_weight,
            is_binary=is_binary,
            n_folds=len(folds),
            use_legacy_attributes=use_legacy_attributes,
        )
        return self

    def _fold_scorer(self, scoring, classes_host):
        """scikit-learn's scorer of each fold (``_log_reg_scoring_path``): a
        metric taking ``labels`` is given all the classes (and, for binary
        problems, the greater class as ``pos_label``)."""
        scorer = get_scorer("accuracy" if scoring is None else scoring)
        if scoring is None or not hasattr(scorer, "_score_func"):
            return scorer
        parameters = inspect.signature(scorer._score_func).parameters
        if "labels" not in parameters:
            return scorer
        kwargs = {}
        if len(classes_host) <= 2 and "pos_label" in parameters:
            kwargs["pos_label"] = classes_host[-1]
        kwargs = dict(labels=classes_host, **kwargs, **getattr(scorer, "_kwargs", {}))
        if isinstance(scorer, Scorer):
            return Scorer(
                scorer._score_func, scorer._sign, kwargs, scorer._response_method
            )
        return sk_make_scorer(
            scorer._score_func,
            greater_is_better=scorer._sign == 1,
            response_method=scorer._response_method,
            **kwargs,
        )

    def _fit_paths(
        self, view, folds, l1_ratios_, penalty, class_weight, sample_weight, scoring
    ):
        """Fit and score every (fold, l1_ratio, C): ``(paths, scores,
        n_iter)`` of shapes (folds, l1_ratios, Cs, rows, dof) in ``xp``,
        (folds, l1_ratios, Cs) and (folds, l1_ratios, Cs) on the host."""
        xp = view.xp
        classes_host = np.asarray(to_host(self.classes_))
        scorer = self._fold_scorer(scoring, classes_host)
        n_cs, n_l1, n_folds = len(self.Cs_), len(l1_ratios_), len(folds)
        models = [
            self._logistic(penalty, l1_ratio, class_weight) for l1_ratio in l1_ratios_
        ]
        batch_names = models[0]._batch_params()
        # The groups of one _fit_batch: (l1_ratio index, C index) pairs
        pairs = [(j, i) for j in range(n_l1) for i in range(n_cs)]
        if "l1_ratio" in batch_names and "C" in batch_names:
            groups = [pairs]
        elif "C" in batch_names:
            groups = [[(j, i) for i in range(n_cs)] for j in range(n_l1)]
        else:
            groups = [[pair] for pair in pairs]
        trains = [np.asarray(train) for train, _ in folds]
        n_iter = np.empty((n_folds, n_l1, n_cs), dtype=np.int32)
        paths = None  # (folds, l1_ratios, Cs, rows, dof), once the size is known
        fold_scores = []  # ((fold, group), scores (k,) where scored)
        for group in groups:
            model = models[group[0][0]]
            param_sets = [{"C": self.Cs_[i]} for _, i in group]
            if "l1_ratio" in batch_names:
                for params, (j, _) in zip(param_sets, group, strict=True):
                    params["l1_ratio"] = models[j].l1_ratio
            batches = model._fit_batch(
                view.X,
                view.y,
                param_sets,
                folds=trains,
                sample_weight=sample_weight,
                all_classes=True,
            )
            for fold, ((_, test), batch) in enumerate(zip(folds, batches, strict=True)):
                X_test, y_test, _ = view.rows(np.asarray(test))
                metadata = view.score_rows(np.asarray(test))
                fold_scores.append(
                    self._score_batch(scorer, batch, X_test, y_test, metadata)
                )
                coefs = batch.W
                if self.fit_intercept:
                    coefs = xp.concatenate([batch.W, batch.b[:, :, None]], axis=2)
                if paths is None:
                    paths = xp.empty((n_folds, n_l1, n_cs, *coefs.shape[1:]))
                j, first = group[0]
                if [pair for pair in group] == [
                    (j, first + i) for i in range(len(group))
                ]:
                    paths[fold, j, first : first + len(group)] = coefs
                else:
                    for position, (j, i) in enumerate(group):
                        paths[fold, j, i] = coefs[position]
                for position, (j, i) in enumerate(group):
                    n_iter[fold, j, i] = batch.n_iter[position]
        # the scores come to the host at once
        stacked = to_host(xp.concatenate([xp.asarray(s) for s in fold_scores]))
        scores = np.empty((n_folds, n_l1, n_cs))
        start = 0
        for group in groups:
            for fold in range(n_folds):
                for j, i in group:
                    scores[fold, j, i] = stacked[start]
                    start += 1
        return paths, scores, n_iter

    def _score_batch(self, scorer, batch, X_test, y_test, metadata):
        """The ``k`` scores of a fold's batch model on its test rows: one
        batched call for a gpuml scorer; else each candidate through a
        fitted :class:`LogisticRegression` on the host."""
        if isinstance(scorer, Scorer):
            # as many candidates at a time as have their stacked responses
            # scored within the search's memory budget (all, but on large data)
            k = len(batch)
            step = candidates_per_batch(
                k,
                X_test.shape[0],
                max(2, len(self.classes_)),
                memory_budget(namespace_of(batch.W)),
            )
            scores = []
            for start in range(0, k, step):
                part = batch
                if step < k:
                    rows = slice(start, start + step)
                    part = LogisticBatch(batch.W[rows], batch.b[rows], batch.classes_)
                stack = batch_response(part, X_test, scorer, self)
                scores.append(scorer.score_predictions(y_test, stack, **metadata))
            if len(scores) == 1:
                return scores[0]
            xp = namespace_of(scores[0])
            return xp.concatenate([xp.asarray(s) for s in scores])
        X_host, y_host = to_host(X_test), to_host(y_test)
        metadata = {
            k: to_host(v) if hasattr(v, "shape") else v for k, v in metadata.items()
        }
        W, b = to_host(batch.W), to_host(batch.b)
        scores = []
        for position in range(len(batch)):
            shell = LogisticRegression(solver=self.solver)
            shell.classes_ = np.asarray(to_host(self.classes_))
            shell.n_features_in_ = W.shape[2]
            shell.coef_, shell.intercept_ = W[position], b[position]
            scores.append(scorer(shell, X_host, y_host, **metadata))
        return np.asarray(scores, dtype=np.float64)

    def _assign(
        self,
        X,
        view,
        family,
        xp,
        *,
        paths,
        scores,
        n_iter,
        l1_ratios,
        l1_ratios_,
        penalty,
        class_weight,
        sample_weight,
        is_binary,
        n_folds,
        use_legacy_attributes,
    ):
        """scikit-learn's attributes from the paths and scores, the refit
        (``refit=True``) or the folds' average, laid out as scikit-learn
        lays them out (the same steps, on ``xp`` arrays)."""
        classes = np.asarray(to_host(self.classes_))
        n_classes = 1 if is_binary else len(classes)
        classes_only_pos_if_binary = classes[1:] if is_binary else classes
        n_features = X.shape[1]
        n_cs, n_l1 = len(self.Cs_), len(l1_ratios_)
        # paths: (folds, l1_ratios, Cs, rows, dof)
        if is_binary:
            coefs_paths = xp.swapaxes(paths[:, :, :, 0, :], 1, 2)[None, ...]
        else:
            coefs_paths = xp.moveaxis(paths, (0, 1, 3), (1, 3, 0))
        # (rows, folds, Cs, l1_ratios, dof)
        n_iter_ = np.swapaxes(n_iter, 1, 2)[None, ...]
        scores = np.swapaxes(scores, 1, 2)[None, ...]
        scores = np.tile(scores, (n_classes, 1, 1, 1))
        scores_ = dict(zip(classes_only_pos_if_binary, scores, strict=True))
        self.coefs_paths_ = dict(
            zip(classes_only_pos_if_binary, coefs_paths, strict=True)
        )
        self.C_ = []
        self.l1_ratio_ = []
        scores = scores_[classes_only_pos_if_binary[0]]

        if self.refit:
            scores_sum = scores.sum(axis=0)  # (Cs, l1_ratios)
            best_index = np.unravel_index(np.argmax(scores_sum), scores_sum.shape)
            C_ = self.Cs_[best_index[0]]
            self.C_.append(C_)
            l1_ratio_ = l1_ratios_[best_index[1]]
            self.l1_ratio_.append(l1_ratio_)
            # scikit-learn's coef_init: the folds' mean at the best C
            coef_init = coefs_paths[:, :, best_index[0], best_index[1], :].mean(axis=1)
            w = self._refit(
                view, penalty, l1_ratio_, class_weight, sample_weight, C_, coef_init
            )
            if is_binary:
                w = w[0]
        else:
            n_folds_, _, _ = scores.shape
            flat = scores.reshape(n_folds_, -1)
            best_indices = np.unravel_index(np.argmax(flat, axis=1), (n_cs, n_l1))
            best_indices = list(zip(*best_indices, strict=True))
            w = xp.stack(
                [
                    coefs_paths[:, i, best_indices[i][0], best_indices[i][1], :]
                    for i in range(n_folds)
                ]
            ).mean(axis=0)
            if is_binary:
                w = w[0]
            best_indices = np.asarray(best_indices)
            self.C_.append(np.mean(self.Cs_[best_indices[:, 0]]))
            if penalty == "elasticnet":
                l1_values = np.asarray(l1_ratios_)[best_indices[:, 1]]
                self.l1_ratio_.append(np.mean(l1_values))
            else:
                self.l1_ratio_.append(0.0)

        intercept = xp.zeros(n_classes)
        if is_binary:
            coef = w[:n_features][None, :]
            if self.fit_intercept:
                intercept = w[-1:]
        else:
            self.C_ = np.tile(self.C_, n_classes)
            self.l1_ratio_ = np.tile(self.l1_ratio_, n_classes)
            coef = w[:, :n_features]
            if self.fit_intercept:
                intercept = w[:, -1]
        self.coef_ = to_family(xp.ascontiguousarray(coef), family)
        self.intercept_ = to_family(xp.ascontiguousarray(intercept), family)
        self.C_ = np.asarray(self.C_)
        self.l1_ratio_ = np.asarray(self.l1_ratio_)
        self.l1_ratios_ = np.asarray(l1_ratios_)
        if l1_ratios is None:
            # no elastic-net: the l1_ratios axis is dropped
            for cls, coefs_path in self.coefs_paths_.items():
                self.coefs_paths_[cls] = coefs_path[:, :, 0, :]
            for cls, score in scores_.items():
                scores_[cls] = score[:, :, 0]
            n_iter_ = n_iter_[:, :, :, 0]

        if not use_legacy_attributes:
            n_dof = n_features + int(self.fit_intercept)
            self.C_ = float(self.C_[0])
            newpaths = xp.concatenate(list(self.coefs_paths_.values()))
            newscores = scores_[classes_only_pos_if_binary[0]]
            newniter = n_iter_[0]
            if l1_ratios is None:
                newpaths = newpaths.reshape(n_classes, n_folds, n_cs, 1, n_dof)
                newscores = newscores.reshape(n_folds, n_cs, 1)
                newniter = newniter.reshape(n_folds, n_cs, 1)
                self.l1_ratio_ = 1.0 if self.penalty == "l1" else 0.0
            else:
                self.l1_ratio_ = float(self.l1_ratio_[0])
                newpaths = newpaths.reshape(n_classes, n_folds, n_cs, n_l1, n_dof)
            # (folds, l1_ratios, Cs, classes, dof) and (folds, l1_ratios, Cs)
            coefs_paths_ = xp.moveaxis(newpaths, (0, 1, 3), (3, 0, 1))
            self.coefs_paths_ = to_family(xp.ascontiguousarray(coefs_paths_), family)
            self.scores_ = to_family(
                np.ascontiguousarray(np.moveaxis(newscores, (1, 2), (2, 1))), family
            )
            self.n_iter_ = np.moveaxis(newniter, (1, 2), (2, 1))
        else:
            self.coefs_paths_ = {
                cls: to_family(xp.ascontiguousarray(path), family)
                for cls, path in self.coefs_paths_.items()
            }
            self.scores_ = {
                cls: to_family(np.ascontiguousarray(score), family)
                for cls, score in scores_.items()
            }
            self.n_iter_ = n_iter_

    def _refit(
        self, view, penalty, l1_ratio, class_weight, sample_weight, C, coef_init
    ):
        """The parameters ``[coef, intercept]`` (rows, dof) of the fit on all
        the data at ``C``, warm-started from ``coef_init`` (rows, dof)."""
        xp = view.xp
        coef_init = xp.reshape(coef_init, (-1, coef_init.shape[-1]))
        n_features = view.X.shape[1]
        model = self._logistic(
            penalty,
            l1_ratio,
            class_weight,
            C=C,
            warm_start=True,
        ).set_params(verbose=max(0, self.verbose - 1))
        model.coef_ = coef_init[:, :n_features]
        if self.fit_intercept:
            model.intercept_ = coef_init[:, n_features]
        model.fit(view.X, view.y, sample_weight=sample_weight)
        coef = xp.asarray(model.coef_)
        if not self.fit_intercept:
            return coef
        return xp.concatenate([coef, xp.asarray(model.intercept_)[:, None]], axis=1)

    def _decision_xp(self, X, xp):
        """Decision values in float64: the coefficients are float64 whatever
        the training data (``fit`` casts X, as scikit-learn's does), and
        scikit-learn's products with float32 X are float64 too."""
        check_is_fitted(self)
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=np.float64
        )
        coef = _dense(self._fitted("coef_", xp)).astype(np.float64, copy=False)
        intercept = self._fitted("intercept_", xp)
        scores = X @ coef.T + intercept
        return scores[:, 0] if scores.shape[1] == 1 else scores

    @deprecate_positional_args(version="1.11")
    def score(self, X, y, *, sample_weight=None, **score_params):
        """Score with the ``scoring`` option on the given test data and labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            True labels for X.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights (keyword only: passing it by position is
            deprecated, as in scikit-learn 1.9).
        **score_params : dict
            Metadata for the scorer (metadata routing).

        Returns
        -------
        score : float
            The ``scoring`` score of ``self.predict(X)`` (or of the response
            its metric needs) against ``y``.
        """
        raise_for_params(score_params, self, "score")
        if sample_weight is not None:
            score_params["sample_weight"] = sample_weight
        # a foreign scorer: host data and a host view of this model
        scoring = check_scoring(self, self._get_scorer())
        if routing_enabled():
            routed = process_routing(self, "score", **score_params).scorer.score
        else:
            weights = score_params.get("sample_weight")
            routed = {} if weights is None else {"sample_weight": weights}
        return scoring(self, X, y, **routed)

    def get_metadata_routing(self):
        """Get metadata routing of this object (as scikit-learn's).

        Returns
        -------
        routing : MetadataRouter
            The routing of ``fit``'s metadata to the splitter and the scorer,
            and of ``score``'s to the scorer.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                splitter=self.cv,
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
            .add(
                scorer=self._get_scorer(),
                method_mapping=MethodMapping()
                .add(caller="score", callee="score")
                .add(caller="fit", callee="score"),
            )
        )

    def _get_scorer(self):
        """The scorer of ``scoring`` (accuracy by default)."""
        if self.scoring == "warn":
            return get_scorer("accuracy")
        return get_scorer(self.scoring or "accuracy")
