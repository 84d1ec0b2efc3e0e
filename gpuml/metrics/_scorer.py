"""Scorers: scikit-learn's scorer vocabulary, computed where the data lives.

A :class:`Scorer` is what ``scoring=`` takes: ``scorer(estimator, X, y)``
returns a float, like scikit-learn's. It asks the estimator for the response
its metric needs (``predict``, ``predict_proba`` or ``decision_function``,
reduced to the positive class's column for binary problems, exactly as
scikit-learn does) and computes the metric in the namespace of that response:
on the GPU for a gpuml estimator fed device data.

Batched scoring
    :meth:`Scorer.score_predictions` scores the responses of *many candidate
    models at once*: ``y_preds`` stacks them on a leading axis (``(k, n)``,
    or ``(k, n, n_classes)`` for probabilities) and one batched reduction
    returns the ``k`` signed scores as an array of the namespace. This is the
    hook the model-selection search uses. Every gpuml metric has a batch
    kernel (``BATCH_KERNELS`` in each metric module); a scorer built on any
    other function (a scikit-learn metric gpuml does not implement, or a
    user's function) still works: it is computed on the host, one candidate
    at a time, and says so through :attr:`Scorer.batched`.

Names
    :func:`get_scorer` accepts every name of
    :func:`sklearn.metrics.get_scorer_names`, with scikit-learn's own
    arguments, sign and response method (read from the installed
    scikit-learn). Names whose metric gpuml implements run natively; the
    others (clustering comparisons, likelihood ratios, D² of log loss or Brier
    score) fall back to scikit-learn's function on the host.
"""

from __future__ import annotations

import functools
import inspect
import traceback
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.base import is_regressor
from sklearn.metrics import get_scorer_names as sk_get_scorer_names
from sklearn.utils.metadata_routing import (
    MetadataRequest,
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)
from sklearn.utils.multiclass import type_of_target

from gpuml._array import namespace_of, to_host
from gpuml._sklearn_compat import (
    HasMethods,
    StrOptions,
    routing_enabled,
    routing_owner,
    sklearn_scorer_spec,
    validate_params,
)
from gpuml.base import host_view
from gpuml.metrics import _classification, _ranking, _regression
from gpuml.metrics._batch_checks import check_batch

BATCH_KERNELS: dict[Callable, Callable] = {
    **_regression.BATCH_KERNELS,
    **_classification.BATCH_KERNELS,
    **_ranking.BATCH_KERNELS,
}
_NATIVE = {func.__name__: func for func in BATCH_KERNELS}

_PROBA_METHODS = ("predict_proba", "predict_log_proba")
# A metric's arguments that are its inputs, not metadata (scikit-learn's list).
_METRIC_INPUTS = frozenset(
    {
        "y_true",
        "y_pred",
        "y_prob",
        "y_proba",
        "y_score",
        "y2",
        "pred_decision",
        "labels_true",
        "labels_pred",
        "X",
        "y",
        "Y",
        "Xt",
        "yt",
    }
)


def response_method_of(estimator, response_method, owner=None):
    """``(name, bound method)``: the first of ``response_method`` it has.

    ``owner`` names the estimator in the error (when ``estimator`` is a
    stand-in for it, such as a search's batch model).
    """
    owner = estimator if owner is None else owner
    single = isinstance(response_method, str)
    methods = (response_method,) if single else response_method
    for name in methods:
        method = getattr(estimator, name, None)
        if method is not None:
            return name, method
    raise AttributeError(
        f"{type(owner).__name__} has none of the following attributes: "
        f"{', '.join(methods)}."
    )


def response_values(estimator, X, response_method, pos_label=None):
    """The estimator's response for a scorer, post-processed like scikit-learn.

    For a binary classifier, probabilities are reduced to the column of
    ``pos_label`` (by default the greater class) and a decision function is
    negated when ``pos_label`` is the lesser class.
    """
    name, method = response_method_of(estimator, response_method)
    y_pred = method(X)
    if is_regressor(estimator) or not hasattr(estimator, "classes_"):
        return y_pred
    return binary_response(y_pred, name, estimator.classes_, pos_label)


def _classes_type(classes) -> str:
    """scikit-learn's ``type_of_target`` of a classifier's ``classes_``: what
    decides the response's post-processing ("binary" also for a classifier
    fitted on one class; "multilabel-indicator" for a list of per-output
    class arrays)."""
    if isinstance(classes, (list, tuple)):
        return type_of_target([to_host(c) for c in classes])
    host = np.asarray(to_host(classes))
    if host.dtype.kind == "O":
        return type_of_target(host)
    # A search scores many batches of one classifier: the few labels are
    # classified once (scikit-learn's type_of_target costs about 0.5 ms).
    return _array_classes_type(host.dtype.str, host.shape, host.tobytes())


@functools.lru_cache(maxsize=64)
def _array_classes_type(dtype: str, shape: tuple, data: bytes) -> str:
    return type_of_target(np.frombuffer(data, dtype=dtype).reshape(shape))


def binary_response(y_pred, method_name, classes, pos_label, *, stacked=False):
    """scikit-learn's post-processing of a classifier's response.

    ``y_pred`` is what ``method_name`` returned: one candidate's response, or
    (``stacked=True``) several candidates' stacked on a leading axis. The
    class axis of probabilities is the last one either way. As in
    scikit-learn, ``pos_label`` matters for binary classifiers only (it is
    ignored for multiclass and multilabel ones): probabilities are reduced to
    its column and a decision function is negated when it is the lesser
    class. Multilabel probabilities given as a list of per-output arrays
    become one column per output (the positive class's).
    """
    target_type = _classes_type(classes)
    if target_type == "binary":
        classes = np.asarray(to_host(classes))
        if pos_label is not None and pos_label not in classes.tolist():
            raise ValueError(
                f"pos_label={pos_label} is not a valid label: It should be one of "
                f"{classes}"
            )
        if pos_label is None:
            pos_label = classes[-1]
    if method_name in _PROBA_METHODS:
        if target_type == "binary":
            if y_pred.shape[-1] < 2:  # a classifier fitted on one class
                shape = y_pred.shape[1:] if stacked else y_pred.shape
                raise ValueError(
                    f"Got predict_proba of shape {shape}, but need classifier "
                    "with two classes."
                )
            return y_pred[..., int(np.flatnonzero(classes == pos_label)[0])]
        if target_type == "multilabel-indicator" and isinstance(y_pred, list):
            xp = namespace_of(y_pred[0])
            return xp.stack([p[..., -1] for p in y_pred], axis=-1)
    elif method_name == "decision_function":
        if target_type == "binary" and pos_label == classes[0]:
            return -y_pred
    return y_pred


class Scorer:
    """Score an estimator with a metric, like a scikit-learn scorer.

    Parameters
    ----------
    score_func : callable
        ``score_func(y_true, y_pred, **kwargs)``: a gpuml metric (computed
        where the data lives, batchable) or any other metric function
        (computed on the host).
    sign : {1, -1}
        -1 for losses, so that greater is always better.
    kwargs : dict
        Extra arguments of ``score_func``.
    response_method : str or tuple of str
        The estimator method(s) giving the metric's input, first found used.

    Metadata routing
        As scikit-learn's scorers, with routing enabled a scorer requests the
        metadata its metric takes through :meth:`set_score_request` (none by
        default) and declares them through :meth:`get_metadata_routing`;
        without routing, calling it with metadata other than
        ``sample_weight`` is an error.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.metrics import Scorer, mean_squared_error
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> y = np.array([1.0, 2.0, 3.0, 5.0])
    >>> neg_mse = Scorer(mean_squared_error, -1, {}, "predict")
    >>> model = Ridge(alpha=1e-6).fit(X, y)
    >>> print(f"{neg_mse(model, X, y):.4f}")
    -0.0750
    """

    def __init__(self, score_func, sign, kwargs, response_method):
        self._score_func = score_func
        self._sign = sign
        self._kwargs = dict(kwargs)
        self._response_method = response_method
        # set_score_request's {param: alias}; None: the metric's defaults.
        self._score_request = None

    @property
    def batched(self) -> bool:
        """Whether :meth:`score_predictions` scores all candidates in one pass."""
        return self._score_func in BATCH_KERNELS

    def __repr__(self) -> str:
        """scikit-learn's scorer repr (a ``functools.partial`` shown whole)."""
        func = self._score_func
        name = repr(func) if isinstance(func, functools.partial) else func.__name__
        sign = "" if self._sign > 0 else ", greater_is_better=False"
        kwargs = "".join(f", {k}={v}" for k, v in self._kwargs.items())
        return (
            f"make_scorer({name}{sign}, response_method={self._response_method!r}"
            f"{kwargs})"
        )

    def _routing_repr(self) -> str:
        return repr(self)

    def _accept_sample_weight(self) -> bool:
        """Whether the metric takes ``sample_weight`` (scikit-learn's rule)."""
        return "sample_weight" in inspect.signature(self._score_func).parameters

    def set_score_request(self, **kwargs):
        """Request metadata for scoring (metadata routing only).

        Parameters
        ----------
        **kwargs : dict
            ``param=alias``, ``alias`` one of True (requested), False (not
            requested), None (an error if passed) or the name the metadata
            has where they are passed.

        Returns
        -------
        self : Scorer
            This scorer, its request replaced.
        """
        if not routing_enabled():
            raise RuntimeError(
                "This method is only available when metadata routing is enabled."
                " You can enable it using"
                " sklearn.set_config(enable_metadata_routing=True)."
            )
        self._warn_overlap(
            "You are setting metadata request for parameters which are "
            "already set as kwargs for this metric. These set values will be "
            "overridden by passed metadata if provided. Please pass them either "
            "as metadata or kwargs to `make_scorer`.",
            kwargs,
        )
        self._request(kwargs)  # raises scikit-learn's error for a bad alias
        self._score_request = dict(kwargs)
        return self

    def get_metadata_routing(self) -> MetadataRequest:
        """The metadata this scorer requests (scikit-learn's routing object).

        By default, each metadata parameter of the metric, not requested.
        """
        if self._score_request is not None:
            return self._request(self._score_request)
        parameters = list(inspect.signature(self._score_func).parameters.values())
        return self._request(
            {
                p.name: None
                for p in parameters[1:]
                if p.name not in _METRIC_INPUTS
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            }
        )

    def _request(self, aliases: dict) -> MetadataRequest:
        request = MetadataRequest(owner=routing_owner(self))
        for param, alias in aliases.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def _warn_overlap(self, message: str, kwargs) -> None:
        overlap = set(self._kwargs) & set(kwargs)
        if overlap:
            warnings.warn(
                f"{message} Overlapping parameters are: {overlap}",
                UserWarning,
                stacklevel=3,
            )

    def _pos_label(self):
        if "pos_label" in self._kwargs:
            return self._kwargs["pos_label"]
        parameters = inspect.signature(self._score_func).parameters
        if "pos_label" in parameters:
            return parameters["pos_label"].default
        return None

    def response(self, estimator, X):
        """The estimator's (post-processed) response this scorer's metric needs."""
        pos_label = None if is_regressor(estimator) else self._pos_label()
        return response_values(estimator, X, self._response_method, pos_label)

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Return the (signed) score of ``estimator`` on ``X``, ``y_true``.

        ``kwargs`` are routed metadata: an error unless routing is enabled.
        """
        if kwargs and not routing_enabled():
            raise ValueError(
                f"Passing extra keyword arguments to {self!r} is only supported "
                "if enable_metadata_routing=True, which you can set using "
                "`sklearn.set_config`. See the User Guide "
                "<https://scikit-learn.org/stable/metadata_routing.html> for "
                f"more details. Extra parameters passed are: {set(kwargs)}"
            )
        return self._score_response(
            self.response(estimator, X), y_true, sample_weight, kwargs
        )

    def _scoring_kwargs(self, sample_weight, kwargs) -> dict:
        """The metric's arguments: the scorer's own, overridden by metadata."""
        if sample_weight is not None:
            kwargs = {**kwargs, "sample_weight": sample_weight}
        self._warn_overlap(
            "There is an overlap between set kwargs of this scorer instance and"
            " passed metadata. Please pass them either as kwargs to `make_scorer`"
            " or metadata, but not both.",
            kwargs,
        )
        return {**self._kwargs, **kwargs}

    def _score_response(self, y_pred, y_true, sample_weight, kwargs):
        scoring_kwargs = self._scoring_kwargs(sample_weight, kwargs)
        if self.batched:
            return self._sign * self._score_func(y_true, y_pred, **scoring_kwargs)
        # A function gpuml does not implement: computed on the host.
        scoring_kwargs = {k: _host(v) for k, v in scoring_kwargs.items()}
        return self._sign * self._score_func(
            _host(y_true), _host(y_pred), **scoring_kwargs
        )

    def score_predictions(self, y_true, y_preds, sample_weight=None, **kwargs):
        """Signed scores of ``k`` candidates' responses, as one array.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
            True targets (host or device).
        y_preds : array of shape (k, n_samples, ...)
            The responses of ``k`` candidates (each what :meth:`response`
            returns), stacked on a leading axis.
        sample_weight : array-like of shape (n_samples,), default=None
        **kwargs : dict
            Other metadata routed to the metric.

        Returns
        -------
        scores : array of shape (k,)
            In the namespace of the inputs (CuPy for device inputs) for a
            batched scorer; a NumPy array otherwise.

        Raises
        ------
        Exception
            The error the metric raises for any one candidate (bad
            parameters, targets or weights, NaN or infinite predictions),
            checked before the batched kernel runs (``_batch_checks.py``).
        """
        kwargs = self._scoring_kwargs(sample_weight, kwargs)
        kernel = BATCH_KERNELS.get(self._score_func)
        if kernel is not None:
            check_batch(self._score_func, y_true, y_preds, kwargs)
            scores = kernel(y_true, y_preds, **kwargs)
            # (no multiply for a positive sign: one kernel less to compile)
            return scores if self._sign == 1 else self._sign * scores
        kwargs = {k: _host(v) for k, v in kwargs.items()}
        y_true = _host(y_true)
        return np.asarray(
            [
                self._sign * self._score_func(y_true, _host(y_pred), **kwargs)
                for y_pred in y_preds
            ],
            dtype=np.float64,
        )


class _PassthroughScorer:
    """``scoring=None``: the estimator's own ``score`` method."""

    def __init__(self, estimator):
        self._estimator = estimator

    def __call__(self, estimator, *args, **kwargs):
        return estimator.score(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self._estimator).__name__}.score"

    def _routing_repr(self) -> str:
        return repr(self)

    def _accept_sample_weight(self) -> bool:
        return "sample_weight" in inspect.signature(self._estimator.score).parameters

    def get_metadata_routing(self):
        """The metadata the estimator's ``score`` requests."""
        return get_routing_for_object(self._estimator)


class _HostScorer:
    """A foreign scorer callable, fed host data and a host view of the
    estimator (:func:`gpuml.base.host_view`): the host fallback."""

    def __init__(self, scorer):
        self._scorer = scorer

    def __call__(self, estimator, X, *y_true, **kwargs):
        """``scorer(estimator, X, y, ...)``, or ``scorer(estimator, X, ...)``
        for unsupervised scoring (as the search calls it when ``y`` is None)."""
        kwargs = {k: _host(v) for k, v in kwargs.items()}
        estimator = host_view(estimator)
        return self._scorer(estimator, _host(X), *map(_host, y_true), **kwargs)

    def __repr__(self) -> str:
        return repr(self._scorer)

    def _accept_sample_weight(self) -> bool:
        accept = getattr(self._scorer, "_accept_sample_weight", None)
        if accept is not None:
            return accept()
        try:
            return "sample_weight" in inspect.signature(self._scorer).parameters
        except (TypeError, ValueError):
            return False

    def get_metadata_routing(self):
        """The metadata the wrapped scorer requests (none for a function)."""
        return get_routing_for_object(self._scorer)


class MultimetricScorer:
    """Several scorers sharing one call per response method.

    Calling it returns ``{name: score}``. With ``raise_exc=False`` a failing
    scorer's entry is its formatted traceback, as in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LogisticRegression
    >>> from gpuml.metrics import check_scoring
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> model = LogisticRegression().fit(X, y)
    >>> scorer = check_scoring(model, ["accuracy", "roc_auc"])
    >>> {name: float(score) for name, score in scorer(model, X, y).items()}
    {'accuracy': 1.0, 'roc_auc': 1.0}
    """

    def __init__(self, *, scorers: dict, raise_exc: bool = True):
        self._scorers = scorers
        self._raise_exc = raise_exc

    def __repr__(self) -> str:
        names = ", ".join(f'"{name}"' for name in self._scorers)
        return f"MultiMetricScorer({names})"

    def _accept_sample_weight(self) -> bool:
        return any(s._accept_sample_weight() for s in self._scorers.values())

    def get_metadata_routing(self) -> MetadataRouter:
        """Routes the ``score`` metadata to each scorer's ``score``."""
        return MetadataRouter(owner=routing_owner(self)).add(
            **self._scorers,
            method_mapping=MethodMapping().add(caller="score", callee="score"),
        )

    def _routing_repr(self) -> str:
        return repr(self)

    def route(self, params: dict) -> dict:
        """``{name: metadata}``: each scorer's share of ``params``.

        With routing enabled, what each scorer requests (scikit-learn's
        errors for metadata nobody requested); without, ``sample_weight``
        goes to the scorers whose metric takes it and anything else to all,
        as in scikit-learn.
        """
        if routing_enabled():
            routed = process_routing(self, "score", **params)
            return {name: dict(routed[name].score) for name in self._scorers}
        weight = params.get("sample_weight")
        common = {k: v for k, v in params.items() if k != "sample_weight"}
        return {
            name: common
            if weight is None or not scorer._accept_sample_weight()
            else {**common, "sample_weight": weight}
            for name, scorer in self._scorers.items()
        }

    def __call__(self, estimator, X, *y_true, **kwargs):
        """``{name: score}``; without ``y_true`` (unsupervised scoring) the
        scorer callables are called as ``scorer(estimator, X)``."""
        cache: dict = {}
        scores = {}
        routed = self.route(kwargs)
        for name, scorer in self._scorers.items():
            kwargs = routed[name]
            try:
                if isinstance(scorer, Scorer):
                    # One call per (response method, positive class).
                    pos_label = None if is_regressor(estimator) else scorer._pos_label()
                    key = repr((scorer._response_method, pos_label))
                    if key not in cache:
                        cache[key] = scorer.response(estimator, X)
                    scores[name] = scorer._score_response(
                        cache[key],
                        y_true[0] if y_true else None,
                        kwargs.get("sample_weight"),
                        {k: v for k, v in kwargs.items() if k != "sample_weight"},
                    )
                else:
                    scores[name] = scorer(estimator, X, *y_true, **kwargs)
            except Exception as exc:
                if self._raise_exc:
                    raise exc
                scores[name] = "".join(traceback.format_exception(exc))
        return scores


def _host(value):
    return to_host(value) if hasattr(value, "shape") else value


def get_scorer_names() -> list[str]:
    """All scorer names, as :func:`sklearn.metrics.get_scorer_names`.

    Examples
    --------
    >>> from gpuml.metrics import get_scorer_names
    >>> "neg_mean_squared_error" in get_scorer_names()
    True
    """
    return sk_get_scorer_names()


@validate_params({"scoring": [str, callable, None]}, prefer_skip_nested_validation=True)
def get_scorer(scoring):
    """A scorer from a name (any of :func:`get_scorer_names`), or ``scoring``.

    Parameters
    ----------
    scoring : str, callable or None
        A scorer name; a callable or None is returned unchanged.

    Returns
    -------
    scorer : callable
        A :class:`Scorer` for a name.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.metrics import get_scorer
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> model = Ridge(alpha=1e-6).fit(X, 2 * X.ravel())
    >>> round(get_scorer("r2")(model, X, 2 * X.ravel()), 4)
    1.0
    """
    if not isinstance(scoring, str):
        return scoring
    func, sign, kwargs, response_method = sklearn_scorer_spec(scoring)
    return Scorer(_NATIVE.get(func.__name__, func), sign, kwargs, response_method)


@validate_params(
    {
        "score_func": [callable],
        "response_method": [
            list,
            tuple,
            StrOptions({"predict", "predict_proba", "decision_function"}),
        ],
        "greater_is_better": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_scorer(
    score_func, *, response_method="predict", greater_is_better=True, **kwargs
):
    """Make a scorer from a metric, like :func:`sklearn.metrics.make_scorer`.

    A scikit-learn metric that gpuml implements is replaced by gpuml's (same
    name and semantics), so it is computed where the data lives and can be
    batched. Any other function works too, computed on the host.

    Parameters
    ----------
    score_func : callable
        ``score_func(y_true, y_pred, **kwargs)``.
    response_method : {"predict_proba", "decision_function", "predict"} or \
            list/tuple of them, default="predict"
        Which estimator method gives ``y_pred``; the first one available.
    greater_is_better : bool, default=True
        False for losses: the scorer then returns the negated loss.
    **kwargs
        Passed to ``score_func``.

    Returns
    -------
    scorer : Scorer

    Examples
    --------
    >>> from gpuml.metrics import make_scorer, fbeta_score
    >>> make_scorer(fbeta_score, beta=2)
    make_scorer(fbeta_score, response_method='predict', beta=2)
    """
    if isinstance(response_method, list):
        response_method = tuple(response_method)
    func = score_func
    if getattr(func, "__module__", "").startswith("sklearn.metrics"):
        func = _NATIVE.get(func.__name__, func)
    return Scorer(func, 1 if greater_is_better else -1, kwargs, response_method)


def _looks_like_a_metric(scoring) -> bool:
    module = getattr(scoring, "__module__", None) or ""
    return (
        module.startswith(("sklearn.metrics.", "gpuml.metrics."))
        and not module.endswith("_scorer")
        and ".tests." not in module
    )


@validate_params(
    {
        "estimator": [HasMethods("fit"), None],
        "scoring": [
            StrOptions(set(sk_get_scorer_names())),
            callable,
            list,
            set,
            tuple,
            dict,
            None,
        ],
        "allow_none": ["boolean"],
        "raise_exc": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def check_scoring(estimator=None, scoring=None, *, allow_none=False, raise_exc=True):
    """The scorer for ``scoring``, like :func:`sklearn.metrics.check_scoring`.

    Parameters
    ----------
    estimator : estimator object, default=None
        Used when ``scoring`` is None (its ``score`` method).
    scoring : str, callable, list, tuple, set, dict or None
        A name, a scorer callable, several names, or a dict of name to
        scorer (multimetric).
    allow_none : bool, default=False
        Return None instead of raising when ``scoring`` is None and the
        estimator has no ``score`` method.
    raise_exc : bool, default=True
        For multimetric scoring: raise a scorer's error, or record its
        traceback as that metric's value.

    Returns
    -------
    scorer : callable or None
        A :class:`Scorer`, a :class:`MultimetricScorer`, the estimator's
        ``score`` method, or a foreign scorer callable wrapped so that it is
        fed host data.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.metrics import check_scoring
    >>> X, y = np.arange(8.0).reshape(4, 2), np.array([1.0, 2.0, 3.0, 4.0])
    >>> model = Ridge().fit(X, y)
    >>> scorer = check_scoring(model, "r2")
    >>> print(f"{scorer(model, X, y):.4f}")
    0.9994
    """
    if isinstance(scoring, str):
        return get_scorer(scoring)
    if callable(scoring):
        if _looks_like_a_metric(scoring):
            raise ValueError(
                f"scoring value {scoring!r} looks like it is a metric function "
                "rather than a scorer. A scorer should require an estimator as "
                "its first parameter. Please use `make_scorer` to convert a "
                "metric to a scorer."
            )
        return scoring if isinstance(scoring, Scorer) else _HostScorer(scoring)
    if isinstance(scoring, (list, tuple, set, dict)):
        return MultimetricScorer(
            scorers=_check_multimetric_scoring(estimator, scoring), raise_exc=raise_exc
        )
    if scoring is None:
        if hasattr(estimator, "score"):
            return _PassthroughScorer(estimator)
        if allow_none:
            return None
        raise TypeError(
            "If no scoring is specified, the estimator passed should have a "
            f"'score' method. The estimator {estimator!r} does not."
        )
    raise ValueError(
        f"scoring is invalid (got {scoring!r}). Refer to the scoring glossary "
        "for details: https://scikit-learn.org/stable/glossary.html#term-scoring"
    )


def _check_multimetric_scoring(estimator, scoring) -> dict:
    """Validate several-metric scoring into ``{name: scorer}`` (sklearn's rules)."""
    if isinstance(scoring, dict):
        if not all(isinstance(k, str) for k in scoring):
            raise ValueError(
                "Non-string types were found in the keys of the given dict. "
                f"scoring={scoring!r}"
            )
        if not scoring:
            raise ValueError(f"An empty dict was passed. {scoring!r}")
        return {k: check_scoring(estimator, scoring=v) for k, v in scoring.items()}
    err_msg = "The list/tuple elements must be unique strings of predefined scorers. "
    try:
        keys = set(scoring)
    except TypeError as exc:
        raise ValueError(err_msg) from exc
    if len(keys) != len(scoring):
        raise ValueError(
            f"{err_msg} Duplicate elements were found in the given list. {scoring!r}"
        )
    if not keys:
        raise ValueError(f"{err_msg} Empty list was given. {scoring!r}")
    if not all(isinstance(k, str) for k in keys):
        if any(callable(k) for k in keys):
            raise ValueError(
                f"{err_msg} One or more of the elements were callables. Use a "
                f"dict of score name mapped to the scorer callable. Got {scoring!r}"
            )
        raise ValueError(
            f"{err_msg} Non-string types were found in the given list. Got {scoring!r}"
        )
    return {name: get_scorer(name) for name in scoring}


__all__ = [
    "MultimetricScorer",
    "Scorer",
    "binary_response",
    "check_scoring",
    "get_scorer",
    "get_scorer_names",
    "make_scorer",
    "response_method_of",
    "response_values",
]
