"""GridSearchCV and RandomizedSearchCV that keep the data on the device.

They *are* scikit-learn's classes (same signature, parameter validation,
``_run_search``, ``cv_results_`` formatting and ranking, ``best_*``
attributes, ``predict``/``score``/``transform`` delegation); only ``fit``
is gpuml's. It differs from scikit-learn's in where the work happens:

1. The data are read through a :class:`~gpuml.model_selection._data.SearchData`:
   uploaded to the compute device once (device inputs not copied at all)
   for the estimators that compute there (gpuml's), left as they are for
   the others.
2. The folds are scikit-learn's, drawn once per ``evaluate_candidates``
   call on the host from ``y`` and the splitter's metadata (``groups``)
   only, and indexed on the device.
3. Candidates that differ only in parameters an estimator can fit together
   (Ridge's ``alpha``) are fitted as one batch and scored with one batched
   scorer call per metric (``_batch.py``); Pipelines fit their transformer
   prefix once per fold and prefix parameters (``_tasks.py``).
4. Scores stay on the device until every candidate of the call is done,
   then come back in one transfer. The best candidate is refitted on the
   device-resident data and its fitted arrays are returned in the family of
   the input (NumPy for NumPy input), as if it had been fitted on it.
"""

from __future__ import annotations

import copy
import logging
import time
import warnings
from collections import defaultdict
from inspect import signature

import numpy as np
from sklearn import model_selection as sk
from sklearn.base import clone, is_classifier
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_consistent_length

from gpuml._array import DEVICE, compute_namespace, input_family, to_host
from gpuml._sklearn_compat import (
    HasMethods,
    fit_context,
    init_callback_context,
    insert_error_scores,
    num_samples,
)
from gpuml._sklearn_compat import Options as ParamOptions  # Options: the search's
from gpuml.base import accepts_device_input, move_fitted_to_family
from gpuml.metrics._scorer import (
    MultimetricScorer,
    Scorer,
    _check_multimetric_scoring,
    check_scoring,
)
from gpuml.model_selection import _parallel
from gpuml.model_selection._batch import final_step, group_candidates, is_pipeline
from gpuml.model_selection._callbacks import NO_HOOKS, EvaluationHooks
from gpuml.model_selection._dask import search_client, warm_up, worth_dispatching
from gpuml.model_selection._data import SearchData, download, host_split_params
from gpuml.model_selection._progress import Progress
from gpuml.model_selection._results import Options, resolve_deferred
from gpuml.model_selection._split import kfold_indices
from gpuml.model_selection._table import TablePlan
from gpuml.model_selection._tasks import evaluate_unit, has_prefix, refit_from_lead
from gpuml.model_selection._truncation import largest, shared_prefix_key

# One record per search (its candidates, folds, device, time), at INFO:
# ``python -m gpuml run -v`` shows them and counts them (gpuml/_accel.py).
_LOG = logging.getLogger("gpuml.search")


def _placeholder(n_samples: int) -> np.ndarray:
    """A zero-memory stand-in for ``X`` that splitters can measure."""
    return np.broadcast_to(np.float64(0), (n_samples, 1))


def _fold_indices(rows) -> np.ndarray:
    """A fold's rows as host int64 indices; a boolean mask (which
    scikit-learn's search accepts from ``cv``) becomes the indices it selects."""
    rows = np.asarray(to_host(rows)).ravel()
    if rows.dtype == bool:
        return np.flatnonzero(rows)
    return rows.astype(np.int64, copy=False)


def _host_folds(cv, n_samples, y, split_params: dict) -> list:
    """The splitter's (train, test) pairs as host int64 index arrays.

    ``split_params`` are the metadata routed to the splitter (``groups``),
    as host data.
    """
    if not split_params:  # (KFold warns that it ignores groups)
        pairs = kfold_indices(cv, n_samples)
        if pairs is not None:
            return pairs
    return [
        (_fold_indices(train), _fold_indices(test))
        for train, test in cv.split(_placeholder(n_samples), y, **split_params)
    ]


def _failure_summary(out: list, candidates: list, n_splits: int) -> str:
    """Each distinct error with the candidates and splits it hit."""
    where: dict = defaultdict(list)
    for position, result in enumerate(out):
        if result["fit_error"] is not None:
            candidate, split = divmod(position, n_splits)
            where[result["fit_error"]].append((candidate, split))
    delimiter = "-" * 80 + "\n"
    parts = []
    for error, hits in where.items():
        by_candidate: dict = defaultdict(list)
        for candidate, split in hits:
            by_candidate[candidate].append(split)
        named = "; ".join(
            f"{candidates[c]!r} on split(s) {', '.join(map(str, s))}"
            for c, s in by_candidate.items()
        )
        parts.append(
            f"{delimiter}{len(hits)} fits failed with the following error "
            f"(candidates: {named}):\n{error}"
        )
    return "\n".join(parts)


def _warn_or_raise_about_fit_failures(out, candidates, n_splits, error_score):
    """scikit-learn's failure report, naming the failing candidates."""
    n_failed = sum(result["fit_error"] is not None for result in out)
    if not n_failed:
        return
    summary = _failure_summary(out, candidates, n_splits)
    if n_failed == len(out):
        raise ValueError(
            f"\nAll the {len(out)} fits failed.\n"
            "It is very likely that your model is misconfigured.\n"
            "You can try to debug the error by setting error_score='raise'.\n\n"
            f"Below are more details about the failures:\n{summary}"
        )
    warnings.warn(
        f"\n{n_failed} fits failed out of a total of {len(out)}.\n"
        "The score on these train-test partitions for these parameters"
        f" will be set to {error_score}.\n"
        "If these failures are not expected, you can try to debug them "
        "by setting error_score='raise'.\n\n"
        f"Below are more details about the failures:\n{summary}",
        FitFailedWarning,
        stacklevel=4,
    )


def evaluate(
    estimator,
    candidates,
    data: SearchData,
    folds,
    scorer,
    options: Options,
    client=None,
    hooks=NO_HOOKS,
    n_jobs=None,
    pre_dispatch="2*n_jobs",
) -> list[dict]:
    """Results of every candidate on every fold, candidate-major (as sklearn).

    ``data`` holds the metadata routed to the estimator's ``fit`` and to the
    scorer with the samples. In process, each unit of work runs on all folds
    at once (a batched estimator shares work across folds), and with
    ``n_jobs`` host work is spread over joblib workers (``_parallel.py``);
    through a Dask ``client``, each unit and fold is one task (``_dask.py``).
    ``hooks`` are the callback hooks of the evaluations (``_callbacks.py``):
    work sent to other processes has its hooks called here, around it.
    """
    kept = None  # a client whose cluster this search does not use
    if client is not None and not worth_dispatching(
        client, estimator, candidates, data, folds, options
    ):
        kept, client = client, None
    groups = group_candidates(estimator, candidates)
    units = list(_units(estimator, groups))
    table: dict = {}
    spread: list = []
    if client is None and _parallel.wants_workers(n_jobs):
        units, spread = _parallel.host_units(estimator, units, data)
    pairs = [
        (index, split)
        for _, unit_groups in ([] if client is None else units) + spread
        for group in unit_groups
        for index, _ in group.members
        for split in range(len(folds))
    ]

    def rows(split):
        return lambda: data.view(False).rows(folds[split][0])

    for index, split in pairs:
        hooks.begin(index, split, rows(split))
    progress = Progress(len(candidates) * len(folds), options.verbose)
    try:
        if client is not None:
            from gpuml.model_selection._dask import dispatch

            table = dispatch(
                client,
                estimator,
                units,
                data,
                folds,
                scorer,
                options,
                progress,
            )
        else:
            if spread:
                table = _parallel.run(
                    n_jobs,
                    pre_dispatch,
                    estimator,
                    spread,
                    data,
                    folds,
                    scorer,
                    options,
                )
                progress.advance_to(len(table))
            splits = list(range(len(folds)))
            for unit in units:
                evaluate_unit(
                    estimator,
                    unit,
                    data,
                    folds,
                    splits,
                    scorer,
                    options,
                    table,
                    hooks,
                )
                progress.advance_to(len(table))
    finally:
        progress.close()
        for index, split in pairs:
            hooks.end(index, split, rows(split))
    if kept is not None:
        warm_up(kept)  # for the next search, now that this one is done
    out = [table[i, s] for i in range(len(candidates)) for s in range(len(folds))]
    resolve_deferred(out)
    return out


def _units(estimator, groups):
    """Yield ``(pipeline, groups)``: groups sharing a fitted Pipeline prefix.

    ``pipeline`` is the estimator configured with the shared prefix
    parameters, or None for groups evaluated on their own. Prefixes that
    differ only in the ``n_components`` of an exact decomposition share a
    unit, configured with the largest (``_truncation.py``).
    """
    if not is_pipeline(estimator):
        for group in groups:
            yield None, [group]
        return
    name, _ = final_step(estimator)
    units: dict = {}
    for group in groups:
        prefix_fixed = {
            k: v
            for k, v in group.fixed.items()
            if k != name and not k.startswith(f"{name}__")
        }
        pipeline = clone(estimator).set_params(**clone(prefix_fixed, safe=False))
        if not has_prefix(pipeline):
            yield None, [group]
            continue
        shared, truncation = shared_prefix_key(pipeline, prefix_fixed)
        key = repr((sorted(shared.items(), key=lambda kv: kv[0]), sorted(truncation)))
        if key not in units:
            units[key] = ([], [], bool(truncation))
        units[key][0].append(pipeline)
        units[key][1].append(group)
    for pipelines, unit_groups, truncates in units.values():
        pipeline = pipelines[0]
        if truncates and len(pipelines) > 1:
            pipeline = clone(pipeline).set_params(**largest(pipelines))
        yield pipeline, unit_groups


class _DeviceSearchMixin:
    """The device-resident ``fit`` shared by both searches."""

    _CLIENT_CONSTRAINT = [
        None,
        ParamOptions(bool, {False}),
        str,
        HasMethods(["submit", "scatter"]),
    ]

    def __sklearn_clone__(self):
        """``clone`` shares the Dask client: a connection, not a value to copy.

        A clone has the same parameters (scikit-learn's contract for
        ``clone``, on which nested cross-validation of a search relies), so
        a ``client`` passed to the search is kept, as the same object; a
        search without one looks the client up at each ``fit``.
        """
        params = self.get_params(deep=False)
        client = params.pop("client")
        cloned = {name: clone(value, safe=False) for name, value in params.items()}
        return type(self)(**cloned, client=client)

    def __getstate__(self):
        """A pickled search keeps no Dask client: a connection belongs to its
        process. An unpickled search has ``client=None`` and looks the client
        up when it is fitted (in process when there is none); a scheduler
        address given as ``client``, and ``client=False``, are plain values
        and are kept."""
        state = super().__getstate__()
        client = state.get("client")
        if client is not None and client is not False and not isinstance(client, str):
            state = {**state, "client": None}
        return state

    def _host_folds(self, cv, n_samples, y, split_params) -> list:
        """The folds of one ``evaluate_candidates`` call (host indices)."""
        return _host_folds(cv, n_samples, y, split_params)

    def _get_scorers(self):
        """gpuml's scorers for ``scoring`` (and the refit metric's name)."""
        refit_metric = "score"
        if (
            callable(self.scoring)
            or self.scoring is None
            or isinstance(self.scoring, str)
        ):
            return check_scoring(self.estimator, self.scoring), refit_metric
        scorers = _check_multimetric_scoring(self.estimator, self.scoring)
        self._check_refit_for_multimetric(scorers)
        return (
            MultimetricScorer(scorers=scorers, raise_exc=self.error_score == "raise"),
            self.refit,
        )

    def _check_scorers_accept_sample_weight(self) -> bool:
        """scikit-learn's check (without routing, ``sample_weight`` goes to
        the scorers that accept it), with its warning per metric for gpuml's
        multimetric scorer too."""
        scorer, _ = self._get_scorers()
        if not isinstance(scorer, MultimetricScorer):
            return super()._check_scorers_accept_sample_weight()
        for name, one in scorer._scorers.items():
            if not one._accept_sample_weight():
                warnings.warn(
                    f"The scoring {name}={one} does not support sample_weight, "
                    "which may lead to statistically incorrect results when "
                    f"fitting {self} with sample_weight. ",
                    stacklevel=4,
                )
        return scorer._accept_sample_weight()

    @fit_context(prefer_skip_nested_validation=False)  # estimator not validated
    def fit(self, X, y=None, **params):
        """Run fit with all sets of parameters, on the compute device.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training data: host (NumPy, pandas, SciPy sparse, lists) or
            device (CuPy, cupyx sparse, cuDF, CUDA tensors). On a GPU, host
            data are copied there once for the whole search.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), \
                default=None
            Target relative to X; None for unsupervised learning.
        **params : dict of str -> object
            Routed as scikit-learn's search routes them. Without metadata
            routing, ``groups`` goes to the splitter; everything else to the
            estimator's ``fit``, split with the samples when it has one entry
            per sample; ``sample_weight`` also goes to the scorers that
            accept it. With routing
            (``sklearn.set_config(enable_metadata_routing=True)``), each
            goes where the estimator, the scorers and the splitter request
            it (``set_fit_request``, ``set_score_request``...).

        Returns
        -------
        self : object
            Instance of fitted estimator.
        """
        started = time.perf_counter()
        scorer, refit_metric = self._get_scorers()
        check_consistent_length(X, y)
        # scikit-learn's routing: metadata for the estimator's fit, the
        # scorers and the splitter (by their requests when routing is on).
        routed = self._get_routed_params_for_fit(params)
        split_params = host_split_params(routed.splitter.split)
        n_samples = num_samples(X)
        y_host = download(y)
        cv_orig = check_cv(self.cv, y_host, classifier=is_classifier(self.estimator))
        self._checked_cv_orig = cv_orig
        check_inputs = getattr(self, "_check_input_parameters", None)
        if check_inputs is not None:  # the halving searches' checks and resources
            check_inputs(X=_placeholder(n_samples), y=y_host, split_params=split_params)
        self.n_splits_ = cv_orig.get_n_splits(
            _placeholder(n_samples), y_host, **split_params
        )
        base_estimator = clone(self.estimator)
        data = SearchData(
            X, y, routed.estimator.fit, compute_namespace(), routed.scorer.score
        )
        # A DataFrame with string columns in front of a ColumnTransformer is
        # searched as one numeric matrix where the scores cannot differ
        # (_table.py); the refit reads the DataFrame as given.
        table = TablePlan.of(X, base_estimator, self.scoring)
        table_data = None
        # scikit-learn's callbacks (1.9+): the search's task tree (see _callbacks).
        weight = params.get("sample_weight")
        metadata = None if weight is None else {"sample_weight": weight}
        root_context = init_callback_context(
            self, max_subtasks=1 + (self.refit is not False)
        ).call_on_fit_task_begin(estimator=self, X=X, y=y, metadata=metadata)

        # The evaluate_candidates callback of scikit-learn's _run_search design,
        # run in process or through the search's Dask client.
        with search_client(self.client) as client:
            all_candidate_params: list = []
            all_out: list = []
            all_more_results: dict = defaultdict(list)
            results: dict = {}
            batched = 0  # candidates in batched groups, for the log line

            def evaluate_candidates(
                candidate_params, cv=None, more_results=None, callback_ctx=None
            ):
                nonlocal results, batched
                cv = cv or cv_orig
                candidate_params = list(candidate_params)
                n_splits = self.n_splits_
                folds = self._host_folds(cv, n_samples, y_host, split_params)
                if len(folds) != n_splits:
                    raise ValueError(
                        "cv.split and cv.get_n_splits return inconsistent results. "
                        f"Expected {n_splits} splits, got {len(folds)}"
                    )
                hooks = NO_HOOKS
                if callback_ctx is not None:
                    hooks = EvaluationHooks(
                        self,
                        {
                            (i, s): callback_ctx.subcontext(
                                task_name="candidate-split-evaluation",
                                task_id=i * n_splits + s,
                            )
                            for i in range(len(candidate_params))
                            for s in range(n_splits)
                        },
                    )
                if self.verbose > 0:
                    n = len(candidate_params)
                    print(
                        f"Fitting {n_splits} folds for each of {n} candidates, "
                        f"totalling {n * n_splits} fits"
                    )
                options = Options(
                    error_score=self.error_score,
                    return_train_score=self.return_train_score,
                    verbose=self.verbose,
                    n_splits=n_splits,
                    n_candidates=len(candidate_params),
                )
                nonlocal table_data
                run_estimator, run_data = base_estimator, data
                rewritten = table and table.rewrite(base_estimator, candidate_params)
                if rewritten is not None and table.matrix(data.xp) is not None:
                    if table_data is None:
                        table_data = SearchData(
                            table.matrix(data.xp),
                            y,
                            routed.estimator.fit,
                            data.xp,
                            routed.scorer.score,
                        )
                        if self.verbose > 0:
                            print(
                                "Reading the DataFrame as one matrix: "
                                f"{len(table.string_positions)} string columns "
                                "as positions among their sorted values"
                            )
                    run_estimator, run_data = rewritten, table_data
                out = evaluate(
                    run_estimator,
                    candidate_params,
                    run_data,
                    folds,
                    scorer,
                    options,
                    client,
                    hooks,
                    self.n_jobs,
                    # The halving searches have no pre_dispatch.
                    getattr(self, "pre_dispatch", "2*n_jobs"),
                )
                if not out:
                    raise ValueError(
                        "No fits were performed. Was the CV iterator empty? "
                        "Were there no candidates?"
                    )
                _warn_or_raise_about_fit_failures(
                    out, candidate_params, n_splits, self.error_score
                )
                if callable(self.scoring):
                    insert_error_scores(out, self.error_score)
                if _LOG.isEnabledFor(logging.INFO):
                    batched += sum(
                        len(group.members)
                        for group in group_candidates(run_estimator, candidate_params)
                        if group.batched
                    )
                all_candidate_params.extend(candidate_params)
                all_out.extend(out)
                for key, value in (more_results or {}).items():
                    all_more_results[key].extend(value)
                results = self._format_results(
                    all_candidate_params, n_splits, all_out, all_more_results
                )
                return results

            if "callback_ctx" in signature(self._run_search).parameters:
                self._run_search(evaluate_candidates, callback_ctx=root_context)
            else:  # scikit-learn < 1.9, or a search class of one's own
                self._run_search(evaluate_candidates)

        first_test_score = all_out[0]["test_scores"]
        self.multimetric_ = isinstance(first_test_score, dict)
        if callable(self.scoring) and self.multimetric_:
            self._check_refit_for_multimetric(first_test_score)
            refit_metric = self.refit
        if self.refit or not self.multimetric_:
            self.best_index_ = self._select_best_index(
                self.refit, refit_metric, results
            )
            if not callable(self.refit):
                self.best_score_ = results[f"mean_test_{refit_metric}"][
                    self.best_index_
                ]
            self.best_params_ = results["params"][self.best_index_]
        if self.refit:
            refit_context = root_context.subcontext(task_name="refit-with-best-params")
            self._refit(
                base_estimator, data, refit_context, metadata, table, table_data
            )
            refit_context.call_on_fit_task_end(
                estimator=self, X=X, y=y, metadata=metadata
            )
        self.scorer_ = self._public_scorer(scorer)
        self.cv_results_ = results
        root_context.call_on_fit_task_end(estimator=self, X=X, y=y, metadata=metadata)
        n_candidates = len(results["params"])
        _LOG.info(
            "gpuml %s: %d candidates x %d folds (%d fitted in batches) on the %s "
            "in %.3f s%s",
            type(self).__name__,
            n_candidates,
            self.n_splits_,
            batched,
            "GPU" if data.xp is not np else "CPU",
            time.perf_counter() - started,
            " (the DataFrame read as one matrix)" if table_data is not None else "",
            extra={
                "gpuml_search": {
                    "candidates": n_candidates,
                    "folds": self.n_splits_,
                    "batched": batched,
                }
            },
        )
        return self

    def _refit(
        self,
        base_estimator,
        data: SearchData,
        context,
        metadata,
        table=None,
        table_data=None,
    ) -> None:
        """Fit the best candidate on all the data, where the search computed.

        Input with feature names (a DataFrame) is refitted as given, so the
        names are kept (a cuDF DataFrame on the device, by an estimator that
        takes device input), unless the search read a pandas DataFrame as
        one matrix (``table``, ``table_data``: ``_table.py``) and the best
        candidate can be refitted on it: then it is, and made what fitting
        on the DataFrame gives (the user's categories and names); otherwise
        the device-resident copy is used (for a text Pipeline, its documents
        as the search hashed them) and the fitted arrays are moved back to
        the family of ``X``. ``context`` is the refit's callback context:
        callbacks are propagated into the fit.
        """
        best = clone(base_estimator).set_params(**clone(self.best_params_, safe=False))
        planned = None
        if table_data is not None:
            planned = table.refit_plan(base_estimator, self.best_params_)
        named = hasattr(data.X, "columns")
        if planned is not None:
            best, configured = planned
            on_compute, as_given = True, False
            view = table_data.view(True)
        else:
            on_compute = accepts_device_input(best, data.X) and not named
            as_given = named and data.family == DEVICE and accepts_device_input(best)
            view = data.view(on_compute or as_given)
        X_fit = data.X if as_given else view.X
        start = time.perf_counter()
        with context.propagate_callback_context(best):
            context.call_on_fit_task_begin(
                estimator=self, X=data.X, y=data.y, metadata=metadata
            )
            # A text Pipeline refits from its documents as the search hashed
            # them (on the device); anything else from the data.
            reused = view.y is not None and refit_from_lead(best, view)
            if not reused and view.y is None:
                best.fit(X_fit, **view.fit_params)
            elif not reused:
                best.fit(X_fit, view.y, **view.fit_params)
        view.leads.clear()  # their device memory is not needed any more
        view.neighbours.clear()
        if reused or (on_compute and input_family(view.X) != data.family):
            move_fitted_to_family(best, data.family)
        if planned is not None:
            table.as_fitted_on_frame(best, configured)
        self.refit_time_ = time.perf_counter() - start
        self.best_estimator_ = best
        if hasattr(best, "feature_names_in_"):
            self.feature_names_in_ = best.feature_names_in_

    def score(self, X, y=None, **params):
        """scikit-learn's ``score``; a foreign scorer callable (``scorer_``
        as the user gave it) is called with host data and a host view of
        ``best_estimator_``, as during the search (scikit-learn's scorer
        objects read ``classes_`` with NumPy).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.
        y : array-like of shape (n_samples, n_output) or (n_samples,), default=None
            Target relative to X; None for unsupervised learning.
        **params : dict
            Parameters to be passed to the underlying scorer(s) (metadata
            routing).

        Returns
        -------
        score : float
            The score defined by ``scoring`` if provided, and the
            ``best_estimator_.score`` method otherwise.
        """
        scorer = getattr(self, "scorer_", None)
        if scorer is None or scorer is not self.scoring or isinstance(scorer, Scorer):
            return super().score(X, y, **params)  # (see _public_scorer)
        search = copy.copy(self)  # the same search, with the host fallback
        search.scorer_ = check_scoring(None, scorer)
        return super(_DeviceSearchMixin, search).score(X, y, **params)

    def _public_scorer(self, scorer):
        """``scorer_`` as scikit-learn exposes it (a dict for several metrics)."""
        if isinstance(scorer, MultimetricScorer):
            return scorer._scorers
        if callable(self.scoring) and not isinstance(self.scoring, Scorer):
            return self.scoring
        return scorer


_FIT_NOTE = """
    gpuml's version computes where the data lives: on a GPU, host data are
    copied there once for the whole search, every fold is indexed on the
    device, candidates that differ only in parameters an estimator can fit
    together (Ridge's ``alpha``) are fitted and scored as one batch, and
    only the scores come back, in one transfer. Estimators that are not
    gpuml's are fitted on host data, as scikit-learn would. See the
    user guide's "Hyperparameter search" page.

    With a Dask client the work is spread over its workers (one per GPU):
    the ``client`` parameter (a ``distributed.Client`` or a scheduler
    address), else the client of an active
    ``joblib.parallel_config(backend="dask")``, else the current client
    (as Dask's collections do: creating a ``distributed.Client`` makes it
    current, and searches then run on its cluster). ``client=False`` runs
    the search in this process whatever client is current. Each worker
    receives the data once and keeps them on its GPU; the best candidate is
    refitted in the calling process. See "Scaling out".
    The client is looked up when ``fit`` starts. ``clone`` keeps a
    ``client`` passed to the search (the same object: a clone has the same
    parameters); pickling drops a ``distributed.Client`` (a connection
    belongs to its process), so an unpickled search has ``client=None`` and
    uses the client current where it is fitted, or runs in process.

    Without a client, ``n_jobs`` and ``pre_dispatch`` spread host work over
    joblib workers (an estimator that is not gpuml's, fitted one candidate
    and split per task, as scikit-learn does; without a GPU, also gpuml's
    batched groups, one task per fold); device work stays in the calling
    process.
    scikit-learn 1.9's callbacks (``set_callbacks``) are called on
    scikit-learn's tasks.
"""


class GridSearchCV(_DeviceSearchMixin, sk.GridSearchCV):
    _parameter_constraints: dict = {
        **sk.GridSearchCV._parameter_constraints,
        "client": _DeviceSearchMixin._CLIENT_CONSTRAINT,
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        scoring=None,
        n_jobs=None,
        refit=True,
        cv=None,
        verbose=0,
        pre_dispatch="2*n_jobs",
        error_score=np.nan,
        return_train_score=False,
        client=None,
    ):
        super().__init__(
            estimator,
            param_grid,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            error_score=error_score,
            return_train_score=return_train_score,
        )
        self.client = client

    __doc__ = (
        "Exhaustive search over a parameter grid, on the compute device.\n\n"
        "    A drop-in replacement for :class:`sklearn.model_selection.GridSearchCV`"
        " (same parameters, attributes and results).\n"
        + _FIT_NOTE
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import GridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> search = GridSearchCV(Ridge(), {"alpha": np.logspace(-3, 3, 7)}, cv=5)
    >>> bool(search.fit(X, y).best_params_["alpha"] <= 10)
    True
    >>> sorted(search.cv_results_)[:3]
    ['mean_fit_time', 'mean_score_time', 'mean_test_score']
"""
    )


class RandomizedSearchCV(_DeviceSearchMixin, sk.RandomizedSearchCV):
    _parameter_constraints: dict = {
        **sk.RandomizedSearchCV._parameter_constraints,
        "client": _DeviceSearchMixin._CLIENT_CONSTRAINT,
    }

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        n_iter=10,
        scoring=None,
        n_jobs=None,
        refit=True,
        cv=None,
        verbose=0,
        pre_dispatch="2*n_jobs",
        random_state=None,
        error_score=np.nan,
        return_train_score=False,
        client=None,
    ):
        super().__init__(
            estimator,
            param_distributions,
            n_iter=n_iter,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            random_state=random_state,
            error_score=error_score,
            return_train_score=return_train_score,
        )
        self.client = client

    __doc__ = (
        "Randomized search over parameter settings, on the compute device.\n\n"
        "    A drop-in replacement for "
        ":class:`sklearn.model_selection.RandomizedSearchCV` (same parameters,"
        " attributes, sampled candidates for the same ``random_state``, and "
        "results).\n"
        + _FIT_NOTE
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import loguniform
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import RandomizedSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> search = RandomizedSearchCV(
    ...     Ridge(), {"alpha": loguniform(1e-3, 1e3)}, n_iter=8, random_state=0
    ... ).fit(X, y)
    >>> len(search.cv_results_["params"])
    8
"""
    )
