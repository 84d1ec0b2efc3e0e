"""``gpuml.to_sklearn``: a gpuml model as scikit-learn's own (issue 40).

A gpuml estimator becomes an object of scikit-learn's class of the same name
(``gpuml.linear_model.Ridge`` -> ``sklearn.linear_model.Ridge``) with the
same parameters and, when fitted, the same fitted state on the host: CuPy
arrays become NumPy, cupyx sparse matrices SciPy's, cuDF objects pandas'.
The result loads where gpuml cannot be imported, and its methods are
scikit-learn's own code running on gpuml's fitted numbers.

What is carried over, explicitly:

- the constructor parameters, less gpuml's own (:data:`_GPUML_ONLY_PARAMS`);
  estimators, splitters and scorers among them are converted too;
- the public fitted attributes (``name_``), less gpuml's own
  (:data:`_GPUML_ONLY_ATTRIBUTES`), and the private ones scikit-learn's class
  reads (:data:`_PRIVATE`, by class name: gpuml's fit sets them under
  scikit-learn's names), with set_output's and metadata requests'
  configuration; gpuml's other private attributes (its device caches, its
  own helpers) are left behind;
- state scikit-learn's class needs that gpuml keeps otherwise, rebuilt by a
  small function per class (:data:`_ADAPTERS`): KMeans' thread count, the
  neighbours estimators' search structure.

A model that scikit-learn's class fitted in gpuml's place (under
:func:`gpuml.install`, for a setting gpuml's class lacks: its
``_gpuml_fallback``) holds scikit-learn's fitted attributes only: all of them
are carried over, private ones included, and none is rebuilt.

Other estimators (scikit-learn's, a user's) keep their class and have their
attributes converted the same way, so that a Pipeline, ColumnTransformer or
search of scikit-learn's holding gpuml estimators loads without gpuml too.
Anything else of gpuml's met on the way (an object or function of its
modules that is none of the above) raises a TypeError rather than be
pickled by reference to gpuml.
"""

from __future__ import annotations

import copy
import importlib
import inspect

from gpuml import _accel
from gpuml._backend import is_cudf_object, is_cupy_object

# Parameters of gpuml's classes that scikit-learn's do not have: dropped
# (``engine``: gpuml's or cuML's kernels; ``client``: a search's Dask client).
_GPUML_ONLY_PARAMS = frozenset({"client", "engine"})
# Fitted attributes of gpuml's own: dropped (the engine a fit ran on).
_GPUML_ONLY_ATTRIBUTES = frozenset({"engine_"})
# gpuml's own private attributes on a model that scikit-learn's class fitted
# under gpuml.install() (gpuml._accel's fallback: why, and the device cache).
_FALLBACK_BOOKKEEPING = frozenset({"_gpuml_fallback", "_gpuml_cache"})
# Private state any scikit-learn estimator may hold: set_output's
# configuration and the set_{method}_request's.
_BASE_PRIVATE = ("_sklearn_output_config", "_metadata_request")

_KMEANS = ("_algorithm", "_n_features_out", "_n_init", "_tol")
_ENCODERS = (
    "_default_to_infrequent_mappings",
    "_drop_idx_after_grouping",
    "_infrequent_enabled",
    "_infrequent_indices",
    "_missing_indices",
    "_n_features_outs",
)
_NEIGHBORS_KNN = ("_y",)
# The private fitted attributes that scikit-learn's class reads, by class
# name (what its ``fit`` sets; gpuml's sets the same under the same names).
_PRIVATE = {
    "ColumnTransformer": (
        "_columns",
        "_remainder",
        "_transformer_to_input_indices",
        "_transformers_feature_names_out",
    ),
    "CountVectorizer": ("_stop_words_id",),
    "GridSearchCV": ("_checked_cv_orig",),
    "HalvingGridSearchCV": ("_checked_cv_orig", "_n_samples_orig"),
    "HalvingRandomSearchCV": ("_checked_cv_orig", "_n_samples_orig"),
    "KBinsDiscretizer": ("_encoder",),
    "KMeans": _KMEANS,
    "KNeighborsClassifier": _NEIGHBORS_KNN,
    "KNeighborsRegressor": _NEIGHBORS_KNN,
    "KNNImputer": ("_fit_X", "_mask_fit_X", "_valid_mask"),
    "MiniBatchKMeans": (
        *_KMEANS,
        "_batch_size",
        "_counts",
        "_ewa_inertia",
        "_ewa_inertia_min",
        "_init_size",
        "_n_since_last_reassign",
        "_no_improvement",
        "_random_state",
    ),
    "MissingIndicator": ("_n_features", "_precomputed"),
    "OneHotEncoder": _ENCODERS,
    "OrdinalEncoder": _ENCODERS,
    "PCA": ("_fit_svd_solver",),
    "PolynomialFeatures": ("_max_degree", "_min_degree", "_n_out_full"),
    "RandomizedSearchCV": ("_checked_cv_orig",),
    "RidgeClassifier": ("_label_binarizer",),
    "RidgeClassifierCV": ("_label_binarizer",),
    "SimpleImputer": ("_fill_dtype", "_fit_dtype"),
    "TargetEncoder": _ENCODERS,
    "TfidfVectorizer": ("_stop_words_id", "_tfidf"),
}

# gpuml's public classes that scikit-learn has no class for.
_NO_COUNTERPART = {
    "gpuml.manifold.UMAP": (
        "gpuml.manifold.UMAP is umap-learn's estimator (umap.UMAP) on the GPU, "
        "not scikit-learn's: scikit-learn has no class to convert it to. Keep "
        "the gpuml model (fitted on NumPy input it pickles with NumPy arrays) "
        "or fit umap.UMAP itself"
    ),
}


def to_sklearn(estimator):
    """A model as scikit-learn's own class: no gpuml needed to load or use it.

    A gpuml estimator becomes a new object of scikit-learn's class of the
    same name (``gpuml.linear_model.Ridge`` -> ``sklearn.linear_model.Ridge``)
    with the same parameters (gpuml's own, ``engine`` and the searches'
    ``client``, are dropped) and, when fitted, its fitted attributes on the
    host: CuPy arrays as NumPy, cupyx sparse matrices as SciPy's, cuDF
    objects as pandas'. Its predictions and transforms are then
    scikit-learn's own code on gpuml's fitted numbers, and it pickles into
    a file that loads where gpuml is not installed.

    Estimators inside are converted too: the steps of a Pipeline, a
    ColumnTransformer's transformers, a search's ``estimator`` and
    ``best_estimator_``, in scikit-learn's meta-estimators as in gpuml's.
    A scikit-learn estimator is returned as a deep copy with its gpuml parts
    converted. The model passed is not changed. This works the same whether
    :func:`gpuml.install` is in effect or not.

    Parameters
    ----------
    estimator : estimator
        A gpuml estimator, fitted or not, or any scikit-learn estimator
        (a Pipeline, ColumnTransformer, search...) that may hold some.

    Returns
    -------
    estimator : estimator
        scikit-learn's estimator, fitted where ``estimator`` was.

    Raises
    ------
    TypeError
        For a gpuml class that scikit-learn has no counterpart of
        (:class:`gpuml.manifold.UMAP`, umap-learn's), a subclass of a gpuml
        class, or an object of gpuml's that is no estimator, splitter or
        scorer (a gpuml function passed as a parameter, say).

    Examples
    --------
    >>> import pickle
    >>> import numpy as np
    >>> import gpuml
    >>> from gpuml.linear_model import Ridge
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 2.0]])
    >>> y = np.array([1.0, 0.0, 2.0, 3.0])
    >>> model = Ridge(alpha=0.5).fit(X, y)
    >>> sk_model = gpuml.to_sklearn(model)
    >>> type(sk_model)
    <class 'sklearn.linear_model._ridge.Ridge'>
    >>> sk_model.get_params()["alpha"]
    0.5
    >>> bool(np.allclose(sk_model.predict(X), model.predict(X)))
    True
    >>> blob = pickle.dumps(sk_model)  # loads where gpuml is not installed
    >>> b"gpuml" in blob
    False
    """
    memo: dict = {}
    return _host_value(estimator, memo)


def sklearn_class(cls: type) -> type:
    """scikit-learn's own class of the gpuml class ``cls`` (the one
    :func:`gpuml.install` replaced, while installed)."""
    package = cls.__module__.split(".")[:2]  # ["gpuml", "linear_model"]
    why = _NO_COUNTERPART.get(".".join([*package, cls.__name__]))
    if why is not None:
        raise TypeError(why)
    from gpuml._sklearn_compat import sklearn_own

    sk_module = _sklearn_module(cls, package)
    if cls.__name__.startswith("Halving"):
        # scikit-learn's halving searches need its experimental flag
        importlib.import_module("sklearn.experimental.enable_halving_search_cv")
    return sklearn_own(sk_module, cls.__name__)


def _sklearn_module(cls: type, package: list[str]) -> str:
    """The scikit-learn module of gpuml's public module (of ``package``)
    that exports ``cls``."""
    for sk_module, gpuml_module in _accel.FAMILIES.items():
        if gpuml_module.split(".")[:2] != package:
            continue
        if getattr(importlib.import_module(gpuml_module), cls.__name__, None) is cls:
            return sk_module
    raise TypeError(
        f"{cls.__module__}.{cls.__name__} is not one of gpuml's public classes "
        "that scikit-learn has too: to_sklearn converts those only (a subclass "
        "of one is not converted)"
    )


def _host_value(value, memo: dict):
    """``value`` with everything of gpuml's or on the device converted,
    everything else deep-copied. ``memo`` is :func:`copy.deepcopy`'s: an
    object met twice (a Pipeline step in ``steps`` and in a search's
    ``best_estimator_``... or a ColumnTransformer's remainder) gives one
    converted object."""
    import numpy as np
    from sklearn.base import BaseEstimator
    from sklearn.utils import Bunch

    found = memo.get(id(value))
    if found is not None:
        return found
    if isinstance(value, BaseEstimator):
        return _estimator(value, memo)
    if is_cupy_object(value):
        from gpuml._array import HOST, to_family_attribute

        converted = to_family_attribute(value, HOST)
    elif is_cudf_object(value):
        converted = value.to_pandas()
    elif type(value) in (list, tuple):
        converted = type(value)(_host_value(item, memo) for item in value)
    elif type(value) in (dict, Bunch):
        converted = type(value)()
        for key, item in value.items():
            converted[key] = _host_value(item, memo)
    elif isinstance(value, np.ndarray) and value.dtype == object:
        # a search's cv_results_ "param_..." column may hold estimators (a
        # grid over Pipeline steps): a masked object array
        converted = value.copy()
        items = np.ma.getdata(converted)
        for index in np.ndindex(items.shape):
            items[index] = _host_value(items[index], memo)
    elif _is_gpumls(value):
        converted = _gpuml_object(value, memo)
    else:
        return copy.deepcopy(value, memo)
    _remember(value, converted, memo)
    return converted


def _remember(value, converted, memo: dict) -> None:
    """Record ``value -> converted`` in ``memo`` and keep ``value`` alive
    (its id must not be reused while converting), as deepcopy does."""
    memo[id(value)] = converted
    memo.setdefault(id(memo), []).append(value)


def _is_gpumls(value) -> bool:
    """Whether ``value`` is an object, class or function of gpuml's."""
    module = type(value).__module__
    if inspect.isclass(value) or inspect.isroutine(value):
        module = getattr(value, "__module__", None) or ""
    return module == "gpuml" or module.startswith("gpuml.")


def _estimator(model, memo: dict):
    """scikit-learn's estimator for ``model``: gpuml's class converted,
    another one of the same class with its attributes converted."""
    cls = type(model)
    if not _is_gpumls(model):
        gpuml_base = next((base for base in cls.__mro__ if _is_gpumls(base)), None)
        if gpuml_base is not None:
            raise TypeError(
                f"{cls.__module__}.{cls.__name__} derives from gpuml's "
                f"{gpuml_base.__name__}: to_sklearn converts gpuml's own classes "
                "only; convert the gpuml model, or subclass scikit-learn's class"
            )
        result = copy.copy(model)
        _remember(model, result, memo)
        for name, value in vars(model).items():
            setattr(result, name, _host_value(value, memo))
        return result
    sk_class = sklearn_class(cls)
    params = model.get_params(deep=False)
    unknown = set(params) - set(sk_class._get_param_names()) - _GPUML_ONLY_PARAMS
    if unknown:
        raise TypeError(
            f"gpuml's {cls.__name__} has parameters that scikit-learn's has not "
            f"({', '.join(sorted(unknown))}): to_sklearn does not know them yet"
        )
    result = sk_class(
        **{
            name: _host_value(value, memo)
            for name, value in params.items()
            if name not in _GPUML_ONLY_PARAMS
        }
    )
    _remember(model, result, memo)
    # fitted by scikit-learn's own class under gpuml.install() (a setting
    # gpuml's lacks): its attributes are all scikit-learn's, private included
    sklearn_fit = "_gpuml_fallback" in vars(model)
    private = _BASE_PRIVATE + _PRIVATE.get(cls.__name__, ())
    for name, value in vars(model).items():
        public = name.endswith("_") and not name.startswith("_")
        if name in params or name in _GPUML_ONLY_ATTRIBUTES:
            continue
        if sklearn_fit and name in _FALLBACK_BOOKKEEPING:
            continue
        if public or name in private or sklearn_fit:
            setattr(result, name, _host_value(value, memo))
    adapter = _ADAPTERS.get(cls.__name__)
    if adapter is not None and not sklearn_fit:
        adapter(model, result, memo)
    return result


def _gpuml_object(value, memo: dict):
    """scikit-learn's splitter or scorer for gpuml's; a TypeError for any
    other object of gpuml's."""
    from sklearn.model_selection import BaseCrossValidator, BaseShuffleSplit

    if isinstance(value, (BaseCrossValidator, BaseShuffleSplit)):
        # gpuml's splitters derive from scikit-learn's and give its splits
        sk_class = sklearn_class(type(value))
        names = inspect.signature(sk_class).parameters
        return sk_class(
            **{name: _host_value(getattr(value, name), memo) for name in names}
        )
    scorer = _scorer(value, memo)
    if scorer is not None:
        return scorer
    kind = "function" if inspect.isroutine(value) else f"{type(value).__name__} object"
    raise TypeError(
        f"to_sklearn cannot convert gpuml's {kind} {value!r}: scikit-learn has "
        "no counterpart of it that to_sklearn knows; pass scikit-learn's own "
        "object in its place"
    )


def _scorer(value, memo: dict):
    """scikit-learn's scorer for one of gpuml's (``scoring=`` or a search's
    ``scorer_``), else None. A gpuml metric is replaced by scikit-learn's
    function of the same name (they compute the same metric)."""
    import sklearn.metrics

    from gpuml.metrics import _scorer

    if isinstance(value, _scorer._HostScorer):  # a foreign scorer, wrapped
        return _host_value(value._scorer, memo)
    if isinstance(value, _scorer._PassthroughScorer):  # the estimator's score
        return sklearn.metrics.check_scoring(_host_value(value._estimator, memo))
    if not isinstance(value, _scorer.Scorer):
        return None
    func = value._score_func
    if _is_gpumls(func):
        func = getattr(sklearn.metrics, func.__name__, None)
        if func is None:
            raise TypeError(
                f"to_sklearn cannot convert the scorer {value!r}: its metric is "
                "gpuml's and sklearn.metrics has none of that name"
            )
    sk_scorer = sklearn.metrics.make_scorer(
        func,
        response_method=value._response_method,
        greater_is_better=value._sign > 0,
        **_host_value(value._kwargs, memo),
    )
    if value._score_request is not None:
        with sklearn.config_context(enable_metadata_routing=True):
            sk_scorer = sk_scorer.set_score_request(**value._score_request)
    return sk_scorer


def _kmeans_threads(model, result, memo: dict) -> None:
    """KMeans and MiniBatchKMeans: scikit-learn's predict and transform read
    the OpenMP thread count that its fit stores (``_n_threads``)."""
    from gpuml._sklearn_compat import openmp_effective_n_threads

    if "cluster_centers_" in vars(model):
        result._n_threads = openmp_effective_n_threads()


def _neighbors_search(model, result, memo: dict) -> None:
    """NearestNeighbors, KNeighborsClassifier and KNeighborsRegressor:
    scikit-learn's search structure (``_fit_X``, ``_tree``, ``_fit_method``).

    gpuml's fit on the CPU (or of what its device search does not cover)
    keeps scikit-learn's fitted NearestNeighbors: its state is copied.
    After gpuml's device search there is none: scikit-learn's
    NearestNeighbors of the same parameters is fitted on a host copy of
    the fitted rows, which is all that fit does (store them, or build its
    tree of them, chosen by ``algorithm``), so the search is
    scikit-learn's own on the same rows.
    """
    nn = vars(model).get("_nn", model)  # the k-neighbours' fitted search
    if "_fit_X" not in vars(nn):
        return
    host = vars(nn).get("_host")
    if host is None:
        from gpuml._array import to_host

        params = nn.get_params(deep=False)
        del params["engine"]
        sk_class = sklearn_class(type(nn))
        host = sk_class(**params).fit(to_host(nn._fit_X))
    for name in ("_fit_X", "_tree", "_fit_method"):
        setattr(result, name, _host_value(getattr(host, name), memo))


# Fitted state rebuilt for scikit-learn's class, by class name.
_ADAPTERS = {
    "KMeans": _kmeans_threads,
    "KNeighborsClassifier": _neighbors_search,
    "KNeighborsRegressor": _neighbors_search,
    "MiniBatchKMeans": _kmeans_threads,
    "NearestNeighbors": _neighbors_search,
}
