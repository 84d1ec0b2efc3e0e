"""Ridge: parity with scikit-learn, families, errors, pickling, ridge_path."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Ridge as SkRidge

from gpuml import config_context
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import Ridge, ridge_path

SOLVERS = ["cholesky", "svd", "sparse_cg"]
RTOL = {np.float64: 1e-5, np.float32: 1e-3}
CG_TOL = {np.float64: 1e-12, np.float32: 1e-6}


def _rel_err(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def _regression(rng, n_samples, n_features, n_targets, dtype):
    """A well-conditioned problem with non-zero feature means (tests centring)."""
    X = rng.normal(size=(n_samples, n_features)) + rng.uniform(-3, 3, n_features)
    coef = rng.normal(size=(n_features, n_targets))
    y = X @ coef + 0.1 * rng.normal(size=(n_samples, n_targets)) + 2.0
    y = y[:, 0] if n_targets == 1 else y
    return X.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "fit_intercept", [True, False], ids=["intercept", "nointercept"]
)
@pytest.mark.parametrize("shape", [(120, 8), (30, 50)], ids=["tall", "wide"])
@pytest.mark.parametrize("n_targets", [1, 3])
@pytest.mark.parametrize("solver", SOLVERS)
def test_ridge_matches_sklearn(
    backend, rng, solver, n_targets, shape, fit_intercept, weighted, dtype
):
    X, y = _regression(rng, *shape, n_targets, dtype)
    sw = rng.uniform(0.5, 2.0, shape[0]).astype(dtype) if weighted else None
    alpha = 1.5 if n_targets == 1 else rng.uniform(0.5, 3.0, n_targets)
    params = dict(
        alpha=alpha, fit_intercept=fit_intercept, solver=solver, tol=CG_TOL[dtype]
    )
    expected = SkRidge(**params).fit(X, y, sample_weight=sw)
    model = Ridge(**params).fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if sw is None else backend.asarray(sw),
    )
    backend.assert_family(model.coef_, dtype=dtype, shape=expected.coef_.shape)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL[dtype]
    if not fit_intercept:
        # scikit-learn's float 0.0 without an intercept, for any targets
        assert type(model.intercept_) is type(expected.intercept_) is float
        assert model.intercept_ == expected.intercept_ == 0.0
    elif n_targets == 1:
        # scikit-learn's type: a scalar of X's dtype (0-d on the device)
        if backend.family == "host":
            assert type(model.intercept_) is type(expected.intercept_) is dtype
        else:
            backend.assert_family(model.intercept_, dtype=dtype, shape=())
        np.testing.assert_allclose(
            backend.to_numpy(model.intercept_),
            expected.intercept_,
            rtol=RTOL[dtype],
            atol=RTOL[dtype],
        )
    else:
        backend.assert_family(model.intercept_, dtype=dtype, shape=(n_targets,))
        np.testing.assert_allclose(
            backend.to_numpy(model.intercept_),
            expected.intercept_,
            rtol=RTOL[dtype],
            atol=RTOL[dtype],
        )
    assert model.solver_ == solver

    X_test, _ = _regression(rng, 20, shape[1], n_targets, dtype)
    pred = model.predict(backend.asarray(X_test))
    backend.assert_family(pred, dtype=dtype, shape=expected.predict(X_test).shape)
    assert _rel_err(backend.to_numpy(pred), expected.predict(X_test)) < RTOL[dtype]
    score = model.score(backend.asarray(X), backend.asarray(y))
    assert isinstance(score, float)
    assert score == pytest.approx(expected.score(X, y), rel=RTOL[dtype])


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("solver", ["auto", "cholesky", "sparse_cg"])
def test_ridge_sparse_matches_sklearn(backend, rng, solver, fit_intercept):
    X = sp.random(
        200,
        15,
        density=0.3,
        format="csr",
        random_state=rng,
        data_rvs=rng.standard_normal,
    )
    y = X @ rng.normal(size=15) + rng.normal(size=200) + 1.0
    sw = rng.uniform(0.5, 2.0, 200)
    expected = SkRidge(
        alpha=0.7, solver="sparse_cg", tol=1e-12, fit_intercept=fit_intercept
    ).fit(X, y, sample_weight=sw)
    model = Ridge(alpha=0.7, solver=solver, tol=1e-12, fit_intercept=fit_intercept)
    model.fit(backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(sw))
    assert model.solver_ == ("sparse_cg" if solver == "auto" else solver)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-8
    intercept = backend.to_numpy(model.intercept_)
    assert intercept == pytest.approx(expected.intercept_, rel=1e-8, abs=1e-8)
    pred = model.predict(backend.asarray(X))
    backend.assert_family(pred, dtype=np.float64, shape=(200,))
    assert _rel_err(backend.to_numpy(pred), expected.predict(X)) < 1e-8


def test_ridge_singular_cholesky_falls_back_to_min_norm(backend, rng):
    X = rng.normal(size=(40, 6))
    X = np.hstack([X, X[:, :2]])  # rank-deficient; alpha=0 makes A singular
    y = rng.normal(size=40)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    min_norm = np.linalg.lstsq(Xc, yc, rcond=None)[0]
    model = Ridge(alpha=0.0, solver="cholesky").fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert _rel_err(backend.to_numpy(model.coef_), min_norm) < 1e-6


def test_ridge_does_not_modify_input(backend, rng):
    X, y = _regression(rng, 50, 4, 1, np.float64)
    sw = rng.uniform(0.5, 2.0, 50)
    X_in, y_in = backend.asarray(X.copy()), backend.asarray(y.copy())
    Ridge().fit(X_in, y_in, sample_weight=backend.asarray(sw))
    np.testing.assert_array_equal(backend.to_numpy(X_in), X)
    np.testing.assert_array_equal(backend.to_numpy(y_in), y)


def test_ridge_copy_X_false_gives_same_model(backend, rng):
    X, y = _regression(rng, 50, 4, 1, np.float64)
    a = Ridge(copy_X=False).fit(backend.asarray(X.copy()), backend.asarray(y))
    b = Ridge().fit(backend.asarray(X), backend.asarray(y))
    np.testing.assert_allclose(backend.to_numpy(a.coef_), backend.to_numpy(b.coef_))


def test_ridge_pandas_feature_names(backend, rng):
    pd = pytest.importorskip("pandas")
    X, y = _regression(rng, 30, 3, 1, np.float64)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = Ridge().fit(frame, y)
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    assert model.n_features_in_ == 3
    np.testing.assert_allclose(model.predict(frame), SkRidge().fit(X, y).predict(X))
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        model.predict(pd.DataFrame(X, columns=["a", "b", "z"]))


@pytest.mark.parametrize("solver", SOLVERS)
def test_ridge_path_matches_ridge(backend, rng, solver):
    X, y = _regression(rng, 60, 5, 2, np.float64)
    sw = rng.uniform(0.5, 2.0, 60)
    alphas = np.logspace(-3, 3, 7)
    coefs, intercepts = ridge_path(
        backend.asarray(X),
        backend.asarray(y),
        alphas,
        sample_weight=backend.asarray(sw),
    )
    backend.assert_family(coefs, dtype=np.float64, shape=(7, 2, 5))
    backend.assert_family(intercepts, dtype=np.float64, shape=(7, 2))
    for k, alpha in enumerate(alphas):
        expected = SkRidge(alpha=alpha, solver=solver, tol=1e-12).fit(
            X, y, sample_weight=sw
        )
        assert _rel_err(backend.to_numpy(coefs[k]), expected.coef_) < 1e-8
        np.testing.assert_allclose(
            backend.to_numpy(intercepts[k]), expected.intercept_, rtol=1e-8
        )


def test_ridge_path_wide_sparse_and_1d(backend, rng):
    X, y = _regression(rng, 15, 40, 1, np.float64)
    coefs, intercepts = ridge_path(backend.asarray(X), backend.asarray(y), [0.1, 10.0])
    backend.assert_family(coefs, shape=(2, 40))
    backend.assert_family(intercepts, shape=(2,))
    for k, alpha in enumerate([0.1, 10.0]):
        expected = SkRidge(alpha=alpha).fit(X, y)
        assert _rel_err(backend.to_numpy(coefs[k]), expected.coef_) < 1e-8
    Xs = sp.random(100, 10, density=0.3, format="csr", random_state=rng)
    ys = rng.normal(size=100)
    coefs, intercepts = ridge_path(backend.asarray(Xs), backend.asarray(ys), [1.0])
    expected = SkRidge(alpha=1.0, solver="sparse_cg", tol=1e-12).fit(Xs, ys)
    assert _rel_err(backend.to_numpy(coefs[0]), expected.coef_) < 1e-8
    assert float(backend.to_numpy(intercepts)[0]) == pytest.approx(
        expected.intercept_, rel=1e-8
    )


# ----------------------------------------------------------------------------
# Bad input: scikit-learn's error types and messages, on every backend.
# ----------------------------------------------------------------------------


def _data(rng):
    return rng.normal(size=(20, 3)), rng.normal(size=20)


@pytest.mark.parametrize("where", ["X", "y"])
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_ridge_rejects_non_finite(backend, rng, where, value):
    X, y = _data(rng)
    (X if where == "X" else y)[3] = value
    kind = "NaN" if np.isnan(value) else "infinity"
    with pytest.raises(ValueError, match=f"Input {where} contains {kind}"):
        Ridge().fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match=f"Input {where} contains {kind}"):
        SkRidge().fit(X, y)


def test_ridge_rejects_non_finite_at_predict(backend, rng):
    X, y = _data(rng)
    model = Ridge().fit(backend.asarray(X), backend.asarray(y))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"Input X contains NaN\.\nRidge does not"):
        model.predict(backend.asarray(X))


def test_ridge_rejects_bad_shapes(backend, rng):
    X, y = _data(rng)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        Ridge().fit(backend.asarray(X[:, 0]), backend.asarray(y))
    with pytest.raises(ValueError, match=r"Found array with dim 3.*Ridge"):
        Ridge().fit(backend.asarray(X.reshape(20, 3, 1)), backend.asarray(y))
    with pytest.raises(
        ValueError, match="inconsistent numbers of samples: \\[20, 19\\]"
    ):
        Ridge().fit(backend.asarray(X), backend.asarray(y[:-1]))
    with pytest.raises(
        ValueError,
        match="0 sample\\(s\\) \\(shape=\\(0, 3\\)\\) while a "
        "minimum of 1 is required by Ridge",
    ):
        Ridge().fit(backend.asarray(X[:0]), backend.asarray(y[:0]))
    with pytest.raises(ValueError, match="0 feature\\(s\\)"):
        Ridge().fit(backend.asarray(X[:, :0]), backend.asarray(y))
    model = Ridge().fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match=r"X has 2 features, but Ridge is expecting 3"):
        model.predict(backend.asarray(X[:, :2]))
    with pytest.raises(ValueError, match=r"sample_weight\.shape == \(19,\), expected"):
        Ridge().fit(
            backend.asarray(X),
            backend.asarray(y),
            sample_weight=backend.asarray(np.ones(19)),
        )
    with pytest.raises(ValueError, match="penalties do not correspond: 2 != 1"):
        Ridge(alpha=[1.0, 2.0]).fit(backend.asarray(X), backend.asarray(y))


def test_ridge_rejects_string_target(rng):
    X, _ = _data(rng)
    y = np.array(["a", "b"] * 10)
    with pytest.raises(ValueError, match="could not convert string to float"):
        SkRidge().fit(X, y)
    with pytest.raises(ValueError, match="could not convert string to float"):
        Ridge().fit(X, y)
    with pytest.raises(ValueError, match="could not convert string to float"):
        Ridge().fit(X, y.astype(object))


def test_ridge_rejects_bad_parameters(backend, rng):
    X, y = _data(rng)
    X, y = backend.asarray(X), backend.asarray(y)
    with pytest.raises(ValueError, match="Invalid parameter 'alhpa' for estimator"):
        Ridge().set_params(alhpa=1.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'alhpa'"):
        Ridge(alhpa=1.0)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of Ridge"):
        Ridge(alpha=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'solver' parameter of Ridge must"):
        Ridge(solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="solver='svd' does not support positive"):
        Ridge(positive=True, solver="svd").fit(X, y)
    with pytest.raises(ValueError, match="non-negative"):
        Ridge(alpha=[-1.0]).fit(X, y)


@pytest.mark.parametrize(
    "fit_intercept, error, message",
    [
        (True, ValueError, "does not support fitting the intercept on sparse data"),
        (False, TypeError, "SVD solver does not support sparse"),
    ],
)
def test_ridge_svd_rejects_sparse(backend, rng, fit_intercept, error, message):
    """scikit-learn's error types: a ValueError with an intercept, else a
    TypeError; gpuml's messages name the solvers that take sparse data."""
    X = sp.random(20, 3, density=0.5, format="csr", random_state=rng)
    y = rng.normal(size=20)
    with pytest.raises(error, match=message):
        SkRidge(solver="svd", fit_intercept=fit_intercept).fit(X, y)
    with pytest.raises(error, match=message) as raised:
        Ridge(solver="svd", fit_intercept=fit_intercept).fit(
            backend.asarray(X), backend.asarray(y)
        )
    assert "'sparse_cg'" in str(raised.value)


def test_ridge_failed_fit_keeps_previous_model(backend, rng):
    X, y = _data(rng)
    model = Ridge().fit(backend.asarray(X), backend.asarray(y))
    coef = backend.to_numpy(model.coef_).copy()
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError):
        model.fit(backend.asarray(X_bad), backend.asarray(y))
    np.testing.assert_array_equal(backend.to_numpy(model.coef_), coef)


def test_ridge_sparse_cg_convergence_warning(rng):
    from sklearn.exceptions import ConvergenceWarning

    X, y = _data(rng)
    with pytest.warns(ConvergenceWarning, match="sparse_cg did not converge after 1"):
        model = Ridge(solver="sparse_cg", max_iter=1, tol=1e-12).fit(X, y)
    assert model.n_iter_ is None  # scikit-learn's sparse_cg reports none


# ----------------------------------------------------------------------------
# Pickling and the private device cache.
# ----------------------------------------------------------------------------


def test_ridge_pickle_round_trip(backend, rng):
    X, y = _data(rng)
    model = Ridge().fit(backend.asarray(X), backend.asarray(y))
    expected = backend.to_numpy(model.predict(backend.asarray(X)))
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(
        backend.to_numpy(clone.predict(backend.asarray(X))), expected
    )


def test_numpy_trained_model_loads_without_cupy(rng, tmp_path):
    X, y = _data(rng)
    with config_context(device="auto"):  # on a GPU machine this fits on the GPU
        model = Ridge().fit(X, y)
        model.predict(X)  # fills the device cache where a GPU is used
    assert type(model.coef_) is np.ndarray
    path = tmp_path / "ridge.pkl"
    path.write_bytes(pickle.dumps(model))
    np.save(tmp_path / "X.npy", X)
    code = f"""
import sys, pickle, numpy as np
sys.modules["cupy"] = None  # CuPy cannot be imported in this process
model = pickle.loads(open({str(path)!r}, "rb").read())
print(model.predict(np.load({str(tmp_path / "X.npy")!r}))[:3].tolist())
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    np.testing.assert_allclose(eval(out.stdout), model.predict(X)[:3])


@pytest.mark.gpu
def test_device_cache_holds_device_copy_and_is_dropped_on_pickle(rng):
    import cupy

    X, y = _data(rng)
    with config_context(device="gpu"):
        model = Ridge().fit(X, y)
        assert type(model.coef_) is np.ndarray
        model.predict(X)
        cached = model._gpuml_cache["coef_"][1]
        assert isinstance(cached, cupy.ndarray)
        model.predict(X)
        assert model._gpuml_cache["coef_"][1] is cached  # reused, not re-sent
        state = model.__getstate__()
        assert state["_gpuml_cache"] == {}
        model.fit(X, y + 1)
        assert model._gpuml_cache == {}
