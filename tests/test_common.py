"""scikit-learn's estimator checks on every public estimator, on each device.

Expected failures are listed per estimator with their reason; the list is
strict (``xfail_strict = true``), so a check that starts passing must be
removed from it.
"""

from __future__ import annotations

import warnings

import pytest
from sklearn.base import is_classifier
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning, UndefinedMetricWarning
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from gpuml import config_context
from gpuml.cluster import KMeans, MiniBatchKMeans
from gpuml.decomposition import PCA as GpumlPCA
from gpuml.decomposition import TruncatedSVD
from gpuml.feature_extraction.text import TfidfTransformer
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
from tests.conftest import DEVICES

ESTIMATORS = [
    LinearRegression(),
    LinearRegression(positive=True),
    LogisticRegression(),
    LogisticRegression(C=0.5, class_weight="balanced"),
    # scikit-learn's test instance, with the options that silence 1.9's
    # deprecation warnings and lbfgs's default max_iter
    LogisticRegressionCV(
        Cs=3, cv=3, l1_ratios=(0,), use_legacy_attributes=False, scoring="neg_log_loss"
    ),
    Ridge(),
    Ridge(solver="svd"),
    Ridge(solver="sparse_cg", tol=1e-8),
    Ridge(solver="lsqr", tol=1e-8),
    Ridge(solver="sag", tol=1e-8),
    Ridge(positive=True),
    Lasso(),
    ElasticNet(l1_ratio=0.3, selection="random", random_state=0),
    LassoCV(alphas=5, cv=3),
    ElasticNetCV(l1_ratio=[0.5, 1.0], alphas=5, cv=3),
    RidgeCV(),
    RidgeCV(alphas=[0.1, 1.0], cv=2),
    RidgeClassifier(),
    RidgeClassifier(alpha=0.5, solver="svd"),
    RidgeClassifierCV(),
    RidgeClassifierCV(alphas=[0.1, 1.0], cv=2),
    StandardScaler(),
    StandardScaler(with_mean=False, with_std=False),
    MinMaxScaler(),
    MinMaxScaler(feature_range=(-1, 2), clip=True),
    MaxAbsScaler(),
    MaxAbsScaler(clip=True),
    RobustScaler(),
    RobustScaler(with_centering=False, quantile_range=(10.0, 90.0)),
    RobustScaler(unit_variance=True),
    OneHotEncoder(),
    OneHotEncoder(handle_unknown="ignore", sparse_output=False, drop="first"),
    OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=3),
    OrdinalEncoder(),
    OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
    OrdinalEncoder(min_frequency=2, encoded_missing_value=-2),
    Normalizer(),
    Normalizer(norm="max"),
    PolynomialFeatures(),
    FunctionTransformer(),
    FunctionTransformer(validate=True),
    FunctionTransformer(validate=True, accept_sparse=True),
    PolynomialFeatures(degree=(2, 3), interaction_only=True, include_bias=False),
    SplineTransformer(),
    SplineTransformer(
        degree=2, n_knots=4, extrapolation="periodic", include_bias=False
    ),
    SplineTransformer(extrapolation="linear", handle_missing="zeros"),
    SplineTransformer(sparse_output=True, extrapolation="continue"),
    KBinsDiscretizer(),
    KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"),
    KBinsDiscretizer(n_bins=4, encode="onehot-dense", strategy="uniform"),
    TargetEncoder(),
    TargetEncoder(target_type="continuous", smooth=2.0, cv=3),
    KMeans(n_clusters=2, random_state=0),
    KMeans(n_clusters=3, init="random", n_init=3, random_state=0),
    MiniBatchKMeans(n_clusters=2, batch_size=10, n_init=2, random_state=0),
    MiniBatchKMeans(
        n_clusters=3, init="random", max_no_improvement=None, random_state=0
    ),
    TfidfTransformer(),
    TfidfTransformer(norm="l1", smooth_idf=False),
    NearestNeighbors(),
    NearestNeighbors(metric="cosine", n_neighbors=3),
    KNeighborsClassifier(),
    KNeighborsClassifier(n_neighbors=3, weights="distance", metric="manhattan"),
    KNeighborsRegressor(),
    KNeighborsRegressor(n_neighbors=3, weights="distance", metric="cosine"),
    UMAP(n_neighbors=5, n_epochs=20, random_state=0),
    GpumlPCA(),
    GpumlPCA(n_components=1, svd_solver="covariance_eigh", whiten=True),
    GpumlPCA(n_components=1, svd_solver="arpack", random_state=0),
    GpumlPCA(n_components=1, svd_solver="randomized", random_state=0),
    # scikit-learn's test instance (it cannot keep n_features components)
    TruncatedSVD(n_components=1, n_iter=5, random_state=0),
    TruncatedSVD(n_components=1, algorithm="arpack", random_state=0),
    # the squared losses (gpuml's device Newton); the host coordinate
    # descents (hinge, epsilon_insensitive, penalty="l1") still warn
    # ConvergenceWarning on some of the checks' data at the default max_iter
    LinearSVC(),
    LinearSVC(multi_class="crammer_singer", C=0.1, max_iter=100_000),
    LinearSVR(loss="squared_epsilon_insensitive"),
    SimpleImputer(),
    SimpleImputer(strategy="median", add_indicator=True),
    SimpleImputer(strategy="most_frequent", keep_empty_features=True),
    SimpleImputer(strategy="constant"),
    SimpleImputer(missing_values=-1.0, strategy="median"),
    MissingIndicator(),
    MissingIndicator(features="all", sparse=True),
    KNNImputer(),
    KNNImputer(n_neighbors=2, weights="distance", add_indicator=True),
    KNNImputer(missing_values=-1.0, keep_empty_features=True),
    MultinomialNB(),
    MultinomialNB(alpha=0.5, fit_prior=False),
    ComplementNB(),
    ComplementNB(norm=True),
    BernoulliNB(),
    BernoulliNB(binarize=0.5, alpha=0.1),
    GaussianNB(),
    GaussianNB(var_smoothing=1e-3),
    CategoricalNB(),
    CategoricalNB(min_categories=3, alpha=0.5),
    # The searches, as scikit-learn's own common tests build them
    # (sklearn/utils/_test_common/instance_generator.py).
    *(
        Search(estimator, {name: [0.1, 1.0]}, cv=2, error_score="raise", **kwargs)
        for Search, kwargs in (
            (GridSearchCV, {}),
            (RandomizedSearchCV, {"n_iter": 2, "random_state": 0}),
            (HalvingGridSearchCV, {"min_resources": "smallest", "random_state": 0}),
            (HalvingRandomSearchCV, {"random_state": 0}),
        )
        for estimator, name in (
            (Ridge(), "alpha"),
            (LogisticRegression(), "C"),
            (make_pipeline(StandardScaler(), Ridge()), "ridge__alpha"),
            (make_pipeline(PCA(), LogisticRegression()), "logisticregression__C"),
        )
    ),
]

_N_ITER_REASON = (
    "n_iter_ is None for Ridge's solvers other than lsqr, sag and saga, as in "
    "scikit-learn's own Ridge (which lists this check as an expected failure too)"
)


# scikit-learn lists the same expected failures for its own searches.
_SEARCH_FAILURES = {
    "check_supervised_y_2d": (
        "DataConversionWarning not caught (as for scikit-learn's searches: the "
        "warning is raised by the refit inside the search)"
    ),
}


# scikit-learn's own expected failures for its halving searches, those that
# fail for gpuml's classes too (check_supervised_y_2d for regressors only, as
# for the other searches); the same checks fail for scikit-learn's classes.
_HALVING_FAILURES = {
    "check_fit2d_1sample": (
        "Fail during parameter check since min/max resources requires more samples"
    ),
}


# UMAP is stochastic and embeds new points by a shorter optimisation against
# the fitted embedding, as umap-learn does: the checks below expect what an
# embedding of this kind does not give (umap-learn fails them the same way).
_UMAP_TRANSFORM = (
    "fit_transform returns the optimised training embedding; transform embeds "
    "the same points again as new points, which lands near, not on, it"
)
_UMAP_FAILURES = {
    "check_transformer_general": _UMAP_TRANSFORM,
    "check_transformer_data_not_an_array": _UMAP_TRANSFORM,
    "check_transformer_preserve_dtypes": (
        "the embedding is float32 for any input, as umap-learn's (the layout's "
        "gradient descent runs in float32)"
    ),
    "check_methods_sample_order_invariance": (
        "transform's negative samples are drawn per edge of the new points' "
        "graph, whose numbering follows the order of the rows in the batch"
    ),
    "check_methods_subset_invariance": (
        "transform's negative samples are drawn per edge of the new points' "
        "graph, whose numbering follows the rows in the batch"
    ),
}


# scikit-learn lists the same for its own LinearSVC and LinearSVR: the
# stopping tolerance is scaled by the sample counts, as liblinear's.
_LIBLINEAR_WEIGHTS = "sample_weight is not equivalent to removing/repeating samples."
_LIBLINEAR_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": _LIBLINEAR_WEIGHTS,
    "check_sample_weight_equivalence_on_sparse_data": _LIBLINEAR_WEIGHTS,
}
# Crammer and Singer's method is scikit-learn's compiled liblinear itself.
_CRAMMER_SINGER_FAILURES = {
    **_LIBLINEAR_FAILURES,
    "check_fit_check_is_fitted": (
        "liblinear's Crammer-Singer solver does not converge within its own "
        "cap of 100,000 passes on this check's data (features near 100, "
        "random labels): scikit-learn's ConvergenceWarning, an error under "
        "this suite's filterwarnings=error (scikit-learn's own class warns "
        "the same)"
    ),
}


# scikit-learn lists the same for its own KMeans and MiniBatchKMeans: the
# initialisation (and MiniBatchKMeans's batches) draw rows with probabilities
# from the weights, not from repeated rows, so the two fits take different
# draws (and k-means has local optima).
_KMEANS_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": _LIBLINEAR_WEIGHTS,
    "check_sample_weight_equivalence_on_sparse_data": _LIBLINEAR_WEIGHTS,
}


# scikit-learn's own KNeighborsClassifier(metric="manhattan") fails the same:
# sparse data are searched by scikit-learn (the GPU's search is dense), whose
# sparse manhattan distances take 32-bit indices only.
_SPARSE_MANHATTAN = (
    "scikit-learn's sparse manhattan distances (the search of sparse data) "
    "take 32-bit indices only: a ValueError on int64 indices, as scikit-learn's "
    "own KNeighborsClassifier(metric='manhattan') gives"
)
_SPARSE_MANHATTAN_FAILURES = {
    "check_estimator_sparse_array": _SPARSE_MANHATTAN,
    "check_estimator_sparse_matrix": _SPARSE_MANHATTAN,
}


# scikit-learn's PCA with this solver fails the check the same way (its own
# common tests run only PCA(), whose "auto" takes "full" on one sample).
_COVARIANCE_EIGH_FAILURES = {
    "check_fit2d_1sample": (
        "one sample: the covariance divides by n_samples - 1 = 0 and the "
        "eigensolver fails on its NaNs (LinAlgError 'Eigenvalues did not "
        "converge'), not with the one-sample message the check wants; "
        "scikit-learn's covariance_eigh raises the same error"
    ),
}


# ARPACK's restriction n_components < min(n_samples, n_features), kept by
# gpuml's exact 'arpack' solvers with scikit-learn's errors: a single sample
# (or feature) leaves no valid n_components. scikit-learn's classes with
# algorithm/svd_solver="arpack" fail these checks with the same messages.
_ARPACK_ONE = (
    "n_components must be strictly less than min(n_samples, n_features) = 1 "
    "with 'arpack' (scikit-learn's error, not the one-sample message the "
    "check wants); scikit-learn's class fails the same way"
)
_PCA_ARPACK_FAILURES = {
    "check_fit2d_1sample": _ARPACK_ONE,
    "check_fit2d_1feature": _ARPACK_ONE,
}
_TSVD_ARPACK_FAILURES = {"check_fit2d_1sample": _ARPACK_ONE}


# scikit-learn's own SimpleImputer fails this check the same way (1.9.1).
_IMPUTER_OBJECT_FAILURES = {
    "check_dtype_object": (
        "strategy 'most_frequent' and 'constant' impute object (string) "
        "data, as scikit-learn's: the check's string column is imputed, not "
        "refused with the TypeError the check expects"
    ),
}


# scikit-learn's own FunctionTransformer(validate=True, accept_sparse=True)
# fails the same way under warnings as errors.
_DOK_UNCHECKED = (
    "accept_sparse=True keeps a DOK matrix, whose values check_array cannot "
    "scan: scikit-learn's UserWarning \"Can't check dok sparse matrix for nan or "
    "inf.\", an error under this suite's filterwarnings=error"
)
_ANY_SPARSE_FAILURES = {
    "check_estimator_sparse_array": _DOK_UNCHECKED,
    "check_estimator_sparse_matrix": _DOK_UNCHECKED,
}


# scikit-learn's own KBinsDiscretizer() fails these checks the same way
# under warnings as errors (1.9.1).
_KBINS_WEIGHT_FAILURES = dict.fromkeys(
    (
        "check_sample_weights_pandas_series",
        "check_sample_weights_not_an_array",
        "check_sample_weights_shape",
        "check_sample_weights_not_overwritten",
    ),
    "the checks' data have ties: quantile bins narrower than 1e-8 are "
    "removed with scikit-learn's UserWarning, an error under this suite's "
    "filterwarnings=error",
)

# scikit-learn's own TargetEncoder fails these checks the same way (1.9.1).
_TARGET_DEPRECATED = (
    "the check sets random_state=0, a parameter scikit-learn 1.9 deprecates: "
    "its FutureWarning is an error under this suite's filterwarnings=error"
)
_TARGET_CROSS_FITTED = (
    "fit_transform's encodings are cross fitted (by design), so they differ "
    "from fit(X, y).transform(X) beyond the check's tolerance on its data"
)
_TARGET_FAILURES = {"check_transformer_preserve_dtypes": _TARGET_DEPRECATED}
_TARGET_CONTINUOUS_FAILURES = {
    **_TARGET_FAILURES,
    "check_transformer_general": _TARGET_CROSS_FITTED,
    "check_transformer_data_not_an_array": _TARGET_CROSS_FITTED,
}


def expected_failed_checks(estimator):
    if isinstance(estimator, KBinsDiscretizer) and estimator.strategy == "quantile":
        return _KBINS_WEIGHT_FAILURES
    if isinstance(estimator, TargetEncoder):
        if estimator.target_type == "continuous":
            return _TARGET_CONTINUOUS_FAILURES
        return _TARGET_FAILURES
    if isinstance(estimator, FunctionTransformer) and estimator.accept_sparse:
        return _ANY_SPARSE_FAILURES
    if isinstance(estimator, SimpleImputer) and estimator.strategy in (
        "most_frequent",
        "constant",
    ):
        return _IMPUTER_OBJECT_FAILURES
    if (
        isinstance(estimator, (KNeighborsClassifier, KNeighborsRegressor))
        and estimator.metric == "manhattan"
    ):
        return _SPARSE_MANHATTAN_FAILURES
    if isinstance(estimator, GpumlPCA) and estimator.svd_solver == "covariance_eigh":
        return _COVARIANCE_EIGH_FAILURES
    if isinstance(estimator, GpumlPCA) and estimator.svd_solver == "arpack":
        return _PCA_ARPACK_FAILURES
    if isinstance(estimator, TruncatedSVD) and estimator.algorithm == "arpack":
        return _TSVD_ARPACK_FAILURES
    if isinstance(estimator, LinearSVC) and estimator.multi_class != "ovr":
        return _CRAMMER_SINGER_FAILURES
    if isinstance(estimator, (LinearSVC, LinearSVR)):
        return _LIBLINEAR_FAILURES
    if isinstance(estimator, (KMeans, MiniBatchKMeans)):
        return _KMEANS_FAILURES
    if isinstance(estimator, UMAP):
        return _UMAP_FAILURES
    if isinstance(estimator, (HalvingGridSearchCV, HalvingRandomSearchCV)):
        if is_classifier(estimator):
            return _HALVING_FAILURES
        return {**_HALVING_FAILURES, **_SEARCH_FAILURES}
    if isinstance(estimator, (GridSearchCV, RandomizedSearchCV)):
        return {} if is_classifier(estimator) else _SEARCH_FAILURES
    if isinstance(estimator, (Ridge, RidgeClassifier)) and estimator.solver not in (
        "lsqr",
        "sag",
        "saga",
    ):
        return {"check_non_transformer_estimators_n_iter": _N_ITER_REASON}
    return {}


@pytest.mark.parametrize("device", DEVICES)
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check, device):
    with config_context(device=device), warnings.catch_warnings():
        if _check_name(check) == "check_non_transformer_estimators_n_iter":
            # The check fits unscaled iris with max_iter=100, where lbfgs
            # (scikit-learn's as well as gpuml's) stops at the limit with a
            # ConvergenceWarning; the check is about n_iter_ being reported.
            warnings.simplefilter("ignore", ConvergenceWarning)
        if isinstance(estimator, (LassoCV, ElasticNetCV)):
            # Some alphas of the checks' small paths stop at max_iter with a
            # ConvergenceWarning, scikit-learn's LassoCV/ElasticNetCV's the
            # same (the same paths and duality gaps); its suite lets them pass.
            warnings.simplefilter("ignore", ConvergenceWarning)
        if _check_name(check) == "check_supervised_y_no_nan":
            # A search's check_cv asks type_of_target about y, which casts the
            # infinite y of this check to int64 with NumPy's RuntimeWarning
            # (scikit-learn's own searches warn the same); the check is about
            # the error that follows.
            warnings.filterwarnings(
                "ignore", "invalid value encountered in cast", RuntimeWarning
            )
        if isinstance(estimator, GaussianNB) and _check_name(check) == (
            "check_classifiers_one_label_sample_weights"
        ):
            # A class whose weights are all zero gets a zero prior, whose log
            # NumPy warns about: scikit-learn's GaussianNB warns the same (its
            # suite lets RuntimeWarnings pass); the check is about predictions.
            warnings.filterwarnings(
                "ignore", "divide by zero encountered in log", RuntimeWarning
            )
        if isinstance(estimator, (HalvingGridSearchCV, HalvingRandomSearchCV)):
            # On the checks' small data, scikit-learn's own halving searches
            # warn the same (scikit-learn's suite lets UserWarnings pass): the
            # first iterations score subsamples with a single test sample,
            # where R^2 is undefined (NaN mean scores), and the sampler draws
            # fewer candidates than asked from a two-value grid.
            warnings.filterwarnings(
                "ignore", "R\\^2 score is not well-defined", UndefinedMetricWarning
            )
            for message in (
                "One or more of the test scores are non-finite",
                "One or more of the train scores are non-finite",
                "The total space of parameters 2 is smaller than n_iter",
            ):
                warnings.filterwarnings("ignore", message, UserWarning)
        check(estimator)


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__
