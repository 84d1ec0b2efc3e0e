"""gpuml's naive Bayes classifiers against scikit-learn's, on every backend:
the same log-probabilities (1e-10 in float64) and predictions on fresh
random data, dense and CSR, with weights; partial_fit sequences; pickling;
scikit-learn's errors; and the batched search, whose count pass runs once
per fold."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as skn
from sklearn.exceptions import FitFailedWarning
from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidfVectorizer
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

import gpuml.naive_bayes as gnb
from gpuml import config_context
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.feature_extraction.text import TfidfVectorizer
from gpuml.model_selection import GridSearchCV
from gpuml.naive_bayes import _categorical, _discrete, _gaussian
from tests.conftest import DEVICES

COUNT_MODELS = ["MultinomialNB", "ComplementNB", "BernoulliNB"]
ALL_MODELS = [*COUNT_MODELS, "CategoricalNB", "GaussianNB"]


def make_data(name: str, rng, n: int = 90, p: int = 7, n_classes: int = 3):
    """Data each model reads: counts, categories or real values; every class
    present."""
    y = rng.permutation(np.arange(n) % n_classes)
    if name == "CategoricalNB":
        X = rng.integers(0, 4, size=(n, p))
    elif name == "GaussianNB":
        X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10, size=p) + 3 * y[:, None]
    else:
        X = rng.poisson(1.0 + y[:, None] * np.arange(p) / p, size=(n, p)).astype(float)
    return X, y


def _sparse_formats(name):
    return ["dense", "csr"] if name in COUNT_MODELS else ["dense"]


CASES = [(name, fmt) for name in ALL_MODELS for fmt in _sparse_formats(name)]


@pytest.mark.parametrize("name, fmt", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_sklearn(backend, rng, name, fmt, weighted):
    X, y = make_data(name, rng)
    w = rng.uniform(0.1, 3, size=X.shape[0]) if weighted else None
    X_test, _ = make_data(name, rng, n=20)
    if name == "CategoricalNB":
        X_test = np.minimum(X_test, X.max(axis=0))
    want = getattr(skn, name)().fit(X, y, sample_weight=w)
    Xb = backend.as_format(X, fmt)
    Xb_test = backend.as_format(X_test, fmt)
    got = getattr(gnb, name)().fit(Xb, backend.asarray(y), sample_weight=w)
    log_proba = got.predict_log_proba(Xb_test)
    backend.assert_family(log_proba, dtype=np.float64, shape=(20, 3))
    np.testing.assert_allclose(
        backend.to_numpy(log_proba), want.predict_log_proba(X_test), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(
        backend.to_numpy(got.predict_proba(Xb_test)),
        want.predict_proba(X_test),
        rtol=0,
        atol=1e-10,
    )
    np.testing.assert_allclose(
        backend.to_numpy(got.predict_joint_log_proba(Xb_test)),
        want.predict_joint_log_proba(X_test),
        rtol=1e-12,
        atol=1e-10,
    )
    prediction = got.predict(Xb_test)
    backend.assert_family(prediction, shape=(20,))
    np.testing.assert_array_equal(backend.to_numpy(prediction), want.predict(X_test))
    backend.assert_family(got.class_count_, shape=(3,))
    np.testing.assert_allclose(
        backend.to_numpy(got.class_count_), want.class_count_, rtol=1e-12
    )
    if name in COUNT_MODELS:
        np.testing.assert_allclose(
            backend.to_numpy(got.feature_count_), want.feature_count_, rtol=1e-12
        )
        np.testing.assert_allclose(
            backend.to_numpy(got.feature_log_prob_),
            want.feature_log_prob_,
            rtol=1e-12,
        )
    if name == "CategoricalNB":
        np.testing.assert_array_equal(got.n_categories_, want.n_categories_)
        for a, b in zip(got.category_count_, want.category_count_, strict=True):
            np.testing.assert_allclose(backend.to_numpy(a), b, rtol=1e-12)
    if name == "GaussianNB":
        for attribute in ("theta_", "var_", "class_prior_"):
            np.testing.assert_allclose(
                backend.to_numpy(getattr(got, attribute)),
                getattr(want, attribute),
                rtol=1e-10,
            )
        assert float(got.epsilon_) == pytest.approx(want.epsilon_, rel=1e-12)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_float32_follows_sklearn(backend, rng, name):
    """Discrete models count in float64 (float64 out for float32 in);
    GaussianNB keeps float32."""
    X, y = make_data(name, rng)
    X32 = X.astype(np.float32)
    want = getattr(skn, name)().fit(X32, y)
    got = getattr(gnb, name)().fit(backend.asarray(X32), backend.asarray(y))
    expected = want.predict_log_proba(X32)
    log_proba = got.predict_log_proba(backend.asarray(X32))
    backend.assert_family(log_proba, dtype=expected.dtype, shape=expected.shape)
    tolerance = 1e-10 if expected.dtype == np.float64 else 1e-3
    np.testing.assert_allclose(
        backend.to_numpy(log_proba), expected, rtol=0, atol=tolerance
    )
    assert got.class_count_.dtype == want.class_count_.dtype


@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_partial_fit_sequence_equals_fit(backend, rng, name, weighted):
    X, y = make_data(name, rng)
    w = rng.uniform(0.1, 3, size=X.shape[0]) if weighted else None
    # GaussianNB's smoothing is a share of each call's largest variance (in
    # scikit-learn too): without it the sequence's model is the whole fit's
    params = {"var_smoothing": 0.0} if name == "GaussianNB" else {}
    whole = getattr(gnb, name)(**params).fit(backend.asarray(X), y, sample_weight=w)
    parts = getattr(gnb, name)(**params)
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        parts.partial_fit(
            backend.asarray(X[rows]),
            y[rows],
            classes=[0, 1, 2] if rows[0] == 0 else None,
            sample_weight=None if w is None else w[rows],
        )
    np.testing.assert_allclose(
        backend.to_numpy(parts.predict_log_proba(backend.asarray(X))),
        backend.to_numpy(whole.predict_log_proba(backend.asarray(X))),
        rtol=0,
        atol=1e-9,
    )
    want = getattr(skn, name)(**params)
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        want.partial_fit(
            X[rows],
            y[rows],
            classes=[0, 1, 2] if rows[0] == 0 else None,
            sample_weight=None if w is None else w[rows],
        )
    np.testing.assert_allclose(
        backend.to_numpy(parts.predict_log_proba(backend.asarray(X))),
        want.predict_log_proba(X),
        rtol=0,
        atol=1e-10,
    )


def test_partial_fit_with_a_class_not_yet_seen(rng):
    X, y = make_data("MultinomialNB", rng, n=30)
    got = gnb.MultinomialNB().partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    want = skn.MultinomialNB().partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    np.testing.assert_allclose(got.class_count_, want.class_count_)
    assert np.isneginf(got.class_log_prior_[2])
    got.partial_fit(X[y == 2], y[y == 2])
    want.partial_fit(X[y == 2], y[y == 2])
    np.testing.assert_allclose(
        got.predict_log_proba(X), want.predict_log_proba(X), rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("name", ALL_MODELS)
def test_numpy_fitted_model_pickles(rng, name):
    X, y = make_data(name, rng)
    labels = np.array(["ham", "eggs", "spam"])[y]
    model = getattr(gnb, name)().fit(X, labels)
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.predict(X), model.predict(X))
    assert clone.predict(X).dtype.kind == "U"
    assert not clone.__dict__.get("_gpuml_cache")
    for value in vars(clone).values():
        if hasattr(value, "shape"):
            assert isinstance(value, (np.ndarray, np.generic))
    np.testing.assert_array_equal(
        clone.predict(X), getattr(skn, name)().fit(X, labels).predict(X)
    )


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
def test_negative_counts_raise(backend, name):
    X = np.array([[1.0, 2.0], [0.0, -1.0]])
    message = f"Negative values in data passed to {name} (input X)"
    for fmt in ("dense", "csr"):
        with pytest.raises(ValueError, match=re.escape(message)):
            getattr(gnb, name)().fit(backend.as_format(X, fmt), [0, 1])


def test_categorical_errors(backend):
    X = np.array([[0, 1], [1, 2]])
    clf = gnb.CategoricalNB().fit(backend.asarray(X), [0, 1])
    message = "Negative values in data passed to CategoricalNB (input X)"
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.predict(backend.asarray(np.array([[0, -1]])))
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        clf.predict(backend.asarray(np.array([[0, 3]])))
    with pytest.raises(ValueError, match="'min_categories' should have shape"):
        gnb.CategoricalNB(min_categories=[[3, 2], [2, 4]]).fit(X, [0, 1])


@pytest.mark.parametrize("name", ALL_MODELS)
def test_errors_are_sklearns(name):
    X = np.array([[1, 0, 2], [0, 1, 1], [2, 2, 0]])
    y = np.array([0, 1, 1])
    model = getattr(gnb, name)
    with pytest.raises(ValueError, match="classes must be passed on the first"):
        model().partial_fit(X, y)
    clf = model().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="is not the same as on last call"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="X has 2 features, but"):
        clf.predict(X[:, :2])
    with pytest.raises(ValueError, match="Unknown label type"):
        model().fit(X, [0.5, 1.5, 2.25])
    with pytest.raises(ValueError, match="Found input variables with inconsistent"):
        model().fit(X, [0, 1])
    if name == "GaussianNB":
        with pytest.raises(InvalidParameterError, match="var_smoothing"):
            model(var_smoothing=-1.0).fit(X, y)
        with pytest.raises(ValueError, match=r"The target label\(s\) \[5\] in y"):
            clf.partial_fit(X, [0, 1, 5])
        with pytest.raises(ValueError, match="The sum of the priors should be 1"):
            model(priors=[0.6, 0.6]).fit(X, y)
        return
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        model(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match"):
        model(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    message = "alpha too small will result in numeric errors, setting alpha = 1.0e-10"
    with pytest.warns(UserWarning, match=message):
        model(alpha=1e-12, force_alpha=False).fit(X, y)
    if name != "CategoricalNB":
        with pytest.raises(ValueError, match="All values in alpha must be greater"):
            model(alpha=[1.0, -0.5, 1.0]).fit(X, y)
        with pytest.raises(ValueError, match="it should contains `n_features`"):
            model(alpha=[1.0, 1.0]).fit(X, y)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_alpha_array_matches_sklearn(rng, name):
    X, y = make_data(name, rng)
    alpha = rng.uniform(0.1, 2, size=X.shape[1])
    if name == "BernoulliNB":
        # scikit-learn adds 2 * alpha to the class counts: an array of
        # another length than the classes' does not broadcast, in both
        for model in (gnb.BernoulliNB, skn.BernoulliNB):
            with pytest.raises(ValueError, match="could not be broadcast"):
                model(alpha=alpha).fit(X, y)
        return
    got = getattr(gnb, name)(alpha=alpha).fit(sp.csr_matrix(X), y)
    want = getattr(skn, name)(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(
        got.predict_log_proba(X), want.predict_log_proba(X), rtol=0, atol=1e-10
    )


# -- the batched search ----------------------------------------------------

GRIDS = {
    "MultinomialNB": {
        # an array of one alpha per feature (make_data's 7) among the floats
        "alpha": [1e-3, 0.1, 1.0, 10.0, np.linspace(0.1, 2.0, 7)],
        "fit_prior": [True, False],
        "force_alpha": [True, False],
    },
    "ComplementNB": {"alpha": [0.01, 1.0, 5.0], "norm": [False, True]},
    "BernoulliNB": {"alpha": [0.01, 0.5, 2.0], "fit_prior": [True, False]},
    "CategoricalNB": {"alpha": [0.1, 1.0, 3.0]},
    "GaussianNB": {"var_smoothing": [1e-9, 1e-4, 1e-2, 1.0]},
}
# where each model computes its counts (or class statistics) for a fit
COUNT_PASS = {
    "MultinomialNB": (_discrete, "count_features"),
    "ComplementNB": (_discrete, "count_features"),
    "BernoulliNB": (_discrete, "count_features"),
    "CategoricalNB": (_categorical.CategoricalNB, "_count"),
    "GaussianNB": (_gaussian, "_merge"),
}


def spy_count_pass(monkeypatch, name) -> list:
    owner, attribute = COUNT_PASS[name]
    original = getattr(owner, attribute)
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, attribute, counting)
    return calls


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("scoring", [None, "neg_log_loss"])
def test_batched_search_matches_sklearn(device, rng, monkeypatch, name, scoring):
    X, y = make_data(name, rng, n=120)
    w = rng.uniform(0.5, 2, size=X.shape[0])
    grid = GRIDS[name]
    want = SkGridSearchCV(getattr(skn, name)(), grid, cv=4, scoring=scoring)
    want.fit(X, y, sample_weight=w)
    calls = spy_count_pass(monkeypatch, name)
    with config_context(device=device):
        got = GridSearchCV(getattr(gnb, name)(), grid, cv=4, scoring=scoring)
        got.fit(X, y, sample_weight=w)
    # one count pass per fold for all the candidates, and one for the refit
    assert len(calls) == 4 + 1
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            got.cv_results_[key], want.cv_results_[key], rtol=0, atol=1e-12
        )
    for split in range(4):
        key = f"split{split}_test_score"
        np.testing.assert_allclose(
            got.cv_results_[key], want.cv_results_[key], rtol=0, atol=1e-12
        )
    assert got.best_params_ == want.best_params_


def test_batched_search_with_a_fold_lacking_a_class(rng, monkeypatch):
    """A fold's classes are its own labels', as its own fit's."""
    X, y = make_data("MultinomialNB", rng, n=60)
    y = np.where(np.arange(60) < 4, 3, y)  # class 3 only in the first fold
    grid = {"alpha": [0.1, 1.0]}
    want = SkGridSearchCV(skn.MultinomialNB(), grid, cv=3).fit(X, y)
    calls = spy_count_pass(monkeypatch, "MultinomialNB")
    got = GridSearchCV(gnb.MultinomialNB(), grid, cv=3).fit(X, y)
    assert len(calls) == 3 + 1
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-12,
    )


# the failed candidates' NaN mean scores (scikit-learn's search warns the same)
@pytest.mark.filterwarnings(
    "ignore:One or more of the test scores are non-finite:UserWarning"
)
def test_negative_data_is_fitted_one_by_one(rng):
    """Each candidate then fails as its own fit does (error_score)."""
    X, y = make_data("MultinomialNB", rng, n=60)
    X[0, 0] = -1.0
    search = GridSearchCV(
        gnb.MultinomialNB(),
        {"alpha": [0.1, 1.0]},
        cv=3,
        error_score=np.nan,
        refit=False,
    )
    with pytest.warns(FitFailedWarning, match="4 fits failed out of a total of 6"):
        search.fit(X, y)
    # the negative value is in the first fold's test rows only
    assert np.isfinite(search.cv_results_["split0_test_score"]).all()
    assert np.isnan(search.cv_results_["split1_test_score"]).all()
    assert np.isnan(search.cv_results_["split2_test_score"]).all()


TOPICS = [
    ["gpu", "cuda", "kernel", "memory"],
    ["cat", "dog", "fish", "bird"],
    ["rain", "sun", "wind", "snow"],
]
SHARED = ["the", "a", "of", "gpu", "dog", "sun"]


@pytest.mark.parametrize("device", DEVICES)
def test_text_pipeline_search_matches_sklearn(device, rng, monkeypatch):
    y = rng.integers(0, 3, size=150)
    docs = [" ".join(rng.choice(TOPICS[label] + SHARED, size=7)) for label in y]
    grid = {
        "tfidfvectorizer__sublinear_tf": [False, True],
        "complementnb__alpha": [0.01, 0.1, 1.0, 10.0],
        "complementnb__norm": [False, True],
    }
    want = SkGridSearchCV(
        make_pipeline(SkTfidfVectorizer(), skn.ComplementNB()), grid, cv=3
    ).fit(docs, y)
    calls = spy_count_pass(monkeypatch, "ComplementNB")
    with config_context(device=device):
        got = GridSearchCV(
            make_pipeline(TfidfVectorizer(), gnb.ComplementNB()), grid, cv=3
        ).fit(docs, y)
    # one count pass per fold and vectorizer setting (8 candidates each),
    # and one for the refit
    assert len(calls) == 2 * 3 + 1
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-12,
    )
    assert got.best_params_ == want.best_params_
    assert isinstance(got.best_estimator_[-1].feature_log_prob_, np.ndarray)
    np.testing.assert_array_equal(got.predict(docs), want.predict(docs))


@pytest.mark.parametrize("name", COUNT_MODELS)
@pytest.mark.parametrize("classes", [[0, 1], [0, 1, 2]])
def test_partial_fit_labels_outside_classes_as_sklearn(rng, name, classes):
    """scikit-learn's discrete models binarise a later call's labels against
    ``classes_`` (``label_binarize``), whatever that makes of labels outside
    them: the same counts here."""
    X, y = make_data(name, rng, n=40, n_classes=4)
    first = np.isin(y, classes)
    got = getattr(gnb, name)().partial_fit(X[first], y[first], classes=classes)
    want = getattr(skn, name)().partial_fit(X[first], y[first], classes=classes)
    got.partial_fit(X, y)
    want.partial_fit(X, y)
    np.testing.assert_allclose(got.class_count_, want.class_count_, rtol=1e-12)
    np.testing.assert_allclose(got.feature_count_, want.feature_count_, rtol=1e-12)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "GaussianNB"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_outlying_rows(backend, rng, name, dtype):
    """A few rows 1e4 times the others' scale: the joint log-likelihoods
    agree relative to their size (float32's rounding for float32
    GaussianNB, which computes in float32 as scikit-learn's)."""
    X, y = make_data(name, rng)
    X[rng.choice(X.shape[0], 3, replace=False)] *= 1e4
    X = X.astype(dtype)
    want = getattr(skn, name)().fit(X, y)
    got = getattr(gnb, name)().fit(backend.asarray(X), y)
    expected = want.predict_joint_log_proba(X)
    rtol = 1e-4 if expected.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(
        backend.to_numpy(got.predict_joint_log_proba(backend.asarray(X))),
        expected,
        rtol=rtol,
        atol=rtol,
    )


@pytest.mark.parametrize("device", DEVICES)
def test_search_best_categorical_nb_holds_host_lists_for_host_data(device, rng):
    """A search on NumPy data refits its best model on the device copy when
    it computes on the GPU: CategoricalNB's list attributes come back to the
    host with its array attributes, as fitting it on the user's data gives."""
    X = rng.integers(0, 4, size=(120, 3))
    y = rng.integers(0, 2, size=120)
    with config_context(device=device):
        search = GridSearchCV(gnb.CategoricalNB(), {"alpha": [0.5, 1.0]}, cv=3)
        search.fit(X, y)
    best = search.best_estimator_
    for name in ("category_count_", "feature_log_prob_"):
        assert all(type(a) is np.ndarray for a in getattr(best, name)), name
    assert type(best.class_count_) is np.ndarray
    theirs = skn.CategoricalNB(alpha=search.best_params_["alpha"]).fit(X, y)
    for ours, expected in zip(
        best.feature_log_prob_, theirs.feature_log_prob_, strict=True
    ):
        np.testing.assert_allclose(ours, expected, rtol=1e-12)
