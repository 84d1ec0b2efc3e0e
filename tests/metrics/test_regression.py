"""Regression metrics against scikit-learn, one candidate and many at once."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.stats import _weighted_percentile as sk_weighted_percentile

from gpuml._array import namespace_of
from gpuml.metrics import _regression as reg
from gpuml.metrics import _regression_kernels as kernels
from gpuml.metrics._regression import BATCH_KERNELS

N, N_OUTPUTS, K = 40, 3, 5
PUBLIC = [
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "explained_variance_score",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_error",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "median_absolute_error",
    "r2_score",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
]
AVERAGES = ["raw_values", "uniform_average", "weights"]
VARIANCE = [*AVERAGES, "variance_weighted"]
POWERS = [-1.5, -1, 0, 1, 1.5, 2, 3, 4.5]


def _tweedie_domain(power) -> str:
    if power < 0:
        return "positive_pred"
    if power == 0:
        return "real"
    return "nonnegative" if power < 2 else "positive"


# (metric, options, data domain, multioutput choices or None for single output)
CASES = [
    *[("r2_score", {"force_finite": f}, "real", VARIANCE) for f in (True, False)],
    *[
        ("explained_variance_score", {"force_finite": f}, "real", VARIANCE)
        for f in (True, False)
    ],
    ("mean_squared_error", {}, "real", AVERAGES),
    ("root_mean_squared_error", {}, "real", AVERAGES),
    ("mean_absolute_error", {}, "real", AVERAGES),
    ("median_absolute_error", {}, "real", AVERAGES),
    ("mean_absolute_percentage_error", {}, "real", AVERAGES),
    ("mean_squared_log_error", {}, "log", AVERAGES),
    ("root_mean_squared_log_error", {}, "log", AVERAGES),
    *[
        (name, {"alpha": a}, "real", AVERAGES)
        for name in ("mean_pinball_loss", "d2_pinball_score")
        for a in (0.0, 0.1, 0.5, 0.9, 1.0)
    ],
    ("d2_absolute_error_score", {}, "real", AVERAGES),
    ("max_error", {}, "real", None),
    *[
        (name, {"power": p}, _tweedie_domain(p), None)
        for name in ("mean_tweedie_deviance", "d2_tweedie_score")
        for p in POWERS
    ],
    ("mean_poisson_deviance", {}, "nonnegative", None),
    ("mean_gamma_deviance", {}, "positive", None),
]


def _case_id(case) -> str:
    name, options, _, _ = case
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def _layouts(case):
    """Target layouts: 1-D (default and raw), then each multioutput choice."""
    layouts = ["1d"]
    if case[3] is not None:
        layouts += ["1d-raw", *case[3]]
    return layouts


PARAMS = [
    pytest.param(case, layout, id=f"{_case_id(case)}-{layout}")
    for case in CASES
    for layout in _layouts(case)
]


def _targets(rng, domain, shape, k=None):
    """``y_true`` of ``shape`` and predictions near it (``k`` stacked if given)."""
    pred_shape = shape if k is None else (k, *shape)
    if domain == "real":
        y_true = rng.normal(size=shape)
        y_pred = y_true + rng.normal(scale=0.5, size=pred_shape)
    elif domain == "log":
        y_true = rng.uniform(-0.9, 4, size=shape)
        y_pred = np.clip(y_true + rng.normal(size=pred_shape), -0.95, None)
    elif domain == "positive_pred":  # any y_true (mostly positive mean), y_pred > 0
        y_true = rng.normal(1.0, 1.0, size=shape)
        y_pred = rng.uniform(0.1, 3, size=pred_shape)
    elif domain == "nonnegative":  # counts with zeros, y_pred > 0
        y_true = rng.poisson(1.5, size=shape).astype(np.float64)
        y_pred = rng.uniform(0.1, 4, size=pred_shape)
    else:  # positive
        y_true = rng.uniform(0.1, 4, size=shape)
        y_pred = rng.uniform(0.1, 4, size=pred_shape)
    return y_true, y_pred


def _layout_args(rng, case, layout):
    """(shape of y_true, multioutput argument or None to leave the default)."""
    if layout == "1d":
        return (N,), None
    if layout == "1d-raw":
        return (N,), "raw_values"
    if layout == "weights":
        return (N, N_OUTPUTS), rng.uniform(0.1, 1, N_OUTPUTS)
    return (N, N_OUTPUTS), layout


def _kwargs(options, multioutput, sample_weight):
    kwargs = dict(options)
    if multioutput is not None:
        kwargs["multioutput"] = multioutput
    if sample_weight is not None:
        kwargs["sample_weight"] = sample_weight
    return kwargs


def _sklearn(name, *args, **kwargs):
    """scikit-learn's value, its floating-point warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(skm, name)(*args, **kwargs)


def _on(backend, array):
    return None if array is None else backend.asarray(array)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(("case", "layout"), PARAMS)
def test_matches_sklearn(backend, rng, case, layout, weighted):
    name, options, domain, _ = case
    shape, multioutput = _layout_args(rng, case, layout)
    y_true, y_pred = _targets(rng, domain, shape)
    sw = rng.uniform(0.5, 2, N) if weighted and name != "max_error" else None
    expected = _sklearn(name, y_true, y_pred, **_kwargs(options, multioutput, sw))
    got = getattr(reg, name)(
        backend.asarray(y_true),
        backend.asarray(y_pred),
        **_kwargs(options, multioutput, _on(backend, sw)),
    )
    if isinstance(multioutput, str) and multioutput == "raw_values":
        backend.assert_family(got, dtype=np.float64, shape=expected.shape)
        got = backend.to_numpy(got)
    else:
        assert type(got) is float
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


def _kernel_kwargs(case, multioutput, sample_weight):
    kwargs = dict(case[1])
    if case[3] is not None and multioutput is not None:
        kwargs["multioutput"] = multioutput
    if sample_weight is not None:
        kwargs["sample_weight"] = sample_weight
    return kwargs


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(("case", "layout"), PARAMS)
def test_batch_matches_individual(backend, rng, case, layout, weighted):
    name, options, domain, _ = case
    shape, multioutput = _layout_args(rng, case, layout)
    y_true, y_preds = _targets(rng, domain, shape, k=K)
    sw = rng.uniform(0.5, 2, N) if weighted and name != "max_error" else None
    metric = getattr(reg, name)
    got = BATCH_KERNELS[metric](
        backend.asarray(y_true),
        backend.asarray(y_preds),
        **_kernel_kwargs(case, multioutput, _on(backend, sw)),
    )
    raw = isinstance(multioutput, str) and multioutput == "raw_values"
    n_outputs = shape[1] if len(shape) == 2 else 1
    backend.assert_family(got, dtype=np.float64, shape=(K, n_outputs) if raw else (K,))
    if backend.name == "numpy-cpu":
        assert type(got) is np.ndarray
    individual = [
        metric(
            backend.asarray(y_true),
            backend.asarray(y_pred),
            **_kwargs(options, multioutput, _on(backend, sw)),
        )
        for y_pred in y_preds
    ]
    individual = np.stack([np.atleast_1d(backend.to_numpy(s)) for s in individual])
    np.testing.assert_allclose(
        np.atleast_2d(backend.to_numpy(got).T).T, individual, rtol=1e-12, atol=1e-15
    )


def test_batch_kernels_cover_every_metric():
    assert {f.__name__ for f in BATCH_KERNELS} == set(PUBLIC)
    for metric, kernel in BATCH_KERNELS.items():
        assert metric is getattr(reg, metric.__name__)
        assert kernel.__name__ == f"_{metric.__name__}_batch"


def test_batch_accepts_1d_and_column_targets(rng):
    y_true = rng.normal(size=N)
    y_preds = y_true + rng.normal(size=(K, N))
    expected = reg._mean_squared_error_batch(y_true, y_preds)
    for y, preds in [(y_true[:, None], y_preds), (y_true, y_preds[:, :, None])]:
        np.testing.assert_array_equal(reg._mean_squared_error_batch(y, preds), expected)
    # Unvalidated host inputs (lists, integers) are taken as floats.
    np.testing.assert_allclose(
        reg._mean_absolute_percentage_error_batch(
            [1, 0, 2], [[1, 1, 2], [2, 0, 2]], sample_weight=[1, 1, 2]
        ),
        [
            skm.mean_absolute_percentage_error([1, 0, 2], p, sample_weight=[1, 1, 2])
            for p in ([1, 1, 2], [2, 0, 2])
        ],
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="does not stack predictions"):
        reg._mean_squared_error_batch(y_true, y_preds[:, :-1])
    with pytest.raises(TypeError, match="max_error does not support sample_weight"):
        reg._max_error_batch(y_true, y_preds, sample_weight=np.ones(N))


def test_batch_checks_every_candidate_domain(rng):
    y_true = rng.uniform(0.1, 2, N)
    y_preds = rng.uniform(0.1, 2, (K, N))
    y_preds[3, 7] = -1.0
    with pytest.raises(ValueError, match="Mean Squared Logarithmic Error cannot"):
        reg._mean_squared_log_error_batch(y_true, y_preds)
    with pytest.raises(ValueError, match="power=1 can only be used on non-negative"):
        reg._mean_poisson_deviance_batch(y_true, y_preds)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name",
    [
        "r2_score",
        "explained_variance_score",
        "mean_squared_error",
        "mean_absolute_error",
        "median_absolute_error",
        "mean_absolute_percentage_error",
        "mean_pinball_loss",
        "d2_pinball_score",
    ],
)
def test_raw_values_keep_dtype(backend, rng, name, dtype):
    y_true = rng.normal(size=(N, N_OUTPUTS)).astype(dtype)
    y_pred = (y_true + rng.normal(size=(N, N_OUTPUTS))).astype(dtype)
    sw = rng.uniform(0.5, 2, N).astype(dtype)
    expected = _sklearn(
        name, y_true, y_pred, sample_weight=sw, multioutput="raw_values"
    )
    got = getattr(reg, name)(
        backend.asarray(y_true),
        backend.asarray(y_pred),
        sample_weight=backend.asarray(sw),
        multioutput="raw_values",
    )
    backend.assert_family(got, dtype=expected.dtype, shape=(N_OUTPUTS,))
    # float32 sums in another order (the GPU's) move near-zero scores such as
    # R² = 1 - num/den by a few float32 ulps of the terms, hence an atol.
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-10, 0)
    np.testing.assert_allclose(backend.to_numpy(got), expected, rtol=rtol, atol=atol)


def test_mixed_dtypes_follow_sklearn():
    y32 = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    y64 = [1.5, 2.0, 3.0]
    for name in ("mean_squared_error", "median_absolute_error"):
        for weights in (None, [1.0, 2.0, 1.0], np.array([1.0, 2.0, 1.0])):
            expected = skm.__dict__[name](
                y32, y64, sample_weight=weights, multioutput="raw_values"
            )
            got = getattr(reg, name)(
                y32, y64, sample_weight=weights, multioutput="raw_values"
            )
            assert got.dtype == expected.dtype, (name, weights)
            np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_integer_and_list_inputs():
    y_true, y_pred = [3, -1, 2, 7], [2, 0, 2, 8]
    for name in PUBLIC:
        if name in ("mean_squared_log_error", "root_mean_squared_log_error"):
            args = ([3, 0, 2, 7], [2, 1, 2, 8])
        elif "tweedie" in name or name in ("mean_poisson_deviance",):
            args = ([3, 1, 2, 7], [2, 1, 2, 8])
        elif name == "mean_gamma_deviance":
            args = ([3, 1, 2, 7], [2, 1, 2, 8])
        else:
            args = (y_true, y_pred)
        assert getattr(reg, name)(*args) == pytest.approx(
            getattr(skm, name)(*args), rel=1e-12
        ), name


# ---------------------------------------------------------------- edge cases

FRACTIONS = [
    "r2_score",
    "explained_variance_score",
    "d2_pinball_score",
    "d2_absolute_error_score",
]


@pytest.mark.parametrize("multioutput", VARIANCE)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", FRACTIONS)
def test_constant_targets(backend, rng, name, weighted, multioutput):
    if name.startswith("d2") and multioutput == "variance_weighted":
        pytest.skip("d2 scores have no variance weighting")
    # Output 0 is constant and perfectly predicted, output 1 constant and
    # missed, output 2 ordinary. Zeros keep the constant outputs' variance
    # exactly zero whatever the summation order.
    y_true = rng.normal(size=(N, N_OUTPUTS))
    y_true[:, :2] = 0.0
    y_pred = y_true + rng.normal(size=(N, N_OUTPUTS))
    y_pred[:, 0] = 0.0
    sw = rng.uniform(0.5, 2, N) if weighted else None
    mo = rng.uniform(0.1, 1, N_OUTPUTS) if multioutput == "weights" else multioutput
    finite = [True, False] if name in FRACTIONS[:2] else [None]
    for force_finite in finite:
        options = {} if force_finite is None else {"force_finite": force_finite}
        for columns in (slice(None), slice(0, 2)):  # some or all outputs constant
            if not isinstance(mo, str) and columns != slice(None):
                continue
            args = (y_true[:, columns], y_pred[:, columns])
            expected = _sklearn(
                name, *args, sample_weight=sw, multioutput=mo, **options
            )
            got = getattr(reg, name)(
                *map(backend.asarray, args),
                sample_weight=_on(backend, sw),
                multioutput=mo,
                **options,
            )
            np.testing.assert_allclose(
                backend.to_numpy(got) if multioutput == "raw_values" else got,
                expected,
                rtol=1e-10,
            )


@pytest.mark.parametrize("name", PUBLIC)
def test_perfect_predictions(backend, rng, name):
    y_true = rng.uniform(0.5, 3, N)
    expected = getattr(skm, name)(y_true, y_true)
    got = getattr(reg, name)(backend.asarray(y_true), backend.asarray(y_true))
    assert got == pytest.approx(expected, abs=1e-12)


def test_single_sample_scores_are_undefined(backend):
    y = backend.asarray(np.array([1.5]))
    for name, what in [
        ("r2_score", "R\\^2"),
        ("d2_tweedie_score", "D\\^2"),
        ("d2_pinball_score", "D\\^2"),
        ("d2_absolute_error_score", "D\\^2"),
    ]:
        match = f"{what} score is not well-defined with less than two samples"
        with pytest.warns(UndefinedMetricWarning, match=match):
            assert np.isnan(getattr(reg, name)(y, y))
        with pytest.warns(UndefinedMetricWarning, match=match):
            scores = BATCH_KERNELS[getattr(reg, name)](
                y, backend.asarray(np.ones((K, 1)))
            )
        backend.assert_family(scores, shape=(K,))
        assert np.isnan(backend.to_numpy(scores)).all()
    with pytest.warns(UndefinedMetricWarning):
        raw = reg._r2_score_batch(
            y, backend.asarray(np.ones((K, 1, 2))[:, :, :1]), multioutput="raw_values"
        )
    backend.assert_family(raw, shape=(K, 1))
    # No warning where scikit-learn gives none.
    assert reg.explained_variance_score([1.0], [2.0]) == 1.0


@pytest.mark.parametrize("power", [0, 1, 2, 3])
def test_d2_tweedie_zero_null_deviance(power):
    y_true, y_pred = [2.0, 2.0, 2.0], [1.0, 2.0, 3.0]
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        skm.d2_tweedie_score(y_true, y_pred, power=power)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        reg.d2_tweedie_score(y_true, y_pred, power=power)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        reg._d2_tweedie_score_batch(np.asarray(y_true), np.ones((K, 3)), power=power)


def test_mape_with_zero_targets(backend, rng):
    y_true = rng.normal(size=(N, 2))
    y_true[::4] = 0.0
    y_pred = y_true + rng.normal(size=(N, 2))
    expected = skm.mean_absolute_percentage_error(y_true, y_pred)
    got = reg.mean_absolute_percentage_error(
        backend.asarray(y_true), backend.asarray(y_pred)
    )
    assert got == pytest.approx(expected, rel=1e-10)
    assert got > 1e10


def test_weighted_percentile_matches_sklearn(rng):
    """Ties, zero weights, exact boundaries: small integer data and weights."""
    for trial in range(300):
        n, m = rng.integers(1, 9), rng.integers(1, 3)
        values = rng.integers(0, 4, (n, m)).astype(np.float64)
        weights = rng.integers(0, 3, n).astype(np.float64)
        if trial % 3 == 0:
            weights = rng.uniform(size=n) * (rng.uniform(size=n) > 0.3)
        weights[rng.integers(n)] += 1
        for rank in (0, 10, 25, 50, 75, 90, 100):
            np.testing.assert_array_equal(
                kernels._weighted_percentile(values, weights, rank, np),
                sk_weighted_percentile(values, weights, rank, average=True),
            )


@pytest.mark.parametrize("side", ["left", "right"])
def test_search_rows_is_numpys_searchsorted_on_unsorted_arrays(backend, rng, side):
    """Cumulative weights of both signs are not sorted, where NumPy's answer
    is its algorithm's (which NumPy 2.5 changed): the installed NumPy's,
    column by column, for every length up to 40."""
    for n in range(1, 41):
        cdf = np.cumsum(rng.choice([-1.0, 0.0, 1.0, 2.0], (3, n, 4)), axis=1)
        key = rng.integers(-4, 5, (3, 1, 4)) + rng.choice([0.0, 0.5], (3, 1, 4))
        cdf_in, key_in = backend.asarray(cdf), backend.asarray(key)
        got = kernels._search_rows(cdf_in, key_in, side, namespace_of(cdf_in))
        expected = [
            [np.searchsorted(cdf[b, :, j], key[b, 0, j], side) for j in range(4)]
            for b in range(3)
        ]
        np.testing.assert_array_equal(backend.to_numpy(got)[:, 0], expected)


@pytest.mark.parametrize("alpha", [0.0, 0.25, 0.5, 1.0])
def test_weighted_median_and_quantiles_with_ties(backend, rng, alpha):
    for _ in range(20):
        y_true = rng.integers(0, 5, (12, 2)).astype(np.float64)
        y_pred = rng.integers(0, 5, (12, 2)).astype(np.float64)
        sw = rng.integers(0, 4, 12).astype(np.float64)
        sw[0] = 1.0
        for name, options in [
            ("median_absolute_error", {}),
            ("d2_pinball_score", {"alpha": alpha}),
        ]:
            expected = skm.__dict__[name](
                y_true, y_pred, sample_weight=sw, multioutput="raw_values", **options
            )
            got = getattr(reg, name)(
                backend.asarray(y_true),
                backend.asarray(y_pred),
                sample_weight=backend.asarray(sw),
                multioutput="raw_values",
                **options,
            )
            np.testing.assert_allclose(backend.to_numpy(got), expected, rtol=1e-12)


# -------------------------------------------------------------------- errors

Y2 = [[1.0, 2.0], [1.0, 2.0], [2.0, 3.0]]
P2 = [[1.0, 2.0], [1.0, 3.0], [2.0, 2.5]]
Y1, P1 = [1.0, 2.0, 3.0], [1.5, 2.0, 2.5]

ERROR_CASES = [
    ("mean_squared_error", ([1.0, 2.0], [1.0]), {}),
    ("r2_score", (Y1, P2), {}),
    ("mean_absolute_error", ([[[1.0]]], [[[1.0]]]), {}),
    ("mean_absolute_error", ([], []), {}),
    ("r2_score", (Y1, P1), {"multioutput": "mean"}),
    ("r2_score", (Y2, P2), {"multioutput": None}),
    ("mean_squared_error", (Y2, P2), {"multioutput": "variance_weighted"}),
    ("mean_squared_error", (Y2, P2), {"multioutput": 0.5}),
    ("mean_squared_error", (Y2, P2), {"multioutput": [1.0, 2.0, 3.0]}),
    ("r2_score", (Y2, P2), {"multioutput": [[1.0, 2.0]]}),
    ("mean_pinball_loss", (Y1, P1), {"multioutput": [1.0]}),
    ("d2_pinball_score", (Y2, P2), {"multioutput": [0.0, 0.0]}),
    ("explained_variance_score", (Y2, P2), {"multioutput": [1.0, -1.0]}),
    ("root_mean_squared_error", (Y2, P2), {"multioutput": [1.0, 2.0, 3.0]}),
    ("root_mean_squared_error", (Y2, P2), {"multioutput": [0.0, 0.0]}),
    ("root_mean_squared_log_error", (Y2, P2), {"multioutput": [1.0, 2.0, 3.0]}),
    ("mean_squared_error", (Y1, P1), {"sample_weight": [1.0, -1.0, 0.0]}),
    ("r2_score", (Y1, P1), {"sample_weight": [1.0, 1.0, -2.0]}),
    ("mean_squared_error", (Y1, P1), {"sample_weight": [0.0, 0.0, 0.0]}),
    ("mean_squared_error", (Y1, P1), {"sample_weight": [1.0, 2.0]}),
    ("mean_squared_error", (Y1, P1), {"sample_weight": 2.0}),
    ("mean_squared_error", (Y1, P1), {"sample_weight": [1.0, np.nan, 1.0]}),
    ("r2_score", (Y1, P1), {"force_finite": "yes"}),
    ("mean_squared_log_error", ([-1.0, 2.0], [1.0, 2.0]), {}),
    ("root_mean_squared_log_error", ([1.0, 2.0], [1.0, -2.0]), {}),
    ("mean_pinball_loss", (Y1, P1), {"alpha": 1.5}),
    ("d2_pinball_score", (Y1, P1), {"alpha": -0.1}),
    ("max_error", (Y2, P2), {}),
    ("max_error", (Y1, P1), {"sample_weight": [1.0, 1.0, 1.0]}),
    ("mean_tweedie_deviance", (Y2, P2), {}),
    ("mean_poisson_deviance", (Y2, P2), {}),
    ("mean_gamma_deviance", (Y2, P2), {}),
    ("d2_tweedie_score", (Y2, P2), {"power": 1}),
    *[
        (name, args, {"power": power})
        for name in ("mean_tweedie_deviance", "d2_tweedie_score")
        for power in (0.5, -1, 1, 1.5, 2, 3)
        for args in (([-1.0, 2.0, 3.0], P1), (Y1, [1.0, 0.0, 3.0]))
    ],
    ("mean_poisson_deviance", ([-1.0, 2.0], [1.0, 2.0]), {}),
    ("mean_gamma_deviance", ([0.0, 2.0], [1.0, 2.0]), {}),
]


def _raised(func, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = func(*args, **kwargs)
        except Exception as error:  # the error is the result
            return type(error), str(error)
    return None, result


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    ERROR_CASES,
    ids=[f"{i}-{case[0]}" for i, case in enumerate(ERROR_CASES)],
)
def test_errors_match_sklearn(name, args, kwargs):
    expected = _raised(getattr(skm, name), *args, **kwargs)
    got = _raised(getattr(reg, name), *args, **kwargs)
    if expected[0] is None:  # scikit-learn computes a value: so do we
        assert got[0] is None, got
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
    else:
        assert got == expected


@pytest.mark.parametrize("name", PUBLIC)
def test_non_finite_input_is_named(name):
    # scikit-learn says "Input contains NaN."; gpuml names the input.
    good = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="Input y_true contains NaN"):
        getattr(reg, name)([1.0, np.nan, 2.0], good)
    with pytest.raises(ValueError, match="Input y_pred contains NaN"):
        getattr(reg, name)(good, [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="Input y_true contains infinity"):
        getattr(reg, name)([1.0, np.inf, 2.0], good)
