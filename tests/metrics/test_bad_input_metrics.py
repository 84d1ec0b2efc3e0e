"""Bad and extreme inputs to every public metric, compared with scikit-learn.

Each case calls a function of :mod:`gpuml.metrics` and scikit-learn's
function of the same name on the same inputs (converted to the backend's
arrays for gpuml). Both must raise the same exception type, with
scikit-learn's message (or its key phrase, where scikit-learn's message
shows data), or both must return the same values within float tolerance.
The table is built from a few small inputs per family of metrics and a list
of perturbations: non-finite and overflowing values, bad sample weights,
mismatched and empty inputs, wrong label types and target types, and bad
``average`` / ``labels`` / ``pos_label`` / ``multi_class`` values.

Run as a script (``python tests/metrics/test_bad_input_metrics.py``), it
prints every case that differs, on the NumPy backend.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sklearn
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.manifold import trustworthiness as sk_trustworthiness
from sklearn.model_selection import GridSearchCV as SkGridSearchCV

from gpuml import metrics
from gpuml._array import to_host
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.metrics import Scorer
from gpuml.metrics._scorer import BATCH_KERNELS
from gpuml.model_selection import GridSearchCV

FMAX = np.finfo(np.float64).max
F32MAX = 3.4e38  # float32 max is 3.4028235e38

# --------------------------------------------------------------------------
# Base inputs per family (small: n = 8)
# --------------------------------------------------------------------------

REG_TRUE = np.array([3.0, 0.5, 2.0, 7.0, 4.2, 1.1, 0.3, 5.5])
REG_PRED = np.array([2.5, 0.7, 2.0, 8.0, 4.0, 1.0, 0.5, 5.0])
BIN_TRUE = np.array([0, 1, 1, 0, 1, 0, 1, 1])
BIN_PRED = np.array([0, 1, 0, 0, 1, 1, 1, 1])
PROBA = np.array([0.1, 0.9, 0.6, 0.3, 0.8, 0.4, 0.7, 0.95])
MC_TRUE = np.array([0, 1, 2, 2, 1, 0, 1, 2])
MC_PRED = np.array([0, 2, 2, 1, 1, 0, 1, 2])
MC_SCORE = np.array(
    [
        [0.6, 0.3, 0.1],
        [0.2, 0.5, 0.3],
        [0.1, 0.2, 0.7],
        [0.3, 0.3, 0.4],
        [0.2, 0.6, 0.2],
        [0.7, 0.2, 0.1],
        [0.3, 0.4, 0.3],
        [0.1, 0.1, 0.8],
    ]
)
ML_TRUE = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 0], [0, 1], [1, 1], [0, 1]])
ML_SCORE = np.array(
    [
        [0.2, 0.8],
        [0.7, 0.6],
        [0.9, 0.3],
        [0.1, 0.2],
        [0.6, 0.4],
        [0.3, 0.9],
        [0.8, 0.7],
        [0.4, 0.5],
    ]
)
TW_X = np.array(
    [
        [0.0, 1.0, 2.0],
        [1.0, 0.5, 2.5],
        [2.0, 2.0, 0.1],
        [3.0, 1.5, 1.0],
        [4.0, 0.2, 3.0],
        [5.0, 2.5, 0.7],
        [6.0, 1.2, 1.9],
        [7.0, 0.9, 2.2],
    ]
)
TW_EMB = TW_X[:, :2] * np.array([1.0, -2.0])

# name -> (family, base positional inputs, base keyword arguments)
REGRESSION = [
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "explained_variance_score",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_error",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "median_absolute_error",
    "r2_score",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
]
LABELS = [
    "accuracy_score",
    "balanced_accuracy_score",
    "confusion_matrix",
    "f1_score",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "matthews_corrcoef",
    "multilabel_confusion_matrix",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "zero_one_loss",
]
PROBABILITY = ["brier_score_loss", "log_loss"]
RANKING = [
    "average_precision_score",
    "precision_recall_curve",
    "roc_auc_score",
    "roc_curve",
]
NO_WEIGHT = {"max_error", "trustworthiness"}
AVERAGED = {
    "f1_score",
    "fbeta_score",
    "jaccard_score",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
}


def _base(name: str):
    """``(args, kwargs)`` of a valid call of ``name``."""
    if name in REGRESSION:
        return [REG_TRUE, REG_PRED], {}
    if name == "fbeta_score":
        return [BIN_TRUE, BIN_PRED], {"beta": 2.0}
    if name in LABELS:
        return [BIN_TRUE, BIN_PRED], {}
    if name in PROBABILITY or name in RANKING:
        return [BIN_TRUE, PROBA], {}
    if name == "top_k_accuracy_score":
        return [MC_TRUE, MC_SCORE], {}
    if name == "trustworthiness":
        return [TW_X, TW_EMB], {"n_neighbors": 2}
    raise KeyError(name)


ALL_METRICS = sorted(
    [
        *REGRESSION,
        *LABELS,
        *PROBABILITY,
        *RANKING,
        "top_k_accuracy_score",
        "trustworthiness",
    ]
)

# --------------------------------------------------------------------------
# Perturbations: each turns a valid call into a bad one
# --------------------------------------------------------------------------

_VALUES = {
    "nan": np.nan,
    "inf": np.inf,
    "-inf": -np.inf,
    "1e308": 1e308,
    "fmax": FMAX,
    "-fmax": -FMAX,
}


def _with_value(array, value, dtype=np.float64):
    out = np.array(array, dtype=dtype)
    out.flat[1] = value
    return out


def _value_cases(name):
    """One extreme value in each array input (and float32 near its max)."""
    for slot in (0, 1):
        for label, value in _VALUES.items():
            yield (
                f"arg{slot}={label}",
                _set_arg(slot, lambda a, v=value: _with_value(a, v)),
            )
        yield (
            f"arg{slot}=f32max",
            _set_arg(slot, lambda a: _with_value(a, F32MAX, np.float32)),
        )


def _set_arg(slot, change):
    def perturb(args, kwargs):
        args = list(args)
        args[slot] = change(args[slot])
        return args, kwargs

    return perturb


def _set_kwargs(**extra):
    def perturb(args, kwargs):
        return args, {**kwargs, **extra}

    return perturb


def _replace(*new_args, **extra):
    def perturb(args, kwargs):
        return list(new_args), {**kwargs, **extra}

    return perturb


N = 8
_WEIGHTS = {
    "negative": np.array([1.0, -1.0, 2.0, 1.0, 1.0, -0.5, 1.0, 1.0]),
    "all-negative": -np.ones(N),
    "all-zero": np.zeros(N),
    "strings": np.array(["a"] * N),
    "numeric-strings": np.array(["1", "2", "1", "1", "2", "1", "1", "3"]),
    "object-numbers": np.array([1, 2, 1, 1, 2, 1, 1, 3], dtype=object),
    "list": [1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 3.0],
    "short": np.ones(N - 1),
    "1e308": _with_value(np.ones(N), 1e308),
    "fmax": _with_value(np.ones(N), FMAX),
    "nan": _with_value(np.ones(N), np.nan),
    "inf": _with_value(np.ones(N), np.inf),
    "2d": np.ones((N, 1)),
    "2d-wide": np.ones((N, 2)),
    "scalar": 2.0,
    "f32max": _with_value(np.ones(N), F32MAX, np.float32),
    "object-strings": np.array(["1"] * N, dtype=object),
    "bool": np.ones(N, dtype=bool),
}


def _weight_cases(name):
    if name in NO_WEIGHT:
        return
    for label, weight in _WEIGHTS.items():
        yield f"sample_weight={label}", _set_kwargs(sample_weight=weight)


def _shape_cases(name):
    yield "short-y_pred", _set_arg(1, lambda a: a[:-1])
    yield "short-y_true", _set_arg(0, lambda a: a[:-1])
    yield "empty", _set_arg(0, lambda a: a[:0])
    yield "both-empty", lambda a, k: ([x[:0] for x in a], k)
    yield "scalar-y_true", _set_arg(0, lambda a: np.float64(a[0]))
    yield "3d-y_pred", _set_arg(1, lambda a: np.asarray(a)[:, None, None])
    yield "list-inputs", lambda a, k: ([np.asarray(x).tolist() for x in a], k)
    if name in LABELS:
        yield "str-vs-num", _set_arg(0, lambda a: np.where(a == 1, "b", "a"))
        yield "str-labels", lambda a, k: ([np.where(x == 1, "b", "a") for x in a], k)
        yield "float-labels", _set_arg(1, lambda a: a + 0.5)
        yield "multiclass", _replace(MC_TRUE, MC_PRED)
        yield "multilabel", _replace(ML_TRUE, ML_TRUE[::-1])
        yield "mixed-ml-binary", _replace(ML_TRUE, BIN_PRED)
        yield "continuous-true", _replace(REG_TRUE, BIN_PRED)
        yield "nan-labels", _set_arg(0, lambda a: _with_value(a, np.nan))
        yield "2-col-labels", _set_arg(1, lambda a: a[:, None])
    if name in REGRESSION:
        yield (
            "2d-multioutput",
            _replace(np.c_[REG_TRUE, REG_TRUE], np.c_[REG_PRED, REG_PRED]),
        )
        yield "column-vs-flat", _set_arg(0, lambda a: a[:, None])
        yield "outputs-mismatch", _replace(np.c_[REG_TRUE, REG_TRUE], REG_PRED)
        yield "str-values", _set_arg(0, lambda a: a.astype(str))
        yield "negative", lambda a, k: ([-x for x in a], k)
        yield "zeros", lambda a, k: ([np.zeros(N), np.zeros(N)], k)
        yield "int-inputs", lambda a, k: ([np.arange(N), np.arange(N)[::-1]], k)
        yield "one-sample", lambda a, k: ([x[:1] for x in a], k)
    if name in PROBABILITY or name in RANKING:
        yield (
            "multiclass-true",
            _set_arg(0, lambda a: np.where(a == 1, 2, a) - (a == 0)),
        )
        yield "str-true", _set_arg(0, lambda a: np.where(a == 1, "b", "a"))
        yield "one-class", _set_arg(0, lambda a: np.ones_like(a))
        yield "continuous-true", _set_arg(0, lambda a: a + 0.5)
        yield "proba>1", _set_arg(1, lambda a: a * 2)
        yield "proba<0", _set_arg(1, lambda a: a - 0.5)
        yield "multilabel", _replace(ML_TRUE, ML_SCORE)
        yield "mc-scores", _replace(MC_TRUE, MC_SCORE)
        yield "2d-score-col", _set_arg(1, lambda a: a[:, None])
        yield "str-score", _set_arg(1, lambda a: a.astype(str))
    if name == "top_k_accuracy_score":
        yield "binary", _replace(BIN_TRUE, PROBA)
        yield "label-not-in-scores", _replace(MC_TRUE + 1, MC_SCORE, labels=[1, 2, 5])
        yield "too-few-columns", _replace(MC_TRUE, MC_SCORE[:, :2])
        yield "str-true", _set_arg(0, lambda a: a.astype(str))
        yield "multilabel", _replace(ML_TRUE, ML_SCORE)
    if name == "trustworthiness":
        yield "too-many-neighbors", _set_kwargs(n_neighbors=4)
        yield "zero-neighbors", _set_kwargs(n_neighbors=0)
        yield "1d-X", _set_arg(0, lambda a: a[:, 0])


def _param_cases(name):
    if name in AVERAGED:
        for average in ("bad", "binary", "samples", "micro", None):
            for target in ("binary", "multiclass", "multilabel"):
                change = {
                    "binary": lambda a, k: (a, k),
                    "multiclass": _replace(MC_TRUE, MC_PRED),
                    "multilabel": _replace(ML_TRUE, ML_TRUE[::-1]),
                }[target]

                def perturb(args, kwargs, change=change, average=average):
                    args, kwargs = change(args, kwargs)
                    return args, {**kwargs, "average": average}

                yield f"average={average}-{target}", perturb
        yield "labels=[5]", _set_kwargs(labels=[5], average="macro")
        yield "labels=[]", _set_kwargs(labels=[], average="macro")
        yield "labels=[0,9]-none", _set_kwargs(labels=[0, 9], average=None)
        yield "pos_label=2", _set_kwargs(pos_label=2)
        yield "pos_label=str", _set_kwargs(pos_label="x")
        yield "pos_label=[1]", _set_kwargs(pos_label=[1])
        yield "zero_division=bad", _set_kwargs(zero_division="bad")
        yield "zero_division=2", _set_kwargs(zero_division=2)
    if name in ("confusion_matrix", "multilabel_confusion_matrix"):
        yield "labels=[5]", _set_kwargs(labels=[5])
        yield "labels=[]", _set_kwargs(labels=[])
        yield "labels=[0,0]", _set_kwargs(labels=[0, 0])
        yield "labels=str", _set_kwargs(labels=["a", "b"])
    if name == "confusion_matrix":
        yield "normalize=bad", _set_kwargs(normalize="bad")
    if name in ("roc_auc_score", "average_precision_score"):
        for average in ("bad", "binary", "samples", "micro", "weighted", None):
            yield f"average={average}", _set_kwargs(average=average)
            yield (
                f"average={average}-mc",
                _replace(MC_TRUE, MC_SCORE, average=average, multi_class="ovr")
                if name == "roc_auc_score"
                else _replace(MC_TRUE, MC_SCORE, average=average),
            )
            yield f"average={average}-ml", _replace(ML_TRUE, ML_SCORE, average=average)
    if name == "roc_auc_score":
        for mc in ("bad", "raise", "ovr", "ovo", None):
            yield f"multi_class={mc}", _replace(MC_TRUE, MC_SCORE, multi_class=mc)
        yield (
            "ovo-weighted-sw",
            _replace(MC_TRUE, MC_SCORE, multi_class="ovo", sample_weight=np.ones(N)),
        )
        yield (
            "ovr-negative-sw",
            _replace(
                MC_TRUE, MC_SCORE, multi_class="ovr", sample_weight=_WEIGHTS["negative"]
            ),
        )
        yield (
            "ml-negative-sw",
            _replace(ML_TRUE, ML_SCORE, sample_weight=_WEIGHTS["negative"]),
        )
        yield "max_fpr=0", _set_kwargs(max_fpr=0)
        yield "max_fpr=2", _set_kwargs(max_fpr=2.0)
        yield (
            "max_fpr=0.5-negative-sw",
            _set_kwargs(max_fpr=0.5, sample_weight=_WEIGHTS["negative"]),
        )
        yield (
            "max_fpr=0.5-mc",
            _replace(MC_TRUE, MC_SCORE, max_fpr=0.5, multi_class="ovr"),
        )
        yield (
            "labels-wrong",
            _replace(MC_TRUE, MC_SCORE, multi_class="ovr", labels=[0, 1, 5]),
        )
        yield (
            "labels-short",
            _replace(MC_TRUE, MC_SCORE, multi_class="ovr", labels=[0, 1]),
        )
        yield "mc-not-proba", _replace(MC_TRUE, MC_SCORE * 2, multi_class="ovr")
    if name in ("average_precision_score", "precision_recall_curve", "roc_curve"):
        yield "pos_label=2", _set_kwargs(pos_label=2)
        yield "pos_label=str", _set_kwargs(pos_label="x")
        yield "pos_label=[1]", _set_kwargs(pos_label=[1])
    if name in ("brier_score_loss",):
        yield "pos_label=2", _set_kwargs(pos_label=2)
        yield "pos_label=str", _set_kwargs(pos_label="x")
        yield "labels=[0,1,2]", _set_kwargs(labels=[0, 1, 2])
        yield "scale_by_half=bad", _set_kwargs(scale_by_half="bad")
    if name == "log_loss":
        yield "labels=[0]", _set_kwargs(labels=[0])
        yield "labels=[0,1,2]", _set_kwargs(labels=[0, 1, 2])
        yield "normalize=bad", _set_kwargs(normalize="bad")
    if name == "top_k_accuracy_score":
        yield "k=0", _set_kwargs(k=0)
        yield "k=5", _set_kwargs(k=5)
        yield "labels-unsorted", _set_kwargs(labels=[2, 1, 0])
        yield "labels-dup", _set_kwargs(labels=[0, 0, 1])
    if name in REGRESSION and name not in (
        "max_error",
        "mean_tweedie_deviance",
        "mean_poisson_deviance",
        "mean_gamma_deviance",
        "d2_tweedie_score",
    ):
        yield "multioutput=bad", _set_kwargs(multioutput="bad")
        yield "multioutput=[1]", _set_kwargs(multioutput=[1.0])
        yield (
            "multioutput=[1,2]-2d",
            _replace(
                np.c_[REG_TRUE, REG_TRUE],
                np.c_[REG_PRED, REG_TRUE],
                multioutput=[1.0, 2.0],
            ),
        )
        yield (
            "multioutput=[1,2,3]-2d",
            _replace(
                np.c_[REG_TRUE, REG_TRUE],
                np.c_[REG_PRED, REG_TRUE],
                multioutput=[1, 2, 3],
            ),
        )
        yield (
            "multioutput=raw-2d",
            _replace(
                np.c_[REG_TRUE, REG_TRUE],
                np.c_[REG_PRED, REG_TRUE],
                multioutput="raw_values",
            ),
        )
    if name in ("mean_tweedie_deviance", "d2_tweedie_score"):
        for power in (-1, 0.5, 1.5, 3):
            yield f"power={power}", _set_kwargs(power=power)
            yield (
                f"power={power}-neg",
                lambda a, k, p=power: (
                    [-a[0], a[1]],
                    {**k, "power": p},
                ),
            )
    if name in ("mean_pinball_loss", "d2_pinball_score"):
        yield "alpha=2", _set_kwargs(alpha=2.0)
        yield "alpha=-0.1", _set_kwargs(alpha=-0.1)


def _cases():
    for name in ALL_METRICS:
        for source in (_value_cases, _weight_cases, _shape_cases, _param_cases):
            for label, perturb in source(name):
                yield name, label, perturb


CASES = list(_cases())

# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------


def _sk_function(name):
    if name == "trustworthiness":
        return sk_trustworthiness
    return getattr(skm, name)


def _to_backend(value, backend):
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return backend.asarray(value)
    return value


def _outcome(func, args, kwargs):
    """``("raise", type, message)`` or ``("return", value)``, warnings ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return ("return", func(*args, **kwargs))
            except Exception as exc:
                return ("raise", type(exc), str(exc))


# Messages of NumPy's own errors, hit inside scikit-learn's code (not messages
# scikit-learn wrote): only the exception type is compared.
_NUMPY_MESSAGES = (
    "ufunc",
    "Cannot cast array data",
    "the resolved dtypes are not compatible",
    "operands could not be broadcast",
    "out of bounds for axis",
    "shape mismatch: indexing arrays",
    "Axis must be specified when shapes",
    "unsupported operand type",
    "can't multiply sequence",
)


def _key_phrase(message: str) -> str:
    """The longest fixed part of a message: its longest stretch of text
    without data (an array, a list, a set, a number or a quoted value)."""
    return max(re.split(r"[\[\(\{'\"0-9]|np\.", message), key=len).strip()


def _as_host(value):
    if isinstance(value, tuple):
        return tuple(_as_host(v) for v in value)
    if value is None or isinstance(value, (float, int, str)):
        return value
    return to_host(value)


def _same_value(expected, got) -> bool:
    if isinstance(expected, tuple):
        return (
            isinstance(got, tuple)
            and len(expected) == len(got)
            and all(_same_value(e, g) for e, g in zip(expected, got, strict=True))
        )
    if expected is None:
        return got is None
    expected = np.asarray(expected)
    got = np.asarray(got)
    if expected.shape != got.shape:
        return False
    if expected.dtype.kind in "OUS" or got.dtype.kind in "OUS":
        return bool((expected == got).all())
    return bool(
        np.allclose(
            got.astype(np.float64),
            expected.astype(np.float64),
            rtol=1e-6,
            atol=1e-9,
            equal_nan=True,
        )
    )


def compare(name, perturb, backend=None):
    """``None`` when gpuml behaves like scikit-learn, else what differs."""
    args, kwargs = perturb(*_base(name))
    expected = _outcome(_sk_function(name), args, kwargs)
    if backend is not None:
        args = [_to_backend(a, backend) for a in args]
        kwargs = {k: _to_backend(v, backend) for k, v in kwargs.items()}
    got = _outcome(getattr(metrics, name), args, kwargs)
    if expected[0] == "raise":
        if got[0] != "raise":
            return (
                f"scikit-learn raises {expected[1].__name__}: "
                f"{expected[2][:150]!r}; gpuml returns {got[1]!r}"
            )
        numpy_message = any(m in expected[2] for m in _NUMPY_MESSAGES)
        # NumPy's own error types (UFuncTypeError ...) count as their builtin base.
        base = next(t for t in expected[1].__mro__ if t.__module__ == "builtins")
        if not issubclass(got[1], base if numpy_message else expected[1]):
            return (
                f"scikit-learn raises {expected[1].__name__}: {expected[2][:150]!r}; "
                f"gpuml raises {got[1].__name__}: {got[2][:150]!r}"
            )
        # gpuml names the input of a NaN/inf error (docs/differences.rst).
        unnamed = (
            re.sub(r"^Input \w+ contains", "Input contains", m)
            for m in (expected[2], got[2])
        )
        key, message = next(unnamed), next(unnamed)
        if not numpy_message and _key_phrase(key) not in message:
            return f"messages differ: {expected[2][:150]!r} vs {got[2][:150]!r}"
        return None
    if got[0] == "raise":
        return (
            f"scikit-learn returns {expected[1]!r}; gpuml raises "
            f"{got[1].__name__}: {got[2][:150]!r}"
        )
    if not _same_value(_as_host(expected[1]), _as_host(got[1])):
        return f"values differ: {expected[1]!r} vs {got[1]!r}"
    return None


# Where gpuml differs on purpose (docs/differences.rst), what it does instead.
_CLEAR_ERROR = "scikit-learn fails inside NumPy with an IndexError; gpuml says why"
_OVERFLOW = (
    "distances overflow to inf and tie: scikit-learn's ranks depend on its sort's "
    "order of the ties"
)
_TIES = (
    "distances from a value near float32's max tie in float64: scikit-learn's "
    "neighbours depend on its search's order of the ties"
)
_EMBEDDING_OVERFLOW = (
    "the embedding's distances overflow: scikit-learn's neighbour search fails "
    "inside NumPy (a reshape); gpuml says why"
)
KNOWN_DIFFERENCES = {
    ("average_precision_score", "both-empty"): (ValueError, _CLEAR_ERROR),
    ("trustworthiness", "short-y_pred"): (ValueError, _CLEAR_ERROR),
    ("trustworthiness", "short-y_true"): (ValueError, _CLEAR_ERROR),
    **{
        ("trustworthiness", f"arg0={v}"): (float, _OVERFLOW)
        for v in ("1e308", "fmax", "-fmax", "f32max")
    },
    ("trustworthiness", "arg1=f32max"): (float, _TIES),
    **{
        ("trustworthiness", f"arg1={v}"): (ValueError, _EMBEDDING_OVERFLOW)
        for v in ("1e308", "fmax", "-fmax")
    },
}


def _known_difference(name, label, perturb, backend):
    """``None`` when gpuml does what docs/differences.rst says it does."""
    outcome, _reason = KNOWN_DIFFERENCES[name, label]
    args, kwargs = perturb(*_base(name))
    args = [_to_backend(a, backend) for a in args]
    kwargs = {k: _to_backend(v, backend) for k, v in kwargs.items()}
    got = _outcome(getattr(metrics, name), args, kwargs)
    if outcome is float and got[0] == "return" and np.ndim(got[1]) == 0:
        return None
    if outcome is not float and got[0] == "raise" and issubclass(got[1], outcome):
        return None
    return f"documented as {outcome.__name__}, got {got[:2]!r}"


@pytest.mark.parametrize("name", ALL_METRICS)
def test_metric_bad_input_matches_sklearn(name, backend):
    """Every case of the table for ``name`` (one test per metric, so that the
    ~2,000 cases run in seconds); the failure lists each differing case."""
    differences = []
    for case_name, label, perturb in CASES:
        if case_name != name:
            continue
        if (name, label) in KNOWN_DIFFERENCES:
            difference = _known_difference(name, label, perturb, backend)
        else:
            difference = compare(name, perturb, backend)
        if difference is not None:
            differences.append(f"[{label}] {difference}")
    assert not differences, "\n".join(differences)


# --------------------------------------------------------------------------
# Batched scorers: raise wherever the plain metric raises for any candidate
# --------------------------------------------------------------------------

BATCHED = {f.__name__ for f in BATCH_KERNELS}
BATCH_CASES = [
    (name, label, perturb)
    for name, label, perturb in CASES
    if name in BATCHED and not label.startswith(("average=None", "multioutput=raw"))
]


def compare_batched(name, perturb, backend):
    """``None`` when a batched scorer of ``name`` agrees with the metric.

    The batch stacks the unperturbed predictions and the perturbed ones (or
    the perturbed ones twice, where their shape changed): it must raise
    where the metric raises for either, else give both scores.
    """
    base_args, _ = _base(name)
    args, kwargs = perturb(*_base(name))
    y_pred = args[1]
    if not (isinstance(y_pred, np.ndarray) and y_pred.dtype.kind in "biuf"):
        return None  # text or lists: not what an estimator predicts
    first = np.asarray(base_args[1])
    if first.shape != y_pred.shape:
        first = y_pred
    y_true = _to_backend(args[0], backend)
    kwargs = {k: _to_backend(v, backend) for k, v in kwargs.items()}
    func = getattr(metrics, name)
    outcomes = [
        _outcome(func, [y_true, _to_backend(p, backend)], kwargs)
        for p in (first, y_pred)
    ]
    if any(o[0] == "return" and np.ndim(o[1]) != 0 for o in outcomes):
        return None  # an array result: not a score
    sample_weight = kwargs.pop("sample_weight", None)
    scorer = Scorer(func, 1, kwargs, "predict")
    stack = _to_backend(np.stack([first, y_pred]), backend)
    got = _outcome(
        scorer.score_predictions, [y_true, stack], {"sample_weight": sample_weight}
    )
    raised = [o for o in outcomes if o[0] == "raise"]
    if raised:
        if got[0] != "raise":
            return (
                f"the metric raises {raised[0][1].__name__}: {raised[0][2][:150]!r}; "
                f"the batch returns {got[1]!r}"
            )
        return None
    if got[0] == "raise":
        return (
            f"the metric returns; the batch raises {got[1].__name__}: {got[2][:150]!r}"
        )
    want = np.array([float(o[1]) for o in outcomes])
    if not _same_value(want, _as_host(got[1])):
        return f"values differ: {want!r} vs {got[1]!r}"
    return None


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_batched_scorer_bad_input_matches_metric(name, backend):
    differences = [
        f"[{label}] {difference}"
        for case_name, label, perturb in BATCH_CASES
        if case_name == name
        and (difference := compare_batched(name, perturb, backend)) is not None
    ]
    assert not differences, "\n".join(differences)


# --------------------------------------------------------------------------
# get_scorer / make_scorer / check_scoring arguments
# --------------------------------------------------------------------------


class _FitOnly:
    def fit(self, X, y):
        return self


SCORER_CASES = {
    "get_scorer(42)": ("get_scorer", [42], {}),
    "get_scorer(unknown)": ("get_scorer", ["nope"], {}),
    "get_scorer(list)": ("get_scorer", [["r2"]], {}),
    'make_scorer("r2")': ("make_scorer", ["r2"], {}),
    "make_scorer(None)": ("make_scorer", [None], {}),
    "make_scorer(response_method=bad)": (
        "make_scorer",
        ["r2_score"],
        {"response_method": "bad"},
    ),
    "make_scorer(response_method=None)": (
        "make_scorer",
        ["r2_score"],
        {"response_method": None},
    ),
    "make_scorer(greater_is_better=str)": (
        "make_scorer",
        ["r2_score"],
        {"greater_is_better": "no"},
    ),
    "check_scoring(object)": ("check_scoring", [object()], {"allow_none": True}),
    "check_scoring(fit-only)": ("check_scoring", [_FitOnly()], {}),
    "check_scoring(fit-only, allow_none)": (
        "check_scoring",
        [_FitOnly()],
        {"allow_none": True},
    ),
    "check_scoring(scoring=3)": ("check_scoring", ["ridge"], {"scoring": 3}),
    "check_scoring(scoring=unknown)": ("check_scoring", ["ridge"], {"scoring": "nope"}),
    "check_scoring(scoring=metric)": (
        "check_scoring",
        ["ridge"],
        {"scoring": "r2_score"},
    ),
    "check_scoring(scoring=[])": ("check_scoring", ["ridge"], {"scoring": []}),
    "check_scoring(scoring=dup)": ("check_scoring", ["ridge"], {"scoring": ["r2"] * 2}),
    "check_scoring(scoring=[r2, 3])": (
        "check_scoring",
        ["ridge"],
        {"scoring": ["r2", 3]},
    ),
    "check_scoring(scoring=[r2, f])": (
        "check_scoring",
        ["ridge"],
        {"scoring": ["r2", "r2_score"]},
    ),
    "check_scoring(scoring={1: r2})": (
        "check_scoring",
        ["ridge"],
        {"scoring": {1: "r2"}},
    ),
    "check_scoring(scoring={})": ("check_scoring", ["ridge"], {"scoring": {}}),
    "check_scoring(allow_none=str)": (
        "check_scoring",
        ["ridge"],
        {"scoring": "r2", "allow_none": "x"},
    ),
    "check_scoring(raise_exc=None)": (
        "check_scoring",
        ["ridge"],
        {"scoring": ["r2"], "raise_exc": None},
    ),
}


def _resolve(value, module):
    """Placeholders: "ridge" an estimator, "r2_score" the module's metric."""
    if isinstance(value, list):
        return [_resolve(v, module) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, module) for k, v in value.items()}
    if isinstance(value, str) and value == "ridge":
        return Ridge() if module is metrics else SkRidge()
    if isinstance(value, str) and value == "r2_score":
        return module.r2_score
    return value


@pytest.mark.parametrize("case", list(SCORER_CASES))
def test_scorer_arguments_match_sklearn(case):
    func, args, kwargs = SCORER_CASES[case]
    outcomes = [
        _outcome(
            getattr(module, func), _resolve(args, module), _resolve(kwargs, module)
        )
        for module in (skm, metrics)
    ]
    expected, got = outcomes
    assert expected[0] == got[0], outcomes
    if expected[0] == "raise":
        assert issubclass(got[1], expected[1]), outcomes
        assert _key_phrase(expected[2]) in got[2], outcomes
    else:
        assert (expected[1] is None) == (got[1] is None), outcomes


# --------------------------------------------------------------------------
# The reproductions (issue 33), as regression tests
# --------------------------------------------------------------------------


def test_roc_auc_negative_weights_raise_like_sklearn(backend):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    score = rng.random(60)
    weight = np.ones(60)
    weight[::3] = -1
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        skm.roc_auc_score(y, score, sample_weight=weight)
    args = [backend.asarray(a) for a in (y, score, weight)]
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        metrics.roc_auc_score(args[0], args[1], sample_weight=args[2])
    # A batched scorer raises too (the search then scores one by one).
    scorer = metrics.get_scorer("roc_auc")
    stack = backend.asarray(np.stack([score, score[::-1]]))
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        scorer.score_predictions(args[0], stack, sample_weight=args[2])


_ZERO_WEIGHT_TARGETS = {
    "one class": [1, 1, 1, 1],
    "two classes": [0, 1, 1, 0],
    "multiclass": [0, 1, 2, 1],
    "one-class labels": [[1, 0], [1, 0], [1, 0], [1, 0]],
    "mixed labels": [[1, 0], [1, 1], [1, 0], [0, 0]],
}


@pytest.mark.parametrize("average", ["macro", "micro", "samples", "weighted", None])
@pytest.mark.parametrize("target", list(_ZERO_WEIGHT_TARGETS))
@pytest.mark.parametrize("name", ["roc_auc_score", "average_precision_score"])
def test_ranking_all_zero_weights_match_sklearn(backend, name, target, average):
    """All-zero weights: scikit-learn checks them per binary problem, so a
    one-class ROC problem is NaN first, a weighted average of no support is
    0 and a samples average fails in ``np.average``; elsewhere it raises."""
    y = np.asarray(_ZERO_WEIGHT_TARGETS[target])
    n_outputs = 3 if target == "multiclass" else y.shape[1] if y.ndim == 2 else 0
    if y.ndim == 1 and average not in ("macro", "weighted"):
        pytest.skip("averages of multilabel targets")
    score = np.linspace(0.1, 0.9, y.shape[0] * max(n_outputs, 1)).reshape(
        (y.shape[0], n_outputs) if n_outputs else (y.shape[0],)
    )
    kwargs = {"average": average, "sample_weight": np.zeros(y.shape[0])}
    if target == "multiclass":
        score = score / score.sum(axis=1, keepdims=True)
        if name == "roc_auc_score":
            kwargs["multi_class"] = "ovr"
    expected = _outcome(getattr(skm, name), [y, score], kwargs)
    device_kwargs = {
        **kwargs,
        "sample_weight": backend.asarray(kwargs["sample_weight"]),
    }
    got = _outcome(
        getattr(metrics, name),
        [backend.asarray(y), backend.asarray(score)],
        device_kwargs,
    )
    assert got[0] == expected[0], (expected, got)
    if got[0] == "raise":
        assert got[1:] == expected[1:]
    else:
        np.testing.assert_array_equal(backend.to_numpy(got[1]), np.asarray(expected[1]))


def test_ranking_samples_average_of_weights_summing_to_zero_raises(backend):
    y = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    score = np.linspace(0.1, 0.9, 8).reshape(4, 2)
    weight = np.array([1.0, -1.0, 2.0, -2.0])
    for name in ("roc_auc_score", "average_precision_score"):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            getattr(skm, name)(y, score, average="samples", sample_weight=weight)
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            getattr(metrics, name)(
                backend.asarray(y),
                backend.asarray(score),
                average="samples",
                sample_weight=backend.asarray(weight),
            )


def _weighted_outcomes(name, args, kwargs, backend):
    """``None`` when metric ``name`` of scikit-learn and of gpuml (on the
    backend's arrays, the weights included) give one value or raise alike;
    else both outcomes."""
    expected = _outcome(getattr(skm, name), args, kwargs)
    got = _outcome(
        getattr(metrics, name),
        [backend.asarray(a) for a in args],
        {
            k: backend.asarray(v) if k == "sample_weight" else v
            for k, v in kwargs.items()
        },
    )
    same = expected[0] == got[0] and (
        issubclass(got[1], expected[1])
        if got[0] == "raise"
        else _same_value(expected[1], backend.to_numpy(got[1]))
    )
    return None if same else (expected[:2], got[:2])


def test_average_precision_random_negative_weights_match_sklearn(backend, rng):
    """Random small problems with weights of both signs and zeros: where the
    positives' weights cancel, scikit-learn's recall is all ones and its AP
    the precision at its top threshold (zero weights dropped); else both
    give one value, or both raise."""
    differences = []
    for trial in range(200):
        n = int(rng.integers(2, 8))
        multilabel = trial % 2 == 0
        shape = (n, 2) if multilabel else (n,)
        y = rng.integers(0, 2, shape)
        score = np.round(rng.random(shape), 1)
        weight = rng.choice([-1.0, -0.5, 0.0, 1.0, 2.0], n)
        kwargs = {"sample_weight": weight}
        if multilabel:
            kwargs["average"] = ["macro", "micro", "weighted", None][trial % 4]
        outcomes = _weighted_outcomes(
            "average_precision_score", [y, score], kwargs, backend
        )
        if outcomes is not None:
            differences.append((y, score, weight, *outcomes))
    assert not differences, differences[:3]


def test_average_precision_of_cancelling_positive_weights():
    """The positives' weights sum to zero: scikit-learn's AP is the precision
    at its top threshold, here 1 (the zero-weight sample above it dropped)."""
    y = np.array([1, 0, 0, 0, 1])
    score = np.array([0.3, 0.6, 1.0, 0.2, 0.8])
    weight = np.array([1.0, 1.0, 0.0, -1.0, -1.0])
    with (
        pytest.warns(UserWarning, match="No positive class found"),
        np.errstate(divide="ignore", invalid="ignore"),  # scikit-learn's 0/0
    ):
        expected = skm.average_precision_score(y, score, sample_weight=weight)
    with pytest.warns(UserWarning, match="No positive class found"):
        got = metrics.average_precision_score(y, score, sample_weight=weight)
    assert got == expected == 1.0


_SIGNED_WEIGHT_CASES = [
    ("balanced_accuracy_score", "labels", {}),
    ("balanced_accuracy_score", "labels", {"adjusted": True}),
    ("confusion_matrix", "labels", {"normalize": "all"}),
    ("confusion_matrix", "labels", {"normalize": "true"}),
    ("jaccard_score", "labels", {"average": "weighted"}),
    ("jaccard_score", "labels", {"average": "macro"}),
    ("median_absolute_error", "values", {}),
    ("d2_absolute_error_score", "values", {}),
]


@pytest.mark.parametrize("name, kind, kwargs", _SIGNED_WEIGHT_CASES, ids=str)
def test_random_signed_weights_match_sklearn(backend, rng, name, kind, kwargs):
    """Weights of both signs and zeros on small problems (found by fuzzing
    against scikit-learn): the same value (infinities, the largest float of
    nan_to_num, the weighted median's binary search over unsorted
    cumulative weights) or the same exception (np.average's
    ZeroDivisionError, the chance level of no class)."""
    differences = []
    for _ in range(120):
        n = int(rng.integers(1, 7))
        if kind == "labels":
            y = rng.integers(0, 3, n)
            pred = rng.integers(0, 3, n)
        else:  # untied errors: a GPU's sort orders tied values otherwise
            y, pred = rng.normal(size=n), rng.normal(size=n)
        weight = rng.choice([-1.0, 0.0, 0.0, 1.0, 2.0], n)
        args = {**kwargs, "sample_weight": weight}
        outcomes = _weighted_outcomes(name, [y, pred], args, backend)
        if outcomes is not None:
            differences.append((y, pred, weight, *outcomes))
    assert not differences, differences[:3]


def test_roc_auc_random_negative_weights_match_sklearn(backend, rng):
    """Random small problems with weights of both signs: scikit-learn raises
    where its false positive rate goes both ways, else both give one value."""
    differences = []
    for trial in range(150):
        n = int(rng.integers(3, 12))
        multiclass = trial % 3 == 0
        y = rng.integers(0, 3 if multiclass else 2, n)
        score = np.round(rng.random(n), 1)
        kwargs = {}
        if multiclass:
            score = rng.random((n, 3))
            score /= score.sum(axis=1, keepdims=True)
            kwargs["multi_class"] = "ovr"
        weight = rng.choice([-1.0, -0.5, 0.0, 1.0, 2.0], n)
        outcomes = _weighted_outcomes(
            "roc_auc_score", [y, score], {**kwargs, "sample_weight": weight}, backend
        )
        if outcomes is not None:
            differences.append((y, score, weight, *outcomes))
    assert not differences, differences[:3]


TEXT_WEIGHT_METRICS = [
    "accuracy_score",
    "brier_score_loss",
    "f1_score",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "log_loss",
    "multilabel_confusion_matrix",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "top_k_accuracy_score",
    "zero_one_loss",
]


@pytest.mark.parametrize("name", TEXT_WEIGHT_METRICS)
def test_text_weights_raise_like_sklearn(name):
    args, kwargs = _base(name)
    weight = np.array(["1", "2", "1", "1", "2", "1", "1", "3"])
    with pytest.raises(TypeError):
        _sk_function(name)(*args, **kwargs, sample_weight=weight)
    with pytest.raises(TypeError, match="sample_weight must be an array of numbers"):
        getattr(metrics, name)(*args, **kwargs, sample_weight=weight)


def test_get_scorer_and_make_scorer_refuse_bad_arguments():
    with pytest.raises(
        InvalidParameterError, match="'scoring' parameter of get_scorer"
    ):
        metrics.get_scorer(42)
    with pytest.raises(
        InvalidParameterError, match="'score_func' parameter of make_scorer"
    ):
        metrics.make_scorer("r2")


@pytest.mark.parametrize("error_score", [np.nan, 0.0, "raise"])
def test_search_roc_auc_negative_weights_matches_sklearn(error_score, backend):
    """Negative weights routed to a batched roc_auc scorer: as scikit-learn's
    search, every split fails to score (error_score and a warning, or the
    error)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    weight = np.ones(60)
    weight[::3] = -1
    results = []
    with sklearn.config_context(enable_metadata_routing=True):
        for search_cls, estimator, module, data in (
            (SkGridSearchCV, SkLogisticRegression(), skm, (X, y, weight)),
            (
                GridSearchCV,
                LogisticRegression(),
                metrics,
                [backend.asarray(a) for a in (X, y, weight)],
            ),
        ):
            scorer = module.get_scorer("roc_auc").set_score_request(sample_weight=True)
            search = search_cls(
                estimator.set_fit_request(sample_weight=False),
                {"C": [0.1, 1.0, 10.0]},
                scoring=scorer,
                cv=3,
                error_score=error_score,
            )
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    search.fit(*data[:2], sample_weight=data[2])
                except ValueError as exc:
                    results.append(("raise", str(exc)))
                    continue
            failed = [w for w in caught if "Scoring failed" in str(w.message)]
            split_scores = np.array(
                [search.cv_results_[f"split{i}_test_score"] for i in range(3)]
            )
            results.append((to_host(split_scores).tolist(), len(failed)))
    expected, got = results
    if error_score == "raise":
        assert got[0] == expected[0] == "raise", results
        assert "x is neither increasing nor decreasing" in got[1], results
    else:
        np.testing.assert_array_equal(got[0], expected[0])
        assert got[1] == expected[1] > 0, results


if __name__ == "__main__":  # pragma: no cover - the probe, as a report
    from tests.conftest import Backend

    n_diff = 0
    for name, label, perturb in CASES:
        difference = compare(name, perturb)
        if difference is not None:
            if (name, label) in KNOWN_DIFFERENCES:
                difference += " (known: " + KNOWN_DIFFERENCES[name, label][1] + ")"
            n_diff += 1
            print(f"{name} [{label}]: {difference}")
    print(f"{n_diff} of {len(CASES)} cases differ")
    numpy_cpu = Backend("numpy-cpu", "host", "cpu")
    n_diff = 0
    for name, label, perturb in BATCH_CASES:
        difference = compare_batched(name, perturb, numpy_cpu)
        if difference is not None:
            n_diff += 1
            print(f"batched {name} [{label}]: {difference}")
    print(f"{n_diff} of {len(BATCH_CASES)} batched cases differ")
