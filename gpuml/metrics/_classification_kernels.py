"""Batched classification kernels: ``_<metric>_batch`` for every metric.

Each scores ``k`` candidates at once (see ``_classification.py`` for the
contract). Split from ``_classification.py``, which keeps the public
functions.
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.multiclass import unique_labels as sk_unique_labels
from sklearn.utils.validation import check_consistent_length

from gpuml._array import (
    DEVICE,
    HOST,
    input_family,
    to_host,
    to_namespace,
)
from gpuml._validation import assert_all_finite, check_sample_weight
from gpuml.metrics._base import (
    as_array,
    host_as_numbers,
    metric_namespace,
    reject_text_weights,
    type_of_target,
    unique_labels,
)
from gpuml.metrics._fused import accuracy_batch
from gpuml.metrics._label_counts import (
    _check_zero_division_kernel,
    _counts,
    _host_position,
    _label_average,
    _label_batch,
    _LabelBatch,
    _multilabel_selection,
    _prf_divide,
    _require_common_labels,
    _row_average,
    _set_wise,
    _to_list,
    _to_xp,
    _warn_prf,
)


def _precision_recall_fscore_support_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    beta=1.0,
    labels=None,
    pos_label=1,
    average=None,
    warn_for=("precision", "recall", "f-score"),
    zero_division="warn",
):
    """Batch kernel: ``(precision, recall, fbeta, support)``, each (k,) or (k, m)."""
    _check_zero_division_kernel(zero_division)
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp = batch.xp
    selection, mask, sizes = _set_wise(batch, average, labels, pos_label)
    tp, n_pred, n_true = _counts(batch, selection, average == "samples")
    pred_sum = tp + (n_pred - tp)
    true_sum = tp + (n_true - tp)
    if average == "micro":
        tp, pred_sum, true_sum = (
            xp.where(mask, a, 0).sum(axis=-1, keepdims=True)
            for a in (tp, pred_sum, true_sum)
        )
        mask, sizes = xp.ones((batch.k, 1), dtype=bool), np.ones(batch.k, np.int64)
    warn = isinstance(zero_division, str) and zero_division == "warn"

    def divide(numerator, denominator, metric, modifier):
        result, triggered = _prf_divide(numerator, denominator, mask, zero_division, xp)
        if warn and metric in warn_for:
            msg_start = f"{metric.capitalize()} is"
            _warn_prf(average, modifier, msg_start, triggered, sizes)
        return result

    precision = divide(tp, pred_sum, "precision", "predicted")
    recall = divide(tp, true_sum, "recall", "true")
    if np.isposinf(beta):
        f_score = recall
    elif beta == 0:
        f_score = precision
    else:
        beta2 = beta**2
        denominator = beta2 * true_sum.astype(xp.float64) + pred_sum.astype(xp.float64)
        numerator = (1 + beta2) * tp.astype(xp.float64)
        f_score = divide(numerator, denominator, "f-score", "true nor predicted")
    if average is None:
        return precision, recall, f_score, true_sum
    if average == "weighted":
        weights = true_sum
    elif average == "samples" and batch.weights is not None:
        weights = batch.weights[None, :]
    else:
        weights = None
    scores = (
        _label_average(a, mask, weights, xp, skip_nan=True)
        for a in (precision, recall, f_score)
    )
    return (*scores, None)


def _precision_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    labels=None,
    pos_label=1,
    average="binary",
    zero_division="warn",
):
    """Batch kernel of :func:`precision_score`."""
    return _precision_recall_fscore_support_batch(
        y_true,
        y_preds,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("precision",),
        zero_division=zero_division,
    )[0]


def _recall_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    labels=None,
    pos_label=1,
    average="binary",
    zero_division="warn",
):
    """Batch kernel of :func:`recall_score`."""
    return _precision_recall_fscore_support_batch(
        y_true,
        y_preds,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("recall",),
        zero_division=zero_division,
    )[1]


def _fbeta_score_batch(
    y_true,
    y_preds,
    *,
    beta,
    sample_weight=None,
    labels=None,
    pos_label=1,
    average="binary",
    zero_division="warn",
):
    """Batch kernel of :func:`fbeta_score`."""
    return _precision_recall_fscore_support_batch(
        y_true,
        y_preds,
        sample_weight=sample_weight,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=("f-score",),
        zero_division=zero_division,
    )[2]


def _f1_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    labels=None,
    pos_label=1,
    average="binary",
    zero_division="warn",
):
    """Batch kernel of :func:`f1_score`."""
    return _fbeta_score_batch(
        y_true,
        y_preds,
        beta=1,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        average=average,
        zero_division=zero_division,
    )


def _jaccard_score_batch(
    y_true,
    y_preds,
    *,
    sample_weight=None,
    labels=None,
    pos_label=1,
    average="binary",
    zero_division="warn",
):
    """Batch kernel of :func:`jaccard_score`: (k,), or (k, m) for average=None."""
    _check_zero_division_kernel(zero_division)
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp = batch.xp
    selection, mask, sizes = _set_wise(batch, average, labels, pos_label)
    tp, n_pred, n_true = _counts(batch, selection, average == "samples")
    false_pos, false_neg = n_pred - tp, n_true - tp
    numerator, denominator = tp, tp + false_pos + false_neg
    if average == "micro":
        numerator, denominator = (
            xp.where(mask, a, 0).sum(axis=-1, keepdims=True)
            for a in (numerator, denominator)
        )
        mask, sizes = xp.ones((batch.k, 1), dtype=bool), np.ones(batch.k, np.int64)
    jaccard, triggered = _prf_divide(numerator, denominator, mask, zero_division, xp)
    if isinstance(zero_division, str) and zero_division == "warn":
        _warn_prf(average, "true or predicted", "Jaccard is", triggered, sizes)
    if average is None:
        return jaccard
    weights = None
    if average == "weighted":
        weights = false_neg + tp
        # No support at all: scikit-learn averages without weights.
        none = ~xp.any(mask & (weights != 0), axis=-1, keepdims=True)
        weights = xp.where(none, 1, weights)
    elif average == "samples" and batch.weights is not None:
        weights = batch.weights[None, :]
    return _label_average(jaccard, mask, weights, xp, skip_nan=False)


def _multilabel_confusion_matrix_batch(
    y_true, y_preds, *, sample_weight=None, labels=None, samplewise=False
):
    """Batch kernel: (k, n_labels, 2, 2), or (k, n_samples, 2, 2) samplewise."""
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp = batch.xp
    if not batch.multilabel:
        if samplewise:
            raise ValueError(
                "Samplewise metrics are not available outside of "
                "multilabel classification."
            )
        if labels is None:
            _require_common_labels(batch, "multilabel_confusion_matrix")
            selection = None
        else:
            selection = _host_position(_to_list(labels), batch.classes_host())
    else:
        selection = (
            None if labels is None else _multilabel_selection(labels, batch.n_classes)
        )
    tp, n_pred, n_true = _counts(batch, selection, samplewise)
    false_pos, false_neg = n_pred - tp, n_true - tp
    n_columns = batch.n_classes if selection is None else len(selection)
    if batch.weights is not None and samplewise:
        total = batch.weights * n_columns
    elif batch.weights is not None:
        total = batch.weights.sum()
    elif samplewise:
        total = n_columns
    else:
        total = batch.n_samples
    true_neg = total - tp - false_pos - false_neg
    out = xp.stack(xp.broadcast_arrays(true_neg, false_pos, false_neg, tp), axis=-1)
    out = out.reshape(batch.k, -1, 2, 2)
    if samplewise and batch.int_weights is not None:
        out = out.astype(xp.int64)
    return out


def _warn_single_label() -> None:
    warnings.warn(
        "A single label was found in 'y_true' and 'y_pred'. For the confusion "
        "matrix to have the correct shape, use the 'labels' parameter to pass "
        "all known labels.",
        UserWarning,
        stacklevel=3,
    )


def _integer_bincount(cells, weights, size: int, xp: ModuleType):
    """int64 sums of integer ``weights`` per cell in ``[0, size)`` (cells at
    ``size`` or above are dropped), exact where a float64 ``bincount`` would
    round sums above 2**53."""
    order = xp.argsort(cells)
    ends = xp.searchsorted(cells[order], xp.arange(size), side="right")
    running = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(weights[order])])
    totals = running[ends]
    return xp.diff(totals, prepend=xp.zeros(1, dtype=xp.int64))


def _confusion_matrix_batch(
    y_true, y_preds, *, sample_weight=None, labels=None, normalize=None
):
    """Batch kernel of :func:`confusion_matrix`: (k, n_labels, n_labels)."""
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp, k = batch.xp, batch.k
    if batch.multilabel:
        raise ValueError("multilabel-indicator is not supported")
    true, pred = batch.true, batch.pred
    if labels is None:
        _require_common_labels(batch, "confusion_matrix")
        n_labels = batch.n_classes
    else:
        labels = _to_list(labels)
        n_labels = len(labels)
        if n_labels == 0:
            raise ValueError("'labels' should contain at least one label.")
        # A label listed twice takes its last position, as in scikit-learn.
        lookup = {label: i for i, label in enumerate(labels)}
        position = np.array(
            [lookup.get(c, n_labels) for c in batch.classes_host().tolist()]
        )
        if not (position[to_host(batch.true_counts) > 0] < n_labels).any():
            raise ValueError("At least one label specified must be in y_true")
        position = xp.asarray(position)
        true, pred = position[true], position[pred]
    size = k * n_labels * n_labels
    keep = (true[None, :] < n_labels) & (pred < n_labels)
    offsets = xp.arange(k)[:, None] * (n_labels * n_labels)
    cells = xp.where(keep, offsets + true[None, :] * n_labels + pred, size).ravel()
    if batch.int_weights is not None:  # summed exactly, as scikit-learn's int64
        weights = xp.broadcast_to(batch.int_weights, batch.pred.shape).ravel()
        cm = _integer_bincount(cells, weights, size, xp)
    else:
        weights = batch.weights
        if weights is not None:
            weights = xp.broadcast_to(weights, batch.pred.shape).ravel()
        cm = xp.bincount(cells, weights=weights, minlength=size + 1)[:size]
    cm = cm.reshape(k, n_labels, n_labels)
    axis = {"true": -1, "pred": -2, "all": (-2, -1)}.get(normalize)
    if axis is not None:
        # scikit-learn's nan_to_num of the quotients: 0/0 is 0, and x/0 (a
        # row or column of weights summing to 0) the largest float
        total = cm.sum(axis=axis, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            cm = xp.nan_to_num(cm / total)
    if n_labels == 1:
        _warn_single_label()
    return cm


def _accuracy_from_batch(batch: _LabelBatch, normalize):
    if not batch.multilabel:
        fused = accuracy_batch(batch.true, batch.pred, batch.weights, normalize)
        if fused is not None:
            return fused
    hits = batch.pred == batch.true[None]
    if batch.multilabel:
        hits = hits.all(axis=-1)
    return _row_average(hits, batch.weights, normalize, batch.xp)


def _accuracy_score_batch(y_true, y_preds, *, sample_weight=None, normalize=True):
    """Batch kernel of :func:`accuracy_score`: (k,)."""
    batch = _label_batch(y_true, y_preds, sample_weight, encode=False)
    return _accuracy_from_batch(batch, normalize)


def _zero_one_loss_batch(y_true, y_preds, *, sample_weight=None, normalize=True):
    """Batch kernel of :func:`zero_one_loss`: (k,)."""
    batch = _label_batch(y_true, y_preds, sample_weight, encode=False)
    score = _accuracy_from_batch(batch, normalize)
    if normalize:
        return 1 - score
    if batch.weights is None:
        return batch.n_samples - score
    return batch.weights.sum() - score


def _hamming_loss_batch(y_true, y_preds, *, sample_weight=None):
    """Batch kernel of :func:`hamming_loss`: (k,)."""
    batch = _label_batch(y_true, y_preds, sample_weight, encode=False)
    xp, w = batch.xp, batch.weights
    differ = batch.pred != batch.true[None]
    if not batch.multilabel:
        return _row_average(differ, w, True, xp)
    n_differences = _row_average(differ.sum(axis=-1), w, False, xp)
    weight_average = 1.0 if w is None else w.mean()
    n_samples, n_labels = batch.true.shape
    return n_differences / (n_samples * n_labels * weight_average)


def _balanced_accuracy_score_batch(
    y_true, y_preds, *, sample_weight=None, adjusted=False
):
    """Batch kernel of :func:`balanced_accuracy_score`: (k,)."""
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp = batch.xp
    if batch.multilabel:
        raise ValueError("multilabel-indicator is not supported")
    if (batch.n_present() == 1).any():
        _warn_single_label()  # scikit-learn goes through confusion_matrix
    tp, _, n_true = _counts(batch)
    # scikit-learn: the confusion matrix's diagonal over its row sums, for
    # the labels present; 0/0 is dropped with its warning (a class only
    # predicted), x/0 (weights of both signs summing to 0) stays infinite
    undefined = (n_true == 0) & (tp == 0)
    valid = batch.present & ~undefined
    if bool(xp.any(batch.present & undefined)):
        warnings.warn("y_pred contains classes not in y_true", stacklevel=2)
    n_classes = valid.sum(axis=-1)
    if adjusted and bool((n_classes == 0).any()):
        # scikit-learn's chance level 1 / len(per_class) of no class
        raise ZeroDivisionError("division by zero")
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = tp / xp.where(undefined, 1, n_true)
        score = xp.where(valid, per_class, 0.0).sum(axis=-1) / n_classes
        if adjusted:
            chance = 1 / n_classes
            score = (score - chance) / (1 - chance)
    return score


def _matthews_corrcoef_batch(y_true, y_preds, *, sample_weight=None):
    """Batch kernel of :func:`matthews_corrcoef`: (k,)."""
    batch = _label_batch(y_true, y_preds, sample_weight)
    xp = batch.xp
    if batch.multilabel:
        raise ValueError("multilabel-indicator is not supported")
    if (batch.n_present() == 1).any():
        _warn_single_label()  # scikit-learn goes through confusion_matrix
    tp, n_pred, n_true = (a.astype(xp.float64) for a in _counts(batch))
    n_correct = tp.sum(axis=-1)
    n_samples = n_pred.sum(axis=-1)
    cov_ytyp = n_correct * n_samples - (n_true * n_pred).sum(axis=-1)
    cov_ypyp = n_samples**2 - (n_pred * n_pred).sum(axis=-1)
    cov_ytyt = n_samples**2 - (n_true * n_true).sum(axis=-1)
    product = cov_ypyp * cov_ytyt
    zero = product == 0
    return xp.where(zero, 0.0, cov_ytyp / xp.sqrt(xp.where(zero, 1.0, product)))


# -- probabilistic metrics -------------------------------------------------------


def _own_namespace_array(y, input_name: str):
    """``y`` validated in its own family (string labels stay on the host)."""
    xt = metric_namespace(y)
    return as_array(y, xt, input_name=input_name, ensure_min_samples=0), xt


def _column_or_1d(y):
    if y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"y should be a 1d array, got an array of shape {y.shape} instead."
        )
    return y


def _one_hot_targets(y_true, labels):
    """scikit-learn's ``_one_hot_encoding_multiclass_target`` (LabelBinarizer).

    Returns class indices (n,) or an indicator (n, n_classes) in ``y_true``'s
    own namespace, and the classes (a NumPy array).
    """
    y, xt = _own_namespace_array(y_true, "y")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if labels is None:
        y_type = type_of_target(y, xt, input_name="y")
        if "multioutput" in y_type:
            raise ValueError(
                "Multioutput target data is not supported with label binarization"
            )
        if y.shape[0] == 0:
            raise ValueError(f"y has 0 samples: {y!r}")
        if y.ndim == 2:
            return y, np.arange(y.shape[1])
        classes = to_host(unique_labels(y, xp=xt, ys_types={y_type}))
        if classes.shape[0] == 1:
            raise ValueError(
                f"y_true contains only one label ({classes[0]}). Please "
                "provide the list of all expected class labels explicitly through the "
                "labels argument."
            )
    else:
        given = np.asarray(
            to_host(labels) if input_family(labels) == DEVICE else labels
        )
        classes = sk_unique_labels(given)
        if not np.all(classes == given):
            warnings.warn(
                f"Labels passed were {labels}. But this function "
                "assumes labels are ordered lexicographically. "
                f"Pass the ordered labels={classes.tolist()} and ensure that "
                "the columns of y_prob correspond to this ordering.",
                UserWarning,
                stacklevel=3,
            )
        if y.ndim == 2:
            raise ValueError("The object was not fitted with multilabel input.")
        y_host = to_host(y)
        if not np.all(np.isin(y_host, classes)):
            raw = y_true if isinstance(y_true, (np.ndarray, list, tuple)) else y_host
            given_labels = labels if input_family(labels) == HOST else _to_list(labels)
            undeclared_labels = set(raw) - set(given_labels)
            raise ValueError(
                f"y_true contains values {undeclared_labels} not belonging "
                f"to the passed labels {labels}."
            )
        if classes.shape[0] == 1:
            raise ValueError(
                f"The labels array needs to contain at least two labels, got {classes}."
            )
    return xt.searchsorted(to_namespace(classes, xt), y), classes


def _probabilities(y_probas, xp: ModuleType):
    """Candidates' probabilities as floats of ``xp`` (float16/32/64 kept)."""
    probas = _to_xp(y_probas, xp)
    if probas.dtype not in (np.float64, np.float32, np.float16):
        probas = probas.astype(xp.float64)
    return probas


def _check_probability_range(probas, xp: ModuleType, low_word: str) -> None:
    high, low = probas.max(), probas.min()
    if bool(high > 1):
        raise ValueError(f"y_prob contains values greater than 1: {to_host(high)}")
    if bool(low < 0):
        raise ValueError(f"y_prob contains values {low_word} than 0: {to_host(low)}")


def _multiclass_probabilities(y_true, probas, sample_weight, labels, xp: ModuleType):
    """scikit-learn's ``_validate_multiclass_probabilistic_prediction``, batched.

    ``probas`` is (k, n) or (k, n, n_classes); returns the one-hot targets
    (n, n_classes) in ``probas``'s dtype, ``probas`` as (k, n, n_classes), and
    the validated weights.
    """
    _check_probability_range(probas, xp, "lower")
    check_consistent_length(probas[0], y_true, sample_weight)
    weights = _weights(sample_weight, probas.shape[1], xp)
    targets, classes = _one_hot_targets(y_true, labels)
    n_classes = classes.shape[0]
    targets = to_namespace(targets, xp)
    if targets.ndim == 1:
        targets = targets[:, None] == xp.arange(n_classes)
    targets = targets.astype(probas.dtype)
    if probas.ndim == 2:
        probas = probas[:, :, None]
    if probas.shape[2] == 1:
        probas = xp.concatenate([1 - probas, probas], axis=2)
    eps = float(np.finfo(probas.dtype).eps)
    sums = probas.sum(axis=2)
    if not bool(xp.all(xp.abs(sums - 1) <= 1e-8 + math.sqrt(eps))):
        warnings.warn(
            "The y_prob values do not sum to one. Make sure to pass probabilities.",
            UserWarning,
            stacklevel=3,
        )
    if n_classes != probas.shape[2]:
        if labels is None:
            raise ValueError(
                "y_true and y_prob contain different number of "
                f"classes: {n_classes} vs {probas.shape[2]}. Please provide the "
                "true labels explicitly through the labels argument. "
                f"Classes found in y_true: {classes}"
            )
        raise ValueError(
            "The number of classes in labels is different "
            f"from that in y_prob. Classes found in labels: {classes}"
        )
    return targets, probas, weights


def _weights(sample_weight, n_samples: int, xp: ModuleType):
    if sample_weight is None:
        return None
    reject_text_weights(sample_weight)  # scikit-learn averages with them as given
    sample_weight = host_as_numbers(sample_weight, xp)
    weights = check_sample_weight(sample_weight, n_samples, xp=xp, dtype=None)
    return weights.astype(xp.float64)


def _log_loss_batch(
    y_true, y_probas, *, sample_weight=None, normalize=True, labels=None
):
    """Batch kernel of :func:`log_loss`: ``y_probas`` (k, n) or (k, n, n_classes)."""
    xp = metric_namespace(y_true, y_probas, sample_weight)
    probas = _probabilities(y_probas, xp)
    targets, probas, weights = _multiclass_probabilities(
        y_true, probas, sample_weight, labels, xp
    )
    eps = np.finfo(probas.dtype).eps
    probas = xp.clip(probas, eps, 1 - eps)
    # xlogy: 0 where the target is 0 (so an exact -log p of the true class).
    terms = xp.where(targets != 0, targets * xp.log(probas), 0)
    loss = -terms.sum(axis=-1)
    return _row_average(loss, weights, normalize, xp)


def _positive_targets(y_true, pos_label):
    """scikit-learn's binary target checks and ``y_true == pos_label`` (0/1)."""
    y, xt = _own_namespace_array(y_true, "")
    y = _column_or_1d(y)
    y_type = type_of_target(y, xt, input_name="y_true")
    if y_type != "binary":
        raise ValueError(
            f"The type of the target inferred from y_true is {y_type} but should be "
            "binary according to the shape of y_prob."
        )
    if pos_label is None:
        classes = to_host(xt.unique(y))
        strings = classes.dtype.kind in "OUS"
        if strings or tuple(classes.tolist()) not in {
            (0, 1),
            (-1, 1),
            (0,),
            (-1,),
            (1,),
        }:
            if strings:
                classes_repr = ", ".join([repr(c) for c in classes.tolist()])
                raise ValueError(
                    f"y_true takes value in {{{classes_repr}}} and pos_label is not "
                    "specified: either make y_true take value in {0, 1} or "
                    "{-1, 1} or pass pos_label explicitly."
                )
            pos_label = classes[-1]
        else:
            pos_label = 1
    if xt is not np and isinstance(pos_label, str):  # never equal to device labels
        return xt.zeros(y.shape, dtype=xt.int64)
    return xt.asarray(y == pos_label, dtype=xt.int64)


def _brier_score_loss_batch(
    y_true,
    y_probas,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    scale_by_half="auto",
):
    """Batch kernel of :func:`brier_score_loss`: (k, n) or (k, n, n_classes)."""
    xp = metric_namespace(y_true, y_probas, sample_weight)
    probas = _probabilities(y_probas, xp)
    if probas.ndim == 2 or probas.shape[2] == 1:
        probas = probas.reshape(probas.shape[0], -1)
        assert_all_finite(probas, xp=xp)
        check_consistent_length(probas[0], y_true, sample_weight)
        weights = _weights(sample_weight, probas.shape[1], xp)
        positive = _positive_targets(y_true, pos_label)
        _check_probability_range(probas, xp, "less")
        target = to_namespace(positive, xp).astype(probas.dtype)
        per_sample = ((1 - target) - (1 - probas)) ** 2 + (target - probas) ** 2
        n_columns = 2
    else:
        targets, probas, weights = _multiclass_probabilities(
            y_true, probas, sample_weight, labels, xp
        )
        per_sample = ((targets - probas) ** 2).sum(axis=-1)
        n_columns = probas.shape[2]
    score = _row_average(per_sample, weights, True, xp)
    if scale_by_half == "auto":
        scale_by_half = n_columns < 3
    return score * 0.5 if scale_by_half else score


def _top_k_accuracy_score_batch(
    y_true, y_scores, *, sample_weight=None, k=2, normalize=True, labels=None
):
    """Batch kernel of :func:`top_k_accuracy_score`: (c, n) or (c, n, n_classes)."""
    reject_text_weights(sample_weight)
    xp = metric_namespace(y_true, y_scores, sample_weight)
    xt = metric_namespace(y_true)
    y = _column_or_1d(as_array(y_true, xt, input_name=""))
    y_type = type_of_target(y, xt, input_name="y_true")
    if y_type == "binary" and labels is not None and len(labels) > 2:
        y_type = "multiclass"
    if y_type not in {"binary", "multiclass"}:
        raise ValueError(
            f"y type must be 'binary' or 'multiclass', got '{y_type}' instead."
        )
    scores = _to_xp(y_scores, xp)
    if y_type == "binary":
        if scores.ndim == 3 and scores.shape[2] != 1:
            raise ValueError(
                "`y_true` is binary while y_score is 2d with"
                f" {scores.shape[2]} classes. If `y_true` does not contain all the"
                " labels, `labels` must be provided."
            )
        scores = scores.reshape(scores.shape[0], -1)
    elif scores.ndim != 3:
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since "
            "`y_true` contains multiple classes. Got "
            f"`y_score.shape={tuple(scores.shape[1:])}`."
        )
    check_consistent_length(y, scores[0], sample_weight)
    n_score_classes = scores.shape[2] if scores.ndim == 3 else 2
    if labels is None:
        classes = to_host(xt.unique(y))
        if len(classes) != n_score_classes:
            raise ValueError(
                f"Number of classes in 'y_true' ({len(classes)}) not equal "
                f"to the number of classes in 'y_score' ({n_score_classes})."
                "You can provide a list of all known classes by assigning it "
                "to the `labels` parameter."
            )
    else:
        given = _column_or_1d(np.asarray(_to_list(labels)))
        classes = np.unique(given)
        if len(classes) != len(given):
            raise ValueError("Parameter 'labels' must be unique.")
        if not np.array_equal(classes, given):
            raise ValueError("Parameter 'labels' must be ordered.")
        if len(classes) != n_score_classes:
            raise ValueError(
                f"Number of given labels ({len(classes)}) not equal to the "
                f"number of classes in 'y_score' ({n_score_classes})."
            )
        if len(np.setdiff1d(to_host(y), classes)):
            raise ValueError("'y_true' contains labels not in parameter 'labels'.")
    n_classes = len(classes)
    if k >= n_classes:
        warnings.warn(
            f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) "
            "will result in a perfect score and is therefore meaningless.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    codes = to_namespace(xt.searchsorted(to_namespace(classes, xt), y), xp)
    if y_type == "binary":
        if k == 1:
            probability = (scores.min(axis=1) >= 0) & (scores.max(axis=1) <= 1)
            threshold = xp.where(probability, 0.5, 0.0)[:, None]
            hits = (scores > threshold).astype(xp.int64) == codes[None, :]
        else:
            hits = xp.ones(scores.shape, dtype=bool)
    else:
        # Rank of the true class in a stable descending sort, as scikit-learn's
        # reversed mergesort: ties go to the higher class index.
        index = xp.broadcast_to(codes[None, :, None], (scores.shape[0], len(y), 1))
        true_score = xp.take_along_axis(scores, index, axis=2)
        later = xp.arange(n_score_classes)[None, None, :] > codes[None, :, None]
        ahead = (scores > true_score) | ((scores == true_score) & later)
        hits = ahead.sum(axis=2) < k
    weights = _to_xp(host_as_numbers(sample_weight, xp), xp)
    if weights is not None:
        if weights.shape != (hits.shape[1],):  # np.average's error in scikit-learn
            raise TypeError(
                "Axis must be specified when shapes of a and weights differ."
            )
        weights = weights.astype(xp.float64)
    return _row_average(hits, weights, normalize, xp)


# -- public functions ------------------------------------------------------------
