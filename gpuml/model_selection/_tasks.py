"""The work of a search: fit and score candidates on folds, batched or not.

Pure functions of (estimator, data view, candidates, folds, scorer,
options): they read a :class:`~gpuml.model_selection._data.DataView` and
return result records in scikit-learn's format (one dict per candidate and
fold, with ``fit_error``, ``test_scores``, ``train_scores``, ``fit_time``,
``score_time`` and ``n_test_samples``), so that the search formats
``cv_results_`` exactly as scikit-learn does. They hold no state of their
own, so that they can run in the search's process or on a worker that keeps
the data (distributed dispatch builds on them).

Three ways to evaluate a group of candidates (see ``_batch.py``):

- **batched**: one ``_fit_batch`` for the group on every fold, all
  candidates scored with one batched scorer call per metric; scores stay
  on the device until the search collects them all at once. A group whose
  stacked responses would not fit in memory is fitted in several batches
  (sized up front, halved when one runs out of memory: see ``_batch.py``);
- **one by one** (:func:`fit_and_score`): scikit-learn's ``_fit_and_score``,
  on the view's arrays;
- in a **Pipeline**, the transformer prefix is fitted once per fold and
  distinct prefix parameters, and only the final step is fitted per
  candidate (or batched).

A batch that raises anything but running out of memory (a candidate whose
fit fails, say), or that runs out of memory with one candidate on one fold,
is fitted one by one from the failing fold on, so that each failing
candidate gets ``error_score`` and its own error; folds already scored, and
the group's other batches, are kept.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import get_routing_for_object, process_routing

from gpuml._array import compute_namespace, namespace_of, to_host
from gpuml._fold_store import shared_fold
from gpuml._sklearn_compat import routing_enabled
from gpuml.base import BatchUnsupported, accepts_device_input
from gpuml.model_selection._batch import (
    Group,
    _value_key,
    batch_scorers,
    candidates_per_batch,
    final_step,
    is_out_of_memory,
    is_pipeline,
    memory_budget,
    response_columns,
)
from gpuml.model_selection._callbacks import NO_HOOKS
from gpuml.model_selection._data import DataView, upload
from gpuml.model_selection._results import (
    Deferred,
    Options,
    failed_result,
    print_end,
    score,
    score_batch,
    synchronize,
)
from gpuml.model_selection._truncation import (
    SharedDecomposition,
    split_by_value,
    truncation_point,
)

# --------------------------------------------------------------------------
# One candidate on one fold
# --------------------------------------------------------------------------


def fit_and_score(
    estimator,
    view: DataView,
    train,
    test,
    scorer,
    options: Options,
    *,
    params: dict,
    candidate: int,
    split: int,
    hooks=NO_HOOKS,
) -> dict:
    """Fit ``estimator`` (already configured) on ``train`` and score it.

    scikit-learn's ``_fit_and_score``, reading the view's arrays: device
    arrays for gpuml estimators on a GPU, so that nothing crosses the bus.
    ``hooks`` are the search's callback hooks (``_callbacks.py``).
    """
    pairwise = get_tags(estimator).input_tags.pairwise
    X_train, y_train, fit_params = view.rows(
        train, pairwise_with=train if pairwise else None
    )
    X_test, y_test, _ = view.rows(test, pairwise_with=train if pairwise else None)
    test_params, train_params = view.score_rows(test), view.score_rows(train)
    rows = (X_train, y_train, fit_params)
    start = time.perf_counter()
    try:
        try:
            with hooks.fitting(candidate, split, estimator, rows):
                if y_train is None:
                    estimator.fit(X_train, **fit_params)
                else:
                    estimator.fit(X_train, y_train, **fit_params)
            synchronize(view.xp)
        except Exception:
            if options.error_score == "raise":
                raise
            result = failed_result(
                scorer, options, time.perf_counter() - start, _length(X_test)
            )
            _keep_estimator(result, estimator, options)
            print_end(result, params, options, candidate, split)
            return result
        return _score_fitted(
            estimator,
            (X_train, y_train, train_params),
            (X_test, y_test, test_params),
            scorer,
            options,
            fit_time=time.perf_counter() - start,
            params=params,
            candidate=candidate,
            split=split,
        )
    finally:
        hooks.end(candidate, split, rows)


def _score_fitted(
    estimator, train, test, scorer, options, *, fit_time, params, candidate, split
):
    start = time.perf_counter()
    result = {"fit_error": None}
    X_test, y_test, test_params = test
    result["test_scores"] = score(
        estimator, X_test, y_test, scorer, test_params, options.error_score
    )
    score_time = time.perf_counter() - start
    if options.return_train_score:
        X_train, y_train, train_params = train
        result["train_scores"] = score(
            estimator, X_train, y_train, scorer, train_params, options.error_score
        )
    result["n_test_samples"] = _length(test[0])
    result["fit_time"] = fit_time
    result["score_time"] = score_time
    _keep_estimator(result, estimator, options)
    print_end(result, params, options, candidate, split)
    return result


def _keep_estimator(result: dict, estimator, options: Options) -> None:
    """The fitted (or failed) estimator in the record, when asked for."""
    if options.return_estimator:
        result["estimator"] = estimator


def _length(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


# --------------------------------------------------------------------------
# Groups of candidates
# --------------------------------------------------------------------------


def evaluate_unit(
    estimator,
    unit: tuple,
    data,
    folds: list,
    splits,
    scorer,
    options: Options,
    table: dict,
    hooks=NO_HOOKS,
) -> None:
    """Evaluate one unit of work on the folds numbered ``splits``.

    A unit is ``(pipeline, groups)`` from the search's grouping: groups
    evaluated on their own (``pipeline`` None, one group), or the groups of
    a Pipeline that share a fitted prefix. ``data`` is the search's
    :class:`~gpuml.model_selection._data.SearchData`; the unit reads the
    compute view when every configured estimator accepts device input, else
    the host view. Records go to ``table[candidate, split]``; ``hooks`` are
    the search's callback hooks (``_callbacks.py``).
    """
    pipeline, groups = unit
    # Parameters can change a Pipeline's steps, hence where it can compute;
    # not the class of any other estimator (whose set_params is left alone).
    configured = (
        [clone(estimator).set_params(**clone(g.fixed, safe=False)) for g in groups]
        if is_pipeline(estimator)
        else [estimator]
    )
    view = data.view(all(accepts_device_input(c, data.X) for c in configured))
    if pipeline is None:
        for group in groups:
            evaluate_group(
                estimator,
                group,
                view,
                folds,
                splits,
                scorer,
                options,
                table,
                hooks,
            )
    else:
        # Prefixes that differ only in a decomposition's n_components share
        # one decomposition per fold (_truncation.py).
        # Each part's Pipeline is configured with its own prefix parameters
        # (a Dask task may hold a part of a unit, whose ``pipeline`` has the
        # unit's largest n_components).
        parts = split_by_value(pipeline, groups, estimator)
        fitter = _fit_prefix
        if len(parts) > 1:
            fitter = SharedDecomposition(parts[0][0], _fit_prefix, len(parts))
            splits = _truncations_together(
                parts, view, folds, splits, scorer, options, table, hooks
            )
            if not splits:
                return
        for configured_prefix, part in parts:
            evaluate_pipeline_groups(
                configured_prefix,
                part,
                view,
                folds,
                splits,
                scorer,
                options,
                table,
                hooks,
                fit_prefix=fitter,
            )


def _together_on(xp) -> bool:
    """Whether the truncations of a unit share their final fits
    (:func:`_truncations_together`) in namespace ``xp``: on the GPU, where a
    small fit's cost is mostly the host's driving of its iterations (one
    L-BFGS a fold instead of one per value); not on the CPU, where the
    flops cost the time and sharing measured no gain (benchmarks/RESULTS.md,
    2026-12-07). The tests turn it on there."""
    return xp is not np


def _truncations_together(
    parts, view, folds, splits, scorer, options, table, hooks
) -> list:
    """The parts of a unit (its prefixes differing only in a decomposition's
    ``n_components``, ``(configured Pipeline, groups)`` largest first)
    evaluated together on the folds ``splits``, where the final step fits
    each candidate on the leading columns of one output
    (``_batch_column_counts``): per fold the decomposition is fitted once, at
    the largest value, and each set of groups that differ only in that value
    is one ``_fit_batch`` over its output, candidate ``i`` on its first
    ``n_features[i]`` columns; each part's candidates are then scored on
    their own columns of the test rows. Returns the splits left for the
    parts' own evaluation: all of them where this does not apply, and any
    split on which something failed (evaluated again part by part, where the
    failure is met and recorded as it would be without this).
    """
    if not _together_on(view.xp if view.xp is not None else np):
        return list(splits)
    plan = _together_plan(parts, view, folds, splits, scorer, options)
    if plan is None:
        return list(splits)
    source, head_end, batches = plan
    left = []
    for split in splits:
        try:
            _together_fold(
                source, head_end, batches, view, folds, split, options, table, hooks
            )
        except Exception as exc:
            if options.verbose > 0 and not isinstance(exc, BatchUnsupported):
                print(
                    f"The n_components values' shared fit failed on split {split} "
                    f"({type(exc).__name__}: {exc}); fitting each value apart."
                )
            left.append(split)
    return left


def _together_plan(parts, view, folds, splits, scorer, options):
    """``(source Pipeline, decomposition's step index, batches)`` where each
    batch is ``(final step, [(configured Pipeline, group, scorers,
    truncation values)])`` of the groups fitted as one; None where
    :func:`_truncations_together` does not apply."""
    source = parts[0][0]
    point = truncation_point(source)
    if (
        point is None
        or point[0] != len(source.steps) - 2  # steps after the decomposition
        or view.fit_params
        or _lead_output(source, {}, view) is not None
    ):
        return None
    name = source.steps[-1][0]
    batches: dict = {}
    for configured_prefix, groups in parts:
        values = truncation_point(configured_prefix)[2]
        for group in groups:
            configured = clone(configured_prefix).set_params(
                **clone(group.fixed, safe=False)
            )
            final = configured.steps[-1][1]
            scorers = batch_scorers(scorer, configured) if group.batched else None
            if (
                scorers is None
                or (view.y is None and scorers.needs_y)
                or not getattr(final, "_batch_column_counts", lambda: False)()
            ):
                return None
            key = tuple(
                sorted(
                    (k, _value_key(v))
                    for k, v in group.fixed.items()
                    if k == name or k.startswith(f"{name}__")
                )
            )
            batches.setdefault(key, (final, []))[1].append(
                (configured, group, scorers, values)
            )
    for _, entries in batches.values():
        members = sum(len(group.members) for _, group, _, _ in entries)
        configured = entries[0][0]
        group = Group({}, [m for _, g, _, _ in entries for m in g.members])
        if (
            _batch_size(configured, group, view, folds, splits, options).candidates
            < members
        ):
            return None
    return source, point[0], list(batches.values())


def _together_fold(
    source, head_end, batches, view, folds, split, options, table, hooks
):
    """One fold of :func:`_truncations_together`'s plan."""
    train, test = folds[split]
    X_train, y_train, _ = view.rows(train)
    X_test, y_test, _ = view.rows(test)
    rows = (X_train, y_train, {})
    members = [m for _, entries in batches for _, g, _, _ in entries for m in g.members]
    for index, _ in members:
        hooks.begin(index, split, rows)
    start = time.perf_counter()
    store = view.neighbours.setdefault(train.tobytes(), {})
    with shared_fold(store, (X_train, X_test)):
        head, H_train, H_test = _fit_prefix(
            source[: head_end + 1],
            None,
            view,
            (train, test),
            (X_train, X_test),
            y_train,
            {},
        )
    synchronize(view.xp)
    decomposition = head.steps[-1][1]
    fitted = []
    for final, entries in batches:
        truncations = [decomposition._truncated(**values) for *_, values in entries]
        counts = [
            t._n_features_out
            for t, (_, group, _, _) in zip(truncations, entries, strict=True)
            for _ in group.members
        ]
        param_sets = [p for _, group, _, _ in entries for p in group.param_sets()]
        model = next(
            iter(
                final._fit_batch(
                    H_train, y_train, param_sets, folds=None, n_features=counts
                )
            )
        )
        fitted.append((model, truncations))
    synchronize(view.xp)
    fit_time = (time.perf_counter() - start) / len(members)
    for (model, truncations), (_, entries) in zip(fitted, batches, strict=True):
        offset = 0
        for truncated, (configured, group, scorers, _) in zip(
            truncations, entries, strict=True
        ):
            k, size = truncated._n_features_out, len(group.members)
            _record_batch(
                model.truncated(slice(offset, offset + size), k),
                configured,
                group.members,
                view,
                (train, test),
                scorers,
                options,
                table,
                fit_time=fit_time * size,
                split=split,
                X_pair=((H_train[:, :k], y_train), (H_test[:, :k], y_test)),
            )
            offset += size
    for index, _ in members:
        hooks.end(index, split, rows)


def evaluate_group(
    estimator,
    group: Group,
    view: DataView,
    folds: list,
    splits,
    scorer,
    options: Options,
    table: dict,
    hooks=NO_HOOKS,
) -> None:
    """Evaluate a group's candidates on the folds ``splits``, filling
    ``table[i, s]``.

    ``estimator`` is the unfitted base estimator; ``folds`` are host
    (train, test) index pairs.
    """
    left = [(group.members, list(splits))]
    configured = scorers = None
    if group.batched:
        configured = clone(estimator).set_params(**clone(group.fixed, safe=False))
        scorers = batch_scorers(scorer, configured)
    if scorers is not None and (view.y is not None or not scorers.needs_y):
        left = _evaluate_batched(
            configured,
            group,
            view,
            folds,
            list(splits),
            scorers,
            options,
            table,
            hooks,
        )
    for members, remaining in left:
        for split in remaining:
            train, test = folds[split]
            for index, params in members:
                # One set_params per candidate and split, as in scikit-learn (a
                # candidate's parameters include its group's fixed ones).
                candidate = clone(estimator).set_params(**clone(params, safe=False))
                table[index, split] = fit_and_score(
                    candidate,
                    view,
                    train,
                    test,
                    scorer,
                    options,
                    params=params,
                    candidate=index,
                    split=split,
                    hooks=hooks,
                )


def has_prefix(pipeline) -> bool:
    """Whether a Pipeline has a transformer before its final step."""
    return any(
        step is not None and step != "passthrough" for _, step in pipeline.steps[:-1]
    )


def _training_rows(view: DataView, train):
    """The training rows of a fold, formed only when called (for the
    callback hooks of candidates whose batch never forms them)."""
    return lambda: view.rows(train)


class _BatchSize:
    """How many candidates and folds one ``_fit_batch`` takes.

    ``candidates`` starts at the up-front estimate
    (:func:`~gpuml.model_selection._batch.candidates_per_batch`) and
    ``folds`` at all of them; :meth:`shrink` halves the candidates of a batch
    that ran out of memory, down to one, then takes one fold at a time.
    """

    def __init__(self, candidates: int, folds: int):
        self.candidates, self.folds = candidates, folds

    def chunks(self, members: list, splits: list) -> list:
        """``(members, splits)`` batches of at most this size, candidates
        outer (so that a candidate's folds are fitted by one batch)."""
        return [
            (members[i : i + self.candidates], splits[j : j + self.folds])
            for i in range(0, len(members), self.candidates)
            for j in range(0, len(splits), self.folds)
        ]

    def shrink(self, members: list, splits: list) -> bool:
        """After ``members`` ran out of memory on ``splits``: whether a
        smaller batch is left to try."""
        if len(members) > 1:
            self.candidates = min(self.candidates, len(members) // 2)
            return True
        if self.folds > 1 and len(splits) > 1:
            self.folds = 1
            return True
        return False


def _batch_size(configured, group: Group, view, folds, splits, options) -> _BatchSize:
    """The up-front :class:`_BatchSize` of a group on the folds ``splits``."""
    rows = max(len(folds[s][1]) for s in splits)
    if options.return_train_score:
        rows = max(rows, max(len(folds[s][0]) for s in splits))
    budget = memory_budget(view.xp)
    columns = response_columns(configured, view.y) if budget is not None else 1
    size = candidates_per_batch(len(group.members), rows, columns, budget)
    return _BatchSize(size, len(splits))


def _evaluate_batched(
    configured,
    group,
    view,
    folds,
    splits,
    scorers,
    options,
    table,
    hooks=NO_HOOKS,
) -> list:
    """Fit and score a group with ``_fit_batch`` over the folds ``splits``,
    in batches that fit in memory; return the ``(members, splits)`` left to
    fit one by one.

    The group's candidates are split into batches of the up-front size
    (:func:`_batch_size`); a batch that runs out of memory is retried
    smaller (:class:`_BatchSize`) on the folds it had not scored. Any other
    error, or running out of memory with one candidate on one fold, leaves
    that batch's candidates to be fitted one by one from the failing fold.
    """
    name, step = final_step(configured)
    prefix_params, fit_params = {}, view.fit_params
    everything = [(group.members, splits)]
    if name is not None:
        try:
            prefix_params, fit_params = pipeline_fit_params(configured, fit_params)
        except Exception:
            return everything  # the Pipeline's own fit reports it, one by one
    if prefix_params or set(fit_params) - {"sample_weight"} or not splits:
        return everything  # the protocol takes sample_weight only
    sample_weight = fit_params.get("sample_weight")
    size = _batch_size(configured, group, view, folds, splits, options)
    pending = deque(size.chunks(group.members, splits))
    left = []
    while pending:
        members, todo = pending.popleft()
        if len(members) > size.candidates or len(todo) > size.folds:
            pending.extendleft(reversed(size.chunks(members, todo)))
            continue
        done, error = _fit_and_score_batch(
            step,
            configured,
            group,
            members,
            view,
            folds,
            todo,
            scorers,
            options,
            table,
            sample_weight,
            hooks,
        )
        if error is None:
            continue
        rest = todo[done:]
        if is_out_of_memory(error) and size.shrink(members, rest):
            _batch_split(error, members, rest[0], size, options)
            pending.appendleft((members, rest))
            continue
        _batch_fell_back(error, members, rest[0], options)
        left.append((members, rest))
    return left


def _fit_and_score_batch(
    step,
    configured,
    group,
    members,
    view,
    folds,
    splits,
    scorers,
    options,
    table,
    sample_weight,
    hooks,
) -> tuple:
    """One ``_fit_batch`` of ``members`` on the folds ``splits``, scored.

    Returns ``(folds done, None)``, or ``(folds done, error)`` when it
    raised: the folds before the failing one are recorded. The error's
    traceback is dropped, so that the failed batch's arrays are freed before
    any retry.
    """
    trains = [folds[split][0] for split in splits]  # host int64 indices
    start = time.perf_counter()
    done = 0  # folds fitted and scored from the batch
    fit_times = []
    try:
        batches = iter(
            step._fit_batch(
                view.X,
                view.y,
                group.param_sets(members),
                folds=trains,
                sample_weight=sample_weight,
            )
        )
        for split in splits:
            rows = _training_rows(view, folds[split][0])
            for index, _ in members:
                hooks.begin(index, split, rows)
            model = next(batches)
            synchronize(view.xp)
            fit_time = time.perf_counter() - start
            fit_times.append(fit_time)
            _record_batch(
                model,
                configured,
                members,
                view,
                folds[split],
                scorers,
                options,
                table,
                fit_time=fit_time,
                split=split,
            )
            del model
            for index, _ in members:
                hooks.end(index, split, rows)
            done += 1
            start = time.perf_counter()
    except Exception as exc:
        return done, exc.with_traceback(None)
    # An estimator may fit all folds at the first one (LogisticRegression) or
    # share work across them (Ridge's Gram matrix): the folds share the time.
    shared = sum(fit_times) / len(fit_times) / len(members)
    for split in splits:
        for index, _ in members:
            table[index, split]["fit_time"] = shared
    return done, None


def _batch_split(exc, members: list, split: int, size: _BatchSize, options) -> None:
    """Say (at verbose > 0) that a batch ran out of memory and is split."""
    if options.verbose > 0:
        smaller = (
            f"batches of {_candidates(size.candidates)}"
            if size.candidates < len(members)
            else "one fold at a time"
        )
        print(
            f"Batched fit of {_candidates(len(members))} ran out of memory on "
            f"split {split} ({type(exc).__name__}: {exc}); retrying in {smaller}."
        )


def _candidates(count: int) -> str:
    return f"{count} candidate" + ("s" if count != 1 else "")


def _batch_fell_back(exc, members: list, split: int, options: Options) -> None:
    """Say (at verbose > 0) why a batch is refitted one by one."""
    if options.verbose > 0 and not isinstance(exc, BatchUnsupported):
        print(
            f"Batched fit of {_candidates(len(members))} failed on split "
            f"{split} ({type(exc).__name__}: {exc}); fitting them one by one."
        )


def _record_batch(
    model,
    configured,
    members,
    view,
    fold,
    scorers,
    options,
    table,
    *,
    fit_time,
    split,
    X_pair=None,
):
    """Score a fold's batch model and store one record per candidate of
    ``members`` (``(index, params)`` pairs, in the model's order)."""
    train, test = fold
    if X_pair is None:
        X_test, y_test, _ = view.rows(test)
        X_train = y_train = None
        if options.return_train_score:
            X_train, y_train, _ = view.rows(train)
    else:
        (X_train, y_train), (X_test, y_test) = X_pair
    test_params, train_params = view.score_rows(test), view.score_rows(train)
    start = time.perf_counter()
    test_scores = score_batch(
        model,
        configured,
        X_test,
        y_test,
        scorers.scorers,
        scorers.metadata(test_params),
        options.error_score,
    )
    train_scores = None
    if options.return_train_score:
        train_scores = score_batch(
            model,
            configured,
            X_train,
            y_train,
            scorers.scorers,
            scorers.metadata(train_params),
            options.error_score,
        )
    score_time = time.perf_counter() - start
    if options.verbose > 2:  # the progress lines show the scores: fetch them now
        test_scores = {n: to_host(s) for n, s in test_scores.items()}
        if train_scores is not None:
            train_scores = {n: to_host(s) for n, s in train_scores.items()}
    k = len(members)
    single = not scorers.multimetric
    for position, (index, params) in enumerate(members):

        def pick(scores, position=position):
            picked = {
                n: float(s[position])
                if isinstance(s, np.ndarray)
                else Deferred(s, position)
                for n, s in scores.items()
            }
            return picked["score"] if single else picked

        result = {
            "fit_error": None,
            "test_scores": pick(test_scores),
            "n_test_samples": _length(X_test),
            "fit_time": fit_time / k,
            "score_time": score_time / k,
        }
        if train_scores is not None:
            result["train_scores"] = pick(train_scores)
        table[index, split] = result
        print_end(result, params, options, index, split)


def evaluate_pipeline_groups(
    pipeline,
    groups: list,
    view,
    folds,
    splits,
    scorer,
    options,
    table,
    hooks=NO_HOOKS,
    fit_prefix=None,
) -> None:
    """Groups of a Pipeline sharing their prefix parameters, fold by fold.

    ``pipeline`` is configured with those prefix parameters. On each fold the
    transformer prefix is fitted once and transforms the fold's rows once;
    each group then fits only the final step: batched when it can, else one
    candidate at a time. Candidates are scored through an assembled, fitted
    Pipeline (so any scorer sees the estimator it expects), batched groups
    through the final step's batch model on the transformed test rows.
    ``fit_prefix`` fits the prefix on a fold (default :func:`_fit_prefix`;
    ``_truncation.py`` shares a decomposition between prefixes).
    """
    fit_prefix = _fit_prefix if fit_prefix is None else fit_prefix
    name, _ = final_step(pipeline)
    prefix = pipeline[:-1]
    try:
        prefix_params, final_params = pipeline_fit_params(pipeline, view.fit_params)
        params_error = None
    except Exception as exc:  # the Pipeline's fit raises it: every fit fails
        prefix_params, final_params, params_error = {}, {}, exc
    members = [member for group in groups for member in group.members]
    lead = _lead_output(pipeline, prefix_params, view)
    batched = {}
    for position, group in enumerate(groups):
        configured = clone(pipeline).set_params(**clone(group.fixed, safe=False))
        scorers = batch_scorers(scorer, configured) if group.batched else None
        if scorers is not None and (view.y is not None or not scorers.needs_y):
            if not set(final_params) - {"sample_weight"}:
                size = _batch_size(configured, group, view, folds, splits, options)
                batched[position] = (
                    configured,
                    scorers,
                    _BatchSize(size.candidates, 1),
                )
    for split in splits:
        train, test = folds[split]
        X_train, y_train, _ = view.rows(train)
        X_test, y_test, _ = view.rows(test)
        # A first step finds work on this fold's rows done for an earlier
        # candidate (UMAP's neighbours, a vectorizer's term counts).
        store = view.neighbours.setdefault(train.tobytes(), {})
        with shared_fold(store, (X_train, X_test)):
            fold_prefix_params = view.rows_of(prefix_params, train)
            fold_final_params = view.rows_of(final_params, train)
            start = time.perf_counter()
            try:
                if params_error is not None:  # the same error text on every fold
                    raise params_error.with_traceback(None)
                fitted_prefix, Xt_train, Xt_test = fit_prefix(
                    prefix,
                    lead,
                    view,
                    (train, test),
                    (X_train, X_test),
                    y_train,
                    fold_prefix_params,
                )
                synchronize(view.xp)
            except Exception:
                if options.error_score == "raise":
                    raise
                elapsed = time.perf_counter() - start
                for index, params in members:
                    result = failed_result(scorer, options, elapsed, _length(X_test))
                    failed = clone(pipeline).set_params(**clone(params, safe=False))
                    _keep_estimator(result, failed, options)
                    table[index, split] = result
                    print_end(result, params, options, index, split)
                    hooks.begin(index, split, (X_train, y_train, {}))
                    hooks.end(index, split, (X_train, y_train, {}))
                continue
            prefix_time = (time.perf_counter() - start) / len(members)
            final_y = (y_train, y_test)
            if lead is not None and lead.y is not None:  # the batched fits' labels
                final_y = (view.take(lead.y, train), view.take(lead.y, test))
            fold = _PipelineFold(
                name,
                fitted_prefix,
                (X_train, y_train),
                (X_test, y_test),
                (Xt_train, Xt_test),
                fold_final_params,
                prefix_time,
                final_y,
            )
            for position, group in enumerate(groups):
                left = group.members
                if position in batched:
                    left = _pipeline_batch(
                        fold,
                        *batched[position],
                        group,
                        view,
                        (train, test),
                        options,
                        table,
                        split,
                        hooks,
                    )
                    if left:
                        del batched[position]  # fitted one by one from now on
                for index, params in left:
                    candidate = clone(pipeline).set_params(**clone(params, safe=False))
                    table[index, split] = _pipeline_one(
                        fold,
                        candidate,
                        view,
                        (train, test),
                        scorer,
                        options,
                        params=params,
                        candidate_index=index,
                        split=split,
                        hooks=hooks,
                    )


def _rowwise_stateless(step) -> bool:
    """Whether a step's output for some rows is those rows of its output for
    all rows, whatever it was fitted on: a stateless transformer of each
    sample alone. Only the hashing vectorizers (scikit-learn's and gpuml's)
    are known to be; a stateless ``FunctionTransformer`` may mix rows."""
    from gpuml._sklearn_compat import sklearn_own

    theirs = sklearn_own("sklearn.feature_extraction.text", "HashingVectorizer")
    return isinstance(step, theirs)


@dataclass
class _Lead:
    """The leading row-wise stateless steps of a Pipeline's prefix, fitted,
    their ``output`` on every row, and ``y`` on the device when that output
    is there (moved from a host view, or computed from a compute view's
    documents; else None): the refit then fits the later steps on it."""

    steps: list
    output: object
    y: object = None


def _lead_output(pipeline, prefix_params: dict, view) -> _Lead | None:
    """The prefix's leading row-wise stateless steps (see
    :func:`_rowwise_stateless`) applied to every row of the search once, for
    all folds and candidates that share the prefix, where each fold would
    apply them to its own rows. Their output goes to the device when the
    search computes there and every later step takes device data (gpuml's
    estimators), even from a host view (text stays on the host): the folds
    are then sliced, fitted and scored on the device. ``None`` when there
    are no such steps, fit parameters go to the prefix, or the steps fail
    (each fold then fits the prefix itself and meets the error as it would
    have).
    """
    steps = _stateless_steps(pipeline)
    if not steps or prefix_params:
        return None
    key = _lead_key(steps)
    if key in view.leads:
        return view.leads[key]
    rest = pipeline[len(steps) :]
    xp = view.xp if view.xp is not None else np
    moved = False
    if xp is np and accepts_device_input(rest):
        xp = compute_namespace()
        moved = xp is not np
    Xt = view.X
    try:
        for _, step in steps:
            Xt = step.fit_transform(Xt, view.y)
        if xp is not np:
            Xt = upload(Xt, xp)
    except Exception:
        return None
    if moved:
        y = upload(view.y, xp)
    else:  # a compute view's labels (documents read on the device)
        y = view.y if xp is not np else None
    if y is not None and namespace_of(y) is np:  # labels that stay on the host
        y = None
    view.leads[key] = _Lead(steps, Xt, y)
    return view.leads[key]


def _stateless_steps(pipeline) -> list:
    """Clones of the leading row-wise stateless steps of a Pipeline's prefix."""
    steps = []
    for name, step in pipeline.steps[:-1]:
        if not _rowwise_stateless(step):
            break
        steps.append((name, clone(step)))
    return steps


def _lead_key(steps) -> tuple:
    """The leading steps' classes and parameters, as a dictionary key."""
    return tuple(
        (
            name,
            type(step),
            tuple(
                sorted((k, _value_key(v)) for k, v in step.get_params(False).items())
            ),
        )
        for name, step in steps
    )


def refit_from_lead(pipeline, view) -> bool:
    """Fit ``pipeline`` on every row from the output its leading stateless
    steps had in the search (kept on the device in ``view.leads``), instead
    of transforming every document again; False (nothing fitted) when the
    search kept none for these steps. Fit parameters go to the later steps
    (none go to the leading ones, or the search kept nothing).
    """
    if not is_pipeline(pipeline):
        return False
    steps = _stateless_steps(pipeline)
    lead = view.leads.get(_lead_key(steps)) if steps else None
    if lead is None or lead.y is None:
        return False
    tail = pipeline[len(steps) :]
    tail.fit(lead.output, lead.y, **view.fit_params)
    pipeline.steps = [*lead.steps, *tail.steps]
    return True


def _fit_prefix(prefix, lead, view, indices, X_pair, y_train, fit_params):
    """The prefix fitted on a fold's training rows, and the fold's training
    and test rows transformed: ``(fitted prefix, Xt_train, Xt_test)``.
    With ``lead`` (:func:`_lead_output`), the leading steps' output is
    sliced and only the steps after them are fitted."""
    fitted = clone(prefix)
    if lead is None:
        Xt_train = fitted.fit_transform(X_pair[0], y_train, **fit_params)
        return fitted, Xt_train, fitted.transform(X_pair[1])
    steps, Xt = lead.steps, lead.output
    Xt_train, Xt_test = view.take(Xt, indices[0]), view.take(Xt, indices[1])
    rest = []
    if len(fitted.steps) > len(steps):
        tail = fitted[len(steps) :]
        Xt_train = tail.fit_transform(Xt_train, y_train, **fit_params)
        Xt_test = tail.transform(Xt_test)
        rest = tail.steps  # fitted (clones of them, with a Pipeline memory)
    fitted.steps = [*steps, *rest]
    return fitted, Xt_train, Xt_test


@dataclass
class _PipelineFold:
    """One fold of a Pipeline search, with its prefix fitted."""

    name: str
    prefix: object
    train: tuple
    test: tuple
    transformed: tuple
    final_params: dict
    prefix_time: float
    final_y: tuple  # the labels (train, test) of the final step's batched fit


def _pipeline_batch(
    fold,
    configured,
    scorers,
    size: _BatchSize,
    group,
    view,
    indices,
    options,
    table,
    split,
    hooks=NO_HOOKS,
) -> list:
    """The final step's batched fits on a fold, in batches of at most
    ``size.candidates`` (halved when one runs out of memory); returns the
    members left to fit one by one (those of a batch that failed)."""
    _, final = final_step(configured)
    Xt_train, Xt_test = fold.transformed
    rows = (*fold.train, {})
    pending = deque(size.chunks(group.members, [split]))
    left = []
    while pending:
        members, _ = pending.popleft()
        if len(members) > size.candidates:
            pending.extendleft(reversed(size.chunks(members, [split])))
            continue
        for index, _ in members:
            hooks.begin(index, split, rows)
        start = time.perf_counter()
        try:
            model = next(
                iter(
                    final._fit_batch(
                        Xt_train,
                        fold.final_y[0],
                        group.param_sets(members),
                        folds=None,
                        sample_weight=fold.final_params.get("sample_weight"),
                    )
                )
            )
            synchronize(view.xp)
            fit_time = time.perf_counter() - start + fold.prefix_time * len(members)
            _record_batch(
                model,
                configured,
                members,
                view,
                indices,
                scorers,
                options,
                table,
                fit_time=fit_time,
                split=split,
                X_pair=((Xt_train, fold.final_y[0]), (Xt_test, fold.final_y[1])),
            )
            del model
        except Exception as exc:
            error = exc.with_traceback(None)
            if is_out_of_memory(error) and size.shrink(members, [split]):
                _batch_split(error, members, split, size, options)
                pending.appendleft((members, [split]))
            else:
                _batch_fell_back(error, members, split, options)
                left.extend(members)
            continue
        for index, _ in members:
            hooks.end(index, split, rows)
    return left


def _pipeline_one(
    fold,
    candidate,
    view,
    indices,
    scorer,
    options,
    *,
    params,
    candidate_index,
    split,
    hooks=NO_HOOKS,
) -> dict:
    """One candidate's final step on a fold whose prefix is fitted.

    Callbacks are propagated into the final step, the one estimator fitted.
    """
    train, test = indices
    fitted_final = candidate.steps[-1][1]
    Xt_train, _ = fold.transformed
    y_train = fold.train[1]
    rows = (*fold.train, {})
    start = time.perf_counter()
    try:
        try:
            with hooks.fitting(candidate_index, split, fitted_final, rows):
                if y_train is None:
                    fitted_final.fit(Xt_train, **fold.final_params)
                else:
                    fitted_final.fit(Xt_train, y_train, **fold.final_params)
            synchronize(view.xp)
        except Exception:
            if options.error_score == "raise":
                raise
            result = failed_result(
                scorer,
                options,
                time.perf_counter() - start + fold.prefix_time,
                _length(fold.test[0]),
            )
            _keep_estimator(result, candidate, options)
            print_end(result, params, options, candidate_index, split)
            return result
        assembled = copy.copy(candidate)
        assembled.steps = [*fold.prefix.steps, (fold.name, fitted_final)]
        test_params, train_params = view.score_rows(test), view.score_rows(train)
        return _score_fitted(
            assembled,
            (*fold.train, train_params),
            (*fold.test, test_params),
            scorer,
            options,
            fit_time=time.perf_counter() - start + fold.prefix_time,
            params=params,
            candidate=candidate_index,
            split=split,
        )
    finally:
        hooks.end(candidate_index, split, rows)


def pipeline_fit_params(pipeline, fit_params: dict) -> tuple[dict, dict]:
    """``(prefix, final)``: a Pipeline's fit parameters for its transformer
    prefix (``pipeline[:-1]``, as its ``fit_transform`` takes them) and for
    its final step's ``fit``.

    Without metadata routing, ``step__param`` names are split by step; with
    routing, the metadata are routed by the steps' requests, as the
    Pipeline's own ``fit`` routes them (aliases resolved for the final step,
    scikit-learn's errors for metadata nobody requested).
    """
    name, _ = final_step(pipeline)
    if not routing_enabled():
        return _split_pipeline_params(fit_params, name)
    if not fit_params:
        return {}, {}
    routed = process_routing(pipeline, "fit", **fit_params)
    prefix = get_routing_for_object(pipeline[:-1])
    consumed = prefix.consumes("fit_transform", list(fit_params))
    return (
        {k: v for k, v in fit_params.items() if k in consumed},
        dict(routed[name].fit),
    )


def _split_pipeline_params(fit_params: dict, final_name: str):
    """Pipeline fit parameters: ``step__p`` for the prefix, ``p`` for the final."""
    prefix, final = {}, {}
    for key, value in fit_params.items():
        step, _, param = key.partition("__")
        if not param:
            raise ValueError(
                f"Pipeline.fit does not accept the {key} parameter. You can pass "
                "parameters to specific steps of your pipeline using the "
                "stepname__parameter format, e.g. "
                "`Pipeline.fit(X, y, logisticregression__sample_weight"
                "=sample_weight)`."
            )
        if step == final_name:
            final[param] = value
        else:
            prefix[key] = value
    return prefix, final
