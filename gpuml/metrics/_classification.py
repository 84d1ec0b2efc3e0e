"""Classification metrics computed where the data lives, for one candidate or many.

Batch kernels
    Every metric ``foo`` has a kernel ``_foo_batch(y_true, y_preds, ...)``
    that scores ``k`` candidates at once: ``y_preds`` has a leading candidate
    axis, ``(k, n)`` for labels or binary probabilities, ``(k, n, n_classes)``
    for class probabilities or scores, ``(k, n, n_labels)`` for multilabel
    indicators. Counts per candidate and class come from one ``bincount`` over
    ``candidate * n_classes + class`` (or one masked sum for indicators), so
    nothing loops over candidates in Python. A kernel returns an array of its
    namespace, shape ``(k,)`` for scores. The public function validates like
    scikit-learn, calls its kernel with ``k = 1`` and converts once, at the
    boundary. ``BATCH_KERNELS`` maps each public scalar metric to its kernel,
    for the scorers.

Labels
    scikit-learn takes the label set of each call from ``y_true`` and
    ``y_pred``. A batch is encoded against the union over ``y_true`` and all
    candidates, and each candidate keeps a mask of the labels present in
    ``y_true`` or its own predictions. Averages over labels, the binary or
    multiclass decision, and zero-division warnings follow the mask, so a
    candidate scores the same in a batch as alone. Where scikit-learn would
    raise for one candidate, the batch raises: the search then scores the
    candidates of the group one by one. Array results whose shape depends on
    the label set (``confusion_matrix`` and friends with ``labels=None``) need
    the same label set in every candidate of a batch.

Warnings
    A batch emits each distinct warning of scikit-learn once when any
    candidate triggers it.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_consistent_length

from gpuml._array import (
    HOST,
    input_family,
    is_sparse,
)
from gpuml._sklearn_compat import (
    Hidden,
    Interval,
    Options,
    StrOptions,
    validate_params,
)
from gpuml._validation import check_sample_weight
from gpuml.metrics._base import (
    as_array,
    check_targets,
    host_as_numbers,
    metric_namespace,
    reject_text_weights,
    to_score,
)
from gpuml.metrics._classification_kernels import (
    _accuracy_score_batch,
    _balanced_accuracy_score_batch,
    _brier_score_loss_batch,
    _confusion_matrix_batch,
    _f1_score_batch,
    _fbeta_score_batch,
    _hamming_loss_batch,
    _jaccard_score_batch,
    _log_loss_batch,
    _matthews_corrcoef_batch,
    _multilabel_confusion_matrix_batch,
    _precision_recall_fscore_support_batch,
    _precision_score_batch,
    _recall_score_batch,
    _top_k_accuracy_score_batch,
    _zero_one_loss_batch,
)
from gpuml.metrics._label_counts import (
    _AVERAGE,
    _LABELS,
    _POS_LABEL,
    _TARGET,
    _ZERO_DIVISION,
)


def _check_at_most_2d(*ys) -> None:
    """scikit-learn's confusion matrices check dimensions before target types."""
    for y in ys:
        ndim = y.ndim if hasattr(y, "ndim") else np.ndim(y)
        if ndim > 2:
            raise ValueError(
                f"Found array with dim {ndim}, while dim <= 2 is required."
            )


def _validate_targets(y_true, y_pred, sample_weight, *, text_weights="raise"):
    """scikit-learn's ``_check_targets`` (and weights) into one namespace.

    ``text_weights`` follows what scikit-learn's metric does with weights
    given as strings: "convert" them (metrics that validate their weights),
    "raise" a TypeError (metrics that average with them; an object array of
    numbers works), or raise for any object array too ("strict": metrics
    that count with ``np.bincount``).
    """
    if text_weights != "convert":
        reject_text_weights(sample_weight, allow_object=text_weights == "raise")
    xp = metric_namespace(y_true, y_pred, sample_weight)
    check_consistent_length(y_true, y_pred, sample_weight)
    sparse = is_sparse(y_true) or is_sparse(y_pred)
    y_true, y_pred = (y.toarray() if is_sparse(y) else y for y in (y_true, y_pred))
    if xp is not np:
        for y in (y_true, y_pred):
            if input_family(y) == HOST and np.asarray(y).dtype.kind in "OUS":
                raise ValueError("Mix of label input types (string and number)")
    y_type, _, y_true, y_pred = check_targets(y_true, y_pred, xp)
    if sparse and y_type != "multilabel-indicator":
        raise TypeError(
            "Sparse input is only supported when targets are of multilabel type"
        )
    if sample_weight is not None:
        sample_weight = check_sample_weight(
            host_as_numbers(sample_weight, xp),
            y_true.shape[0],
            xp=xp,
            dtype=None,
        )
    return y_true, y_pred, sample_weight


@validate_params(
    {
        "y_true": _TARGET,
        "y_pred": _TARGET,
        "normalize": ["boolean"],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None):
    """Accuracy classification score (subset accuracy for multilabel targets).

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like or label indicator array of shape (n_samples,) or \
            (n_samples, n_labels)
        Ground truth (correct) labels.
    y_pred : array-like or label indicator array
        Predicted labels, as returned by a classifier.
    normalize : bool, default=True
        Return the fraction of correctly classified samples, else their
        (weighted) number.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    score : float

    Examples
    --------
    >>> from gpuml.metrics import accuracy_score
    >>> accuracy_score([0, 2, 1, 3], [0, 1, 2, 3])
    0.5
    """
    y_true, y_pred, sample_weight = _validate_targets(y_true, y_pred, sample_weight)
    return to_score(
        _accuracy_score_batch(
            y_true, y_pred[None], sample_weight=sample_weight, normalize=normalize
        )
    )


@validate_params(
    {
        "y_true": _TARGET,
        "y_pred": _TARGET,
        "normalize": ["boolean"],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def zero_one_loss(y_true, y_pred, *, normalize=True, sample_weight=None):
    """Zero-one classification loss: ``1 - accuracy`` (or the weighted misses).

    Parameters
    ----------
    y_true, y_pred : array-like or label indicator array
        Ground truth and predicted labels.
    normalize : bool, default=True
        Return the fraction of misclassifications, else their (weighted) number.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float

    Examples
    --------
    >>> from gpuml.metrics import zero_one_loss
    >>> zero_one_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    """
    y_true, y_pred, sample_weight = _validate_targets(y_true, y_pred, sample_weight)
    return to_score(
        _zero_one_loss_batch(
            y_true, y_pred[None], sample_weight=sample_weight, normalize=normalize
        )
    )


@validate_params(
    {"y_true": _TARGET, "y_pred": _TARGET, "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def hamming_loss(y_true, y_pred, *, sample_weight=None):
    """The average Hamming loss: the fraction of labels predicted wrongly.

    Parameters
    ----------
    y_true, y_pred : array-like or label indicator array
        Ground truth and predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float

    Examples
    --------
    >>> from gpuml.metrics import hamming_loss
    >>> hamming_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    """
    y_true, y_pred, sample_weight = _validate_targets(y_true, y_pred, sample_weight)
    return to_score(
        _hamming_loss_batch(y_true, y_pred[None], sample_weight=sample_weight)
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "sample_weight": ["array-like", None],
        "adjusted": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def balanced_accuracy_score(y_true, y_pred, *, sample_weight=None, adjusted=False):
    """Balanced accuracy: the average of the recall of each class.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Ground truth and predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    adjusted : bool, default=False
        Adjust for chance, so that random performance scores 0.

    Returns
    -------
    balanced_accuracy : float

    Examples
    --------
    >>> from gpuml.metrics import balanced_accuracy_score
    >>> balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1])
    0.625
    """
    _check_at_most_2d(y_true, y_pred)
    if sample_weight is None:  # scikit-learn's message counts its unit weights
        check_consistent_length(y_true, y_pred, y_true)
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="convert"
    )
    return to_score(
        _balanced_accuracy_score_batch(
            y_true, y_pred[None], sample_weight=sample_weight, adjusted=adjusted
        )
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def matthews_corrcoef(y_true, y_pred, *, sample_weight=None):
    """Matthews correlation coefficient (MCC), binary or multiclass.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Ground truth and predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    mcc : float
        Between -1 and +1; 0 when undefined.

    Examples
    --------
    >>> from gpuml.metrics import matthews_corrcoef
    >>> matthews_corrcoef([+1, +1, +1, -1], [+1, -1, +1, +1])
    -0.333...
    """
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="convert"
    )
    return to_score(
        _matthews_corrcoef_batch(y_true, y_pred[None], sample_weight=sample_weight)
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_pred": ["array-like"],
        "labels": _LABELS,
        "sample_weight": ["array-like", None],
        "normalize": [StrOptions({"true", "pred", "all"}), None],
    },
    prefer_skip_nested_validation=True,
)
def confusion_matrix(
    y_true, y_pred, *, labels=None, sample_weight=None, normalize=None
):
    """Confusion matrix: ``C[i, j]`` counts samples of class i predicted as j.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Ground truth and predicted labels.
    labels : array-like of shape (n_classes,), default=None
        Labels that index the matrix (a subset or a reordering); by default
        the sorted labels present in ``y_true`` or ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    normalize : {"true", "pred", "all"}, default=None
        Normalise over rows (true), columns (predicted) or all entries.

    Returns
    -------
    C : ndarray of shape (n_classes, n_classes)
        NumPy or CuPy, like the inputs: integers unless weighted by floats or
        normalised.

    Examples
    --------
    >>> from gpuml.metrics import confusion_matrix
    >>> confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2])
    array([[2, 0, 0],
           [0, 0, 1],
           [1, 0, 2]])
    """
    _check_at_most_2d(y_true, y_pred)
    if sample_weight is None:  # scikit-learn's message counts its unit weights
        check_consistent_length(y_true, y_pred, y_true)
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="convert"
    )
    return _confusion_matrix_batch(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        labels=labels,
        normalize=normalize,
    )[0]


def _no_true_positive(y_true, y_pred, sample_weight) -> bool:
    """scikit-learn's per-class counts turn to floats without any true positive."""
    return (
        y_true.ndim == 1
        and sample_weight is None
        and not bool((y_true == y_pred).any())
    )


@validate_params(
    {
        "y_true": _TARGET,
        "y_pred": _TARGET,
        "sample_weight": ["array-like", None],
        "labels": _LABELS,
        "samplewise": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def multilabel_confusion_matrix(
    y_true, y_pred, *, sample_weight=None, labels=None, samplewise=False
):
    """One 2x2 confusion matrix per class (one-vs-rest) or per sample.

    ``MCM[:, 0, 0]`` are true negatives, ``[:, 0, 1]`` false positives,
    ``[:, 1, 0]`` false negatives and ``[:, 1, 1]`` true positives.

    Parameters
    ----------
    y_true, y_pred : array-like or label indicator array
        Ground truth and predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        Classes (or column indices for indicators) to select and order.
    samplewise : bool, default=False
        For multilabel targets, one matrix per sample.

    Returns
    -------
    multi_confusion : ndarray of shape (n_outputs, 2, 2)
        NumPy or CuPy, like the inputs.

    Examples
    --------
    >>> from gpuml.metrics import multilabel_confusion_matrix
    >>> multilabel_confusion_matrix([0, 1, 1], [0, 1, 0])[1]
    array([[1, 0],
           [1, 1]])
    """
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="strict"
    )
    result = _multilabel_confusion_matrix_batch(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        labels=labels,
        samplewise=samplewise,
    )[0]
    if _no_true_positive(y_true, y_pred, sample_weight):
        result = result.astype(np.float64)
    return result


@validate_params(
    {
        "y_true": _TARGET,
        "y_pred": _TARGET,
        "beta": [Interval(Real, 0.0, None, closed="both")],
        "labels": _LABELS,
        "pos_label": _POS_LABEL,
        "average": _AVERAGE,
        "warn_for": [list, tuple, set],
        "sample_weight": ["array-like", None],
        "zero_division": _ZERO_DIVISION,
    },
    prefer_skip_nested_validation=True,
)
def precision_recall_fscore_support(
    y_true,
    y_pred,
    *,
    beta=1.0,
    labels=None,
    pos_label=1,
    average=None,
    warn_for=("precision", "recall", "f-score"),
    sample_weight=None,
    zero_division="warn",
):
    """Precision, recall, F-beta score and support for each class (or averaged).

    Parameters
    ----------
    y_true, y_pred : array-like or label indicator array
        Ground truth and predicted labels.
    beta : float, default=1.0
        Weight of recall against precision in the F-score.
    labels : array-like, default=None
        Labels to include (and their order for ``average=None``); by default
        the sorted labels present in ``y_true`` or ``y_pred``.
    pos_label : int, float, bool or str, default=1
        The class to report for ``average="binary"`` on binary targets.
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, \
            default=None
        None gives per-class scores; otherwise how to average them.
    warn_for : list, tuple or set
        Which metrics warn when ill-defined.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value for a zero division ("warn" acts as 0 and warns; NaN is left out
        of averages).

    Returns
    -------
    precision, recall, fbeta_score : float or ndarray of shape (n_labels,)
    support : None or ndarray of shape (n_labels,)
        Arrays are NumPy or CuPy, like the inputs.

    Examples
    --------
    >>> from gpuml.metrics import precision_recall_fscore_support
    >>> precision_recall_fscore_support([0, 1, 1, 0], [0, 1, 0, 0], average="binary")
    (1.0, 0.5, 0.666..., None)
    """
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="strict"
    )
    result = _precision_recall_fscore_support_batch(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        average=average,
        warn_for=warn_for,
        zero_division=zero_division,
    )
    if average is not None:
        return (*(to_score(a) for a in result[:3]), None)
    precision, recall, f_score, support = (a[0] for a in result)
    if _no_true_positive(y_true, y_pred, sample_weight):
        support = support.astype(np.float64)
    return precision, recall, f_score, support


def _label_score(kernel, y_true, y_pred, sample_weight, average, **kwargs):
    y_true, y_pred, sample_weight = _validate_targets(
        y_true, y_pred, sample_weight, text_weights="strict"
    )
    result = kernel(
        y_true, y_pred[None], sample_weight=sample_weight, average=average, **kwargs
    )
    return result[0] if average is None else to_score(result)


_PRF_PARAMS = {
    "y_true": _TARGET,
    "y_pred": _TARGET,
    "labels": _LABELS,
    "pos_label": _POS_LABEL,
    "average": _AVERAGE,
    "sample_weight": ["array-like", None],
    "zero_division": _ZERO_DIVISION,
}


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def precision_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=1,
    average="binary",
    sample_weight=None,
    zero_division="warn",
):
    """Precision ``tp / (tp + fp)``: the ability not to label negatives positive.

    Parameters are those of :func:`precision_recall_fscore_support`, with
    ``average="binary"`` by default.

    Returns
    -------
    precision : float or ndarray of shape (n_labels,)
        A float, or per-label scores (NumPy or CuPy) for ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import precision_score
    >>> precision_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.22...
    """
    return _label_score(
        _precision_score_batch,
        y_true,
        y_pred,
        sample_weight,
        average,
        labels=labels,
        pos_label=pos_label,
        zero_division=zero_division,
    )


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def recall_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=1,
    average="binary",
    sample_weight=None,
    zero_division="warn",
):
    """Recall ``tp / (tp + fn)``: the ability to find all positive samples.

    Parameters are those of :func:`precision_recall_fscore_support`, with
    ``average="binary"`` by default.

    Returns
    -------
    recall : float or ndarray of shape (n_labels,)
        A float, or per-label scores (NumPy or CuPy) for ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import recall_score
    >>> recall_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.33...
    """
    return _label_score(
        _recall_score_batch,
        y_true,
        y_pred,
        sample_weight,
        average,
        labels=labels,
        pos_label=pos_label,
        zero_division=zero_division,
    )


@validate_params(
    {**_PRF_PARAMS, "beta": [Interval(Real, 0.0, None, closed="both")]},
    prefer_skip_nested_validation=True,
)
def fbeta_score(
    y_true,
    y_pred,
    *,
    beta,
    labels=None,
    pos_label=1,
    average="binary",
    sample_weight=None,
    zero_division="warn",
):
    """F-beta score: the weighted harmonic mean of precision and recall.

    Parameters are those of :func:`precision_recall_fscore_support`, with
    ``beta`` required and ``average="binary"`` by default.

    Returns
    -------
    fbeta_score : float or ndarray of shape (n_labels,)
        A float, or per-label scores (NumPy or CuPy) for ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import fbeta_score
    >>> fbeta_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro", beta=0.5)
    0.238...
    """
    return _label_score(
        _fbeta_score_batch,
        y_true,
        y_pred,
        sample_weight,
        average,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        zero_division=zero_division,
    )


@validate_params(_PRF_PARAMS, prefer_skip_nested_validation=True)
def f1_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=1,
    average="binary",
    sample_weight=None,
    zero_division="warn",
):
    """F1 score: the harmonic mean of precision and recall.

    Parameters are those of :func:`precision_recall_fscore_support`, with
    ``average="binary"`` by default.

    Returns
    -------
    f1_score : float or ndarray of shape (n_labels,)
        A float, or per-label scores (NumPy or CuPy) for ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import f1_score
    >>> f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro")
    0.26...
    """
    return _label_score(
        _f1_score_batch,
        y_true,
        y_pred,
        sample_weight,
        average,
        labels=labels,
        pos_label=pos_label,
        zero_division=zero_division,
    )


@validate_params(
    {**_PRF_PARAMS, "zero_division": [Options(Real, {0, 1}), StrOptions({"warn"})]},
    prefer_skip_nested_validation=True,
)
def jaccard_score(
    y_true,
    y_pred,
    *,
    labels=None,
    pos_label=1,
    average="binary",
    sample_weight=None,
    zero_division="warn",
):
    """Jaccard similarity coefficient ``tp / (tp + fp + fn)``.

    Parameters are those of :func:`precision_recall_fscore_support` (without
    ``beta``), with ``average="binary"`` by default and ``zero_division`` in
    {"warn", 0, 1}.

    Returns
    -------
    score : float or ndarray of shape (n_labels,)
        A float, or per-label scores (NumPy or CuPy) for ``average=None``.

    Examples
    --------
    >>> from gpuml.metrics import jaccard_score
    >>> jaccard_score([0, 1, 2, 1], [0, 2, 2, 1], average="macro")
    0.666...
    """
    return _label_score(
        _jaccard_score_batch,
        y_true,
        y_pred,
        sample_weight,
        average,
        labels=labels,
        pos_label=pos_label,
        zero_division=zero_division,
    )


def _validate_probabilities(y_true, y_proba, sample_weight):
    """``y_proba`` checked like scikit-learn (float dtype, finite) into ``xp``."""
    xp = metric_namespace(y_true, y_proba, sample_weight)
    return as_array(
        y_proba, xp, input_name="", dtype=(np.float64, np.float32, np.float16)
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like", Hidden(None)],
        "normalize": ["boolean"],
        "sample_weight": ["array-like", None],
        "labels": _LABELS,
        "y_pred": ["array-like", str],
    },
    prefer_skip_nested_validation=True,
)
def log_loss(
    y_true,
    y_proba=None,
    *,
    normalize=True,
    sample_weight=None,
    labels=None,
    y_pred="deprecated",
):
    """Log loss (cross-entropy) of predicted probabilities.

    Parameters
    ----------
    y_true : array-like or label indicator matrix
        Ground truth labels.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities (of the positive class when 1-D), columns in
        the sorted order of the labels.
    normalize : bool, default=True
        Return the mean loss per sample, else the sum.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        All class labels, when ``y_true`` does not hold them all.
    y_pred : array-like
        Deprecated alias of ``y_proba`` (scikit-learn 1.9).

    Returns
    -------
    loss : float

    Examples
    --------
    >>> from gpuml.metrics import log_loss
    >>> y_proba = [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]]
    >>> log_loss(["spam", "ham", "ham", "spam"], y_proba)
    0.216...
    """
    if not (isinstance(y_pred, str) and y_pred == "deprecated"):
        if y_proba is not None:
            raise ValueError(
                "Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated, "
                "use `y_proba` instead."
            )
        warnings.warn(
            "`y_pred` was renamed to `y_proba` in version 1.9 and will be removed "
            "in 1.11. Use `y_proba` instead.",
            FutureWarning,
            stacklevel=2,
        )
        y_proba = y_pred
    y_proba = _validate_probabilities(y_true, y_proba, sample_weight)
    return to_score(
        _log_loss_batch(
            y_true,
            y_proba[None],
            sample_weight=sample_weight,
            normalize=normalize,
            labels=labels,
        )
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "sample_weight": ["array-like", None],
        "pos_label": _POS_LABEL,
        "labels": _LABELS,
        "scale_by_half": ["boolean", StrOptions({"auto"})],
    },
    prefer_skip_nested_validation=True,
)
def brier_score_loss(
    y_true,
    y_proba,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    scale_by_half="auto",
):
    """Brier score: the mean squared error of predicted probabilities.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probabilities of the positive class (1-D), or of every class.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        The positive class for 1-D ``y_proba`` (by default 1 for labels in
        {0, 1} or {-1, 1}, else the greater label).
    labels : array-like, default=None
        All class labels for 2-D ``y_proba``.
    scale_by_half : bool or "auto", default="auto"
        Halve the score (to lie in [0, 1]); "auto" halves it for binary tasks.

    Returns
    -------
    score : float

    Examples
    --------
    >>> from gpuml.metrics import brier_score_loss
    >>> brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    0.037...
    """
    y_proba = _validate_probabilities(y_true, y_proba, sample_weight)
    return to_score(
        _brier_score_loss_batch(
            y_true,
            y_proba[None],
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            scale_by_half=scale_by_half,
        )
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "k": [Interval(Integral, 1, None, closed="left")],
        "normalize": ["boolean"],
        "sample_weight": ["array-like", None],
        "labels": _LABELS,
    },
    prefer_skip_nested_validation=True,
)
def top_k_accuracy_score(
    y_true, y_score, *, k=2, normalize=True, sample_weight=None, labels=None
):
    """Top-k accuracy: the fraction of samples whose class is among the k best.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores (probabilities or decision values); 1-D for binary targets.
    k : int, default=2
        Number of best-scored classes that count as a hit.
    normalize : bool, default=True
        Return the fraction of hits, else their (weighted) number.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like of shape (n_classes,), default=None
        All class labels in the order of ``y_score``'s columns (sorted).

    Returns
    -------
    score : float

    Examples
    --------
    >>> from gpuml.metrics import top_k_accuracy_score
    >>> y_score = [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]]
    >>> top_k_accuracy_score([0, 1, 2, 2], y_score, k=2)
    0.75
    """
    xp = metric_namespace(y_true, y_score, sample_weight)
    as_array(y_true, metric_namespace(y_true), input_name="")  # checked first
    y_score = as_array(y_score, xp, input_name="")
    return to_score(
        _top_k_accuracy_score_batch(
            y_true,
            y_score[None],
            sample_weight=sample_weight,
            k=k,
            normalize=normalize,
            labels=labels,
        )
    )


BATCH_KERNELS = {
    accuracy_score: _accuracy_score_batch,
    balanced_accuracy_score: _balanced_accuracy_score_batch,
    brier_score_loss: _brier_score_loss_batch,
    f1_score: _f1_score_batch,
    fbeta_score: _fbeta_score_batch,
    hamming_loss: _hamming_loss_batch,
    jaccard_score: _jaccard_score_batch,
    log_loss: _log_loss_batch,
    matthews_corrcoef: _matthews_corrcoef_batch,
    precision_score: _precision_score_batch,
    recall_score: _recall_score_batch,
    top_k_accuracy_score: _top_k_accuracy_score_batch,
    zero_one_loss: _zero_one_loss_batch,
}
