"""gpuml.base: host views of fitted estimators (what foreign scorers see)."""

from __future__ import annotations

import numpy as np
from sklearn.pipeline import make_pipeline

from gpuml.base import host_view
from gpuml.impute import SimpleImputer
from gpuml.linear_model import LogisticRegression
from gpuml.naive_bayes import CategoricalNB


def _is_host(value) -> bool:
    return type(value).__module__.partition(".")[0] in ("numpy", "scipy")


def test_a_host_view_holds_host_arrays_and_leaves_the_model(backend, rng):
    X = rng.normal(size=(40, 3))
    X[::7, 1] = np.nan
    y = (rng.normal(size=40) > 0).astype(np.int64)
    pipe = make_pipeline(SimpleImputer(add_indicator=True), LogisticRegression())
    pipe.fit(backend.asarray(X), backend.asarray(y))
    imputer, model = pipe[0], pipe[-1]
    before = (imputer.statistics_, imputer.indicator_.features_, model.coef_)

    view = host_view(pipe)
    if backend.family == "host":
        assert view is pipe
    else:
        assert view is not pipe and view[-1] is not model
    for value in (
        view.classes_,
        view[-1].coef_,
        view[0].statistics_,
        view[0].indicator_.features_,
    ):
        assert _is_host(value)
    # the fitted pipeline keeps its own arrays, in its own family
    after = (imputer.statistics_, imputer.indicator_.features_, model.coef_)
    assert all(a is b for a, b in zip(after, before, strict=True))
    assert pipe[-1] is model
    backend.assert_family(model.coef_)
    np.testing.assert_allclose(view[-1].coef_, backend.to_numpy(model.coef_))
    np.testing.assert_array_equal(
        view.predict(X), backend.to_numpy(pipe.predict(backend.asarray(X)))
    )


def test_a_host_view_moves_lists_of_arrays(backend, rng):
    X = rng.integers(0, 3, size=(30, 2)).astype(np.float64)
    y = rng.integers(0, 2, size=30)
    model = CategoricalNB().fit(backend.asarray(X), backend.asarray(y))
    view = host_view(model)
    assert all(_is_host(counts) for counts in view.category_count_)
    backend.assert_family(model.category_count_[0])


def test_a_column_transformer_s_transformers_move(backend, rng):
    """host_view and move_fitted_to_family look into a ColumnTransformer's
    fitted transformers (a search's best_estimator_ fitted on the device)."""
    from gpuml.base import move_fitted_to_family
    from gpuml.compose import ColumnTransformer
    from gpuml.preprocessing import StandardScaler

    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    ct = ColumnTransformer([("s", StandardScaler(), [0, 1]), ("p", "passthrough", [2])])
    pipe = make_pipeline(ct, LogisticRegression())
    pipe.fit(backend.asarray(X), backend.asarray(y))
    scaler = ct.named_transformers_["s"]
    before = scaler.mean_
    view = host_view(pipe)
    assert _is_host(view[0].named_transformers_["s"].mean_)
    assert scaler.mean_ is before  # the fitted pipeline keeps its own arrays
    backend.assert_family(scaler.mean_)
    np.testing.assert_array_equal(
        view.predict(X), backend.to_numpy(pipe.predict(backend.asarray(X)))
    )
    move_fitted_to_family(pipe, "host")
    assert _is_host(ct.named_transformers_["s"].mean_)
    assert _is_host(pipe[-1].coef_)
