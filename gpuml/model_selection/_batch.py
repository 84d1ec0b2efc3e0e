"""The batched-candidates protocol, and how a search groups its candidates.

An estimator opts in to batched fitting with two methods:

``_batch_params(self) -> frozenset[str]``
    The parameters whose values may differ within one batch (Ridge:
    ``{"alpha"}``; empty when the current configuration cannot batch).

``_fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None)``
    Fit one model per dict of ``param_sets`` (values of the batch
    parameters; every other parameter is the estimator's own) on the
    training rows of each fold (index arrays in the namespace of ``X``;
    ``None`` means one fit on all rows). ``X`` and ``y`` are the whole data
    in the compute namespace. Returns an iterator with one *batch model* per
    fold, so an estimator can share work across folds (Ridge subtracts each
    fold's held-out rows from one Gram matrix). It raises if any candidate's
    own ``fit`` would, and raises :class:`~gpuml.base.BatchUnsupported` to
    decline data it cannot batch.

A batch model has ``len(model) == len(param_sets)`` and the response methods
of the estimator (``predict``, and for classifiers ``classes_`` with
``decision_function`` / ``predict_proba`` / ``predict_log_proba``), each
returning the candidates' responses stacked on a leading axis:
``(k, n_samples)`` or ``(k, n_samples, n_columns)``. The batched scorers of
:mod:`gpuml.metrics` score such a stack in one reduction.

Optionally, a class attribute ``_batch_cost_per_candidate = True`` says
that a batch costs about the sum of its candidates' fits
(LogisticRegression: one L-BFGS iterate per ``C``), so that a Dask search
may split a batch into sub-batches to keep every worker busy; without it
(Ridge: one factorisation per fold serves every ``alpha``) a batch is never
split, since splitting would repeat its shared work.

The search groups candidates that differ only in batch parameters (of the
estimator, or of a Pipeline's final step), fits each group with one
``_fit_batch`` and scores it with one batched scorer call per metric.
Everything else is fitted one by one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sklearn.base import clone, is_regressor

from gpuml.metrics._scorer import (
    MultimetricScorer,
    Scorer,
    binary_response,
    get_scorer,
    response_method_of,
)


def final_step(estimator):
    """``(name, step)`` of a Pipeline's last step, or ``(None, estimator)``."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        return steps[-1]
    return None, estimator


def cost_per_candidate(estimator) -> bool:
    """Whether a batch of the estimator (or its final step) costs about the
    sum of its candidates' fits (see the protocol above)."""
    return bool(getattr(final_step(estimator)[1], "_batch_cost_per_candidate", False))


def is_pipeline(estimator) -> bool:
    return final_step(estimator)[0] is not None


def batch_param_names(estimator) -> frozenset:
    """Search-level names of the parameters ``estimator`` can batch over."""
    name, step = final_step(estimator)
    if not hasattr(step, "_fit_batch") or not hasattr(step, "_batch_params"):
        return frozenset()
    names = step._batch_params()
    return frozenset(names if name is None else (f"{name}__{p}" for p in names))


def _value_key(value):
    """A key under which equal parameter values compare equal."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)


@dataclass
class Group:
    """Candidates sharing every parameter but batch ones.

    ``fixed`` is set on the estimator; ``members`` lists ``(index, params)``
    with the candidate's full parameters; ``batch_names`` are the parameter
    names varying inside the group (empty: fit one by one).
    """

    fixed: dict
    members: list = field(default_factory=list)
    batch_names: frozenset = frozenset()

    @property
    def batched(self) -> bool:
        return bool(self.batch_names)

    def param_sets(self) -> list[dict]:
        """The members' batch parameters, by their names on the final step."""
        return [
            {name.rsplit("__", 1)[-1]: params[name] for name in self.batch_names}
            for _, params in self.members
        ]


def group_candidates(estimator, candidates: list[dict]) -> list[Group]:
    """Group candidates that one ``_fit_batch`` can fit together.

    Candidates are grouped by their non-batch parameters (in order of first
    appearance); a group is batched when its configured estimator declares
    all of its varying parameters batchable.
    """
    names = batch_param_names(estimator)
    groups: dict = {}
    for index, params in enumerate(candidates):
        fixed = {k: v for k, v in params.items() if k not in names}
        key = tuple(sorted((k, _value_key(v)) for k, v in fixed.items()))
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(fixed)
        group.members.append((index, params))
    for group in groups.values():
        varying = frozenset(group.members[0][1]) - frozenset(group.fixed)
        if not varying or any(
            set(p) != set(group.members[0][1]) for _, p in group.members
        ):
            continue  # nothing to batch, or one grid dict with different keys
        configured = clone(estimator).set_params(**clone(group.fixed, safe=False))
        if varying <= batch_param_names(configured):
            group.batch_names = varying
    return list(groups.values())


@dataclass
class BatchScoring:
    """How a group's stacked responses are scored.

    ``scorers`` maps each metric's name to a :class:`~gpuml.metrics.Scorer`;
    ``multimetric`` says whether the search's scorer is a
    :class:`~gpuml.metrics._scorer.MultimetricScorer` (its records are then
    ``{name: score}`` dicts, and its metadata are shared out as it does).
    """

    scorers: dict
    multimetric: bool

    def metadata(self, score_params: dict) -> dict:
        """``{name: metadata}``: each metric's share of a fold's metadata."""
        if not self.multimetric:
            return {name: score_params for name in self.scorers}
        return MultimetricScorer(scorers=self.scorers).route(score_params)


def batch_scorers(scorer, estimator) -> BatchScoring | None:
    """How to score stacked responses, or None if impossible.

    gpuml :class:`~gpuml.metrics.Scorer` objects score stacks of responses
    (batched on the device for gpuml metrics); ``scoring=None`` means the
    estimator's ``score``, which for batchable estimators is R² (regressors)
    or accuracy (classifiers). Any other scorer callable needs a fitted
    estimator object per candidate, so the group is fitted one by one.
    """
    if isinstance(scorer, MultimetricScorer):
        scorers = scorer._scorers
        if all(isinstance(s, Scorer) for s in scorers.values()):
            return BatchScoring(dict(scorers), multimetric=True)
        return None
    if isinstance(scorer, Scorer):
        return BatchScoring({"score": scorer}, multimetric=False)
    if type(scorer).__name__ == "_PassthroughScorer":
        _, step = final_step(estimator)
        metric = get_scorer("r2" if is_regressor(step) else "accuracy")
        return BatchScoring({"score": metric}, multimetric=False)
    return None


def batch_response(model, X, scorer: Scorer, estimator):
    """The stacked response ``scorer`` needs, post-processed like scikit-learn.

    :func:`gpuml.metrics.response_values` on a leading candidate axis: the
    same method lookup and the same binary post-processing.
    """
    name, method = response_method_of(model, scorer._response_method, estimator)
    y_pred = method(X)
    _, step = final_step(estimator)
    if is_regressor(step) or not hasattr(model, "classes_"):
        return y_pred
    return binary_response(
        y_pred, name, model.classes_, scorer._pos_label(), stacked=True
    )
