"""Ranking metrics (ROC AUC, average precision, their curves) where the data lives.

One computation
    Every score here is read off one binary ranking: sort each row of scores
    in decreasing order, accumulate the (weighted) positives ``tps`` and
    negatives ``fps`` down the ranking, and look at them only at the *distinct*
    thresholds, as scikit-learn's ``confusion_matrix_at_thresholds`` does.

Ties without a loop
    :func:`_ranked_counts` makes every element of a run of equal scores carry
    the counts of the run's *last* element (one boolean compaction of the run
    ends and one gather, for all rows at once). The ROC curve through these
    points has zero-width steps inside a run and one straight segment per
    distinct threshold, so the trapezoid sum is scikit-learn's AUC (the
    Mann-Whitney statistic with ties counting one half), and the step sum
    ``sum (R_n - R_{n-1}) P_n`` is its average precision, with no per-row
    work: one sort per row, O(n) memory, a few host syncs per call.

Batching
    ``_roc_auc_score_batch`` and ``_average_precision_score_batch`` take
    ``y_scores`` with a leading candidate axis: ``(k, n)`` for binary scores,
    ``(k, n, n_classes)`` for multiclass or multilabel ones, and return ``k``
    scores (``(k, n_classes)`` for ``average=None``) as an array of the
    scores' namespace. One-vs-rest columns and multilabel labels are batched
    too (a ``(k, n_labels, n)`` ranking); one-vs-one loops over class pairs.
    The public functions validate, call their kernel with ``k = 1`` and
    convert once. :data:`BATCH_KERNELS` maps each public metric to its
    kernel.

Labels
    ``y_true`` is interpreted (target type, classes, ``pos_label``,
    ``labels=``) in its own namespace, so host string labels work with device
    scores; only the resulting 0/1 indicators move to the scores' namespace.
"""

from __future__ import annotations

import numbers
import warnings
from itertools import combinations
from types import ModuleType

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_consistent_length

from gpuml._array import namespace_of, to_namespace
from gpuml._sklearn_compat import (
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_params,
)
from gpuml._validation import check_some_weight
from gpuml.metrics._base import (
    as_array,
    check_weights,
    host_labels,
    metric_namespace,
    to_score,
    type_of_target,
    weights_sum_to_zero,
)

__all__ = [
    "BATCH_KERNELS",
    "average_precision_score",
    "roc_auc_score",
]

_COUNT_DTYPE = np.float64
_AVERAGES = (None, "micro", "macro", "weighted", "samples")
_ROC_MULTICLASS = ("raise", "ovr", "ovo")


# --------------------------------------------------------------------------
# Parameter checks (scikit-learn's messages)
# --------------------------------------------------------------------------


def _invalid(name: str, func: str, expected: str, value) -> ValueError:
    return InvalidParameterError(
        f"The {name!r} parameter of {func} must be {expected}. Got {value!r} instead."
    )


def _str_options(options) -> str:
    listed = ", ".join(repr(o) for o in sorted(o for o in options if o is not None))
    return f"a str among {{{listed}}}" + (" or None" if None in options else "")


def _check_average(average, func: str) -> None:
    if average is not None and (
        not isinstance(average, str) or average not in _AVERAGES
    ):
        raise _invalid("average", func, _str_options(_AVERAGES), average)


def _check_roc_auc_params(average, max_fpr, multi_class) -> None:
    _check_average(average, "roc_auc_score")
    if max_fpr is not None and not (
        isinstance(max_fpr, numbers.Real)
        and not isinstance(max_fpr, bool)
        and 0 < max_fpr <= 1
    ):
        raise _invalid(
            "max_fpr",
            "roc_auc_score",
            "a float in the range (0.0, 1.0] or None",
            max_fpr,
        )
    if not isinstance(multi_class, str) or multi_class not in _ROC_MULTICLASS:
        raise _invalid(
            "multi_class", "roc_auc_score", _str_options(_ROC_MULTICLASS), multi_class
        )


def _check_pos_label_type(pos_label, func: str, allow_none: bool) -> None:
    if pos_label is None and allow_none:
        return
    if not isinstance(pos_label, (numbers.Real, str, bool, np.bool_)):
        expected = (
            "an instance of 'float', an instance of 'str', an instance of 'bool' "
            "or an instance of 'numpy.bool' or None"
            if allow_none
            else "an instance of 'float', an instance of 'str' or an instance of "
            "'bool' or an instance of 'numpy.bool'"
        )
        raise _invalid("pos_label", func, expected, pos_label)


# --------------------------------------------------------------------------
# The batched binary kernels
# --------------------------------------------------------------------------


def _shift_right(values, xp: ModuleType):
    """``values`` moved one step along the last axis, with a zero in front."""
    zeros = xp.zeros((*values.shape[:-1], 1), dtype=values.dtype)
    return xp.concatenate([zeros, values[..., :-1]], axis=-1)


def _argsort_rows(flat, n_per_row: int, xp: ModuleType, *, flat_sorts=None):
    """Indices ordering each row of ``flat`` (rows of ``n_per_row``) increasingly.

    ``flat`` holds the rows one after the other; the result does too, as
    indices into ``flat``. CuPy sorts a 1-D array with a radix sort but an
    axis of a 2-D array with a much slower comparison sort, so there
    (``flat_sorts``, the default for CuPy) all rows are sorted as one array,
    then grouped by row with a second, stable sort of their (32-bit) row
    numbers. NumPy sorts each row on its own.
    """
    n_rows = flat.shape[0] // n_per_row
    if flat_sorts is None:
        flat_sorts = xp is not np
    if n_rows == 1:
        return xp.argsort(flat)
    if not flat_sorts:
        order = xp.argsort(flat.reshape(n_rows, n_per_row), axis=-1)
        offsets = xp.arange(0, flat.shape[0], n_per_row)
        return (order + offsets[:, None]).reshape(-1)
    order = xp.argsort(flat)
    row = order // n_per_row
    if n_rows < 2**31:
        row = row.astype(np.int32)
    return order[xp.argsort(row, kind="stable")]


def _row_cumsum(values, xp: ModuleType):
    """Cumulative sums along the last axis (a 1-D scan when there is one row)."""
    if values.size == values.shape[-1]:
        return xp.cumsum(values.reshape(-1)).reshape(values.shape)
    return xp.cumsum(values, axis=-1)


def _binary_classes(y_true, yxp: ModuleType):
    """Sorted distinct labels of a binary target (two reductions, no sort)."""
    if y_true.dtype.kind not in "biuf":
        return yxp.unique(y_true)
    low, high = y_true.min(), y_true.max()
    if bool(low == high):
        return yxp.asarray(low).reshape(1)
    return yxp.stack([yxp.asarray(low), yxp.asarray(high)])


def _gather(values, shape, flat_index, xp: ModuleType):
    """``values`` broadcast to ``shape``, read at flat indices."""
    return xp.broadcast_to(values, shape).reshape(-1)[flat_index]


def _ranked_counts(y_true, y_score, sample_weight, xp: ModuleType):
    """Cumulative positive and negative weight down each row's ranking.

    Parameters
    ----------
    y_true : bool array broadcastable to ``y_score.shape``
        Positive-class indicators.
    y_score : array of shape (..., m)
        Scores; each row along the last axis is ranked on its own.
    sample_weight : array of shape (m,) (or broadcastable), or None

    Returns
    -------
    tps, fps : float64 arrays of the broadcast shape
        At rank ``i`` of a row (decreasing score), the weight of positives
        (negatives) scored at least as high as the ``i``-th score: every
        element of a run of equal scores carries the counts at the run's end.
        ``tps[..., -1]`` and ``fps[..., -1]`` are the totals.
    """
    if y_score.dtype.kind == "b":
        y_score = y_score.astype(_COUNT_DTYPE)
    shape = np.broadcast_shapes(y_true.shape, y_score.shape)
    # Decreasing scores within each row (any order of equal scores gives the
    # same counts at the run ends), as flat indices into the rows.
    flat_score = xp.broadcast_to(y_score, shape).reshape(-1)
    order = _argsort_rows(flat_score, shape[-1], xp)
    order = xp.flip(order.reshape(-1, shape[-1]), axis=-1).reshape(-1)
    ranked = flat_score[order].reshape(shape)
    positive = _gather(y_true, shape, order, xp).reshape(shape)
    if sample_weight is None:
        pos = positive.astype(_COUNT_DTYPE)
        neg = 1.0 - pos
    else:
        weight = _gather(sample_weight, shape, order, xp).reshape(shape)
        weight = weight.astype(_COUNT_DTYPE, copy=False)
        pos = xp.where(positive, weight, 0.0)
        neg = weight - pos
    tps = _row_cumsum(pos, xp)
    fps = _row_cumsum(neg, xp)
    # The last element of each run of equal scores (and of each row).
    run_end = xp.concatenate(
        [ranked[..., 1:] != ranked[..., :-1], xp.ones((*shape[:-1], 1), dtype=bool)],
        axis=-1,
    ).reshape(-1)
    end_index = xp.nonzero(run_end)[0]
    run = xp.cumsum(run_end, dtype=np.int64) - run_end  # runs ended before i
    carry = end_index[run]
    return tps.reshape(-1)[carry].reshape(shape), fps.reshape(-1)[carry].reshape(shape)


def _binary_roc_auc(y_true, y_score, sample_weight, max_fpr, xp: ModuleType):
    """ROC AUC of each row of ``y_score`` (..., m) against ``y_true`` (bool).

    scikit-learn's ``_binary_roc_auc_score`` for every row at once: NaN with
    its warnings where a row has one class only, McClish-corrected partial
    AUC when ``max_fpr`` is given.
    """
    n_pos = y_true.sum(axis=-1)
    one_class = (n_pos == 0) | (n_pos == y_true.shape[-1])
    if bool(one_class.any()):
        warnings.warn(
            "Only one class is present in y_true. ROC AUC score is not defined "
            "in that case.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    if sample_weight is not None and not bool(one_class.all()):
        check_some_weight(sample_weight)
    tps, fps = _ranked_counts(y_true, y_score, sample_weight, xp)
    n_tp, n_fp = tps[..., -1], fps[..., -1]
    direction = 1.0
    if sample_weight is not None and bool((sample_weight < 0).any()):
        direction = _fpr_direction(fps, n_fp, one_class, xp)
    valid = ~one_class & (n_tp > 0) & (n_fp > 0)
    if sample_weight is not None:  # weights may leave one class without weight
        for empty, kind, rate in (
            (n_fp, "negative", "false"),
            (n_tp, "positive", "true"),
        ):
            if bool((~one_class & (empty <= 0)).any()):
                warnings.warn(
                    f"No {kind} samples in y_true, {rate} positive value should "
                    "be meaningless",
                    UndefinedMetricWarning,
                    stacklevel=4,
                )
    n_tp = xp.where(valid, n_tp, 1.0)[..., None]
    n_fp = xp.where(valid, n_fp, 1.0)[..., None]
    if max_fpr is None or max_fpr == 1:
        # Trapezoids between consecutive points; zero width inside a run.
        # Rates first, as scikit-learn: products of huge weights overflow.
        fpr, tpr = fps / n_fp, tps / n_tp
        area = ((fpr - _shift_right(fpr, xp)) * (tpr + _shift_right(tpr, xp))).sum(
            axis=-1
        )
        auc = direction * area / 2.0
    else:
        x1, y1 = fps / n_fp, tps / n_tp
        x0, y0 = _shift_right(x1, xp), _shift_right(y1, xp)
        inside = x1 <= max_fpr
        crossing = (x0 < max_fpr) & (x1 > max_fpr)
        # np.interp's formula, as scikit-learn adds the point at max_fpr.
        slope = (y1 - y0) / xp.where(crossing, x1 - x0, 1.0)
        y_at = slope * (max_fpr - x0) + y0
        segment = xp.where(
            inside,
            (x1 - x0) * (y1 + y0) / 2,
            xp.where(crossing, (max_fpr - x0) * (y_at + y0) / 2, 0.0),
        )
        partial = segment.sum(axis=-1)
        min_area = 0.5 * max_fpr**2
        auc = 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))
    return xp.where(valid, auc, xp.nan)


def _fpr_direction(fps, n_fp, one_class, xp: ModuleType):
    """scikit-learn's ``auc`` direction of each row's false positive rates.

    With negative weights the false positive rate down a ranking need not
    increase: scikit-learn's ``auc`` then integrates a decreasing curve
    backwards (direction -1) and raises where it goes both ways. ``fps`` are
    the run-end counts of :func:`_ranked_counts`; the curve starts at 0.
    Rows of one class (NaN before any curve) or without a positive total of
    negatives (no rates: NaN) raise no error.
    """
    defined = ((n_fp > 0) & ~one_class)[..., None]
    steps = (fps - _shift_right(fps, xp)) * defined  # the sign of each fpr step
    down = xp.any(steps < 0, axis=-1)
    up = xp.any(steps > 0, axis=-1)
    if bool((down & up).any()):
        row = int(xp.argmax((down & up).reshape(-1)))
        x = (fps / n_fp[..., None]).reshape(-1, fps.shape[-1])[row]
        raise ValueError(
            f"x is neither increasing nor decreasing : {_host_curve(x, xp)}."
        )
    return xp.where(down, -1.0, 1.0)


def _host_curve(x, xp: ModuleType):
    """The distinct points of a rate curve (with its leading 0), for a message."""
    x = to_namespace(x, np)
    keep = np.r_[True, x[1:] != x[:-1]]
    return np.r_[0.0, x[keep]]


def _binary_average_precision(y_true, y_score, sample_weight, xp: ModuleType):
    """Average precision of each row of ``y_score`` (..., m) against ``y_true``.

    ``sum_n (R_n - R_{n-1}) P_n`` over the distinct thresholds, as
    scikit-learn's ``precision_recall_curve`` gives it; 0 with its warning
    where a row has no positive.
    """
    if sample_weight is not None:
        check_some_weight(sample_weight)
    tps, fps = _ranked_counts(y_true, y_score, sample_weight, xp)
    n_tp = tps[..., -1]
    has_pos = n_tp != 0
    if not bool(has_pos.all()):
        warnings.warn(
            "No positive class found in y_true, recall is set to one for all "
            "thresholds.",
            UserWarning,
            stacklevel=4,
        )
    predicted = tps + fps
    nonzero = predicted != 0
    precision = xp.where(nonzero, tps / xp.where(nonzero, predicted, 1.0), 0.0)
    steps = ((tps - _shift_right(tps, xp)) * precision).sum(axis=-1)
    ap = steps / xp.where(has_pos, n_tp, 1.0)
    # Without positive weight scikit-learn's recall is all ones: AP is the
    # precision at its top threshold (zero weights dropped), 0 unless
    # negative weights cancel the positives' weight
    ap = xp.where(has_pos, ap, 0.0)
    if (
        sample_weight is not None
        and not bool(has_pos.all())
        and bool((sample_weight < 0).any())
    ):
        kept, _ = _ranked_counts(sample_weight != 0, y_score, None, xp)
        top = xp.argmax(kept > 0, axis=-1)[..., None]
        top_precision = xp.take_along_axis(precision, top, axis=-1)[..., 0]
        ap = xp.where(has_pos, ap, top_precision)
    return xp.maximum(ap, 0.0)


# --------------------------------------------------------------------------
# Averaging over labels (scikit-learn's _average_binary_score, batched)
# --------------------------------------------------------------------------


def _weighted_mean(scores, weights, xp: ModuleType):
    """Mean over the last axis; zero-weight entries count as 0 (not NaN).

    Weights that sum to zero raise as in scikit-learn (``np.average``).
    """
    if weights is None:
        return scores.mean(axis=-1)
    if float(weights.sum()) == 0:
        raise weights_sum_to_zero()
    scores = xp.where(weights == 0, 0.0, scores)
    return (scores * weights).sum(axis=-1) / weights.sum()


def _average_binary(binary, y_ind, y_scores, average, sample_weight, xp: ModuleType):
    """Average a binary kernel over the labels of an indicator matrix.

    ``binary(y_true, y_score, sample_weight)`` ranks along the last axis;
    ``y_ind`` is a bool array (n, L), ``y_scores`` (k, n, L). Returns (k,)
    scores, or (k, L) for ``average=None``.
    """
    k, n, n_labels = y_scores.shape
    if average == "micro":
        weight = None if sample_weight is None else xp.repeat(sample_weight, n_labels)
        return binary(y_ind.reshape(-1), y_scores.reshape(k, n * n_labels), weight)
    if average == "samples":
        return _weighted_mean(binary(y_ind, y_scores, None), sample_weight, xp)
    if average == "weighted":
        if sample_weight is None:
            support = y_ind.sum(axis=0).astype(_COUNT_DTYPE)
        else:
            support = (y_ind * sample_weight[:, None]).sum(axis=0)
        if abs(float(support.sum())) <= 1e-8:  # scikit-learn returns 0 unscored
            return xp.zeros(k, dtype=_COUNT_DTYPE)
    scores = binary(y_ind.T, xp.swapaxes(y_scores, 1, 2), sample_weight)
    if average is None:
        return scores
    if average == "macro":
        return scores.mean(axis=-1)
    return _weighted_mean(scores, support, xp)


# --------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------


def _column_or_1d_shape_error(shape) -> ValueError:
    return ValueError(f"y should be a 1d array, got an array of shape {shape} instead.")


def _binary_scores(y_scores):
    """(k, n) scores from (k, n) or (k, n, 1), as scikit-learn's column_or_1d."""
    if y_scores.ndim == 3:
        if y_scores.shape[-1] != 1:
            raise _column_or_1d_shape_error(tuple(y_scores.shape[1:]))
        return y_scores[..., 0]
    return y_scores


def _as_labels_1d(y_true):
    if y_true.ndim == 2 and y_true.shape[1] == 1:
        return y_true.ravel()
    return y_true


def _to_xp_bool(values, xp: ModuleType):
    return to_namespace(values, xp).astype(bool, copy=False)


def _check_multilabel_scores(y_true, y_scores) -> None:
    if y_scores.ndim == 2:  # scikit-learn's check_array message
        raise ValueError(
            "Expected 2D array, got 1D array instead:\n"
            f"array={host_labels(y_scores[0])}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has "
            "a single feature or array.reshape(1, -1) if it contains a single "
            "sample."
        )
    if y_scores.ndim != 3 or tuple(y_scores.shape[1:]) != tuple(y_true.shape):
        raise ValueError(
            "y_true and y_score have different shapes: y_true.shape="
            f"{tuple(y_true.shape)}, y_score.shape={tuple(y_scores.shape[1:])}."
        )


def _class_encoding(y_true, labels, n_columns: int, yxp: ModuleType):
    """Classes (sorted) and ``y_true`` encoded as their indices, as scikit-learn."""
    if labels is None:
        classes = yxp.unique(y_true)
        if classes.shape[0] != n_columns:
            raise ValueError(
                "Number of classes in y_true not equal to the number of columns "
                "in 'y_score'"
            )
        return classes, yxp.searchsorted(classes, y_true)
    labels = np.asarray(host_labels(labels))
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels.ravel()
    elif labels.ndim != 1:
        raise _column_or_1d_shape_error(labels.shape)
    classes = np.unique(labels)
    if len(classes) != len(labels):
        raise ValueError("Parameter 'labels' must be unique")
    if not np.array_equal(classes, labels):
        raise ValueError("Parameter 'labels' must be ordered")
    if len(classes) != n_columns:
        raise ValueError(
            f"Number of given labels, {len(classes)}, not equal to the number of "
            f"columns in 'y_score', {n_columns}"
        )
    classes = to_namespace(classes, yxp)
    index = yxp.searchsorted(classes, y_true)
    inside = index < classes.shape[0]
    index = yxp.where(inside, index, 0)
    if not bool((inside & (classes[index] == y_true)).all()):
        raise ValueError("'y_true' contains labels not in parameter 'labels'")
    return classes, index


def _multiclass_shape_error(y_scores) -> ValueError:
    return ValueError(
        "`y_score` needs to be of shape `(n_samples, n_classes)`, since "
        "`y_true` contains multiple classes. Got "
        f"`y_score.shape={tuple(y_scores.shape[1:])}`."
    )


# --------------------------------------------------------------------------
# ROC AUC
# --------------------------------------------------------------------------


def _multiclass_roc_auc(
    y_true, y_scores, labels, multi_class, average, sample_weight, xp, yxp
):
    """scikit-learn's ``_multiclass_roc_auc_score`` over (k, n, C) scores."""
    if y_scores.ndim != 3:
        raise _multiclass_shape_error(y_scores)
    sums = y_scores.sum(axis=-1)
    # np.allclose(1, sums), written out so that it reads the same in CuPy.
    if not bool((xp.abs(1 - sums) <= 1e-8 + 1e-5 * xp.abs(sums)).all()):
        raise ValueError(
            "Target scores need to be probabilities for multiclass "
            "roc_auc, i.e. they should sum up to 1.0 over classes"
        )
    options = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro", *options)
    if average not in options:
        raise ValueError(f"average must be one of {options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError(
            "average=None is not implemented for multi_class='ovo'."
        )
    n_classes = y_scores.shape[-1]
    _, encoded = _class_encoding(y_true, labels, n_classes, yxp)
    encoded = to_namespace(encoded, xp)

    def binary(y, s, w):
        return _binary_roc_auc(y, s, w, None, xp)

    if multi_class == "ovr":
        y_ind = encoded[:, None] == xp.arange(n_classes)
        return _average_binary(binary, y_ind, y_scores, average, sample_weight, xp)
    if sample_weight is not None:
        raise ValueError(
            "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
            "'sample_weight' must be None in this case."
        )
    # Hand & Till (2001): each pair of present classes, both ways round.
    present = to_namespace(xp.unique(encoded), np).tolist()
    pair_scores, prevalence = [], []
    for a, b in combinations(present, 2):
        a_mask = encoded == a
        pair = a_mask | (encoded == b)
        index = xp.nonzero(pair)[0]
        a_true = a_mask[index]
        both = xp.stack([y_scores[:, index, a], y_scores[:, index, b]], axis=1)
        aucs = binary(xp.stack([a_true, ~a_true]), both, None)
        pair_scores.append((aucs[..., 0] + aucs[..., 1]) / 2)
        prevalence.append(pair.mean())
    pair_scores = xp.stack(pair_scores, axis=-1)
    if average == "weighted":
        weights = xp.stack(prevalence)
        return (pair_scores * weights).sum(axis=-1) / weights.sum()
    return pair_scores.mean(axis=-1)


def _roc_auc_score_batch(
    y_true,
    y_scores,
    *,
    sample_weight=None,
    average="macro",
    max_fpr=None,
    multi_class="raise",
    labels=None,
):
    """ROC AUC of ``k`` candidates' scores at once.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, n_labels)
        True targets (any labels, host or device).
    y_scores : array of shape (k, n) or (k, n, n_classes)
        Scores of ``k`` candidates.
    sample_weight : array-like of shape (n,) or None
        Sample weights.
    average, max_fpr, multi_class, labels
        As in :func:`roc_auc_score`.

    Returns
    -------
    scores : array of shape (k,), or (k, n_classes) for ``average=None``
    """
    _check_roc_auc_params(average, max_fpr, multi_class)
    xp = namespace_of(y_scores)
    y_scores = xp.asarray(y_scores)
    y_true, sample_weight = _validate_targets(y_true, sample_weight, y_scores, xp)
    yxp = namespace_of(y_true)
    y_type = type_of_target(y_true, yxp, input_name="y_true")
    if y_type == "multiclass" or (
        y_type == "binary" and y_scores.ndim == 3 and y_scores.shape[-1] > 2
    ):
        if max_fpr is not None and max_fpr != 1.0:
            raise ValueError(
                "Partial AUC computation not available in multiclass setting, "
                "'max_fpr' must be set to `None`, received "
                f"`max_fpr={max_fpr}` instead"
            )
        if multi_class == "raise":
            raise ValueError("multi_class must be in ('ovo', 'ovr')")
        return _multiclass_roc_auc(
            _as_labels_1d(y_true),
            y_scores,
            labels,
            multi_class,
            average,
            sample_weight,
            xp,
            yxp,
        )

    def binary(y, s, w):
        return _binary_roc_auc(y, s, w, max_fpr, xp)

    if y_type == "binary":
        y_true = _as_labels_1d(y_true)
        classes = _binary_classes(y_true, yxp)
        if classes.shape[0] == 2:
            y_bin = _to_xp_bool(y_true == classes[1], xp)
        else:  # scikit-learn's label_binarize gives all zeros: one class
            y_bin = xp.zeros(y_true.shape[0], dtype=bool)
        return binary(y_bin, _binary_scores(y_scores), sample_weight)
    if y_type != "multilabel-indicator":
        raise ValueError(f"{y_type} format is not supported")
    _check_multilabel_scores(y_true, y_scores)
    y_ind = _to_xp_bool(y_true == 1, xp)
    return _average_binary(binary, y_ind, y_scores, average, sample_weight, xp)


# --------------------------------------------------------------------------
# Average precision
# --------------------------------------------------------------------------


def _average_precision_score_batch(
    y_true, y_scores, *, sample_weight=None, average="macro", pos_label=1
):
    """Average precision of ``k`` candidates' scores at once.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, n_labels)
        True targets (any labels, host or device).
    y_scores : array of shape (k, n) or (k, n, n_classes)
        Scores of ``k`` candidates.
    sample_weight : array-like of shape (n,) or None
        Sample weights.
    average, pos_label
        As in :func:`average_precision_score`.

    Returns
    -------
    scores : array of shape (k,), or (k, n_classes) for ``average=None``
    """
    _check_average(average, "average_precision_score")
    _check_pos_label_type(pos_label, "average_precision_score", allow_none=False)
    xp = namespace_of(y_scores)
    y_scores = xp.asarray(y_scores)
    y_true, sample_weight = _validate_targets(y_true, sample_weight, y_scores, xp)
    yxp = namespace_of(y_true)
    y_type = type_of_target(y_true, yxp, input_name="y_true")

    def binary(y, s, w):
        return _binary_average_precision(y, s, w, xp)

    if y_type == "binary":
        y_true = _as_labels_1d(y_true)
        present = _binary_classes(y_true, yxp)
        if present.shape[0] == 2 and not _contains(present, pos_label, yxp):
            raise ValueError(
                f"pos_label={pos_label} is not a valid label. It should be one of "
                f"{host_labels(present)}"
            )
        if yxp is not np and isinstance(pos_label, str):
            y_bin = xp.zeros(y_true.shape[0], dtype=bool)
        else:
            y_bin = _to_xp_bool(y_true == pos_label, xp)
        return binary(y_bin, _binary_scores(y_scores), sample_weight)
    if y_type == "multilabel-indicator":
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. "
                "Do not set pos_label or set pos_label to 1."
            )
        _check_multilabel_scores(y_true, y_scores)
        y_ind = _to_xp_bool(y_true == 1, xp)
    elif y_type == "multiclass":
        if pos_label != 1:
            raise ValueError(
                "Parameter pos_label is fixed to 1 for multiclass y_true. "
                "Do not set pos_label or set pos_label to 1."
            )
        y_true = _as_labels_1d(y_true)
        present = yxp.unique(y_true)
        if y_scores.ndim != 3 or y_scores.shape[-1] != present.shape[0]:
            raise _multiclass_shape_error(y_scores)
        encoded = to_namespace(yxp.searchsorted(present, y_true), xp)
        y_ind = encoded[:, None] == xp.arange(present.shape[0])
    else:
        raise ValueError(f"{y_type} format is not supported")
    return _average_binary(binary, y_ind, y_scores, average, sample_weight, xp)


def _contains(values, item, xp: ModuleType) -> bool:
    """``item in values`` (NumPy's rule), without comparing text to device data."""
    if xp is not np and isinstance(item, str):
        return False
    return bool((values == item).any())


# --------------------------------------------------------------------------
# Public scores
# --------------------------------------------------------------------------


def _validate_y_true(y_true, xp: ModuleType):
    """``y_true`` checked in its own family; numeric labels then move to ``xp``."""
    y_true = as_array(y_true, metric_namespace(y_true), input_name="y_true")
    if y_true.dtype.kind in "biuf":
        y_true = to_namespace(y_true, xp)
    return y_true


def _validate_targets(y_true, sample_weight, y_scores, xp: ModuleType):
    """Targets and weights as arrays (a kernel may get them raw, from a scorer)."""
    y_true = _validate_y_true(y_true, xp)
    n_samples = y_true.shape[0]
    if y_scores.ndim < 2 or y_scores.shape[1] != n_samples:
        found = y_scores.shape[1] if y_scores.ndim > 1 else 0
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {found}]"
        )
    # scikit-learn checks for all-zero weights per binary problem, after a
    # one-class ROC problem has returned NaN: the kernels check it.
    weight = check_weights(sample_weight, n_samples, xp, allow_all_zero_weights=True)
    return y_true, weight


def _validate_scores(y_true, y_score, sample_weight, xp: ModuleType, *, y_first):
    """The scores as an array of ``xp``; the kernels check the rest.

    ``y_first``: ``y_true`` is checked before the lengths (scikit-learn's
    message for an empty one in ``roc_auc_score``). Scores given as text are
    refused (scikit-learn's ``dtype="numeric"`` error; see
    :func:`_reject_text_scores` for the other ranking metrics).
    """
    if y_first:
        as_array(y_true, metric_namespace(y_true), input_name="y_true")
    check_consistent_length(y_true, y_score, sample_weight)
    return as_array(y_score, xp, input_name="y_score", dtype="numeric")


def _reject_text_scores(y_score) -> None:
    """scikit-learn's ranking curves subtract scores: text fails with TypeError."""
    dtype = getattr(y_score, "dtype", None)
    if not isinstance(dtype, np.dtype):
        try:
            dtype = np.asarray(y_score).dtype
        except (TypeError, ValueError):
            return
    if dtype.kind in "US" or (dtype.kind == "O" and _holds_text(y_score)):
        raise TypeError(
            f"y_score must be an array of numbers, got dtype {dtype}: convert the "
            "scores to numbers explicitly."
        )


def _holds_text(values) -> bool:
    return any(isinstance(v, (str, bytes)) for v in np.asarray(values).ravel())


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "average": [StrOptions({"micro", "macro", "samples", "weighted"}), None],
        "sample_weight": ["array-like", None],
        "max_fpr": [Interval(numbers.Real, 0.0, 1, closed="right"), None],
        "multi_class": [StrOptions({"raise", "ovr", "ovo"})],
        "labels": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def roc_auc_score(
    y_true,
    y_score,
    *,
    average="macro",
    sample_weight=None,
    max_fpr=None,
    multi_class="raise",
    labels=None,
):
    """Area under the ROC curve, as scikit-learn's ``roc_auc_score``.

    Computed on the GPU when any input is a device array, else with NumPy.
    Ties between scores count one half, as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a label indicator matrix (multilabel).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores of the greater label (binary), class probabilities summing to
        one (multiclass, columns in the order of ``labels`` or of the sorted
        labels of ``y_true``), or one score per label (multilabel).
    average : {"micro", "macro", "samples", "weighted"} or None, default="macro"
        How to average the scores of several labels or classes; ``None``
        returns them all. Ignored for binary targets. Multiclass targets allow
        ``"macro"``, ``"weighted"``, and ``"micro"`` / ``None`` with ``"ovr"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (not with ``multi_class="ovo"``).
    max_fpr : float in (0, 1], default=None
        Return the McClish-standardised partial AUC over ``[0, max_fpr]``
        (binary and multilabel targets only).
    multi_class : {"raise", "ovr", "ovo"}, default="raise"
        One-vs-rest or one-vs-one (Hand & Till) for multiclass targets;
        ``"raise"`` asks for an explicit choice.
    labels : array-like of shape (n_classes,), default=None
        Multiclass only: the sorted labels that index the columns of
        ``y_score``.

    Returns
    -------
    auc : float or ndarray of shape (n_classes,)
        A float, or per-class scores (NumPy or CuPy, like the scores) for
        ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    _check_roc_auc_params(average, max_fpr, multi_class)
    xp = metric_namespace(y_true, y_score, sample_weight)
    y_score = _validate_scores(y_true, y_score, sample_weight, xp, y_first=True)
    result = _roc_auc_score_batch(
        y_true,
        y_score[None],
        sample_weight=sample_weight,
        average=average,
        max_fpr=max_fpr,
        multi_class=multi_class,
        labels=labels,
    )
    return to_score(result[0])


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "average": [StrOptions({"micro", "samples", "weighted", "macro"}), None],
        "pos_label": [numbers.Real, str, "boolean"],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def average_precision_score(
    y_true, y_score, *, average="macro", pos_label=1, sample_weight=None
):
    """Average precision, as scikit-learn's ``average_precision_score``.

    ``AP = sum_n (R_n - R_{n-1}) P_n`` over the distinct thresholds (not
    interpolated). Computed on the GPU when any input is a device array, else
    with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True binary labels, a label indicator matrix, or multiclass labels
        (scored one-vs-rest).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores.
    average : {"micro", "samples", "weighted", "macro"} or None, default="macro"
        How to average the scores of several labels; ``None`` returns them
        all. Ignored for binary targets.
    pos_label : int, float, bool or str, default=1
        The positive label of binary targets (fixed to 1 otherwise).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    average_precision : float or ndarray of shape (n_classes,)
        A float, or per-class scores (NumPy or CuPy, like the scores) for
        ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import average_precision_score
    >>> round(average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    """
    _check_average(average, "average_precision_score")
    _check_pos_label_type(pos_label, "average_precision_score", allow_none=False)
    _reject_text_scores(y_score)
    xp = metric_namespace(y_true, y_score, sample_weight)
    y_score = _validate_scores(y_true, y_score, sample_weight, xp, y_first=False)
    result = _average_precision_score_batch(
        y_true,
        y_score[None],
        sample_weight=sample_weight,
        average=average,
        pos_label=pos_label,
    )
    return to_score(result[0])


BATCH_KERNELS = {
    roc_auc_score: _roc_auc_score_batch,
    average_precision_score: _average_precision_score_batch,
}
