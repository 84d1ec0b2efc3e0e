"""The errors of a metric, for a batch of candidates' predictions.

A batch kernel (``_foo_batch``) trusts its inputs: it does not repeat the
public function's parameter, target and weight validation. A scorer that
scores many candidates at once must still raise wherever the public metric
raises for any one of them (the search then scores that group candidate by
candidate, so that only the failing ones get ``error_score``). This module
does that in two steps, before the kernel runs:

1. The public metric on the first candidate's predictions: scikit-learn's
   validation of the parameters, ``y_true``, the weights and the predictions'
   shape and type (its warnings are silenced: the kernel gives them for the
   whole batch).
2. What depends on each candidate's own predictions and no kernel checks:
   NaN and infinity, in one reduction over the stack. Label and domain
   checks per candidate are the kernels' (``_label_counts._label_batch``,
   the deviance and probability kernels).

It could move to a shared validation module with the other checks.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable

import numpy as np

from gpuml._array import namespace_of
from gpuml._validation import assert_all_finite


def _predictions_name(func: Callable) -> str:
    """The name of the metric's predictions argument (y_pred, y_score ...)."""
    try:
        return list(inspect.signature(func).parameters)[1]
    except (TypeError, ValueError, IndexError):
        return "y_pred"


def check_batch(func: Callable, y_true, y_preds, kwargs: dict) -> None:
    """Raise the error ``func`` raises for any candidate of ``y_preds``.

    Parameters
    ----------
    func : callable
        The public metric, ``func(y_true, y_pred, **kwargs)``.
    y_true : array-like
        True targets.
    y_preds : array of shape (k, n_samples, ...)
        The candidates' predictions, stacked on a leading axis.
    kwargs : dict
        The metric's other arguments (``sample_weight`` included).
    """
    if getattr(y_preds, "ndim", 0) < 2 or y_preds.shape[0] == 0:
        return  # the kernel reports a batch without a candidate axis
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            func(y_true, y_preds[0], **kwargs)
    if y_preds.shape[0] > 1 and y_preds.dtype.kind == "f":
        xp = namespace_of(y_preds)
        assert_all_finite(y_preds, xp=xp, input_name=_predictions_name(func))
