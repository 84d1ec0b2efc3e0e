"""Cross-validation helpers that run on the search's machinery.

:func:`validation_curve` is scikit-learn's function of the same name, with
the search's evaluation underneath (``_search.evaluate``): the data are
copied to the compute device once, every fold is indexed there, and the
values of the varied parameter form one batched group where the estimator
can fit them together (Ridge's ``alpha``, LogisticRegression's ``C``), so a
validation curve over many values costs about one fit per fold. Work gpuml
cannot batch runs one value at a time, over ``n_jobs`` joblib workers for
host work, and through a Dask client when one is active, as a search's.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn import get_config as sk_get_config
from sklearn.base import clone, is_classifier
from sklearn.metrics import get_scorer_names
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_consistent_length

from gpuml._array import compute_namespace
from gpuml._sklearn_compat import (
    HasMethods,
    StrOptions,
    num_samples,
    validate_params,
)
from gpuml.metrics._scorer import check_scoring
from gpuml.model_selection._dask import search_client
from gpuml.model_selection._data import SearchData, download
from gpuml.model_selection._results import Options
from gpuml.model_selection._search import ROUTING_MESSAGE, _host_folds, evaluate


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
        Passed to the estimator's ``fit`` (split with the samples). Metadata
        routing is not supported yet.

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
    if sk_get_config().get("enable_metadata_routing", False):
        raise NotImplementedError(ROUTING_MESSAGE.format(name="validation_curve"))
    params = {} if params is None else dict(params)
    check_consistent_length(X, y, groups)
    y_host, groups = download(y), download(groups)
    cv = check_cv(cv, y_host, classifier=is_classifier(estimator))
    scorer = check_scoring(estimator, scoring)
    folds = _host_folds(cv, num_samples(X), y_host, groups)
    candidates = [{param_name: value} for value in param_range]
    options = Options(
        error_score=error_score,
        return_train_score=True,
        verbose=verbose,
        n_splits=len(folds),
        n_candidates=len(candidates),
    )
    data = SearchData(X, y, params, compute_namespace())
    with search_client() as client:
        out = evaluate(
            clone(estimator),
            candidates,
            data,
            folds,
            scorer,
            {},
            options,
            client,
            n_jobs=n_jobs,
            pre_dispatch=pre_dispatch,
        )
    shape = (len(candidates), len(folds))
    train = np.array([record["train_scores"] for record in out], dtype=np.float64)
    test = np.array([record["test_scores"] for record in out], dtype=np.float64)
    return train.reshape(shape), test.reshape(shape)
