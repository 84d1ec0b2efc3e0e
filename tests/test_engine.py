"""The ``engine`` parameter: gpuml's kernels or cuML's behind one estimator.

Everywhere: the parameter's validation, the ImportError that names the
package without cuML, the CPU refusing ``engine="cuml"``, the "auto" rule,
and "gpuml"/"auto" fitting as before. On a GPU with cuML importable:
parity of ``engine="cuml"`` with scikit-learn (and with gpuml's engine) for
Ridge, LogisticRegression, NearestNeighbors and UMAP, output families,
searches (one candidate at a time), and the settings cuML cannot run.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.neighbors import NearestNeighbors as SkNearestNeighbors
from sklearn.utils._param_validation import InvalidParameterError

from gpuml import _cuml, config_context
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.manifold import UMAP
from gpuml.metrics import trustworthiness
from gpuml.model_selection import GridSearchCV
from gpuml.neighbors import NearestNeighbors
from tests.conftest import HAS_GPU

HAS_CUML = importlib.util.find_spec("cuml") is not None
ESTIMATORS = [Ridge, LogisticRegression, NearestNeighbors, UMAP]


def small_problem(estimator_class, rng):
    X = rng.standard_normal((60, 4))
    y = (X[:, 0] + 0.5 * rng.standard_normal(60) > 0).astype(int)
    if estimator_class is Ridge:
        y = X @ np.arange(1.0, 5.0)
    if estimator_class is UMAP:
        return estimator_class(n_epochs=5, random_state=0), X, None
    return estimator_class(), X, y


def fit(estimator, X, y):
    return estimator.fit(X) if y is None else estimator.fit(X, y)


# -- everywhere -------------------------------------------------------------


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_engine_is_a_parameter(estimator_class):
    estimator = estimator_class(engine="gpuml")
    assert estimator.get_params()["engine"] == "gpuml"
    assert clone(estimator).engine == "gpuml"
    assert estimator_class().engine == "auto"


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_unknown_engine_is_rejected(estimator_class, rng):
    estimator, X, y = small_problem(estimator_class, rng)
    estimator.set_params(engine="sklearn")
    with pytest.raises(InvalidParameterError, match="'engine' parameter"):
        fit(estimator, X, y)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_auto_and_gpuml_fit_with_gpuml_on_the_cpu(estimator_class, rng):
    estimator, X, y = small_problem(estimator_class, rng)
    with config_context(device="cpu"):
        by_auto = fit(clone(estimator), X, y)
        by_gpuml = fit(clone(estimator).set_params(engine="gpuml"), X, y)
    assert by_auto.engine_ == by_gpuml.engine_ == "gpuml"
    for name in ("coef_", "embedding_"):
        if hasattr(by_auto, name):
            np.testing.assert_array_equal(
                getattr(by_auto, name), getattr(by_gpuml, name)
            )


@pytest.mark.skipif(HAS_CUML, reason="cuML is installed")
@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_cuml_engine_without_cuml_names_the_package(estimator_class, rng):
    estimator, X, y = small_problem(estimator_class, rng)
    estimator.set_params(engine="cuml")
    with pytest.raises(ImportError, match=r"pip install cuml-cu13.*engine='gpuml'"):
        fit(estimator, X, y)
    assert not hasattr(estimator, "engine_")


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_cuml_engine_on_the_cpu_names_the_fix(estimator_class, rng, monkeypatch):
    # as if cuML were installed: the CPU still cannot run it
    monkeypatch.setattr(_cuml, "import_cuml", lambda submodule="": None)
    estimator, X, y = small_problem(estimator_class, rng)
    estimator.set_params(engine="cuml")
    with config_context(device="cpu"):
        with pytest.raises(ValueError, match=r"runs on the GPU.*engine='gpuml'"):
            fit(estimator, X, y)


def test_auto_rule(monkeypatch):
    class Estimator:
        engine = "auto"

    gpu = object()  # any namespace but NumPy
    monkeypatch.setattr(_cuml, "cuml_installed", lambda: True)
    monkeypatch.setattr(_cuml, "_cuml_usable", lambda: True)
    assert _cuml.choose_engine(Estimator(), gpu, None, prefer_cuml=True) == "cuml"
    assert _cuml.choose_engine(Estimator(), gpu, None, prefer_cuml=False) == "gpuml"
    assert _cuml.choose_engine(Estimator(), gpu, "no", prefer_cuml=True) == "gpuml"
    assert _cuml.choose_engine(Estimator(), np, None, prefer_cuml=True) == "gpuml"
    monkeypatch.setattr(_cuml, "cuml_installed", lambda: False)
    assert _cuml.choose_engine(Estimator(), gpu, None, prefer_cuml=True) == "gpuml"

    big = _cuml.UMAP_CUML_MIN_SAMPLES
    assert _cuml.umap_prefers_cuml(big, "euclidean", None)
    assert _cuml.umap_prefers_cuml(big, "cosine", None)
    assert not _cuml.umap_prefers_cuml(big - 1, "euclidean", None)
    assert not _cuml.umap_prefers_cuml(big, "manhattan", None)  # exact there too
    assert not _cuml.umap_prefers_cuml(big, "euclidean", 0)  # seeded: exact
    assert _cuml.kneighbors_prefers_cuml(_cuml.NEIGHBORS_CUML_MIN_SAMPLES)
    assert not _cuml.kneighbors_prefers_cuml(_cuml.NEIGHBORS_CUML_MIN_SAMPLES - 1)


def test_auto_falls_back_when_cuml_fails_to_import(monkeypatch):
    class Estimator:
        engine = "auto"

    def broken(submodule=""):
        raise ImportError("libcuml.so: cannot open shared object file")

    monkeypatch.setattr(_cuml, "cuml_installed", lambda: True)
    monkeypatch.setattr(_cuml, "import_cuml", broken)
    _cuml._cuml_usable.cache_clear()
    try:
        with pytest.warns(UserWarning, match="engine='auto' uses gpuml's kernels"):
            engine = _cuml.choose_engine(Estimator(), object(), None, prefer_cuml=True)
        assert engine == "gpuml"
    finally:
        _cuml._cuml_usable.cache_clear()


def test_unsupported_settings_are_named(monkeypatch):
    monkeypatch.setattr(_cuml, "import_cuml", lambda submodule="": None)

    class Estimator:
        engine = "cuml"

    why = _cuml.umap_unsupported("euclidean", "pca", supervised=False)
    with pytest.raises(ValueError, match=r"init='pca'.*engine='gpuml'"):
        _cuml.choose_engine(Estimator(), object(), why, prefer_cuml=False)
    assert _cuml.ridge_unsupported("cholesky", sparse=True)
    for solver in ("sparse_cg", "lsqr", "sag", "saga", "lbfgs"):
        assert _cuml.ridge_unsupported(solver, sparse=False)
    assert _cuml.ridge_unsupported("svd", sparse=False) is None
    assert _cuml.kneighbors_unsupported("euclidean", np.float64)
    assert _cuml.kneighbors_unsupported("precomputed", np.float32)
    assert _cuml.kneighbors_unsupported("cosine", np.float32) is None
    assert _cuml.umap_unsupported("precomputed", "spectral", supervised=False)
    assert _cuml.umap_unsupported("euclidean", "spectral", supervised=True)
    assert _cuml.umap_unsupported("cosine", "random", supervised=False) is None


# -- on a GPU with cuML -----------------------------------------------------

needs_cuml = pytest.mark.skipif(
    not (HAS_CUML and HAS_GPU), reason="needs cuML and a GPU"
)


def regression(rng, n=500, p=12, targets=1, dtype=np.float64):
    X = rng.standard_normal((n, p)).astype(dtype)
    W = rng.standard_normal((p, targets))
    y = X @ W + 0.1 * rng.standard_normal((n, targets))
    return X, (y[:, 0] if targets == 1 else y).astype(dtype)


@pytest.mark.parametrize(
    "case", ["one", "targets", "weights", "svd", "no-intercept", "targets-no-intercept"]
)
@pytest.mark.gpu
@needs_cuml
def test_ridge_cuml_matches_sklearn(case, rng):
    X, y = regression(rng, targets=3 if case.startswith("targets") else 1)
    params = {"alpha": 2.5}
    if case == "svd":
        params["solver"] = "svd"
    if case.endswith("no-intercept"):
        params["fit_intercept"] = False
    if case.startswith("targets"):
        params["alpha"] = np.array([0.5, 2.0, 8.0])
    weights = rng.uniform(0.5, 2.0, X.shape[0]) if case == "weights" else None
    ours = Ridge(engine="cuml", **params).fit(X, y, sample_weight=weights)
    want = SkRidge(**params).fit(X, y, sample_weight=weights)
    assert ours.engine_ == "cuml"
    assert isinstance(ours.coef_, np.ndarray)  # host in, host attributes
    assert ours.coef_.shape == want.coef_.shape
    np.testing.assert_allclose(ours.coef_, want.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.intercept_, want.intercept_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.predict(X), want.predict(X), rtol=1e-6, atol=1e-7)
    assert ours.solver_ == Ridge(**params).fit(X, y).solver_


@pytest.mark.gpu
@needs_cuml
def test_ridge_cuml_keeps_device_family_and_float32(rng):
    import cupy

    X, y = regression(rng, dtype=np.float32)
    ours = Ridge(engine="cuml").fit(cupy.asarray(X), cupy.asarray(y))
    assert isinstance(ours.coef_, cupy.ndarray) and ours.coef_.dtype == np.float32
    predicted = ours.predict(cupy.asarray(X))
    assert isinstance(predicted, cupy.ndarray)
    want = SkRidge().fit(X, y)
    np.testing.assert_allclose(predicted.get(), want.predict(X), rtol=1e-3, atol=1e-3)


@pytest.mark.gpu
@needs_cuml
def test_ridge_cuml_refuses_sparse(rng):
    import scipy.sparse as sp

    X, y = regression(rng)
    with pytest.raises(ValueError, match=r"sparse X.*engine='gpuml'"):
        Ridge(engine="cuml").fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize(
    "case", ["binary", "multiclass", "strings", "balanced", "weights", "no-penalty"]
)
@pytest.mark.gpu
@needs_cuml
def test_logistic_cuml_matches_sklearn(case, rng):
    n_classes = 3 if case in ("multiclass", "strings") else 2
    X, y = make_classification(
        400,
        8,
        n_informative=5,
        n_classes=n_classes,
        weights=[0.6] + [0.4 / (n_classes - 1)] * (n_classes - 1),
        random_state=int(rng.integers(1 << 30)),
    )
    if case == "strings":
        y = np.array(["ant", "bee", "cat"])[y]
    params = {"C": 0.5, "tol": 1e-8, "max_iter": 1000}
    if case == "balanced":
        params["class_weight"] = "balanced"
    if case == "no-penalty":
        params["C"] = np.inf
        X = X + 0.5 * rng.standard_normal(X.shape)  # not separable
    weights = rng.uniform(0.5, 2.0, X.shape[0]) if case == "weights" else None
    ours = LogisticRegression(engine="cuml", **params).fit(X, y, sample_weight=weights)
    want = SkLogisticRegression(**params).fit(X, y, sample_weight=weights)
    assert ours.engine_ == "cuml"
    np.testing.assert_array_equal(ours.classes_, want.classes_)
    assert ours.coef_.shape == want.coef_.shape
    assert ours.n_iter_.shape == (1,)
    np.testing.assert_allclose(ours.coef_, want.coef_, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(
        ours.predict_proba(X), want.predict_proba(X), rtol=0, atol=1e-4
    )
    assert (ours.predict(X) == want.predict(X)).mean() > 0.99


@pytest.mark.gpu
@needs_cuml
def test_logistic_cuml_refuses_weighted_multinomial(rng):
    X, y = make_classification(200, 5, n_informative=3, n_classes=3, random_state=0)
    model = LogisticRegression(engine="cuml", class_weight="balanced")
    with pytest.raises(ValueError, match=r"more than two classes.*engine='gpuml'"):
        model.fit(X, y)
    assert LogisticRegression(class_weight="balanced").fit(X, y).engine_ == "gpuml"


@pytest.mark.parametrize("estimator", ["ridge", "logistic"])
@pytest.mark.gpu
@needs_cuml
def test_search_with_cuml_engine_matches_sklearn(estimator, rng):
    if estimator == "ridge":
        X, y = regression(rng, n=300)
        ours, theirs = Ridge(engine="cuml"), SkRidge()
        grid = {"alpha": [0.01, 1.0, 100.0]}
    else:
        X, y = make_classification(300, 6, random_state=int(rng.integers(1 << 30)))
        ours = LogisticRegression(engine="cuml", tol=1e-8, max_iter=1000)
        theirs = SkLogisticRegression(tol=1e-8, max_iter=1000)
        grid = {"C": [0.01, 1.0, 100.0]}
    got = GridSearchCV(ours, grid, cv=3).fit(X, y)
    want = SkGridSearchCV(theirs, grid, cv=3).fit(X, y)
    assert got.best_params_ == want.best_params_
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-4,
        atol=1e-4,
    )
    assert got.best_estimator_.engine_ == "cuml"


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine", "correlation"])
@pytest.mark.gpu
@needs_cuml
def test_nearest_neighbors_cuml_matches_sklearn(metric, rng):
    X = rng.standard_normal((800, 16)).astype(np.float32)
    Q = rng.standard_normal((50, 16)).astype(np.float32)
    ours = NearestNeighbors(n_neighbors=6, metric=metric, engine="cuml").fit(X)
    want = SkNearestNeighbors(n_neighbors=6, metric=metric).fit(X)
    assert ours.engine_ == "cuml"
    for query in (Q, None):
        got_d, got_i = ours.kneighbors(query)
        want_d, want_i = want.kneighbors(query)
        assert isinstance(got_i, np.ndarray) and got_i.shape == want_i.shape
        assert got_d.dtype == want_d.dtype
        np.testing.assert_allclose(got_d, want_d, rtol=1e-4, atol=1e-4)
        # random data: ties at float32's precision are rare
        assert (got_i == want_i).mean() > 0.99


@pytest.mark.gpu
@needs_cuml
def test_nearest_neighbors_cuml_refuses_float64(rng):
    X = rng.standard_normal((50, 4))
    with pytest.raises(ValueError, match=r"float64.*engine='gpuml'"):
        NearestNeighbors(engine="cuml").fit(X)


@pytest.mark.gpu
@needs_cuml
def test_umap_cuml_embeds_digits_as_well():
    import cupy
    import cupyx.scipy.sparse as cusp

    X, _ = load_digits(return_X_y=True)
    X = X.astype(np.float32)
    ours = UMAP(engine="cuml", random_state=0)
    embedding = ours.fit_transform(X)
    assert ours.engine_ == "cuml"
    assert isinstance(embedding, np.ndarray)
    assert embedding.shape == (X.shape[0], 2) and embedding.dtype == np.float32
    assert ours.graph_.shape == (X.shape[0], X.shape[0])
    assert ours.graph_.format == "csr"
    # gpuml's engine reached 0.9867 here (umap-learn 0.9865)
    assert trustworthiness(X, embedding, n_neighbors=15) > 0.975
    new = ours.transform(X[:100])
    assert new.shape == (100, 2) and np.isfinite(new).all()
    device = UMAP(engine="cuml", n_epochs=50).fit(cupy.asarray(X))
    assert isinstance(device.embedding_, cupy.ndarray)
    assert cusp.issparse(device.graph_)


@pytest.mark.gpu
@needs_cuml
def test_umap_cuml_exact_metric_above_cumls_approximate_size(rng):
    # cuML's own choice there (nn-descent) has no manhattan metric
    X = rng.standard_normal((60_000, 8)).astype(np.float32)
    model = UMAP(engine="cuml", metric="manhattan", n_epochs=10).fit(X)
    assert model.engine_ == "cuml" and model.embedding_.shape == (60_000, 2)


@pytest.mark.gpu
@needs_cuml
def test_umap_cuml_refuses_pca_init(rng):
    X = rng.standard_normal((100, 5)).astype(np.float32)
    with pytest.raises(ValueError, match=r"init='pca'"):
        UMAP(engine="cuml", init="pca").fit(X)


@pytest.mark.gpu
@needs_cuml
def test_auto_picks_gpuml_where_it_measured_faster(rng):
    X, y = regression(rng, dtype=np.float32)
    assert Ridge().fit(X, y).engine_ == "gpuml"
    assert LogisticRegression().fit(X, y > 0).engine_ == "gpuml"
    assert NearestNeighbors().fit(X).engine_ == "gpuml"  # below 500,000 samples
    assert UMAP(n_epochs=5).fit(X).engine_ == "gpuml"
    # beyond gpuml's layout kernel (16 components), "auto" runs cuML's
    wide = UMAP(n_components=17, n_epochs=5).fit(X)
    assert wide.engine_ == "cuml" and wide.embedding_.shape == (X.shape[0], 17)


def test_gpumls_import_of_cuml_keeps_cupys_allocator(monkeypatch):
    """``import cuml`` makes RMM's allocator CuPy's; when gpuml is the one
    importing cuML, CuPy's allocator is put back (simulated: a stand-in
    CuPy and an import that swaps its allocator, as cuML's does)."""
    import types

    state = {"allocator": "cupy's pool"}
    cuda = types.SimpleNamespace(
        get_allocator=lambda: state["allocator"],
        set_allocator=lambda allocator: state.update(allocator=allocator),
    )
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    monkeypatch.delitem(sys.modules, "cuml", raising=False)
    monkeypatch.setattr(_cuml, "cuml_installed", lambda: True)

    def import_module(name):
        state["allocator"] = "rmm"  # what cuML's __init__ does
        return types.ModuleType(name)

    monkeypatch.setattr(_cuml.importlib, "import_module", import_module)
    assert _cuml.import_cuml("neighbors").__name__ == "cuml.neighbors"
    assert state["allocator"] == "cupy's pool"
    # a user's own import of cuML keeps RAPIDS's choice
    monkeypatch.setitem(sys.modules, "cuml", types.ModuleType("cuml"))
    _cuml.import_cuml()
    assert state["allocator"] == "rmm"
