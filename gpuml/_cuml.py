"""The cuML engine: the only module that imports cuML, and the engine rule.

Ridge, LogisticRegression, NearestNeighbors and UMAP take an ``engine``
parameter: ``"gpuml"`` (gpuml's own kernels), ``"cuml"`` (cuML's, which
must be installed and support the settings) or ``"auto"`` (the default:
whichever measured faster at equal or near-equal quality for that
estimator, setting and size; see ``docs/rapids.rst`` and
``benchmarks/RESULTS.md``, issue 18).

Either engine sits behind the same estimator: gpuml validates the input
(its errors, its dtype and family rules), hands cuML device arrays that are
already in the compute namespace, reads cuML's results back as CuPy arrays
and sets its own fitted attributes from them, so prediction, scoring,
pickling and the output family do not depend on the engine. Each fit
records the engine that ran as ``engine_``.

Each estimator asks two questions here: :func:`choose_engine` (which engine
runs this fit) with the reason, if any, that cuML cannot do these settings
exactly (``*_unsupported`` below), and then calls the matching ``fit_*``
function when the answer is ``"cuml"``. cuML is imported only when it is
about to run (``engine="auto"`` checks that it is installed without
importing it).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from gpuml._sklearn_compat import StrOptions

ENGINES = ("auto", "gpuml", "cuml")
ENGINE_CONSTRAINT = [StrOptions(set(ENGINES))]

INSTALL_HINT = (
    "Install cuML for your CUDA version (pip install cuml-cu13, or cuml-cu12 for "
    "CUDA 12; https://docs.rapids.ai/install), or use engine='gpuml' or "
    "engine='auto' (gpuml's own kernels; cuML is never required)."
)

# "auto" picks cuML's UMAP from this many samples (with the euclidean or
# cosine metric and no random_state): there gpuml's exact neighbours, whose
# cost grows as n², fall behind cuML's approximate ones (nn-descent).
# Measured on one H100 (benchmarks/RESULTS.md, issue 18).
UMAP_CUML_MIN_SAMPLES = 500_000
# ... and cuML's brute-force kneighbors from this many fitted samples (float32,
# its metrics): 4x faster than gpuml's float64 search at 100,000 and 300,000
# points, which grows as n² past cuML's one-off import (4 s in a new process).
NEIGHBORS_CUML_MIN_SAMPLES = 500_000
_UMAP_APPROXIMATE_METRICS = frozenset({"euclidean", "l2", "cosine"})


@functools.cache
def cuml_installed() -> bool:
    """Whether cuML can be imported (checked without importing it)."""
    return importlib.util.find_spec("cuml") is not None


def import_cuml(submodule: str = "") -> ModuleType:
    """``cuml`` (or ``cuml.<submodule>``), or an ImportError naming the fix.

    ``import cuml`` (like ``import cudf``) makes RMM's allocator CuPy's for
    the whole process, which without an RMM pool allocates every array with
    ``cudaMalloc`` instead of from CuPy's pool. When this import is gpuml's
    (the user had not imported cuML), CuPy's allocator is put back, so that
    choosing an engine does not slow every later CuPy allocation; a user
    who imports cuML (or cuDF) first keeps what RAPIDS sets. (cuML imports
    cuDF, so a user's ``import cudf`` after gpuml's import of cuML no
    longer changes the allocator.)
    """
    name = f"cuml.{submodule}" if submodule else "cuml"
    if not cuml_installed():
        raise ImportError(
            f"engine='cuml' needs cuML, which is not installed. {INSTALL_HINT}"
        )
    cupy = sys.modules.get("cupy") if "cuml" not in sys.modules else None
    allocator = cupy.cuda.get_allocator() if cupy is not None else None
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"engine='cuml' needs cuML, which failed to import ({exc}). Where "
            "CuPy found an older CUDA toolkit than cuML's wheels need, importing "
            "cuml before any GPU work (at the top of the script) lets it load its "
            f"own libraries. {INSTALL_HINT}"
        ) from exc
    finally:
        if allocator is not None:
            cupy.cuda.set_allocator(allocator)


@functools.cache
def _cuml_usable() -> bool:
    """Whether cuML imports (tried once, when ``engine="auto"`` would use it);
    a failure warns once and leaves "auto" with gpuml's kernels."""
    try:
        import_cuml()
    except Exception as exc:  # a broken CUDA install raises many kinds of error
        warnings.warn(
            f"engine='auto' uses gpuml's kernels: {exc}", UserWarning, stacklevel=4
        )
        return False
    return True


def choose_engine(
    estimator, xp: ModuleType, unsupported: str | None, prefer_cuml: bool
) -> str:
    """The engine that runs this fit: ``"gpuml"`` or ``"cuml"``.

    ``unsupported`` is why cuML cannot run these settings exactly (None when
    it can); ``prefer_cuml`` is the measured rule of ``engine="auto"`` for
    this estimator, setting and size. ``engine="cuml"`` raises an ImportError
    without cuML and a ValueError where cuML cannot run (the CPU, or
    ``unsupported``), naming the fix.
    """
    engine = estimator.engine
    if engine == "gpuml":
        return "gpuml"
    if engine == "cuml":
        import_cuml()
        name = type(estimator).__name__
        if xp is np:
            raise ValueError(
                f"{name}(engine='cuml') runs on the GPU, but gpuml computes on the CPU "
                "here (device='cpu', or no usable GPU). Use engine='gpuml' or "
                "engine='auto' on the CPU."
            )
        if unsupported is not None:
            raise ValueError(
                f"{name}(engine='cuml'): cuML cannot {unsupported}. Use engine='gpuml' "
                "or engine='auto' for these settings."
            )
        return "cuml"
    if xp is np or unsupported is not None or not prefer_cuml or not cuml_installed():
        return "gpuml"
    return "cuml" if _cuml_usable() else "gpuml"


def _as_cupy(result):
    """cuML's output (CuPy with ``output_type="cupy"``) as a CuPy array."""
    cupy = importlib.import_module("cupy")
    return cupy.asarray(result)


# -- Ridge ---------------------------------------------------------------


def ridge_unsupported(solver: str, sparse: bool) -> str | None:
    """Why cuML's Ridge cannot fit these settings as gpuml would, or None."""
    if sparse:
        return "fit sparse X with a direct solver (its sparse solver is lsmr)"
    if solver not in ("cholesky", "svd"):
        return f"run solver='{solver}' (its solvers are eig, svd and lsmr)"
    return None


def fit_ridge(
    X, y, sample_weight, alpha, *, solver: str, fit_intercept: bool, may_mutate_X: bool
):
    """cuML's Ridge on device arrays; ``(coef, intercept)`` as gpuml's solvers
    return them: ``coef`` of shape (n_targets, n_features), ``intercept`` of
    shape (n_targets,).

    gpuml's ``"cholesky"`` (the normal equations) runs cuML's ``"eig"`` (the
    same equations, by eigendecomposition), or its ``"svd"`` where ``"eig"``
    has no multi-target or one-feature support; ``"svd"`` runs ``"svd"``.
    """
    linear_model = import_cuml("linear_model")
    n_targets = 1 if y.ndim == 1 else y.shape[1]
    if solver == "svd" or n_targets > 1 or X.shape[1] == 1:
        cuml_solver = "svd"
    else:
        cuml_solver = "eig"
    penalty = alpha if alpha.shape[0] > 1 else float(alpha[0])
    model = linear_model.Ridge(
        alpha=penalty,
        fit_intercept=fit_intercept,
        solver=cuml_solver,
        copy_X=not may_mutate_X,
        output_type="cupy",
    )
    model.fit(X, y, sample_weight=sample_weight)
    coef = _as_cupy(model.coef_).astype(X.dtype, copy=False).reshape(n_targets, -1)
    if not fit_intercept:  # cuML's is the scalar 0.0 whatever the targets
        return coef, importlib.import_module("cupy").zeros(n_targets, dtype=X.dtype)
    intercept = _as_cupy(model.intercept_).astype(X.dtype, copy=False)
    return coef, intercept.reshape(n_targets)


# -- LogisticRegression ----------------------------------------------------


def logistic_unsupported(
    estimator, X, warm_start: bool, weighted_multinomial: bool
) -> str | None:
    """Why cuML's LogisticRegression cannot fit these settings as gpuml
    would, or None."""
    if hasattr(X, "indices") and X.indices.dtype != np.int32:
        # its input check takes sparse matrices with 32-bit indices only
        return "fit sparse X with 64-bit indices"
    if warm_start:
        return "start from the previous coefficients (warm_start=True)"
    if weighted_multinomial:
        # cuML 26.10's weighted softmax loss reached other coefficients than
        # scikit-learn's (by 0.1 on class_weight="balanced"; the binary
        # weighted loss and the unweighted softmax agree): tests/test_engine.py
        return (
            "fit sample or class weights with more than two classes as "
            "scikit-learn does"
        )
    if hasattr(estimator, "_skl_callbacks"):
        return "report its iterations to scikit-learn's callbacks"
    return None


def fit_logistic(
    X,
    y_index,
    n_classes: int,
    weights,
    inverse_C: float,
    *,
    fit_intercept,
    max_iter,
    tol,
):
    """cuML's quasi-Newton LogisticRegression on device arrays.

    ``y_index`` holds the class indices (gpuml encodes the labels, so
    classes may be strings), ``weights`` the sample weights with the class
    weights folded in (or None). scikit-learn minimises
    ``C * sum(w * loss) + |coef|² / 2``; cuML (``penalty_normalized=True``)
    the weighted mean loss plus ``|coef|² / (2 C n)``. The weights are
    rescaled to sum to ``n`` and ``C`` by ``sum(w) / n``, which leaves
    scikit-learn's optimum unchanged and makes the two objectives
    proportional, whichever of ``n`` or ``sum(w)`` cuML averages by.
    Multinomial for more than two classes, as scikit-learn's lbfgs.
    Returns ``(coef, intercept, n_iter)``: ``coef`` of shape
    (1 or n_classes, n_features), ``intercept`` of its rows' length.
    """
    linear_model = import_cuml("linear_model")
    cupy = importlib.import_module("cupy")
    n = X.shape[0]
    C = np.inf if inverse_C == 0.0 else 1.0 / inverse_C
    if weights is not None:
        total = float(weights.sum())
        weights = (weights * (n / total)).astype(X.dtype)
        C = C * total / n
    model = linear_model.LogisticRegression(
        penalty=None if C == np.inf else "l2",
        C=1.0 if C == np.inf else C,
        fit_intercept=fit_intercept,
        max_iter=max_iter,
        tol=tol,
        output_type="cupy",
    )
    model.fit(X, y_index.astype(X.dtype), sample_weight=weights)
    rows = 1 if n_classes == 2 else n_classes
    coef = _as_cupy(model.coef_).astype(X.dtype, copy=False).reshape(rows, -1)
    if fit_intercept:
        intercept = _as_cupy(model.intercept_).astype(X.dtype, copy=False)
        intercept = intercept.reshape(rows)
    else:
        intercept = cupy.zeros(rows, dtype=X.dtype)
    n_iter = int(np.asarray(model.n_iter_).ravel()[0])
    if n_iter >= max_iter:
        warnings.warn(
            f"cuML's quasi-Newton solver failed to converge after {max_iter} "
            "iteration(s) (engine='cuml').\nIncrease the number of iterations to "
            f"improve the convergence (max_iter={max_iter}).",
            ConvergenceWarning,
            stacklevel=4,
        )
    return coef, intercept, min(n_iter, max_iter)


# -- NearestNeighbors ------------------------------------------------------

_NEIGHBOR_METRICS = {
    "euclidean": "euclidean",
    "manhattan": "manhattan",
    "cosine": "cosine",
    "correlation": "correlation",
}


def kneighbors_unsupported(metric: str, dtype) -> str | None:
    """Why cuML's brute-force search cannot answer these queries as gpuml
    would, or None (``metric`` is gpuml's device metric)."""
    if metric not in _NEIGHBOR_METRICS:
        return f"search with metric={metric!r} on the GPU"
    if np.dtype(dtype) != np.float32:
        return "search float64 data (it computes in float32; gpuml in float64)"
    return None


def kneighbors_prefers_cuml(n_samples: int) -> bool:
    """The measured rule of ``NearestNeighbors(engine="auto")``."""
    return n_samples >= NEIGHBORS_CUML_MIN_SAMPLES


def kneighbors(fit_X, Q, k: int, metric: str):
    """cuML's exact (brute-force) k nearest neighbours of the rows of ``Q``
    among those of ``fit_X``: ``(distances, indices)`` as CuPy arrays
    (float32 distances, int64 indices), nearest first."""
    neighbors = import_cuml("neighbors")
    model = neighbors.NearestNeighbors(
        n_neighbors=k,
        algorithm="brute",
        metric=_NEIGHBOR_METRICS[metric],
        output_type="cupy",
    ).fit(fit_X)
    distances, indices = model.kneighbors(Q, n_neighbors=k)
    return _as_cupy(distances), _as_cupy(indices).astype(np.int64, copy=False)


# -- UMAP -----------------------------------------------------------------

_UMAP_METRICS = frozenset(
    {"euclidean", "l2", "manhattan", "cityblock", "l1", "cosine", "correlation"}
)


def umap_unsupported(metric: str, init, supervised: bool) -> str | None:
    """Why cuML's UMAP cannot fit these settings as gpuml would, or None."""
    if metric not in _UMAP_METRICS:
        return f"embed with metric={metric!r}"
    if isinstance(init, str) and init == "pca":
        return "start from init='pca' (it has 'spectral', 'random' and arrays)"
    if supervised:
        return "fit supervised UMAP with gpuml's rule for unlabelled samples (-1)"
    return None


def umap_prefers_cuml(n_samples: int, metric: str, random_state) -> bool:
    """The measured rule of ``UMAP(engine="auto")``: cuML from
    :data:`UMAP_CUML_MIN_SAMPLES` samples, where its approximate neighbours
    pay off, for the metrics they support, and only without a
    ``random_state`` (a seeded cuML fit uses exact neighbours: no faster)."""
    return (
        n_samples >= UMAP_CUML_MIN_SAMPLES
        and metric in _UMAP_APPROXIMATE_METRICS
        and random_state is None
    )


def fit_umap(X, *, k: int, n_epochs: int, a: float, b: float, init, seed, params: dict):
    """cuML's UMAP on device data: ``(embedding, graph)``, the embedding a
    float32 CuPy array, the fuzzy simplicial set a SciPy CSR matrix.

    ``k`` and ``n_epochs`` are gpuml's (n_neighbors truncated to the data,
    umap-learn's default epochs), ``a`` and ``b`` the curve gpuml fitted,
    ``seed`` None or an int; ``params`` carries the layout settings with
    their umap-learn names.
    """
    manifold = import_cuml("manifold")
    # cuML's approximate neighbours (its "auto" above 50,000 unseeded
    # samples) have the euclidean and cosine metrics only
    approximate = params["metric"] in _UMAP_APPROXIMATE_METRICS
    model = manifold.UMAP(
        n_neighbors=k,
        n_epochs=n_epochs,
        a=a,
        b=b,
        init=init,
        random_state=seed,
        build_algo="auto" if approximate else "brute_force_knn",
        output_type="cupy",
        **params,
    )
    embedding = _as_cupy(model.fit_transform(X)).astype(np.float32, copy=False)
    graph = model.graph_.tocsr().astype(np.float32)
    graph.sort_indices()
    return embedding, graph
