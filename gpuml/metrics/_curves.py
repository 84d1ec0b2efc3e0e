"""ROC and precision-recall curves (one ranking each, variable length).

Split from ``_ranking.py``, whose batched binary machinery they reuse.
"""

from __future__ import annotations

import warnings
from numbers import Real
from types import ModuleType

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_consistent_length

from gpuml._array import namespace_of
from gpuml._sklearn_compat import validate_params
from gpuml.metrics._base import (
    as_array,
    check_weights,
    host_labels,
    metric_namespace,
    type_of_target,
)
from gpuml.metrics._ranking import (
    _COUNT_DTYPE,
    _as_labels_1d,
    _check_pos_label_type,
    _column_or_1d_shape_error,
    _reject_text_scores,
    _to_xp_bool,
    _validate_y_true,
)

# --------------------------------------------------------------------------
# Curves (one ranking, variable length: not batched)
# --------------------------------------------------------------------------


def _pos_label_or_default(pos_label, y_true, yxp: ModuleType):
    """scikit-learn's ``_check_pos_label_consistency``."""
    if pos_label is not None:
        return pos_label
    classes = host_labels(yxp.unique(y_true))
    if classes.dtype.kind in "OUS" or tuple(classes.tolist()) not in {
        (0, 1),
        (-1, 1),
        (0,),
        (-1,),
        (1,),
    }:
        shown = ", ".join(repr(c) for c in classes.tolist())
        raise ValueError(
            f"y_true takes value in {{{shown}}} and pos_label is not specified: "
            "either make y_true take value in {0, 1} or {-1, 1} or pass "
            "pos_label explicitly."
        )
    return 1


def _curve_counts(y_true, y_score, pos_label, sample_weight, func: str):
    """scikit-learn's ``confusion_matrix_at_thresholds``: (fps, tps, thresholds, xp)."""
    _check_pos_label_type(pos_label, func, allow_none=True)
    _reject_text_scores(y_score)
    xp = metric_namespace(y_true, y_score, sample_weight)
    y_true = _validate_y_true(y_true, xp)
    yxp = namespace_of(y_true)
    y_type = type_of_target(y_true, yxp, input_name="y_true")
    if not (y_type == "binary" or (y_type == "multiclass" and pos_label is not None)):
        raise ValueError(f"{y_type} format is not supported")
    pos_label = _pos_label_or_default(pos_label, y_true, yxp)
    check_consistent_length(y_true, y_score, sample_weight)
    y_true = _as_labels_1d(y_true)
    if y_true.ndim != 1:
        raise _column_or_1d_shape_error(tuple(y_true.shape))
    if yxp is not np and isinstance(pos_label, str):
        positive = xp.zeros(y_true.shape[0], dtype=bool)
    else:
        positive = _to_xp_bool(y_true == pos_label, xp)
    y_score = as_array(y_score, xp, input_name="y_score")
    y_score = _as_labels_1d(y_score)
    if y_score.ndim != 1:
        raise _column_or_1d_shape_error(tuple(y_score.shape))
    weight = check_weights(sample_weight, y_true.shape[0], xp)
    if weight is not None:  # zero-weighted samples set no threshold
        keep = xp.nonzero(weight != 0)[0]
        positive, y_score, weight = positive[keep], y_score[keep], weight[keep]
    order = xp.flip(xp.argsort(y_score))
    y_score, positive = y_score[order], positive[order]
    ends = xp.nonzero(y_score[1:] != y_score[:-1])[0]
    ends = xp.concatenate([ends, xp.asarray([y_score.shape[0] - 1])])
    pos = positive.astype(_COUNT_DTYPE)
    if weight is None:
        tps = xp.cumsum(pos)[ends]
        fps = 1 + ends.astype(_COUNT_DTYPE) - tps
    else:
        weight = weight[order].astype(_COUNT_DTYPE)
        tps = xp.cumsum(pos * weight)[ends]
        fps = xp.cumsum((1 - pos) * weight)[ends]
    return fps, tps, y_score[ends], xp


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "pos_label": [Real, str, "boolean", None],
        "sample_weight": ["array-like", None],
        "drop_intermediate": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def roc_curve(
    y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True
):
    """Receiver operating characteristic curve, as scikit-learn's ``roc_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels; give ``pos_label`` unless they are {0, 1} or
        {-1, 1}.
    y_score : array-like of shape (n_samples,)
        Target scores.
    pos_label : int, float, bool or str, default=None
        The positive label.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=True
        Drop thresholds whose point is collinear with its neighbours.

    Returns
    -------
    fpr, tpr : ndarray of shape (n_points,)
        Increasing false and true positive rates (NumPy or CuPy, like the
        inputs).
    thresholds : ndarray of shape (n_points,)
        Decreasing thresholds, the first one ``inf``.

    Examples
    --------
    >>> from gpuml.metrics import roc_curve
    >>> fpr, tpr, thresholds = roc_curve(
    ...     [1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    fps, tps, thresholds, xp = _curve_counts(
        y_true, y_score, pos_label, sample_weight, "roc_curve"
    )
    if drop_intermediate and fps.shape[0] > 2:
        corner = (xp.diff(fps, n=2) != 0) | (xp.diff(tps, n=2) != 0)
        true = xp.ones(1, dtype=bool)
        keep = xp.nonzero(xp.concatenate([true, corner, true]))[0]
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    zero = xp.zeros(1, dtype=_COUNT_DTYPE)
    tps = xp.concatenate([zero, tps])
    fps = xp.concatenate([zero, fps])
    thresholds = xp.concatenate(
        [xp.full(1, xp.inf, dtype=_COUNT_DTYPE), thresholds.astype(_COUNT_DTYPE)]
    )
    rates = []
    for counts, kind, rate in ((fps, "negative", "false"), (tps, "positive", "true")):
        total = float(counts[-1])
        if total <= 0:
            warnings.warn(
                f"No {kind} samples in y_true, {rate} positive value should be "
                "meaningless",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            rates.append(xp.full(counts.shape, xp.nan))
        else:
            rates.append(counts / total)
    return rates[0], rates[1], thresholds


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "pos_label": [Real, str, "boolean", None],
        "sample_weight": ["array-like", None],
        "drop_intermediate": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def precision_recall_curve(
    y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=False
):
    """Precision-recall pairs, as scikit-learn's ``precision_recall_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels; give ``pos_label`` unless they are {0, 1} or
        {-1, 1}.
    y_score : array-like of shape (n_samples,)
        Target scores.
    pos_label : int, float, bool or str, default=None
        The positive label.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    drop_intermediate : bool, default=False
        Drop thresholds where the number of true positives does not change.

    Returns
    -------
    precision, recall : ndarray of shape (n_thresholds + 1,)
        Precision and decreasing recall, ending with 1 and 0 (NumPy or CuPy,
        like the inputs).
    thresholds : ndarray of shape (n_thresholds,)
        Increasing thresholds.

    Examples
    --------
    >>> from gpuml.metrics import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve(
    ...     [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> recall.tolist()
    [1.0, 1.0, 0.5, 0.5, 0.0]
    """
    fps, tps, thresholds, xp = _curve_counts(
        y_true, y_score, pos_label, sample_weight, "precision_recall_curve"
    )
    if drop_intermediate and fps.shape[0] > 2:
        changes = (xp.diff(tps[:-1]) != 0) | (xp.diff(tps[1:]) != 0)
        true = xp.ones(1, dtype=bool)
        keep = xp.nonzero(xp.concatenate([true, changes, true]))[0]
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    predicted = tps + fps
    nonzero = predicted != 0
    precision = xp.where(nonzero, tps / xp.where(nonzero, predicted, 1.0), 0.0)
    total = float(tps[-1])
    if total == 0:
        warnings.warn(
            "No positive class found in y_true, recall is set to one for all "
            "thresholds.",
            UserWarning,
            stacklevel=2,
        )
        recall = xp.ones(tps.shape, dtype=_COUNT_DTYPE)
    else:
        recall = tps / total
    one = xp.ones(1, dtype=_COUNT_DTYPE)
    return (
        xp.concatenate([xp.flip(precision), one]),
        xp.concatenate([xp.flip(recall), 0 * one]),
        xp.flip(thresholds),
    )
