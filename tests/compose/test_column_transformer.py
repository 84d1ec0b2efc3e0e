"""ColumnTransformer against scikit-learn's, on every backend.

A ColumnTransformer of gpuml's transformers gives scikit-learn's values,
dense/sparse result and feature names, in the input's family: device input
is selected, transformed and stacked on the device.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.compose as skc
import sklearn.preprocessing as skp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline

from gpuml.base import accepts_device_input
from gpuml.compose import (
    ColumnTransformer,
    make_column_selector,
    make_column_transformer,
)
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV
from gpuml.preprocessing import (
    MaxAbsScaler,
    MinMaxScaler,
    OneHotEncoder,
    StandardScaler,
)


def _data(rng, n=40):
    """Two numeric columns, a categorical one (codes 0..3, as floats), a
    numeric one; and a binary target."""
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.random(n) * 10,
            rng.integers(0, 4, n).astype(np.float64),
            rng.normal(size=n),
        ]
    )
    y = (X[:, 0] + (X[:, 2] > 1) + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    return X, y


def _pair(num_cols, cat_cols, **params):
    ours = ColumnTransformer(
        [("num", StandardScaler(), num_cols), ("cat", OneHotEncoder(), cat_cols)],
        **params,
    )
    theirs = skc.ColumnTransformer(
        [
            ("num", skp.StandardScaler(), num_cols),
            ("cat", skp.OneHotEncoder(), cat_cols),
        ],
        **params,
    )
    return ours, theirs


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


@pytest.mark.parametrize("remainder", ["drop", "passthrough"])
@pytest.mark.parametrize("sparse_threshold", [0.0, 0.3, 0.8])
@pytest.mark.parametrize(
    "num_cols, cat_cols",
    [
        ([0, 1], [2]),
        (slice(0, 2), [False, False, True, False]),
        (np.array([0, 1]), np.array([2])),
    ],
    ids=["lists", "slice-mask", "arrays"],
)
def test_matches_sklearn(backend, rng, remainder, sparse_threshold, num_cols, cat_cols):
    X, _ = _data(rng)
    params = {"remainder": remainder, "sparse_threshold": sparse_threshold}
    ours, theirs = _pair(num_cols, cat_cols, **params)
    got = ours.fit_transform(backend.asarray(X))
    want = theirs.fit_transform(X)
    assert ours.sparse_output_ == theirs.sparse_output_
    assert sp.issparse(want) == (type(got).__module__.startswith(("scipy", "cupyx")))
    backend.assert_family(got, shape=want.shape)
    # (on the GPU, a scaled value near 0 rounds otherwise: 9.6e-16 apart)
    atol = 0 if backend.device == "cpu" else 1e-14
    np.testing.assert_allclose(
        _dense(backend.to_numpy(got)), _dense(want), rtol=1e-12, atol=atol
    )
    again = ours.transform(backend.asarray(X))
    backend.assert_family(again, shape=want.shape)
    np.testing.assert_allclose(
        _dense(backend.to_numpy(again)), _dense(want), rtol=1e-12, atol=atol
    )
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    assert ours.output_indices_ == theirs.output_indices_


def test_callable_columns_and_drop(backend, rng):
    X, _ = _data(rng)

    def categorical(Z):  # a mask computed on the data, in their family
        return Z[0] == Z[0].round()

    ours = ColumnTransformer(
        [
            ("num", MinMaxScaler(), lambda Z: [0, 1]),
            ("cat", OneHotEncoder(sparse_output=False), categorical),
            ("gone", "drop", [3]),
        ],
        verbose_feature_names_out=False,
    )
    theirs = skc.ColumnTransformer(
        [
            ("num", skp.MinMaxScaler(), lambda Z: [0, 1]),
            ("cat", skp.OneHotEncoder(sparse_output=False), categorical),
            ("gone", "drop", [3]),
        ],
        verbose_feature_names_out=False,
    )
    got = ours.fit_transform(backend.asarray(X))
    want = theirs.fit_transform(X)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-12)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )


def test_passthrough_only_and_all_dropped(backend, rng):
    X, _ = _data(rng)
    got = ColumnTransformer([("p", "passthrough", [3, 0])]).fit_transform(
        backend.asarray(X)
    )
    backend.assert_family(got, shape=(X.shape[0], 2))
    np.testing.assert_array_equal(backend.to_numpy(got), X[:, [3, 0]])
    none = ColumnTransformer([("d", "drop", [0])]).fit_transform(backend.asarray(X))
    backend.assert_family(none, shape=(X.shape[0], 0))


def test_sparse_input(backend, rng):
    X, _ = _data(rng)
    X[:, 3][X[:, 3] < 0.5] = 0.0
    Xs = sp.csr_matrix(X)
    ours = ColumnTransformer([("s", MaxAbsScaler(), [3]), ("p", "passthrough", [2])])
    theirs = skc.ColumnTransformer(
        [("s", skp.MaxAbsScaler(), [3]), ("p", "passthrough", [2])]
    )
    got = ours.fit_transform(backend.asarray(Xs))
    want = theirs.fit_transform(Xs)
    backend.assert_family(got, shape=want.shape)
    assert sp.issparse(want) == (type(got).__module__.startswith(("scipy", "cupyx")))
    np.testing.assert_allclose(_dense(backend.to_numpy(got)), _dense(want))


def test_one_dimensional_selection_error(backend, rng):
    X, _ = _data(rng)
    ct = ColumnTransformer([("num", StandardScaler(), 0)])
    with pytest.raises(ValueError, match="1D data passed to a transformer"):
        ct.fit(backend.asarray(X))


def test_string_columns_need_a_dataframe(backend, rng):
    X, _ = _data(rng)
    ct = ColumnTransformer([("num", StandardScaler(), ["a"])])
    with pytest.raises(ValueError, match="only supported for dataframes"):
        ct.fit(backend.asarray(X))


def test_pandas_input_and_output(backend, rng):
    if backend.family != "host":
        pytest.skip("pandas is host data")
    X, _ = _data(rng)
    df = pd.DataFrame(X[:, :3], columns=["a", "b", "city"])
    df["city"] = np.array(["x", "y", "z", "w"])[X[:, 2].astype(int)]
    select = make_column_selector(dtype_include=np.number)
    ours = make_column_transformer(
        (StandardScaler(), select),
        (OneHotEncoder(sparse_output=False), ["city"]),
    ).set_output(transform="pandas")
    theirs = skc.make_column_transformer(
        (skp.StandardScaler(), select),
        (skp.OneHotEncoder(sparse_output=False), ["city"]),
    ).set_output(transform="pandas")
    got = ours.fit_transform(df)
    want = theirs.fit_transform(df)
    assert isinstance(got, pd.DataFrame)
    pd.testing.assert_frame_equal(got, want)
    np.testing.assert_array_equal(ours.feature_names_in_, ["a", "b", "city"])
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    pd.testing.assert_frame_equal(ours.transform(df), theirs.transform(df))


def test_accepts_device_input():
    gpu = ColumnTransformer(
        [("a", StandardScaler(), [0]), ("b", "passthrough", [1]), ("c", "drop", [2])]
    )
    assert accepts_device_input(gpu)
    assert accepts_device_input(make_pipeline(gpu, LogisticRegression()))
    assert accepts_device_input(
        ColumnTransformer([("a", make_pipeline(StandardScaler()), [0])])
    )
    assert not accepts_device_input(
        ColumnTransformer([("a", skp.StandardScaler(), [0])])
    )
    assert not accepts_device_input(
        ColumnTransformer(
            [("a", StandardScaler(), [0])], remainder=skp.StandardScaler()
        )
    )
    assert not accepts_device_input(
        skc.ColumnTransformer([("a", StandardScaler(), [0])])
    )
    # columns named or chosen by a callable need the user's DataFrame
    for columns in ("x", ["x", "y"], np.array(["x"]), slice("x", "y")):
        named = ColumnTransformer([("a", StandardScaler(), columns)])
        assert not accepts_device_input(named), columns
    selector = skc.make_column_selector(dtype_include=np.number)
    assert not accepts_device_input(
        ColumnTransformer([("a", StandardScaler(), selector)])
    )
    for columns in ([0, 1], slice(0, 2), np.array([True, False]), np.array([0])):
        assert accepts_device_input(
            ColumnTransformer([("a", StandardScaler(), columns)])
        )


def test_search_of_a_numeric_dataframe_with_named_columns(rng):
    """A search gives a ColumnTransformer that picks columns by name the
    DataFrame itself (not an array of its values), also when every column is
    numeric."""
    X, y = _data(rng, 80)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"]).astype(np.float32)
    grid = {"clf__C": [0.1, 10.0]}

    def pipeline(ct, scaler, encoder, clf):
        columns = ct([("num", scaler(), ["a", "b"]), ("cat", encoder(), ["c"])])
        return Pipeline([("ct", columns), ("clf", clf())])

    ours = pipeline(
        ColumnTransformer, StandardScaler, OneHotEncoder, LogisticRegression
    )
    theirs = pipeline(
        skc.ColumnTransformer,
        skp.StandardScaler,
        skp.OneHotEncoder,
        SkLogisticRegression,
    )
    search = GridSearchCV(ours, grid, cv=3, error_score="raise").fit(df, y)
    reference = SkGridSearchCV(theirs, grid, cv=3).fit(df, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"],
        reference.cv_results_["mean_test_score"],
        atol=1e-6,
    )


def test_grid_search_of_a_pipeline_matches_sklearn(backend, rng):
    X, y = _data(rng, 80)
    grid = {"ct__cat__drop": [None, "first"], "clf__C": [0.1, 10.0]}
    ours = Pipeline(
        [
            (
                "ct",
                ColumnTransformer(
                    [("num", StandardScaler(), [0, 1]), ("cat", OneHotEncoder(), [2])]
                ),
            ),
            ("clf", LogisticRegression()),
        ]
    )
    theirs = Pipeline(
        [
            (
                "ct",
                skc.ColumnTransformer(
                    [
                        ("num", skp.StandardScaler(), [0, 1]),
                        ("cat", skp.OneHotEncoder(), [2]),
                    ]
                ),
            ),
            ("clf", SkLogisticRegression()),
        ]
    )
    assert accepts_device_input(ours) is True
    search = GridSearchCV(ours, grid, cv=3).fit(backend.asarray(X), backend.asarray(y))
    reference = SkGridSearchCV(theirs, grid, cv=3).fit(X, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"],
        reference.cv_results_["mean_test_score"],
        atol=1e-6,
    )
    assert search.best_params_ == reference.best_params_
    best = search.best_estimator_
    backend.assert_family(best[-1].coef_)
    backend.assert_family(best[0].named_transformers_["num"].mean_)
    pred = search.predict(backend.asarray(X))
    np.testing.assert_array_equal(backend.to_numpy(pred), reference.predict(X))


def test_pickle(backend, rng):
    X, _ = _data(rng)
    ours, _ = _pair([0, 1], [2], remainder="passthrough")
    before = ours.fit_transform(backend.asarray(X))
    loaded = pickle.loads(pickle.dumps(ours))
    after = loaded.transform(backend.asarray(X))
    backend.assert_family(after, shape=before.shape)
    np.testing.assert_array_equal(
        _dense(backend.to_numpy(after)), _dense(backend.to_numpy(before))
    )
    np.testing.assert_array_equal(
        loaded.get_feature_names_out(), ours.get_feature_names_out()
    )


@pytest.fixture
def posing_as_device(monkeypatch):
    """NumPy and SciPy arrays posing as device data in the module: its
    device branch (selection, passthrough, stacking, density) runs on the
    CPU, SciPy's sparse module standing in for cupyx's."""
    import gpuml.compose._column_transformer as module

    monkeypatch.setattr(
        module,
        "input_family",
        lambda obj: "device" if hasattr(obj, "shape") else "host",
    )
    monkeypatch.setattr(module, "to_family", lambda array, family: array)
    monkeypatch.setattr(module, "as_device_native", lambda array: array)
    monkeypatch.setattr(module, "sparse_module", lambda xp: sp)


@pytest.mark.parametrize("sparse_threshold", [0.0, 0.3, 0.8])
@pytest.mark.parametrize("remainder", ["drop", "passthrough"])
def test_device_branch_matches_sklearn(
    posing_as_device, rng, sparse_threshold, remainder
):
    X, _ = _data(rng)
    params = {"remainder": remainder, "sparse_threshold": sparse_threshold}
    ours, theirs = _pair(slice(0, 2), lambda Z: Z[0] == Z[0].round(), **params)
    got = ours.fit_transform(X)
    want = theirs.fit_transform(X)
    assert ours.sparse_output_ == theirs.sparse_output_
    assert sp.issparse(got) == sp.issparse(want)
    np.testing.assert_allclose(_dense(got), _dense(want), rtol=1e-12)
    np.testing.assert_allclose(_dense(ours.transform(X)), _dense(want), rtol=1e-12)
    np.testing.assert_array_equal(
        ours.get_feature_names_out(), theirs.get_feature_names_out()
    )
    if remainder == "passthrough":  # gpuml's, which keeps device data
        fitted = ours.named_transformers_["remainder"]
        assert type(fitted).__module__.startswith("gpuml.preprocessing")


def test_device_branch_sparse_input_and_errors(posing_as_device, rng):
    X, _ = _data(rng)
    X[:, 3][X[:, 3] < 0.5] = 0.0
    Xs = sp.csr_matrix(X)
    got = ColumnTransformer(
        [("s", MaxAbsScaler(), [3]), ("p", "passthrough", 2)], sparse_threshold=1.0
    ).fit_transform(Xs)
    want = skc.ColumnTransformer(
        [("s", skp.MaxAbsScaler(), [3]), ("p", "passthrough", 2)], sparse_threshold=1.0
    ).fit_transform(Xs)
    assert sp.issparse(got) and sp.issparse(want)
    np.testing.assert_allclose(got.toarray(), want.toarray())
    with pytest.raises(ValueError, match="1D data passed to a transformer"):
        ColumnTransformer([("num", StandardScaler(), 0)]).fit(X)
    with pytest.raises(ValueError, match="only supported for dataframes"):
        ColumnTransformer([("num", StandardScaler(), ["a"])]).fit(X)
    empty = ColumnTransformer([("d", "drop", [0])]).fit_transform(X)
    assert empty.shape == (X.shape[0], 0)
