"""The only module that touches scikit-learn's private API.

gpuml supports scikit-learn >= 1.6. Private helpers are imported here once, so
that a rename in a future release is mended in one place.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager

from sklearn import get_config
from sklearn.base import _fit_context
from sklearn.impute._base import _most_frequent
from sklearn.linear_model import _cd_fast
from sklearn.model_selection._validation import (
    _enforce_prediction_order,
    _insert_error_scores,
    _shuffle,
    _translate_train_sizes,
    _warn_or_raise_about_fit_failures,
)
from sklearn.svm._base import _fit_liblinear, _get_liblinear_solver_type
from sklearn.svm._classes import _validate_dual_parameter
from sklearn.utils import _set_output
from sklearn.utils._encode import _check_unknown
from sklearn.utils._mask import _get_mask
from sklearn.utils._missing import is_pandas_na, is_scalar_nan
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    MissingValues,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.fixes import _ensure_sparse_index_int32
from sklearn.utils.validation import (
    _assert_all_finite_element_wise,
    _check_feature_names,
    _check_feature_names_in,
    _check_n_features,
    _check_y,
    _deprecate_positional_args,
    _num_samples,
)

try:  # scikit-learn >= 1.9: sparse outputs follow its ``sparse_interface``
    from sklearn.utils._sparse import _align_api_if_sparse as align_sparse_output
except ImportError:  # older releases return what they built

    def align_sparse_output(X):
        """Return ``X`` (scikit-learn < 1.9 has no ``sparse_interface``)."""
        return X


try:  # scikit-learn >= 1.9: estimators take callbacks (set_callbacks)
    from sklearn.callback import CallbackSupportMixin
except ImportError:  # older releases have none

    class CallbackSupportMixin:
        """scikit-learn < 1.9 has no callbacks: nothing to support."""


__all__ = [
    "CallbackSupportMixin",
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "MissingValues",
    "Options",
    "StrOptions",
    "align_sparse_output",
    "assert_all_finite_element_wise",
    "check_feature_names",
    "check_feature_names_in",
    "check_n_features",
    "check_unknown",
    "check_y_host",
    "deprecate_positional_args",
    "enet_cd_dense",
    "enet_cd_gram",
    "enet_cd_sparse",
    "enforce_prediction_order",
    "ensure_sparse_index_int32",
    "fit_context",
    "fixed_seed",
    "get_mask",
    "get_output_config",
    "host_most_frequent",
    "init_callback_context",
    "insert_error_scores",
    "is_index",
    "is_pandas_na",
    "is_scalar_nan",
    "kneighbors_constraints",
    "liblinear_dual",
    "liblinear_solver_type",
    "nearest_neighbors_constraints",
    "neighbors_fit_method",
    "num_samples",
    "openmp_effective_n_threads",
    "routing_enabled",
    "routing_owner",
    "shuffle_labels",
    "sklearn_kneighbors_mixin",
    "sklearn_scorer_spec",
    "translate_train_sizes",
    "validate_estimator_params",
    "validate_params",
    "warn_or_raise_about_fit_failures",
]

assert_all_finite_element_wise = _assert_all_finite_element_wise
check_feature_names = _check_feature_names
check_feature_names_in = _check_feature_names_in
# SimpleImputer's host helpers for object (string) columns: the
# missing-value mask and the mode with scikit-learn's tie rule.
get_mask = _get_mask
host_most_frequent = _most_frequent
check_n_features = _check_n_features
# The encoders' host helpers: scikit-learn's list of unknown categories (its
# error message), the output configuration of set_output, and the int32
# index arrays of OneHotEncoder's CSR output.
check_unknown = _check_unknown
get_output_config = _get_output_config
ensure_sparse_index_int32 = _ensure_sparse_index_int32
check_y_host = _check_y
# A FutureWarning for arguments passed by position that become keyword-only.
deprecate_positional_args = _deprecate_positional_args
# A callable ``scoring`` returning a dict: failed fits get ``error_score`` per
# metric once the metric names are known (scikit-learn's own helper).
insert_error_scores = _insert_error_scores
# cross_val_predict's columns for a fold that lacks classes (host arrays).
enforce_prediction_order = _enforce_prediction_order
# scikit-learn's FitFailedWarning (or error when every fit failed) of
# cross_validate, from result records.
warn_or_raise_about_fit_failures = _warn_or_raise_about_fit_failures
num_samples = _num_samples
# The OpenMP thread count scikit-learn's KMeans stores at fit (``_n_threads``,
# read by its predict): gpuml.to_sklearn sets it as that fit would.
openmp_effective_n_threads = _openmp_effective_n_threads
# LinearSVC/LinearSVR: scikit-learn's reading of dual="auto" and its errors
# for the loss, penalty and dual combinations liblinear lacks.
liblinear_dual = _validate_dual_parameter
liblinear_solver_type = _get_liblinear_solver_type
# scikit-learn's compiled liblinear: one fit of host data, ``(coef, intercept,
# n_iter)`` with its ConvergenceWarning. Positional arguments from 1.6 to 1.9:
# ``(X, y, C, fit_intercept, intercept_scaling, class_weight, penalty, dual,
# verbose, max_iter, tol, random_state, multi_class, loss, epsilon,
# sample_weight)``; it encodes the labels and drops samples whose weight is
# not positive itself.
fit_liblinear = _fit_liblinear
# learning_curve's absolute training sizes (and their validation messages).
translate_train_sizes = _translate_train_sizes
# permutation_test_score's shuffle of y (within groups), drawing from the
# random state exactly as scikit-learn does.
shuffle_labels = _shuffle
# scikit-learn's compiled coordinate descent for one elastic net (dense X in
# Fortran order, a Gram matrix, CSC data with int32 indices), which the CPU
# runs in place of gpuml's batched sweeps. The positional arguments are the
# same from 1.6 to 1.9: ``(w, alpha, beta, <data>, max_iter, tol, rng,
# random, positive)``, where <data> is ``X, y``, ``Q, q, y`` or ``X_data,
# X_indices, X_indptr, y, sample_weight, X_mean``; each returns ``(w, gap,
# tol * ||y||², n_iter)`` and warns ConvergenceWarning itself. 1.8 added a
# last argument, ``do_screening`` (gap-safe screening, on by default; 1.6 and
# 1.7 do not screen), left at its default as scikit-learn's estimators leave it.
enet_cd_dense = _cd_fast.enet_coordinate_descent
enet_cd_gram = _cd_fast.enet_coordinate_descent_gram
enet_cd_sparse = _cd_fast.sparse_enet_coordinate_descent


class _FixedSeed:
    """An ``rng`` whose one draw is a given seed."""

    def __init__(self, seed: int):
        self.seed = int(seed)

    def randint(self, low: int, high: int) -> int:
        return self.seed


def fixed_seed(seed: int) -> _FixedSeed:
    """The ``rng`` argument of :data:`enet_cd_dense` and its siblings, which
    draw the seed of their coordinate generator (``selection="random"``)
    once, as ``rng.randint(0, RAND_R_MAX)``: here ``seed``, drawn beforehand
    as scikit-learn's path functions draw it."""
    return _FixedSeed(seed)


# ``fit`` decorator: parameter validation (skipped for nested estimators when
# preferred) and, from scikit-learn 1.9, the callbacks' setup and teardown.
fit_context = _fit_context


class _NoCallbacks:
    """A callback context that calls nothing (scikit-learn < 1.9)."""

    def subcontext(self, *args, **kwargs):
        return self

    def call_on_fit_task_begin(self, **kwargs):
        return self

    def call_on_fit_task_end(self, **kwargs):
        return False

    @contextmanager
    def propagate_callback_context(self, sub_estimator):
        yield


def nearest_neighbors_constraints() -> dict:
    """scikit-learn's parameter constraints of NearestNeighbors."""
    theirs = sklearn_own("sklearn.neighbors", "NearestNeighbors")
    return dict(theirs._parameter_constraints)


def kneighbors_constraints(name: str) -> dict:
    """scikit-learn's parameter constraints of ``KNeighborsClassifier`` or
    ``KNeighborsRegressor`` (``name``)."""
    return dict(sklearn_own("sklearn.neighbors", name)._parameter_constraints)


def is_index(X) -> bool:
    """Whether ``X`` is a fitted neighbours index that scikit-learn's
    neighbours estimators take in place of data (a ``BallTree``, a
    ``KDTree`` or a fitted estimator of ``NeighborsBase``)."""
    from sklearn.neighbors import BallTree, KDTree
    from sklearn.neighbors._base import NeighborsBase

    return isinstance(X, (BallTree, KDTree, NeighborsBase))


def sklearn_kneighbors_mixin():
    """scikit-learn's ``KNeighborsMixin``, which its code and tests check
    for with ``issubclass`` (gpuml's k-neighbours estimators derive from it
    and override its methods)."""
    from sklearn.neighbors._base import KNeighborsMixin

    return KNeighborsMixin


def neighbors_fit_method(estimator) -> str:
    """The search a fitted scikit-learn neighbours estimator runs
    (``"brute"``, ``"kd_tree"`` or ``"ball_tree"``: its ``_fit_method``)."""
    return estimator._fit_method


def init_callback_context(estimator, **kwargs):
    """``estimator``'s root callback context (scikit-learn's
    ``_init_callback_context``), or one that calls nothing where scikit-learn
    has no callbacks."""
    init = getattr(estimator, "_init_callback_context", None)
    return _NoCallbacks() if init is None else init(**kwargs)


def routing_enabled() -> bool:
    """Whether scikit-learn's metadata routing is on
    (``sklearn.set_config(enable_metadata_routing=True)``)."""
    return bool(get_config().get("enable_metadata_routing", False))


def routing_owner(obj):
    """The ``owner`` of a routing object made for ``obj``: the object itself
    from scikit-learn 1.8 (whose messages name it by its ``_routing_repr``),
    its class name before."""
    from sklearn.utils import _metadata_requests

    return obj if hasattr(_metadata_requests, "_routing_repr") else type(obj).__name__


def validate_estimator_params(estimator) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    estimator._validate_params()


def sklearn_scorer_spec(name: str):
    """``(score_func, sign, kwargs, response_method)`` of scikit-learn's scorer.

    gpuml's scorer vocabulary is scikit-learn's own table, read here, so that
    it follows the installed version. Raises scikit-learn's ValueError for an
    unknown name.
    """
    from sklearn.metrics import get_scorer

    scorer = get_scorer(name)
    return (
        scorer._score_func,
        scorer._sign,
        dict(scorer._kwargs),
        scorer._response_method,
    )


class CudfAdapter:
    """``set_output(transform="cudf")``: scikit-learn's container protocol
    (``sklearn.utils._set_output``) for cuDF DataFrames, registered below
    beside its pandas and polars adapters, so that any transformer (gpuml's
    or scikit-learn's, in Pipelines and ColumnTransformers too) can return
    cuDF. cuDF is imported only when such an output is made."""

    container_lib = "cudf"

    def create_container(self, X_output, X_original, columns, inplace=True):
        cudf = _set_output.check_library_installed("cudf")
        if hasattr(X_output, "tocsr"):  # SciPy or cupyx sparse
            raise ValueError(
                "The transformer outputs a sparse matrix. Try to set the "
                "transformer output to a dense array or disable Cudf output "
                "with set_output(transform='default')."
            )
        columns = _set_output.get_columns(columns)
        if not inplace or not isinstance(X_output, cudf.DataFrame):
            if isinstance(X_output, cudf.DataFrame):
                index = X_output.index
            elif isinstance(X_original, (cudf.DataFrame, cudf.Series)):
                index = X_original.index
            else:
                index = None
            X_output = cudf.DataFrame(X_output, index=index)
        if columns is not None:
            return self.rename_columns(X_output, columns)
        return X_output

    def is_supported_container(self, X):
        cudf = _set_output.check_library_installed("cudf")
        return isinstance(X, cudf.DataFrame)

    def rename_columns(self, X, columns):
        X.columns = list(columns)
        return X

    def hstack(self, Xs):
        cudf = _set_output.check_library_installed("cudf")
        return cudf.concat(Xs, axis=1)


if "cudf" not in _set_output.ADAPTERS_MANAGER.adapters:
    _set_output.ADAPTERS_MANAGER.register(CudfAdapter())


def sklearn_own(module: str, name: str):
    """scikit-learn's own ``module.name`` (``"sklearn.preprocessing",
    "LabelEncoder"``), also while :func:`gpuml.install` has set that public
    name to gpuml's object: gpuml's code that builds on scikit-learn's class
    takes it from here, never from the public module at run time (where it
    would find gpuml's own class, and call itself)."""
    from gpuml._accel import _ORIGINALS

    found = _ORIGINALS.get((module, name))
    if found is not None:
        return found
    return getattr(importlib.import_module(module), name)
