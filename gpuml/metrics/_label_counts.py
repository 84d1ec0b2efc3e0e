"""Label machinery shared by the classification kernels.

Encoding a batch of candidates' labels against their union, the per-candidate
masks of present labels, per-candidate counts from one ``bincount``, and the
label selection and averaging rules of scikit-learn's precision/recall
family. Split from ``_classification.py``; see its docstring for the design.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Real
from types import ModuleType

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_consistent_length

from gpuml._array import (
    DEVICE,
    as_device_native,
    input_family,
    to_host,
    to_namespace,
)
from gpuml._sklearn_compat import (
    Options,
    StrOptions,
)
from gpuml._validation import assert_all_finite
from gpuml.metrics._base import (
    check_targets,
    host_as_numbers,
    metric_namespace,
    not_integral,
    weights_sum_to_zero,
)

_AVERAGE_OPTIONS = (None, "micro", "macro", "weighted", "samples")
_AVERAGE = [StrOptions({"micro", "macro", "samples", "weighted", "binary"}), None]
_ZERO_DIVISION = [Options(Real, {0.0, 1.0}), "nan", StrOptions({"warn"})]
_LABELS = ["array-like", None]
_POS_LABEL = [Real, str, "boolean", None]
_TARGET = ["array-like", "sparse matrix"]


# -- small helpers -------------------------------------------------------------


def _to_xp(a, xp: ModuleType):
    """Any array-like (host or device) as an array of ``xp``; None stays None."""
    if a is None:
        return None
    if input_family(a) == DEVICE:
        return to_namespace(as_device_native(a), xp)
    return to_namespace(np.asarray(a), xp)


def _is_string_like(a) -> bool:
    if a.dtype.kind in "US":
        return True
    return a.dtype.kind == "O" and a.size > 0 and isinstance(a.ravel()[0], str)


def _divide(numerator, denominator, xp: ModuleType):
    """``numerator / denominator`` with 0/0 (and x/0) as 0, without warnings."""
    zero = denominator == 0
    return xp.where(zero, 0.0, numerator / xp.where(zero, 1, denominator))


def _zero_division_value(zero_division) -> float:
    if isinstance(zero_division, str) and zero_division == "warn":
        return 0.0
    if isinstance(zero_division, (int, float)) and zero_division in (0, 1):
        return float(zero_division)
    return math.nan


def _row_average(values, weights, normalize, xp: ModuleType):
    """scikit-learn's ``_average`` per candidate: rows of ``values`` (k, n)."""
    if weights is None:
        if normalize:
            return values.mean(axis=-1)
        total = values.sum(axis=-1)
        return total.astype(xp.float64) if values.dtype.kind in "biu" else total
    weighted = (values.astype(xp.float64) * weights).sum(axis=-1)
    if not normalize:
        return weighted
    total = weights.sum()
    if bool(total == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return weighted / total


def _label_average(values, mask, weights, xp: ModuleType, *, skip_nan: bool):
    """Average over labels (last axis) of the entries in ``mask``, per candidate.

    ``skip_nan`` gives scikit-learn's ``_nanaverage`` (NaN entries left out, and
    all-zero weights fall back to the plain mean); otherwise ``np.average``.
    """
    valid = mask & ~xp.isnan(values) if skip_nan else mask
    count = valid.sum(axis=-1)
    kept = xp.where(valid, values, 0.0)
    mean = kept.sum(axis=-1) / xp.maximum(count, 1)
    if weights is not None:
        w = xp.where(valid, weights, 0).astype(xp.float64)
        total = w.sum(axis=-1)
        if not skip_nan and bool(((total == 0) & (count > 0)).any()):
            # np.average's error for weights (of both signs) summing to zero
            raise weights_sum_to_zero()
        weighted = (kept * w).sum(axis=-1) / xp.where(total == 0, 1, total)
        mean = xp.where(total == 0, mean, weighted)
    return xp.where(count == 0, xp.nan, mean)


def _host_position(values, classes_host: np.ndarray) -> np.ndarray:
    """Index of each value in ``classes_host`` (``len(classes_host)`` if absent)."""
    lookup = {c: i for i, c in enumerate(classes_host.tolist())}
    missing = len(classes_host)
    return np.array([lookup.get(v, missing) for v in values], dtype=np.int64)


def _to_list(values) -> list:
    values = to_host(values) if input_family(values) == DEVICE else values
    return np.asarray(values).ravel().tolist()


# -- label batches ---------------------------------------------------------------


@dataclass
class _LabelBatch:
    """``y_true`` and ``k`` candidates' predictions, encoded for counting.

    For 1-D targets, ``true`` (n,) and ``pred`` (k, n) are indices into the
    sorted ``classes`` (the union over ``y_true`` and all candidates) and
    ``present`` (k, n_classes) marks the labels of ``y_true`` or of each
    candidate's predictions. For multilabel indicators, ``true`` (n, L) and
    ``pred`` (k, n, L) are booleans and every label is present.
    """

    xp: ModuleType
    multilabel: bool
    classes: object
    true: object
    pred: object
    present: object
    weights: object  # float64 (n,) or None
    int_weights: object  # the weights as int64 (n,) when they are integers, or None
    true_counts: object = None
    pred_counts: object = None

    @property
    def k(self) -> int:
        return self.pred.shape[0]

    @property
    def n_samples(self) -> int:
        return self.true.shape[0]

    @property
    def n_classes(self) -> int:
        return self.classes.shape[0]

    def classes_host(self) -> np.ndarray:
        return to_host(self.classes)

    def n_present(self) -> np.ndarray:
        return to_host(self.present.sum(axis=-1))


def _raise_target_error(y_true, y_preds, xp: ModuleType):
    """Raise scikit-learn's error for the first candidate that has one."""
    for y_pred in y_preds:
        check_targets(y_true, y_pred, xp)
    raise ValueError("y_true and y_preds are not classification targets of one task")


def _is_continuous(y, xp: ModuleType, input_name: str) -> bool:
    if y.dtype.kind != "f":
        return False
    assert_all_finite(y, xp=xp, input_name=input_name)
    return bool(xp.any(not_integral(y, xp)))


def _label_batch(y_true, y_preds, sample_weight, *, encode=True) -> _LabelBatch:
    """Check and encode a batch of label predictions against ``y_true``."""
    xp = metric_namespace(y_true, y_preds, sample_weight)
    y_true, y_preds = _to_xp(y_true, xp), _to_xp(y_preds, xp)
    if y_true.ndim == 2 and y_true.shape[1] == 1:
        y_true = y_true[:, 0]
    if y_preds.ndim == 3 and y_preds.shape[2] == 1:
        y_preds = y_preds[:, :, 0]
    if y_true.ndim not in (1, 2) or y_preds.ndim != y_true.ndim + 1:
        if y_preds.ndim in (2, 3) and y_true.ndim in (1, 2):
            _raise_target_error(y_true, y_preds, xp)
        raise ValueError(
            "y_preds needs a leading candidate axis: shape (k, n_samples) for "
            "labels or (k, n_samples, n_labels) for multilabel indicators; got "
            f"y_true of shape {y_true.shape} and y_preds of shape {y_preds.shape}."
        )
    check_consistent_length(y_true, y_preds[0], sample_weight)
    multilabel = y_true.ndim == 2
    if (
        y_true.shape[0] == 0
        or (multilabel and y_preds.shape[2] != y_true.shape[1])
        or _is_string_like(y_true) != _is_string_like(y_preds)
        or _is_continuous(y_true, xp, "y_true")
        or _is_continuous(y_preds, xp, "y_pred")
    ):
        _raise_target_error(y_true, y_preds, xp)
    weights, int_weights = None, None
    if sample_weight is not None:
        weights = _to_xp(host_as_numbers(sample_weight, xp), xp)
        if weights.dtype.kind in "biu":
            int_weights = weights.astype(xp.int64)
        weights = weights.astype(xp.float64)
    k = y_preds.shape[0]
    if multilabel:
        n_labels = y_true.shape[1]
        return _LabelBatch(
            xp,
            True,
            xp.arange(n_labels),
            y_true != 0,
            y_preds != 0,
            xp.ones((k, n_labels), dtype=bool),
            weights,
            int_weights,
        )
    if not encode:
        return _LabelBatch(xp, False, None, y_true, y_preds, None, weights, int_weights)
    classes = xp.unique(xp.concatenate([y_true, y_preds.ravel()]))
    n_classes = classes.shape[0]
    true = xp.searchsorted(classes, y_true)
    pred = xp.searchsorted(classes, y_preds.ravel()).reshape(y_preds.shape)
    true_counts = xp.bincount(true, minlength=n_classes)
    offsets = xp.arange(k)[:, None] * n_classes
    pred_counts = xp.bincount(
        (offsets + pred).ravel(), minlength=k * n_classes
    ).reshape(k, n_classes)
    present = (pred_counts > 0) | (true_counts > 0)[None, :]
    return _LabelBatch(
        xp,
        False,
        classes,
        true,
        pred,
        present,
        weights,
        int_weights,
        true_counts,
        pred_counts,
    )


def _counts(batch: _LabelBatch, selection=None, samplewise=False):
    """Weighted true-positive, predicted and true counts per candidate.

    Returns ``tp`` (k, m), ``pred`` (k, m) and ``true`` (1, m): per label, or
    per sample when ``samplewise``. ``selection`` picks labels (class indices;
    ``n_classes`` gives a column of zeros for a label absent from the data).
    Integer counts without weights, float64 with.
    """
    xp, w = batch.xp, batch.weights
    if batch.multilabel:
        true, pred = batch.true, batch.pred
        if selection is not None:
            index = xp.asarray(selection)
            true, pred = true[:, index], pred[:, :, index]
        both = true[None] & pred
        if samplewise:
            tp, n_pred, n_true = both.sum(axis=2), pred.sum(axis=2), true.sum(axis=1)
            if w is not None:
                tp, n_pred, n_true = tp * w, n_pred * w, n_true * w
            return tp, n_pred, n_true[None]
        if w is None:
            return both.sum(axis=1), pred.sum(axis=1), true.sum(axis=0)[None]
        column = w[:, None]
        return (
            (both * column).sum(axis=1),
            (pred * column).sum(axis=1),
            (true * column).sum(axis=0)[None],
        )
    k, n_classes = batch.k, batch.n_classes
    size = k * n_classes
    offsets = xp.arange(k)[:, None] * n_classes
    hit = batch.pred == batch.true[None, :]
    tp_bins = xp.where(hit, offsets + batch.true[None, :], size).ravel()
    if w is None:
        tp = xp.bincount(tp_bins, minlength=size + 1)[:size].reshape(k, n_classes)
        n_pred, n_true = batch.pred_counts, batch.true_counts
    else:
        wk = xp.broadcast_to(w, batch.pred.shape).ravel()
        tp = xp.bincount(tp_bins, weights=wk, minlength=size + 1)[:size]
        tp = tp.reshape(k, n_classes)
        n_pred = xp.bincount((offsets + batch.pred).ravel(), weights=wk, minlength=size)
        n_pred = n_pred.reshape(k, n_classes)
        n_true = xp.bincount(batch.true, weights=w, minlength=n_classes)
    n_true = n_true[None, :]
    if selection is not None:
        index = xp.asarray(selection)
        tp, n_pred, n_true = (
            xp.concatenate([a, xp.zeros((a.shape[0], 1), dtype=a.dtype)], axis=1)[
                :, index
            ]
            for a in (tp, n_pred, n_true)
        )
    return tp, n_pred, n_true


def _multilabel_selection(labels, n_labels: int) -> np.ndarray:
    """Column indices for ``labels`` of a multilabel target, with sklearn's checks."""
    labels = np.asarray(_to_list(labels))
    full = np.concatenate([labels, np.setdiff1d(np.arange(n_labels), labels)])
    if full.shape != (n_labels,) or np.any(full != np.arange(n_labels)):
        if full.max() > n_labels - 1:
            raise ValueError(
                "All labels must be in [0, n labels) for multilabel targets. "
                f"Got {full.max()} > {n_labels - 1}"
            )
        if full.min() < 0:
            raise ValueError(
                "All labels must be in [0, n labels) for multilabel targets. "
                f"Got {full.min()} < 0"
            )
    return labels


def _require_common_labels(batch: _LabelBatch, name: str) -> None:
    if batch.k > 1 and bool(batch.xp.any(batch.present != batch.present[:1])):
        raise ValueError(
            f"Batched {name} needs the same label set in every candidate; the "
            "candidates predict different labels. Pass labels= to fix the set "
            "(scikit-learn takes the labels present in y_true and y_pred)."
        )


def _set_wise(batch: _LabelBatch, average, labels, pos_label):
    """scikit-learn's ``_check_set_wise_labels`` and label selection, per candidate.

    Returns ``(selection, mask, sizes)``: the labels to count (None: all
    classes), the (k, m) mask of labels each candidate averages over, and the
    per-candidate number of results (for warning messages).
    """
    xp, k = batch.xp, batch.k
    if average not in _AVERAGE_OPTIONS and average != "binary":
        raise ValueError("average has to be one of " + str(_AVERAGE_OPTIONS))
    if average == "binary":
        n_present = None if batch.multilabel else batch.n_present()
        if batch.multilabel or (n_present > 2).any():
            y_type = "multilabel-indicator" if batch.multilabel else "multiclass"
            options = list(_AVERAGE_OPTIONS)
            if y_type == "multiclass":
                options.remove("samples")
            raise ValueError(
                f"Target is {y_type} but average='binary'. Please "
                f"choose another average setting, one of {options!r}."
            )
        classes = batch.classes_host()
        position = int(_host_position([pos_label], classes)[0])
        if position < len(classes):
            absent = ~to_host(batch.present[:, position])
        else:
            absent = np.ones(k, dtype=bool)
        bad = np.flatnonzero(absent & (n_present >= 2))
        if bad.size:
            present_labels = classes[to_host(batch.present[bad[0]])]
            raise ValueError(
                f"pos_label={pos_label} is not a valid label. It "
                f"should be one of {present_labels}"
            )
        return [position], xp.ones((k, 1), dtype=bool), np.ones(k, dtype=np.int64)
    if pos_label not in (None, 1):
        warnings.warn(
            f"Note that pos_label (set to {pos_label!r}) is ignored when "
            f"average != 'binary' (got {average!r}). You may use "
            "labels=[pos_label] to specify a single positive class.",
            UserWarning,
            stacklevel=3,
        )
    samplewise = average == "samples"
    if not batch.multilabel:
        if samplewise:
            raise ValueError(
                "Samplewise metrics are not available outside of "
                "multilabel classification."
            )
        if labels is None:
            if average is None:
                _require_common_labels(batch, "per-label scores (average=None)")
            return None, batch.present, batch.n_present()
        selection = _host_position(_to_list(labels), batch.classes_host())
    elif labels is None:
        selection = None
    else:
        selection = _multilabel_selection(labels, batch.n_classes)
    n_selected = batch.n_classes if selection is None else len(selection)
    m = batch.n_samples if samplewise else n_selected
    return selection, xp.ones((k, m), dtype=bool), np.full(k, m, dtype=np.int64)


def _warn_prf(average, modifier, msg_start, triggered, sizes) -> None:
    """scikit-learn's ``_warn_prf``, once per distinct message in the batch."""
    triggered = to_host(triggered)
    if not triggered.any():
        return
    axis0, axis1 = "sample", "label"
    if average == "samples":
        axis0, axis1 = axis1, axis0
    msg = (
        f"{msg_start} ill-defined and being set to 0.0 {{0}} "
        f"no {modifier} {axis0}s. Use `zero_division` parameter to control"
        " this behavior."
    )
    for single in dict.fromkeys((np.asarray(sizes)[triggered] == 1).tolist()):
        text = msg.format("due to" if single else f"in {axis1}s with")
        warnings.warn(text, UndefinedMetricWarning, stacklevel=4)


def _prf_divide(numerator, denominator, mask, zero_division, xp: ModuleType):
    """Ratios with scikit-learn's zero-division value, and who divided by zero."""
    numerator = numerator.astype(xp.float64)
    denominator = denominator.astype(xp.float64)
    zero = denominator == 0
    result = numerator / xp.where(zero, 1.0, denominator)
    result = xp.where(zero, _zero_division_value(zero_division), result)
    return result, xp.any(zero & mask, axis=-1)


def _check_zero_division_kernel(zero_division) -> None:
    if isinstance(zero_division, str):
        valid = zero_division == "warn"
    else:
        valid = zero_division in (0, 1) or math.isnan(zero_division)
    if not valid:
        raise ValueError(
            f"zero_division must be 'warn', 0, 1 or nan; got {zero_division!r}"
        )
