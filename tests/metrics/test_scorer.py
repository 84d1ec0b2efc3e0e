"""Scorers: scikit-learn's vocabulary, batched scoring, scikit-learn interop."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate

from gpuml import metrics
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import Ridge
from gpuml.metrics import check_scoring, get_scorer, get_scorer_names, make_scorer
from gpuml.metrics._scorer import binary_response

REGRESSION_NAMES = [
    n
    for n in get_scorer_names()
    if skm.get_scorer(n)._score_func.__module__ == "sklearn.metrics._regression"
]
MULTICLASS_ONLY = {
    "roc_auc_ovr",
    "roc_auc_ovo",
    "roc_auc_ovr_weighted",
    "roc_auc_ovo_weighted",
}
MULTILABEL_ONLY = {n for n in get_scorer_names() if n.endswith("_samples")}
# top_k_accuracy is meaningless (and warns) for two classes: tested as multiclass.
CLASSIFICATION_NAMES = [
    n
    for n in get_scorer_names()
    if n not in REGRESSION_NAMES
    and n not in MULTICLASS_ONLY | MULTILABEL_ONLY | {"top_k_accuracy"}
]


@pytest.fixture
def regression(rng):
    X = rng.normal(size=(120, 4))
    y = 20 + X @ rng.normal(size=4) + rng.normal(size=120)  # positive targets
    return Ridge(alpha=1.0).fit(X, y), X, y


def _classification(rng, n_classes):
    X = rng.normal(size=(150, 4))
    y = np.argmax(X[:, :n_classes] + rng.normal(size=(150, n_classes)), axis=1)
    return LogisticRegression().fit(X, y), X, y


@pytest.mark.parametrize("name", REGRESSION_NAMES)
def test_regression_scorers_match_sklearn(name, regression):
    model, X, y = regression
    scorer = get_scorer(name)
    assert scorer.batched
    assert scorer(model, X, y) == pytest.approx(
        skm.get_scorer(name)(model, X, y), rel=1e-10
    )


@pytest.mark.parametrize("name", CLASSIFICATION_NAMES)
def test_binary_classification_scorers_match_sklearn(name, rng):
    model, X, y = _classification(rng, 2)
    expected = skm.get_scorer(name)(model, X, y)
    assert get_scorer(name)(model, X, y) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    "name",
    [
        *sorted(MULTICLASS_ONLY),
        "accuracy",
        "f1_macro",
        "neg_log_loss",
        "top_k_accuracy",
        "matthews_corrcoef",
    ],
)
def test_multiclass_scorers_match_sklearn(name, rng):
    model, X, y = _classification(rng, 3)
    expected = skm.get_scorer(name)(model, X, y)
    assert get_scorer(name)(model, X, y) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    "metric, kwargs",
    [
        (skm.f1_score, {"average": "macro"}),
        (skm.precision_score, {"average": "weighted"}),
        (skm.jaccard_score, {"average": "micro"}),
    ],
)
@pytest.mark.parametrize("labels", [["ant", "bee", "cat"], [2, 5, 7]])
def test_default_pos_label_is_ignored_on_multiclass(metric, kwargs, labels, rng):
    """A scorer made from a metric whose default ``pos_label`` (1) is not one
    of the classes: as in scikit-learn, it only matters for binary problems."""
    _, X, y = _classification(rng, 3)
    y = np.asarray(labels)[y]
    model = LogisticRegression().fit(X, y)
    expected = skm.make_scorer(metric, **kwargs)(model, X, y)
    assert make_scorer(metric, **kwargs)(model, X, y) == pytest.approx(
        expected, rel=1e-10
    )


@pytest.mark.parametrize(
    "name", ["roc_auc", "average_precision", "f1_micro", "accuracy"]
)
def test_multilabel_scorers_match_sklearn(name, rng):
    """Multilabel classifiers whose predict_proba is a list of (n, 2) arrays
    (KNeighborsClassifier) or one (n, n_outputs) array (MLPClassifier)."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier

    X = rng.normal(size=(120, 4))
    Y = (X[:, :3] + rng.normal(size=(120, 3)) > 0).astype(np.int64)
    for model in (
        KNeighborsClassifier(n_neighbors=7).fit(X, Y),
        MLPClassifier(hidden_layer_sizes=(4,), max_iter=20, random_state=0),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, Y)
        expected = skm.get_scorer(name)(model, X, Y)
        assert get_scorer(name)(model, X, Y) == pytest.approx(expected, rel=1e-10)


def test_classifier_fitted_on_one_class_is_refused(rng):
    """Probabilities of one column cannot be scored as a binary problem:
    scikit-learn's error, single scorer and batched."""
    from sklearn.tree import DecisionTreeClassifier

    X = rng.normal(size=(30, 3))
    model = DecisionTreeClassifier().fit(X, np.zeros(30))
    y = np.r_[np.zeros(15), np.ones(15)]
    message = r"Got predict_proba of shape \(30, 1\), but need classifier with two"
    with pytest.raises(ValueError, match=message):
        skm.get_scorer("roc_auc")(model, X, y)
    with pytest.raises(ValueError, match=message):
        get_scorer("roc_auc")(model, X, y)
    with pytest.raises(ValueError, match=message):
        binary_response(
            np.ones((4, 30, 1)), "predict_proba", model.classes_, None, stacked=True
        )


def test_repr_matches_sklearn():
    """Reprs are scikit-learn's, also for a ``functools.partial`` metric."""
    partial_metric = functools.partial(skm.precision_score, pos_label=1)
    for ours, theirs in [
        (make_scorer(partial_metric), skm.make_scorer(partial_metric)),
        (
            make_scorer(
                skm.log_loss, greater_is_better=False, response_method="predict_proba"
            ),
            skm.make_scorer(
                skm.log_loss, greater_is_better=False, response_method="predict_proba"
            ),
        ),
        (get_scorer("f1_macro"), skm.get_scorer("f1_macro")),
        (
            check_scoring(None, ["accuracy", "r2"]),
            skm.check_scoring(None, ["accuracy", "r2"]),
        ),
    ]:
        assert repr(ours) == repr(theirs)


def test_native_and_fallback_scorers():
    assert get_scorer("roc_auc").batched and get_scorer("neg_log_loss").batched
    assert not get_scorer("adjusted_rand_score").batched  # computed on the host
    with pytest.raises(ValueError, match="'nope' is not a valid scoring value"):
        get_scorer("nope")


def test_make_scorer_maps_sklearn_metrics_to_gpuml(regression):
    model, X, y = regression
    scorer = make_scorer(skm.mean_absolute_error, greater_is_better=False)
    assert scorer.batched and scorer._score_func is metrics.mean_absolute_error
    assert scorer(model, X, y) == pytest.approx(
        -skm.mean_absolute_error(y, model.predict(X))
    )

    def custom(y_true, y_pred, offset=0.0):
        return float(np.mean(y_true - y_pred)) + offset

    own = make_scorer(custom, offset=1.0)
    assert not own.batched
    assert own(model, X, y) == pytest.approx(custom(y, model.predict(X), 1.0))
    assert repr(make_scorer(metrics.fbeta_score, beta=2)) == repr(
        skm.make_scorer(skm.fbeta_score, beta=2)
    )


@pytest.mark.parametrize(
    "name",
    ["r2", "neg_mean_squared_error", "neg_median_absolute_error", "explained_variance"],
)
def test_score_predictions_batches_regression(backend, rng, name):
    y = rng.normal(size=200) + 5
    preds = y + rng.normal(size=(6, 200)) * rng.uniform(0.1, 2, (6, 1))
    w = rng.uniform(0.5, 2, 200)
    scorer = get_scorer(name)
    scores = scorer.score_predictions(
        backend.asarray(y), backend.asarray(preds), sample_weight=backend.asarray(w)
    )
    backend.assert_family(scores, shape=(6,))
    sk_scorer = skm.get_scorer(name)
    expected = [
        sk_scorer._sign * sk_scorer._score_func(y, p, sample_weight=w) for p in preds
    ]
    np.testing.assert_allclose(backend.to_numpy(scores), expected, rtol=1e-10)


@pytest.mark.parametrize(
    "name",
    [
        "accuracy",
        "f1",
        "roc_auc",
        "neg_log_loss",
        "average_precision",
        "balanced_accuracy",
    ],
)
def test_score_predictions_batches_binary(backend, rng, name):
    y = (rng.random(300) < 0.4).astype(np.int64)
    proba = np.clip(rng.random((5, 300)) * 0.7 + 0.3 * y, 1e-6, 1 - 1e-6)
    sk_scorer = skm.get_scorer(name)
    preds = (
        (proba > 0.5).astype(np.int64)
        if sk_scorer._response_method == "predict"
        else proba
    )
    scores = get_scorer(name).score_predictions(
        backend.asarray(y), backend.asarray(preds)
    )
    backend.assert_family(scores, shape=(5,))
    expected = [sk_scorer._sign * sk_scorer._score_func(y, p) for p in preds]
    np.testing.assert_allclose(backend.to_numpy(scores), expected, rtol=1e-10)


def test_score_predictions_fallback_loops_on_host(rng):
    y = rng.integers(0, 3, 50)
    preds = rng.integers(0, 3, (4, 50))
    scores = get_scorer("adjusted_rand_score").score_predictions(y, preds)
    np.testing.assert_allclose(scores, [skm.adjusted_rand_score(y, p) for p in preds])


def test_check_scoring_rules(regression):
    model, X, y = regression
    assert check_scoring(model)(model, X, y) == pytest.approx(model.score(X, y))

    class FitOnly:
        def fit(self, X, y):
            return self

    assert check_scoring(FitOnly(), allow_none=True) is None
    with pytest.raises(TypeError, match="should have a 'score' method"):
        check_scoring(FitOnly())
    # scikit-learn's parameter validation: an estimator must have ``fit``.
    with pytest.raises(InvalidParameterError, match="'estimator' parameter"):
        check_scoring(object(), allow_none=True)
    with pytest.raises(ValueError, match="looks like it is a metric function"):
        check_scoring(model, scoring=metrics.r2_score)
    with pytest.raises(InvalidParameterError, match="'scoring' parameter"):
        check_scoring(model, scoring=3)
    with pytest.raises(ValueError, match="Duplicate elements were found"):
        check_scoring(model, scoring=["r2", "r2"])
    with pytest.raises(ValueError, match="An empty dict was passed"):
        check_scoring(model, scoring={})
    multi = check_scoring(model, scoring=["r2", "neg_mean_absolute_error"])
    scores = multi(model, X, y)
    assert scores == pytest.approx(
        {
            "r2": skm.r2_score(y, model.predict(X)),
            "neg_mean_absolute_error": -skm.mean_absolute_error(y, model.predict(X)),
        }
    )
    failing = check_scoring(
        model, scoring={"r2": "r2", "bad": "neg_log_loss"}, raise_exc=False
    )
    result = failing(model, X, y)
    assert isinstance(result["r2"], float) and "Traceback" in result["bad"]


def test_multimetric_predicts_once(regression):
    _model, X, y = regression
    calls = []

    class Counting(Ridge):
        def predict(self, X):
            calls.append(1)
            return super().predict(X)

    counting = Counting().fit(X, y)
    check_scoring(counting, scoring=["r2", "neg_mean_squared_error", "neg_max_error"])(
        counting, X, y
    )
    assert len(calls) == 1


def test_foreign_scorer_gets_host_data(backend, rng):
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    model = Ridge().fit(backend.asarray(X), backend.asarray(y))
    scorer = check_scoring(model, scoring=skm.get_scorer("r2"))
    assert scorer(model, backend.asarray(X), backend.asarray(y)) == pytest.approx(
        skm.r2_score(y, backend.to_numpy(model.predict(backend.asarray(X))))
    )


def test_scorers_in_sklearn_search_and_cross_validate(rng):
    X = rng.normal(size=(100, 5))
    y = X @ rng.normal(size=5) + rng.normal(size=100)
    grid = {"alpha": [0.1, 10.0, 1000.0]}
    ours = GridSearchCV(
        Ridge(), grid, scoring=get_scorer("neg_mean_squared_error"), cv=3
    ).fit(X, y)
    theirs = GridSearchCV(Ridge(), grid, scoring="neg_mean_squared_error", cv=3).fit(
        X, y
    )
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=1e-10,
    )
    result = cross_validate(
        Ridge(),
        X,
        y,
        cv=3,
        scoring={"r2": get_scorer("r2"), "mae": get_scorer("neg_mean_absolute_error")},
    )
    expected = cross_validate(
        Ridge(), X, y, cv=3, scoring=["r2", "neg_mean_absolute_error"]
    )
    np.testing.assert_allclose(result["test_r2"], expected["test_r2"], rtol=1e-10)
    np.testing.assert_allclose(
        result["test_mae"], expected["test_neg_mean_absolute_error"], rtol=1e-10
    )


@pytest.mark.gpu
def test_scorer_computes_on_the_device(rng):
    import cupy

    X, y = rng.normal(size=(60, 3)), rng.normal(size=60)
    model = Ridge().fit(cupy.asarray(X), cupy.asarray(y))
    scorer = get_scorer("r2")
    response = scorer.response(model, cupy.asarray(X))
    assert isinstance(response, cupy.ndarray)
    scores = scorer.score_predictions(cupy.asarray(y), response[None])
    assert isinstance(scores, cupy.ndarray)
    assert float(scores[0]) == pytest.approx(scorer(model, cupy.asarray(X), y))
