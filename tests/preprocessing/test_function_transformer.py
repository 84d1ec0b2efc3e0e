"""FunctionTransformer against scikit-learn, on every backend.

``func`` gets the data as they are (CuPy stays CuPy) without validation;
with ``validate=True`` scikit-learn's checks and messages apply and the
data keep their family.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.preprocessing as skp
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

from gpuml.base import accepts_device_input
from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV
from gpuml.preprocessing import FunctionTransformer, StandardScaler


def _square_plus(X, shift=0.0):
    return X * X + shift


@pytest.mark.parametrize("validate", [False, True])
@pytest.mark.parametrize(
    "func, kw_args", [(None, None), (np.log1p, None), (_square_plus, {"shift": 2.0})]
)
def test_matches_sklearn(backend, rng, validate, func, kw_args):
    X = rng.random((20, 3))
    params = {"func": func, "kw_args": kw_args, "validate": validate}
    ours = FunctionTransformer(**params).fit(backend.asarray(X))
    theirs = skp.FunctionTransformer(**params).fit(X)
    assert ours.n_features_in_ == theirs.n_features_in_
    got = ours.transform(backend.asarray(X))
    want = theirs.transform(X)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-14)


def test_device_data_pass_through_untouched(backend, rng):
    X = backend.asarray(rng.random((5, 2)))
    assert FunctionTransformer().fit_transform(X) is X
    seen = []
    FunctionTransformer(lambda Z: seen.append(Z) or Z).fit_transform(X)
    assert seen[0] is X


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_validate_keeps_sparse_format_and_family(backend, rng, fmt):
    X = rng.random((10, 4))
    X[X < 0.6] = 0.0
    Xs = backend.as_format(X, fmt)
    got = FunctionTransformer(validate=True, accept_sparse=True).fit_transform(Xs)
    backend.assert_family(got, shape=X.shape)
    np.testing.assert_array_equal(backend.to_numpy(got).toarray(), X)
    with pytest.raises(TypeError, match="Sparse data was passed"):
        FunctionTransformer(validate=True).fit(Xs)


def test_validation_errors_as_sklearn(backend):
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    for est, data in (
        (skp.FunctionTransformer(validate=True), X),
        (FunctionTransformer(validate=True), backend.asarray(X)),
    ):
        with pytest.raises(ValueError, match="Input X contains NaN"):
            est.fit(data)
    fitted = FunctionTransformer(validate=True).fit(backend.asarray(np.ones((3, 2))))
    with pytest.raises(ValueError, match="X has 3 features, but FunctionTransformer"):
        fitted.transform(backend.asarray(np.ones((3, 3))))
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        fitted.transform(backend.asarray(np.ones(3)))


def test_check_inverse_warns_as_sklearn(backend, rng):
    X = backend.asarray(rng.random((30, 2)))
    with pytest.warns(UserWarning, match="not strictly inverse of each other"):
        FunctionTransformer(np.expm1, inverse_func=np.expm1).fit(X)
    inverse = FunctionTransformer(np.log1p, inverse_func=np.expm1).fit(X)
    back = inverse.inverse_transform(inverse.transform(X))
    backend.assert_family(back)
    np.testing.assert_allclose(backend.to_numpy(back), backend.to_numpy(X))


def test_feature_names_one_to_one():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    ft = FunctionTransformer(np.log1p, feature_names_out="one-to-one").fit(X)
    assert list(ft.get_feature_names_out()) == ["a", "b"]
    out = ft.set_output(transform="pandas").transform(X)
    assert list(out.columns) == ["a", "b"]
    ft = FunctionTransformer(np.log1p, validate=True).fit(X)
    assert list(ft.feature_names_in_) == ["a", "b"]


def test_pickle_and_a_gpuml_estimator(backend, rng):
    X = backend.asarray(rng.random((6, 2)))
    ft = FunctionTransformer(np.log1p, validate=True).fit(X)
    loaded = pickle.loads(pickle.dumps(ft))
    np.testing.assert_array_equal(
        backend.to_numpy(loaded.transform(X)), backend.to_numpy(ft.transform(X))
    )
    assert accepts_device_input(ft)
    assert accepts_device_input(make_pipeline(ft, StandardScaler(), Ridge()))
    assert not accepts_device_input(skp.FunctionTransformer())


def test_grid_search_of_a_pipeline_matches_sklearn(rng):
    X = rng.random((60, 3)) * 5
    y = np.log1p(X) @ np.array([1.0, -2.0, 0.5]) + 0.05 * rng.normal(size=60)
    grid = {
        "functiontransformer__func": [None, np.log1p],
        "ridge__alpha": [0.1, 10.0],
    }
    ours = GridSearchCV(make_pipeline(FunctionTransformer(), Ridge()), grid, cv=3)
    theirs = SkGridSearchCV(
        make_pipeline(skp.FunctionTransformer(), SkRidge()), grid, cv=3
    )
    ours.fit(X, y)
    theirs.fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=1e-9,
    )
    assert ours.best_params_ == theirs.best_params_


def test_sparse_identity_without_validation(backend, rng):
    X = sp.random(8, 3, density=0.4, format="csr", random_state=0)
    Xs = backend.asarray(X)
    assert FunctionTransformer().fit_transform(Xs) is Xs


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_device_check_inverse_logic(monkeypatch, rng, fmt):
    """check_inverse's device branch (compared on the host), with NumPy
    arrays posing as device data."""
    import gpuml.preprocessing._function_transformer as module

    monkeypatch.setattr(module, "input_family", lambda obj: "device")
    X = rng.random((40, 3))
    X = sp.csr_matrix(X) if fmt == "csr" else X
    with pytest.warns(UserWarning, match="not strictly inverse of each other"):
        FunctionTransformer(lambda Z: Z * 2, inverse_func=lambda Z: Z * 3).fit(X)
    FunctionTransformer(lambda Z: Z * 2, inverse_func=lambda Z: Z / 2).fit(X)
    with pytest.raises(ValueError, match="'check_inverse' is only supported"):
        FunctionTransformer(np.sort, inverse_func=np.sort).fit(
            np.array([["a", "b"]], dtype=object)
        )
