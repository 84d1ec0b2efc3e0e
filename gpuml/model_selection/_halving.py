"""Successive-halving searches on the compute device.

:class:`HalvingGridSearchCV` and :class:`HalvingRandomSearchCV` are
scikit-learn's experimental classes of the same names (their parameters,
candidate schedule, ``_run_search`` and results) with the device-resident
``fit`` of gpuml's other searches underneath: the data are copied to the
device once for every iteration, each iteration's candidates are batched
where the estimator allows it (all the ``alpha`` values of a Ridge on the
iteration's subsample are one fit per fold), and the work goes through a
Dask client when one is active. scikit-learn's module is imported directly,
so using gpuml's classes does not need (nor perform)
``sklearn.experimental.enable_halving_search_cv``.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection._search_successive_halving import (
    HalvingGridSearchCV as _SkHalvingGridSearchCV,
)
from sklearn.model_selection._search_successive_halving import (
    HalvingRandomSearchCV as _SkHalvingRandomSearchCV,
)
from sklearn.model_selection._search_successive_halving import (
    _SubsampleMetaSplitter,
)
from sklearn.utils import check_random_state

from gpuml._sklearn_compat import fit_context, num_samples
from gpuml.model_selection._search import _FIT_NOTE, _DeviceSearchMixin, _host_folds


def subsample(indices: np.ndarray, fraction: float, random_state, permutations: dict):
    """``sklearn.utils.resample(indices, replace=False, n_samples=int(fraction
    * len(indices)), random_state=random_state)``, the same rows in the same
    order: the first rows of a shuffled ``arange``, drawn from the random
    state as ``resample`` draws them. An integer seed gives a fresh
    ``RandomState`` per call, hence one permutation per length, kept in
    ``permutations`` (a search keeps them for its whole fit: every iteration
    resamples folds of the same lengths). More rows than ``indices`` holds
    raise ``resample``'s ValueError."""
    n = len(indices)
    n_draws = int(fraction * n)
    if n_draws > n:
        # resample's error: more resources than samples (``max_resources``
        # above the number of samples) cannot be drawn without replacement.
        raise ValueError(
            f"Cannot sample {n_draws} out of arrays with dim {n} when replace is False"
        )
    if isinstance(random_state, (int, np.integer)):
        order = permutations.get(n)
        if order is None:
            order = permutations[n] = check_random_state(random_state).permutation(n)
    else:
        order = np.arange(n)
        check_random_state(random_state).shuffle(order)
    return indices[order[:n_draws]]


class _DeviceHalvingMixin(_DeviceSearchMixin):
    """What scikit-learn's ``BaseSuccessiveHalving.fit`` adds to a search's,
    and its iterations' folds without the repeated splitting."""

    def _host_folds(self, cv, n_samples, y, split_params) -> list:
        """scikit-learn's ``_SubsampleMetaSplitter`` folds, the same indices.

        The base splitter yields the same folds at every call (the halving
        searches check it), so it is split once per ``fit`` rather than once
        per iteration, and the subsamples are drawn by :func:`subsample`.
        """
        if type(cv) is not _SubsampleMetaSplitter:
            return super()._host_folds(cv, n_samples, y, split_params)
        cached = self.__dict__.get("_base_folds")
        if cached is None or cached[0] is not cv.base_cv:
            base = _host_folds(cv.base_cv, n_samples, y, split_params)
            # The permutations drawn from an integer seed depend on the
            # length only: every iteration reuses them.
            cached = self._base_folds = (cv.base_cv, base, {})
        _, base_folds, permutations = cached
        folds = []
        for train, test in base_folds:
            train = subsample(train, cv.fraction, cv.random_state, permutations)
            if cv.subsample_test:
                test = subsample(test, cv.fraction, cv.random_state, permutations)
            folds.append((train, test))
        return folds

    @fit_context(prefer_skip_nested_validation=False)  # estimator not validated
    def fit(self, X, y=None, **params):
        """Run the successive halving, on the compute device.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Host or device data; on a GPU, host data are copied there once.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), \
                default=None
        **params : dict of str -> object
            Routed as the other searches route them: ``groups`` to the
            splitter, the rest to the estimator's ``fit`` (``sample_weight``
            to the scorer too); with metadata routing, by the requests.

        Returns
        -------
        self : object
        """
        self._n_samples_orig = num_samples(X)
        try:
            super().fit(X, y, **params)
        finally:
            self.__dict__.pop("_base_folds", None)  # this fit's splits only
        # The refit picks the best of the last iteration, which the base
        # search does not score as best_score_.
        self.best_score_ = self.cv_results_["mean_test_score"][self.best_index_]
        return self


_HALVING_NOTE = """
    Experimental in scikit-learn (``sklearn.experimental``); gpuml's class
    can be imported without enabling it.
""" + _FIT_NOTE.replace(
    "\n    Without a client, ``n_jobs`` and ``pre_dispatch`` spread",
    "\n    Without a client, ``n_jobs`` spreads",
)


class HalvingGridSearchCV(_DeviceHalvingMixin, _SkHalvingGridSearchCV):
    _parameter_constraints: dict = {
        **_SkHalvingGridSearchCV._parameter_constraints,
        "client": _DeviceSearchMixin._CLIENT_CONSTRAINT,
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        factor=3,
        resource="n_samples",
        max_resources="auto",
        min_resources="exhaust",
        aggressive_elimination=False,
        cv=5,
        scoring=None,
        refit=True,
        error_score=np.nan,
        return_train_score=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
        client=None,
    ):
        super().__init__(
            estimator,
            param_grid,
            factor=factor,
            resource=resource,
            max_resources=max_resources,
            min_resources=min_resources,
            aggressive_elimination=aggressive_elimination,
            cv=cv,
            scoring=scoring,
            refit=refit,
            error_score=error_score,
            return_train_score=return_train_score,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.client = client

    __doc__ = (
        "Search over a parameter grid with successive halving, on the "
        "compute device.\n\n"
        "    A drop-in replacement for "
        ":class:`sklearn.model_selection.HalvingGridSearchCV` (same "
        "parameters, attributes, schedule of candidates and resources, and "
        "results).\n"
        + _HALVING_NOTE
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import Ridge
    >>> from gpuml.model_selection import HalvingGridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 5))
    >>> y = X @ np.arange(5.0) + rng.normal(size=600)
    >>> search = HalvingGridSearchCV(
    ...     Ridge(), {"alpha": np.logspace(-3, 3, 9)}, random_state=0
    ... ).fit(X, y)
    >>> search.n_candidates_, search.n_resources_
    ([9, 3, 1], [66, 198, 594])
"""
    )


class HalvingRandomSearchCV(_DeviceHalvingMixin, _SkHalvingRandomSearchCV):
    _parameter_constraints: dict = {
        **_SkHalvingRandomSearchCV._parameter_constraints,
        "client": _DeviceSearchMixin._CLIENT_CONSTRAINT,
    }

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        n_candidates="exhaust",
        factor=3,
        resource="n_samples",
        max_resources="auto",
        min_resources="smallest",
        aggressive_elimination=False,
        cv=5,
        scoring=None,
        refit=True,
        error_score=np.nan,
        return_train_score=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
        client=None,
    ):
        super().__init__(
            estimator,
            param_distributions,
            n_candidates=n_candidates,
            factor=factor,
            resource=resource,
            max_resources=max_resources,
            min_resources=min_resources,
            aggressive_elimination=aggressive_elimination,
            cv=cv,
            scoring=scoring,
            refit=refit,
            error_score=error_score,
            return_train_score=return_train_score,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.client = client

    __doc__ = (
        "Randomized search with successive halving, on the compute device.\n\n"
        "    A drop-in replacement for "
        ":class:`sklearn.model_selection.HalvingRandomSearchCV` (same "
        "parameters, attributes, sampled candidates for the same "
        "``random_state``, schedule and results).\n"
        + _HALVING_NOTE
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import loguniform
    >>> from gpuml.linear_model import LogisticRegression
    >>> from gpuml.model_selection import HalvingRandomSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 4))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    >>> search = HalvingRandomSearchCV(
    ...     LogisticRegression(), {"C": loguniform(1e-3, 1e2)}, random_state=0
    ... ).fit(X, y)
    >>> search.n_iterations_ == len(search.n_candidates_)
    True
"""
    )
