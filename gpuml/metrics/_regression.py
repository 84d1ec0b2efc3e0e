"""Regression metrics computed where the data lives, one candidate or many.

Every metric ``foo`` comes in two layers:

``_foo_batch(y_true, y_preds, *, sample_weight=None, **options)``
    The kernel. ``y_true`` is an array of shape ``(n,)`` or ``(n, n_outputs)``
    and ``y_preds`` stacks ``k`` candidates' predictions on a leading axis,
    ``(k, n)`` or ``(k, n, n_outputs)``. It returns an array of the inputs'
    namespace of shape ``(k,)``, or ``(k, n_outputs)`` for
    ``multioutput="raw_values"``, from batched reductions (no loop over
    candidates). Inputs are trusted to be validated (same namespace, floating
    dtype, no NaN). The kernel keeps scikit-learn's behaviour for what
    depends on the values: the domain errors of the log and deviance
    metrics and ``d2_tweedie_score``'s ZeroDivisionError (each costs one
    boolean from the device), and the UndefinedMetricWarning and NaN
    scores of R² and D² with fewer than two samples.

``foo(y_true, y_pred, ...)``
    The public function, with scikit-learn's signature and parameter
    validation. It validates its inputs into one namespace (CuPy when any
    input is on the device, else NumPy), calls the kernel with ``k = 1`` and
    converts the result to a ``float`` once, at the boundary (per-output
    scores for ``"raw_values"`` stay an array of the inputs' family).

:data:`BATCH_KERNELS` maps each public function to its kernel, for the
scorers. Floating-point warnings that scikit-learn lets NumPy emit where a
score is NaN or infinite (``force_finite=False``, zero denominators) are
silenced here, so that both namespaces behave alike (CuPy never warns).
"""

from __future__ import annotations

from gpuml._sklearn_compat import validate_params
from gpuml.metrics._regression_kernels import (
    _DEVIANCE_PARAMS,
    _EV_PARAMS,
    _LOSS_PARAMS,
    _PINBALL_PARAMS,
    _R2_PARAMS,
    _TWEEDIE_PARAMS,
    _Y,
    _d2_absolute_error_score_batch,
    _d2_pinball_score_batch,
    _d2_tweedie_score_batch,
    _explained_variance_score_batch,
    _finish,
    _max_error_batch,
    _mean_absolute_error_batch,
    _mean_absolute_percentage_error_batch,
    _mean_gamma_deviance_batch,
    _mean_pinball_loss_batch,
    _mean_poisson_deviance_batch,
    _mean_squared_error_batch,
    _mean_squared_log_error_batch,
    _mean_tweedie_deviance_batch,
    _median_absolute_error_batch,
    _r2_score_batch,
    _root_mean_squared_error_batch,
    _root_mean_squared_log_error_batch,
    _single_output,
    _validate,
    _warn_few_samples,
)

# --------------------------------------------------------------------------
# Public functions: validate, run the kernel for one candidate, convert once
# --------------------------------------------------------------------------


def _score_one(kernel, y_true, y_pred, sample_weight, multioutput, **options):
    """Validate, score ``y_pred`` as a batch of one, return float or raw array."""
    y_true, y_pred, sample_weight, multioutput = _validate(
        y_true, y_pred, sample_weight, multioutput
    )
    scores = kernel(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        multioutput=multioutput,
        **options,
    )
    return _finish(scores, multioutput, y_pred.dtype)


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def mean_absolute_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Mean absolute error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import mean_absolute_error
    >>> mean_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    return _score_one(
        _mean_absolute_error_batch, y_true, y_pred, sample_weight, multioutput
    )


@validate_params(_PINBALL_PARAMS, prefer_skip_nested_validation=True)
def mean_pinball_loss(
    y_true, y_pred, *, sample_weight=None, alpha=0.5, multioutput="uniform_average"
):
    """Pinball loss for quantile regression.

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    alpha : float, default=0.5
        Slope of the loss: it is minimised by the ``alpha``-quantile (0.5 is
        half the mean absolute error).
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output losses, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output losses (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import mean_pinball_loss
    >>> mean_pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.1)
    0.03...
    """
    return _score_one(
        _mean_pinball_loss_batch,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        alpha=alpha,
    )


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def mean_absolute_percentage_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Mean absolute percentage error (MAPE) regression loss, as a fraction.

    Computed on the GPU when any input is a device array, else with NumPy.
    An error of 200% is 2.0; a zero ``y_true`` divides by machine epsilon
    (large, finite values), as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import mean_absolute_percentage_error
    >>> mean_absolute_percentage_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.327...
    """
    return _score_one(
        _mean_absolute_percentage_error_batch,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
    )


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def mean_squared_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Mean squared error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import mean_squared_error
    >>> mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    return _score_one(
        _mean_squared_error_batch, y_true, y_pred, sample_weight, multioutput
    )


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def root_mean_squared_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Root mean squared error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.
    As in scikit-learn, custom output weights are checked only when they are
    averaged (a wrong shape is a TypeError).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import root_mean_squared_error
    >>> root_mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.612...
    """
    y_true, y_pred, sample_weight, _ = _validate(y_true, y_pred, sample_weight, None)
    scores = _root_mean_squared_error_batch(
        y_true, y_pred[None], sample_weight=sample_weight, multioutput=multioutput
    )
    return _finish(scores, multioutput, y_pred.dtype)


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def mean_squared_log_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Mean squared logarithmic error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.
    Targets and predictions must be greater than -1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import mean_squared_log_error
    >>> mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8])
    0.039...
    """
    return _score_one(
        _mean_squared_log_error_batch, y_true, y_pred, sample_weight, multioutput
    )


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def root_mean_squared_log_error(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """Root mean squared logarithmic error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.
    Targets and predictions must be greater than -1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import root_mean_squared_log_error
    >>> root_mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8])
    0.199...
    """
    return _score_one(
        _root_mean_squared_log_error_batch,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
    )


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def median_absolute_error(
    y_true, y_pred, *, multioutput="uniform_average", sample_weight=None
):
    """Median absolute error regression loss.

    Computed on the GPU when any input is a device array, else with NumPy.
    With ``sample_weight`` the median is scikit-learn's weighted percentile
    with ``average=True`` (NumPy's "averaged_inverted_cdf" for unit weights).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output errors, their mean, or their average with these weights.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (non-negative).

    Returns
    -------
    loss : float or ndarray of shape (n_outputs,)
        Non-negative, best 0.0. Per-output errors (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import median_absolute_error
    >>> median_absolute_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """
    y_true, y_pred, sample_weight, multioutput = _validate(
        y_true, y_pred, sample_weight, multioutput, numeric=True, normalized=False
    )
    scores = _median_absolute_error_batch(
        y_true, y_pred[None], sample_weight=sample_weight, multioutput=multioutput
    )
    return _finish(scores, multioutput, y_pred.dtype)


@validate_params(_Y, prefer_skip_nested_validation=True)
def max_error(y_true, y_pred):
    """The maximum residual error (single output).

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.

    Returns
    -------
    max_error : float
        Non-negative, best 0.0.

    Examples
    --------
    >>> from gpuml.metrics import max_error
    >>> max_error([3, 2, 7, 1], [4, 2, 7, 1])
    1.0
    """
    # scikit-learn's dtype="numeric" here: text is refused, not converted.
    y_true, y_pred, _, _ = _validate(y_true, y_pred, None, None, numeric=True)
    _single_output(y_true, "max_error")
    return _finish(_max_error_batch(y_true, y_pred[None]), None)


def _tweedie(y_true, y_pred, sample_weight, power):
    y_true, y_pred, sample_weight, _ = _validate(y_true, y_pred, sample_weight, None)
    _single_output(y_true, "mean_tweedie_deviance")
    scores = _mean_tweedie_deviance_batch(
        y_true, y_pred[None], sample_weight=sample_weight, power=power
    )
    return _finish(scores, None)


@validate_params(_TWEEDIE_PARAMS, prefer_skip_nested_validation=True)
def mean_tweedie_deviance(y_true, y_pred, *, sample_weight=None, power=0):
    """Mean Tweedie deviance regression loss (single output).

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    power : float, default=0
        Tweedie power, ``power <= 0`` or ``power >= 1``. Below 0: y_pred > 0;
        0: normal (squared error); 1 to 2: y_true >= 0 and y_pred > 0 (1 is
        Poisson); 2 and above: y_true > 0 and y_pred > 0 (2 is Gamma, 3
        inverse Gaussian).

    Returns
    -------
    loss : float
        Non-negative, best 0.0.

    Examples
    --------
    >>> from gpuml.metrics import mean_tweedie_deviance
    >>> mean_tweedie_deviance([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0], power=1)
    1.4260...
    """
    return _tweedie(y_true, y_pred, sample_weight, power)


@validate_params(_DEVIANCE_PARAMS, prefer_skip_nested_validation=True)
def mean_poisson_deviance(y_true, y_pred, *, sample_weight=None):
    """Mean Poisson deviance regression loss (Tweedie deviance, ``power=1``).

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth (correct) target values, ``y_true >= 0``.
    y_pred : array-like of shape (n_samples,)
        Estimated target values, ``y_pred > 0``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float
        Non-negative, best 0.0.

    Examples
    --------
    >>> from gpuml.metrics import mean_poisson_deviance
    >>> mean_poisson_deviance([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0])
    1.4260...
    """
    return _tweedie(y_true, y_pred, sample_weight, 1)


@validate_params(_DEVIANCE_PARAMS, prefer_skip_nested_validation=True)
def mean_gamma_deviance(y_true, y_pred, *, sample_weight=None):
    """Mean Gamma deviance regression loss (Tweedie deviance, ``power=2``).

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth (correct) target values, ``y_true > 0``.
    y_pred : array-like of shape (n_samples,)
        Estimated target values, ``y_pred > 0``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float
        Non-negative, best 0.0.

    Examples
    --------
    >>> from gpuml.metrics import mean_gamma_deviance
    >>> mean_gamma_deviance([2, 0.5, 1, 4], [0.5, 0.5, 2.0, 2.0])
    1.0568...
    """
    return _tweedie(y_true, y_pred, sample_weight, 2)


@validate_params(_EV_PARAMS, prefer_skip_nested_validation=True)
def explained_variance_score(
    y_true,
    y_pred,
    *,
    sample_weight=None,
    multioutput="uniform_average",
    force_finite=True,
):
    """Explained variance regression score.

    Computed on the GPU when any input is a device array, else with NumPy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"} or \
            array-like of shape (n_outputs,), default="uniform_average"
        Per-output scores, their mean, their mean weighted by each output's
        variance, or their average with these weights.
    force_finite : bool, default=True
        Replace the NaN / -inf of constant targets by 1.0 (perfect
        predictions) or 0.0 (imperfect), as scikit-learn does.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        Best 1.0, may be negative. Per-output scores (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import explained_variance_score
    >>> explained_variance_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.957...
    """
    return _score_one(
        _explained_variance_score_batch,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        force_finite=force_finite,
    )


@validate_params(_R2_PARAMS, prefer_skip_nested_validation=True)
def r2_score(
    y_true,
    y_pred,
    *,
    sample_weight=None,
    multioutput="uniform_average",
    force_finite=True,
):
    """:math:`R^2` (coefficient of determination) regression score.

    Computed on the GPU when any input is a device array, else with NumPy.
    Fewer than two samples give NaN and an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {"raw_values", "uniform_average", "variance_weighted"}, \
            array-like of shape (n_outputs,) or None, default="uniform_average"
        Per-output scores, their mean (also for None), their mean weighted by
        each output's variance, or their average with these weights.
    force_finite : bool, default=True
        Replace the NaN / -inf of constant targets by 1.0 (perfect
        predictions) or 0.0 (imperfect), as scikit-learn does.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        Best 1.0, may be negative. Per-output scores (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import r2_score
    >>> r2_score([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    0.948...
    """
    y_true, y_pred, sample_weight, multioutput = _validate(
        y_true, y_pred, sample_weight, multioutput
    )
    if _warn_few_samples("R^2", y_true.shape[0]):
        return float("nan")
    scores = _r2_score_batch(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        multioutput=multioutput,
        force_finite=force_finite,
    )
    return _finish(scores, multioutput, y_pred.dtype)


@validate_params(_TWEEDIE_PARAMS, prefer_skip_nested_validation=True)
def d2_tweedie_score(y_true, y_pred, *, sample_weight=None, power=0):
    """:math:`D^2` regression score: the fraction of Tweedie deviance explained.

    Computed on the GPU when any input is a device array, else with NumPy.
    Single output. Fewer than two samples give NaN and an
    UndefinedMetricWarning; a constant ``y_true`` (zero null deviance) raises
    ZeroDivisionError, as in scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    power : float, default=0
        Tweedie power, ``power <= 0`` or ``power >= 1``, with the domains of
        :func:`mean_tweedie_deviance` (0 gives :math:`R^2`).

    Returns
    -------
    score : float
        Best 1.0, may be negative.

    Examples
    --------
    >>> from gpuml.metrics import d2_tweedie_score
    >>> d2_tweedie_score([0.5, 1, 2.5, 7], [1, 1, 5, 3.5], power=1)
    0.487...
    """
    y_true, y_pred, sample_weight, _ = _validate(y_true, y_pred, sample_weight, None)
    _single_output(y_true, "d2_tweedie_score")
    if _warn_few_samples("D^2", y_true.shape[0]):
        return float("nan")
    scores = _d2_tweedie_score_batch(
        y_true, y_pred[None], sample_weight=sample_weight, power=power
    )
    return _finish(scores, None)


def _d2_pinball(y_true, y_pred, sample_weight, alpha, multioutput):
    y_true, y_pred, sample_weight, multioutput = _validate(
        y_true, y_pred, sample_weight, multioutput
    )
    if _warn_few_samples("D^2", y_true.shape[0], stacklevel=4):
        return float("nan")
    scores = _d2_pinball_score_batch(
        y_true,
        y_pred[None],
        sample_weight=sample_weight,
        alpha=alpha,
        multioutput=multioutput,
    )
    return _finish(scores, multioutput, y_pred.dtype)


@validate_params(_PINBALL_PARAMS, prefer_skip_nested_validation=True)
def d2_pinball_score(
    y_true, y_pred, *, sample_weight=None, alpha=0.5, multioutput="uniform_average"
):
    """:math:`D^2` regression score: the fraction of pinball loss explained.

    Computed on the GPU when any input is a device array, else with NumPy.
    The null model predicts the weighted ``alpha``-quantile of ``y_true``.
    Fewer than two samples give NaN and an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (non-negative).
    alpha : float, default=0.5
        Slope of the pinball loss (0.5 gives :func:`d2_absolute_error_score`).
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output scores, their mean, or their average with these weights.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        Best 1.0, may be negative. Per-output scores (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import d2_pinball_score
    >>> d2_pinball_score([1, 2, 3], [1, 3, 3])
    0.5
    """
    return _d2_pinball(y_true, y_pred, sample_weight, alpha, multioutput)


@validate_params(_LOSS_PARAMS, prefer_skip_nested_validation=True)
def d2_absolute_error_score(
    y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"
):
    """:math:`D^2` regression score: the fraction of absolute error explained.

    Computed on the GPU when any input is a device array, else with NumPy.
    The null model predicts the weighted median of ``y_true``. Fewer than
    two samples give NaN and an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth (correct) target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (non-negative).
    multioutput : {"raw_values", "uniform_average"} or array-like of shape \
            (n_outputs,), default="uniform_average"
        Per-output scores, their mean, or their average with these weights.

    Returns
    -------
    score : float or ndarray of shape (n_outputs,)
        Best 1.0, may be negative. Per-output scores (NumPy or CuPy, like the
        inputs) for ``multioutput="raw_values"``.

    Examples
    --------
    >>> from gpuml.metrics import d2_absolute_error_score
    >>> d2_absolute_error_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.764...
    """
    return _d2_pinball(y_true, y_pred, sample_weight, 0.5, multioutput)


#: Each public metric and its kernel over stacked candidates' predictions
#: (``y_preds`` of shape ``(k, n)`` or ``(k, n, n_outputs)``), for scorers.
BATCH_KERNELS = {
    d2_absolute_error_score: _d2_absolute_error_score_batch,
    d2_pinball_score: _d2_pinball_score_batch,
    d2_tweedie_score: _d2_tweedie_score_batch,
    explained_variance_score: _explained_variance_score_batch,
    max_error: _max_error_batch,
    mean_absolute_error: _mean_absolute_error_batch,
    mean_absolute_percentage_error: _mean_absolute_percentage_error_batch,
    mean_gamma_deviance: _mean_gamma_deviance_batch,
    mean_pinball_loss: _mean_pinball_loss_batch,
    mean_poisson_deviance: _mean_poisson_deviance_batch,
    mean_squared_error: _mean_squared_error_batch,
    mean_squared_log_error: _mean_squared_log_error_batch,
    mean_tweedie_deviance: _mean_tweedie_deviance_batch,
    median_absolute_error: _median_absolute_error_batch,
    r2_score: _r2_score_batch,
    root_mean_squared_error: _root_mean_squared_error_batch,
    root_mean_squared_log_error: _root_mean_squared_log_error_batch,
}
