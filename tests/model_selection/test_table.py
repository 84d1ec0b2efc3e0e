"""A DataFrame with string columns searched as one matrix (``_table.py``):
the same scores as scikit-learn's search on the DataFrame, the same
ColumnTransformer output fold by fold, the user's categories in
``best_estimator_``, and the DataFrame read as given wherever the matrix
could differ."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import compose as skc
from sklearn import impute as ski
from sklearn import linear_model as skl
from sklearn import model_selection as skm
from sklearn import preprocessing as skp
from sklearn.base import clone
from sklearn.compose import make_column_selector
from sklearn.pipeline import make_pipeline

from gpuml import config_context
from gpuml.compose import ColumnTransformer
from gpuml.impute import SimpleImputer
from gpuml.linear_model import Ridge
from gpuml.model_selection import GridSearchCV, _table
from gpuml.model_selection._table import TablePlan
from gpuml.preprocessing import (
    OneHotEncoder,
    OrdinalEncoder,
    StandardScaler,
    TargetEncoder,
)
from tests.conftest import DEVICES

GRID = {"ridge__alpha": [0.1, 1.0, 10.0]}


def _table_frame(rng, n=300):
    """Strings of skewed frequencies with None and NaN missing, a categorical
    column, float32 numbers with NaN; a target from some of them."""
    words = np.array(
        [f"w{k:02d}" for k in range(12)] + ["Zeta", "alpha", "é"], dtype=object
    )
    p = 1.0 / np.arange(1, len(words) + 1) ** 1.2
    a = words[rng.choice(len(words), n, p=p / p.sum())]
    a[rng.random(n) < 0.05] = None
    a[rng.random(n) < 0.05] = np.nan
    b = words[rng.choice(5, n)]
    b[rng.random(n) < 0.1] = np.nan
    c = pd.Categorical(
        words[rng.choice([3, 1, 7], n)], categories=["w07", "w03", "w01"]
    )
    x = (rng.normal(size=(n, 3)) * [1.0, 10.0, 100.0]).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    X = pd.DataFrame(
        {"a": a, "x0": x[:, 0], "b": b, "x1": x[:, 1], "c": c, "x2": x[:, 2]}
    )
    y = (
        np.nan_to_num(x[:, 0])
        + (pd.Series(a).fillna("?").str.len().to_numpy() % 3)
        + rng.normal(size=n)
    )
    return X, y


def _pipelines(cat_ours, cat_theirs, columns=("a", "b", "c")):
    """gpuml's and scikit-learn's Pipeline(ColumnTransformer, Ridge), dense
    output (scikit-learn's Ridge on sparse data stops at tol=1e-4)."""
    numeric = ["x0", "x1", "x2"]
    ours = make_pipeline(
        ColumnTransformer(
            [
                ("cat", cat_ours, list(columns)),
                ("num", make_pipeline(SimpleImputer(), StandardScaler()), numeric),
            ],
            sparse_threshold=0,
        ),
        Ridge(),
    )
    theirs = make_pipeline(
        skc.ColumnTransformer(
            [
                ("cat", cat_theirs, list(columns)),
                (
                    "num",
                    make_pipeline(ski.SimpleImputer(), skp.StandardScaler()),
                    numeric,
                ),
            ],
            sparse_threshold=0,
        ),
        skl.Ridge(),
    )
    return ours, theirs


@pytest.fixture
def spy(monkeypatch):
    """Counts the matrices made (the plan used)."""
    made = []
    original = TablePlan._columns

    def counted(self):
        made.append(self)
        return original(self)

    monkeypatch.setattr(TablePlan, "_columns", counted)
    return made


@pytest.mark.parametrize("device", DEVICES)
def test_search_scores_as_sklearn_on_the_dataframe(rng, spy, device):
    X, y = _table_frame(rng)
    ours, theirs = _pipelines(
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
    )
    cv = skm.KFold(4, shuffle=True, random_state=0)
    with config_context(device=device):
        got = GridSearchCV(ours, GRID, cv=cv, return_train_score=True).fit(X, y)
    want = skm.GridSearchCV(theirs, GRID, cv=cv, return_train_score=True).fit(X, y)
    assert len(spy) == 1
    # float32 numbers scaled on the GPU round otherwise (1.0e-9 apart on an
    # H200); on the CPU the same arithmetic as scikit-learn's
    rtol = 1e-9 if device == "cpu" else 1e-7
    for key in ("mean_test_score", "mean_train_score", "split2_test_score"):
        np.testing.assert_allclose(
            got.cv_results_[key], want.cv_results_[key], rtol=rtol
        )
    assert got.best_params_ == want.best_params_
    # the refit read the DataFrame: the user's categories and names
    encoder = got.best_estimator_[0].named_transformers_["cat"]
    theirs_encoder = want.best_estimator_[0].named_transformers_["cat"]
    for mine, their in zip(
        encoder.categories_, theirs_encoder.categories_, strict=True
    ):
        assert list(map(str, mine)) == list(map(str, their))
    assert list(got.best_estimator_[:-1].get_feature_names_out()) == list(
        want.best_estimator_[:-1].get_feature_names_out()
    )
    assert list(got.feature_names_in_) == list(X.columns)
    # the refit's float32 centring on the GPU: 1e-7 of the predictions' scale
    expected = want.predict(X)
    atol = 1e-8 if device == "cpu" else 1e-7 * np.abs(expected).max()
    np.testing.assert_allclose(got.predict(X), expected, rtol=1e-7, atol=atol)


ENCODERS = [
    (
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
    ),
    (
        OneHotEncoder(handle_unknown="infrequent_if_exist", min_frequency=8),
        skp.OneHotEncoder(handle_unknown="infrequent_if_exist", min_frequency=8),
    ),
    (
        OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=4),
        skp.OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=4),
    ),
    (
        OneHotEncoder(drop="first", handle_unknown="ignore", sparse_output=False),
        skp.OneHotEncoder(drop="first", handle_unknown="ignore", sparse_output=False),
    ),
    (
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        skp.OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
    ),
    (
        OrdinalEncoder(
            handle_unknown="use_encoded_value",
            unknown_value=-1,
            encoded_missing_value=-2,
        ),
        skp.OrdinalEncoder(
            handle_unknown="use_encoded_value",
            unknown_value=-1,
            encoded_missing_value=-2,
        ),
    ),
    (
        TargetEncoder(cv=skm.KFold(5, shuffle=True, random_state=0)),
        skp.TargetEncoder(cv=skm.KFold(5, shuffle=True, random_state=0)),
    ),
]


def _assert_output_equal(got, want, device):
    """Equal on the CPU (scikit-learn's arithmetic); on the GPU, float32 numbers
    centred and scaled there round otherwise (1.5e-8 apart on an H100)."""
    dense = [v.toarray() if sp.issparse(v) else np.asarray(v) for v in (got, want)]
    assert dense[0].dtype == dense[1].dtype
    if device == "cpu":
        np.testing.assert_array_equal(dense[0], dense[1])
    else:
        np.testing.assert_allclose(dense[0], dense[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index", range(len(ENCODERS)))
def test_fold_outputs_equal_sklearns_on_the_dataframe(rng, index, device):
    """The rewritten ColumnTransformer on the matrix's rows gives scikit-learn's
    output on the DataFrame's rows, categories unseen in training included."""
    ours_encoder, theirs_encoder = ENCODERS[index]
    X, y = _table_frame(rng, n=400)
    ours, theirs = _pipelines(ours_encoder, theirs_encoder)
    plan = TablePlan.of(X, ours, None)
    rewritten = plan.rewrite(ours, [{}])
    assert rewritten is not None
    matrix = plan.matrix()
    assert matrix.dtype == np.float32
    train, test = np.arange(0, 250), np.arange(250, 400)
    # drop with handle_unknown='ignore' warns of unseen categories (as
    # scikit-learn does, when the draw puts some in the test rows): the same
    # warnings on both sides
    with config_context(device=device):
        with warnings.catch_warnings(record=True) as ours_said:
            warnings.simplefilter("always")
            got = rewritten[0].fit(matrix[train], y[train]).transform(matrix[test])
        fit_got = rewritten[0].fit_transform(matrix[train], y[train])
    with warnings.catch_warnings(record=True) as theirs_said:
        warnings.simplefilter("always")
        want = theirs[0].fit(X.iloc[train], y[train]).transform(X.iloc[test])
    assert [str(w.message) for w in ours_said] == [str(w.message) for w in theirs_said]
    _assert_output_equal(got, want, device)
    fit_want = theirs[0].fit_transform(X.iloc[train], y[train])
    _assert_output_equal(fit_got, fit_want, device)


def test_codes_keep_sklearns_order_of_categories():
    values = np.array(["b", None, "B", np.nan, "a", "é", "b", None], dtype=object)
    codes = np.empty(len(values))
    n_codes = _table._string_codes(values, codes)
    # scikit-learn: sorted strings, then None, then NaN
    assert n_codes == 5
    np.testing.assert_array_equal(codes, [2, 4, 0, np.nan, 1, 3, 2, 4])
    out = np.empty(2)
    assert _table._string_codes(np.array(["a", pd.NA], dtype=object), out) is None
    assert _table._string_codes(np.array(["a", 1], dtype=object), out) is None
    assert _table._string_codes(np.array(["a", pd.NaT], dtype=object), out) is None


def _codes_oracle(values):
    """The positions as scikit-learn's encoders order categories, from the
    strings themselves: sorted distinct strings, then None, NaN as NaN."""
    present = sorted({v for v in values if isinstance(v, str)})
    has_none = any(v is None for v in values)
    index = {v: i for i, v in enumerate(present)}
    codes = [
        index[v] if isinstance(v, str) else (len(present) if v is None else np.nan)
        for v in values
    ]
    return np.array(codes, dtype=np.float64), present + [None] * has_none


def _columns_of_strings(rng, n=400):
    """Object columns whose rows repeat a few objects, or are distinct
    objects with equal strings; with None, NaN (the NumPy constant and
    distinct float objects), non-ASCII text and non-BMP characters."""
    words = ["bb", "B", "ab", "éé", "\uffff", "\U0001f600x", "", "a b", "Zeta"]
    shared = np.array(words, dtype=object)[rng.integers(0, len(words), n)]
    distinct = np.array([w + "~~" for w in shared], dtype=object)  # new objects
    mixed = shared.copy()  # a few rows: new objects equal to others' strings
    for i in np.flatnonzero(rng.random(n) < 0.2):
        mixed[i] = "".join([mixed[i], "~"])[:-1]
    with_missing = shared.copy()
    with_missing[rng.random(n) < 0.1] = None
    with_missing[rng.random(n) < 0.1] = np.nan
    with_missing[rng.random(n) < 0.05] = float("nan")  # other NaN objects
    return {
        "shared": shared,
        "distinct": distinct,
        "mixed": mixed,
        "missing": with_missing,
        "all None": np.array([None] * 5, dtype=object),
        "all NaN": np.array([np.nan, float("nan")], dtype=object),
        "empty": np.array([], dtype=object),
    }


@pytest.mark.parametrize(
    "name",
    ["shared", "distinct", "mixed", "missing", "all None", "all NaN", "empty"],
)
@pytest.mark.parametrize("form", ["array", "object", "category", "str", "string"])
def test_string_codes_as_the_strings_order_them(rng, name, form):
    """The positions and categories, whichever way pandas holds the column:
    an object array, an object Series (grouped by its objects), a
    categorical, pandas' ``str`` (missing values NaN) and ``string`` (pd.NA,
    left to scikit-learn where present)."""
    values = _columns_of_strings(rng)[name]
    column = {
        "array": lambda: values,
        "object": lambda: pd.Series(values, dtype=object),
        "category": lambda: pd.Series(values, dtype=object).astype("category"),
        "str": lambda: pd.Series(values, dtype=object).astype("str"),
        "string": lambda: pd.Series(values, dtype=object).astype("string"),
    }[form]()
    if form == "category":
        # a categorical's missing values are NaN to scikit-learn
        values = np.where(pd.isna(values), np.nan, values)
    if form in ("str", "string"):
        values = np.array([np.nan if pd.isna(v) else v for v in values], object)
    expected, categories = _codes_oracle(values)
    out, strings = np.full(len(values), -7.0), {}
    found = _table._string_codes(column, out, strings, "key")
    if form == "string" and pd.isna(values).any():
        assert found is None  # pd.NA: scikit-learn's own way
        return
    assert found == len(categories)
    np.testing.assert_array_equal(out, expected)
    assert strings["key"].dtype == object
    assert list(strings["key"]) == categories


def test_string_codes_refuse_other_objects():
    out = np.empty(3)
    for other in (1, 2.5, pd.NA, pd.NaT, b"a"):
        values = np.array(["a", other, "a"], dtype=object)
        assert _table._string_codes(values, out) is None
        assert _table._string_codes(pd.Series(values, dtype=object), out) is None
    numbers = pd.Series([2, 1, 2], dtype="category")
    assert _table._string_codes(numbers, out) is None


def test_categorical_codes_rank_the_categories_that_occur():
    """scikit-learn sees a categorical's values: categories that do not
    occur are not positions, and the dtype's order is not the categories'."""
    column = pd.Series(
        pd.Categorical(["b", None, "é", "b"], categories=["zz", "é", "b", "a"])
    )
    out, strings = np.empty(4), {}
    assert _table._string_codes(column, out, strings, 0) == 2
    np.testing.assert_array_equal(out, [0, np.nan, 1, 0])
    assert list(strings[0]) == ["b", "é"]


@pytest.mark.parametrize("device", DEVICES)
def test_make_column_selector_is_resolved(rng, spy, device):
    X, y = _table_frame(rng)
    ours = make_pipeline(
        ColumnTransformer(
            [
                (
                    "cat",
                    OneHotEncoder(handle_unknown="ignore"),
                    make_column_selector(dtype_exclude=np.number),
                ),
                (
                    "num",
                    make_pipeline(SimpleImputer(), StandardScaler()),
                    make_column_selector(dtype_include=np.number),
                ),
            ],
            sparse_threshold=0,
        ),
        Ridge(),
    )
    _, theirs = _pipelines(
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
    )
    with config_context(device=device):
        got = GridSearchCV(ours, GRID, cv=3).fit(X, y)
    want = skm.GridSearchCV(theirs, GRID, cv=3).fit(X, y)
    assert len(spy) == 1
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-9 if device == "cpu" else 1e-7,
    )


def _declined(X, estimator, params=({},), scoring=None):
    plan = TablePlan.of(X, estimator, scoring)
    return (
        plan is None
        or plan.rewrite(estimator, list(params)) is None
        or plan.matrix() is None
    )


def test_the_dataframe_is_read_as_given_where_the_matrix_could_differ(rng, spy):
    X, _ = _table_frame(rng)
    onehot = OneHotEncoder(handle_unknown="ignore")
    ours, _ = _pipelines(onehot, None)
    assert not _declined(X, ours)
    # a string column to a transformer that needs the strings
    imputed, _ = _pipelines(
        make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder()), None
    )
    assert _declined(X, imputed)
    # explicit categories, drop of named categories
    assert _declined(X, _pipelines(OneHotEncoder(categories=[["w00"]] * 3), None)[0])
    assert _declined(X, _pipelines(OneHotEncoder(drop=["w00", "w01", "w03"]), None)[0])
    # strings passed through, or left to a remainder that keeps them
    assert _declined(X, _pipelines("passthrough", None)[0])
    remainder = _pipelines(onehot, None, columns=("a", "b"))[0]
    assert not _declined(X, remainder)
    remainder[0].set_params(remainder="passthrough")
    assert _declined(X, remainder)
    # a candidate that makes it so
    assert _declined(X, ours, [{}, {"columntransformer__cat": "passthrough"}])
    # the user's scorer, which may read the DataFrame; pandas output
    assert _declined(X, ours, scoring=lambda est, X, y: 0.0)
    assert _declined(X, ours, scoring={"r2": "r2", "mine": lambda est, X, y: 0.0})
    # scorers that see predictions only read the matrix's rows alike
    from sklearn.metrics import make_scorer, r2_score

    from gpuml.metrics import check_scoring

    for scoring in (
        "r2",
        ["r2", "neg_mean_absolute_error"],
        make_scorer(r2_score),
        check_scoring(ours, "r2"),
        check_scoring(ours, None),
    ):
        assert not _declined(X, ours, scoring=scoring)
    assert _declined(X, _pipelines(onehot, None)[0].set_output(transform="pandas"))
    # a callable selection of the user's
    lambda_ct = _pipelines(onehot, None)[0]
    lambda_ct[0].set_params(transformers=[("cat", onehot, lambda X: ["a", "b"])])
    assert _declined(X, lambda_ct)
    # pd.NA, float32 numbers that a float64 matrix would widen
    with_na = X.copy()
    values = with_na["b"].to_numpy(dtype=object)
    values[pd.isna(values)] = pd.NA
    with_na["b"] = pd.Series(values, dtype=object)
    assert with_na["b"].isna().any()
    assert _declined(with_na, ours)
    widened = X.copy()
    widened["x9"] = np.ones(len(X))  # float64: the matrix is float64
    assert _declined(widened, ours)
    # scikit-learn's classes in the Pipeline (host data for them anyway)
    assert _declined(
        X,
        make_pipeline(
            skc.ColumnTransformer([("cat", skp.OneHotEncoder(), ["a"])]), Ridge()
        ),
    )


def test_declined_search_still_matches_sklearn(rng, spy):
    """A search with a scorer of the user's reads the DataFrame as given
    (it may read its columns by name), with the same scores."""
    X, y = _table_frame(rng)
    ours, theirs = _pipelines(
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
    )

    def scoring(estimator, X_test, y_test):
        assert list(X_test.columns) == list(X.columns)
        return estimator.score(X_test, y_test)

    got = GridSearchCV(ours, GRID, cv=3, scoring=scoring).fit(X, y)
    want = skm.GridSearchCV(theirs, GRID, cv=3, scoring=scoring).fit(X, y)
    assert spy == []
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-9,
    )


def test_numeric_dataframe_picked_by_name(rng, spy):
    """Numbers only: the columns picked by name become positions."""
    X, y = _table_frame(rng)
    X = X[["x0", "x1", "x2"]].assign(code=rng.integers(0, 4, len(X)).astype(np.float32))
    ours, theirs = _pipelines(
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
        columns=("code",),
    )
    got = GridSearchCV(ours, GRID, cv=3).fit(X, y)
    want = skm.GridSearchCV(theirs, GRID, cv=3).fit(X, y)
    assert len(spy) == 1 and spy[0].string_positions == frozenset()
    np.testing.assert_allclose(
        got.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-9,
    )


def test_cross_validation_helpers_read_the_matrix(rng, spy):
    """cross_validate, cross_val_score and validation_curve read the matrix
    too (scikit-learn's scores); cross_validate(return_estimator=True)
    returns estimators fitted on the DataFrame as given."""
    from gpuml.model_selection import cross_val_score, cross_validate, validation_curve

    X, y = _table_frame(rng)
    ours, theirs = _pipelines(
        OneHotEncoder(handle_unknown="ignore"),
        skp.OneHotEncoder(handle_unknown="ignore"),
    )
    got = cross_validate(ours, X, y, cv=3, return_train_score=True)
    want = skm.cross_validate(theirs, X, y, cv=3, return_train_score=True)
    np.testing.assert_allclose(got["test_score"], want["test_score"], rtol=1e-9)
    np.testing.assert_allclose(got["train_score"], want["train_score"], rtol=1e-9)
    np.testing.assert_allclose(
        cross_val_score(ours, X, y, cv=3), want["test_score"], rtol=1e-9
    )
    train, test = validation_curve(
        ours, X, y, param_name="ridge__alpha", param_range=[0.1, 10.0], cv=3
    )
    want_train, want_test = skm.validation_curve(
        theirs, X, y, param_name="ridge__alpha", param_range=[0.1, 10.0], cv=3
    )
    np.testing.assert_allclose(test, want_test, rtol=1e-9)
    np.testing.assert_allclose(train, want_train, rtol=1e-9)
    assert len(spy) == 3
    fitted = cross_validate(ours, X, y, cv=3, return_estimator=True)
    assert len(spy) == 3
    names = fitted["estimator"][0][:-1].get_feature_names_out()
    assert "columntransformer__cat__a_w00" in names or "cat__a_w00" in names


def _assert_same_fit(a, b, path="best"):
    """Every attribute of two fitted estimators equal, recursively (arrays by
    value, NaN equal to NaN; other objects by their attributes where they
    are equal copies, as clones of a splitter or a column selector are)."""
    from sklearn.base import BaseEstimator

    if isinstance(a, BaseEstimator):
        assert type(a) is type(b), path
        mine = {k: v for k, v in vars(a).items() if k != "_gpuml_cache"}
        theirs = {k: v for k, v in vars(b).items() if k != "_gpuml_cache"}
        assert mine.keys() == theirs.keys(), (path, mine.keys() ^ theirs.keys())
        for key in mine:
            _assert_same_fit(mine[key], theirs[key], f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same_fit(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _assert_same_fit(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, (path, a.dtype, b)
        if a.dtype == object:
            assert a.shape == b.shape, path
            for x, y in zip(a.ravel(), b.ravel(), strict=True):
                assert x is y or x == y or (x != x and y != y), (path, x, y)
                assert type(x) is type(y), (path, type(x), type(y))
        else:
            np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, float) and a != a:
        assert b != b, path
    else:
        assert type(a) is type(b), (path, type(a), type(b))
        if a != b and hasattr(a, "__dict__"):  # equal copies (a clone's)
            _assert_same_fit(vars(a), vars(b), path)
        else:
            assert a == b, (path, a, b)


@pytest.mark.parametrize("index", range(len(ENCODERS)))
def test_refit_on_the_matrix_is_the_fit_on_the_dataframe(rng, index, monkeypatch):
    """best_estimator_, refitted on the matrix, has every attribute of the
    Pipeline fitted on the DataFrame (the user's categories, column specs,
    input names, the encoders' integer and boolean columns' own dtypes) and
    transforms and predicts new DataFrames alike."""
    converted = []
    original = TablePlan.as_fitted_on_frame
    monkeypatch.setattr(
        TablePlan,
        "as_fitted_on_frame",
        lambda self, *a: converted.append(1) or original(self, *a),
    )
    X, y = _table_frame(rng)
    for name in ("x0", "x1", "x2"):
        X[name] = X[name].astype(np.float64).fillna(0.0)
    X["i"] = rng.integers(-2, 3, len(X))
    X["t"] = X["i"] > 0
    encoder = clone(ENCODERS[index][0])
    if isinstance(encoder, OrdinalEncoder):
        encoder.set_params(encoded_missing_value=-9)
    ours = make_pipeline(
        ColumnTransformer(
            [
                ("cat", encoder, make_column_selector(dtype_exclude=np.float64)),
                ("num", StandardScaler(), ["x0"]),
            ],
            remainder=make_pipeline(SimpleImputer(), StandardScaler()),
            sparse_threshold=0,
        ),
        Ridge(),
    )
    with warnings.catch_warnings():
        # drop='first' with unknown categories in a test fold: scikit-learn's
        # warning, as its own search gives it
        warnings.simplefilter("ignore", UserWarning)
        search = GridSearchCV(ours, GRID, cv=3).fit(X, y)
    assert converted == [1]
    direct = clone(ours).set_params(**search.best_params_).fit(X, y)
    _assert_same_fit(search.best_estimator_, direct)
    new = X.iloc[:40].copy()
    new.loc[new.index[:3], "a"] = "never seen"
    new.loc[new.index[3:5], "b"] = None
    if getattr(encoder, "handle_unknown", "") == "error":
        new = X.iloc[:40]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unknown categories
        np.testing.assert_array_equal(
            search.best_estimator_[0].transform(new), direct[0].transform(new)
        )
        np.testing.assert_array_equal(search.predict(new), direct.predict(new))


def test_refit_with_passthrough_reads_the_dataframe(rng, monkeypatch):
    converted = []
    monkeypatch.setattr(
        TablePlan, "as_fitted_on_frame", lambda self, *a: converted.append(1)
    )
    X, y = _table_frame(rng)
    ours = make_pipeline(
        ColumnTransformer(
            [("cat", OneHotEncoder(handle_unknown="ignore"), ["a"])],
            remainder="passthrough",
            sparse_threshold=0,
        ),
        make_pipeline(SimpleImputer(), Ridge()),
    )
    ours = make_pipeline(ours[0], SimpleImputer(), Ridge())
    X = X.drop(columns=["b", "c"])
    search = GridSearchCV(ours, GRID, cv=3).fit(X, y)
    assert converted == []
    direct = clone(ours).set_params(**search.best_params_).fit(X, y)
    _assert_same_fit(search.best_estimator_, direct)
