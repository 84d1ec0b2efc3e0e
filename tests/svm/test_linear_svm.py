"""LinearSVC and LinearSVR: parity with scikit-learn's liblinear, errors,
attributes, and the batched search.

scikit-learn at a tight ``tol`` is the oracle: every L2 problem here is
strictly convex in the coefficients (the intercept included: liblinear
penalises it), so the coefficients are compared directly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.base import clone as sk_clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV as SkGridSearchCV

from gpuml._array import compute_namespace, to_namespace
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.model_selection import GridSearchCV
from gpuml.svm import LinearSVC, LinearSVR

SK_TIGHT = dict(tol=1e-11, max_iter=200000)
# Newton stops on the gradient (bounds the error by it); the other problems
# are scikit-learn's own liblinear (CD_TIGHT: its tol and max_iter).
NEWTON_TIGHT = dict(tol=1e-11, max_iter=200)
CD_TIGHT = SK_TIGHT


def _classification(rng, n_classes, n=120, p=5):
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 2.0, p) + rng.uniform(-1, 1, p)
    scores = X @ rng.normal(size=(p, n_classes)) + 2 * rng.gumbel(size=(n, n_classes))
    y = np.argmax(scores, axis=1)
    return X, np.array([3, 7, 11, 20])[y]  # labels that are not 0..k-1


def _regression(rng, n=120, p=5):
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 2.0, p) + rng.uniform(-1, 1, p)
    return X, X @ rng.normal(size=p) + 0.5 * rng.normal(size=n) + 1.0


def _assert_equal_fits(cls, params, X, y, sw, fmt, backend):
    """gpuml's ``cls`` and scikit-learn's class of that name fitted alike
    (``X`` as ``fmt``): the same coefficients, intercepts and ``n_iter_``,
    bit for bit, and the same warnings (liblinear warns where it stopped at
    its cap, which some random data make it reach). Returns ``(ours,
    theirs)``."""
    X_host = sp.csr_matrix(X) if fmt == "csr" else X
    with warnings.catch_warnings(record=True) as their_warnings:
        warnings.simplefilter("always")
        theirs = getattr(sk_svm, cls.__name__)(**params).fit(
            X_host, y, sample_weight=sw
        )
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        ours = cls(**params).fit(
            backend.as_format(X, fmt), backend.asarray(y), sample_weight=sw
        )
    assert [(w.category, str(w.message)) for w in our_warnings] == [
        (w.category, str(w.message)) for w in their_warnings
    ]
    assert ours.coef_.shape == theirs.coef_.shape
    np.testing.assert_array_equal(backend.to_numpy(ours.coef_), theirs.coef_)
    if params.get("fit_intercept", True):
        np.testing.assert_array_equal(
            np.asarray(backend.to_numpy(ours.intercept_)),
            np.asarray(theirs.intercept_),
        )
    else:
        assert ours.intercept_ == 0.0
    assert ours.n_iter_ == theirs.n_iter_
    backend.assert_family(ours.coef_)
    return ours, theirs


def _assert_same_predictions(predicted, decision, theirs, X):
    """``predicted`` (from equal coefficients) is ``theirs.predict(X)``
    wherever a class wins by more than rounding. Both decision functions sum
    the same products, but a sparse product (or another BLAS) may sum them in
    another order, so a sample whose two best classes tie to the last bits
    may go either way; ``decision`` must match theirs to rounding there."""
    their_decision = theirs.decision_function(X)
    np.testing.assert_allclose(decision, their_decision, rtol=1e-12, atol=1e-12)
    if their_decision.ndim == 1:
        margin = np.abs(their_decision)
    else:
        top_two = np.sort(their_decision, axis=1)[:, -2:]
        margin = top_two[:, 1] - top_two[:, 0]
    decided = margin > 1e-12 * max(1.0, np.abs(their_decision).max())
    np.testing.assert_array_equal(predicted[decided], theirs.predict(X)[decided])


def _assert_close(ours, theirs, backend, rtol=1e-6):
    """Coefficients and intercepts within ``rtol`` of the largest of them
    (a fit whose coefficients are all near zero is compared at the scale of
    its intercept)."""
    coef = backend.to_numpy(ours.coef_)
    scale = max(np.abs(theirs.coef_).max(), np.abs(theirs.intercept_).max())
    np.testing.assert_allclose(coef, theirs.coef_, rtol=0, atol=rtol * scale)
    if isinstance(theirs.intercept_, float):
        assert ours.intercept_ == 0.0 and isinstance(ours.intercept_, float)
    else:
        intercept = backend.to_numpy(ours.intercept_)
        assert intercept.shape == theirs.intercept_.shape
        np.testing.assert_allclose(
            intercept, theirs.intercept_, rtol=0, atol=rtol * scale
        )


OPTIONS = [
    {},
    {"C": 20.0, "intercept_scaling": 3.0},
    {"fit_intercept": False},
    {"class_weight": "balanced"},
    {"class_weight": {3: 0.5, 7: 4.0}, "C": 0.3},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_squared_hinge_matches_sklearn(backend, rng, options, n_classes, fmt):
    X, y = _classification(rng, n_classes)
    sw = rng.uniform(0.2, 3.0, len(y))
    sw[:5] = 0.0  # liblinear drops zero-weight samples
    theirs = sk_svm.LinearSVC(**SK_TIGHT, **options).fit(X, y, sample_weight=sw)
    ours = LinearSVC(**NEWTON_TIGHT, **options).fit(
        backend.as_format(X, fmt), backend.asarray(y), sample_weight=sw
    )
    backend.assert_family(ours.coef_, dtype=np.float64, shape=theirs.coef_.shape)
    _assert_close(ours, theirs, backend)
    np.testing.assert_array_equal(backend.to_numpy(ours.classes_), theirs.classes_)
    assert isinstance(ours.n_iter_, int) and 0 < ours.n_iter_ <= 200
    X_b = backend.as_format(X, fmt)
    backend.assert_family(ours.predict(X_b), shape=(len(y),))
    np.testing.assert_allclose(
        backend.to_numpy(ours.decision_function(X_b)),
        theirs.decision_function(X),
        atol=1e-6 * np.abs(theirs.decision_function(X)).max(),
    )


@pytest.mark.parametrize(
    "options",
    [
        {"loss": "hinge", "C": 0.1},
        {"loss": "hinge", "class_weight": "balanced", "intercept_scaling": 3.0},
        {"loss": "hinge", "fit_intercept": False, "C": 2.0},
        {"penalty": "l1", "dual": False},
        {"penalty": "l1", "dual": False, "class_weight": {3: 3.0}, "C": 0.3},
    ],
    ids=str,
)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_compiled_liblinear_equals_sklearn(backend, rng, options, n_classes, fmt):
    """The hinge and the L1 penalty are scikit-learn's compiled liblinear on a
    host copy: scikit-learn's coefficients, intercepts and n_iter_ exactly
    (random_state, sample and class weights included)."""
    X, y = _classification(rng, n_classes, n=150)
    if fmt == "csr":
        X[np.abs(X) < 0.7] = 0.0
    sw = rng.uniform(0.2, 2.0, len(y))
    params = dict(random_state=4, max_iter=100_000, **options)
    _assert_equal_fits(LinearSVC, params, X, y, sw, fmt, backend)


@pytest.mark.parametrize(
    "options",
    [
        {"epsilon": 0.5, "C": 0.05},
        {"epsilon": 0.0, "C": 3.0, "intercept_scaling": 2.0},
        {"fit_intercept": False},
    ],
    ids=str,
)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_epsilon_insensitive_equals_sklearn(backend, rng, options, fmt):
    """LinearSVR's epsilon-insensitive loss: scikit-learn's compiled liblinear
    on a host copy, its result exactly."""
    X, y = _regression(rng, n=120, p=5)
    if fmt == "csr":
        X[np.abs(X) < 0.5] = 0.0
    sw = rng.uniform(0.2, 2.0, len(y))
    params = dict(random_state=2, max_iter=100_000, **options)
    ours, _ = _assert_equal_fits(LinearSVR, params, X, y, sw, fmt, backend)
    backend.assert_family(ours.coef_, shape=(X.shape[1],))


@pytest.mark.parametrize(
    "options",
    [
        {"loss": "squared_epsilon_insensitive", "epsilon": 0.3},
        {"loss": "squared_epsilon_insensitive", "fit_intercept": False, "C": 10.0},
        {"loss": "squared_epsilon_insensitive", "intercept_scaling": 5.0},
    ],
    ids=str,
)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_squared_epsilon_insensitive_matches_sklearn(backend, rng, options, fmt):
    X, y = _regression(rng)
    sw = rng.uniform(0.2, 3.0, len(y))
    theirs = sk_svm.LinearSVR(**SK_TIGHT, **options).fit(X, y, sample_weight=sw)
    ours = LinearSVR(**NEWTON_TIGHT, **options).fit(
        backend.as_format(X, fmt), backend.asarray(y), sample_weight=sw
    )
    backend.assert_family(ours.coef_, dtype=np.float64, shape=(X.shape[1],))
    _assert_close(ours, theirs, backend)
    backend.assert_family(ours.predict(backend.as_format(X, fmt)), shape=(len(y),))


def _gradients(coef, intercept, X, T, C, loss, epsilon=0.0):
    """Gradients of liblinear's squared-loss objectives (intercept scaling
    1), one row per problem (columns of the targets ``T``)."""
    Xa = np.hstack([np.asarray(X, dtype=np.float64), np.ones((X.shape[0], 1))])
    W = np.hstack([np.atleast_2d(coef), np.reshape(intercept, (-1, 1))])
    Z = Xa @ W.T
    if loss == "squared_hinge":
        slope = -2 * C * T * np.maximum(1 - T * Z, 0)
    else:
        slope = 2 * C * np.sign(Z - T) * np.maximum(np.abs(Z - T) - epsilon, 0)
    return W + (Xa.T @ slope).T  # rows: problems


def _assert_same_optimum(ours, theirs, backend, X, T, C, loss):
    """``||w - w*|| <= ||∇f(w)||`` (the objectives are 1-strongly convex):
    the two solutions are within the sum of their gradients' norms, which
    must be small. scikit-learn's own TRON stops short of the optimum on such
    data (its gradient is the larger), so this bound is the comparison."""
    coef, intercept = backend.to_numpy(ours.coef_), backend.to_numpy(ours.intercept_)
    g_ours = np.linalg.norm(_gradients(coef, intercept, X, T, C, loss), axis=1)
    g_theirs = np.linalg.norm(
        _gradients(theirs.coef_, theirs.intercept_, X, T, C, loss), axis=1
    )
    W_ours = np.hstack([np.atleast_2d(coef), np.reshape(intercept, (-1, 1))])
    W_theirs = np.hstack(
        [np.atleast_2d(theirs.coef_), np.reshape(theirs.intercept_, (-1, 1))]
    )
    scale = np.abs(W_theirs).max()
    assert np.all(g_ours <= 1e-6 * scale), g_ours
    distance = np.linalg.norm(W_ours - W_theirs, axis=1)
    assert np.all(distance <= g_ours + g_theirs + 1e-12 * scale)


def test_hard_data_float32_outliers_ill_conditioned(backend, rng):
    """float32 input (computed in float64 as liblinear does), columns scaled
    over six orders of magnitude and gross outliers: the same optimum."""
    X, y = _classification(rng, 3, n=200, p=6)
    X = X * np.logspace(-3, 3, 6)
    X[:4] *= 1e3
    X = X.astype(np.float32)
    with warnings.catch_warnings():  # liblinear's TRON may stall here
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = sk_svm.LinearSVC(C=0.1, **SK_TIGHT).fit(X, y)
    ours = LinearSVC(C=0.1, tol=1e-13).fit(backend.asarray(X), backend.asarray(y))
    T = np.where(y[:, None] == theirs.classes_[None, :], 1.0, -1.0)
    _assert_same_optimum(ours, theirs, backend, X, T, 0.1, "squared_hinge")
    X_r, y_r = _regression(rng, n=200, p=6)
    X_r = (X_r * np.logspace(-3, 3, 6)).astype(np.float32)
    y_r[:3] += 1e4
    options = dict(loss="squared_epsilon_insensitive", C=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = sk_svm.LinearSVR(**options, **SK_TIGHT).fit(X_r, y_r)
    ours = LinearSVR(**options, tol=1e-13).fit(
        backend.asarray(X_r), backend.asarray(y_r)
    )
    _assert_same_optimum(ours, theirs, backend, X_r, y_r[:, None], 0.1, options["loss"])


def test_dual_choices_have_the_same_optimum(rng):
    X, y = _classification(rng, 2)
    primal = LinearSVC(dual=False, **NEWTON_TIGHT).fit(X, y)
    dual = LinearSVC(dual=True, **NEWTON_TIGHT).fit(X, y)
    np.testing.assert_allclose(primal.coef_, dual.coef_, rtol=1e-10)


@pytest.mark.parametrize(
    "cls, sk_cls, options",
    [
        (LinearSVC, sk_svm.LinearSVC, dict(loss="hinge", dual=False)),
        (LinearSVC, sk_svm.LinearSVC, dict(penalty="l1", loss="hinge")),
        (LinearSVC, sk_svm.LinearSVC, dict(penalty="l1", dual=True)),
        (LinearSVR, sk_svm.LinearSVR, dict(loss="epsilon_insensitive", dual=False)),
    ],
    ids=str,
)
def test_unsupported_combinations_raise_sklearns_error(rng, cls, sk_cls, options):
    X, y = _classification(rng, 2)
    if cls is LinearSVR:
        X, y = _regression(rng)
    with pytest.raises(ValueError) as theirs:
        sk_cls(**options).fit(X, y)
    with pytest.raises(ValueError) as ours:
        cls(**options).fit(X, y)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"C": 2.0, "intercept_scaling": 3.0},
        {"fit_intercept": False},
        {"class_weight": "balanced"},
        {"class_weight": {3: 2.0, 7: 0.5}, "C": 0.3},
    ],
    ids=str,
)
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_crammer_singer_equals_sklearn(backend, rng, options, n_classes, fmt):
    """scikit-learn's own liblinear runs Crammer-Singer on a host copy: the
    same coefficients, intercepts, n_iter_ and predictions, bit for bit, at
    the default tol (binary: the difference of the two classes' rows)."""
    X, y = _classification(rng, n_classes, n=150)
    if fmt == "csr":
        X[np.abs(X) < 0.7] = 0.0
    sw = rng.uniform(0.2, 2.0, len(y))
    sw[::7] = -0.5  # liblinear drops samples of non-positive weight
    params = dict(multi_class="crammer_singer", random_state=3, **options)
    params["max_iter"] = 100_000
    ours, theirs = _assert_equal_fits(LinearSVC, params, X, y, sw, fmt, backend)
    X_fmt = backend.as_format(X, fmt)
    _assert_same_predictions(
        backend.to_numpy(ours.predict(X_fmt)),
        backend.to_numpy(ours.decision_function(X_fmt)),
        theirs,
        X,
    )


def test_crammer_singer_warns_as_sklearn(rng):
    """scikit-learn's liblinear runs Crammer-Singer to its own cap of 100,000
    passes whatever max_iter is, and warns when it took max_iter or more."""
    X, y = _classification(rng, 3)
    params = dict(multi_class="crammer_singer", random_state=0, max_iter=2)
    with pytest.warns(ConvergenceWarning, match="^Liblinear failed to converge"):
        theirs = sk_svm.LinearSVC(**params).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="^Liblinear failed to converge"):
        ours = LinearSVC(**params).fit(X, y)
    assert ours.n_iter_ == theirs.n_iter_ > 2
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)


def test_crammer_singer_draws_from_random_state_as_sklearn(rng):
    """One draw per fit from a RandomState instance: two fits in a row equal
    scikit-learn's two, and leave the state where scikit-learn's leave it."""
    X, y = _classification(rng, 3)
    params = dict(multi_class="crammer_singer", C=0.5, max_iter=100_000)
    theirs_state, ours_state = np.random.RandomState(5), np.random.RandomState(5)
    for _ in range(2):
        theirs = sk_svm.LinearSVC(**params, random_state=theirs_state).fit(X, y)
        ours = LinearSVC(**params, random_state=ours_state).fit(X, y)
        np.testing.assert_array_equal(ours.coef_, theirs.coef_)
    assert ours_state.randint(1 << 30) == theirs_state.randint(1 << 30)


def test_crammer_singer_search_equals_sklearn(backend, rng):
    """A search over C (and over multi_class): every candidate equals its
    own fit, so the scores and the refit equal scikit-learn's."""
    X, y = _classification(rng, 3, n=150)
    grid = {"C": [0.01, 0.1, 1.0, 10.0], "multi_class": ["ovr", "crammer_singer"]}
    base = dict(random_state=0, max_iter=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # ovr's at max_iter
        theirs = SkGridSearchCV(sk_svm.LinearSVC(**base, tol=1e-10), grid).fit(X, y)
        ours = GridSearchCV(LinearSVC(**base, tol=1e-10), grid).fit(
            backend.asarray(X), backend.asarray(y)
        )
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-12,
    )
    assert ours.best_params_ == theirs.best_params_
    if ours.best_params_["multi_class"] == "crammer_singer":
        np.testing.assert_array_equal(
            backend.to_numpy(ours.best_estimator_.coef_),
            theirs.best_estimator_.coef_,
        )


@pytest.mark.parametrize(
    "cls, options",
    [
        (LinearSVC, {}),
        (LinearSVC, {"loss": "hinge"}),
        (LinearSVC, {"penalty": "l1", "dual": False}),
        (LinearSVR, {}),
        (LinearSVR, {"loss": "squared_epsilon_insensitive"}),
    ],
    ids=str,
)
def test_negative_weights_drop_samples_as_liblinear(backend, rng, cls, options):
    """liblinear drops samples whose weight is not positive: a negative
    weight fits as a zero one, equal to scikit-learn's fit."""
    X, y = _regression(rng) if cls is LinearSVR else _classification(rng, 3)
    sw = rng.uniform(0.2, 2.0, len(y))
    sw[::5] = -1.0
    tight = CD_TIGHT if options.get("loss") in (None, "hinge") else NEWTON_TIGHT
    sk_tight = SK_TIGHT
    if options.get("penalty") == "l1":  # as test_l1_penalty_matches_sklearn
        tight = sk_tight = dict(tol=1e-9, max_iter=100000)
    theirs = sk_svm.__dict__[cls.__name__](**options, **sk_tight, random_state=0)
    theirs.fit(X, y, sample_weight=sw)
    ours = cls(**options, **tight, random_state=0).fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(sw)
    )
    zero = cls(**options, **tight, random_state=0).fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=backend.asarray(np.maximum(sw, 0.0)),
    )
    np.testing.assert_array_equal(
        backend.to_numpy(ours.coef_), backend.to_numpy(zero.coef_)
    )
    _assert_close(ours, theirs, backend, rtol=1e-5)


def test_no_positive_weight_raises(rng):
    """scikit-learn's liblinear then has no sample and fails on an empty
    max(); gpuml says why."""
    X, y = _classification(rng, 2)
    with pytest.raises(ValueError):
        sk_svm.LinearSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    for options in ({}, {"multi_class": "crammer_singer"}):
        with pytest.raises(ValueError, match="at least one sample with a positive"):
            LinearSVC(**options).fit(X, y, sample_weight=-np.ones(len(y)))
    # a class without a positive weight: scikit-learn's liblinear fits the
    # other classes only, a coef_ of fewer rows than classes_
    X, y = _classification(rng, 3)
    sw = np.where(y == y.max(), 0.0, 1.0)
    theirs = sk_svm.LinearSVC(multi_class="crammer_singer", max_iter=100_000)
    assert theirs.fit(X, y, sample_weight=sw).coef_.shape == (2, X.shape[1])
    with pytest.raises(ValueError, match="positive weight in every class"):
        LinearSVC(multi_class="crammer_singer").fit(X, y, sample_weight=sw)
    X_r, y_r = _regression(rng)
    theirs = sk_svm.LinearSVR().fit(X_r, y_r, sample_weight=-np.ones(len(y_r)))
    ours = LinearSVR().fit(X_r, y_r, sample_weight=-np.ones(len(y_r)))
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)  # zeros, as sklearn
    np.testing.assert_array_equal(ours.intercept_, theirs.intercept_)


@pytest.mark.parametrize(
    "options",
    [{"C": 0.1}, {"C": 1.0, "class_weight": "balanced"}, {"fit_intercept": False}],
    ids=str,
)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_l1_penalty_matches_sklearn(backend, rng, options, n_classes, fmt):
    """The same zeros and close coefficients (liblinear's L1 problem)."""
    X, y = _classification(rng, n_classes, n=100, p=8)
    sw = rng.uniform(0.2, 2.0, len(y))
    l1 = dict(penalty="l1", dual=False, tol=1e-9, max_iter=100000)
    theirs = sk_svm.LinearSVC(**l1, **options).fit(X, y, sample_weight=sw)
    ours = LinearSVC(**l1, **options).fit(
        backend.as_format(X, fmt), backend.asarray(y), sample_weight=sw
    )
    coef = backend.to_numpy(ours.coef_)
    np.testing.assert_array_equal(coef == 0, theirs.coef_ == 0)
    _assert_close(ours, theirs, backend, rtol=1e-6)


def test_errors_as_sklearn(rng):
    X, y = _classification(rng, 2)
    for bad in (dict(C=0), dict(tol=-1), dict(loss="log"), dict(intercept_scaling=0)):
        with pytest.raises(InvalidParameterError):
            LinearSVC(**bad).fit(X, y)
    with pytest.raises(ValueError) as theirs:
        sk_svm.LinearSVC().fit(X, np.full(len(y), 3))
    with pytest.raises(ValueError) as ours:
        LinearSVC().fit(X, np.full(len(y), 3))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Unknown label type"):
        LinearSVC().fit(X, rng.normal(size=len(y)))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LinearSVR().fit(X, y[:-1])


@pytest.mark.parametrize(
    "cls, options",
    [(LinearSVC, {}), (LinearSVC, {"loss": "hinge"}), (LinearSVR, {})],
)
def test_convergence_warning_wording(rng, cls, options):
    X, y = _classification(rng, 2)
    if cls is LinearSVR:
        X, y = _regression(rng)
    with pytest.warns(ConvergenceWarning, match="^Liblinear failed to converge, "):
        model = cls(max_iter=1, tol=1e-12, **options).fit(X, y)
    assert model.n_iter_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls(**options).set_params(max_iter=100000, tol=1e-2, C=0.1).fit(X, y)


def test_zero_weights_are_dropped_samples(rng):
    X, y = _classification(rng, 3)
    sw = np.ones(len(y))
    sw[::4] = 0
    weighted = LinearSVC(**NEWTON_TIGHT).fit(X, y, sample_weight=sw)
    dropped = LinearSVC(**NEWTON_TIGHT).fit(X[sw > 0], y[sw > 0])
    np.testing.assert_allclose(weighted.coef_, dropped.coef_, rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------------
# The batched-candidates protocol and the search.
# ----------------------------------------------------------------------------

CS = [0.01, 0.3, 1.0, 30.0]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_svc_batch_matches_one_by_one(backend, rng, n_classes, loss):
    X, y = _classification(rng, n_classes, n=60, p=4)
    xp = compute_namespace()
    X_c, y_c = to_namespace(X, xp), to_namespace(y, xp)
    # the same seed: a batch's columns take the single fits' passes exactly
    tight = dict(tol=1e-6, max_iter=10000) if loss == "hinge" else NEWTON_TIGHT
    est = LinearSVC(loss=loss, random_state=0, **tight)
    Cs = [0.01, 0.1] if loss == "hinge" else CS
    folds = [np.arange(40), np.arange(20, 60)]
    batches = list(est._fit_batch(X_c, y_c, [{"C": c} for c in Cs], folds=folds))
    assert len(batches) == 2 and all(len(b) == len(Cs) for b in batches)
    for model, train in zip(batches, folds, strict=True):
        dec = backend.to_numpy(model.decision_function(X_c))
        n = len(y)
        assert dec.shape == ((len(Cs), n) if n_classes == 2 else (len(Cs), n, 3))
        pred = backend.to_numpy(model.predict(X_c))
        for i, c in enumerate(Cs):
            single = LinearSVC(loss=loss, C=c, random_state=0, **tight)
            single.fit(X_c[train], y_c[train])
            expected = backend.to_numpy(single.decision_function(X_c))
            np.testing.assert_allclose(dec[i], expected, rtol=1e-7, atol=1e-7)
            np.testing.assert_array_equal(
                pred[i], backend.to_numpy(single.predict(X_c))
            )


def test_svr_batch_matches_one_by_one(backend, rng):
    X, y = _regression(rng)
    xp = compute_namespace()
    X_c, y_c = to_namespace(X, xp), to_namespace(y, xp)
    sw = rng.uniform(0.5, 2, len(y))
    est = LinearSVR(loss="squared_epsilon_insensitive", epsilon=0.2, **NEWTON_TIGHT)
    (model,) = est._fit_batch(X_c, y_c, [{"C": c} for c in CS], sample_weight=sw)
    pred = backend.to_numpy(model.predict(X_c))
    assert pred.shape == (len(CS), len(y))
    for i, c in enumerate(CS):
        single = est.set_params(C=c).fit(X_c, y_c, sample_weight=sw)
        np.testing.assert_allclose(
            pred[i], backend.to_numpy(single.predict(X_c)), rtol=1e-9, atol=1e-9
        )


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_grid_search_matches_sklearn(backend, rng, fmt):
    X, y = _classification(rng, 3, n=150)
    grid = {"C": np.logspace(-3, 2, 20)}
    theirs = SkGridSearchCV(sk_svm.LinearSVC(**SK_TIGHT), grid).fit(X, y)
    ours = GridSearchCV(LinearSVC(**NEWTON_TIGHT), grid).fit(
        backend.as_format(X, fmt), backend.asarray(y)
    )
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )
    assert ours.best_params_ == theirs.best_params_
    backend.assert_family(ours.best_estimator_.coef_)
    X_r, y_r = _regression(rng)
    options = dict(loss="squared_epsilon_insensitive", epsilon=0.1)
    theirs = SkGridSearchCV(sk_svm.LinearSVR(**options, **SK_TIGHT), grid).fit(X_r, y_r)
    ours = GridSearchCV(LinearSVR(**options, **NEWTON_TIGHT), grid).fit(
        backend.as_format(X_r, fmt), backend.asarray(y_r)
    )
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-6,
    )


def test_search_fits_each_fold_once(rng, monkeypatch):
    """20 C values of a fold are one batched solve (one Newton run)."""
    from gpuml.svm import _solvers

    calls = []
    newton = _solvers.newton

    def counting(*args, **kwargs):
        calls.append(args[1].shape[1])
        return newton(*args, **kwargs)

    monkeypatch.setattr(_solvers, "newton", counting)
    X, y = _classification(rng, 3)
    GridSearchCV(LinearSVC(), {"C": np.logspace(-3, 2, 20)}, cv=3, refit=False).fit(
        X, y
    )
    assert calls == [60, 60, 60]  # 20 C x 3 classes per fold


def test_sparse_matches_dense_and_sparsify(rng):
    X, y = _classification(rng, 3)
    X[X < 0] = 0
    dense = LinearSVC(**NEWTON_TIGHT).fit(X, y)
    sparse = LinearSVC(**NEWTON_TIGHT).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    before = dense.decision_function(X)
    dense.sparsify()
    assert sp.issparse(dense.coef_)
    np.testing.assert_allclose(dense.decision_function(X), before)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_compiled_fits_in_threads_equal_fits_one_by_one(rng):
    """scikit-learn's liblinear seeds one generator of the process per fit:
    gpuml's fits take it one at a time, so fits in threads at once (an
    in-process Dask cluster) equal fits one by one."""
    from concurrent.futures import ThreadPoolExecutor

    X, y = _classification(rng, 3, n=2000, p=20)
    y_r = X @ rng.normal(size=X.shape[1]) + rng.normal(size=len(X))
    models = [
        (LinearSVC(loss="hinge", random_state=seed, C=C), y)
        for seed, C in [(0, 1.0), (1, 0.3), (2, 3.0)]
    ] + [(LinearSVR(random_state=seed, C=1.0), y_r) for seed in (0, 1, 2)]

    def fit(pair):
        model, target = pair
        return sk_clone(model).fit(X, target).coef_

    expected = [fit(pair) for pair in models]
    for _ in range(3):
        with ThreadPoolExecutor(max_workers=6) as pool:
            got = list(pool.map(fit, models))
        for ours, theirs in zip(got, expected, strict=True):
            np.testing.assert_array_equal(ours, theirs)
