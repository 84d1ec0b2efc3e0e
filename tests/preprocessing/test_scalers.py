"""MinMaxScaler, MaxAbsScaler, RobustScaler and Normalizer against
scikit-learn, on every backend.

Fitted attributes (values, dtypes, family), transforms and inverse
transforms are compared with scikit-learn's classes on fresh random data
with NaNs, constant columns and outliers, dense and sparse, float64 and
float32; sparse outputs must keep scikit-learn's format and stored entries.
"""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.preprocessing as skp
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils._param_validation import InvalidParameterError

import gpuml.preprocessing as gp
from gpuml._array import HOST
from gpuml.linear_model import LogisticRegression
from gpuml.model_selection import GridSearchCV

ATTRIBUTES = {
    "MinMaxScaler": ("data_min_", "data_max_", "data_range_", "scale_", "min_"),
    "MaxAbsScaler": ("max_abs_", "scale_"),
    "RobustScaler": ("center_", "scale_"),
    "Normalizer": (),
}
TOL = {np.float64: 1e-12, np.float32: 1e-5}
DENSE_CASES = [
    ("MinMaxScaler", {}),
    ("MinMaxScaler", {"feature_range": (-3, 2.5)}),
    ("MaxAbsScaler", {}),
    ("RobustScaler", {}),
    ("RobustScaler", {"quantile_range": (10.0, 80.0), "unit_variance": True}),
    ("RobustScaler", {"with_centering": False}),
    ("RobustScaler", {"with_scaling": False}),
    ("Normalizer", {"norm": "l2"}),
    ("Normalizer", {"norm": "l1"}),
    ("Normalizer", {"norm": "max"}),
]
SPARSE_CASES = [
    ("MaxAbsScaler", {}),
    ("MaxAbsScaler", {"clip": True}),
    ("RobustScaler", {"with_centering": False}),
    ("RobustScaler", {"with_centering": False, "quantile_range": (5.0, 60.0)}),
    ("Normalizer", {"norm": "l2"}),
    ("Normalizer", {"norm": "l1"}),
    ("Normalizer", {"norm": "max"}),
]


def case_id(case):
    name, params = case
    return name + "".join(f"-{k}={v}" for k, v in params.items())


def make_data(rng, n_samples=40, n_features=6, *, dtype=np.float64, nan=True):
    """Features of different scales, a constant column, an outlier, NaNs."""
    scales = 10.0 ** rng.uniform(-2, 3, size=n_features)
    X = rng.normal(size=(n_samples, n_features)) * scales + rng.uniform(-5, 5)
    X[:, 1] = 7.0  # constant: zero range, zero quantile range
    X[rng.integers(n_samples), 2] = 1e6 * scales[2]  # an outlier
    if nan:
        mask = rng.random(X.shape) < 0.1
        mask[:3] = False  # every feature keeps values
        X[mask] = np.nan
    return X.astype(dtype)


def make_sparse(rng, fmt, *, dtype=np.float64, nan=True):
    X = make_data(rng, 30, 7, dtype=dtype, nan=nan)
    X[rng.random(X.shape) < 0.6] = 0.0
    X[:, 3] = 0.0  # an empty column
    X[5] = 0.0  # an empty row
    X[:, 4] = np.where(X[:, 4] == 0, -2.0, X[:, 4])  # a full column
    return sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)


def fit_both(name, params, X, backend):
    ours = getattr(gp, name)(**params).fit(backend.asarray(X))
    theirs = getattr(skp, name)(**params).fit(X)
    return ours, theirs


def assert_same_attributes(name, ours, theirs, backend, tol):
    for attr in ATTRIBUTES[name] + ("n_samples_seen_",):
        if not hasattr(theirs, attr):
            assert not hasattr(ours, attr), attr
            continue
        want, have = getattr(theirs, attr), getattr(ours, attr)
        if want is None:
            assert have is None, attr
        elif isinstance(want, int):
            assert type(have) is int and have == want, attr
        else:
            backend.assert_family(have, dtype=want.dtype, shape=want.shape)
            np.testing.assert_allclose(
                backend.to_numpy(have), want, rtol=tol, atol=0, err_msg=attr
            )


def assert_same_sparse(backend, got, want, tol):
    """Same format, stored entries and (within ``tol``) values."""
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    host = got.get() if backend.family != HOST else got
    if backend.family == HOST:
        assert host.format == want.format
    host, want = host.asformat(want.format), want
    np.testing.assert_array_equal(host.indptr, want.indptr)
    np.testing.assert_array_equal(host.indices, want.indices)
    np.testing.assert_allclose(host.data, want.data, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", DENSE_CASES, ids=case_id)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_matches_sklearn(backend, rng, case, dtype):
    name, params = case
    nan = name != "Normalizer"  # Normalizer refuses NaNs
    X = make_data(rng, dtype=dtype, nan=nan)
    X_new = make_data(rng, 15, dtype=dtype, nan=nan) * 3
    ours, theirs = fit_both(name, params, X, backend)
    tol = TOL[dtype]
    assert_same_attributes(name, ours, theirs, backend, tol)
    got, want = ours.transform(backend.asarray(X_new)), theirs.transform(X_new)
    backend.assert_family(got, dtype=want.dtype, shape=want.shape)
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=tol, atol=tol)
    if hasattr(theirs, "inverse_transform"):
        back = ours.inverse_transform(got)
        backend.assert_family(back, dtype=dtype, shape=X_new.shape)
        np.testing.assert_allclose(
            backend.to_numpy(back), theirs.inverse_transform(want), rtol=tol, atol=tol
        )
        # A round trip gives the data back (NaNs kept where they were), to
        # rounding relative to the largest value (the training outlier's).
        largest = max(np.nanmax(np.abs(X)), np.nanmax(np.abs(X_new)))
        atol = 1e3 * np.finfo(dtype).eps * largest
        np.testing.assert_allclose(backend.to_numpy(back), X_new, rtol=0, atol=atol)


@pytest.mark.parametrize("case", SPARSE_CASES, ids=case_id)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_matches_sklearn(backend, rng, case, fmt, dtype):
    name, params = case
    nan = name != "Normalizer"
    X = make_sparse(rng, fmt, dtype=dtype, nan=nan)
    ours, theirs = fit_both(name, params, X, backend)
    tol = TOL[dtype]
    assert_same_attributes(name, ours, theirs, backend, tol)
    X_new = make_sparse(rng, fmt, dtype=dtype, nan=nan) * 2
    got = ours.transform(backend.as_format(X_new.toarray(), fmt))
    want = theirs.transform(X_new)
    assert_same_sparse(backend, got, want, tol)
    if hasattr(theirs, "inverse_transform"):
        back = ours.inverse_transform(got)
        assert_same_sparse(backend, back, theirs.inverse_transform(want), tol)
        if not params.get("clip"):
            np.testing.assert_allclose(
                backend.to_numpy(back).toarray(), X_new.toarray(), rtol=10 * tol
            )


@pytest.mark.parametrize("name", ["MinMaxScaler", "MaxAbsScaler"])
@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_partial_fit_batches_equal_one_fit(backend, rng, name, fmt):
    if name == "MinMaxScaler" and fmt != "dense":
        pytest.skip("MinMaxScaler refuses sparse input")
    X = make_data(rng, 60)
    X[rng.random(X.shape) < 0.3] = 0.0
    batches = np.array_split(np.arange(60), [7, 9, 31])
    for rows in batches:  # no feature all NaN in a batch
        X[rows[0]] = np.nan_to_num(X[rows[0]])
    whole = getattr(gp, name)().fit(backend.as_format(X, fmt))
    batched = getattr(gp, name)()
    for rows in batches:
        batched.partial_fit(backend.as_format(X[rows], fmt))
    assert batched.n_samples_seen_ == whole.n_samples_seen_ == 60
    for attr in ATTRIBUTES[name]:
        np.testing.assert_array_equal(
            backend.to_numpy(getattr(batched, attr)),
            backend.to_numpy(getattr(whole, attr)),
            err_msg=attr,
        )
    # fit resets what partial_fit accumulated
    refit = batched.fit(backend.as_format(X[:5], fmt))
    assert refit.n_samples_seen_ == 5


@pytest.mark.parametrize("name", ["MinMaxScaler", "MaxAbsScaler"])
def test_a_batch_all_nan_in_a_feature_keeps_the_others_extrema(backend, rng, name):
    """gpuml combines batches with fmin/fmax: the result of one fit, where
    scikit-learn's minimum/maximum make that feature NaN for good
    (docs/differences.rst)."""
    X = make_data(rng, 30)
    X[:10, 0] = np.nan
    ours, theirs = getattr(gp, name)(), getattr(skp, name)()
    for rows in (slice(0, 10), slice(10, 30)):
        with warnings.catch_warnings():
            # NumPy's nanmin/nanmax on the all-NaN column of the first batch
            warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
            ours.partial_fit(backend.asarray(X[rows]))
            theirs.partial_fit(X[rows])
    whole = getattr(skp, name)().fit(X)
    assert_same_attributes(name, ours, whole, backend, 1e-12)
    assert np.isnan(theirs.scale_[0]) and not np.isnan(whole.scale_[0])
    np.testing.assert_array_equal(theirs.scale_[1:], whole.scale_[1:])


@pytest.mark.parametrize("feature_range", [(0, 1), (-1, 4)])
def test_minmax_clip(backend, rng, feature_range):
    X = make_data(rng, nan=False)
    scaler = gp.MinMaxScaler(feature_range, clip=True).fit(backend.asarray(X))
    far = np.vstack([np.nanmin(X, 0) - 100, np.nanmax(X, 0) + 100])
    got = backend.to_numpy(scaler.transform(backend.asarray(far)))
    want = skp.MinMaxScaler(feature_range, clip=True).fit(X).transform(far)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got.min() >= feature_range[0] and got.max() <= feature_range[1]


def test_maxabs_clip_dense(backend, rng):
    X = make_data(rng, nan=False)
    scaler = gp.MaxAbsScaler(clip=True).fit(backend.asarray(X))
    got = backend.to_numpy(scaler.transform(backend.asarray(3 * X)))
    assert np.abs(got).max() == 1.0
    want = skp.MaxAbsScaler(clip=True).fit(X).transform(3 * X)
    np.testing.assert_array_equal(got, want)


def test_all_nan_column_is_nan_as_in_sklearn(backend, rng):
    X = make_data(rng, nan=False)
    X[:, 0] = np.nan
    for name in ("MinMaxScaler", "MaxAbsScaler", "RobustScaler"):
        with pytest.warns(RuntimeWarning, match="All-NaN"):
            ours = getattr(gp, name)().fit(backend.asarray(X))
        with pytest.warns(RuntimeWarning, match="All-NaN"):
            theirs = getattr(skp, name)().fit(X)
        assert_same_attributes(name, ours, theirs, backend, 1e-12)
        assert np.isnan(backend.to_numpy(ours.scale_)[0])


def test_integer_input_becomes_float64(backend, rng):
    X = rng.integers(-5, 5, size=(20, 3))
    for name in ("MinMaxScaler", "MaxAbsScaler", "RobustScaler", "Normalizer"):
        got = getattr(gp, name)().fit_transform(backend.asarray(X))
        want = getattr(skp, name)().fit_transform(X)
        backend.assert_family(got, dtype=np.float64, shape=X.shape)
        np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-12)


def _message(call):
    """The exception's type and message, sets of options in sorted order
    (their printed order follows string hashing, which varies by process)."""
    with pytest.raises(Exception) as info:
        call()
    message = re.sub(
        r"\{([^{}]*)\}", lambda m: str(sorted(m[1].split(", "))), str(info.value)
    )
    return type(info.value), message


@pytest.mark.parametrize(
    "make, X",
    [
        (lambda m: m.MinMaxScaler(), sp.random(5, 3, density=0.5, format="csr")),
        (lambda m: m.MinMaxScaler(feature_range=(2, 1)), np.ones((3, 2))),
        (lambda m: m.MinMaxScaler(feature_range=[0, 1]), np.ones((3, 2))),
        (lambda m: m.RobustScaler(quantile_range=(80, 20)), np.ones((3, 2))),
        (lambda m: m.RobustScaler(quantile_range=(-1, 20)), np.ones((3, 2))),
        (lambda m: m.RobustScaler(), sp.random(5, 3, density=0.5, format="csc")),
        (lambda m: m.Normalizer(norm="l3"), np.ones((3, 2))),
        (lambda m: m.Normalizer(), np.array([[1.0, np.nan]])),
        (lambda m: m.MaxAbsScaler(), np.array([[1.0, np.inf]])),
        (lambda m: m.MaxAbsScaler(), np.ones((0, 2))),
    ],
)
def test_errors_as_sklearn(make, X):
    ours = _message(lambda: make(gp).fit(X))
    theirs = _message(lambda: make(skp).fit(X))
    assert ours[0] is theirs[0]
    assert ours[1] == theirs[1]


def test_invalid_parameter_type_is_refused():
    with pytest.raises(InvalidParameterError, match="'norm' parameter"):
        gp.Normalizer(norm="l3").fit([[1.0]])


def test_wrong_number_of_features(backend, rng):
    for name in ("MinMaxScaler", "MaxAbsScaler", "RobustScaler", "Normalizer"):
        scaler = getattr(gp, name)().fit(backend.asarray(rng.normal(size=(5, 3))))
        with pytest.raises(ValueError, match=re.escape("X has 2 features, but")):
            scaler.transform(backend.asarray(rng.normal(size=(5, 2))))


@pytest.mark.parametrize("name", ["MinMaxScaler", "MaxAbsScaler", "RobustScaler"])
def test_pickle_round_trip(backend, rng, name):
    X = make_data(rng)
    scaler = getattr(gp, name)().fit(backend.asarray(X))
    first = backend.to_numpy(scaler.transform(backend.asarray(X)))
    loaded = pickle.loads(pickle.dumps(scaler))
    again = backend.to_numpy(loaded.transform(backend.asarray(X)))
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize("name", ["MinMaxScaler", "MaxAbsScaler", "Normalizer"])
def test_copy_false_writes_into_the_input_as_sklearn(rng, name):
    X = make_data(rng, nan=False)
    ours, theirs = X.copy(), X.copy()
    got = getattr(gp, name)(copy=False).fit(ours).transform(ours)
    want = getattr(skp, name)(copy=False).fit(theirs).transform(theirs)
    assert got is ours and want is theirs
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_copy_true_keeps_the_input(rng):
    X = make_data(rng, nan=False)
    for name in ("MinMaxScaler", "MaxAbsScaler", "RobustScaler", "Normalizer"):
        before = X.copy()
        getattr(gp, name)().fit(X).transform(X)
        np.testing.assert_array_equal(X, before)


def test_set_output_pandas(rng):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(make_data(rng, nan=False), columns=list("abcdef"))
    for name in ("MinMaxScaler", "MaxAbsScaler", "RobustScaler", "Normalizer"):
        out = getattr(gp, name)().set_output(transform="pandas").fit_transform(frame)
        assert isinstance(out, pd.DataFrame)
        assert list(out.columns) == list("abcdef")
        want = getattr(skp, name)().fit_transform(frame)
        np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-12)


def test_normalizer_is_stateless_and_keeps_zero_rows(backend, rng):
    X = rng.normal(size=(6, 4))
    X[2] = 0.0
    got = backend.to_numpy(gp.Normalizer().transform(backend.asarray(X)))
    np.testing.assert_array_equal(got[2], 0.0)
    np.testing.assert_allclose(np.linalg.norm(got[[0, 1, 3, 4, 5]], axis=1), 1.0)


@pytest.mark.parametrize(
    "name, sk_name",
    [("MinMaxScaler", "MinMaxScaler"), ("RobustScaler", "RobustScaler")],
)
def test_grid_search_of_a_pipeline_matches_sklearn(rng, name, sk_name):
    X = rng.normal(size=(120, 5)) * [1, 10, 100, 0.1, 5] + 3
    y = (X[:, 0] + X[:, 1] / 10 + rng.normal(size=120) > 3).astype(int)
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}
    ours = GridSearchCV(
        make_pipeline(getattr(gp, name)(), LogisticRegression()), grid, cv=4
    ).fit(X, y)
    theirs = SkGridSearchCV(
        make_pipeline(getattr(skp, sk_name)(), SkLogisticRegression()), grid, cv=4
    ).fit(X, y)
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=0, atol=1e-10
        )
    for split in range(4):
        key = f"split{split}_test_score"
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], atol=1e-10
        )
    assert ours.best_params_ == theirs.best_params_


@pytest.mark.parametrize(
    "quantile_range", [(0.0, 100.0), (50.0, 50.0), (0.0, 0.0), (33.3, 66.7)]
)
@pytest.mark.parametrize("n_samples", [1, 2, 3, 8])
def test_robust_quantiles_at_the_edges(backend, rng, quantile_range, n_samples):
    """Extreme and equal quantiles, tiny columns and ties, as np.nanpercentile."""
    X = rng.integers(-3, 3, size=(n_samples, 4)).astype(float)  # ties
    if n_samples > 2:
        X[0, 1] = np.nan
    # unit_variance divides by the normal ppf's difference: infinite at 0 and
    # 100, zero for equal quantiles
    low, high = quantile_range
    unit_variance = n_samples == 8 and 0 < low < high < 100
    params = {"quantile_range": quantile_range, "unit_variance": unit_variance}
    ours, theirs = fit_both("RobustScaler", params, X, backend)
    assert_same_attributes("RobustScaler", ours, theirs, backend, 1e-12)
    got = ours.transform(backend.asarray(X))
    np.testing.assert_allclose(
        backend.to_numpy(got), theirs.transform(X), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_a_search_feeds_pipelines_of_the_scalers_device_data(name):
    """gpuml's searches keep the folds on the device only for pipelines of
    gpuml estimators (gpuml.base.accepts_device_input)."""
    from gpuml.base import accepts_device_input

    assert accepts_device_input(getattr(gp, name)())
    assert accepts_device_input(
        make_pipeline(getattr(gp, name)(), LogisticRegression())
    )
    assert not accepts_device_input(getattr(skp, name)())


IN_PLACE = [
    (gp.StandardScaler, "dense", {}),
    (gp.StandardScaler, "csr", {"with_mean": False}),
    (gp.MinMaxScaler, "dense", {}),
    (gp.MaxAbsScaler, "csc", {}),
    (gp.RobustScaler, "dense", {}),
    (gp.Normalizer, "csr", {}),
]


@pytest.mark.parametrize(
    ("cls", "fmt", "params"),
    IN_PLACE,
    ids=[f"{c.__name__}-{f}" for c, f, _ in IN_PLACE],
)
def test_copy_false_transforms_host_input_in_place(backend, rng, cls, fmt, params):
    # scikit-learn's promise (and its own tests'): with copy=False a
    # writeable float array of the right format is transformed in place and
    # returned, also when the work is done on the GPU
    X = rng.normal(size=(30, 4))
    X[rng.random(X.shape) < 0.3] = 0.0
    want = getattr(skp, cls.__name__)(**params).fit(X).transform(X)
    X_in = backend.as_format(X, fmt)
    got = cls(copy=False, **params).fit(X_in).transform(X_in)
    assert got is X_in
    got = got.toarray() if hasattr(got, "toarray") else got
    np.testing.assert_allclose(backend.to_numpy(got), want, rtol=1e-12, atol=1e-12)
    # copy=True leaves the input alone
    X_in = backend.as_format(X, fmt)
    assert cls(**params).fit(X_in).transform(X_in) is not X_in
