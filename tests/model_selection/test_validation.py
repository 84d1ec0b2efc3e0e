"""cross_validate, cross_val_score, cross_val_predict, validation_curve,
learning_curve and permutation_test_score: scikit-learn's results, computed
on the search's machinery."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.linear_model import SGDRegressor
from sklearn.model_selection import GroupKFold
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict
from sklearn.model_selection import cross_val_score as sk_cross_val_score
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.model_selection import learning_curve as sk_learning_curve
from sklearn.model_selection import (
    permutation_test_score as sk_permutation_test_score,
)
from sklearn.model_selection import validation_curve as sk_validation_curve
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler
from sklearn.svm import SVC

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import (
    cross_val_predict,
    cross_val_score,
    cross_validate,
    learning_curve,
    permutation_test_score,
    validation_curve,
)
from gpuml.preprocessing import StandardScaler
from tests.model_selection.test_search import classification, regression

ALPHAS = [1e-3, 1e-1, 1.0, 10.0, 1e3]
CS = [0.01, 0.1, 1.0, 10.0]


def _assert_curves_match(ours, theirs, atol=1e-6):
    for got, expected in zip(ours, theirs, strict=True):
        assert type(got) is np.ndarray and got.dtype == np.float64
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=0, atol=atol)


@pytest.mark.parametrize(
    "case",
    ["ridge", "logistic", "pipeline", "weighted", "groups", "scoring", "svc-n_jobs"],
)
def test_validation_curve_matches_sklearn(backend, rng, case):
    """Batched groups (Ridge's alpha, LogisticRegression's C, a Pipeline's
    final step), sample weights, group splitters, scorer names, and an
    estimator that is not gpuml's over joblib workers."""
    X, y = regression(rng)
    kwargs = {"param_name": "alpha", "param_range": ALPHAS}
    ours_estimator, their_estimator = Ridge(), SkRidge()
    ours_kwargs, their_kwargs = {}, {}
    if case in ("logistic", "svc-n_jobs"):
        X, y = classification(rng)
        kwargs = {"param_name": "C", "param_range": CS}
        ours_estimator, their_estimator = LogisticRegression(), SkLogisticRegression()
        if case == "svc-n_jobs":
            ours_estimator, their_estimator = SVC(), SVC()
            ours_kwargs = {"n_jobs": 2}
    elif case == "pipeline":
        kwargs = {"param_name": "ridge__alpha", "param_range": ALPHAS}
        ours_estimator = make_pipeline(StandardScaler(), Ridge())
        their_estimator = make_pipeline(SkStandardScaler(), SkRidge())
    elif case == "weighted":
        sw = rng.uniform(0.5, 2.0, len(y))
        ours_kwargs = {"params": {"sample_weight": backend.asarray(sw)}}
        their_kwargs = {"params": {"sample_weight": sw}}
    elif case == "groups":
        groups = rng.integers(0, 6, len(y))
        ours_kwargs = {"groups": backend.asarray(groups), "cv": GroupKFold(3)}
        their_kwargs = {"groups": groups, "cv": GroupKFold(3)}
    elif case == "scoring":
        kwargs["scoring"] = "neg_mean_absolute_error"
    theirs = sk_validation_curve(their_estimator, X, y, **kwargs, **their_kwargs)
    ours = validation_curve(
        ours_estimator,
        backend.asarray(X),
        backend.asarray(y),
        **kwargs,
        **ours_kwargs,
    )
    _assert_curves_match(ours, theirs)


def test_values_are_fitted_as_one_batch(backend, rng, monkeypatch):
    """All the alphas of all the folds: one batched fit (no fit per value)."""
    calls = []
    fit_batch = Ridge._fit_batch

    def counting(self, *args, **kwargs):
        calls.append(len(args[2]))
        return fit_batch(self, *args, **kwargs)

    def no_fit(self, *args, **kwargs):
        raise AssertionError("a value was fitted on its own")

    monkeypatch.setattr(Ridge, "_fit_batch", counting)
    monkeypatch.setattr(Ridge, "fit", no_fit)
    X, y = regression(rng)
    validation_curve(
        Ridge(),
        backend.asarray(X),
        backend.asarray(y),
        param_name="alpha",
        param_range=ALPHAS,
        error_score="raise",
    )
    assert calls == [len(ALPHAS)]


def test_failed_fits_get_error_score(rng):
    """A value whose fit fails gets ``error_score`` (silently, as in
    scikit-learn), or raises with ``error_score="raise"``."""
    X, y = classification(rng)
    kwargs = {"param_name": "l1_ratio", "param_range": [0.0, 0.5]}
    theirs = sk_validation_curve(
        SkLogisticRegression(), X, y, **kwargs, error_score=-1.0
    )
    ours = validation_curve(LogisticRegression(), X, y, **kwargs, error_score=-1.0)
    np.testing.assert_array_equal(ours[1][1], -1.0)
    np.testing.assert_allclose(ours[1][0], theirs[1][0], atol=1e-6)
    with pytest.raises(ValueError, match="got elasticnet penalty"):
        validation_curve(LogisticRegression(), X, y, **kwargs, error_score="raise")


def test_bad_parameters_are_refused(rng):
    X, y = regression(rng)
    with pytest.raises(InvalidParameterError, match="scoring"):
        validation_curve(
            Ridge(), X, y, param_name="alpha", param_range=ALPHAS, scoring="nope"
        )


def _assert_results_match(ours, theirs, backend, X_test, *, host_estimators=False):
    """``host_estimators``: the fitted estimators are scikit-learn's, fitted on
    host data whatever the family of X."""
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        if key.endswith("_time"):
            assert ours[key].shape == expected.shape
        elif key == "estimator":
            for got, fitted in zip(ours[key], expected, strict=True):
                if host_estimators:
                    pred = got.predict(X_test)
                    assert isinstance(pred, np.ndarray)
                else:
                    pred = got.predict(backend.asarray(X_test))
                    backend.assert_family(pred)
                np.testing.assert_allclose(
                    backend.to_numpy(pred), fitted.predict(X_test), atol=1e-6
                )
        elif key == "indices":
            for part in ("train", "test"):
                assert len(ours[key][part]) == len(expected[part])
                for a, b in zip(ours[key][part], expected[part], strict=True):
                    np.testing.assert_array_equal(a, b)
        else:
            assert ours[key].dtype == expected.dtype, key
            np.testing.assert_allclose(ours[key], expected, atol=1e-6)


@pytest.mark.parametrize(
    "case", ["default", "multimetric", "callables", "pipeline", "weighted", "svc"]
)
def test_cross_validate_matches_sklearn(backend, rng, case):
    """One metric or several, train scores, fitted estimators (in the family
    of X) and indices, Pipelines, fit parameters, and estimators that are not
    gpuml's over joblib workers."""
    X, y = regression(rng)
    ours_estimator, their_estimator = Ridge(alpha=3.0), SkRidge(alpha=3.0)
    kwargs = dict(
        cv=4, return_train_score=True, return_estimator=True, return_indices=True
    )
    ours_kwargs, their_kwargs = {}, {}
    if case == "multimetric":
        kwargs["scoring"] = ["r2", "neg_mean_absolute_error", "neg_max_error"]
    elif case == "callables":

        def max_residual(estimator, X, y):
            return float(np.max(np.abs(np.asarray(estimator.predict(X)) - y)))

        kwargs["scoring"] = {"r2": "r2", "max_residual": max_residual}
    elif case == "pipeline":
        ours_estimator = make_pipeline(StandardScaler(), Ridge())
        their_estimator = make_pipeline(SkStandardScaler(), SkRidge())
    elif case == "weighted":
        sw = rng.uniform(0.5, 2.0, len(y))
        ours_kwargs = {"params": {"sample_weight": backend.asarray(sw)}}
        their_kwargs = {"params": {"sample_weight": sw}}
    elif case == "svc":
        X, y = classification(rng)
        ours_estimator, their_estimator = SVC(), SVC()
        ours_kwargs = {"n_jobs": 2}
    theirs = sk_cross_validate(their_estimator, X, y, **kwargs, **their_kwargs)
    X_in = X if case == "callables" else backend.asarray(X)
    y_in = y if case == "callables" else backend.asarray(y)
    ours = cross_validate(ours_estimator, X_in, y_in, **kwargs, **ours_kwargs)
    _assert_results_match(ours, theirs, backend, X[:20], host_estimators=case == "svc")


def test_cross_val_score_matches_sklearn(backend, rng):
    X, y = classification(rng)
    for scoring in (None, "roc_auc", "neg_log_loss"):
        theirs = sk_cross_val_score(SkLogisticRegression(), X, y, scoring=scoring)
        ours = cross_val_score(
            LogisticRegression(),
            backend.asarray(X),
            backend.asarray(y),
            scoring=scoring,
        )
        assert type(ours) is np.ndarray and ours.dtype == np.float64
        np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_cross_validate_failures_as_sklearn(rng):
    """scikit-learn's FitFailedWarning, error_score, and the error when every
    fit fails or with ``error_score="raise"``."""
    X, y = classification(rng)
    failing = LogisticRegression(l1_ratio=0.5)
    with pytest.raises(ValueError, match="All the 5 fits failed"):
        cross_validate(failing, X, y)
    with pytest.raises(ValueError, match="got elasticnet penalty"):
        cross_validate(failing, X, y, error_score="raise")
    folds = [(np.arange(20, 150), np.arange(20)), (np.arange(130), np.arange(130, 150))]
    y_one_class = y.copy()
    y_one_class[20:] = 1  # the first fold's training rows have one class
    with pytest.warns(FitFailedWarning, match="1 fits failed out of a total of 2"):
        ours = cross_val_score(LogisticRegression(), X, y_one_class, cv=folds)
    with pytest.warns(FitFailedWarning, match="1 fits failed out of a total of 2"):
        theirs = sk_cross_val_score(SkLogisticRegression(), X, y_one_class, cv=folds)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours[1], theirs[1], atol=1e-6)


@pytest.mark.parametrize(
    "method", ["predict", "predict_proba", "predict_log_proba", "decision_function"]
)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_cross_val_predict_matches_sklearn(backend, rng, method, n_classes):
    """gpuml estimators predict each fold on the device, in the family of X."""
    X = rng.normal(size=(150, 4))
    y = np.argmax(X[:, :n_classes] + rng.normal(size=(150, n_classes)), axis=1)
    labels = np.array(["ant", "bee", "cat"])[:n_classes]
    expected = sk_cross_val_predict(
        make_pipeline(SkStandardScaler(), SkLogisticRegression()),
        X,
        labels[y],
        method=method,
    )
    ours = cross_val_predict(
        make_pipeline(StandardScaler(), LogisticRegression()),
        backend.asarray(X),
        labels[y] if method == "predict" else backend.asarray(y),
        method=method,
    )
    if method == "predict":
        assert type(ours) is np.ndarray  # string labels are host arrays
        assert ours.tolist() == expected.tolist()
        return
    backend.assert_family(ours, dtype=np.float64, shape=expected.shape)
    np.testing.assert_allclose(backend.to_numpy(ours), expected, atol=1e-5)


def test_cross_val_predict_regression_weights_and_foreign(backend, rng):
    X, y = regression(rng)
    sw = rng.uniform(0.5, 2.0, len(y))
    expected = sk_cross_val_predict(SkRidge(), X, y, params={"sample_weight": sw})
    ours = cross_val_predict(
        Ridge(),
        backend.asarray(X),
        backend.asarray(y),
        params={"sample_weight": backend.asarray(sw)},
    )
    backend.assert_family(ours, dtype=np.float64, shape=(len(y),))
    np.testing.assert_allclose(backend.to_numpy(ours), expected, atol=1e-8)
    X, y = classification(rng)
    expected = sk_cross_val_predict(SVC(), X, y, method="decision_function")
    ours = cross_val_predict(
        SVC(), backend.asarray(X), y, method="decision_function", n_jobs=2
    )
    np.testing.assert_allclose(ours, expected, atol=1e-8)


def test_cross_val_predict_fold_missing_a_class(rng):
    """scikit-learn's warning and columns when a training fold lacks a class."""
    X = rng.normal(size=(90, 3))
    y = np.repeat([0, 1, 2], 30)
    parts = [np.arange(0, 30), np.arange(30, 60), np.arange(60, 90)]
    folds = [  # every training fold lacks the class of its test rows
        (np.concatenate([p for j, p in enumerate(parts) if j != i]), parts[i])
        for i in range(3)
    ]
    message = "Number of classes in training fold"
    for method in ("predict_proba", "predict_log_proba"):
        with pytest.warns(RuntimeWarning, match=message):
            expected = sk_cross_val_predict(
                SkLogisticRegression(), X, y, cv=folds, method=method
            )
        with pytest.warns(RuntimeWarning, match=message):
            ours = cross_val_predict(
                LogisticRegression(), X, y, cv=folds, method=method
            )
        np.testing.assert_allclose(ours, expected, atol=1e-6)
    with pytest.raises(ValueError, match="only works for partitions"):
        cross_val_predict(
            Ridge(), X, y.astype(float), cv=[(np.arange(60), np.arange(30))]
        )


def _estimators(case, rng):
    """``(X, y, ours, theirs, ours_kwargs, their_kwargs)`` for a case shared
    by the learning-curve and permutation tests."""
    X, y = regression(rng)
    ours, theirs = Ridge(alpha=2.0), SkRidge(alpha=2.0)
    ours_kwargs, their_kwargs = {}, {}
    if case in ("logistic", "svc-n_jobs"):
        X, y = classification(rng)
        ours, theirs = LogisticRegression(C=0.5), SkLogisticRegression(C=0.5)
        if case == "svc-n_jobs":
            ours, theirs = SVC(), SVC()
            ours_kwargs = {"n_jobs": 2}
    elif case == "pipeline":
        ours = make_pipeline(StandardScaler(), Ridge())
        theirs = make_pipeline(SkStandardScaler(), SkRidge())
    elif case == "weighted":
        sw = rng.uniform(0.5, 2.0, len(y))
        ours_kwargs = {"params": {"sample_weight": sw}}
        their_kwargs = {"params": {"sample_weight": sw}}
    elif case == "groups":
        groups = rng.integers(0, 6, len(y))
        ours_kwargs = {"groups": groups, "cv": GroupKFold(3)}
        their_kwargs = {"groups": groups, "cv": GroupKFold(3)}
    elif case == "scoring":
        ours_kwargs = their_kwargs = {"scoring": "neg_mean_absolute_error"}
    return X, y, ours, theirs, ours_kwargs, their_kwargs


def _on(backend, kwargs):
    """``kwargs`` with sample-aligned arrays in the backend's family."""
    out = dict(kwargs)
    if "groups" in out:
        out["groups"] = backend.asarray(out["groups"])
    if "params" in out:
        out["params"] = {k: backend.asarray(v) for k, v in out["params"].items()}
    return out


@pytest.mark.parametrize(
    "case",
    ["ridge", "logistic", "pipeline", "weighted", "groups", "scoring", "svc-n_jobs"],
)
def test_learning_curve_matches_sklearn(backend, rng, case):
    """Fractions and absolute sizes, shuffled training sets, times, and the
    cases of the other helpers."""
    X, y, ours, theirs, ours_kwargs, their_kwargs = _estimators(case, rng)
    kwargs = {"train_sizes": [0.3, 0.65, 1.0]}
    if case in ("ridge", "svc-n_jobs"):
        kwargs = {
            "train_sizes": [40, 60, 90],
            "shuffle": True,
            "random_state": 7,
            "return_times": True,
        }
    expected = sk_learning_curve(theirs, X, y, **kwargs, **their_kwargs)
    got = learning_curve(
        ours,
        backend.asarray(X),
        backend.asarray(y),
        **kwargs,
        **_on(backend, ours_kwargs),
    )
    assert len(got) == len(expected)
    np.testing.assert_array_equal(got[0], expected[0])
    _assert_curves_match(got[1:3], expected[1:3])
    for ours_times, their_times in zip(got[3:], expected[3:], strict=True):
        assert ours_times.shape == their_times.shape
        assert np.all(ours_times >= 0)


def test_learning_curve_errors_and_incremental_learning(backend, rng):
    """scikit-learn's errors and warnings; ``exploit_incremental_learning``
    is scikit-learn's function on host data."""
    X, y = regression(rng)
    X_in, y_in = backend.asarray(X), backend.asarray(y)
    with pytest.raises(ValueError, match="must be within \\(0, 1\\]"):
        learning_curve(Ridge(), X_in, y_in, train_sizes=[0.5, 1.5])
    with pytest.raises(ValueError, match="partial_fit interface"):
        learning_curve(Ridge(), X_in, y_in, exploit_incremental_learning=True)
    with pytest.warns(RuntimeWarning, match="Removed duplicate entries"):
        sizes, _, _ = learning_curve(Ridge(), X_in, y_in, train_sizes=[10, 10, 20])
    np.testing.assert_array_equal(sizes, [10, 20])
    kwargs = dict(train_sizes=[0.5, 1.0], exploit_incremental_learning=True, cv=3)
    expected = sk_learning_curve(SGDRegressor(random_state=0), X, y, **kwargs)
    got = learning_curve(SGDRegressor(random_state=0), X_in, y_in, **kwargs)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "case", ["ridge", "logistic", "pipeline", "weighted", "groups", "svc-n_jobs"]
)
def test_permutation_test_score_matches_sklearn(backend, rng, case):
    """The same permutations (within groups too) and scores as scikit-learn."""
    X, y, ours, theirs, ours_kwargs, their_kwargs = _estimators(case, rng)
    kwargs = {"n_permutations": 6, "random_state": 3}
    expected = sk_permutation_test_score(theirs, X, y, **kwargs, **their_kwargs)
    score, permuted, pvalue = permutation_test_score(
        ours,
        backend.asarray(X),
        backend.asarray(y),
        **kwargs,
        **_on(backend, ours_kwargs),
    )
    assert isinstance(score, float) and isinstance(pvalue, float)
    assert score == pytest.approx(expected[0], abs=1e-6)
    assert type(permuted) is np.ndarray and permuted.shape == (6,)
    np.testing.assert_allclose(permuted, expected[1], rtol=0, atol=1e-6)
    assert pvalue == expected[2]


def test_permutation_test_score_raises(rng):
    """Fits are not caught (scikit-learn has no error_score here)."""
    X, y = classification(rng)
    with pytest.raises(ValueError, match="got elasticnet penalty"):
        permutation_test_score(LogisticRegression(l1_ratio=0.5), X, y, n_permutations=2)
    with pytest.raises(InvalidParameterError, match="n_permutations"):
        permutation_test_score(LogisticRegression(), X, y, n_permutations=0)
