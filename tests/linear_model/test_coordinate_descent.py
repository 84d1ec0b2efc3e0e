"""Lasso and ElasticNet: parity with scikit-learn, the batched solver, errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet as SkElasticNet
from sklearn.linear_model import Lasso as SkLasso
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import KFold

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import ElasticNet, Lasso
from gpuml.model_selection import GridSearchCV

TOL = 1e-10  # both sides: the coefficients then agree far below RTOL
RTOL = {np.float64: 1e-6, np.float32: 1e-3}
MODELS = {
    "lasso": (Lasso, SkLasso, {"alpha": 0.05}),
    "enet": (ElasticNet, SkElasticNet, {"alpha": 0.08, "l1_ratio": 0.6}),
}


def _rel_err(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def _regression(rng, n_samples, n_features, n_targets=1, dtype=np.float64):
    """A few informative features, non-zero feature means (tests centring)."""
    X = rng.normal(size=(n_samples, n_features)) + rng.uniform(-2, 2, n_features)
    coef = np.zeros((n_features, n_targets))
    informative = min(4, n_features)
    coef[:informative] = rng.normal(size=(informative, n_targets)) * 2
    y = X @ coef + 0.3 * rng.normal(size=(n_samples, n_targets)) + 1.5
    y = y[:, 0] if n_targets == 1 else y
    return X.astype(dtype), y.astype(dtype)


def _sparse(rng, X):
    """X with about 60% of its entries zeroed, as CSR."""
    return sp.csr_matrix(np.where(rng.uniform(size=X.shape) < 0.6, 0, X))


def _n_iter_matches(backend, got, expected):
    """The same sweeps as scikit-learn on the CPU (the same updates in the
    same order); on the GPU, rounding may move a stop by a sweep."""
    got, expected = np.atleast_1d(got), np.atleast_1d(expected)
    if backend.device == "cpu":
        return np.array_equal(got, expected)
    return np.all(np.abs(got - expected) <= 2)


def _check_fitted(backend, model, expected, dtype=np.float64):
    backend.assert_family(model.coef_, dtype=dtype, shape=expected.coef_.shape)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < RTOL[dtype]
    intercept = backend.to_numpy(model.intercept_)
    np.testing.assert_allclose(
        intercept, expected.intercept_, rtol=RTOL[dtype], atol=RTOL[dtype]
    )
    if not model.fit_intercept:
        assert type(model.intercept_) is float and model.intercept_ == 0.0
    assert _n_iter_matches(backend, model.n_iter_, expected.n_iter_)
    assert type(model.n_iter_) is type(expected.n_iter_)
    gap = np.asarray(backend.to_numpy(model.dual_gap_))
    assert gap.shape == np.shape(expected.dual_gap_)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "fit_intercept", [True, False], ids=["intercept", "nointercept"]
)
@pytest.mark.parametrize("shape", [(60, 8), (16, 24)], ids=["tall", "wide"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_matches_sklearn(backend, rng, model, shape, fit_intercept, weighted, fmt):
    cls, sk_cls, params = MODELS[model]
    X, y = _regression(rng, *shape)
    X_fit = _sparse(rng, X) if fmt == "csr" else X
    sw = rng.uniform(0.3, 3.0, shape[0]) if weighted else None
    params = {**params, "fit_intercept": fit_intercept, "tol": TOL}
    if shape[0] < shape[1]:  # a sparser solution: converges in a few hundred sweeps
        params["alpha"] *= 4
    X_dense = X_fit.toarray() if fmt == "csr" else X
    with warnings.catch_warnings():
        # Rarely, wide data need more than max_iter sweeps to reach TOL:
        # both sides then stop at the same iterate, with the same warning.
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected = sk_cls(**params).fit(X_fit, y, sample_weight=sw)
        model = cls(**params).fit(
            backend.as_format(X_dense, fmt),
            backend.asarray(y),
            sample_weight=None if sw is None else backend.asarray(sw),
        )
    _check_fitted(backend, model, expected)
    X_test = rng.normal(size=(7, shape[1]))
    pred = model.predict(backend.asarray(X_test))
    backend.assert_family(pred, dtype=np.float64, shape=(7,))
    assert _rel_err(backend.to_numpy(pred), expected.predict(X_test)) < 1e-6
    score = model.score(backend.as_format(X_dense, fmt), backend.asarray(y))
    assert score == pytest.approx(expected.score(X_fit, y), rel=1e-6)


@pytest.mark.parametrize(
    "params",
    [
        {"positive": True},
        {"selection": "random", "random_state": 3},
        {"precompute": True},
        {"l1_ratio": 0.0},  # the ridge penalty: formulation B of the gap
        {"alpha": 0.5, "l1_ratio": 1.0},
    ],
    ids=["positive", "random", "precompute", "ridge", "lasso"],
)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_options_match_sklearn(backend, rng, params, fmt):
    X, y = _regression(rng, 40, 10)
    X_fit = _sparse(rng, X) if fmt == "csr" else X
    params = {"alpha": 0.1, "l1_ratio": 0.5, "tol": TOL, **params}
    with warnings.catch_warnings():
        # scikit-learn's ElasticNet(l1_ratio=0) suggests Ridge in a warning
        # only when it does not converge; both converge here.
        expected = SkElasticNet(**params).fit(X_fit, y)
    X_in = backend.as_format(X, "dense") if fmt == "dense" else backend.asarray(X_fit)
    model = ElasticNet(**params).fit(X_in, backend.asarray(y))
    _check_fitted(backend, model, expected)
    if params.get("positive"):
        assert (backend.to_numpy(model.coef_) >= 0).all()


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_multi_target_matches_sklearn(backend, rng, fmt):
    X, Y = _regression(rng, 30, 12, n_targets=3)
    X_fit = _sparse(rng, X) if fmt == "csr" else X
    params = {"alpha": 0.05, "l1_ratio": 0.8, "tol": TOL}
    expected = SkElasticNet(**params).fit(X_fit, Y)
    model = ElasticNet(**params).fit(backend.asarray(X_fit), backend.asarray(Y))
    _check_fitted(backend, model, expected)
    assert isinstance(model.n_iter_, list) and len(model.n_iter_) == 3
    backend.assert_family(model.intercept_, shape=(3,))
    backend.assert_family(model.dual_gap_, shape=(3,))
    pred = model.predict(backend.asarray(X_fit))
    backend.assert_family(pred, shape=(30, 3))


def test_column_vector_target(backend, rng):
    X, y = _regression(rng, 30, 5)
    expected = SkLasso(alpha=0.1, tol=TOL).fit(X, y[:, None])
    model = Lasso(alpha=0.1, tol=TOL).fit(
        backend.asarray(X), backend.asarray(y[:, None])
    )
    assert model.coef_.shape == expected.coef_.shape == (5,)
    assert np.shape(model.intercept_) == np.shape(expected.intercept_) == (1,)
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-6


def test_float32(backend, rng):
    X, y = _regression(rng, 50, 6, dtype=np.float32)
    expected = SkElasticNet(alpha=0.05, tol=1e-6).fit(X, y)
    model = ElasticNet(alpha=0.05, tol=1e-6).fit(backend.asarray(X), backend.asarray(y))
    backend.assert_family(model.coef_, dtype=np.float32, shape=(6,))
    assert _rel_err(backend.to_numpy(model.coef_), expected.coef_) < 1e-3
    pred = model.predict(backend.asarray(X))
    backend.assert_family(pred, dtype=np.float32, shape=(50,))


def test_warm_start_matches_sklearn(backend, rng):
    X, y = _regression(rng, 40, 10)
    expected = SkLasso(alpha=0.2, tol=TOL, warm_start=True).fit(X, y)
    expected.set_params(alpha=0.05).fit(X, y)
    model = Lasso(alpha=0.2, tol=TOL, warm_start=True)
    model.fit(backend.asarray(X), backend.asarray(y))
    model.set_params(alpha=0.05).fit(backend.asarray(X), backend.asarray(y))
    _check_fitted(backend, model, expected)  # n_iter_ too: the warm path's
    # two sweeps from the previous solution: scikit-learn's two, not a cold
    # start's (a warm start need not take fewer sweeps to converge)
    partial = {}
    data = {"ours": (backend.asarray(X), backend.asarray(y)), "theirs": (X, y)}
    for name, cls in (("ours", Lasso), ("theirs", SkLasso)):
        for warm in (True, False):
            est = cls(alpha=0.2, tol=TOL, warm_start=warm).fit(*data[name])
            with pytest.warns(ConvergenceWarning):
                est.set_params(alpha=0.05, max_iter=2).fit(*data[name])
            partial[name, warm] = backend.to_numpy(est.coef_)
    assert _rel_err(partial["ours", True], partial["theirs", True]) < 1e-8
    assert _rel_err(partial["ours", False], partial["theirs", False]) < 1e-8
    assert _rel_err(partial["ours", True], partial["ours", False]) > 1e-6


def test_given_gram_matrix(backend, rng):
    X, y = _regression(rng, 40, 6)
    X = X - X.mean(axis=0)
    G = X.T @ X
    params = {"alpha": 0.1, "tol": TOL, "fit_intercept": False}
    expected = SkLasso(precompute=G, **params).fit(X, y)
    model = Lasso(precompute=G, **params).fit(backend.asarray(X), backend.asarray(y))
    _check_fitted(backend, model, expected)
    with pytest.raises(ValueError, match="did not pass validation"):
        Lasso(precompute=np.eye(6), **params).fit(
            backend.asarray(X), backend.asarray(y)
        )
    with pytest.warns(UserWarning, match="recomputing Gram matrix"):
        Lasso(precompute=G, alpha=0.1).fit(backend.asarray(X + 3), backend.asarray(y))


def test_batch_equals_separate_fits(backend, rng):
    """Every candidate of a batched fit is the model its own fit gives, on
    each fold (the whole data given once, rows chosen per fold)."""
    X, Y = _regression(rng, 45, 9, n_targets=2)
    grid = [{"alpha": a, "l1_ratio": r} for a in (0.01, 0.1, 1.0) for r in (0.3, 1.0)]
    folds = [train for train, _ in KFold(3).split(X)]
    estimator = ElasticNet(tol=TOL)
    batches = list(
        estimator._fit_batch(backend.asarray(X), backend.asarray(Y), grid, folds=folds)
    )
    assert len(batches) == 3
    X_test = rng.normal(size=(5, 9))
    for train, batch in zip(folds, batches, strict=True):
        stacked = backend.to_numpy(batch.predict(backend.asarray(X_test)))
        assert stacked.shape == (len(grid), 5, 2)
        for params, pred in zip(grid, stacked, strict=True):
            alone = ElasticNet(tol=TOL, **params).fit(X[train], Y[train])
            np.testing.assert_allclose(pred, alone.predict(X_test), rtol=1e-10)


def test_grid_search_matches_sklearn(backend, rng):
    X, y = _regression(rng, 60, 8)
    grid = {"alpha": [0.005, 0.05, 0.5, 2.0]}
    expected = SkGridSearchCV(SkLasso(tol=TOL), grid, cv=3).fit(X, y)
    search = GridSearchCV(Lasso(tol=TOL), grid, cv=3)
    search.fit(backend.asarray(X), backend.asarray(y))
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"],
        expected.cv_results_["mean_test_score"],
        rtol=1e-8,
    )
    assert search.best_params_ == expected.best_params_
    assert (
        _rel_err(
            backend.to_numpy(search.best_estimator_.coef_),
            expected.best_estimator_.coef_,
        )
        < 1e-6
    )


def test_batch_params():
    assert ElasticNet()._batch_params() == {"alpha", "l1_ratio"}
    assert Lasso()._batch_params() == {"alpha"}
    assert Lasso(precompute=np.eye(3))._batch_params() == frozenset()
    assert "l1_ratio" not in Lasso().get_params()
    assert Lasso().l1_ratio == 1.0


def test_convergence_warning_as_sklearn(backend, rng):
    X, y = _regression(rng, 20, 30)
    params = {"alpha": 0.001, "max_iter": 3, "tol": 1e-12}
    with pytest.warns(ConvergenceWarning) as expected:
        SkLasso(**params).fit(X, y)
    with pytest.warns(ConvergenceWarning) as got:
        model = Lasso(**params).fit(backend.asarray(X), backend.asarray(y))
    assert model.n_iter_ == 3
    prefix = str(expected[0].message).split("Duality gap")[0]
    assert str(got[0].message).startswith(prefix)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": -1.0}, "The 'alpha' parameter of ElasticNet must be"),
        ({"l1_ratio": 1.5}, "The 'l1_ratio' parameter of ElasticNet must be"),
        ({"selection": "best"}, "The 'selection' parameter of ElasticNet must be"),
        ({"max_iter": 0}, "The 'max_iter' parameter of ElasticNet must be"),
        ({"tol": -1.0}, "The 'tol' parameter of ElasticNet must be"),
    ],
)
def test_invalid_parameters_as_sklearn(rng, params, match):
    X, y = _regression(rng, 10, 3)
    with pytest.raises(InvalidParameterError, match=match):
        SkElasticNet(**params).fit(X, y)
    with pytest.raises(InvalidParameterError, match=match):
        ElasticNet(**params).fit(X, y)


def test_bad_input_as_sklearn(backend, rng):
    X, y = _regression(rng, 10, 3)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        X_nan = X.copy()
        X_nan[2, 1] = np.nan
        Lasso().fit(backend.asarray(X_nan), backend.asarray(y))
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\)"):
        Lasso().fit(backend.asarray(X), backend.asarray(y), sample_weight=np.ones(3))
    with pytest.raises(TypeError, match="Sparse data was passed"):
        Lasso().fit(X, sp.csr_matrix(y[:, None]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(UserWarning, match="With alpha=0"):
            SkLasso(alpha=0, max_iter=5).fit(X, y)
        with pytest.warns(UserWarning, match="With alpha=0"):
            Lasso(alpha=0, max_iter=5).fit(backend.asarray(X), backend.asarray(y))
    model = Lasso().fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match="X has 2 features"):
        model.predict(backend.asarray(X[:, :2]))


def test_sparse_coef_and_pickle(backend, rng):
    X, y = _regression(rng, 30, 6)
    model = Lasso(alpha=0.3).fit(backend.asarray(X), backend.asarray(y))
    expected = SkLasso(alpha=0.3).fit(X, y)
    sparse = model.sparse_coef_
    assert sparse.shape == expected.sparse_coef_.shape == (1, 6)
    np.testing.assert_allclose(
        backend.to_numpy(sparse).toarray(), expected.sparse_coef_.toarray(), rtol=1e-6
    )
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(
        backend.to_numpy(clone.predict(backend.asarray(X))),
        backend.to_numpy(model.predict(backend.asarray(X))),
    )


def _drawn_problem(seed, dtype=np.float64, density=None):
    """A wide problem, its penalty and tolerance drawn from ``seed`` (the
    draws of the search that found the cases below)."""
    rng = np.random.default_rng(seed)
    n, p = rng.integers(10, 40), rng.integers(20, 80)
    X = rng.standard_normal((n, p))
    y = X[:, :5] @ rng.standard_normal(5) + 0.1 * rng.standard_normal(n)
    alpha, tol = 10 ** rng.uniform(-4, -1), 10 ** rng.uniform(-8, -3)
    if density is not None:
        X = sp.csr_matrix(X * (rng.random(X.shape) < density))
    params = {"alpha": alpha, "l1_ratio": 0.8, "tol": tol, "max_iter": 5000}
    return X.astype(dtype), y.astype(dtype), params


# (seed, dtype, density, extra parameters, with sample weights): gpuml's
# batched sweeps (NumPy's per-coordinate loop, the CPU's solver before)
# stop two sweeps earlier than scikit-learn on the first (117 against 119)
# and differ by 1e-12 on the others; the compiled solver gives scikit-learn's
# own bits
COMPILED_CASES = {
    "float32-dense": (18, np.float32, None, {"fit_intercept": False}, False),
    "random-selection": (
        18, np.float64, None,
        {"fit_intercept": False, "tol": 1e-8, "selection": "random", "random_state": 0},
        False,
    ),
    "sparse-weighted": (117, np.float64, 0.3, {}, True),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(COMPILED_CASES))
def test_cpu_runs_sklearns_compiled_solver(case):
    """On the CPU each problem runs through scikit-learn's compiled
    coordinate descent (``sklearn.linear_model._cd_fast``), fed what
    scikit-learn's fit feeds it: the same coefficients to the bit, the same
    sweeps, the same gap; one by one and as a batch of candidates."""
    from gpuml import config_context

    seed, dtype, density, extra, weighted = COMPILED_CASES[case]
    X, y, params = _drawn_problem(seed, dtype, density)
    params.update(extra)
    fit = {"sample_weight": np.linspace(0.5, 2.0, X.shape[0])} if weighted else {}
    expected = SkElasticNet(**params).fit(X, y, **fit)
    with config_context(device="cpu"):
        model = ElasticNet(**params).fit(X, y, **fit)
        alphas = [params["alpha"], 2 * params["alpha"]]
        (batch,) = ElasticNet(**params)._fit_batch(
            X, y, [{"alpha": a} for a in alphas], sample_weight=fit.get("sample_weight")
        )
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    assert model.n_iter_ == expected.n_iter_
    assert model.dual_gap_ == expected.dual_gap_
    assert model.intercept_ == expected.intercept_
    for alpha, coef in zip(alphas, batch.coefs[:, 0], strict=True):
        other = SkElasticNet(**{**params, "alpha": alpha}).fit(X, y, **fit)
        np.testing.assert_array_equal(coef, other.coef_)


@pytest.mark.parametrize(
    "params",
    [{}, {"positive": True}, {"selection": "random", "random_state": 2}],
    ids=["cyclic", "positive", "random"],
)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "form", ["gram", "residuals", "sparse"], ids=["gram", "residuals", "sparse"]
)
def test_batched_sweeps_on_the_cpu_equal_the_compiled_solver(
    rng, monkeypatch, form, weighted, params
):
    """The batched sweeps (the GPU's algorithm, also its loop for sparse X
    and random selection) keep running on the CPU when the compiled solver
    is off: the same fits (a batch of candidates and two targets) up to
    rounding."""
    from gpuml import config_context
    from gpuml.linear_model import _coordinate_descent_solver as cd

    # shapes and alphas where scikit-learn's solver converges well within
    # max_iter on every draw (measured over 1,000 draws per case: at most
    # 1,697 sweeps; sparse 16 x 24 at alpha 0.1 stopped at 5,000 on 1-3 %)
    shape = {"gram": (60, 8), "residuals": (16, 24), "sparse": (60, 24)}[form]
    X, Y = _regression(rng, *shape, n_targets=2)
    if form == "sparse":
        X = _sparse(rng, X)
    sw = rng.uniform(0.5, 2.0, X.shape[0]) if weighted else None
    grid = [{"alpha": a, "l1_ratio": r} for a in (0.3, 1.0) for r in (0.5, 1.0)]
    estimator = ElasticNet(alpha=0.1, tol=TOL, max_iter=5000, **params)
    fits = {}
    with config_context(device="cpu"):
        for compiled in (True, False):
            monkeypatch.setattr(cd, "COMPILED_CPU", compiled)
            (batch,) = estimator._fit_batch(X, Y, grid, sample_weight=sw)
            model = clone(estimator).fit(X, Y, sample_weight=sw)
            fits[compiled] = (batch.coefs, batch.intercepts, model.n_iter_)
    np.testing.assert_allclose(fits[False][0], fits[True][0], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(fits[False][1], fits[True][1], rtol=1e-8, atol=1e-12)
    assert np.all(np.abs(np.subtract(fits[False][2], fits[True][2])) <= 1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("positive", [False, True])
@pytest.mark.parametrize("shape", [(80, 12), (20, 40)], ids=["gram", "residuals"])
def test_sweep_kernel_matches_per_coordinate_path(
    rng, monkeypatch, shape, positive, dtype
):
    """The CUDA sweeps (gpuml/_cuda/enet.cu, one launch per sweep) make the
    per-coordinate path's updates: on the Gram matrix with the same
    rounding (the same bits), on dense residuals up to the order of the
    dot products' sums; for a batch of candidates and targets."""
    cp = pytest.importorskip("cupy")
    from gpuml import config_context
    from gpuml.linear_model import _coordinate_descent_solver as cd

    X, Y = _regression(rng, *shape, n_targets=2, dtype=dtype)
    grid = [{"alpha": a, "l1_ratio": r} for a in (0.01, 0.1, 1.0) for r in (0.5, 1)]
    tol = 1e-6 if dtype == np.float32 else 1e-8
    estimator = ElasticNet(tol=tol, positive=positive, max_iter=3000)
    fits = {}
    with config_context(device="gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the same on both
        for kernel in (True, False):
            monkeypatch.setattr(cd, "SWEEP_KERNEL", kernel)
            (batch,) = estimator._fit_batch(cp.asarray(X), cp.asarray(Y), grid)
            fits[kernel] = (cp.asnumpy(batch.coefs), cp.asnumpy(batch.intercepts))
            model = ElasticNet(**estimator.get_params()).fit(
                cp.asarray(X), cp.asarray(Y)
            )
            fits[kernel, "n_iter"] = model.n_iter_
            fits[kernel, "coef"] = cp.asnumpy(model.coef_)
        expected = SkElasticNet(**estimator.get_params()).fit(X, Y)
    if shape[0] >= shape[1]:  # the Gram form: the same operations
        np.testing.assert_array_equal(fits[True][0], fits[False][0])
        np.testing.assert_array_equal(fits[True][1], fits[False][1])
        assert fits[True, "n_iter"] == fits[False, "n_iter"]
    else:
        assert _rel_err(fits[True][0], fits[False][0]) < RTOL[dtype]
        assert _rel_err(fits[True][1], fits[False][1]) < RTOL[dtype]
        got, other = np.array(fits[True, "n_iter"]), np.array(fits[False, "n_iter"])
        assert np.all(np.abs(got - other) <= 2)
    assert _rel_err(fits[True, "coef"], expected.coef_) < RTOL[dtype]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["intercept", "none"])
def test_sparse_gram_equals_the_dense_gram(
    rng, monkeypatch, fit_intercept, weighted, dtype
):
    """The GPU's Gram form of sparse X (run here with NumPy and SciPy, over
    blocks of 7 rows) is the dense X's Gram form: the centred, weighted Gram
    matrix, Xᵀ y, the targets' squared norms and the offsets."""
    from gpuml.linear_model import _coordinate_descent as cd

    monkeypatch.setattr(cd, "_GRAM_BLOCK", 7 * 6)  # 6 features: 7 rows a block
    X, Y = _regression(rng, 40, 6, n_targets=2)
    X = np.where(rng.uniform(size=X.shape) < 0.6, 0, X).astype(dtype)
    Y = Y.astype(dtype)
    sw = rng.uniform(0.3, 3.0, 40).astype(dtype) if weighted else None
    got = cd._sparse_device_gram(sp.csr_matrix(X), Y, sw, fit_intercept, np)
    want = cd._prepare(
        X, Y, sw, fit_intercept=fit_intercept, precompute=True,
        overwrite_X=False, xp=np,
    )  # fmt: skip
    assert got.kind == want.kind == "gram"
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    for a, b in [
        (got.G, want.G),
        (got.Xy, want.Xy),
        (got.host["Xy"], want.Xy),
        (got.host["y_norm2"], (want.Y * want.Y).sum(axis=0)),
        (got.host["diag"], np.diagonal(want.G)),
        (got.X_offset, want.X_offset),
        (got.y_offset, want.y_offset),
    ]:
        assert a.dtype == dtype
        scale = np.abs(b).max()
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale)
    # the operator of three candidates, on targets 0, 1 and 1
    ops = got.ops([0, 1, 1])
    np.testing.assert_array_equal(ops.B, got.host["Xy"][:, [0, 1, 1]])
    np.testing.assert_array_equal(ops.y_norm2, got.host["y_norm2"][[0, 1, 1]])


def test_sparse_gram_of_overflowing_data_is_declined(rng):
    from gpuml.linear_model import _coordinate_descent as cd

    X = sp.csr_matrix(np.array([[3e38, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32))
    Y = np.ones((3, 1), np.float32)
    assert cd._sparse_device_gram(X, Y, None, True, np) is None


def test_sparse_data_on_the_gpu_take_a_dense_form(backend, rng):
    """On the GPU sparse X of few features is fitted from its Gram matrix
    (tall) or densified (wide), whose sweeps are kernel launches; negative
    weights, and the CPU (scikit-learn's compiled sparse solver), keep it
    sparse."""
    from gpuml._array import compute_namespace, to_namespace
    from gpuml.linear_model import _coordinate_descent as cd

    xp = compute_namespace()
    X, y = _regression(rng, 30, 12)
    X = _sparse(rng, X)
    Y = y.reshape(-1, 1)
    cases = {
        "tall": (X, None),
        "wide": (X[:8], None),
        "negative": (X, np.where(np.arange(30) == 0, -0.5, 1.0)),
    }
    for case, (X_case, sw) in cases.items():
        n = X_case.shape[0]
        data = cd._prepare(
            to_namespace(X_case, xp),
            xp.asarray(Y[:n]),
            None if sw is None else xp.asarray(sw),
            fit_intercept=True,
            precompute=False,
            overwrite_X=False,
            xp=xp,
        )
        if backend.device == "cpu" or case == "negative":
            assert data.kind == "sparse", case
        else:
            assert data.kind == {"tall": "gram", "wide": "dense"}[case]


@pytest.mark.parametrize("form", ["gram", "dense", "sparse"])
def test_random_selection_on_the_gpu_solves_on_a_host_copy(rng, monkeypatch, form):
    """On the GPU, selection="random" (no sweep kernel) runs scikit-learn's
    compiled solver on a host copy of the operator, made once per operator:
    the CPU's coefficients, sweeps and gaps. The GPU's namespace is played
    by NumPy under another name, which takes the device's code paths (the
    Gram form then keeps no targets, as on the GPU)."""
    import types

    from gpuml.linear_model import _coordinate_descent as cd
    from gpuml.linear_model import _coordinate_descent_solver as solver

    device = types.ModuleType("device_numpy")
    device.__dict__.update(vars(np))
    shape = {"gram": (60, 8), "dense": (16, 24), "sparse": (60, 24)}[form]
    X, y = _regression(rng, *shape)
    if form == "sparse":
        X = _sparse(rng, X)
    alphas, ratio = [0.3, 1.0], 0.7
    seeds = cd._random_seeds(5, 1)
    options = dict(max_iter=5000, tol=1e-8, positive=False, seeds=seeds)
    twins = []
    for cls in (solver._GramOps, solver._DenseOps, solver._SparseOps):
        made = cls.host_twin

        def counted(self, made=made):
            twins.append(type(self).__name__)
            return made(self)

        monkeypatch.setattr(cls, "host_twin", counted)
    fits = {}
    for xp in (np, device):
        data = cd._prepare(
            X, y[:, None], None, fit_intercept=True, precompute=False,
            overwrite_X=False, xp=np,
        )  # fmt: skip
        assert data.kind == form
        data.xp = xp
        fits[xp] = cd.fit_candidates(data, alphas, [ratio] * 2, **options)
    # one copy of the one operator of the batch, on the "device" only
    assert len(twins) == 1
    coefs, intercepts, gaps, n_iter = fits[device]
    assert type(coefs) is np.ndarray
    np.testing.assert_array_equal(n_iter, fits[np][3])
    np.testing.assert_allclose(coefs, fits[np][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(intercepts, fits[np][1], rtol=1e-12, atol=1e-14)
    if form != "gram":  # the same solver on the same data: the same bits
        np.testing.assert_array_equal(coefs, fits[np][0])
        np.testing.assert_array_equal(gaps, fits[np][2])
    for i, alpha in enumerate(alphas):
        expected = SkElasticNet(
            alpha=alpha, l1_ratio=ratio, tol=1e-8, max_iter=5000,
            selection="random", random_state=5,
        ).fit(X, y)  # fmt: skip
        assert _rel_err(coefs[i, 0], expected.coef_) < 1e-8


@pytest.mark.parametrize("weights", ["none", "negative"])
def test_sparse_residuals_on_the_gpu_solve_on_a_host_copy(rng, monkeypatch, weights):
    """On the GPU, sparse X's residual form (wide sparse X, or negative
    weights) has no sweep kernel: cyclic fits run scikit-learn's compiled
    sparse solver on a host copy of the operator, as the CPU does, the same
    bits (NumPy under another name plays the device's namespace)."""
    import types

    from gpuml.linear_model import _coordinate_descent as cd
    from gpuml.linear_model import _coordinate_descent_solver as solver

    device = types.ModuleType("device_numpy")
    device.__dict__.update(vars(np))
    X, y = _regression(rng, 40, 60)
    X = _sparse(rng, X)
    sw = None
    if weights == "negative":
        sw = rng.uniform(0.5, 2.0, X.shape[0])
        sw[::9] = -0.3
        sw *= len(sw) / sw.sum()  # as ElasticNet rescales them before _prepare
    made = []
    original = solver._SparseOps.host_twin
    monkeypatch.setattr(
        solver._SparseOps, "host_twin", lambda self: made.append(1) or original(self)
    )
    alphas, ratios = [0.05, 0.2, 1.0], [0.5, 1.0, 0.9]
    options = dict(max_iter=5000, tol=1e-8, positive=False, seeds=None)
    fits = {}
    with warnings.catch_warnings():
        # negative weights: scikit-learn's gap is NaN, it warns (as below)
        warnings.simplefilter("ignore", ConvergenceWarning)
        for xp in (np, device):
            data = cd._prepare(
                X, y[:, None], sw, fit_intercept=True, precompute=False,
                overwrite_X=False, xp=np,
            )  # fmt: skip
            assert data.kind == "sparse"
            data.xp = xp
            fits[xp] = cd.fit_candidates(data, alphas, ratios, **options)
        expected = [
            SkElasticNet(alpha=alpha, l1_ratio=ratio, tol=1e-8, max_iter=5000)
            .fit(X, y, sample_weight=sw)
            .coef_
            for alpha, ratio in zip(alphas, ratios, strict=True)
        ]
    assert len(made) == 1  # the device's operator, copied once
    for ours, theirs in zip(fits[device], fits[np], strict=True):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    for i, coef in enumerate(expected):
        assert _rel_err(fits[device][0][i, 0], coef) < 1e-8


def test_random_selection_host_copy_is_made_once_per_operator(rng, monkeypatch):
    """A path's steps reuse the operator's host copy."""
    import types

    from gpuml.linear_model import _coordinate_descent_solver as solver

    device = types.ModuleType("device_numpy")
    device.__dict__.update(vars(np))
    X, y = _regression(rng, 16, 24)
    X -= X.mean(axis=0)
    y = y - y.mean()
    ops = solver._DenseOps(X, y[:, None], device)
    top = np.abs(X.T @ y).max()  # the smallest l1 of an all-zero solution
    made = []
    original = solver._DenseOps.host_twin
    monkeypatch.setattr(
        solver._DenseOps, "host_twin", lambda self: made.append(1) or original(self)
    )
    W = np.zeros((24, 1))
    for l1 in (0.5 * top, 0.2 * top, 0.1 * top):
        W, _, n_iter, _ = solver.enet_coordinate_descent_batch(
            ops, W, np.array([l1]), np.array([1.0]), max_iter=1000, tol=1e-8,
            seeds=[7], xp=device,
        )  # fmt: skip
        assert n_iter[0] > 0
    assert len(made) == 1
