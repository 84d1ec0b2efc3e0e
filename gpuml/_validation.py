"""Input validation on any namespace, with scikit-learn's errors and messages.

Host inputs go through scikit-learn's own ``check_array`` for everything but
the finiteness check (so pandas, lists, object and extension dtypes behave
exactly as in scikit-learn); device inputs get the same checks here, with the
same messages. Data is then moved to the compute namespace ``xp`` *before*
the NaN/inf scan, so that a large host array bound for the GPU is scanned
there, at device bandwidth, rather than on one host core.
"""

from __future__ import annotations

import numbers
import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_array as sk_check_array
from sklearn.utils.validation import check_consistent_length

from gpuml._array import (
    HOST,
    as_device_native,
    input_family,
    is_sparse,
    to_namespace,
)
from gpuml._sklearn_compat import (
    assert_all_finite_element_wise,
    check_feature_names,
    check_n_features,
    check_y_host,
)

FLOAT_DTYPES = (np.float64, np.float32)

# The ``dtype`` of :func:`check_array` for data a fitted model reads
# (``predict``, ``decision_function``...): scikit-learn's ``"numeric"`` (which
# refuses strings, even numeric ones, and converts object arrays), then
# float64 for what is not already float32 or float64. A fit's own
# ``dtype=FLOAT_DTYPES`` converts numeric strings, as scikit-learn's does.
NUMERIC_FLOAT = "numeric-float"

_RESHAPE_HINT = (
    "Reshape your data either using array.reshape(-1, 1) if "
    "your data has a single feature or array.reshape(1, -1) "
    "if it contains a single sample."
)


def _estimator_name(estimator) -> str | None:
    if estimator is None:
        return None
    return estimator if isinstance(estimator, str) else type(estimator).__name__


def quickly_finite(values, xp: ModuleType) -> bool:
    """True when one pass proves dense float ``values`` hold neither NaN nor
    infinity: a sum on the host (NaN and inf propagate into it), gpuml's
    flag kernel on the device. False means "not proven": a value is not
    finite, or (on the host) the sum itself overflowed."""
    if xp is np:
        # An overflowing sum (float16) only sends the check to the scan,
        # and must not raise under np.errstate(over="raise") (scikit-learn
        # ignores it too).
        with np.errstate(over="ignore"):
            return bool(np.isfinite(values.sum()))
    from gpuml import _cuda

    found = _cuda.any_nonfinite(values)
    return found is False or (found is None and bool(xp.isfinite(values.sum())))


def assert_all_finite(
    array, *, xp: ModuleType, allow_nan=False, estimator=None, input_name=""
):
    """Raise scikit-learn's ValueError if ``array`` holds NaN or infinity.

    Runs in ``xp``. The common case costs one pass over memory and one
    scalar to the host: a sum on the host (NaN and inf propagate into it),
    gpuml's flag kernel on the device. Only a non-finite
    sum pays for the element-wise scan that names the problem. Sparse
    matrices are checked through their stored values.
    """
    values = getattr(array, "data", None) if is_sparse(array) else array
    if values is None:  # a DOK matrix (check_array warns)
        return
    if values.dtype.kind not in "fc" or values.size == 0:
        return
    if quickly_finite(values, xp):
        return
    if xp is np and not values.flags.writeable:
        values = values.copy()  # scikit-learn's Cython scan needs a writeable buffer
    assert_all_finite_element_wise(
        values,
        xp=xp,
        allow_nan=allow_nan,
        estimator_name=_estimator_name(estimator),
        input_name=input_name,
    )


def assert_fits_dtype(array, dtype, *, xp: ModuleType, input_name="") -> None:
    """Raise scikit-learn's "too large for dtype" ValueError if a finite value
    of ``array`` overflows the narrower floating ``dtype``.

    For estimators that compute in ``dtype`` (float32) whatever the input's:
    the check their reference implementation makes by converting first and
    then scanning for infinity. One reduction in ``xp``; sparse matrices are
    checked through their stored values.
    """
    values = array.data if is_sparse(array) else array
    dtype = np.dtype(dtype)
    if (
        values.dtype.kind != "f"
        or values.dtype.itemsize <= dtype.itemsize
        or values.size == 0
    ):
        return
    if bool(xp.abs(values).max() > float(np.finfo(dtype).max)):
        padded = f"{input_name} " if input_name else ""
        raise ValueError(
            f"Input {padded}contains infinity or a value too large for {dtype!r}."
        )


def _target_dtype(dtype, current):
    """The dtype to convert to (or None to keep), following check_array's rules."""
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype == "numeric":
        return np.float64 if current.kind in "OUSV" else None
    if isinstance(dtype, (list, tuple)):
        if any(np.dtype(d) == current for d in dtype):
            return None
        return dtype[0]
    return None if np.dtype(dtype) == current else dtype


def _check_device_array(
    array,
    *,
    accept_sparse,
    dtype,
    ensure_2d,
    allow_nd,
    ensure_min_samples,
    ensure_min_features,
    estimator,
    input_name,
):
    """check_array's shape, dtype and size rules for device inputs."""
    array = as_device_native(array)
    estimator_name = _estimator_name(estimator)
    if is_sparse(array):
        if accept_sparse is False:
            padded = " for " + input_name if input_name else ""
            raise TypeError(
                f"Sparse data was passed{padded}, but dense data is required. "
                "Use '.toarray()' to convert to a dense numpy array."
            )
        formats = [accept_sparse] if isinstance(accept_sparse, str) else accept_sparse
        if isinstance(formats, (list, tuple)) and array.format not in formats:
            array = array.asformat(formats[0])
    else:
        if array.ndim == 0 and ensure_2d:
            raise ValueError(
                f"Expected 2D array, got scalar array instead:\narray={array}.\n"
                + _RESHAPE_HINT
            )
        if array.ndim == 1 and ensure_2d:
            raise ValueError(
                f"Expected 2D array, got 1D array instead:\narray={array}.\n"
                + _RESHAPE_HINT
            )
        if array.ndim >= 3 and not allow_nd:
            context = f" by {estimator_name}" if estimator_name else ""
            raise ValueError(
                f"Found array with dim {array.ndim}, while dim <= 2 is required"
                f"{context}."
            )
    target = _target_dtype(dtype, array.dtype)
    if target is not None:
        array = array.astype(target)
    context = f" by {estimator_name}" if estimator_name else ""
    if ensure_min_samples > 0 and array.ndim >= 1:
        n_samples = array.shape[0]
        if n_samples < ensure_min_samples:
            raise ValueError(
                f"Found array with {n_samples} sample(s) (shape={array.shape}) while"
                f" a minimum of {ensure_min_samples} is required{context}."
            )
    if ensure_min_features > 0 and array.ndim == 2:
        n_features = array.shape[1]
        if n_features < ensure_min_features:
            raise ValueError(
                f"Found array with {n_features} feature(s) (shape={array.shape}) "
                f"while a minimum of {ensure_min_features} is required{context}."
            )
    return array


def check_array(
    array,
    *,
    xp: ModuleType,
    accept_sparse=False,
    dtype="numeric",
    ensure_2d=True,
    allow_nd=False,
    ensure_min_samples=1,
    ensure_min_features=1,
    allow_nan=False,
    estimator=None,
    input_name="",
    ensure_all_finite=True,
):
    """Validate ``array`` like :func:`sklearn.utils.check_array`, return it in ``xp``.

    Parameters mirror scikit-learn's; ``allow_nan`` replaces
    ``ensure_all_finite="allow-nan"`` (which is also taken, and
    ``ensure_all_finite=False`` skips the check), and ``dtype`` may also be
    :data:`NUMERIC_FLOAT`. Host data is validated by scikit-learn,
    device data here; both are then moved to ``xp`` (no copy when already
    there) and scanned for NaN/inf in ``xp``.
    """
    as_float = isinstance(dtype, str) and dtype == NUMERIC_FLOAT
    if as_float:
        dtype = "numeric"
    if input_family(array) == HOST:
        array = sk_check_array(
            array,
            accept_sparse=accept_sparse,
            dtype=dtype,
            ensure_all_finite=False,
            ensure_2d=ensure_2d,
            allow_nd=allow_nd,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=ensure_min_features,
            estimator=estimator,
            input_name=input_name,
        )
    else:
        array = _check_device_array(
            array,
            accept_sparse=accept_sparse,
            dtype=dtype,
            ensure_2d=ensure_2d,
            allow_nd=allow_nd,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=ensure_min_features,
            estimator=estimator,
            input_name=input_name,
        )
    if as_float and array.dtype not in FLOAT_DTYPES:
        array = array.astype(np.float64)
    if ensure_all_finite is not False and is_sparse(array):
        if not hasattr(array, "data"):  # a DOK matrix, kept by accept_sparse=True
            warnings.warn(
                f"Can't check {array.format} sparse matrix for nan or inf.",
                stacklevel=2,
            )
    array = to_namespace(array, xp)
    if ensure_all_finite is False:
        return array
    allow_nan = allow_nan or ensure_all_finite == "allow-nan"
    assert_all_finite(
        array, xp=xp, allow_nan=allow_nan, estimator=estimator, input_name=input_name
    )
    return array


def check_y(
    y,
    *,
    xp: ModuleType,
    multi_output=False,
    y_numeric=False,
    estimator=None,
    dtype=None,
):
    """Validate a target like scikit-learn's ``_check_y``, return it in ``xp``.

    ``dtype``, when given, is applied before the move to ``xp`` (so that a
    string target fails with NumPy's "could not convert string to float", as
    in scikit-learn, rather than in the transfer).
    """
    if y is None:
        raise ValueError(
            f"{_estimator_name(estimator)} requires y to be passed, "
            "but the target y is None."
        )
    if input_family(y) == HOST:
        y = check_y_host(
            y, multi_output=multi_output, y_numeric=y_numeric, estimator=estimator
        )
        if dtype is not None:
            y = y.astype(dtype, copy=False)
        return to_namespace(y, xp)
    y = _check_device_array(
        y,
        accept_sparse="csr" if multi_output else False,
        dtype=None,
        ensure_2d=False,
        allow_nd=False,
        ensure_min_samples=1,
        ensure_min_features=1,
        estimator=estimator,
        input_name="y",
    )
    if not multi_output:
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples, ), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        elif y.ndim != 1:
            raise ValueError(
                f"y should be a 1d array, got an array of shape {y.shape} instead."
            )
    if dtype is not None:
        y = y.astype(dtype, copy=False)
    y = to_namespace(y, xp)
    assert_all_finite(y, xp=xp, estimator=estimator, input_name="y")
    return y


def check_sample_weight(
    sample_weight,
    n_samples: int,
    *,
    xp: ModuleType,
    dtype,
    ensure_non_negative=False,
    allow_all_zero_weights=False,
):
    """Validate ``sample_weight`` like scikit-learn, return a 1-D ``xp`` array.

    ``None`` gives ones and a number gives a constant array.
    ``allow_all_zero_weights`` as in scikit-learn's ``_check_sample_weight``.
    """
    if sample_weight is None:
        return xp.ones(n_samples, dtype=dtype)
    if isinstance(sample_weight, numbers.Number):
        return xp.full(n_samples, sample_weight, dtype=dtype)
    sample_weight = check_array(
        sample_weight,
        xp=xp,
        ensure_2d=False,
        dtype=dtype,
        input_name="sample_weight",
    )
    if sample_weight.ndim != 1:
        raise ValueError(
            f"Sample weights must be 1D array or scalar, got "
            f"{sample_weight.ndim}D array. Expected either a scalar value "
            f"or a 1D array of length {n_samples}."
        )
    if sample_weight.shape != (n_samples,):
        raise ValueError(
            f"sample_weight.shape == {sample_weight.shape}, expected {(n_samples,)}!"
        )
    if not allow_all_zero_weights:
        check_some_weight(sample_weight)
    if ensure_non_negative and bool((sample_weight < 0).any()):
        raise ValueError("Negative values in data passed to `sample_weight`")
    return sample_weight


def check_some_weight(sample_weight) -> None:
    """scikit-learn's error for weights that are all zero."""
    if not bool((sample_weight != 0).any()):
        raise ValueError("Sample weights must contain at least one non-zero number.")


def check_X_y(
    X,
    y,
    *,
    xp: ModuleType,
    accept_sparse=False,
    dtype="numeric",
    ensure_2d=True,
    ensure_min_samples=1,
    ensure_min_features=1,
    allow_nan=False,
    multi_output=False,
    y_numeric=False,
    estimator=None,
):
    """Validate X and y together (as :func:`sklearn.utils.check_X_y`), into ``xp``."""
    if y is None:
        check_y(None, xp=xp, estimator=estimator)
    X = check_array(
        X,
        xp=xp,
        accept_sparse=accept_sparse,
        dtype=dtype,
        ensure_2d=ensure_2d,
        ensure_min_samples=ensure_min_samples,
        ensure_min_features=ensure_min_features,
        allow_nan=allow_nan,
        estimator=estimator,
        input_name="X",
    )
    # Regressors (y_numeric) compute with y in X's floating dtype.
    y_dtype = X.dtype if y_numeric and X.dtype.kind == "f" else None
    y = check_y(
        y,
        xp=xp,
        multi_output=multi_output,
        y_numeric=y_numeric,
        estimator=estimator,
        dtype=y_dtype,
    )
    check_consistent_length(X, y)
    return X, y


def validate_data(
    estimator,
    X,
    y="no_validation",
    *,
    xp: ModuleType,
    reset=True,
    accept_sparse=False,
    dtype="numeric",
    ensure_2d=True,
    ensure_min_samples=1,
    ensure_min_features=1,
    allow_nan=False,
    multi_output=False,
    y_numeric=False,
    ensure_all_finite=True,
):
    """Validate X (and y) for ``estimator`` and return them in ``xp``.

    The counterpart of :func:`sklearn.utils.validation.validate_data`: it
    checks and records ``feature_names_in_`` and ``n_features_in_`` (when
    ``reset``) or checks them against the fitted values (when not).

    Returns ``X`` when ``y`` is ``"no_validation"``, else ``(X, y)``.
    """
    check_feature_names(estimator, X, reset=reset)
    x_options = dict(
        accept_sparse=accept_sparse,
        dtype=dtype,
        ensure_2d=ensure_2d,
        ensure_min_samples=ensure_min_samples,
        ensure_min_features=ensure_min_features,
        allow_nan=allow_nan,
        estimator=estimator,
    )
    if isinstance(y, str) and y == "no_validation":
        X = out = check_array(
            X, xp=xp, input_name="X", ensure_all_finite=ensure_all_finite, **x_options
        )
    else:
        X, y = out = check_X_y(
            X, y, xp=xp, multi_output=multi_output, y_numeric=y_numeric, **x_options
        )
    if ensure_2d:
        check_n_features(estimator, X, reset=reset)
    return out
