"""What every metric shares: the namespace, target types, labels, batching.

Namespace
    A metric computes where its inputs live: CuPy when any input is a device
    array, NumPy otherwise (:func:`metric_namespace`). Inputs are validated
    into that namespace; only the final score leaves the device.

Batching
    Every metric is a *kernel* over validated arrays that accepts a leading
    candidate axis on the predictions: ``y_pred`` of shape ``(k, n)`` (labels
    or values), or ``(k, n, n_classes)`` for probabilities, gives ``k``
    scores in one reduction, as a 0-d or 1-d array of the namespace. The
    public function calls its kernel with ``k = 1`` and converts the result
    to a ``float`` once. The model-selection search calls kernels directly
    (through scorers, see ``_scorer.py``) with all candidates of a group.

Target types and labels
    Host inputs use scikit-learn's public ``type_of_target`` and
    ``unique_labels`` (string labels included); device inputs get the same
    rules here, with CuPy reductions. Labels are encoded as integer indices
    into the sorted array of classes with ``searchsorted``, in either
    namespace, so kernels only ever see integers.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.utils.multiclass import type_of_target as sk_type_of_target
from sklearn.utils.multiclass import unique_labels as sk_unique_labels
from sklearn.utils.validation import check_consistent_length

from gpuml._array import (
    DEVICE,
    input_family,
    input_namespace,
    is_sparse,
    to_float,
    to_host,
    to_namespace,
)
from gpuml._labels import distinct_integer_labels
from gpuml._validation import assert_all_finite, check_array

metric_namespace = input_namespace

_CLASSIFICATION_TYPES = ("binary", "multiclass", "multilabel-indicator")


def as_array(
    y,
    xp: ModuleType,
    *,
    input_name: str,
    dtype=None,
    ensure_2d=False,
    ensure_min_samples=1,
    allow_nd=False,
):
    """Any array-like as a dense ``xp`` array (labels may be strings on the host).

    Floating values are checked for NaN/inf with scikit-learn's messages.
    """
    return check_array(
        y,
        xp=xp,
        ensure_2d=ensure_2d,
        dtype=dtype,
        allow_nd=allow_nd,
        ensure_min_samples=ensure_min_samples,
        input_name=input_name,
    )


def type_of_target(y, xp: ModuleType, *, input_name: str = "") -> str:
    """scikit-learn's ``type_of_target`` for a validated array of ``xp``."""
    if xp is np:
        return sk_type_of_target(y, input_name=input_name)
    return _device_type_and_values(y, xp, input_name)[0]


def _device_type_and_values(y, xp: ModuleType, input_name: str):
    """``(type_of_target(y), distinct)`` for a device array: ``distinct`` is
    the sorted distinct values of integer labels on the host, counted by
    gpuml's label kernels (no sort to compile; ``gpuml._labels``), or None
    where the type did not need them or they are not such labels."""
    if y.ndim > 2 or (y.ndim == 2 and y.shape[1] == 0) or y.size == 0:
        return "unknown", None
    multioutput = y.ndim == 2 and y.shape[1] > 1
    if y.dtype.kind == "f":
        assert_all_finite(y, xp=xp, input_name=input_name)
        if bool(not_integral(y, xp).any()):
            return ("continuous-multioutput" if multioutput else "continuous"), None
    distinct = distinct_integer_labels(y, xp)
    n_unique = int(xp.unique(y).size) if distinct is None else distinct.shape[0]
    if multioutput:
        kind = "multilabel-indicator" if n_unique < 3 else "multiclass-multioutput"
    else:
        kind = "multiclass" if n_unique > 2 else "binary"
    return kind, distinct


def not_integral(y, xp: ModuleType):
    """Where float values are not integers, as scikit-learn's ``type_of_target``
    sees them: values that do not survive a round trip through int64 (so also
    those beyond its range) make a target continuous."""
    return (y != xp.floor(y)) | (y >= 2.0**63) | (y < -(2.0**63))


def unique_labels(*ys, xp: ModuleType, ys_types=None):
    """Sorted unique labels of label arrays of ``xp`` (scikit-learn's rules).

    ``ys_types`` is the set of the arrays' target types where the caller
    knows it (else computed): only binary, multiclass and multilabel
    indicator targets have labels, as in scikit-learn.
    """
    if xp is np:
        return sk_unique_labels(*ys)
    distinct = [None] * len(ys)
    if ys_types is None:  # the types' distinct values serve the labels too
        typed = [_device_type_and_values(y, xp, "") for y in ys]
        ys_types = {kind for kind, _ in typed}
        distinct = [values for _, values in typed]
    ys_types = set(ys_types)
    if ys_types == {"binary", "multiclass"}:
        ys_types = {"multiclass"}
    if len(ys_types) > 1:
        raise ValueError(f"Mix type of y not allowed, got types {ys_types}")
    if ys_types.pop() not in _CLASSIFICATION_TYPES:
        raise ValueError(f"Unknown label type: {tuple(to_host(y) for y in ys)!r}")
    if any(y.ndim == 2 and y.shape[1] > 1 for y in ys):
        if len({y.shape[1] if y.ndim == 2 else 1 for y in ys}) > 1:
            raise ValueError(
                "Multi-label binary indicator input with different numbers of labels"
            )
        return xp.arange(ys[0].shape[1])
    distinct = [
        distinct_integer_labels(y, xp) if values is None else values
        for y, values in zip(ys, distinct, strict=True)
    ]
    return _union(ys, distinct, xp)


def _union(ys, distinct, xp: ModuleType):
    """The sorted labels of 1-D device arrays ``ys``, from their distinct
    values on the host where every array has them, else ``xp.unique``."""
    if any(values is None for values in distinct):
        return xp.unique(xp.concatenate([y.ravel() for y in ys]))
    dtype = np.result_type(*(y.dtype for y in ys))
    return xp.asarray(np.unique(np.concatenate(distinct)).astype(dtype))


def encode(y, classes, xp: ModuleType):
    """Indices of ``y``'s values in the sorted ``classes`` (values must be there)."""
    return xp.searchsorted(classes, y)


def check_targets(y_true, y_pred, xp: ModuleType):
    """scikit-learn's ``_check_targets`` in ``xp``.

    Returns ``(y_type, classes, y_true, y_pred)`` with ``y_type`` one of
    "binary", "multiclass", "multilabel-indicator"; 1-D label arrays for the
    first two and dense 0/1 indicator matrices for the last.
    """
    check_consistent_length(y_true, y_pred)
    # More than two dimensions is an "unknown" target, as in scikit-learn.
    y_true = as_array(
        y_true, xp, input_name="y_true", ensure_min_samples=0, allow_nd=True
    )
    y_pred = as_array(
        y_pred, xp, input_name="y_pred", ensure_min_samples=0, allow_nd=True
    )
    if xp is np:
        type_true = type_of_target(y_true, xp, input_name="y_true")
        type_pred = type_of_target(y_pred, xp, input_name="y_pred")
        distinct = [None, None]
    else:  # the integer labels' distinct values serve the type and the classes
        type_true, true_values = _device_type_and_values(y_true, xp, "y_true")
        type_pred, pred_values = _device_type_and_values(y_pred, xp, "y_pred")
        distinct = [true_values, pred_values]
    if y_true.shape[0] < 1 or y_pred.shape[0] < 1:
        raise ValueError(
            "Found empty input array (e.g., `y_true` or `y_pred`) while a minimum "
            "of 1 sample is required."
        )
    y_type = {type_true, type_pred}
    if y_type == {"binary", "multiclass"}:
        y_type = {"multiclass"}
    if len(y_type) > 1:
        raise ValueError(
            f"Classification metrics can't handle a mix of {type_true} and "
            f"{type_pred} targets"
        )
    y_type = y_type.pop()
    if y_type not in _CLASSIFICATION_TYPES:
        raise ValueError(f"{y_type} is not supported")
    if y_type in ("binary", "multiclass"):
        y_true, y_pred = y_true.ravel(), y_pred.ravel()
    if xp is not np and y_type in ("binary", "multiclass"):
        classes = _union((y_true, y_pred), distinct, xp)
    else:
        classes = unique_labels(y_true, y_pred, xp=xp, ys_types={y_type})
    if y_type == "binary" and classes.shape[0] > 2:
        y_type = "multiclass"
    return y_type, classes, y_true, y_pred


def weights_sum_to_zero() -> ZeroDivisionError:
    """``np.average``'s error for weights that sum to zero, which
    scikit-learn's averages of scores let through."""
    return ZeroDivisionError("Weights sum to zero, can't be normalized")


def check_weights(
    sample_weight,
    n_samples: int,
    xp: ModuleType,
    dtype=np.float64,
    *,
    allow_all_zero_weights=False,
):
    """Validated sample weights in ``xp`` (None stays None), for ranking metrics.

    As in scikit-learn's ranking metrics, a column of weights is accepted.
    ``allow_all_zero_weights`` leaves the all-zero check to the kernel, for
    metrics where scikit-learn makes it per binary problem.
    """
    if sample_weight is None:
        return None
    from gpuml._validation import check_sample_weight

    shape = getattr(sample_weight, "shape", None) or np.shape(sample_weight)
    if len(shape) == 2:  # scikit-learn's column_or_1d: a column is accepted
        if shape[1] != 1:
            raise ValueError(
                f"y should be a 1d array, got an array of shape {tuple(shape)} instead."
            )
        if hasattr(sample_weight, "__cuda_array_interface__"):
            sample_weight = sample_weight[:, 0]
        else:
            sample_weight = np.asarray(sample_weight)[:, 0]
    return check_sample_weight(
        sample_weight,
        n_samples,
        xp=xp,
        dtype=dtype,
        allow_all_zero_weights=allow_all_zero_weights,
    )


def reject_text_weights(sample_weight, *, allow_object: bool = True) -> None:
    """Raise scikit-learn's TypeError for weights given as text.

    Most of scikit-learn's classification metrics use ``sample_weight``
    without converting it (``np.average``, ``np.bincount``), so weights of
    strings (even numeric ones) fail there with a TypeError, where metrics
    that validate their weights convert numeric strings. ``allow_object``
    says whether an object array of numbers works (``np.average``) or not
    (``np.bincount``). Only host inputs can hold text: device arrays pass.
    """
    if sample_weight is None or hasattr(sample_weight, "__cuda_array_interface__"):
        return
    dtype = getattr(sample_weight, "dtype", None)
    if dtype is None or not isinstance(dtype, np.dtype):
        try:
            dtype = np.asarray(sample_weight).dtype
        except (TypeError, ValueError):
            return  # ragged input: the usual validation reports it
    if dtype.kind in "USV":
        text = True
    elif dtype.kind == "O":
        values = np.asarray(sample_weight, dtype=object).ravel()
        text = not allow_object or any(isinstance(v, (str, bytes)) for v in values)
    else:
        return
    if text:
        raise TypeError(
            f"sample_weight must be an array of numbers, got dtype {dtype}: "
            "convert the weights to numbers explicitly."
        )


def host_as_numbers(values, xp: ModuleType):
    """Host values (weights, regression targets) of text or objects as
    float64, for a device namespace.

    CuPy holds neither strings nor objects: where ``xp`` is CuPy, such host
    values are converted on the host, with NumPy's values and errors (those
    the host path meets when it converts them). Anything else is unchanged.
    """
    if (
        xp is np
        or values is None
        or input_family(values) == DEVICE
        or is_sparse(values)
    ):
        return values
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        return values  # ragged input: the usual validation reports it
    if array.dtype.kind in "OSUV":
        return array.astype(np.float64)
    return values


def weighted_sum(values, weights, xp: ModuleType, axis=-1):
    """``sum(values * weights)`` along ``axis`` (weights broadcast on the last axis)."""
    if weights is None:
        return values.sum(axis=axis)
    return (values * weights).sum(axis=axis)


def to_score(result):
    """A 0-d array (or a batch of one) becomes a float; other arrays stay."""
    if getattr(result, "ndim", 0) == 0:
        return to_float(result)
    if result.ndim == 1 and result.shape[0] == 1:
        return to_float(result[0])
    return result


def host_labels(values):
    """Labels as a NumPy array (for messages and ``labels=`` arguments)."""
    return to_namespace(values, np)
