"""Regression metrics computed where the data lives.

Each public function validates its inputs into one namespace (CuPy when any
input is on the device, else NumPy), calls a kernel that returns a 0-d array
(or a 1-d one for ``multioutput="raw_values"``) in that namespace, and converts
to a Python float once, at the boundary.
"""

from __future__ import annotations

import numbers
import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_consistent_length

from gpuml._array import input_namespace, to_float
from gpuml._validation import FLOAT_DTYPES, check_array, check_sample_weight

_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def _check_reg_targets(y_true, y_pred, sample_weight, multioutput, xp):
    """Validate regression targets into ``xp`` as 2-D float arrays."""
    check_consistent_length(y_true, y_pred, sample_weight)
    y_true = check_array(
        y_true, xp=xp, ensure_2d=False, dtype=FLOAT_DTYPES, input_name="y_true"
    )
    y_pred = check_array(
        y_pred, xp=xp, ensure_2d=False, dtype=FLOAT_DTYPES, input_name="y_pred"
    )
    if y_true.ndim == 1:
        y_true = y_true.reshape(-1, 1)
    if y_pred.ndim == 1:
        y_pred = y_pred.reshape(-1, 1)
    if y_true.shape[1] != y_pred.shape[1]:
        raise ValueError(
            "y_true and y_pred have different number of output "
            f"({y_true.shape[1]}!={y_pred.shape[1]})"
        )
    dtype = xp.result_type(y_true.dtype, y_pred.dtype)
    if sample_weight is not None:
        sample_weight = check_sample_weight(
            sample_weight, y_true.shape[0], xp=xp, dtype=dtype
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
            multioutput,
            xp=xp,
            ensure_2d=False,
            dtype=FLOAT_DTYPES,
            input_name="multioutput",
        )
        if n_outputs == 1:
            raise ValueError("Custom weights are useful only in multi-output cases.")
        if multioutput.shape[0] != n_outputs:
            raise ValueError(
                "There must be equally many custom weights "
                f"({multioutput.shape[0]}) as outputs ({n_outputs})."
            )
    return y_true, y_pred, sample_weight, multioutput


def _weighted_mean(values, weights, xp: ModuleType):
    if weights is None:
        return values.mean(axis=0)
    return (weights[:, None] * values).sum(axis=0) / weights.sum()


def _explained_fraction(
    numerator, denominator, multioutput, force_finite, xp: ModuleType
):
    """1 - numerator/denominator per output, then averaged as asked."""
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
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return scores
        if multioutput == "uniform_average":
            return scores.mean()
        # variance_weighted; all-constant targets fall back to uniform weights.
        total = denominator.sum()
        return xp.where(
            total != 0,
            (scores * denominator).sum() / xp.where(total != 0, total, 1),
            scores.mean(),
        )
    return (scores * multioutput).sum() / multioutput.sum()


def _r2(y_true, y_pred, sample_weight, multioutput, force_finite, xp: ModuleType):
    """R² kernel on validated 2-D arrays: a 0-d (or 1-d raw) array in ``xp``."""
    weight = 1.0 if sample_weight is None else sample_weight[:, None]
    numerator = (weight * (y_true - y_pred) ** 2).sum(axis=0)
    centred = y_true - _weighted_mean(y_true, sample_weight, xp)
    denominator = (weight * centred**2).sum(axis=0)
    return _explained_fraction(numerator, denominator, multioutput, force_finite, xp)


def _to_output(result):
    """A 0-d array becomes a float; raw per-output scores stay an array."""
    if getattr(result, "ndim", 0) == 0:
        return to_float(result)
    return result


def r2_score(
    y_true,
    y_pred,
    *,
    sample_weight=None,
    multioutput="uniform_average",
    force_finite=True,
):
    """:math:`R^2` (coefficient of determination), like scikit-learn's.

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or \
            array-like of shape (n_outputs,), default="uniform_average"
        How to aggregate the scores of several outputs.
    force_finite : bool, default=True
        Replace the NaN / -inf of constant targets by 1.0 (perfect prediction)
        or 0.0 (imperfect), as scikit-learn does.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        A float, or per-output scores (NumPy or CuPy, like the inputs) for
        ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import r2_score
    >>> r2_score([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    0.948...
    """
    xp = input_namespace(y_true, y_pred, sample_weight)
    if isinstance(multioutput, numbers.Number):
        multioutput = np.asarray([multioutput])
    y_true, y_pred, sample_weight, multioutput = _check_reg_targets(
        y_true, y_pred, sample_weight, multioutput, xp
    )
    if y_pred.shape[0] < 2:
        warnings.warn(
            "R^2 score is not well-defined with less than two samples.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return _to_output(_r2(y_true, y_pred, sample_weight, multioutput, force_finite, xp))
