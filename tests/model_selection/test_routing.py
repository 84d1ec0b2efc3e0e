"""Metadata routing (``sklearn.set_config(enable_metadata_routing=True)``).

With routing on, gpuml's searches and cross-validation helpers send each
metadata where the estimator, the scorers and the splitter request it, as
scikit-learn's do: scikit-learn's search or helper around scikit-learn's
estimators with the same requests is the oracle, on every backend (the
metadata travel with the data, so on a GPU they are device arrays too).
The scorers' own routing API is checked against scikit-learn's behaviour.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from sklearn import config_context as sk_config_context
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.metrics import get_scorer as sk_get_scorer
from sklearn.metrics import make_scorer as sk_make_scorer
from sklearn.metrics import r2_score as sk_r2_score
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import GroupKFold
from sklearn.model_selection import HalvingGridSearchCV as SkHalvingGridSearchCV
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.model_selection import learning_curve as sk_learning_curve
from sklearn.model_selection import (
    permutation_test_score as sk_permutation_test_score,
)
from sklearn.model_selection import validation_curve as sk_validation_curve
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping

from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.metrics import f1_score, get_scorer, make_scorer
from gpuml.metrics._scorer import MultimetricScorer
from gpuml.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    cross_val_predict,
    cross_validate,
    learning_curve,
    permutation_test_score,
    validation_curve,
)
from gpuml.preprocessing import StandardScaler
from tests.model_selection.test_search import (
    assert_results_match,
    classification,
    regression,
)

ALPHAS = [1e-3, 1e-1, 1.0, 10.0, 1e3]


@pytest.fixture(autouse=True)
def routing():
    with sk_config_context(enable_metadata_routing=True):
        yield


def _metadata(rng, n_samples):
    """Weights for fitting, other weights for scoring, and 5 groups."""
    return (
        rng.uniform(0.2, 3.0, n_samples),
        rng.uniform(0.5, 2.0, n_samples),
        np.repeat(np.arange(5), -(-n_samples // 5))[:n_samples],
    )


def _r2(package, request):
    scorer = (get_scorer if package == "gpuml" else sk_get_scorer)("r2")
    return scorer.set_score_request(sample_weight=request)


# --------------------------------------------------------------------------
# Searches
# --------------------------------------------------------------------------


@pytest.mark.parametrize("scorer_kind", ["gpuml", "sklearn-scorer"])
def test_search_routes_weights_to_fit_and_scorer(
    backend, rng, scorer_kind, monkeypatch
):
    """Batched candidates scored by gpuml's scorers, and one-by-one
    candidates scored by a scikit-learn scorer object (host scoring)."""
    batches = []
    real = Ridge._fit_batch

    def counting(self, *args, **kwargs):
        batches.append(kwargs["sample_weight"] is not None)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Ridge, "_fit_batch", counting)
    X, y = regression(rng)
    fit_w, _, _ = _metadata(rng, len(y))
    grid = {"alpha": ALPHAS, "fit_intercept": [True, False]}
    ours_scoring = _r2("gpuml" if scorer_kind == "gpuml" else "sklearn", True)
    theirs = SkGridSearchCV(
        SkRidge().set_fit_request(sample_weight=True),
        grid,
        scoring=_r2("sklearn", True),
        cv=4,
        return_train_score=True,
    ).fit(X, y, sample_weight=fit_w)
    ours = GridSearchCV(
        Ridge().set_fit_request(sample_weight=True),
        grid,
        scoring=ours_scoring,
        cv=4,
        return_train_score=True,
    ).fit(backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(fit_w))
    assert_results_match(ours, theirs)
    np.testing.assert_allclose(
        backend.to_numpy(ours.best_estimator_.coef_),
        theirs.best_estimator_.coef_,
        atol=1e-8,
    )
    # routed weights keep the alphas batched (one batch per fit_intercept)
    assert batches == ([True, True] if scorer_kind == "gpuml" else [])


def test_search_routes_aliases_groups_and_per_metric_requests(backend, rng):
    """Aliased fit and score weights, a metric that declines them, and
    ``groups`` for the splitter, all from ``fit``'s keyword arguments."""
    X, y = classification(rng, n_samples=160)
    fit_w, score_w, groups = _metadata(rng, len(y))

    def search(package):
        gpu = package == "gpuml"
        model = (LogisticRegression if gpu else SkLogisticRegression)()
        scorer_of = get_scorer if gpu else sk_get_scorer
        scoring = {
            "accuracy": scorer_of("accuracy").set_score_request(
                sample_weight="score_w"
            ),
            "neg_log_loss": scorer_of("neg_log_loss").set_score_request(
                sample_weight=False
            ),
        }
        return (GridSearchCV if gpu else SkGridSearchCV)(
            model.set_fit_request(sample_weight="fit_w"),
            {"C": [0.01, 0.1, 1.0, 10.0]},
            scoring=scoring,
            refit="neg_log_loss",
            cv=GroupKFold(4),
        )

    theirs = search("sklearn").fit(X, y, fit_w=fit_w, score_w=score_w, groups=groups)
    on = backend.asarray
    ours = search("gpuml").fit(
        on(X), on(y), fit_w=on(fit_w), score_w=on(score_w), groups=on(groups)
    )
    assert_results_match(ours, theirs)


@pytest.mark.parametrize("scaler_request", [True, False])
def test_pipeline_search_routes_to_the_steps_that_request(backend, rng, scaler_request):
    """The transformer prefix (fitted once per fold) and the batched final
    step each get the metadata they request."""
    X, y = regression(rng)
    fit_w, score_w, _ = _metadata(rng, len(y))
    grid = {"ridge__alpha": ALPHAS, "standardscaler__with_std": [True, False]}

    def search(gpu: bool):
        scaler, ridge, search_cls, scorer_of = (
            (StandardScaler, Ridge, GridSearchCV, get_scorer)
            if gpu
            else (SkStandardScaler, SkRidge, SkGridSearchCV, sk_get_scorer)
        )
        return search_cls(
            make_pipeline(
                scaler().set_fit_request(sample_weight=scaler_request),
                ridge().set_fit_request(sample_weight=True),
            ),
            grid,
            scoring=scorer_of("r2").set_score_request(sample_weight="score_w"),
            cv=3,
        )

    theirs = search(gpu=False).fit(X, y, sample_weight=fit_w, score_w=score_w)
    on = backend.asarray
    ours = search(gpu=True).fit(
        on(X), on(y), sample_weight=on(fit_w), score_w=on(score_w)
    )
    assert_results_match(ours, theirs)


def test_passthrough_scoring_routes_to_the_estimators_score(backend, rng):
    """``scoring=None``: the estimator's ``score`` gets what it requests."""
    X, y = regression(rng)
    fit_w, score_w, _ = _metadata(rng, len(y))

    def model(cls):
        return (
            cls()
            .set_fit_request(sample_weight="fit_w")
            .set_score_request(sample_weight="score_w")
        )

    theirs = SkGridSearchCV(model(SkRidge), {"alpha": ALPHAS}, cv=3).fit(
        X, y, fit_w=fit_w, score_w=score_w
    )
    on = backend.asarray
    ours = GridSearchCV(model(Ridge), {"alpha": ALPHAS}, cv=3).fit(
        on(X), on(y), fit_w=on(fit_w), score_w=on(score_w)
    )
    assert_results_match(ours, theirs)


def test_halving_search_routes_metadata(backend, rng):
    X, y = regression(rng, n_samples=240)
    fit_w, _, _ = _metadata(rng, len(y))
    kwargs = dict(cv=3, factor=2, min_resources=60, random_state=0)
    theirs = SkHalvingGridSearchCV(
        SkRidge().set_fit_request(sample_weight=True),
        {"alpha": np.logspace(-3, 3, 8)},
        scoring=_r2("sklearn", True),
        **kwargs,
    ).fit(X, y, sample_weight=fit_w)
    ours = HalvingGridSearchCV(
        Ridge().set_fit_request(sample_weight=True),
        {"alpha": np.logspace(-3, 3, 8)},
        scoring=_r2("gpuml", True),
        **kwargs,
    ).fit(backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(fit_w))
    assert_results_match(ours, theirs)
    assert ours.n_resources_ == theirs.n_resources_


def _error(call, *args, **kwargs) -> Exception:
    with pytest.raises(Exception) as info:
        call(*args, **kwargs)
    return info.value


def test_unrequested_metadata_raise_sklearns_errors(rng):
    """The same errors as scikit-learn's search: raised by the search's own
    routing, or (a Pipeline step's request) by every fit, reported as all
    fits failing with the routing error (gpuml's report also names the
    failing candidates)."""
    X, y = regression(rng)
    fit_w, _, groups = _metadata(rng, len(y))
    weighted = Ridge().set_fit_request(sample_weight=True)
    sk_weighted = SkRidge().set_fit_request(sample_weight=True)
    cases = [
        # the estimator was not told whether to take sample_weight
        (Ridge(), SkRidge(), {"sample_weight": fit_w}),
        # nobody takes groups: KFold does not
        (Ridge(), SkRidge(), {"groups": groups}),
        # a Pipeline step was not told
        (
            make_pipeline(StandardScaler(), weighted),
            make_pipeline(SkStandardScaler(), sk_weighted),
            {"sample_weight": fit_w},
        ),
    ]
    for ours_model, their_model, params in cases:
        grid = {"ridge__alpha" if hasattr(ours_model, "steps") else "alpha": ALPHAS}
        theirs = _error(SkGridSearchCV(their_model, grid).fit, X, y, **params)
        ours = _error(GridSearchCV(ours_model, grid).fit, X, y, **params)
        assert type(ours) is type(theirs)
        if "fits failed" in str(theirs):
            cause = str(theirs).strip().splitlines()[-1]
            assert "All the 25 fits failed" in str(ours) and cause in str(ours)
        else:
            assert str(ours) == str(theirs)


def test_routing_off_keeps_the_classic_rules(backend, rng):
    """Without routing, requests are not needed: sample_weight goes to fit
    and to the scorers that accept it, groups to the splitter."""
    X, y = regression(rng)
    fit_w, _, groups = _metadata(rng, len(y))
    with sk_config_context(enable_metadata_routing=False):
        theirs = SkGridSearchCV(
            SkRidge(), {"alpha": ALPHAS}, scoring="r2", cv=GroupKFold(3)
        ).fit(X, y, sample_weight=fit_w, groups=groups)
        ours = GridSearchCV(
            Ridge(), {"alpha": ALPHAS}, scoring="r2", cv=GroupKFold(3)
        ).fit(
            backend.asarray(X),
            backend.asarray(y),
            sample_weight=backend.asarray(fit_w),
            groups=backend.asarray(groups),
        )
    assert_results_match(ours, theirs)


# --------------------------------------------------------------------------
# Cross-validation helpers
# --------------------------------------------------------------------------


def _helper_case(rng):
    X, y = regression(rng, n_samples=150)
    fit_w, score_w, groups = _metadata(rng, len(y))
    params = {"fit_w": fit_w, "score_w": score_w, "groups": groups}

    def parts(package):
        gpu = package == "gpuml"
        model = (Ridge if gpu else SkRidge)().set_fit_request(sample_weight="fit_w")
        scoring = (get_scorer if gpu else sk_get_scorer)("r2").set_score_request(
            sample_weight="score_w"
        )
        return model, scoring

    return X, y, params, parts


def _both(backend, rng, helper, sk_helper, *, keys=None, scored=True, **kwargs):
    """``(ours, theirs)``: a helper and scikit-learn's on the same data and
    metadata (``keys`` of them), ours fed the backend's arrays."""
    X, y, params, parts = _helper_case(rng)
    params = {k: params[k] for k in keys or params}
    out = []
    for package, func, on in (
        ("gpuml", helper, backend.asarray),
        ("sklearn", sk_helper, lambda array: array),
    ):
        model, scoring = parts(package)
        out.append(
            func(
                model,
                on(X),
                on(y),
                params={k: on(v) for k, v in params.items()},
                **({"scoring": scoring} if scored else {}),
                **kwargs,
            )
        )
    return out


def test_cross_validate_routes_metadata(backend, rng):
    ours, theirs = _both(
        backend, rng, cross_validate, sk_cross_validate, cv=GroupKFold(3)
    )
    np.testing.assert_allclose(ours["test_score"], theirs["test_score"], atol=1e-6)


@pytest.mark.parametrize(
    "helper, sk_helper, kwargs",
    [
        (
            validation_curve,
            sk_validation_curve,
            {"param_name": "alpha", "param_range": ALPHAS},
        ),
        (learning_curve, sk_learning_curve, {"train_sizes": [0.5, 1.0]}),
    ],
    ids=["validation_curve", "learning_curve"],
)
def test_curves_route_metadata(backend, rng, helper, sk_helper, kwargs):
    ours, theirs = _both(backend, rng, helper, sk_helper, cv=GroupKFold(3), **kwargs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_permutation_test_routes_metadata(backend, rng):
    ours, theirs = _both(
        backend,
        rng,
        permutation_test_score,
        sk_permutation_test_score,
        n_permutations=4,
        random_state=0,
        cv=GroupKFold(3),
    )
    assert ours[0] == pytest.approx(theirs[0], abs=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], atol=1e-6)
    assert ours[2] == theirs[2]


def test_cross_val_predict_routes_metadata(backend, rng):
    ours, theirs = _both(
        backend,
        rng,
        cross_val_predict,
        sk_cross_val_predict,
        keys=("fit_w", "groups"),
        scored=False,
        cv=GroupKFold(3),
    )
    backend.assert_family(ours, shape=theirs.shape)
    np.testing.assert_allclose(backend.to_numpy(ours), theirs, atol=1e-8)


@pytest.mark.parametrize(
    "helper, sk_helper, extra",
    [
        (cross_validate, sk_cross_validate, {}),
        (cross_val_predict, sk_cross_val_predict, {}),
        (validation_curve, sk_validation_curve, {"param_name": "alpha"}),
        (learning_curve, sk_learning_curve, {}),
        (permutation_test_score, sk_permutation_test_score, {"n_permutations": 2}),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_helpers_raise_sklearns_routing_errors(rng, helper, sk_helper, extra):
    X, y = regression(rng, n_samples=60)
    fit_w, _, groups = _metadata(rng, len(y))
    if "param_name" in extra:
        extra = {**extra, "param_range": [1.0, 2.0]}
    for kwargs in ({"groups": groups}, {"params": {"sample_weight": fit_w}}):
        theirs = _error(sk_helper, SkRidge(), X, y, **kwargs, **extra)
        ours = _error(helper, Ridge(), X, y, **kwargs, **extra)
        assert type(ours) is type(theirs)
        assert str(ours) == str(theirs)


# --------------------------------------------------------------------------
# Scorers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["r2", "accuracy", "neg_log_loss", "roc_auc"])
def test_scorer_requests_like_sklearns(name):
    ours, theirs = get_scorer(name), sk_get_scorer(name)
    assert str(ours.get_metadata_routing()) == str(theirs.get_metadata_routing())
    assert ours.set_score_request(sample_weight=True) is ours
    theirs.set_score_request(sample_weight=True)
    assert str(ours.get_metadata_routing()) == str(theirs.get_metadata_routing())
    with pytest.raises(ValueError, match="should be either a valid identifier"):
        ours.set_score_request(sample_weight="not an identifier")
    # a failed request leaves the previous one in place
    assert ours.get_metadata_routing().score.requests == {"sample_weight": True}


def test_unrequested_scorer_metadata_in_a_router_raise():
    scorer = get_scorer("r2")
    router = MetadataRouter(owner="test").add(
        scorer=scorer,
        method_mapping=MethodMapping().add(caller="score", callee="score"),
    )
    message = (
        f"[sample_weight] are passed but are not explicitly set as requested or "
        f"not requested for {scorer!r}.score"
    )
    with pytest.raises(UnsetMetadataPassedError, match=re.escape(message)):
        router.route_params(params={"sample_weight": 1}, caller="score")


def test_scorer_routing_needs_routing_enabled(rng):
    X, y = regression(rng, n_samples=40)
    model = Ridge().fit(X, y)
    with sk_config_context(enable_metadata_routing=False):
        with pytest.raises(RuntimeError, match="only available when metadata routing"):
            get_scorer("r2").set_score_request(sample_weight=True)
        with pytest.raises(ValueError, match="only supported if enable_metadata_rout"):
            get_scorer("r2")(model, X, y, multioutput="raw_values")
        # sample_weight is a scorer argument of its own, routing or not
        weights = np.ones(len(y))
        assert get_scorer("r2")(model, X, y, sample_weight=weights) == pytest.approx(
            sk_r2_score(y, model.predict(X))
        )
    passthrough = GridSearchCV(Ridge(), {"alpha": [1.0]})._get_scorers()[0]
    with pytest.raises(AttributeError, match="has no attribute 'set_score_request'"):
        passthrough.set_score_request(sample_weight=True)


def test_metadata_that_overlap_scorer_kwargs_warn(rng):
    X, y = classification(rng)
    model = LogisticRegression().fit(X, y)
    scorer = make_scorer(f1_score, pos_label=1)
    with pytest.warns(UserWarning, match="already set as kwargs"):
        scorer.set_score_request(pos_label=True)
    with pytest.warns(UserWarning, match="There is an overlap"):
        scorer(model, X, y, pos_label=1)


def test_multimetric_scorer_routes_each_metric_its_request(rng):
    """As scikit-learn's: a metric that declines sample_weight does not get
    it, one that requests it does (its function checks)."""
    X, y = classification(rng, n_samples=50)
    model = LogisticRegression().fit(X, y)
    seen = {}

    def declines(y_true, y_pred, sample_weight="unset"):
        seen["declines"] = sample_weight
        return 1.0

    def requests(y_true, y_pred, sample_weight=None):
        seen["requests"] = sample_weight
        return 1.0

    scorers = {
        "declines": make_scorer(declines).set_score_request(sample_weight=False),
        "requests": make_scorer(requests).set_score_request(sample_weight=True),
    }
    weights = np.arange(len(y), dtype=float)
    MultimetricScorer(scorers=scorers)(model, X, y, sample_weight=weights)
    assert seen["declines"] == "unset"
    np.testing.assert_array_equal(seen["requests"], weights)
    with pytest.raises(UnsetMetadataPassedError, match="r2_score"):
        MultimetricScorer(scorers={"r2": get_scorer("r2")})(
            model, X, y, sample_weight=weights
        )


def test_sklearn_scorer_objects_keep_their_requests(rng):
    """A scikit-learn scorer given to a gpuml search is wrapped (host data)
    and routed by its own requests."""
    _, score_w, _ = _metadata(rng, 50)
    scorer = sk_make_scorer(sk_r2_score).set_score_request(sample_weight="score_w")
    search = GridSearchCV(
        Ridge().set_fit_request(sample_weight=False), {"alpha": ALPHAS}, scoring=scorer
    )
    routing = search.get_metadata_routing()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        routed = routing.route_params(params={"score_w": score_w}, caller="fit")
    np.testing.assert_array_equal(routed.scorer.score["sample_weight"], score_w)
