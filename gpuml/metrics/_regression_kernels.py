"""Regression metric kernels: validation helpers and batched computations.

Split from ``_regression.py`` (the public functions and their docstrings).
Every ``_<metric>_batch`` takes ``y_preds`` with a leading candidate axis and
returns an array of the inputs' namespace; see ``gpuml/metrics/_base.py``.
"""

from __future__ import annotations

import warnings
from numbers import Real
from types import ModuleType

import numpy as np
from numpy.lib import NumpyVersion
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_consistent_length

from gpuml._array import DEVICE, as_device_native, input_family, to_namespace
from gpuml._sklearn_compat import Interval, StrOptions
from gpuml._validation import check_array, check_sample_weight
from gpuml.metrics._base import host_as_numbers, metric_namespace, to_score
from gpuml.metrics._fused import r2_batch

_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")
_QUIET = {"divide": "ignore", "invalid": "ignore"}

_Y = {"y_true": ["array-like"], "y_pred": ["array-like"]}
_SW = {"sample_weight": ["array-like", None]}
_ALPHA = {"alpha": [Interval(Real, 0, 1, closed="both")]}
_POWER = {
    "power": [
        Interval(Real, None, 0, closed="right"),
        Interval(Real, 1, None, closed="left"),
    ]
}
_AVERAGES = [StrOptions({"raw_values", "uniform_average"}), "array-like"]
_VARIANCE = {
    "multioutput": [StrOptions(set(_MULTIOUTPUT)), "array-like"],
    "force_finite": ["boolean"],
}
# scikit-learn's parameter constraints, function by function.
_LOSS_PARAMS = {**_Y, **_SW, "multioutput": _AVERAGES}
_PINBALL_PARAMS = {**_Y, **_SW, **_ALPHA, "multioutput": _AVERAGES}
_TWEEDIE_PARAMS = {**_Y, **_SW, **_POWER}
_DEVIANCE_PARAMS = {**_Y, **_SW}
_EV_PARAMS = {**_Y, **_SW, **_VARIANCE}
_R2_PARAMS = {**_EV_PARAMS, "multioutput": [*_VARIANCE["multioutput"], None]}


# --------------------------------------------------------------------------
# Validation (public functions)
# --------------------------------------------------------------------------


def _dtype_of(array) -> np.dtype | None:
    """The NumPy dtype of an array-like with a ``dtype`` (torch and pandas too)."""
    dtype = getattr(array, "dtype", None)
    if dtype is None:
        return None
    dtype = getattr(dtype, "numpy_dtype", dtype)  # pandas extension dtypes
    for candidate in (dtype, str(dtype).rpartition(".")[2]):  # torch.float32
        try:
            return np.dtype(candidate)
        except TypeError:
            continue
    return None


def _floating_dtype(*arrays) -> np.dtype:
    """scikit-learn's ``_find_matching_floating_dtype``: the widest float input."""
    dtypes = [_dtype_of(a) for a in arrays if a is not None]
    floats = [d for d in dtypes if d is not None and d.kind == "f"]
    return np.result_type(*floats) if floats else np.dtype(np.float64)


def _check_reg_targets(
    y_true,
    y_pred,
    sample_weight,
    multioutput,
    xp: ModuleType,
    *,
    numeric: bool = False,
    normalized: bool = True,
):
    """Validate regression targets into ``xp`` as 2-D arrays, like scikit-learn.

    ``numeric=True`` keeps each target's own floating dtype (scikit-learn's
    ``dtype="numeric"``, used by ``median_absolute_error``); otherwise both
    are converted to the widest floating dtype of the inputs. Custom output
    weights come back as a NumPy array (they are few, and averaging needs
    their sum on the host). ``normalized`` metrics divide by the weights'
    sum and raise NumPy's ZeroDivisionError when it is zero.
    """
    check_consistent_length(y_true, y_pred, sample_weight)
    dtype = "numeric" if numeric else _floating_dtype(y_true, y_pred, sample_weight)
    y_true = check_array(
        y_true, xp=xp, ensure_2d=False, dtype=dtype, input_name="y_true"
    )
    y_pred = check_array(
        y_pred, xp=xp, ensure_2d=False, dtype=dtype, input_name="y_pred"
    )
    if numeric:
        y_true, y_pred = (
            y if y.dtype.kind == "f" else y.astype(np.float64) for y in (y_true, y_pred)
        )
    if sample_weight is not None:
        sample_weight = check_sample_weight(
            sample_weight,
            y_true.shape[0],
            xp=xp,
            dtype=np.float64 if numeric else dtype,
        )
    y_true = y_true.reshape(-1, 1) if y_true.ndim == 1 else y_true
    y_pred = y_pred.reshape(-1, 1) if y_pred.ndim == 1 else y_pred
    if y_true.shape[1] != y_pred.shape[1]:
        raise ValueError(
            "y_true and y_pred have different number of output "
            f"({y_true.shape[1]}!={y_pred.shape[1]})"
        )
    n_outputs = y_true.shape[1]
    if isinstance(multioutput, str):
        if multioutput not in _MULTIOUTPUT:
            raise ValueError(
                f"Allowed 'multioutput' string values are {_MULTIOUTPUT}. "
                f"You provided multioutput={multioutput!r}"
            )
    elif multioutput is not None:
        multioutput = check_array(
            multioutput, xp=np, ensure_2d=False, input_name="multioutput"
        )
        if n_outputs == 1:
            raise ValueError("Custom weights are useful only in multi-output cases.")
        if multioutput.shape[0] != n_outputs:
            raise ValueError(
                "There must be equally many custom weights "
                f"({multioutput.shape[0]}) as outputs ({n_outputs})."
            )
    if normalized and sample_weight is not None:
        if not bool(sample_weight.sum() != 0):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return y_true, y_pred, sample_weight, multioutput


def _validate(y_true, y_pred, sample_weight, multioutput, **options):
    xp = metric_namespace(y_true, y_pred, sample_weight)
    return _check_reg_targets(y_true, y_pred, sample_weight, multioutput, xp, **options)


def _single_output(y_true, name: str) -> None:
    if y_true.shape[1] > 1:
        raise ValueError(f"Multioutput not supported in {name}")


def _finish(scores, multioutput, dtype=None):
    """The public result of a batch of one: per-output array or float.

    Kernels compute in float64; per-output arrays come back in ``dtype``
    (the inputs' float dtype), as scikit-learn returns them.
    """
    scores = scores[0]
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return scores if dtype is None else scores.astype(dtype, copy=False)
    return to_score(scores)


# --------------------------------------------------------------------------
# Kernel helpers (candidate axis first, samples on axis -2, outputs last)
# --------------------------------------------------------------------------


def _as_float_array(array, xp: ModuleType):
    """Any host or device array-like as a floating array of ``xp``.

    Kernels may be handed unvalidated targets by a scorer; arrays already in
    ``xp`` with a floating dtype pass through without a copy.
    """
    if input_family(array) == DEVICE:
        array = as_device_native(array)
    elif not isinstance(array, np.ndarray):
        array = np.asarray(array)  # lists, pandas
    array = to_namespace(host_as_numbers(array, xp), xp)
    return array if array.dtype.kind == "f" else array.astype(np.float64)


def _as_float64(values, xp: ModuleType):
    return _as_float_array(values, xp).astype(xp.float64, copy=False)


def _batch_inputs(y_true, y_preds, sample_weight):
    """``(xp, y_true (n, m), y_preds (k, n, m), sample_weight (n,) or None)``.

    Everything is converted to float64: the batch reductions run along the
    samples axis of a (k, n, m) stack, where NumPy adds float32 values one
    by one (not pairwise), which would cost R² digits at ~1e-5.
    """
    xp = metric_namespace(y_true, y_preds, sample_weight)
    y_true, y_preds = _as_float64(y_true, xp), _as_float64(y_preds, xp)
    if sample_weight is not None:
        sample_weight = _as_float64(sample_weight, xp)
    if y_true.ndim == 1:
        y_true = y_true.reshape(-1, 1)
    if y_preds.ndim == 2:
        y_preds = y_preds.reshape(*y_preds.shape, 1)
    if y_preds.ndim != 3 or y_preds.shape[1:] != y_true.shape:
        raise ValueError(
            f"y_preds of shape {tuple(y_preds.shape)} does not stack predictions "
            f"for y_true of shape {tuple(y_true.shape)}: expected (k, n_samples) "
            "or (k, n_samples, n_outputs)."
        )
    return xp, y_true, y_preds, sample_weight


def _mean(values, weights, axis: int):
    """``np.average(values, axis=axis, weights=weights)`` in any namespace."""
    if weights is None:
        return values.mean(axis=axis)
    shape = [1] * values.ndim
    shape[axis] = weights.shape[0]
    return (values * weights.reshape(shape)).sum(axis=axis) / weights.sum()


def _average_outputs(scores, multioutput, xp: ModuleType):
    """Average per-output scores ``(k, m)`` as ``multioutput`` asks."""
    if multioutput is None:
        return scores.mean(axis=-1)
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return scores
        if multioutput == "uniform_average":
            return scores.mean(axis=-1)
        raise ValueError(
            f"Allowed 'multioutput' string values are {_MULTIOUTPUT[:2]}. "
            f"You provided multioutput={multioutput!r}"
        )
    weights = np.asarray(to_namespace(multioutput, np))
    if weights.shape != scores.shape[-1:]:  # NumPy's np.average errors
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if weights.sum() == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    weights = xp.asarray(weights)
    return (scores * weights).sum(axis=-1) / weights.sum()


def _explained_fraction(numerator, denominator, multioutput, force_finite, xp):
    """``1 - numerator / denominator`` per output, then averaged.

    scikit-learn's ``_assemble_fraction_of_explained_deviance`` for a batch:
    ``numerator`` is ``(k, m)``, ``denominator`` ``(m,)``. With
    ``force_finite``, a zero denominator gives 1.0 (perfect predictions) or
    0.0 instead of NaN / -inf.
    """
    with np.errstate(**_QUIET):
        nonzero_denominator = denominator != 0
        if not force_finite:
            scores = 1 - numerator / denominator
        else:
            nonzero_numerator = numerator != 0
            valid = nonzero_denominator & nonzero_numerator
            safe = xp.where(valid, denominator, 1)
            scores = xp.where(valid, 1 - numerator / safe, 1.0)
            scores = xp.where(nonzero_numerator & ~nonzero_denominator, 0.0, scores)
            scores = scores.astype(numerator.dtype, copy=False)
        if isinstance(multioutput, str) and multioutput == "variance_weighted":
            # All-constant targets have no variance to weight by: uniform.
            total = denominator.sum()
            nonzero = total != 0
            weighted = (scores * denominator).sum(axis=-1) / xp.where(nonzero, total, 1)
            return xp.where(nonzero, weighted, scores.mean(axis=-1))
        return _average_outputs(scores, multioutput, xp)


def _nan_scores(y_preds, multioutput, xp: ModuleType):
    k, _, n_outputs = y_preds.shape
    raw = isinstance(multioutput, str) and multioutput == "raw_values"
    return xp.full((k, n_outputs) if raw else (k,), xp.nan, dtype=y_preds.dtype)


def _warn_few_samples(what: str, n_samples: int, stacklevel: int = 3) -> bool:
    """scikit-learn's warning for R² / D² with fewer than two samples."""
    if n_samples >= 2:
        return False
    warnings.warn(
        f"{what} score is not well-defined with less than two samples.",
        UndefinedMetricWarning,
        stacklevel=stacklevel,
    )
    return True


# NumPy 2.5 rewrote searchsorted's binary search (numpy/numpy#30517): the same
# answers on sorted arrays, other ones on unsorted arrays.
_NUMPY_HALVING_SEARCH = NumpyVersion(np.__version__) >= "2.5.0.dev0"


def _search_rows(cdf, key, side: str, xp: ModuleType):
    """NumPy's ``searchsorted(cdf[:, j], key[j], side)`` for every column
    ``j`` along axis -2 at once (``key`` of shape (..., 1, m)): the binary
    search of the installed NumPy, step for step, so that its answer is
    NumPy's also where ``cdf`` is not sorted (cumulative weights of both
    signs): before 2.5 a ``[low, high)`` bisection, from 2.5 a base that
    moves by a halving length (the same steps for every key)."""
    n = cdf.shape[-2]

    def before(index):  # the search's comparison of cdf[index] with key
        value = xp.take_along_axis(cdf, index, axis=-2)
        return (value <= key) if side == "right" else (value < key)

    if _NUMPY_HALVING_SEARCH:
        base = xp.zeros(key.shape, dtype=xp.int64)
        length = n
        while length > 1:
            half = length >> 1
            length -= half
            base = base + before(base + half).astype(xp.int64) * half
        return base + before(base).astype(xp.int64)
    low = xp.zeros(key.shape, dtype=xp.int64)
    high = xp.full(key.shape, n, dtype=xp.int64)
    for _ in range(n.bit_length()):
        searching = low < high
        middle = low + ((high - low) >> 1)
        right = before(xp.minimum(middle, n - 1))
        low = xp.where(searching & right, middle + 1, low)
        high = xp.where(searching & ~right, middle, high)
    return low


def _weighted_percentile(values, weights, percentile_rank, xp: ModuleType):
    """scikit-learn's ``_weighted_percentile(..., average=True)`` along axis -2.

    ``values`` is ``(..., n, m)`` and ``weights`` ``(n,)``; returns ``(...,
    m)``. This is the "averaged_inverted_cdf" of the weighted sample: the
    first sorted value whose cumulative weight reaches ``percentile_rank``
    percent of the total, averaged with the next value of positive weight
    when it is reached exactly (within machine epsilon). scikit-learn
    searches each column with ``searchsorted``; here the same binary search
    runs for all columns and candidates at once (:func:`_search_rows`), so
    negative weights, whose cumulative sums are not sorted, give NumPy's
    answer too (on the CPU, where the sort's order of tied values is
    NumPy's as well).
    """
    if values.dtype.kind != "f":
        values = values.astype(np.float64)
    dtype = values.dtype
    n_samples = values.shape[-2]
    order = xp.argsort(values, axis=-2)
    sorted_values = xp.take_along_axis(values, order, axis=-2)
    sorted_weights = weights.astype(dtype, copy=False)[order]
    cdf = xp.cumsum(sorted_weights, axis=-2)
    rank = xp.asarray(percentile_rank, dtype=dtype) / 100 * cdf[..., -1:, :]
    # A rank of 0 skips leading zero-weight samples (scikit-learn #20528).
    rank = xp.where(rank == 0, xp.nextafter(rank, rank + 1), rank)
    max_index = n_samples - 1
    index = xp.clip(_search_rows(cdf, rank, "left", xp), 0, max_index)
    cdf_at = xp.take_along_axis(cdf, index, axis=-2)
    above = (cdf_at - rank) > np.finfo(dtype).eps
    following = xp.clip(index + 1, 0, max_index)
    # After a zero weight, average with the next sample that adds weight.
    next_positive = _search_rows(cdf, cdf_at, "right", xp)
    next_positive = xp.where(next_positive > max_index, index, next_positive)
    zero_next = xp.take_along_axis(sorted_weights, following, axis=-2) == 0
    following = xp.where(zero_next, next_positive, following)
    low = xp.take_along_axis(sorted_values, index, axis=-2)
    high = xp.take_along_axis(sorted_values, following, axis=-2)
    return xp.where(above, low, (low + high) / 2)[..., 0, :]


def _pinball(diff, alpha):
    """Pinball loss of residuals ``y_true - y_pred`` (scikit-learn's formula)."""
    sign = (diff >= 0).astype(diff.dtype)
    return alpha * sign * diff - (1 - alpha) * (1 - sign) * diff


def _xlogy(x, y, xp: ModuleType):
    with np.errstate(**_QUIET):
        product = x * xp.log(y)
    return xp.where(x == 0, xp.zeros((), dtype=product.dtype), product)


def _tweedie_deviance(y_true, y_pred, power, xp: ModuleType):
    """Unit Tweedie deviance, element-wise (scikit-learn's formulas)."""
    p = power
    with np.errstate(**_QUIET):
        if p < 0:  # extreme stable: y any real number, y_pred > 0
            return 2 * (
                xp.power(xp.maximum(y_true, 0), 2 - p) / ((1 - p) * (2 - p))
                - y_true * xp.power(y_pred, 1 - p) / (1 - p)
                + xp.power(y_pred, 2 - p) / (2 - p)
            )
        if p == 0:
            return (y_true - y_pred) ** 2
        if p == 1:
            return 2 * (_xlogy(y_true, y_true / y_pred, xp) - y_true + y_pred)
        if p == 2:
            return 2 * (xp.log(y_pred / y_true) + y_true / y_pred - 1)
        return 2 * (
            xp.power(y_true, 2 - p) / ((1 - p) * (2 - p))
            - y_true * xp.power(y_pred, 1 - p) / (1 - p)
            + xp.power(y_pred, 2 - p) / (2 - p)
        )


def _check_tweedie_domain(y_true, y_preds, power) -> None:
    message = f"Mean Tweedie deviance error with power={power} can only be used on "
    if power < 0:
        if bool((y_preds <= 0).any()):
            raise ValueError(message + "strictly positive y_pred.")
    elif power == 0:
        return
    elif 1 <= power < 2:
        if bool((y_true < 0).any() | (y_preds <= 0).any()):
            raise ValueError(message + "non-negative y and strictly positive y_pred.")
    elif power >= 2:
        if bool((y_true <= 0).any() | (y_preds <= 0).any()):
            raise ValueError(message + "strictly positive y and y_pred.")
    else:
        raise ValueError(
            f"Tweedie power must be <= 0 or >= 1, got power={power!r} instead."
        )


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def _mean_absolute_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    errors = _mean(xp.abs(y_preds - y_true), sample_weight, axis=-2)
    return _average_outputs(errors, multioutput, xp)


def _mean_squared_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    errors = _mean((y_true - y_preds) ** 2, sample_weight, axis=-2)
    return _average_outputs(errors, multioutput, xp)


def _root_mean_squared_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    errors = xp.sqrt(_mean((y_true - y_preds) ** 2, sample_weight, axis=-2))
    return _average_outputs(errors, multioutput, xp)


def _log1p_targets(y_true, y_preds, name: str, xp: ModuleType):
    if bool((y_true <= -1).any() | (y_preds <= -1).any()):
        raise ValueError(
            f"{name} cannot be used when targets contain values less than or "
            "equal to -1."
        )
    return xp.log1p(y_true), xp.log1p(y_preds)


def _mean_squared_log_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    y_true, y_preds = _log1p_targets(
        y_true, y_preds, "Mean Squared Logarithmic Error", xp
    )
    return _mean_squared_error_batch(
        y_true, y_preds, sample_weight=sample_weight, multioutput=multioutput
    )


def _root_mean_squared_log_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    y_true, y_preds = _log1p_targets(
        y_true, y_preds, "Root Mean Squared Logarithmic Error", xp
    )
    return _root_mean_squared_error_batch(
        y_true, y_preds, sample_weight=sample_weight, multioutput=multioutput
    )


def _mean_absolute_percentage_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    epsilon = xp.asarray(np.finfo(np.float64).eps, dtype=y_true.dtype)
    ratios = xp.abs(y_preds - y_true) / xp.maximum(xp.abs(y_true), epsilon)
    return _average_outputs(_mean(ratios, sample_weight, axis=-2), multioutput, xp)


def _median_absolute_error_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    errors = xp.abs(y_preds - y_true)
    if sample_weight is None:
        errors = xp.median(errors, axis=-2)
    else:
        errors = _weighted_percentile(errors, sample_weight, 50, xp)
    return _average_outputs(errors, multioutput, xp)


def _max_error_batch(y_true, y_preds, *, sample_weight=None):
    if sample_weight is not None:
        raise TypeError("max_error does not support sample_weight.")
    xp, y_true, y_preds, _ = _batch_inputs(y_true, y_preds, None)
    _single_output(y_true, "max_error")
    return xp.abs(y_true - y_preds).max(axis=-2)[:, 0]


def _mean_pinball_loss_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    alpha=0.5,
    multioutput="uniform_average",
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    losses = _mean(_pinball(y_true - y_preds, alpha), sample_weight, axis=-2)
    return _average_outputs(losses, multioutput, xp)


def _mean_tweedie_deviance_batch(y_true, y_preds, *, sample_weight=None, power=0):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    _single_output(y_true, "mean_tweedie_deviance")
    _check_tweedie_domain(y_true, y_preds, power)
    deviance = _tweedie_deviance(y_true, y_preds, power, xp)
    return _mean(deviance, sample_weight, axis=-2)[:, 0]


def _mean_poisson_deviance_batch(y_true, y_preds, *, sample_weight=None):
    return _mean_tweedie_deviance_batch(
        y_true, y_preds, sample_weight=sample_weight, power=1
    )


def _mean_gamma_deviance_batch(y_true, y_preds, *, sample_weight=None):
    return _mean_tweedie_deviance_batch(
        y_true, y_preds, sample_weight=sample_weight, power=2
    )


def _r2_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    multioutput="uniform_average",
    force_finite=True,
):
    fused = r2_batch(y_true, y_preds, sample_weight, multioutput, force_finite)
    if fused is not None:
        return fused
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    if _warn_few_samples("R^2", y_true.shape[0]):
        return _nan_scores(y_preds, multioutput, xp)
    weight = 1.0 if sample_weight is None else sample_weight[:, None]
    numerator = (weight * (y_true - y_preds) ** 2).sum(axis=-2)
    centred = y_true - _mean(y_true, sample_weight, axis=0)
    denominator = (weight * centred**2).sum(axis=0)
    return _explained_fraction(numerator, denominator, multioutput, force_finite, xp)


def _explained_variance_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    multioutput="uniform_average",
    force_finite=True,
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    residuals = y_true - y_preds
    mean_residual = _mean(residuals, sample_weight, axis=-2)
    numerator = _mean(
        (residuals - mean_residual[:, None, :]) ** 2, sample_weight, axis=-2
    )
    centred = y_true - _mean(y_true, sample_weight, axis=0)
    denominator = _mean(centred**2, sample_weight, axis=0)
    return _explained_fraction(numerator, denominator, multioutput, force_finite, xp)


def _d2_tweedie_score_batch(y_true, y_preds, *, sample_weight=None, power=0):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    _single_output(y_true, "d2_tweedie_score")
    if _warn_few_samples("D^2", y_true.shape[0]):
        return _nan_scores(y_preds, "uniform_average", xp)
    numerator = _mean_tweedie_deviance_batch(
        y_true, y_preds, sample_weight=sample_weight, power=power
    )
    y_true = y_true[:, 0]
    y_mean = _mean(y_true, sample_weight, axis=0)
    deviance = _tweedie_deviance(y_true, y_mean, power, xp)
    denominator = _mean(deviance, sample_weight, axis=0)
    if bool(denominator == 0):  # scikit-learn divides Python floats
        raise ZeroDivisionError("float division by zero")
    return 1 - numerator / denominator


def _d2_pinball_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    alpha=0.5,
    multioutput="uniform_average",
):
    xp, y_true, y_preds, sample_weight = _batch_inputs(y_true, y_preds, sample_weight)
    if _warn_few_samples("D^2", y_true.shape[0]):
        return _nan_scores(y_preds, multioutput, xp)
    numerator = _mean(_pinball(y_true - y_preds, alpha), sample_weight, axis=-2)
    if sample_weight is None:
        sample_weight = xp.ones(y_true.shape[0], dtype=y_true.dtype)
    quantile = _weighted_percentile(y_true, sample_weight, alpha * 100, xp)
    denominator = _mean(_pinball(y_true - quantile, alpha), sample_weight, axis=0)
    return _explained_fraction(numerator, denominator, multioutput, True, xp)


def _d2_absolute_error_score_batch(
    y_true, y_preds, *, sample_weight=None, multioutput="uniform_average"
):
    return _d2_pinball_score_batch(
        y_true, y_preds, sample_weight=sample_weight, alpha=0.5, multioutput=multioutput
    )
