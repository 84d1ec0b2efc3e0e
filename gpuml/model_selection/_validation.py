"""Cross-validation helpers that run on the search's machinery.

:func:`cross_validate`, :func:`cross_val_score`, :func:`cross_val_predict`
and :func:`validation_curve` are scikit-learn's functions of the same names,
with the search's data layer and evaluation underneath (``_data.py``,
``_search.evaluate``): the data are copied to the compute device once, and
every fold is indexed, fitted and scored (or predicted) there. In
:func:`validation_curve` the values of the varied parameter form one batched
group where the estimator can fit them together (Ridge's ``alpha``,
LogisticRegression's ``C``), so a curve over many values costs about one fit
per fold. Work gpuml cannot batch runs one fit at a time, over ``n_jobs``
joblib workers for host work, and through a Dask client when one is active,
as a search's.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.metrics import get_scorer_names
from sklearn.model_selection import check_cv

# scikit-learn's own functions, bound once: they take the work gpuml does not.
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict
from sklearn.model_selection import learning_curve as sk_learning_curve
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import Bunch, check_random_state, get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import check_consistent_length

from gpuml._array import compute_namespace, namespace_of, to_family, to_host
from gpuml._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    enforce_prediction_order,
    insert_error_scores,
    num_samples,
    routing_enabled,
    shuffle_labels,
    translate_train_sizes,
    validate_params,
    warn_or_raise_about_fit_failures,
)
from gpuml.base import accepts_device_input, move_fitted_to_family
from gpuml.metrics._scorer import check_scoring
from gpuml.model_selection import _parallel
from gpuml.model_selection._dask import search_client
from gpuml.model_selection._data import SearchData, download, host_split_params, take
from gpuml.model_selection._results import Options, synchronize
from gpuml.model_selection._search import (
    _fold_indices,
    _placeholder,
    evaluate,
)
from gpuml.model_selection._table import TablePlan

# learning_curve's default training sizes (scikit-learn's).
TRAIN_SIZES = np.linspace(0.1, 1.0, 5)


def _checked_cv(cv, y, estimator):
    """scikit-learn's ``check_cv`` (only ``y`` reaches the host for it)."""
    return check_cv(cv, download(y), classifier=is_classifier(estimator))


def _refuse_groups_with_routing(groups) -> None:
    """scikit-learn's error: with routing, ``groups`` come in ``params``."""
    if groups is not None and routing_enabled():
        raise ValueError(
            "`groups` can only be passed if metadata routing is not enabled "
            "via `sklearn.set_config(enable_metadata_routing=True)`. When "
            "routing is enabled, pass `groups` alongside other metadata via "
            "the `params` argument instead."
        )


def _route(caller, cv, estimator, scorer, groups, params, *, fit_methods=("fit",)):
    """A helper's metadata, routed as scikit-learn's helper routes them.

    Returns scikit-learn's routing bunch: ``splitter.split`` (as host data),
    ``estimator.fit`` and ``scorer.score`` (``scorer`` None: the helper does
    not score). Without metadata routing, ``groups`` goes to the splitter,
    ``params`` to the estimator's ``fit`` and nothing to the scorer; with
    routing, ``groups`` must come in ``params`` and everything goes where it
    is requested, with scikit-learn's errors naming the helper.
    """
    _refuse_groups_with_routing(groups)
    params = {} if params is None else dict(params)
    if not routing_enabled():
        routed = Bunch(
            splitter=Bunch(split={"groups": groups}),
            estimator=Bunch(fit=params),
            scorer=Bunch(score={}),
        )
    else:
        estimator_mapping = MethodMapping()
        for method in fit_methods:
            estimator_mapping.add(caller="fit", callee=method)
        router = (
            MetadataRouter(owner=caller)
            .add(
                splitter=cv,
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
            .add(estimator=estimator, method_mapping=estimator_mapping)
        )
        if scorer is not None:
            router.add(
                scorer=scorer,
                method_mapping=MethodMapping().add(caller="fit", callee="score"),
            )
        try:
            routed = process_routing(router, "fit", **params)
        except UnsetMetadataPassedError as exc:
            # The user called the helper, not its fit: name the helper.
            raise UnsetMetadataPassedError(
                message=str(exc).replace(f"{caller}.fit", caller),
                unrequested_params=exc.unrequested_params,
                routed_params=exc.routed_params,
            ) from None
    routed.splitter.split = host_split_params(routed.splitter.split)
    if scorer is None:
        routed.scorer = Bunch(score={})
    return routed


def _splits(cv, X, y, split_params) -> tuple[list, list]:
    """``(splits, folds)``: the splitter's (train, test) pairs as it gave
    them, and as host index arrays. Only ``y`` and the splitter's metadata
    reach the host."""
    check_consistent_length(X, y, split_params.get("groups"))
    placeholder = _placeholder(num_samples(X))
    splits = list(cv.split(placeholder, download(y), **split_params))
    return splits, [
        (_fold_indices(train), _fold_indices(test)) for train, test in splits
    ]


def _prepare(caller, estimator, X, y, cv, scorer, groups, params, **route_kwargs):
    """What a helper starts from: ``(splits, folds, routed)``, the folds as
    the checked splitter gives them and as host indices, and the metadata
    routed by :func:`_route`."""
    cv = _checked_cv(cv, y, estimator)
    routed = _route(caller, cv, estimator, scorer, groups, params, **route_kwargs)
    return (*_splits(cv, X, y, routed.splitter.split), routed)


def _search_data(X, y, routed) -> SearchData:
    """The helper's data, with the metadata routed to the estimator's ``fit``
    and to the scorer."""
    return SearchData(
        X, y, routed.estimator.fit, compute_namespace(), routed.scorer.score
    )


def _table_or_given(estimator, candidates, X, y, routed, scoring):
    """``(estimator, data)``: a DataFrame read as one matrix by a Pipeline led
    by gpuml's ColumnTransformer with its columns as positions, where the
    scores cannot differ (``_table.py``), else the estimator and the data as
    given. Only for helpers that return scores, not fitted estimators."""
    data = _search_data(X, y, routed)
    plan = TablePlan.of(X, estimator, scoring)
    rewritten = plan and plan.rewrite(estimator, candidates)
    if rewritten is None or plan.matrix(data.xp) is None:
        return estimator, data
    matrix = plan.matrix(data.xp)
    return rewritten, SearchData(
        matrix, y, routed.estimator.fit, data.xp, routed.scorer.score
    )


def _evaluate(
    estimator, candidates, data, folds, scorer, options, n_jobs, pre_dispatch
):
    """The search's evaluation, through the active Dask client if any."""
    with search_client() as client:
        return evaluate(
            clone(estimator),
            candidates,
            data,
            folds,
            scorer,
            options,
            client,
            n_jobs=n_jobs,
            pre_dispatch=pre_dispatch,
        )


@validate_params(
    {
        "estimator": [HasMethods("fit")],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "groups": ["array-like", None],
        "scoring": [
            StrOptions(set(get_scorer_names())),
            callable,
            list,
            tuple,
            dict,
            None,
        ],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "params": [dict, None],
        "pre_dispatch": [Integral, str],
        "return_train_score": ["boolean"],
        "return_estimator": ["boolean"],
        "return_indices": ["boolean"],
        "error_score": [StrOptions({"raise"}), Real],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def cross_validate(
    estimator,
    X,
    y=None,
    *,
    groups=None,
    scoring=None,
    cv=None,
    n_jobs=None,
    verbose=0,
    params=None,
    pre_dispatch="2*n_jobs",
    return_train_score=False,
    return_estimator=False,
    return_indices=False,
    error_score=np.nan,
):
    """Scores (and fit and score times) of an estimator on each fold.

    :func:`sklearn.model_selection.cross_validate`, with the same signature
    and results, computed where the data live: on a GPU the data are copied
    there once, each fold is indexed on the device and each metric computed
    there for gpuml estimators; estimators that are not gpuml's are fitted on
    host data, over ``n_jobs`` joblib workers as in scikit-learn. With an
    active Dask client the folds go to its workers, as a search's work does.

    Parameters
    ----------
    estimator : estimator object
        Cloned for each fold.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Host or device data.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
    groups : array-like of shape (n_samples,), default=None
        Group labels, for a group splitter.
    scoring : str, callable, list, tuple or dict, default=None
        One metric (a name, or ``scorer(estimator, X, y)``), or several (a
        list of names, or a dict of names to scorers); None uses the
        estimator's ``score``.
    cv : int, cross-validation generator or iterable, default=None
    n_jobs : int, default=None
        joblib workers for the host work gpuml cannot batch.
    verbose : int, default=0
    params : dict, default=None
        Passed to the estimator's ``fit`` (split with the samples). With
        metadata routing, routed by the requests of the estimator, the
        scorer and the splitter (``groups`` then comes here), as in
        scikit-learn.
    pre_dispatch : int or str, default="2*n_jobs"
    return_train_score : bool, default=False
    return_estimator : bool, default=False
        Return each fold's fitted estimator, its fitted arrays in the family
        of ``X`` (as if fitted on ``X`` itself).
    return_indices : bool, default=False
        Return each fold's train and test indices, as the splitter gave them.
    error_score : "raise" or float, default=np.nan

    Returns
    -------
    scores : dict
        ``fit_time``, ``score_time``, ``test_score`` (``test_<name>`` for
        several metrics), ``train_*`` with ``return_train_score``,
        ``estimator`` and ``indices`` when asked for, as in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import cross_validate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> scores = cross_validate(Ridge(), X, y, cv=3, scoring=["r2", "neg_max_error"])
    >>> sorted(scores)
    ['fit_time', 'score_time', 'test_neg_max_error', 'test_r2']
    >>> scores["test_r2"].shape
    (3,)
    """
    scorer = check_scoring(estimator, scoring, raise_exc=error_score == "raise")
    splits, folds, routed = _prepare(
        "cross_validate", estimator, X, y, cv, scorer, groups, params
    )
    options = Options(
        error_score=error_score,
        return_train_score=return_train_score,
        verbose=verbose,
        n_splits=len(folds),
        n_candidates=1,
        return_estimator=return_estimator,
    )
    if return_estimator:  # fitted on the data as given
        data, evaluated = _search_data(X, y, routed), estimator
    else:
        evaluated, data = _table_or_given(estimator, [{}], X, y, routed, scoring)
    results = _evaluate(
        evaluated, [{}], data, folds, scorer, options, n_jobs, pre_dispatch
    )
    warn_or_raise_about_fit_failures(results, error_score)
    if callable(scoring):
        insert_error_scores(results, error_score)
    out = {
        "fit_time": np.array([r["fit_time"] for r in results]),
        "score_time": np.array([r["score_time"] for r in results]),
    }
    if return_estimator:
        for result in results:
            move_fitted_to_family(result["estimator"], data.family)
        out["estimator"] = [r["estimator"] for r in results]
    if return_indices:
        out["indices"] = {
            "train": tuple(train for train, _ in splits),
            "test": tuple(test for _, test in splits),
        }
    for kind in ("test", "train") if return_train_score else ("test",):
        scores = [r[f"{kind}_scores"] for r in results]
        if isinstance(scores[0], dict):
            for name in scores[0]:
                out[f"{kind}_{name}"] = np.array([s[name] for s in scores])
        else:
            out[f"{kind}_score"] = np.array(scores)
    return out


@validate_params(
    {
        "estimator": [HasMethods("fit")],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "groups": ["array-like", None],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "params": [dict, None],
        "pre_dispatch": [Integral, str, None],
        "error_score": [StrOptions({"raise"}), Real],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def cross_val_score(
    estimator,
    X,
    y=None,
    *,
    groups=None,
    scoring=None,
    cv=None,
    n_jobs=None,
    verbose=0,
    params=None,
    pre_dispatch="2*n_jobs",
    error_score=np.nan,
):
    """A score per fold: :func:`sklearn.model_selection.cross_val_score`,
    computed as :func:`cross_validate` computes it.

    Parameters are scikit-learn's (``scoring`` one metric: a name, a
    ``scorer(estimator, X, y)`` or None for the estimator's ``score``).

    Returns
    -------
    scores : ndarray of shape (n_folds,)

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import cross_val_score
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> cross_val_score(Ridge(), X, y, cv=4).shape
    (4,)
    """
    scorer = check_scoring(estimator, scoring)
    results = cross_validate(
        estimator,
        X,
        y,
        groups=groups,
        scoring={"score": scorer},
        cv=cv,
        n_jobs=n_jobs,
        verbose=verbose,
        params=params,
        pre_dispatch=pre_dispatch,
        error_score=error_score,
    )
    return results["test_score"]


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "param_name": [str],
        "param_range": ["array-like"],
        "groups": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        "n_jobs": [Integral, None],
        "pre_dispatch": [Integral, str],
        "verbose": ["verbose"],
        "error_score": [StrOptions({"raise"}), Real],
        "params": [dict, None],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def validation_curve(
    estimator,
    X,
    y,
    *,
    param_name,
    param_range,
    groups=None,
    cv=None,
    scoring=None,
    n_jobs=None,
    pre_dispatch="all",
    verbose=0,
    error_score=np.nan,
    params=None,
):
    """Training and test scores for varying values of one parameter.

    :func:`sklearn.model_selection.validation_curve`, with the same
    signature and results, computed where the data live: on a GPU the data
    are copied there once, and the values of ``param_name`` are fitted as one
    batch per fold when the estimator (or a Pipeline's final step) can fit
    them together (Ridge's ``alpha``, LogisticRegression's ``C``). Other
    estimators are fitted one value at a time, on host data for estimators
    that are not gpuml's (over ``n_jobs`` joblib workers, as in
    scikit-learn). With an active Dask client (a current
    ``distributed.Client`` or ``joblib.parallel_config(backend="dask")``) the
    work goes to its workers, as a search's does.

    Parameters
    ----------
    estimator : estimator object
        Cloned for each value and fold.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data: host or device.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs) or None
        Target relative to X; None for unsupervised learning.
    param_name : str
        The parameter that varies (``step__param`` inside a Pipeline).
    param_range : array-like of shape (n_values,)
        Its values.
    groups : array-like of shape (n_samples,), default=None
        Group labels, for a group splitter.
    cv : int, cross-validation generator or iterable, default=None
        As in scikit-learn (5-fold, stratified for classifiers).
    scoring : str or callable, default=None
        A scorer name or ``scorer(estimator, X, y)``; None uses the
        estimator's ``score``.
    n_jobs : int, default=None
        joblib workers for the host work gpuml cannot batch.
    pre_dispatch : int or str, default="all"
        Passed to ``joblib.Parallel`` with ``n_jobs``.
    verbose : int, default=0
        scikit-learn's progress lines from 2 up.
    error_score : "raise" or float, default=np.nan
        The score of a fit that fails; "raise" raises its error.
    params : dict, default=None
        Passed to the estimator's ``fit`` (split with the samples). With
        metadata routing, routed by the requests of the estimator, the
        scorer and the splitter (``groups`` then comes here), as in
        scikit-learn.

    Returns
    -------
    train_scores : ndarray of shape (n_values, n_folds)
        Scores on the training sets.
    test_scores : ndarray of shape (n_values, n_folds)
        Scores on the test sets.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import validation_curve
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> train, test = validation_curve(
    ...     Ridge(), X, y, param_name="alpha", param_range=[0.1, 10.0, 1000.0]
    ... )
    >>> train.shape, test.shape
    ((3, 5), (3, 5))
    >>> bool(test[0].mean() > test[2].mean())
    True
    """
    scorer = check_scoring(estimator, scoring)
    _, folds, routed = _prepare(
        "validation_curve", estimator, X, y, cv, scorer, groups, params
    )
    candidates = [{param_name: value} for value in param_range]
    options = Options(
        error_score=error_score,
        return_train_score=True,
        verbose=verbose,
        n_splits=len(folds),
        n_candidates=len(candidates),
    )
    evaluated, data = _table_or_given(estimator, candidates, X, y, routed, scoring)
    out = _evaluate(
        evaluated, candidates, data, folds, scorer, options, n_jobs, pre_dispatch
    )
    shape = (len(candidates), len(folds))
    train = np.array([record["train_scores"] for record in out], dtype=np.float64)
    test = np.array([record["test_scores"] for record in out], dtype=np.float64)
    return train.reshape(shape), test.reshape(shape)


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "groups": ["array-like", None],
        "train_sizes": ["array-like"],
        "cv": ["cv_object"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        "exploit_incremental_learning": ["boolean"],
        "n_jobs": [Integral, None],
        "pre_dispatch": [Integral, str],
        "verbose": ["verbose"],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "error_score": [StrOptions({"raise"}), Real],
        "return_times": ["boolean"],
        "params": [dict, None],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def learning_curve(
    estimator,
    X,
    y,
    *,
    groups=None,
    train_sizes=TRAIN_SIZES,
    cv=None,
    scoring=None,
    exploit_incremental_learning=False,
    n_jobs=None,
    pre_dispatch="all",
    verbose=0,
    shuffle=False,
    random_state=None,
    error_score=np.nan,
    return_times=False,
    params=None,
):
    """Training and test scores for growing training sets.

    :func:`sklearn.model_selection.learning_curve`, with the same signature
    and results, computed where the data live: on a GPU the data are copied
    there once, and every (fold, training size) pair is indexed, fitted and
    scored there. Estimators that are not gpuml's are fitted on host data,
    over ``n_jobs`` joblib workers as in scikit-learn; with an active Dask
    client the fits go to its workers, as a search's do.
    ``exploit_incremental_learning=True`` is scikit-learn's function itself
    (``partial_fit`` on host data).

    Parameters
    ----------
    estimator : estimator object
        Cloned for each fold and training size.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Host or device data.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs) or None
    groups : array-like of shape (n_samples,), default=None
        Group labels, for a group splitter.
    train_sizes : array-like of shape (n_ticks,), default=np.linspace(0.1, 1.0, 5)
        Training set sizes: fractions of the largest training set (floats in
        (0, 1]) or numbers of samples (ints); the first ``n`` samples of each
        fold's training set are used.
    cv : int, cross-validation generator or iterable, default=None
    scoring : str or callable, default=None
        A scorer name or ``scorer(estimator, X, y)``; None uses the
        estimator's ``score``.
    exploit_incremental_learning : bool, default=False
        Fit with ``partial_fit`` on growing slices (scikit-learn's function).
    n_jobs : int, default=None
        joblib workers for the host work gpuml cannot batch.
    pre_dispatch : int or str, default="all"
    verbose : int, default=0
    shuffle : bool, default=False
        Shuffle each fold's training indices before taking the first ``n``.
    random_state : int, RandomState instance or None, default=None
        Used with ``shuffle``, drawn from as scikit-learn does.
    error_score : "raise" or float, default=np.nan
    return_times : bool, default=False
        Also return fit and score times.
    params : dict, default=None
        Passed to the estimator's ``fit`` (split with the samples). With
        metadata routing, routed by the requests of the estimator, the
        scorer and the splitter (``groups`` then comes here), as in
        scikit-learn.

    Returns
    -------
    train_sizes_abs : ndarray of shape (n_unique_ticks,)
        The training set sizes used (duplicates removed).
    train_scores, test_scores : ndarray of shape (n_ticks, n_folds)
    fit_times, score_times : ndarray of shape (n_ticks, n_folds)
        With ``return_times`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import learning_curve
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=200)
    >>> sizes, train, test = learning_curve(Ridge(), X, y, train_sizes=[0.2, 1.0])
    >>> sizes.tolist(), train.shape, test.shape
    ([32, 160], (2, 5), (2, 5))
    """
    if exploit_incremental_learning:
        return sk_learning_curve(
            estimator,
            to_host(X) if hasattr(X, "shape") else X,
            download(y),
            groups=download(groups),
            train_sizes=train_sizes,
            cv=cv,
            scoring=scoring,
            exploit_incremental_learning=True,
            n_jobs=n_jobs,
            pre_dispatch=pre_dispatch,
            verbose=verbose,
            shuffle=shuffle,
            random_state=random_state,
            error_score=error_score,
            return_times=return_times,
            params={k: download(v) for k, v in (params or {}).items()},
        )
    scorer = check_scoring(estimator, scoring)
    _, folds, routed = _prepare(
        "learning_curve",
        estimator,
        X,
        y,
        cv,
        scorer,
        groups,
        params,
        fit_methods=("fit", "partial_fit"),
    )
    sizes = translate_train_sizes(train_sizes, len(folds[0][0]))
    if verbose > 0:
        print("[learning_curve] Training set sizes: " + str(sizes))
    if shuffle:
        rng = check_random_state(random_state)
        folds = [(rng.permutation(train), test) for train, test in folds]
    # Fold-major, as scikit-learn orders its fits.
    pairs = [(train[:size], test) for train, test in folds for size in sizes]
    options = Options(
        error_score=error_score,
        return_train_score=True,
        verbose=verbose,
        n_splits=len(pairs),
        n_candidates=1,
    )
    data = _search_data(X, y, routed)
    results = _evaluate(
        estimator, [{}], data, pairs, scorer, options, n_jobs, pre_dispatch
    )
    warn_or_raise_about_fit_failures(results, error_score)

    def table(key):
        values = np.array([r[key] for r in results], dtype=np.float64)
        return values.reshape(-1, len(sizes)).T

    out = sizes, table("train_scores"), table("test_scores")
    if return_times:
        out += (table("fit_time"), table("score_time"))
    return out


@validate_params(
    {
        "estimator": [HasMethods("fit")],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "groups": ["array-like", None],
        "cv": ["cv_object"],
        "n_permutations": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        "params": [dict, None],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def permutation_test_score(
    estimator,
    X,
    y,
    *,
    groups=None,
    cv=None,
    n_permutations=100,
    n_jobs=None,
    random_state=0,
    verbose=0,
    scoring=None,
    params=None,
):
    """The significance of a cross-validated score, by permuting ``y``.

    :func:`sklearn.model_selection.permutation_test_score`, with the same
    signature and results (the same permutations for the same
    ``random_state``), computed where the data live: ``X`` is copied to the
    compute device once and each permutation of ``y`` is made there by
    indexing, so a test costs ``n_permutations + 1`` cross-validations and
    no further copies of ``X``. Estimators that are not gpuml's are fitted on
    host data, over ``n_jobs`` joblib workers as in scikit-learn.

    Parameters
    ----------
    estimator : estimator object
        Cloned for each fit.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Host or device data.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs) or None
    groups : array-like of shape (n_samples,), default=None
        Labels that constrain the permutations to within groups (and feed a
        group splitter).
    cv : int, cross-validation generator or iterable, default=None
    n_permutations : int, default=100
    n_jobs : int, default=None
        joblib workers for the host work gpuml cannot batch.
    random_state : int, RandomState instance or None, default=0
        Draws the permutations, as in scikit-learn.
    verbose : int, default=0
    scoring : str or callable, default=None
        A scorer name or ``scorer(estimator, X, y)``; None uses the
        estimator's ``score``.
    params : dict, default=None
        Passed to the estimator's ``fit`` (split with the samples, not
        permuted). With metadata routing, routed by the requests of the
        estimator, the scorer and the splitter, as in scikit-learn.

    Returns
    -------
    score : float
        The mean cross-validated score on the true labels.
    permutation_scores : ndarray of shape (n_permutations,)
        The mean score for each permutation.
    pvalue : float
        ``(C + 1) / (n_permutations + 1)``, with ``C`` the number of
        permutations scoring at least ``score``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LogisticRegression
    >>> from gpuml.model_selection import permutation_test_score
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> score, permuted, pvalue = permutation_test_score(
    ...     LogisticRegression(), X, y, n_permutations=9
    ... )
    >>> permuted.shape, bool(score > permuted.max()), float(pvalue)
    ((9,), True, 0.1)
    """
    _refuse_groups_with_routing(groups)  # first, as scikit-learn
    check_consistent_length(X, y, groups)
    splitter = _checked_cv(cv, y, estimator)
    scorer = check_scoring(estimator, scoring)
    routed = _route(
        "permutation_test_score", splitter, estimator, scorer, groups, params
    )
    random_state = check_random_state(random_state)
    xp = compute_namespace()
    # X travels once: every permutation shares the view that holds it.
    view = _search_data(X, y, routed).view(accepts_device_input(estimator, X))
    groups_host = download(groups)
    n_samples = num_samples(X)

    def mean_score(labels):
        _, folds = _splits(splitter, view.X, labels, routed.splitter.split)
        options = Options(
            error_score="raise",  # as scikit-learn, which fits without catching
            return_train_score=False,
            verbose=verbose,
            n_splits=len(folds),
            n_candidates=1,
        )
        data = SearchData(view.X, labels, view.fit_params, xp, view.score_params)
        results = _evaluate(
            estimator, [{}], data, folds, scorer, options, n_jobs, "2*n_jobs"
        )
        return float(np.mean([r["test_scores"] for r in results]))

    def permuted():
        """``y`` permuted where it lives; the order drawn as scikit-learn's
        ``_shuffle`` draws it (its draws depend on the length and groups
        only)."""
        order = shuffle_labels(np.arange(n_samples), groups_host, random_state)
        return take(view.y, order)  # not view.take: no index copy to keep

    score = mean_score(view.y)
    permutation_scores = np.array(
        [mean_score(permuted()) for _ in range(n_permutations)]
    )
    pvalue = (np.sum(permutation_scores >= score) + 1.0) / (n_permutations + 1)
    return score, permutation_scores, pvalue


_ENCODED = ("decision_function", "predict_proba", "predict_log_proba")


@validate_params(
    {
        "estimator": [HasMethods(["fit", "predict"])],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", "sparse matrix", None],
        "groups": ["array-like", None],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "params": [dict, None],
        "pre_dispatch": [Integral, str, None],
        "method": [StrOptions({"predict", *_ENCODED})],
    },
    prefer_skip_nested_validation=False,  # the estimator is not validated yet
)
def cross_val_predict(
    estimator,
    X,
    y=None,
    *,
    groups=None,
    cv=None,
    n_jobs=None,
    verbose=0,
    params=None,
    pre_dispatch="2*n_jobs",
    method="predict",
):
    """Each sample's prediction by the estimator fitted without its fold.

    :func:`sklearn.model_selection.cross_val_predict`, with the same
    signature and results. For gpuml estimators the data are copied to the
    compute device once, each fold is indexed and predicted there, and the
    predictions come back in the family of ``X`` (device in, device out).
    Other estimators, and gpuml's own with ``n_jobs`` and no GPU, go through
    scikit-learn's function itself (host data, joblib workers).

    Parameters are scikit-learn's; ``method`` is ``"predict"``,
    ``"predict_proba"``, ``"predict_log_proba"`` or ``"decision_function"``;
    with metadata routing, ``params`` go to the estimator's ``fit`` and the
    splitter by their requests, as in scikit-learn.

    Returns
    -------
    predictions : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Or (n_samples, n_classes) for the class-wise methods, with scikit-
        learn's columns (and fill values) when a fold lacks a class.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LogisticRegression
    >>> from gpuml.model_selection import cross_val_predict
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> proba = cross_val_predict(LogisticRegression(), X, y, method="predict_proba")
    >>> proba.shape
    (200, 2)
    """
    params = {} if params is None else dict(params)
    xp = compute_namespace()
    y_host = download(y)
    encode = method in _ENCODED and y is not None
    on_device = accepts_device_input(estimator, X) and not (
        xp is np and _parallel.wants_workers(n_jobs)
    )
    if not on_device or (encode and np.ndim(y_host) != 1):
        return sk_cross_val_predict(
            estimator,
            to_host(X) if hasattr(X, "shape") else X,
            y_host,
            groups=download(groups),
            cv=cv,
            n_jobs=n_jobs,
            verbose=verbose,
            params={k: download(v) for k, v in params.items()},
            pre_dispatch=pre_dispatch,
            method=method,
        )
    _, folds, routed = _prepare(
        "cross_val_predict", estimator, X, y, cv, None, groups, params
    )
    n_samples = num_samples(X)
    order = np.concatenate([test for _, test in folds])
    if np.sort(order).tolist() != list(range(n_samples)):
        raise ValueError("cross_val_predict only works for partitions")
    n_classes = None
    if encode:
        y = LabelEncoder().fit_transform(y_host)
        n_classes = len(set(y.tolist()))
    data = _search_data(X, y, routed)
    view = data.view(True)
    pairwise = get_tags(estimator).input_tags.pairwise
    predictions = []
    for train, test in folds:
        X_train, y_train, fit_params = view.rows(
            train, pairwise_with=train if pairwise else None
        )
        X_test, _, _ = view.rows(test, pairwise_with=train if pairwise else None)
        fitted = clone(estimator)
        if y_train is None:
            fitted.fit(X_train, **fit_params)
        else:
            fitted.fit(X_train, y_train, **fit_params)
        prediction = getattr(fitted, method)(X_test)
        if encode and len(fitted.classes_) != n_classes:
            prediction = namespace_of(prediction).asarray(
                enforce_prediction_order(
                    to_host(fitted.classes_), to_host(prediction), n_classes, method
                )
            )
        predictions.append(prediction)
    synchronize(view.xp)
    px = namespace_of(predictions[0])
    inverse = np.empty(n_samples, dtype=np.int64)
    inverse[order] = np.arange(n_samples)
    stacked = px.concatenate(predictions)[px.asarray(inverse)]
    if stacked.dtype.kind not in "biufc":
        return stacked  # labels that only the host holds (strings)
    return to_family(stacked, data.family)
