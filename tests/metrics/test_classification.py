"""Classification metrics against scikit-learn, one candidate and batched.

Every comparison calls scikit-learn and gpuml on the same data and checks the
whole outcome: the value (or the error's type and message) and the warnings,
in order. The batch kernels must score each candidate of a batch exactly as
the public function scores it alone.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from gpuml.metrics import _classification as gm

AVERAGES = ["binary", "micro", "macro", "weighted", "samples", None]
ZERO_DIVISIONS = ["warn", 0.0, 1.0, np.nan]
PRF_METRICS = ["precision_score", "recall_score", "f1_score", "jaccard_score"]


# -- helpers -------------------------------------------------------------------


def _outcome(func, args, kwargs):
    """The result (or the exception) of a call, and its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = func(*args, **kwargs)
        except Exception as exc:  # compared with scikit-learn's exception
            result = exc
    # NumPy's arithmetic RuntimeWarnings inside scikit-learn are not its API.
    messages = [
        (w.category, str(w.message))
        for w in caught
        if not issubclass(w.category, RuntimeWarning)
    ]
    return result, messages


def _canonical(message: str) -> str:
    """A message with the items of each ``{...}`` sorted.

    scikit-learn prints the options of its parameter constraints as a set,
    whose order depends on the hash seed (and on when a module was compiled).
    """
    return re.sub(
        r"\{([^{}]*)\}",
        lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}",
        message,
    )


def _on_backend(backend, value):
    if value is None or isinstance(value, (str, int, float)):
        return value
    if backend.family == "host":
        return value
    if sp.issparse(value):
        return backend.asarray(value)
    return backend.asarray(np.asarray(value))


def _assert_same_value(backend, got, expected, rtol):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _assert_same_value(backend, g, e, rtol)
    elif expected is None:
        assert got is None
    elif isinstance(expected, np.ndarray):
        backend.assert_family(got, dtype=expected.dtype, shape=expected.shape)
        # Weighted counts derived by subtraction (true negatives = total - tp -
        # fp - fn) can be a rounding error away from an exact zero, and the GPU
        # sums in another order than NumPy: allow that much absolutely.
        finite = (
            np.abs(expected[np.isfinite(expected)])
            if expected.dtype.kind == "f"
            else []
        )
        scale = float(finite.max()) if len(finite) else 0.0
        atol = 1e-13 * scale if expected.dtype.kind == "f" else 0
        np.testing.assert_allclose(
            backend.to_numpy(got), expected, rtol=rtol, atol=atol
        )
    else:
        assert isinstance(got, float), type(got)
        np.testing.assert_allclose(got, expected, rtol=rtol)


def assert_matches_sklearn(backend, name, *args, rtol=1e-10, **kwargs):
    """gpuml's ``name`` gives scikit-learn's value or error, and its warnings."""
    expected, expected_warnings = _outcome(getattr(skm, name), args, kwargs)
    got, got_warnings = _outcome(
        getattr(gm, name),
        [_on_backend(backend, a) for a in args],
        {
            k: _on_backend(backend, v) if k == "sample_weight" else v
            for k, v in kwargs.items()
        },
    )
    context = f"{name}({kwargs})"
    if isinstance(expected, Exception):
        assert type(got) is type(expected), (context, got, expected)
        assert _canonical(str(got)) == _canonical(str(expected)), context
    else:
        if isinstance(got, Exception):
            raise AssertionError(context) from got
        _assert_same_value(backend, got, expected, rtol)
    assert got_warnings == expected_warnings, context


def _label_task(task, rng, n=40):
    """y_true, y_pred (half right), the labels= options and pos_label options."""
    if task == "multilabel":
        y_true = rng.integers(0, 2, (n, 4))
        y_pred = np.where(rng.random((n, 4)) < 0.6, y_true, 1 - y_true)
        return y_true, y_pred, [None, [2, 0], [3]], [1]
    names = {
        "binary": np.array([0, 1]),
        "multiclass": np.arange(4),
        "string": np.array(["ant", "bee", "cat"]),
    }[task]
    y_true = names[rng.integers(0, len(names), n)]
    y_pred = np.where(
        rng.random(n) < 0.5, y_true, names[rng.integers(0, len(names), n)]
    )
    labels = {
        "binary": [None, [1], [0, 1, 2]],
        "multiclass": [None, [1, 3], [3, 0, 7]],
        "string": [None, ["cat", "ant"], ["bee", "dog"]],
    }[task]
    pos_labels = {"binary": [1, 0], "multiclass": [1], "string": ["bee", 1]}[task]
    return y_true, y_pred, labels, pos_labels


def _skip_strings_on_device(backend, task="string"):
    if task == "string" and backend.family != "host":
        pytest.skip("CuPy cannot hold string labels")


# -- label metrics -------------------------------------------------------------


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel", "string"])
@pytest.mark.parametrize("weighted", [False, True])
def test_label_metrics_match_sklearn(backend, rng, task, weighted):
    _skip_strings_on_device(backend, task)
    y_true, y_pred, label_options, pos_labels = _label_task(task, rng)
    sw = rng.uniform(0.5, 2.0, len(y_true)) if weighted else None
    check = lambda name, **kw: assert_matches_sklearn(  # noqa: E731
        backend, name, y_true, y_pred, sample_weight=sw, **kw
    )
    for normalize in (True, False):
        check("accuracy_score", normalize=normalize)
        check("zero_one_loss", normalize=normalize)
    check("hamming_loss")
    for adjusted in (False, True):
        check("balanced_accuracy_score", adjusted=adjusted)
    check("matthews_corrcoef")
    for labels in label_options:
        for normalize in (None, "true", "pred", "all"):
            check("confusion_matrix", labels=labels, normalize=normalize)
        for samplewise in (False, True):
            check("multilabel_confusion_matrix", labels=labels, samplewise=samplewise)
        for average in AVERAGES:
            for pos_label in pos_labels if average == "binary" else [1]:
                kw = dict(labels=labels, average=average, pos_label=pos_label)
                # Every zero_division value through the shared kernel; the
                # single-score wrappers each with one value, in rotation.
                for zero_division in ZERO_DIVISIONS:
                    check(
                        "precision_recall_fscore_support",
                        beta=0.5,
                        zero_division=zero_division,
                        **kw,
                    )
                for i, name in enumerate([*PRF_METRICS, "fbeta_score"]):
                    zero_division = ZERO_DIVISIONS[(i + len(average or "")) % 4]
                    if name == "jaccard_score" and zero_division is np.nan:
                        zero_division = 1
                    beta = {"beta": 2.0} if name == "fbeta_score" else {}
                    check(name, zero_division=zero_division, **beta, **kw)


DEGENERATE = [
    ([0, 0, 0], [0, 0, 0]),  # one class everywhere
    ([1, 1, 1], [1, 1, 1]),
    ([0, 1, 1], [1, 1, 1]),  # all predictions one class
    ([0, 1, 0], [0, 0, 0]),
    ([0, 1, 2], [3, 3, 3]),
    ([2, 2, 3], [2, 2, 2]),  # binary without pos_label=1
    ([0, 1, 2, 0], [0, 1, 1, 5]),  # a predicted class not in y_true
    ([-1, 1, 1], [1, -1, 1]),
    ([True, False, True], [True, True, False]),
    ([0.0, 1.0, 1.0], [0, 1, 0]),
    ([[0, 0], [0, 0]], [[0, 0], [0, 0]]),
    ([[0, 1], [0, 1]], [[1, 0], [0, 1]]),
    (["a", "b", "a"], ["b", "b", "b"]),
]


@pytest.mark.parametrize("case", range(len(DEGENERATE)))
def test_degenerate_targets_match_sklearn(backend, case):
    y_true, y_pred = DEGENERATE[case]
    _skip_strings_on_device(backend, "string" if isinstance(y_true[0], str) else "")
    for sw in (None, np.linspace(0.5, 1.5, len(y_true))):

        def check(name, sw=sw, **kw):
            assert_matches_sklearn(
                backend, name, y_true, y_pred, sample_weight=sw, **kw
            )

        for name in ("accuracy_score", "hamming_loss", "matthews_corrcoef"):
            check(name)
        check("balanced_accuracy_score", adjusted=True)
        check("zero_one_loss", normalize=False)
        check("confusion_matrix", normalize="true")
        check("multilabel_confusion_matrix")
        for labels in (None, [0, 5]):
            check("confusion_matrix", labels=labels)
            for average in AVERAGES:
                kw = dict(labels=labels, average=average)
                for zero_division in ZERO_DIVISIONS:
                    check(
                        "precision_recall_fscore_support",
                        zero_division=zero_division,
                        **kw,
                    )
                for zero_division in ("warn", 1):
                    check("jaccard_score", zero_division=zero_division, **kw)


def test_integer_weights_match_sklearn(backend, rng):
    y_true, y_pred = rng.integers(0, 3, 30), rng.integers(0, 3, 30)
    sw = rng.integers(1, 4, 30)
    for normalize in (None, "pred"):
        assert_matches_sklearn(
            backend,
            "confusion_matrix",
            y_true,
            y_pred,
            sample_weight=sw,
            normalize=normalize,
        )
    assert_matches_sklearn(
        backend, "matthews_corrcoef", y_true, y_pred, sample_weight=sw
    )
    y_true, y_pred = rng.integers(0, 2, (30, 3)), rng.integers(0, 2, (30, 3))
    for samplewise in (False, True):
        assert_matches_sklearn(
            backend,
            "multilabel_confusion_matrix",
            y_true,
            y_pred,
            sample_weight=sw,
            samplewise=samplewise,
        )


def test_sparse_multilabel_matches_sklearn(backend, rng):
    y_true = sp.csr_matrix(rng.integers(0, 2, (30, 5)))
    y_pred = sp.csr_matrix(rng.integers(0, 2, (30, 5)))
    for name in ("accuracy_score", "hamming_loss", "multilabel_confusion_matrix"):
        assert_matches_sklearn(backend, name, y_true, y_pred)
    assert_matches_sklearn(backend, "f1_score", y_true, y_pred, average="samples")
    column = sp.csr_matrix(rng.integers(0, 2, (30, 1)))
    assert_matches_sklearn(backend, "accuracy_score", column, column)


def test_array_outputs_follow_the_input_family(backend, rng):
    y_true = backend.asarray(rng.integers(0, 3, 50))
    y_pred = backend.asarray(rng.integers(0, 3, 50))
    sw = backend.asarray(rng.uniform(0.5, 2.0, 50))
    backend.assert_family(
        gm.confusion_matrix(y_true, y_pred), dtype=np.int64, shape=(3, 3)
    )
    cm = gm.confusion_matrix(y_true, y_pred, sample_weight=sw, normalize="all")
    backend.assert_family(cm, dtype=np.float64, shape=(3, 3))
    mcm = gm.multilabel_confusion_matrix(y_true, y_pred, labels=[2, 0])
    backend.assert_family(mcm, dtype=np.int64, shape=(2, 2, 2))
    p, r, f, s = gm.precision_recall_fscore_support(y_true, y_pred)
    for scores in (p, r, f):
        backend.assert_family(scores, dtype=np.float64, shape=(3,))
    backend.assert_family(s, dtype=np.int64, shape=(3,))
    f1 = gm.f1_score(y_true, y_pred, average=None, labels=[1])
    backend.assert_family(f1, dtype=np.float64, shape=(1,))
    assert isinstance(gm.f1_score(y_true, y_pred, average="macro"), float)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, bool])
def test_confusion_matrix_integer_weights_stay_exact_integers(backend, rng, dtype):
    """Integer (and boolean) weights give scikit-learn's int64 matrix, summed
    exactly: cells above 2**53, where float64 sums round, are kept."""
    y_true = rng.integers(0, 3, 200)
    y_pred = rng.integers(0, 3, 200)
    if dtype is np.int64:
        sw = rng.integers(0, 2**56, 200, dtype=np.int64)
        sw[:3] = [2**53, 1, 3]
        y_true[:3] = y_pred[:3] = 1  # 2**53 + 1 + 3 in cell (1, 1)
    else:
        sw = rng.integers(0, 2, 200).astype(dtype)
    expected = skm.confusion_matrix(y_true, y_pred, sample_weight=sw)
    cm = gm.confusion_matrix(
        backend.asarray(y_true),
        backend.asarray(y_pred),
        sample_weight=backend.asarray(sw),
    )
    backend.assert_family(cm, dtype=np.int64, shape=(3, 3))
    assert backend.to_numpy(cm).tolist() == expected.tolist()


# -- probabilistic metrics -----------------------------------------------------


def _probabilities(rng, n, n_classes, dtype=np.float64):
    p = rng.uniform(0.01, 1.0, (n, n_classes))
    return (p / p.sum(axis=1, keepdims=True)).astype(dtype)


def _proba_task(task, rng, n=40):
    """y_true, y_proba and the labels= options of a probabilistic task."""
    if task == "binary":
        return rng.integers(0, 2, n), rng.uniform(0, 1, n), [None, [0, 1]]
    if task == "binary-2d":
        return rng.integers(0, 2, n), _probabilities(rng, n, 2), [None]
    if task == "multiclass":
        # Class 3 never occurs in y_true: labels= must name it.
        return rng.integers(0, 3, n), _probabilities(rng, n, 4), [None, [0, 1, 2, 3]]
    if task == "float32":
        return rng.integers(0, 3, n), _probabilities(rng, n, 3, np.float32), [None]
    if task == "unnormalised":
        return rng.integers(0, 3, n), rng.uniform(0, 1, (n, 3)), [None]
    if task == "indicator":
        return (
            np.eye(3, dtype=int)[rng.integers(0, 3, n)],
            _probabilities(rng, n, 3),
            [None],
        )
    names = np.array(["ham", "jam", "spam"])
    return names[rng.integers(0, 3, n)], _probabilities(rng, n, 3), [None, list(names)]


@pytest.mark.parametrize(
    "task",
    [
        "binary",
        "binary-2d",
        "multiclass",
        "float32",
        "unnormalised",
        "indicator",
        "string",
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_probabilistic_metrics_match_sklearn(backend, rng, task, weighted):
    _skip_strings_on_device(backend, task)
    y_true, y_proba, label_options = _proba_task(task, rng)
    sw = rng.uniform(0.5, 2.0, len(y_true)) if weighted else None
    rtol = 1e-5 if task == "float32" else 1e-10
    check = lambda name, **kw: assert_matches_sklearn(  # noqa: E731
        backend, name, y_true, y_proba, sample_weight=sw, rtol=rtol, **kw
    )
    for labels in label_options:
        for normalize in (True, False):
            check("log_loss", labels=labels, normalize=normalize)
        for scale_by_half in ("auto", True, False):
            check("brier_score_loss", labels=labels, scale_by_half=scale_by_half)
        for k in (1, 2, 3):
            for normalize in (True, False):
                check("top_k_accuracy_score", labels=labels, k=k, normalize=normalize)
    for pos_label in (None, 0, 1):
        check("brier_score_loss", pos_label=pos_label)


def test_brier_pos_label_matches_sklearn(backend, rng):
    y_proba = rng.uniform(0, 1, 30)
    for y_true in (rng.integers(1, 3, 30), 2 * rng.integers(0, 2, 30) - 1):
        for pos_label in (None, 1, 2, -1):
            assert_matches_sklearn(
                backend, "brier_score_loss", y_true, y_proba, pos_label=pos_label
            )
    if backend.family == "host":
        for pos_label in (None, "b"):
            y_true = np.array(["a", "b"])[rng.integers(0, 2, 30)]
            assert_matches_sklearn(
                backend, "brier_score_loss", y_true, y_proba, pos_label=pos_label
            )


def test_top_k_ties_and_decision_values_match_sklearn(backend, rng):
    y_true = rng.integers(0, 4, 60)
    scores = rng.integers(0, 3, (60, 4)).astype(float)  # many ties
    for k in (1, 2, 3):
        assert_matches_sklearn(backend, "top_k_accuracy_score", y_true, scores, k=k)
    y_true, decision = rng.integers(0, 2, 60), rng.normal(size=60)
    for y_score in (decision, decision[:, None]):
        assert_matches_sklearn(backend, "top_k_accuracy_score", y_true, y_score, k=1)


def test_log_loss_y_pred_deprecation():
    with pytest.warns(FutureWarning, match="`y_pred` was renamed to `y_proba`"):
        got = gm.log_loss([0, 1], y_pred=[0.2, 0.7])
    assert got == pytest.approx(skm.log_loss([0, 1], [0.2, 0.7]), rel=1e-12)
    with pytest.raises(ValueError, match="Cannot use both `y_pred` and `y_proba`"):
        gm.log_loss([0, 1], [0.2, 0.7], y_pred=[0.2, 0.7])


# -- errors ----------------------------------------------------------------------

ERRORS = [
    ("accuracy_score", [0, 1], [0, 1, 1], {}),  # mismatched lengths
    ("f1_score", [0, 1], [0, 1], {"sample_weight": [1.0]}),
    ("accuracy_score", [0, 1], [0, 1], {"sample_weight": [0.0, 0.0]}),
    ("accuracy_score", [0, np.nan], [0, 1], {}),  # NaN in y
    ("recall_score", [0, 1], [0, np.inf], {}),
    ("accuracy_score", [0, 1], [0.5, 1], {}),  # binary and continuous
    ("precision_score", [0.5, 1.5], [0, 1], {}),
    ("accuracy_score", [[0, 1], [1, 1]], [0, 1], {}),  # multilabel and binary
    ("hamming_loss", [[0, 1], [1, 1]], [[0, 1, 0], [1, 1, 0]], {}),
    ("accuracy_score", [[0, 1, 2], [1, 1, 0]], [[0, 1, 2], [1, 1, 0]], {}),
    ("accuracy_score", [], [], {}),
    ("f1_score", [0, 1, 2], [0, 1, 1], {"average": "mean"}),  # unknown average
    ("f1_score", [0, 1, 2], [0, 1, 1], {}),  # multiclass with average="binary"
    ("jaccard_score", [[0, 1], [1, 1]], [[0, 1], [1, 0]], {}),
    ("precision_score", [2, 3], [2, 3], {}),  # pos_label not present
    ("recall_score", [0, 1], [0, 1], {"pos_label": 2}),
    ("f1_score", [0, 1, 2], [0, 1, 1], {"average": "samples"}),
    (
        "f1_score",
        [[0, 1], [1, 1]],
        [[0, 1], [1, 1]],
        {"labels": [2], "average": "macro"},
    ),
    ("f1_score", [[0, 1], [1, 1]], [[0, 1], [1, 1]], {"labels": [-1], "average": None}),
    ("precision_score", [0, 1], [0, 1], {"zero_division": 2}),
    ("jaccard_score", [0, 1], [0, 1], {"zero_division": np.nan}),
    ("fbeta_score", [0, 1], [0, 1], {"beta": -1.0}),
    ("confusion_matrix", [0, 1], [0, 1, 1], {}),
    ("confusion_matrix", [0, 1], [0, 1], {"labels": []}),
    ("confusion_matrix", [0, 1], [0, 1], {"labels": [3]}),
    ("confusion_matrix", [0, 1], [0, 1], {"normalize": "rows"}),
    ("confusion_matrix", [[0, 1], [1, 1]], [[0, 1], [1, 1]], {}),
    ("matthews_corrcoef", [[0, 1], [1, 1]], [[0, 1], [1, 1]], {}),
    ("balanced_accuracy_score", [0, 1], [0, 1, 1], {}),
    ("multilabel_confusion_matrix", [0, 1], [0, 1], {"samplewise": True}),
    ("log_loss", [0, 1], [1.2, 0.3], {}),
    ("log_loss", [0, 1], [-0.2, 0.3], {}),
    ("log_loss", [0, 0], [0.2, 0.3], {}),
    ("log_loss", [0, 0], [0.2, 0.3], {"labels": [0]}),
    ("log_loss", [0, 1], [[0.2, 0.3, 0.5]] * 2, {}),
    ("log_loss", [0, 1, 2], [[0.2, 0.8]] * 3, {"labels": [0, 1, 2]}),
    ("log_loss", [0, np.nan], [0.2, 0.3], {}),
    ("log_loss", [0, 1], [0.2, np.nan], {}),
    ("log_loss", [0, 1], [0.2, 0.3], {"sample_weight": [0.0, 0.0]}),
    ("brier_score_loss", [0, 1, 2], [0.2, 0.3, 0.1], {}),
    ("brier_score_loss", [0, 1], [1.2, 0.3], {}),
    ("brier_score_loss", [0, 1], [-0.2, 0.3], {}),
    ("brier_score_loss", [0, np.nan], [0.2, 0.3], {}),
    ("brier_score_loss", [0, 1], [0.2, 0.3], {"scale_by_half": "half"}),
    ("brier_score_loss", [0, 1], [[0.2, 0.3, 0.5]] * 2, {}),
    ("top_k_accuracy_score", [0, 1, 2], [0.2, 0.3, 0.1], {}),
    ("top_k_accuracy_score", [0, 1], [[0.2, 0.3, 0.5]] * 2, {}),
    ("top_k_accuracy_score", [0, 1, 2], [[0.2, 0.8]] * 3, {}),
    ("top_k_accuracy_score", [0, 1, 2], [[0.2, 0.3, 0.5]] * 3, {"labels": [0, 0, 1]}),
    ("top_k_accuracy_score", [0, 1, 2], [[0.2, 0.3, 0.5]] * 3, {"labels": [2, 1, 0]}),
    (
        "top_k_accuracy_score",
        [0, 1, 4],
        [[0.1, 0.2, 0.3, 0.4]] * 3,
        {"labels": [0, 1, 2, 3]},
    ),
    ("top_k_accuracy_score", [0, 1, 2], [[0.2, 0.3, 0.5]] * 3, {"k": 0}),
    ("top_k_accuracy_score", [0.5, 1, 2], [[0.2, 0.3, 0.5]] * 3, {}),
]
HOST_ERRORS = [
    ("accuracy_score", ["a", "b"], [0, 1], {}),  # string and number labels
    ("f1_score", ["a", "b"], ["a", "b"], {}),  # default pos_label=1 not a label
    ("log_loss", [0, 1, 3], [[0.5, 0.5]] * 3, {"labels": [0, 1]}),
    ("log_loss", np.array([0, 1, 3]), [[0.5, 0.5]] * 3, {"labels": np.array([0, 1])}),
    ("brier_score_loss", ["a", "b"], [0.2, 0.3], {}),
    ("accuracy_score", sp.csr_matrix([[0], [1]]), sp.csr_matrix([[0], [1]]), {}),
]


@pytest.mark.parametrize("case", range(len(ERRORS) + len(HOST_ERRORS)))
def test_errors_match_sklearn(backend, case):
    name, y_true, y_pred, kwargs = (ERRORS + HOST_ERRORS)[case]
    if case >= len(ERRORS) and backend.family != "host":
        pytest.skip("string labels and host-only messages")
    assert_matches_sklearn(backend, name, y_true, y_pred, **kwargs)


def test_warnings_are_sklearns():
    with pytest.warns(UndefinedMetricWarning, match="Precision is ill-defined"):
        gm.precision_score([0, 1, 2], [0, 0, 0], average="macro")
    with pytest.warns(UserWarning, match="pos_label \\(set to 2\\) is ignored"):
        gm.recall_score([0, 1, 2], [0, 1, 2], average="macro", pos_label=2)
    with pytest.warns(UserWarning, match="y_pred contains classes not in y_true"):
        gm.balanced_accuracy_score([0, 0, 1], [0, 2, 1])
    with pytest.warns(UserWarning, match="A single label was found"):
        gm.confusion_matrix([1, 1], [1, 1])
    with pytest.warns(UserWarning, match="do not sum to one"):
        gm.log_loss([0, 1, 2], [[0.2, 0.2, 0.2]] * 3)
    with pytest.warns(UndefinedMetricWarning, match="'k' \\(3\\) greater than"):
        gm.top_k_accuracy_score([0, 1, 2], [[0.2, 0.3, 0.5]] * 3, k=3)


# -- batches ---------------------------------------------------------------------


def _candidates(task, rng, y_true, k=5):
    """k predictions with different label sets: constant, perfect, one class short."""
    _, y_pred, _, _ = _label_task(task, rng, len(y_true))
    preds = [y_pred]
    for _ in range(k - 4):
        preds.append(_label_task(task, rng, len(y_true))[1])
    preds.append(y_true.copy())
    preds.append(
        np.zeros_like(y_true) if task != "string" else np.full_like(y_true, "ant")
    )
    short = y_pred.copy()
    if task == "multilabel":
        short[:, 0] = 0
    else:
        classes = np.unique(y_true)
        short[short == classes[-1]] = classes[0]
    preds.append(short)
    if task in ("multiclass", "string"):
        # A label of this candidate only: the others must not average over it.
        preds[0] = preds[0].astype(object if task == "string" else int)
        preds[0][::7] = "dog" if task == "string" else 9
    return np.stack(preds)


BATCH_LABEL_CASES = {
    "accuracy_score": [{}, {"normalize": False}],
    "zero_one_loss": [{}, {"normalize": False}],
    "hamming_loss": [{}],
    "balanced_accuracy_score": [{}, {"adjusted": True}],
    "matthews_corrcoef": [{}],
    "precision_score": [{"average": a} for a in AVERAGES[1:-1]],
    "recall_score": [{"average": "macro", "zero_division": np.nan}],
    "f1_score": [{"average": "weighted"}, {"average": "macro", "labels": "subset"}],
    "fbeta_score": [{"beta": 0.5, "average": "micro"}],
    "jaccard_score": [
        {"average": "macro"},
        {"average": "weighted", "zero_division": 1},
    ],
}
MULTICLASS_ONLY = {"balanced_accuracy_score", "matthews_corrcoef"}


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel", "string"])
@pytest.mark.parametrize("weighted", [False, True])
def test_label_batches_match_single_calls(backend, rng, task, weighted):
    _skip_strings_on_device(backend, task)
    y_true, _, label_options, pos_labels = _label_task(task, rng)
    preds = _candidates(task, rng, y_true)
    k = preds.shape[0]
    sw = rng.uniform(0.5, 2.0, len(y_true)) if weighted else None
    on = lambda a: None if a is None else backend.asarray(a)  # noqa: E731
    for name, options in BATCH_LABEL_CASES.items():
        if task == "multilabel" and name in MULTICLASS_ONLY:
            continue
        metric = getattr(gm, name)
        kernel = gm.BATCH_KERNELS[metric]
        if task == "binary" and "average" in options[0]:
            binary = {"average": "binary", "pos_label": pos_labels[-1]}
            options = [*options, {**options[0], **binary}]
        for kwargs in options:
            kwargs = dict(kwargs)
            if kwargs.get("average") == "samples" and task != "multilabel":
                continue
            if kwargs.get("labels") == "subset":
                kwargs["labels"] = label_options[1]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                warnings.simplefilter("ignore", UserWarning)
                batched = kernel(on(y_true), on(preds), sample_weight=on(sw), **kwargs)
                single = [
                    metric(on(y_true), on(p), sample_weight=on(sw), **kwargs)
                    for p in preds
                ]
            backend.assert_family(batched, dtype=np.float64, shape=(k,))
            # atol: scores near 0 (adjusted balanced accuracy) differ by a few
            # ulps between the batched and the single reduction order.
            np.testing.assert_allclose(
                backend.to_numpy(batched), single, rtol=1e-12, atol=1e-14, err_msg=name
            )


@pytest.mark.parametrize("task", ["multiclass", "multilabel"])
def test_array_batches_match_single_calls(backend, rng, task):
    y_true, _, label_options, _ = _label_task(task, rng)
    preds = _candidates(task, rng, y_true)
    labels = label_options[-1] if task == "multilabel" else [3, 0, 1, 7]
    on = backend.asarray
    cases = [
        (gm.multilabel_confusion_matrix, {"labels": labels}),
        (gm.precision_recall_fscore_support, {"labels": labels}),
        (gm.f1_score, {"labels": labels, "average": None}),
    ]
    if task == "multilabel":
        cases.append((gm.multilabel_confusion_matrix, {"samplewise": True}))
    else:
        cases.append((gm.confusion_matrix, {"labels": labels, "normalize": "true"}))
    for metric, kwargs in cases:
        kernel = getattr(gm, f"_{metric.__name__}_batch")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            batched = kernel(on(y_true), on(preds), **kwargs)
            single = [metric(on(y_true), on(p), **kwargs) for p in preds]
        parts = batched if isinstance(batched, tuple) else (batched,)
        singles = single if isinstance(batched, tuple) else [(s,) for s in single]
        for j, part in enumerate(parts):
            expected = np.stack([backend.to_numpy(s[j]) for s in singles])
            backend.assert_family(part, shape=expected.shape)
            np.testing.assert_array_equal(backend.to_numpy(part), expected)


@pytest.mark.parametrize("task", ["binary", "multiclass", "float32", "string"])
@pytest.mark.parametrize("weighted", [False, True])
def test_probabilistic_batches_match_single_calls(backend, rng, task, weighted):
    _skip_strings_on_device(backend, task)
    y_true, _, label_options = _proba_task(task, rng)
    probas = np.stack([_proba_task(task, rng)[1] for _ in range(5)])
    if task == "binary":
        probas[1] = np.round(probas[1])  # hard 0/1 probabilities
    sw = rng.uniform(0.5, 2.0, len(y_true)) if weighted else None
    on = lambda a: None if a is None else backend.asarray(a)  # noqa: E731
    y = y_true if backend.family == "host" else on(y_true)
    labels = label_options[-1]
    cases = [
        (gm.log_loss, {"labels": labels}),
        (gm.log_loss, {"labels": labels, "normalize": False}),
        (gm.brier_score_loss, {"labels": labels}),
        (gm.top_k_accuracy_score, {"k": 1, "labels": labels}),
        (gm.top_k_accuracy_score, {"k": 2, "labels": labels, "normalize": False}),
    ]
    for metric, kwargs in cases:
        kernel = gm.BATCH_KERNELS[metric]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            batched = kernel(y, on(probas), sample_weight=on(sw), **kwargs)
            single = [metric(y, on(p), sample_weight=on(sw), **kwargs) for p in probas]
        backend.assert_family(batched, shape=(5,))
        np.testing.assert_allclose(backend.to_numpy(batched), single, rtol=1e-12)


def test_batch_warns_once_per_message(backend):
    y_true = backend.asarray(np.array([0, 1, 2, 0, 1, 2]))
    preds = np.array([[0, 1, 1, 0, 1, 1], [0, 0, 0, 0, 0, 0], [0, 1, 2, 0, 1, 2]])
    preds = backend.asarray(preds)
    expected = []
    for y_pred in preds:
        for caught in _outcome(
            gm.precision_score, (y_true, y_pred), {"average": "macro"}
        )[1]:
            if caught not in expected:
                expected.append(caught)
    assert len(expected) == 1  # two candidates warn, with one message
    got = _outcome(gm._precision_score_batch, (y_true, preds), {"average": "macro"})
    assert got[1] == expected


def test_batch_raises_when_any_candidate_would(backend):
    y_true = backend.asarray(np.array([0, 1, 1, 0]))
    preds = backend.asarray(np.array([[0, 1, 1, 0], [0, 2, 1, 0]]))
    with pytest.raises(ValueError, match="Target is multiclass but average='binary'"):
        gm._precision_score_batch(y_true, preds)
    with pytest.raises(ValueError, match="needs the same label set"):
        gm._confusion_matrix_batch(y_true, preds)
    with pytest.raises(ValueError, match="needs the same label set"):
        gm._f1_score_batch(y_true, preds, average=None)
    cm = gm._confusion_matrix_batch(y_true, preds, labels=[0, 1, 2])
    backend.assert_family(cm, shape=(2, 3, 3))
    with pytest.raises(ValueError, match="mix of binary and continuous"):
        gm._accuracy_score_batch(y_true, backend.asarray(np.array([[0, 1, 1, 0.5]])))


def test_batch_kernels_cover_public_scalar_metrics():
    names = {metric.__name__ for metric in gm.BATCH_KERNELS}
    assert names == {
        "accuracy_score",
        "balanced_accuracy_score",
        "brier_score_loss",
        "f1_score",
        "fbeta_score",
        "hamming_loss",
        "jaccard_score",
        "log_loss",
        "matthews_corrcoef",
        "precision_score",
        "recall_score",
        "top_k_accuracy_score",
        "zero_one_loss",
    }
    for metric, kernel in gm.BATCH_KERNELS.items():
        public = list(inspect.signature(metric).parameters)[2:]
        batch = inspect.signature(kernel).parameters
        assert set(public) - {"y_pred"} <= set(batch), metric.__name__
        assert kernel.__name__ == f"_{metric.__name__}_batch"
        sk_metric = getattr(skm, metric.__name__)
        assert inspect.signature(metric) == inspect.signature(sk_metric)


def test_kernels_return_arrays_not_floats(rng):
    y_true = rng.integers(0, 3, 20)
    preds = rng.integers(0, 3, (1, 20))
    for metric in (gm.accuracy_score, gm.matthews_corrcoef, gm.hamming_loss):
        out = gm.BATCH_KERNELS[metric](y_true, preds)
        assert type(out) is np.ndarray and out.shape == (1,)
