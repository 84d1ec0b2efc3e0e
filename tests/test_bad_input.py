"""Bad and extreme input, entry point by entry point, against the reference.

Each row of the tables below is one call of one entry point (an estimator,
a search or a cross-validation helper) on one bad or extreme input: NaN,
infinity, 1e308 and the float64 extremes, float32 near its maximum, numeric
strings and object arrays, wrong shapes, empty data, a column-vector target,
bad sample weights, unknown parameters and bad parameter values. The same
call runs on scikit-learn's object and on gpuml's (gpuml's on the backend
under test, so on the GPU machine the inputs are CuPy arrays where they can
be), and the outcomes must agree:

- both raise, gpuml an exception of scikit-learn's type (or a subclass of
  it), whose message holds the key phrase of scikit-learn's;
- or both return, with equal results within float tolerance.

UMAP is compared with umap-learn's rules (``UMAP._validate_parameters`` and
``fit`` of umap-learn 0.5.12, written into :data:`UMAP_ROWS`), and with
umap-learn itself where it is installed (:func:`test_umap_rules_are_umap_learns`).

Rows still failing because of work done elsewhere are strict expected
failures with their reason: an XPASS means the row can be unmarked.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
import pytest
import sklearn.linear_model
import sklearn.model_selection
import sklearn.neighbors
import sklearn.preprocessing
from sklearn.experimental import enable_halving_search_cv  # noqa: F401

import gpuml.linear_model
import gpuml.manifold
import gpuml.model_selection
import gpuml.neighbors
import gpuml.preprocessing
from gpuml._array import to_host

N, P = 30, 3
F64_MAX = float(np.finfo(np.float64).max)

_ESTIMATORS = ("Ridge", "LogisticRegression", "StandardScaler", "NearestNeighbors")
_SEARCHES = (
    "GridSearchCV",
    "RandomizedSearchCV",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
)
_HELPERS = (
    "cross_validate",
    "cross_val_score",
    "cross_val_predict",
    "validation_curve",
    "learning_curve",
    "permutation_test_score",
)


def _library(*modules) -> SimpleNamespace:
    names = _ESTIMATORS + _SEARCHES + _HELPERS
    found = {}
    for name in names:
        for module in modules:
            if hasattr(module, name):
                found[name] = getattr(module, name)
                break
    return SimpleNamespace(**found)


SKLEARN = _library(
    sklearn.linear_model,
    sklearn.preprocessing,
    sklearn.neighbors,
    sklearn.model_selection,
)
GPUML = _library(
    gpuml.linear_model, gpuml.preprocessing, gpuml.neighbors, gpuml.model_selection
)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _bad_X(X: np.ndarray, kind: str):
    """``X`` spoilt as ``kind`` says (one entry unless the kind is a shape)."""
    spoilt = X.copy()
    if kind in ("nan", "inf", "1e308", "fmax", "-fmax"):
        value = {
            "nan": np.nan,
            "inf": np.inf,
            "1e308": 1e308,
            "fmax": F64_MAX,
            "-fmax": -F64_MAX,
        }[kind]
        spoilt[0, 0] = value
        return spoilt
    if kind == "f32max":  # float32 near its maximum
        spoilt = X.astype(np.float32)
        spoilt[0, 0] = 3.4e38
        return spoilt
    return {
        "numstr": lambda: X.astype(str),
        "object": lambda: X.astype(object),
        "1d": lambda: X[:, 0],
        "3d": lambda: X[:, :, None],
        "empty": lambda: X[:0],
    }[kind]()


X_KINDS = (
    "nan",
    "inf",
    "1e308",
    "fmax",
    "-fmax",
    "f32max",
    "numstr",
    "object",
    "1d",
    "3d",
    "empty",
)


def _bad_weights(kind: str):
    thirds = np.where(np.arange(N) % 3 == 0, -1.0, 1.0)
    return {
        "neg": thirds,
        "zero": np.zeros(N),
        "str": np.array(["a", "b"] * (N // 2)),
        "short": np.ones(N - 1),
        "1e308": np.r_[1e308, np.ones(N - 1)],
    }[kind]


W_KINDS = ("neg", "zero", "str", "short", "1e308")


class Data:
    """The test's data as one side of the comparison receives it: host for
    scikit-learn, in the backend's family for gpuml (numeric arrays only:
    strings and object arrays stay on the host, where they can be)."""

    def __init__(self, X, y_reg, y_clf, put: Callable):
        self.X_clean, self.y_reg, self.y_clf, self._put = X, y_reg, y_clf, put

    def put(self, value):
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            return self._put(value)
        return value

    @property
    def X(self):
        return self.put(self.X_clean)

    def bad_X(self, kind):
        return self.put(_bad_X(self.X_clean, kind))

    def y(self, classifier: bool):
        return self.put(self.y_clf if classifier else self.y_reg)

    def y_col(self, classifier: bool):
        return self.put((self.y_clf if classifier else self.y_reg)[:, None])

    def y_nan(self, classifier: bool):
        y = (self.y_clf if classifier else self.y_reg).astype(np.float64)
        y[0] = np.nan
        return self.put(y)

    def weights(self, kind):
        return self.put(_bad_weights(kind))


# --------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------


class Row(NamedTuple):
    id: str
    call: Callable[[SimpleNamespace, Data], Any]
    phrase: str | None = None  # key phrase of the error (None: scikit-learn's)
    xfail: str | None = None


RIDGE_NUMSTR = None  # Ridge's predict now validates with NUMERIC_FLOAT


def _classifier(name: str) -> bool:
    return name == "LogisticRegression"


def _make(lib, name: str, **params):
    if name == "LogisticRegression":
        params.setdefault("max_iter", 200)
    if name == "NearestNeighbors":
        params.setdefault("n_neighbors", 3)
    return getattr(lib, name)(**params)


def _use(lib, name: str, estimator, d: Data, X_fit, y=None, **fit):
    """Fit ``estimator`` on ``X_fit`` and apply it to clean data."""
    if name == "StandardScaler":
        return estimator.fit(X_fit, **fit).transform(d.X)
    if name == "NearestNeighbors":
        return estimator.fit(X_fit).kneighbors(d.X)[0]
    if y is None:
        y = d.y(_classifier(name))
    estimator.fit(X_fit, y, **fit)
    if name == "LogisticRegression":
        return estimator.predict_proba(d.X)
    return estimator.predict(d.X)


def _estimator_rows() -> list[Row]:
    rows = []
    for name in _ESTIMATORS:
        for kind in X_KINDS:

            def call(lib, d, name=name, kind=kind):
                y = None
                if kind == "empty" and name in ("Ridge", "LogisticRegression"):
                    y = d.y(_classifier(name))[:0]
                return _use(lib, name, _make(lib, name), d, d.bad_X(kind), y)

            rows.append(Row(f"{name}-X-{kind}", call))

        # Data given to a fitted model (predict, transform, kneighbors).
        def at_predict(lib, d, name=name):
            estimator = _make(lib, name)
            if name in ("Ridge", "LogisticRegression"):
                estimator.fit(d.X, d.y(_classifier(name)))
            else:
                estimator.fit(d.X)
            method = {
                "Ridge": "predict",
                "LogisticRegression": "predict_proba",
                "StandardScaler": "transform",
                "NearestNeighbors": "kneighbors",
            }[name]
            return getattr(estimator, method)(d.bad_X("numstr"))

        xfail = RIDGE_NUMSTR if name == "Ridge" else None
        rows.append(Row(f"{name}-predict-numstr", at_predict, xfail=xfail))

        if name in ("Ridge", "LogisticRegression"):
            classifier = _classifier(name)

            def y_col(lib, d, name=name, classifier=classifier):
                estimator = _make(lib, name).fit(d.X, d.y_col(classifier))
                return estimator.coef_, _use(lib, name, estimator, d, d.X)

            def y_nan(lib, d, name=name, classifier=classifier):
                return _use(lib, name, _make(lib, name), d, d.X, d.y_nan(classifier))

            rows.append(Row(f"{name}-y-column", y_col))
            rows.append(Row(f"{name}-y-nan", y_nan))
        if name != "NearestNeighbors":
            for kind in W_KINDS:

                def weighted(lib, d, name=name, kind=kind):
                    return _use(
                        lib,
                        name,
                        _make(lib, name),
                        d,
                        d.X,
                        sample_weight=d.weights(kind),
                    )

                rows.append(Row(f"{name}-sample_weight-{kind}", weighted))

        def unknown(lib, d, name=name):
            return _make(lib, name).set_params(no_such_parameter=1)

        rows.append(Row(f"{name}-unknown-parameter", unknown))
    bad_values = {
        "Ridge": {"alpha": -1.0},
        "LogisticRegression": {"C": -1.0},
        "StandardScaler": {"with_mean": "yes"},
        "NearestNeighbors": {"n_neighbors": 0},
    }
    for name, params in bad_values.items():

        def bad_value(lib, d, name=name, params=params):
            return _use(lib, name, _make(lib, name, **params), d, d.X)

        rows.append(Row(f"{name}-bad-parameter-value", bad_value))

    # Class weights that leave no total weight (issue 33): scikit-learn's
    # L-BFGS path divides by that total.
    for label, class_weight in (("zero", {0: 0, 1: 0}), ("zero-sum", {0: -1, 1: 1})):

        def weighted_classes(lib, d, class_weight=class_weight):
            estimator = _make(lib, "LogisticRegression", class_weight=class_weight)
            return _use(lib, "LogisticRegression", estimator, d, d.X)

        rows.append(Row(f"LogisticRegression-class_weight-{label}", weighted_classes))
    return rows


def _grid(name: str) -> dict:
    return {"alpha": [0.1, 1.0]} if name == "Ridge" else {"C": [0.1, 1.0]}


def _search(lib, search: str, name: str, grid=None, **params):
    options = {"cv": 3}
    if search == "RandomizedSearchCV":
        options.update(n_iter=2, random_state=0)
    if search.startswith("Halving"):
        options.update(random_state=0, factor=2)
    if search == "HalvingRandomSearchCV":
        options["n_candidates"] = 2
    options.update(params)
    grid = _grid(name) if grid is None else grid
    return getattr(lib, search)(_make(lib, name), grid, **options)


def _scores(search) -> tuple:
    """What a search's result is compared on: its scores and best candidate."""
    results = search.cv_results_
    return (
        results["mean_test_score"],
        results["split0_test_score"],
        search.best_index_,
    )


def _search_rows() -> list[Row]:
    rows = []
    for search in _SEARCHES:
        cases: dict[str, tuple[str, Callable, str | None]] = {}
        for kind in ("nan", "1e308", "fmax", "numstr", "object", "1d", "empty"):

            def bad_X(lib, d, search=search, kind=kind):
                y = d.y(True)[:0] if kind == "empty" else d.y(True)
                return _scores(
                    _search(lib, search, "LogisticRegression").fit(d.bad_X(kind), y)
                )

            cases[f"LogisticRegression-X-{kind}"] = (bad_X, None)

        def y_col(lib, d, search=search):
            return _scores(
                _search(lib, search, "LogisticRegression").fit(d.X, d.y_col(True))
            )

        cases["LogisticRegression-y-column"] = (y_col, None)
        for kind in ("zero", "str", "short", "1e308"):

            def weighted(lib, d, search=search, kind=kind):
                return _scores(
                    _search(lib, search, "LogisticRegression").fit(
                        d.X, d.y(True), sample_weight=d.weights(kind)
                    )
                )

            cases[f"LogisticRegression-sample_weight-{kind}"] = (weighted, None)

        def unknown(lib, d, search=search):
            search_ = _search(lib, search, "Ridge", grid={"no_such_parameter": [1, 2]})
            return _scores(search_.fit(d.X, d.y(False)))

        def bad_value(lib, d, search=search):
            search_ = _search(lib, search, "Ridge", grid={"alpha": [-1.0, 1.0]})
            return _scores(search_.fit(d.X, d.y(False)))

        def bad_search_parameter(lib, d, search=search):
            return _scores(_search(lib, search, "Ridge", cv=1).fit(d.X, d.y(False)))

        cases["Ridge-unknown-parameter"] = (unknown, None)
        cases["Ridge-bad-parameter-value"] = (bad_value, None)
        cases["bad-search-parameter"] = (bad_search_parameter, None)

        # Issue 33's Ridge reproductions in a search.
        def ridge_X(lib, d, search=search):
            return _scores(
                _search(lib, search, "Ridge").fit(d.bad_X("1e308"), d.y(False))
            )

        def ridge_numstr(lib, d, search=search):
            X = d.bad_X("numstr")
            return _scores(_search(lib, search, "Ridge").fit(X, d.y(False)))

        def ridge_negative(lib, d, search=search):
            return _scores(
                _search(lib, search, "Ridge").fit(
                    d.X, d.y(False), sample_weight=d.weights("neg")
                )
            )

        cases["Ridge-X-1e308"] = (ridge_X, None)
        cases["Ridge-X-numstr"] = (ridge_numstr, RIDGE_NUMSTR)
        cases["Ridge-sample_weight-neg"] = (ridge_negative, None)
        for case, (call, xfail) in cases.items():
            rows.append(Row(f"{search}-{case}", call, xfail=xfail))

        if search.startswith("Halving"):
            # max_resources above the data: scikit-learn's resample refuses
            # to draw more rows than a fold has (issue 33: [333, 999] on 40).
            def too_many(lib, d, search=search):
                fitted = _search(lib, search, "Ridge", max_resources=999).fit(
                    d.X, d.y(False)
                )
                return fitted.n_resources_

            rows.append(Row(f"{search}-max_resources-above-data", too_many))

            # Weights on two rows only: the subsamples of the first iterations
            # leave training folds with all-zero weights (fit failures, NaN
            # scores), as in scikit-learn.
            for name in ("LogisticRegression", "Ridge"):

                def sparse_weights(lib, d, search=search, name=name):
                    weights = np.zeros(N)
                    weights[[3, 20]] = 1.0
                    fitted = _search(lib, search, name, factor=3).fit(
                        d.X,
                        d.y(_classifier(name)),
                        sample_weight=d.put(weights),
                    )
                    return _scores(fitted)

                rows.append(Row(f"{search}-{name}-zero-weight-folds", sparse_weights))
    return rows


def _helper(lib, helper: str, name: str, X, y, **params):
    estimator = _make(lib, name)
    function = getattr(lib, helper)
    options = {"cv": 3, **params}
    if helper == "cross_validate":
        return function(estimator, X, y, **options)["test_score"]
    if helper == "validation_curve":
        parameter = "alpha" if name == "Ridge" else "C"
        options.update(param_name=parameter, param_range=[0.1, 1.0])
    if helper == "learning_curve":
        return function(estimator, X, y, train_sizes=[0.5, 1.0], **options)[:3]
    if helper == "permutation_test_score":
        options.update(n_permutations=3, random_state=0)
        return function(estimator, X, y, **options)[:2]
    return function(estimator, X, y, **options)


def _helper_rows() -> list[Row]:
    rows = []
    for helper in _HELPERS:
        cases: dict[str, tuple[Callable, str | None]] = {}
        for kind in ("nan", "numstr", "object", "1d", "empty"):

            def bad_X(lib, d, helper=helper, kind=kind):
                y = d.y(True)[:0] if kind == "empty" else d.y(True)
                return _helper(lib, helper, "LogisticRegression", d.bad_X(kind), y)

            cases[f"LogisticRegression-X-{kind}"] = (bad_X, None)

        def y_col(lib, d, helper=helper):
            return _helper(lib, helper, "LogisticRegression", d.X, d.y_col(True))

        cases["LogisticRegression-y-column"] = (y_col, None)
        for kind in ("zero", "str", "short"):

            def weighted(lib, d, helper=helper, kind=kind):
                params = {"sample_weight": d.weights(kind)}
                return _helper(
                    lib, helper, "LogisticRegression", d.X, d.y(True), params=params
                )

            cases[f"LogisticRegression-sample_weight-{kind}"] = (weighted, None)

        def ridge_X(lib, d, helper=helper):
            return _helper(lib, helper, "Ridge", d.bad_X("1e308"), d.y(False))

        def ridge_numstr(lib, d, helper=helper):
            return _helper(lib, helper, "Ridge", d.bad_X("numstr"), d.y(False))

        def ridge_negative(lib, d, helper=helper):
            params = {"sample_weight": d.weights("neg")}
            return _helper(lib, helper, "Ridge", d.X, d.y(False), params=params)

        cases["Ridge-X-1e308"] = (ridge_X, None)
        cases["Ridge-X-numstr"] = (ridge_numstr, RIDGE_NUMSTR)
        cases["Ridge-sample_weight-neg"] = (ridge_negative, None)

        def bad_cv(lib, d, helper=helper):
            return _helper(lib, helper, "Ridge", d.X, d.y(False), cv=1)

        cases["bad-helper-parameter"] = (bad_cv, None)
        for case, (call, xfail) in cases.items():
            rows.append(Row(f"{helper}-{case}", call, xfail=xfail))
    return rows


ROWS = _estimator_rows() + _search_rows() + _helper_rows()


# --------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------


def _outcome(call: Callable):
    """``("raise", exception)`` or ``("return", value)``; warnings aside
    (both libraries warn about overflows, failed fits and scores)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "return", call()
        except Exception as exc:
            return "raise", exc


def _key_phrase(exc: BaseException) -> str:
    """The first line of an error message (its fixed sentence), at most 40
    characters, cut before any array or number printed in it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return ""
    phrase = lines[0]
    for stop in ("[", "(shape", "array=", "Got ", "got "):
        phrase = phrase.split(stop)[0]
    return phrase[:40].strip()


def _flat(value) -> np.ndarray:
    """Every number in a result (arrays, tuples, lists, dicts), as float64."""
    if isinstance(value, dict):
        value = [value[key] for key in sorted(value) if "time" not in key]
    if isinstance(value, (tuple, list)):
        parts = [_flat(part) for part in value]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(to_host(value), dtype=np.float64).ravel()


def _unnamed(message: str) -> str:
    """gpuml's metrics name the non-finite input ("Input y_pred contains
    infinity..."), where scikit-learn's say "Input contains infinity..."
    (docs/differences.rst): the message without the name."""
    for name in ("y_true", "y_pred"):
        message = message.replace(f"Input {name} contains", "Input contains")
    return message


def _assert_same_outcome(expected, got, phrase=None, rtol=1e-4, atol=1e-6):
    kind, value = got
    if expected[0] == "raise":
        error = expected[1]
        assert kind == "raise", (
            f"scikit-learn raises {error!r}; gpuml returns {value!r}"
        )
        assert isinstance(value, type(error)), (
            f"scikit-learn raises {type(error).__name__}: {error}; gpuml raises "
            f"{type(value).__name__}: {value}"
        )
        phrase = _key_phrase(error) if phrase is None else phrase
        assert phrase in _unnamed(str(value)), (phrase, str(value))
        return
    assert kind == "return", f"scikit-learn returns; gpuml raises {value!r}"
    ours, theirs = _flat(value), _flat(expected[1])
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)


def _params(rows):
    return [
        pytest.param(
            row,
            id=row.id,
            marks=[pytest.mark.xfail(strict=True, reason=row.xfail)]
            if row.xfail
            else [],
        )
        for row in rows
    ]


@pytest.fixture
def data(rng):
    X = rng.normal(size=(N, P))
    y_reg = X @ rng.normal(size=P) + 0.1 * rng.normal(size=N)
    # Balanced classes, so that every fold of every split holds both.
    y_clf = rng.permutation(np.arange(N) % 2)
    return X, y_reg, y_clf


@pytest.mark.parametrize("row", _params(ROWS))
def test_bad_input_matches_scikit_learn(row, data, backend):
    expected = _outcome(lambda: row.call(SKLEARN, Data(*data, put=lambda a: a)))
    got = _outcome(lambda: row.call(GPUML, Data(*data, put=backend.asarray)))
    _assert_same_outcome(expected, got, row.phrase)


# --------------------------------------------------------------------------
# UMAP, against umap-learn's rules
# --------------------------------------------------------------------------

N_UMAP = 40


def _umap_data(rng):
    X = rng.normal(size=(N_UMAP, 4)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64)
    init = rng.normal(size=(N_UMAP, 2))
    return X, y, init


def _spoilt(array, value):
    array = np.array(array, dtype=np.float64)
    array[0, 0] = value
    return array


# (id, parameters, inputs, expected): ``inputs`` names the spoilt X or y
# (None: clean), an ``init`` of ("spoilt", value) is a valid initial layout
# with one entry replaced; expected is "return" (a finite embedding of shape
# (n_samples, 2)) or (exception type, key phrase of the message).
# umap-learn 0.5.12's rules, umap/umap_.py: _validate_parameters (the
# parameter checks: ValueError each), fit (check_array of X and of an init
# array, float32 and finite; check_array(y, ensure_2d=False), numeric and
# finite, of any shape: a column vector is accepted).
UMAP_ROWS = [
    ("min_dist-above-spread", {"min_dist": 2.0}, None, (ValueError, "min_dist")),
    ("min_dist-equal-spread", {"min_dist": 1.0}, None, "return"),
    ("min_dist-negative", {"min_dist": -1.0}, None, (ValueError, "min_dist")),
    ("spread-zero", {"spread": 0.0}, None, (ValueError, "")),
    ("n_neighbors-1", {"n_neighbors": 1}, None, (ValueError, "n_neighbors")),
    ("n_components-0", {"n_components": 0}, None, (ValueError, "n_components")),
    ("n_components-1.5", {"n_components": 1.5}, None, (ValueError, "n_components")),
    ("learning_rate-negative", {"learning_rate": -1.0}, None, (ValueError, "")),
    ("set_op_mix_ratio-1.5", {"set_op_mix_ratio": 1.5}, None, (ValueError, "")),
    ("repulsion-negative", {"repulsion_strength": -1.0}, None, (ValueError, "")),
    (
        "negative_sample_rate-negative",
        {"negative_sample_rate": -1},
        None,
        (ValueError, ""),
    ),
    ("n_epochs-negative", {"n_epochs": -2}, None, (ValueError, "n_epochs")),
    (
        "target_n_neighbors-1",
        {"target_n_neighbors": 1},
        None,
        (ValueError, "target_n_neighbors"),
    ),
    ("metric-unknown", {"metric": "foobar"}, None, (ValueError, "metric")),
    ("init-unknown", {"init": "foobar"}, None, (ValueError, "init")),
    ("init-number", {"init": 42}, None, (ValueError, "init")),
    ("init-nan", {"init": ("spoilt", np.nan)}, None, (ValueError, "contains NaN")),
    ("init-inf", {"init": ("spoilt", np.inf)}, None, (ValueError, "contains infinity")),
    (
        "init-1e300",
        {"init": ("spoilt", 1e300)},
        None,
        (ValueError, "too large for dtype('float32')"),
    ),
    ("init-wrong-columns", {"init": "3 columns"}, None, (ValueError, "")),
    ("init-1d", {"init": "1d"}, None, (ValueError, "Expected 2D array")),
    ("X-nan", {}, "X nan", (ValueError, "contains NaN")),
    ("X-inf", {}, "X inf", (ValueError, "contains infinity")),
    ("X-1e308", {}, "X 1e308", (ValueError, "too large for dtype('float32')")),
    ("X-1d", {}, "X 1d", (ValueError, "Expected 2D array")),
    ("X-empty", {}, "X empty", (ValueError, "0 sample(s)")),
    ("X-object", {}, "X object", "return"),
    ("y-column", {}, "y column", "return"),
    ("y-nan", {}, "y nan", (ValueError, "contains NaN")),
    ("y-strings", {}, "y strings", (ValueError, "dtype='numeric'")),
    ("y-wrong-length", {}, "y short", (ValueError, "")),
    (
        "unknown-parameter",
        {"no_such_parameter": 1},
        None,
        (TypeError, "no_such_parameter"),
    ),
]


def _umap_call(cls, params: dict, inputs, data, to_input=lambda a: a):
    X, y, init = data
    params = dict(params)
    if isinstance(params.get("init"), tuple):  # ("spoilt", value): one bad entry
        params["init"] = _spoilt(init, params["init"][1])
    elif params.get("init") == "3 columns":
        params["init"] = np.zeros((N_UMAP, 3))
    elif params.get("init") == "1d":
        params["init"] = np.zeros(N_UMAP)
    target = None
    if inputs is not None:
        X, target = {
            "X nan": lambda: (_spoilt(X, np.nan), None),
            "X inf": lambda: (_spoilt(X, np.inf), None),
            "X 1e308": lambda: (_spoilt(X, 1e308), None),
            "X 1d": lambda: (X[:, 0], None),
            "X empty": lambda: (X[:0], None),
            "X object": lambda: (X.astype(object), None),
            "y column": lambda: (X, y[:, None]),
            "y nan": lambda: (X, np.r_[np.nan, y[1:]]),
            "y strings": lambda: (X, np.array(["a", "b"])[y]),
            "y short": lambda: (X, y[:-1]),
        }[inputs]()
    model = cls(n_epochs=params.pop("n_epochs", 10), random_state=0, **params)
    return model.fit_transform(
        to_input(X), None if target is None else to_input(target)
    )


def _assert_umap_outcome(outcome, expected):
    kind, value = outcome
    if expected == "return":
        assert kind == "return", f"umap-learn returns; raised {value!r}"
        embedding = np.asarray(to_host(value))
        assert embedding.shape == (N_UMAP, 2)
        assert np.isfinite(embedding).all()
        return
    error, phrase = expected
    assert kind == "raise", f"umap-learn raises {error.__name__}; returned"
    assert isinstance(value, error), repr(value)
    assert phrase in str(value), (phrase, str(value))


@pytest.mark.parametrize(
    "params, inputs, expected",
    [pytest.param(*row[1:], id=row[0]) for row in UMAP_ROWS],
)
def test_umap_bad_input_follows_umap_learn(params, inputs, expected, rng, backend):
    data = _umap_data(rng)

    def to_input(array):
        if isinstance(array, np.ndarray) and array.dtype.kind in "biuf":
            return backend.asarray(array)
        return array

    outcome = _outcome(
        lambda: _umap_call(gpuml.manifold.UMAP, params, inputs, data, to_input)
    )
    _assert_umap_outcome(outcome, expected)


@pytest.mark.parametrize(
    "params, inputs, expected",
    [pytest.param(*row[1:], id=row[0]) for row in UMAP_ROWS],
)
def test_umap_rules_are_umap_learns(params, inputs, expected, rng):
    """The table above, checked against umap-learn itself where installed."""
    umap = pytest.importorskip("umap")
    outcome = _outcome(lambda: _umap_call(umap.UMAP, params, inputs, _umap_data(rng)))
    _assert_umap_outcome(outcome, expected)


def test_umap_column_vector_target_is_its_column(rng, backend):
    """Supervised UMAP reads y of shape (n, 1) as y.ravel() (umap-learn
    accepts it; gpuml raised IndexError): the same label-weighted graph."""
    X, y, _ = _umap_data(rng)
    X = backend.asarray(X)
    flat = gpuml.manifold.UMAP(n_epochs=10, random_state=0)
    column = gpuml.manifold.UMAP(n_epochs=10, random_state=0)
    flat.fit(X, backend.asarray(y))
    column.fit(X, backend.asarray(y[:, None]))
    assert column.embedding_.shape == (N_UMAP, 2)
    difference = to_host(column.graph_ - flat.graph_)
    assert abs(difference).max() == 0
    unsupervised = gpuml.manifold.UMAP(n_epochs=10, random_state=0).fit(X)
    assert abs(to_host(unsupervised.graph_ - flat.graph_)).max() > 0
