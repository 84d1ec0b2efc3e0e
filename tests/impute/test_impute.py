"""SimpleImputer and MissingIndicator: parity with scikit-learn on every
backend (statistics, imputed values, masks, dtypes, families), sparse and
object input, errors, pickling and a search over a pipeline.

scikit-learn's classes are the oracle; imputed float64 values agree within
1e-12 and masks exactly.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import impute as sk_impute
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

from gpuml._sklearn_compat import InvalidParameterError
from gpuml.impute import MissingIndicator, SimpleImputer
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV

STRATEGIES = ["mean", "median", "most_frequent", "constant"]


def _data(rng, missing=np.nan, n=40, p=6, dtype=np.float64, levels=5):
    """Small integer levels (ties for the mode, even and odd counts for the
    median) plus noise in half the columns; a quarter of the entries missing."""
    X = rng.integers(0, levels, size=(n, p)).astype(np.float64)
    X[:, p // 2 :] += rng.normal(size=(n, p - p // 2))
    X[rng.random(X.shape) < 0.25] = np.nan
    X = X.astype(dtype)
    if not np.isnan(missing):
        X[np.isnan(X)] = missing
    return X


def _sk_fit_transform(estimator, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # all-missing columns
        return estimator.fit(X).transform(X)


def _assert_equal(ours, theirs, backend, atol=1e-12):
    ours = backend.to_numpy(ours)
    if sp.issparse(ours):
        assert sp.issparse(theirs) and ours.format == theirs.format
        ours, theirs = ours.toarray(), theirs.toarray()
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("missing", [np.nan, -1.0])
def test_dense_strategies_match_sklearn(backend, rng, strategy, missing):
    X = _data(rng, missing)
    ours = SimpleImputer(missing_values=missing, strategy=strategy)
    theirs = sk_impute.SimpleImputer(missing_values=missing, strategy=strategy)
    Xt = ours.fit(backend.asarray(X)).transform(backend.asarray(X))
    expected = _sk_fit_transform(theirs, X)
    backend.assert_family(Xt, dtype=np.float64, shape=X.shape)
    _assert_equal(Xt, expected, backend)
    backend.assert_family(ours.statistics_, shape=(X.shape[1],))
    statistics = backend.to_numpy(ours.statistics_)
    if backend.family == "host":
        assert statistics.dtype == theirs.statistics_.dtype
    np.testing.assert_allclose(
        statistics.astype(float), theirs.statistics_.astype(float), rtol=0, atol=1e-12
    )
    assert not np.isnan(backend.to_numpy(Xt)).any()


@pytest.mark.parametrize("strategy", ["mean", "median", "most_frequent"])
def test_float32_and_integers_keep_scikit_learns_dtypes(backend, rng, strategy):
    X32 = _data(rng, dtype=np.float32)
    Xt = SimpleImputer(strategy=strategy).fit_transform(backend.asarray(X32))
    expected = _sk_fit_transform(sk_impute.SimpleImputer(strategy=strategy), X32)
    backend.assert_family(Xt, dtype=np.float32)
    _assert_equal(Xt, expected, backend, atol=1e-6)
    # integers: the mean and median impute in float64, the mode keeps int64
    Xi = rng.integers(0, 4, size=(30, 4))
    Xi[rng.random(Xi.shape) < 0.2] = -1
    ours = SimpleImputer(missing_values=-1, strategy=strategy)
    theirs = sk_impute.SimpleImputer(missing_values=-1, strategy=strategy)
    _assert_equal(
        ours.fit_transform(backend.asarray(Xi)), _sk_fit_transform(theirs, Xi), backend
    )


def test_most_frequent_ties_go_to_the_smallest_value(backend):
    X = np.array(
        [[3, 2, np.nan], [3, 2, np.nan], [1, 5, 4], [1, 5, np.nan], [np.nan, 2, 9]]
    )
    imputer = SimpleImputer(strategy="most_frequent").fit(backend.asarray(X))
    # column 0: 3 and 1 twice each; column 1: 2 thrice; column 2: 4 and 9 once
    np.testing.assert_array_equal(backend.to_numpy(imputer.statistics_), [1, 2, 4])


def test_median_of_even_and_odd_counts(backend):
    X = np.array([[1.0, 1.0], [2.0, 10.0], [np.nan, 4.0], [7.0, np.nan], [9.0, 3.0]])
    imputer = SimpleImputer(strategy="median").fit(backend.asarray(X))
    np.testing.assert_array_equal(backend.to_numpy(imputer.statistics_), [4.5, 3.5])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("keep_empty_features", [False, True])
def test_all_missing_columns(backend, strategy, keep_empty_features):
    X = np.array([[np.nan, 1.0, np.nan], [np.nan, 2.0, 3.0], [np.nan, 2.0, 5.0]])
    kwargs = dict(strategy=strategy, keep_empty_features=keep_empty_features)
    if strategy == "constant":
        kwargs["fill_value"] = 7.0
    imputer = SimpleImputer(**kwargs).fit(backend.asarray(X))
    expected = _sk_fit_transform(sk_impute.SimpleImputer(**kwargs), X)
    if keep_empty_features:
        Xt = imputer.transform(backend.asarray(X))
        np.testing.assert_array_equal(backend.to_numpy(Xt)[:, 0], expected[:, 0])
        assert expected[0, 0] == (7.0 if strategy == "constant" else 0.0)
    else:
        message = r"Skipping features without any observed values: \[0\]"
        with pytest.warns(UserWarning, match=message):
            Xt = imputer.transform(backend.asarray(X))
        assert np.isnan(float(backend.to_numpy(imputer.statistics_)[0]))
    _assert_equal(Xt, expected, backend)
    assert list(imputer.get_feature_names_out()) == list(
        ["x0", "x1", "x2"] if keep_empty_features else ["x1", "x2"]
    )


@pytest.mark.parametrize("strategy", ["mean", "constant"])
def test_add_indicator_and_inverse_transform(backend, rng, strategy):
    X = _data(rng)
    X[:, 1] = 1.0  # no missing value: no indicator column
    ours = SimpleImputer(strategy=strategy, add_indicator=True)
    theirs = sk_impute.SimpleImputer(strategy=strategy, add_indicator=True)
    Xt = ours.fit_transform(backend.asarray(X))
    expected = _sk_fit_transform(theirs, X)
    _assert_equal(Xt, expected, backend)
    assert isinstance(ours.indicator_, MissingIndicator)
    backend.assert_family(ours.indicator_.features_)
    np.testing.assert_array_equal(
        backend.to_numpy(ours.indicator_.features_), theirs.indicator_.features_
    )
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    back = ours.inverse_transform(Xt)
    backend.assert_family(back, shape=X.shape)
    np.testing.assert_array_equal(backend.to_numpy(back), X)
    with pytest.raises(ValueError, match="'inverse_transform' works only when"):
        SimpleImputer().fit(backend.asarray(X)).inverse_transform(Xt)


@pytest.mark.parametrize("features", ["missing-only", "all"])
@pytest.mark.parametrize("sparse", ["auto", True, False])
@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_missing_indicator_options(backend, rng, features, sparse, fmt):
    X = _data(rng, missing=-1.0) + 2.0  # missing: 1.0 (no explicit zeros)
    X[:, 0] = 5.0  # a column without missing values
    kwargs = dict(missing_values=1.0, features=features, sparse=sparse)
    ours = MissingIndicator(**kwargs)
    theirs = sk_impute.MissingIndicator(**kwargs)
    host = X if fmt == "dense" else getattr(sp, f"{fmt}_matrix")(X)
    mask = ours.fit_transform(backend.as_format(X, fmt))
    expected = theirs.fit_transform(host)
    backend.assert_family(mask, dtype=bool)
    _assert_equal(mask, expected, backend)
    _assert_equal(ours.transform(backend.as_format(X, fmt)), expected, backend)
    np.testing.assert_array_equal(backend.to_numpy(ours.features_), theirs.features_)
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())


def test_missing_indicator_error_on_new(backend):
    X_fit = np.array([[np.nan, 1.0], [2.0, 3.0]])
    X_new = np.array([[1.0, np.nan], [np.nan, 3.0]])
    indicator = MissingIndicator().fit(backend.asarray(X_fit))
    message = r"The features \[1\] have missing values in transform"
    with pytest.raises(ValueError, match=message):
        indicator.transform(backend.asarray(X_new))
    lenient = MissingIndicator(error_on_new=False).fit(backend.asarray(X_fit))
    mask = lenient.transform(backend.asarray(X_new))
    np.testing.assert_array_equal(backend.to_numpy(mask), [[False], [True]])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("keep_empty_features", [False, True])
def test_sparse_matches_sklearn(backend, rng, strategy, fmt, keep_empty_features):
    """Stored values (zeros among them), implicit zeros, negatives, an
    all-missing column and a column of zeros; never densified."""
    X = np.where(rng.random((30, 6)) < 0.5, 0.0, _data(rng, missing=-1.0, n=30, p=6))
    X[:, 0] = -1.0
    X[:, 1] = 0.0
    kwargs = dict(
        missing_values=-1.0,
        strategy=strategy,
        add_indicator=True,
        keep_empty_features=keep_empty_features,
    )
    ours = SimpleImputer(**kwargs)
    theirs = sk_impute.SimpleImputer(**kwargs)
    host = getattr(sp, f"{fmt}_matrix")(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        Xt = ours.fit_transform(backend.as_format(X, fmt))
    assert len(caught) == (0 if keep_empty_features else 1)
    expected = _sk_fit_transform(theirs, host)
    _assert_equal(Xt, expected, backend)
    np.testing.assert_allclose(
        backend.to_numpy(ours.statistics_), theirs.statistics_, rtol=0, atol=1e-12
    )


def test_sparse_refuses_missing_values_zero(backend):
    X = backend.as_format(np.eye(3), "csr")
    message = "Imputation not possible when missing_values == 0 and input is sparse"
    with pytest.raises(ValueError, match=message):
        SimpleImputer(missing_values=0).fit(X)
    with pytest.raises(ValueError, match="Sparse input with missing_values=0"):
        MissingIndicator(missing_values=0).fit(X)


@pytest.mark.parametrize("strategy", ["most_frequent", "constant"])
def test_object_columns_as_scikit_learn(strategy):
    X = np.array(
        [["a", "x"], [None, "y"], ["b", None], ["a", "y"], ["b", "x"]], dtype=object
    )
    kwargs = dict(missing_values=None, strategy=strategy, add_indicator=True)
    ours = SimpleImputer(**kwargs)
    theirs = sk_impute.SimpleImputer(**kwargs)
    Xt = ours.fit_transform(X)
    expected = theirs.fit_transform(X)
    assert Xt.dtype == object
    np.testing.assert_array_equal(Xt, expected)
    np.testing.assert_array_equal(ours.statistics_, theirs.statistics_)
    lists = [["a", np.nan], ["b", "c"], ["a", "c"]]
    np.testing.assert_array_equal(
        SimpleImputer(strategy=strategy).fit_transform(lists),
        sk_impute.SimpleImputer(strategy=strategy).fit_transform(lists),
    )


def test_errors_are_scikit_learns(backend):
    X = backend.asarray(np.array([[1.0, np.nan], [3.0, 4.0]]))
    with pytest.raises(ValueError, match="Cannot use mean strategy with non-numeric"):
        SimpleImputer().fit(np.array([["a", "b"], ["c", "d"]], dtype=object))
    with pytest.raises(ValueError, match="'X' and 'missing_values' types are expected"):
        SimpleImputer(missing_values="a").fit(backend.asarray(np.ones((2, 2))))
    with pytest.raises(ValueError, match="cannot be cast to the input data"):
        SimpleImputer(strategy="constant", fill_value="x").fit(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        SimpleImputer(missing_values=-1).fit(X)
    with pytest.raises(InvalidParameterError, match="'strategy' parameter"):
        SimpleImputer(strategy="mode").fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but SimpleImputer"):
        SimpleImputer().fit(X).transform(backend.asarray(np.ones((2, 3))))


def test_copy_false_imputes_in_place():
    X = np.array([[1.0, np.nan], [3.0, 4.0]])
    Xt = SimpleImputer(copy=False).fit(X).transform(X)
    assert Xt is X and X[0, 1] == 4.0
    Y = np.array([[1.0, np.nan], [3.0, 4.0]])
    SimpleImputer().fit(Y).transform(Y)
    assert np.isnan(Y[0, 1])


def test_a_callable_gets_columns_of_the_input_family(backend, rng):
    X = _data(rng)
    seen = set()

    def strategy(column):
        seen.add(type(column).__module__.partition(".")[0])
        return column.max()

    imputer = SimpleImputer(strategy=strategy).fit(backend.asarray(X))
    assert seen == {"numpy" if backend.family == "host" else "cupy"}
    np.testing.assert_array_equal(
        backend.to_numpy(imputer.statistics_), np.nanmax(X, axis=0)
    )


def test_callable_strategy_and_set_output():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": [1.0, np.nan, 5.0], "b": [np.nan, 2.0, 8.0]})
    imputer = SimpleImputer(strategy=np.max, add_indicator=True)
    out = imputer.set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == [
        "a",
        "b",
        "missingindicator_a",
        "missingindicator_b",
    ]
    np.testing.assert_array_equal(out[["a", "b"]].to_numpy(), [[1, 8], [5, 2], [5, 8]])


@pytest.mark.parametrize(
    "estimator", [SimpleImputer(add_indicator=True), MissingIndicator()]
)
def test_pickling_keeps_the_fit(backend, rng, estimator):
    X = backend.asarray(_data(rng))
    fitted = estimator.fit(X)
    loaded = pickle.loads(pickle.dumps(fitted))
    _assert_equal(loaded.transform(X), backend.to_numpy(fitted.transform(X)), backend)


def test_search_over_strategy_and_C_matches_sklearn(rng):
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    grid = {
        "simpleimputer__strategy": ["mean", "median", "most_frequent"],
        "logisticregression__C": [0.01, 1.0],
    }
    ours = GridSearchCV(
        make_pipeline(SimpleImputer(), LogisticRegression(tol=1e-10)), grid, cv=3
    ).fit(X, y)
    theirs = SkGridSearchCV(
        make_pipeline(
            sk_impute.SimpleImputer(), SkLogisticRegression(tol=1e-10, max_iter=1000)
        ),
        grid,
        cv=3,
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=0,
        atol=1e-10,
    )
    assert ours.best_params_ == theirs.best_params_


def test_a_searchs_best_estimator_moves_the_indicator_too(monkeypatch):
    """``move_fitted_to_family`` (a search's ``best_estimator_`` fitted on
    device copies of host data) also moves the attributes of ``indicator_``."""
    import gpuml.base

    imputer = SimpleImputer(add_indicator=True).fit([[1.0, np.nan], [2.0, 3.0]])
    moved = []

    def record(value, family):
        moved.append(value)
        return value

    monkeypatch.setattr(gpuml.base, "to_family_attribute", record)
    gpuml.base.move_fitted_to_family(make_pipeline(imputer), "host")
    assert any(value is imputer.statistics_ for value in moved)
    assert any(value is imputer.indicator_.features_ for value in moved)


@pytest.mark.parametrize("fmt", ["dense", "csc"])
def test_copy_false_imputes_host_input_in_place(backend, rng, fmt):
    # scikit-learn's promise: copy=False imputes a float array (dense, or
    # the stored values of a CSC matrix) in place, also when the work is
    # done on the GPU
    X = rng.normal(size=(20, 3))
    X[rng.random(X.shape) < 0.25] = 0.0
    X[::4, 1] = -1.0
    want = sk_impute.SimpleImputer(missing_values=-1.0).fit(X).transform(X)
    X_in = backend.as_format(X, fmt)
    got = SimpleImputer(missing_values=-1.0, copy=False).fit(X_in).transform(X_in)
    assert got is X_in
    got = got.toarray() if hasattr(got, "toarray") else got
    np.testing.assert_allclose(backend.to_numpy(got), want)


@pytest.mark.parametrize("strategy", ["constant", "most_frequent"])
def test_string_arrays_are_refused_as_sklearn(backend, strategy):
    X = np.array([["a", "b"], ["c", "a"]], dtype="U1")
    with pytest.raises(ValueError, match="SimpleImputer does not support data") as want:
        sk_impute.SimpleImputer(strategy=strategy).fit(X)
    with pytest.raises(ValueError) as got:
        SimpleImputer(strategy=strategy).fit(X)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("strategy", ["mean", "most_frequent", "constant"])
def test_integer_sparse_input_as_sklearn(backend, rng, strategy):
    # cupyx holds no integer sparse data: host integer CSC is imputed on
    # the host (the result is scikit-learn's, its dtype too)
    X = sp.random(12, 4, density=0.6, format="csc", random_state=0, dtype=np.float64)
    X.data = np.rint(X.data * 4.0) - 1.0
    X = X.astype(np.int32)
    X.data[::3] = -1
    params = {"missing_values": -1, "strategy": strategy}
    want = sk_impute.SimpleImputer(**params).fit_transform(X)
    got = SimpleImputer(**params).fit_transform(X)
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_allclose(got.toarray(), want.toarray())
    indicator = MissingIndicator(missing_values=-1).fit_transform(X)
    want = sk_impute.MissingIndicator(missing_values=-1).fit_transform(X)
    np.testing.assert_array_equal(indicator.toarray(), want.toarray())
