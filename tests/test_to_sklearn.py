"""``gpuml.to_sklearn`` (``gpuml/_to_sklearn.py``): every gpuml estimator
that scikit-learn has too becomes scikit-learn's own class, with the same
parameters and fitted state, the same outputs, and pickles that load
without gpuml.

The cases cover every public estimator class of gpuml's (found by walking its
packages): a new one fails :func:`test_every_estimator_class_has_a_case`
until it has a case here (or is listed as having no scikit-learn class).
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.model_selection
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

import gpuml
from gpuml import _accel
from gpuml.cluster import KMeans, MiniBatchKMeans
from gpuml.compose import ColumnTransformer
from gpuml.decomposition import PCA, TruncatedSVD
from gpuml.feature_extraction.text import (
    CountVectorizer,
    HashingVectorizer,
    TfidfTransformer,
    TfidfVectorizer,
)
from gpuml.impute import KNNImputer, MissingIndicator, SimpleImputer
from gpuml.linear_model import (
    ElasticNet,
    ElasticNetCV,
    Lasso,
    LassoCV,
    LinearRegression,
    LogisticRegression,
    LogisticRegressionCV,
    Ridge,
    RidgeClassifier,
    RidgeClassifierCV,
    RidgeCV,
)
from gpuml.manifold import UMAP
from gpuml.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    HalvingRandomSearchCV,
    KFold,
    RandomizedSearchCV,
)
from gpuml.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
)
from gpuml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from gpuml.preprocessing import (
    FunctionTransformer,
    KBinsDiscretizer,
    LabelBinarizer,
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    RobustScaler,
    SplineTransformer,
    StandardScaler,
    TargetEncoder,
)
from gpuml.svm import LinearSVC, LinearSVR
from tests.conftest import SEED

# gpuml's parameters that scikit-learn's classes lack (dropped).
GPUML_ONLY_PARAMS = {"engine", "client"}
# gpuml's public classes that scikit-learn has no class for.
NO_COUNTERPART = {UMAP}
# The methods whose outputs must be scikit-learn's own class's on new data.
METHODS = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "transform",
    "inverse_transform",
    "score",
    "score_samples",
    "kneighbors",
    "kneighbors_graph",
    "get_feature_names_out",
)


def _gpuml_estimator_classes() -> dict:
    """``{class: scikit-learn module}`` for every public estimator class of
    gpuml's own (None for those of a package scikit-learn has not)."""
    sk_module_of = {gpuml_name: sk for sk, gpuml_name in _accel.FAMILIES.items()}
    modules = [
        f"gpuml.{info.name}"
        for info in pkgutil.iter_modules(gpuml.__path__)
        if info.ispkg and not info.name.startswith("_")
    ] + list(sk_module_of)
    found = {}
    for name in modules:
        module = importlib.import_module(name)
        for attr in module.__all__:
            value = getattr(module, attr)
            if (
                inspect.isclass(value)
                and issubclass(value, BaseEstimator)
                and value.__module__.startswith("gpuml.")
            ):
                found[value] = sk_module_of.get(name) or found.get(value)
    return found


CLASSES = _gpuml_estimator_classes()


def _sklearn_class(cls):
    """scikit-learn's class of the name of gpuml's ``cls`` (not installed)."""
    return getattr(importlib.import_module(CLASSES[cls]), cls.__name__)


# --- data -----------------------------------------------------------------

_rng = np.random.default_rng(SEED)
X_TRAIN = _rng.normal(size=(60, 4))
X_NEW = _rng.normal(size=(15, 4))
COEF = np.array([1.0, -2.0, 0.5, 0.0])
Y_REG = X_TRAIN @ COEF + 0.1 * _rng.normal(size=60)
Y_REG_NEW = X_NEW @ COEF + 0.1 * _rng.normal(size=15)
LABELS = np.array(["a", "b", "c"])
Y_CLF = LABELS[np.argmax(X_TRAIN[:, :3], axis=1)]
Y_CLF_NEW = LABELS[np.argmax(X_NEW[:, :3], axis=1)]
COUNTS = _rng.poisson(2.0, size=(60, 4)).astype(float)
COUNTS_NEW = _rng.poisson(2.0, size=(15, 4)).astype(float)
CATS = np.column_stack(
    [np.arange(60) % 4, (np.arange(60) // 4) % 3, _rng.integers(0, 5, 60)]
)
CATS_NEW = np.column_stack(
    [np.arange(15) % 4, np.arange(15) % 3, _rng.integers(0, 5, 15)]
)
NANS = np.where(_rng.random(X_TRAIN.shape) < 0.2, np.nan, X_TRAIN)
NANS_NEW = np.where(_rng.random(X_NEW.shape) < 0.2, np.nan, X_NEW)
DOCS = [
    "the cat sat on the mat",
    "a dog and a cat",
    "the dog ate my homework",
    "cats and dogs and birds",
    "my cat likes the mat",
] * 4
DOCS_NEW = ["a cat and the homework", "mat dog", "unknown words here", "the the cat"]

# data kind -> ((fit arguments), (new X, new y or None))
DATA = {
    "regression": ((X_TRAIN, Y_REG), (X_NEW, Y_REG_NEW)),
    "classification": ((X_TRAIN, Y_CLF), (X_NEW, Y_CLF_NEW)),
    "counts-classification": ((COUNTS, Y_CLF), (COUNTS_NEW, Y_CLF_NEW)),
    "categories-classification": ((CATS, Y_CLF), (CATS_NEW, Y_CLF_NEW)),
    "categories-regression": ((CATS, Y_REG), (CATS_NEW, Y_REG_NEW)),
    "unsupervised": ((X_TRAIN,), (X_NEW, None)),
    "counts": ((COUNTS,), (COUNTS_NEW, None)),
    "categories": ((CATS,), (CATS_NEW, None)),
    "missing": ((NANS,), (NANS_NEW, None)),
    "documents": ((DOCS,), (DOCS_NEW, None)),
    "labels": ((Y_CLF,), (Y_CLF_NEW, None)),
}

# (a gpuml estimator, its data kind): every class at least once, with the
# options that change what scikit-learn's class reads from its fitted state.
CASES = [
    (KMeans(n_clusters=3, n_init=2, random_state=0), "unsupervised"),
    (
        MiniBatchKMeans(n_clusters=3, batch_size=20, n_init=2, random_state=0),
        "unsupervised",
    ),
    (PCA(n_components=2), "unsupervised"),
    (PCA(n_components=2, whiten=True, svd_solver="full"), "unsupervised"),
    (TruncatedSVD(n_components=2, random_state=0), "unsupervised"),
    (CountVectorizer(), "documents"),
    (
        CountVectorizer(ngram_range=(1, 2), max_features=8, stop_words=["a"]),
        "documents",
    ),
    (HashingVectorizer(n_features=32), "documents"),
    (TfidfTransformer(), "counts"),
    (TfidfTransformer(norm="l1", smooth_idf=False, sublinear_tf=True), "counts"),
    (TfidfVectorizer(), "documents"),
    (TfidfVectorizer(min_df=2, use_idf=False), "documents"),
    (KNNImputer(n_neighbors=3), "missing"),
    (KNNImputer(weights="distance", add_indicator=True), "missing"),
    (MissingIndicator(), "missing"),
    (MissingIndicator(features="all", sparse=True), "missing"),
    (SimpleImputer(), "missing"),
    (SimpleImputer(strategy="median", add_indicator=True), "missing"),
    (SimpleImputer(strategy="constant", fill_value=-1.0), "missing"),
    (ElasticNet(alpha=0.1, l1_ratio=0.3), "regression"),
    (ElasticNetCV(cv=3, alphas=4, l1_ratio=[0.5, 1.0]), "regression"),
    (Lasso(alpha=0.1), "regression"),
    (LassoCV(cv=3, alphas=4), "regression"),
    (LinearRegression(), "regression"),
    (LogisticRegression(), "classification"),
    (LogisticRegression(C=0.5, class_weight="balanced"), "classification"),
    (
        LogisticRegressionCV(
            Cs=3,
            cv=3,
            l1_ratios=(0,),
            use_legacy_attributes=False,
            scoring="neg_log_loss",
        ),
        "classification",
    ),
    (Ridge(alpha=2.0), "regression"),
    (RidgeCV(), "regression"),
    (RidgeCV(alphas=[0.1, 1.0], cv=3), "regression"),
    (RidgeClassifier(), "classification"),
    (RidgeClassifierCV(), "classification"),
    (BernoulliNB(binarize=2.0), "counts-classification"),
    (CategoricalNB(min_categories=5), "categories-classification"),
    (ComplementNB(norm=True), "counts-classification"),
    (GaussianNB(), "classification"),
    (MultinomialNB(alpha=0.5), "counts-classification"),
    (KNeighborsClassifier(n_neighbors=3), "classification"),
    (
        KNeighborsClassifier(n_neighbors=4, weights="distance", algorithm="brute"),
        "classification",
    ),
    (KNeighborsRegressor(n_neighbors=3, metric="manhattan"), "regression"),
    (NearestNeighbors(n_neighbors=3), "unsupervised"),
    (NearestNeighbors(n_neighbors=3, metric="cosine"), "unsupervised"),
    (FunctionTransformer(np.log1p, inverse_func=np.expm1), "counts"),
    (
        KBinsDiscretizer(n_bins=3, quantile_method="averaged_inverted_cdf"),
        "unsupervised",
    ),
    (KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform"), "unsupervised"),
    (LabelBinarizer(), "labels"),
    (LabelEncoder(), "labels"),
    (MaxAbsScaler(), "unsupervised"),
    (MinMaxScaler(feature_range=(-1, 2), clip=True), "unsupervised"),
    (Normalizer(norm="l1"), "unsupervised"),
    (OneHotEncoder(), "categories"),
    (
        OneHotEncoder(handle_unknown="ignore", sparse_output=False, drop="first"),
        "categories",
    ),
    (
        OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=3),
        "categories",
    ),
    (OrdinalEncoder(), "categories"),
    (OrdinalEncoder(min_frequency=13), "categories"),
    (PolynomialFeatures(), "unsupervised"),
    (PolynomialFeatures(degree=(2, 3), interaction_only=True), "unsupervised"),
    (RobustScaler(), "unsupervised"),
    (SplineTransformer(n_knots=4), "unsupervised"),
    (SplineTransformer(extrapolation="periodic", sparse_output=True), "unsupervised"),
    (StandardScaler(), "unsupervised"),
    (StandardScaler(with_mean=False), "unsupervised"),
    (TargetEncoder(cv=3, random_state=0), "categories-regression"),
    (TargetEncoder(cv=3, random_state=0), "categories-classification"),
    (LinearSVC(), "classification"),
    (LinearSVR(loss="squared_epsilon_insensitive"), "regression"),
    (
        ColumnTransformer(
            [("scale", StandardScaler(), [0, 1]), ("pca", PCA(n_components=1), [2, 3])],
            remainder="drop",
        ),
        "unsupervised",
    ),
    (GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3), "regression"),
    (
        RandomizedSearchCV(
            make_pipeline(StandardScaler(), LogisticRegression()),
            {"logisticregression__C": [0.1, 1.0, 10.0]},
            n_iter=2,
            cv=3,
            random_state=0,
        ),
        "classification",
    ),
    (
        HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0]}, cv=3, random_state=0),
        "regression",
    ),
    (
        HalvingRandomSearchCV(
            LogisticRegression(), {"C": [0.1, 1.0, 10.0]}, cv=3, random_state=0
        ),
        "classification",
    ),
]


def _case_id(case) -> str:
    estimator, kind = case
    return f"{type(estimator).__name__}-{CASES.index(case)}-{kind}"


# --- checks -----------------------------------------------------------------


def _assert_same(ours, theirs, where: str, rtol: float = 1e-12) -> None:
    """The same output: type family, shape, dtype and values (floats within
    ``rtol``)."""
    if inspect.isclass(ours) or inspect.isclass(theirs):  # an error's class
        assert ours is theirs, where
        return
    if isinstance(ours, (tuple, list)):
        assert type(ours) is type(theirs), where
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _assert_same(a, b, f"{where}[{i}]", rtol)
        return
    assert sp.issparse(ours) == sp.issparse(theirs), where
    if sp.issparse(ours):
        ours, theirs = ours.toarray(), theirs.toarray()
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, where
    assert ours.dtype == theirs.dtype, where
    if ours.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(theirs), initial=0.0)))
        np.testing.assert_allclose(
            ours, theirs, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=where
        )
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=where)


def _outputs(model, X, y) -> dict:
    """``{method: output}`` of every method of :data:`METHODS` the model has;
    the error's class where it raises (SimpleImputer's inverse_transform
    without its indicator)."""
    found = {}
    for name in METHODS:
        if not hasattr(model, name):
            continue
        method = getattr(model, name)
        if name == "score":
            if y is None and "y" in inspect.signature(method).parameters:
                continue
            args = (X,) if y is None else (X, y)
        elif name == "get_feature_names_out":
            args = ()
        elif name == "inverse_transform":
            args = (model.transform(X),)
        else:
            args = (X,)
        try:
            found[name] = method(*args)
        except ValueError as error:
            found[name] = type(error)
    return found


def _assert_same_params(ours, theirs) -> None:
    """gpuml's parameters (less its own) are scikit-learn's: equal values,
    estimators among them of scikit-learn's class of the same name."""
    mine = {
        k: v
        for k, v in ours.get_params(deep=False).items()
        if k not in GPUML_ONLY_PARAMS
    }
    assert set(mine) == set(theirs.get_params(deep=False))
    for name, value in mine.items():
        other = theirs.get_params(deep=False)[name]
        if isinstance(value, BaseEstimator):
            assert type(other).__name__ == type(value).__name__
            assert type(other).__module__.startswith("sklearn."), name
            _assert_same_params(value, other)
        elif isinstance(value, list) and value and isinstance(value[0], tuple):
            assert repr(other) == repr(value), name  # steps, transformers
        elif isinstance(value, np.ndarray):
            np.testing.assert_array_equal(other, value)
        else:
            assert other == value or (other is value), name


def _no_gpuml_in(obj) -> None:
    blob = pickle.dumps(obj)
    assert b"gpuml" not in blob


def test_every_estimator_class_has_a_case():
    """Every public gpuml estimator class: a case here, or listed as having
    no scikit-learn class (which to_sklearn refuses)."""
    covered = {type(estimator) for estimator, _ in CASES}
    lacking = set(CLASSES) - covered - NO_COUNTERPART
    assert not lacking, f"no to_sklearn case for {sorted(c.__name__ for c in lacking)}"
    for cls in NO_COUNTERPART:
        assert CLASSES[cls] is None
    assert len(CLASSES) >= 50


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_fitted_model_becomes_sklearns(case):
    """scikit-learn's class, parameters and fitted attributes (those its own
    fit sets, no more); its outputs on new data are gpuml's; the model is
    unchanged; the result pickles without a reference to gpuml."""
    estimator, kind = case
    fit_args, (X, y) = DATA[kind]
    model = clone(estimator).fit(*fit_args)
    before = dict(vars(model))

    result = gpuml.to_sklearn(model)
    # the model passed is not changed
    assert vars(model).keys() == before.keys()
    assert all(vars(model)[k] is v for k, v in before.items())

    sk_class = _sklearn_class(type(model))
    assert type(result) is sk_class
    assert type(result).__module__.startswith("sklearn.")
    _assert_same_params(model, result)
    # the attributes of scikit-learn's own fit on the same data
    reference = clone(gpuml.to_sklearn(estimator)).fit(*fit_args)
    assert sorted(vars(result)) == sorted(vars(reference))
    check_is_fitted(result)
    ours, theirs = _outputs(model, X, y), _outputs(result, X, y)
    assert set(ours) == set(theirs)
    assert ours
    for name in ours:
        _assert_same(theirs[name], ours[name], f"{type(model).__name__}.{name}")
    _no_gpuml_in(result)
    loaded = pickle.loads(pickle.dumps(result))
    for name, output in _outputs(loaded, X, y).items():
        _assert_same(output, ours[name], f"{type(model).__name__}.{name} (pickled)")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_unfitted_model_becomes_sklearns(case):
    estimator, _ = case
    result = gpuml.to_sklearn(estimator)
    assert type(result) is _sklearn_class(type(estimator))
    _assert_same_params(estimator, result)
    if result.__sklearn_tags__().requires_fit:
        with pytest.raises(NotFittedError):
            check_is_fitted(result)
    assert vars(result).keys() == vars(clone(result)).keys()
    _no_gpuml_in(result)


def _assert_host(obj, where: str = "result") -> None:
    """No CuPy, cupyx or cuDF object anywhere in ``obj``'s state."""
    module = type(obj).__module__.partition(".")[0]
    assert module not in ("cupy", "cupyx", "cudf"), where
    if isinstance(obj, BaseEstimator):
        for name, value in vars(obj).items():
            _assert_host(value, f"{where}.{name}")
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            _assert_host(value, f"{where}[{i}]")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            _assert_host(value, f"{where}[{key!r}]")


CODES = np.searchsorted(LABELS, Y_CLF)  # labels a device can hold


@pytest.mark.parametrize(
    "estimator, fit_args",
    [
        (Ridge(), (X_TRAIN, Y_REG)),
        (LogisticRegression(), (X_TRAIN, CODES)),
        (KNeighborsClassifier(n_neighbors=3), (X_TRAIN, CODES)),
        (MultinomialNB(), (COUNTS, CODES)),
        (KMeans(n_clusters=3, n_init=2, random_state=0), (X_TRAIN,)),
        (PCA(n_components=2), (X_TRAIN,)),
        (StandardScaler(), (X_TRAIN,)),
        (SimpleImputer(add_indicator=True), (NANS,)),
        (KNNImputer(n_neighbors=3), (NANS,)),
        (TfidfTransformer(), (COUNTS,)),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseEstimator) else "",
)
def test_model_fitted_on_the_backend_becomes_host(backend, estimator, fit_args):
    """Fitted on device data (CuPy): every fitted array on the host, and
    scikit-learn's outputs on host data are gpuml's (to rounding on the GPU)."""
    model = clone(estimator).fit(*(backend.asarray(a) for a in fit_args))
    result = gpuml.to_sklearn(model)
    _assert_host(result)
    _no_gpuml_in(result)
    X = NANS_NEW if fit_args[0] is NANS else X_NEW
    X = COUNTS_NEW if fit_args[0] is COUNTS else X
    rtol = 1e-12 if backend.device == "cpu" else 1e-9
    for name in ("predict", "predict_proba", "transform"):
        if hasattr(model, name):
            ours = backend.to_numpy(getattr(model, name)(backend.asarray(X)))
            _assert_same(getattr(result, name)(X), ours, name, rtol)


def test_pipeline_of_gpuml_steps():
    model = make_pipeline(StandardScaler(), PCA(n_components=3), LogisticRegression())
    model.fit(X_TRAIN, Y_CLF)
    result = gpuml.to_sklearn(model)
    assert type(result) is Pipeline
    assert result is not model
    for (name, step), (_, original) in zip(result.steps, model.steps, strict=True):
        assert type(step).__module__.startswith("sklearn."), name
        assert type(original).__module__.startswith("gpuml."), name
    assert result.named_steps["pca"].n_components == 3
    _assert_same(result.predict_proba(X_NEW), model.predict_proba(X_NEW), "proba")
    _assert_same(result.predict(X_NEW), model.predict(X_NEW), "predict")
    _no_gpuml_in(result)


def test_column_transformer_and_feature_union_on_a_dataframe():
    """gpuml's ColumnTransformer picking columns by name (its remainder an
    estimator) in scikit-learn's FeatureUnion and Pipeline."""
    frame = pd.DataFrame(
        {"a": X_TRAIN[:, 0], "b": X_TRAIN[:, 1], "c": CATS[:, 0].astype(str)}
    )
    new = pd.DataFrame(
        {"a": X_NEW[:, 0], "b": X_NEW[:, 1], "c": CATS_NEW[:, 0].astype(str)}
    )
    columns = ColumnTransformer(
        [("onehot", OneHotEncoder(), ["c"])], remainder=StandardScaler()
    )
    union = FeatureUnion([("columns", columns), ("num", "passthrough")])
    model = Pipeline(
        [
            ("features", ColumnTransformer([("all", union, ["a", "b", "c"])])),
            ("ridge", Ridge()),
        ]
    ).fit(frame, Y_REG)
    result = gpuml.to_sklearn(model)
    inner = result.named_steps["features"].transformers_[0][1]
    assert type(inner) is FeatureUnion
    fitted_columns = inner.transformer_list[0][1]
    assert type(fitted_columns).__module__ == "sklearn.compose._column_transformer"
    assert type(fitted_columns.transformers_[1][1]).__module__.startswith("sklearn.")
    _assert_same(result.predict(new), model.predict(new), "predict")
    _assert_same(
        result[:-1].get_feature_names_out(), model[:-1].get_feature_names_out(), "names"
    )
    _no_gpuml_in(result)


def test_fitted_gpuml_search_gives_sklearns_best_estimator():
    """gpuml's GridSearchCV with a gpuml splitter and several scorers
    (refit on one): scikit-learn's search, splitter, scorers and
    best_estimator_, scoring as scikit-learn's own search does."""
    search = GridSearchCV(
        make_pipeline(StandardScaler(), Ridge()),
        {"ridge__alpha": [0.1, 10.0]},
        cv=KFold(3, shuffle=True, random_state=0),
        scoring=["r2", "neg_mean_squared_error"],
        refit="neg_mean_squared_error",
    ).fit(X_TRAIN, Y_REG)
    result = gpuml.to_sklearn(search)
    assert type(result) is sklearn.model_selection.GridSearchCV
    assert type(result.cv) is sklearn.model_selection.KFold
    assert type(result._checked_cv_orig) is sklearn.model_selection.KFold
    assert type(result.best_estimator_) is Pipeline
    for _, step in result.best_estimator_.steps:
        assert type(step).__module__.startswith("sklearn.")
    assert result.best_params_ == search.best_params_
    own = clone(result).fit(X_TRAIN, Y_REG)  # scikit-learn's own search
    assert repr(result.scorer_) == repr(own.scorer_)
    _assert_same(result.predict(X_NEW), search.predict(X_NEW), "predict")
    _assert_same(
        result.score(X_NEW, Y_REG_NEW), search.score(X_NEW, Y_REG_NEW), "score"
    )
    _assert_same(
        result.cv_results_["mean_test_r2"], search.cv_results_["mean_test_r2"], "r2"
    )
    _no_gpuml_in(result)


def test_search_over_gpuml_steps():
    """A grid of gpuml estimators: they are in ``cv_results_`` (an object
    array) and ``best_params_`` too, converted there as well."""
    model = Pipeline([("scale", StandardScaler()), ("reg", Ridge())])
    grid = {"reg": [Ridge(alpha=1.0), Lasso(alpha=0.1)]}
    search = GridSearchCV(model, grid, cv=3).fit(X_TRAIN, Y_REG)
    result = gpuml.to_sklearn(search)
    column = result.cv_results_["param_reg"]
    assert isinstance(column, np.ma.MaskedArray)
    assert [type(v).__module__.split(".")[0] for v in column] == ["sklearn"] * 2
    assert [type(v).__name__ for v in column] == ["Ridge", "Lasso"]
    assert type(result.best_params_["reg"]).__module__.startswith("sklearn.")
    assert result.param_grid["reg"][0] is result.cv_results_["params"][0]["reg"]
    _assert_same(result.predict(X_NEW), search.predict(X_NEW), "predict")
    _no_gpuml_in(result)


def test_gpuml_scorer_parameter_becomes_sklearns():
    """``scoring=`` a scorer of gpuml's: scikit-learn's, on scikit-learn's
    metric of the same name."""
    from gpuml.metrics import make_scorer, mean_absolute_error

    scorer = make_scorer(mean_absolute_error, greater_is_better=False)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=3, scoring=scorer)
    search.fit(X_TRAIN, Y_REG)
    result = gpuml.to_sklearn(search)
    assert type(result.scoring).__module__ == "sklearn.metrics._scorer"
    assert result.scoring._score_func.__module__.startswith("sklearn.metrics")
    _assert_same(
        result.score(X_NEW, Y_REG_NEW), search.score(X_NEW, Y_REG_NEW), "score"
    )
    _no_gpuml_in(result)


def test_sklearn_meta_estimator_is_a_deep_copy_with_gpuml_parts_converted():
    search = sklearn.model_selection.GridSearchCV(
        LogisticRegression(), {"C": [0.1, 1.0]}, cv=3
    ).fit(X_TRAIN, Y_CLF)
    result = gpuml.to_sklearn(search)
    assert type(result) is type(search)
    assert result is not search
    assert type(result.estimator).__module__.startswith("sklearn.")
    assert type(result.best_estimator_).__module__.startswith("sklearn.")
    assert type(search.best_estimator_).__module__.startswith("gpuml.")
    assert result.cv_results_ is not search.cv_results_
    _assert_same(result.predict_proba(X_NEW), search.predict_proba(X_NEW), "proba")
    _no_gpuml_in(result)
    threshold = sklearn.model_selection.FixedThresholdClassifier(
        LogisticRegression(), threshold=0.3
    )
    binary = Y_CLF == "a"
    threshold.fit(X_TRAIN, binary)
    converted = gpuml.to_sklearn(threshold)
    _assert_same(converted.predict(X_NEW), threshold.predict(X_NEW), "threshold")
    _no_gpuml_in(converted)


def test_set_output_is_kept():
    scaler = StandardScaler().set_output(transform="pandas").fit(X_TRAIN)
    result = gpuml.to_sklearn(scaler)
    assert isinstance(result.transform(X_NEW), pd.DataFrame)
    _assert_same(result.transform(X_NEW), scaler.transform(X_NEW), "transform")


def test_shared_estimators_stay_shared():
    """An estimator met twice (a step of two Pipelines) is converted once."""
    scaler = StandardScaler().fit(X_TRAIN)
    union = FeatureUnion([("one", scaler), ("two", scaler)])
    result = gpuml.to_sklearn(union)
    assert result.transformer_list[0][1] is result.transformer_list[1][1]


def test_installed_gives_sklearns_original_class():
    """While :func:`gpuml.install` is in effect, ``sklearn.linear_model.Ridge``
    is gpuml's; to_sklearn still gives scikit-learn's own class."""
    import sklearn.linear_model

    original = sklearn.linear_model.Ridge
    gpuml.install()
    try:
        assert sklearn.linear_model.Ridge is Ridge
        model = sklearn.linear_model.Ridge().fit(X_TRAIN, Y_REG)
        result = gpuml.to_sklearn(model)
        assert type(result) is original
        assert type(gpuml.to_sklearn(KMeans(n_clusters=2))).__module__.startswith(
            "sklearn.cluster"
        )
        _assert_same(result.predict(X_NEW), model.predict(X_NEW), "predict")
    finally:
        gpuml.uninstall()


def test_model_that_sklearn_fitted_under_install(lacking_crammer_singer):
    """Under install, a setting gpuml's class lacks (here LinearSVC made to
    refuse crammer_singer) is fitted by scikit-learn's class
    (``_gpuml_fallback``): its attributes, private ones included, are what
    scikit-learn's own fit gives."""
    import sklearn.svm

    original = sklearn.svm.LinearSVC
    gpuml.install()
    try:
        model = sklearn.svm.LinearSVC(multi_class="crammer_singer", max_iter=100_000)
        assert type(model) is LinearSVC
        model.fit(X_TRAIN, Y_CLF)
        assert "_gpuml_fallback" in vars(model)
        result = gpuml.to_sklearn(model)
    finally:
        gpuml.uninstall()
    assert type(result) is original
    reference = clone(result).fit(X_TRAIN, Y_CLF)
    assert sorted(vars(result)) == sorted(vars(reference))
    _assert_same(result.decision_function(X_NEW), model.decision_function(X_NEW), "df")
    _no_gpuml_in(result)


def test_pickles_load_and_predict_without_gpuml(tmp_path):
    """In a Python where ``import gpuml`` fails, the pickles load and give
    the outputs gpuml's models gave here."""
    models = {
        "pipeline": make_pipeline(StandardScaler(), LogisticRegression()).fit(
            X_TRAIN, Y_CLF
        ),
        "kmeans": KMeans(n_clusters=3, n_init=2, random_state=0).fit(X_TRAIN),
        "knn": KNeighborsClassifier(n_neighbors=3).fit(X_TRAIN, Y_CLF),
        "text": make_pipeline(CountVectorizer(), TfidfTransformer()).fit(DOCS),
        "onehot": OneHotEncoder(handle_unknown="ignore").fit(CATS),
        "search": GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3).fit(
            X_TRAIN, Y_REG
        ),
    }
    inputs = {
        "pipeline": X_NEW,
        "kmeans": X_NEW,
        "knn": X_NEW,
        "text": DOCS_NEW,
        "onehot": CATS_NEW,
        "search": X_NEW,
    }
    methods = {
        "pipeline": "predict_proba",
        "kmeans": "predict",
        "knn": "predict_proba",
        "text": "transform",
        "onehot": "transform",
        "search": "predict",
    }
    expected = {
        name: getattr(model, methods[name])(inputs[name])
        for name, model in models.items()
    }
    with open(tmp_path / "models.pkl", "wb") as f:
        pickle.dump(
            {name: gpuml.to_sklearn(model) for name, model in models.items()}, f
        )
    with open(tmp_path / "inputs.pkl", "wb") as f:
        pickle.dump((inputs, methods), f)
    code = textwrap.dedent(
        f"""
        import pickle, sys
        sys.modules["gpuml"] = None  # import gpuml fails
        with open({str(tmp_path / "models.pkl")!r}, "rb") as f:
            models = pickle.load(f)
        with open({str(tmp_path / "inputs.pkl")!r}, "rb") as f:
            inputs, methods = pickle.load(f)
        outputs = {{
            name: getattr(model, methods[name])(inputs[name])
            for name, model in models.items()
        }}
        assert not [m for m in sys.modules if m.startswith("gpuml.")]
        with open({str(tmp_path / "outputs.pkl")!r}, "wb") as f:
            pickle.dump(outputs, f)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with open(tmp_path / "outputs.pkl", "rb") as f:
        outputs = pickle.load(f)
    assert outputs.keys() == expected.keys()
    for name, output in outputs.items():
        _assert_same(output, expected[name], name)


def test_umap_has_no_sklearn_class():
    with pytest.raises(TypeError, match="umap-learn's estimator"):
        gpuml.to_sklearn(UMAP())
    with pytest.raises(TypeError, match="scikit-learn has no class"):
        gpuml.to_sklearn(make_pipeline(StandardScaler(), UMAP()))


def test_what_cannot_be_converted_says_why():
    class MyRidge(Ridge):
        pass

    with pytest.raises(TypeError, match="derives from gpuml's Ridge"):
        gpuml.to_sklearn(MyRidge())
    # a function of gpuml's as a parameter would pickle by reference to gpuml
    with pytest.raises(TypeError, match="cannot convert gpuml's function"):
        gpuml.to_sklearn(FunctionTransformer(gpuml.to_sklearn))
