"""HalvingGridSearchCV and HalvingRandomSearchCV: scikit-learn's schedule and
results, computed on the device search's machinery."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import loguniform
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GroupKFold, KFold, StratifiedKFold
from sklearn.model_selection import HalvingGridSearchCV as SkHalvingGridSearchCV
from sklearn.model_selection import HalvingRandomSearchCV as SkHalvingRandomSearchCV
from sklearn.model_selection._search_successive_halving import _SubsampleMetaSplitter
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler
from sklearn.svm import SVC

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import HalvingGridSearchCV, HalvingRandomSearchCV
from gpuml.preprocessing import StandardScaler

ATTRIBUTES = (
    "n_candidates_",
    "n_resources_",
    "n_iterations_",
    "n_possible_iterations_",
    "n_required_iterations_",
    "min_resources_",
    "max_resources_",
    "n_splits_",
    "best_index_",
    "best_params_",
)


def _regression(rng, n_samples=900):
    X = rng.normal(size=(n_samples, 6)) * rng.uniform(0.5, 3.0, 6)
    y = X @ rng.normal(size=6) + 2.0 * rng.normal(size=n_samples)
    return X, y


def _classification(rng, n_samples=900):
    X = rng.normal(size=(n_samples, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n_samples) > 0).astype(np.int64)
    return X, y


def _assert_searches_match(ours, theirs, backend, X, atol=1e-6, host_estimator=False):
    """Same schedule, same cv_results_ (times aside), same best, and a
    refitted estimator in the family of X (on host data for an estimator that
    is not gpuml's, fitted on host data as scikit-learn's search would)."""
    for name in ATTRIBUTES:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=atol)
    assert sorted(ours.cv_results_) == sorted(theirs.cv_results_)
    for key, expected in theirs.cv_results_.items():
        got = ours.cv_results_[key]
        if key.endswith("_time"):
            assert np.shape(got) == np.shape(expected)
        elif key == "params":
            assert got == expected
        elif np.asarray(expected).dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=0, atol=atol, err_msg=key)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=key)
    if host_estimator:
        pred = ours.predict(X[:20])
        assert isinstance(pred, np.ndarray)
    else:
        pred = ours.predict(backend.asarray(X[:20]))
        backend.assert_family(pred)
    np.testing.assert_allclose(
        backend.to_numpy(pred), theirs.predict(X[:20]), rtol=0, atol=1e-5
    )


@pytest.mark.parametrize(
    "case", ["ridge", "logistic", "pipeline", "weighted", "groups", "max_iter", "svc"]
)
def test_halving_grid_search_matches_sklearn(backend, rng, case):
    """Subsampled folds (resource n_samples), an estimator parameter as the
    resource, Pipelines, sample weights, group splitters, and estimators that
    are not gpuml's."""
    X, y = _regression(rng)
    ours, theirs = Ridge(), SkRidge()
    grid = {"alpha": np.logspace(-2, 4, 12).tolist()}
    kwargs = {"random_state": 0}
    fit_params, their_params = {}, {}
    if case in ("logistic", "max_iter", "svc"):
        X, y = _classification(rng)
        ours, theirs = LogisticRegression(), SkLogisticRegression()
        grid = {"C": np.logspace(-3, 2, 10).tolist()}
        if case == "max_iter":
            kwargs.update(resource="max_iter", max_resources=60, min_resources=20)
        if case == "svc":
            ours, theirs = SVC(), SVC()
            kwargs["n_jobs"] = 2
    elif case == "pipeline":
        ours = make_pipeline(StandardScaler(), Ridge())
        theirs = make_pipeline(SkStandardScaler(), SkRidge())
        grid = {"ridge__alpha": grid["alpha"]}
    elif case == "weighted":
        sw = rng.uniform(0.5, 2.0, len(y))
        fit_params, their_params = (
            {"sample_weight": backend.asarray(sw)},
            {"sample_weight": sw},
        )
    elif case == "groups":
        groups = rng.integers(0, 8, len(y))
        kwargs["cv"] = GroupKFold(4)
        fit_params, their_params = (
            {"groups": backend.asarray(groups)},
            {"groups": groups},
        )
    expected = SkHalvingGridSearchCV(theirs, grid, **kwargs).fit(X, y, **their_params)
    got = HalvingGridSearchCV(ours, grid, **kwargs).fit(
        backend.asarray(X), backend.asarray(y), **fit_params
    )
    assert len(got.n_candidates_) > 1
    _assert_searches_match(got, expected, backend, X, host_estimator=case == "svc")


@pytest.mark.parametrize("min_resources", ["smallest", "exhaust", 100])
def test_halving_random_search_matches_sklearn(backend, rng, min_resources):
    """The same sampled candidates and schedule for the same random_state."""
    X, y = _classification(rng)
    distributions = {"C": loguniform(1e-3, 1e2)}
    kwargs = {"random_state": 3, "factor": 2, "min_resources": min_resources}
    if min_resources == "exhaust":
        kwargs["n_candidates"] = 12
    expected = SkHalvingRandomSearchCV(
        SkLogisticRegression(), distributions, **kwargs
    ).fit(X, y)
    got = HalvingRandomSearchCV(LogisticRegression(), distributions, **kwargs).fit(
        backend.asarray(X), backend.asarray(y)
    )
    _assert_searches_match(got, expected, backend, X)


def test_each_iteration_is_one_batch(backend, rng, monkeypatch):
    """An iteration's alphas over all its folds: one batched fit."""
    calls = []
    fit_batch = Ridge._fit_batch

    def counting(self, *args, **kwargs):
        calls.append(len(args[2]))
        return fit_batch(self, *args, **kwargs)

    monkeypatch.setattr(Ridge, "_fit_batch", counting)
    X, y = _regression(rng)
    search = HalvingGridSearchCV(
        Ridge(), {"alpha": np.logspace(-2, 4, 12).tolist()}, random_state=0
    ).fit(backend.asarray(X), backend.asarray(y))
    assert calls == search.n_candidates_


def test_halving_errors_are_sklearn_s(rng):
    X, y = _regression(rng)
    grid = {"alpha": [0.1, 1.0, 10.0]}
    with pytest.raises(ValueError, match="must yield consistent folds"):
        HalvingGridSearchCV(Ridge(), grid, cv=KFold(3, shuffle=True)).fit(X, y)
    with pytest.raises(ValueError, match="Cannot use resource=nope"):
        HalvingGridSearchCV(Ridge(), grid, resource="nope").fit(X, y)
    with pytest.raises(ValueError, match="Cannot use parameter alpha as the resource"):
        HalvingGridSearchCV(Ridge(), grid, resource="alpha", max_resources=10).fit(X, y)
    with pytest.raises(ValueError, match="min_resources_=1000 is greater than"):
        HalvingGridSearchCV(Ridge(), grid, min_resources=1000).fit(X, y)
    with pytest.raises(InvalidParameterError, match="scoring"):
        HalvingGridSearchCV(Ridge(), grid, scoring=["r2", "max_error"]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="client"):
        HalvingRandomSearchCV(Ridge(), grid, client=3).fit(X, y)


@pytest.mark.parametrize("seed", ["int", "instance", "none"])
@pytest.mark.parametrize("subsample_test", [True, False])
@pytest.mark.parametrize("base", ["kfold", "stratified", "groups"])
def test_iteration_folds_are_sklearn_s(rng, seed, subsample_test, base):
    """The subsampled folds of an iteration are scikit-learn's
    ``_SubsampleMetaSplitter`` folds, index for index, whatever the seed (the
    base folds split once, the permutations of an integer seed reused)."""
    n_samples = 503
    y = rng.integers(0, 3, n_samples)
    groups = rng.integers(0, 10, n_samples) if base == "groups" else None
    base_cv = {
        "kfold": KFold(4),
        "stratified": StratifiedKFold(3),
        "groups": GroupKFold(3),
    }[base]
    global_state = np.random.get_state()  # noqa: NPY002
    search = HalvingGridSearchCV(Ridge(), {"alpha": [1.0]})
    try:
        _compare_folds(search, base_cv, n_samples, y, groups, seed, subsample_test)
    finally:
        np.random.set_state(global_state)  # noqa: NPY002


def _compare_folds(search, base_cv, n_samples, y, groups, seed, subsample_test):
    for fraction in (0.1, 0.37, 1.0):

        def state():
            return {
                "int": 7,
                "instance": np.random.RandomState(7),
                "none": None,
            }[seed]

        splitter = _SubsampleMetaSplitter(
            base_cv=base_cv,
            fraction=fraction,
            subsample_test=subsample_test,
            random_state=state(),
        )
        # random_state=None draws from NumPy's global state: the same for both.
        np.random.seed(11)  # noqa: NPY002
        expected = list(splitter.split(np.zeros((n_samples, 1)), y, groups=groups))
        splitter.random_state = state()
        np.random.seed(11)  # noqa: NPY002
        got = search._host_folds(splitter, n_samples, y, {"groups": groups})
        assert len(got) == len(expected)
        for (train, test), (train_exp, test_exp) in zip(got, expected, strict=True):
            np.testing.assert_array_equal(train, train_exp)
            np.testing.assert_array_equal(test, test_exp)
