"""Ranking metrics (ROC AUC, average precision, curves) against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from gpuml._array import HOST
from gpuml.metrics._curves import precision_recall_curve, roc_curve
from gpuml.metrics._ranking import (
    BATCH_KERNELS,
    _average_precision_score_batch,
    _roc_auc_score_batch,
    average_precision_score,
    roc_auc_score,
)

RTOL = 1e-10
N = 80


def _binary_labels(rng, kind, n=N):
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]  # both classes present
    if kind == "pm1":
        return 2 * y - 1, 1
    if kind == "str":
        return np.where(y == 1, "spam", "ham"), "spam"
    return y, 1


def _scores(rng, ties, shape, dtype=np.float64):
    if ties:  # integer-valued: long runs of equal scores
        return rng.integers(0, 4, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _probabilities(rng, n, n_classes):
    """Rows summing to one, with many equal values (ties across samples)."""
    counts = rng.integers(1, 4, (n, n_classes)).astype(np.float64)
    return counts / counts.sum(axis=1, keepdims=True)


def _indicator(rng, n, n_labels):
    """Every row and every column holds both classes."""
    y = rng.integers(0, 2, (n, n_labels))
    rows = np.arange(n)
    y[rows, rows % n_labels] = 1
    y[rows, (rows + 1) % n_labels] = 0
    return y


def _skip_strings_on_device(backend, kind):
    if kind == "str" and backend.family != HOST:
        pytest.skip("string labels live on the host")


def _put(backend, y, kind):
    return y if kind == "str" else backend.asarray(y)


def _check_score(backend, got, expected, n_outputs=None):
    if n_outputs is None:
        assert isinstance(got, float)
    else:
        backend.assert_family(got, dtype=np.float64, shape=(n_outputs,))
        got = backend.to_numpy(got)
    np.testing.assert_allclose(got, expected, rtol=RTOL)


# --------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["01", "pm1", "str"])
@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_matches_sklearn(backend, rng, kind, ties, weighted):
    _skip_strings_on_device(backend, kind)
    y, pos_label = _binary_labels(rng, kind)
    s = _scores(rng, ties, N)
    sw = rng.uniform(0, 2, N) if weighted else None
    if weighted:
        sw[rng.integers(0, N, 5)] = 0.0  # zero weights set no threshold
    kw = {} if sw is None else {"sample_weight": backend.asarray(sw)}
    yb, sb = _put(backend, y, kind), backend.asarray(s)
    for max_fpr in (None, 0.1, 0.37, 0.5, 1.0):
        got = roc_auc_score(yb, sb, max_fpr=max_fpr, **kw)
        expected = skm.roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=sw)
        _check_score(backend, got, expected)
    got = average_precision_score(yb, sb, pos_label=pos_label, **kw)
    expected = skm.average_precision_score(y, s, pos_label=pos_label, sample_weight=sw)
    _check_score(backend, got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_binary_score_dtypes(backend, rng, dtype):
    y, _ = _binary_labels(rng, "01")
    s = (rng.normal(size=N) * 3).astype(dtype)
    got = roc_auc_score(backend.asarray(y), backend.asarray(s))
    _check_score(backend, got, skm.roc_auc_score(y, s))
    got = average_precision_score(backend.asarray(y), backend.asarray(s))
    _check_score(backend, got, skm.average_precision_score(y, s))


def test_binary_column_scores_and_average_ignored(backend, rng):
    y, _ = _binary_labels(rng, "01")
    s = _scores(rng, True, N)
    expected = skm.roc_auc_score(y, s)
    for average in ("micro", "samples", None):
        got = roc_auc_score(
            backend.asarray(y), backend.asarray(s[:, None]), average=average
        )
        _check_score(backend, got, expected)


def test_all_equal_scores_give_one_half(backend, rng):
    y, _ = _binary_labels(rng, "01")
    s = np.full(N, 0.3)
    assert roc_auc_score(backend.asarray(y), backend.asarray(s)) == 0.5
    got = average_precision_score(backend.asarray(y), backend.asarray(s))
    _check_score(backend, got, y.mean())


def test_perfect_and_reversed_ranking(backend):
    y = backend.asarray(np.array([0, 0, 1, 1]))
    assert roc_auc_score(y, backend.asarray(np.array([0.1, 0.2, 0.3, 0.4]))) == 1.0
    assert roc_auc_score(y, backend.asarray(np.array([0.4, 0.3, 0.2, 0.1]))) == 0.0


def test_bool_targets(backend, rng):
    y, _ = _binary_labels(rng, "01")
    s = _scores(rng, True, N)
    got = roc_auc_score(backend.asarray(y.astype(bool)), backend.asarray(s))
    _check_score(backend, got, skm.roc_auc_score(y.astype(bool), s))


# --------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("multi_class", "average", "weighted"),
    [
        ("ovr", "macro", False),
        ("ovr", "macro", True),
        ("ovr", "weighted", False),
        ("ovr", "weighted", True),
        ("ovr", "micro", False),
        ("ovr", "micro", True),
        ("ovr", None, False),
        ("ovr", None, True),
        ("ovo", "macro", False),  # scikit-learn refuses sample_weight with ovo
        ("ovo", "weighted", False),
    ],
)
@pytest.mark.parametrize("kind", ["int", "labels", "str"])
def test_multiclass_roc_auc_matches_sklearn(
    backend, rng, multi_class, average, weighted, kind
):
    _skip_strings_on_device(backend, kind)
    n_classes = 4
    y = rng.integers(0, n_classes, N)
    y[:n_classes] = np.arange(n_classes)
    labels = None
    if kind == "str":
        names = np.array(["ant", "bee", "cat", "dog"])
        y = names[y]
    elif kind == "labels":
        labels = [-3, 0, 5, 11]
        y = np.asarray(labels)[y]
    p = _probabilities(rng, N, n_classes)
    sw = rng.uniform(0, 2, N) if weighted else None
    kw = {} if sw is None else {"sample_weight": backend.asarray(sw)}
    got = roc_auc_score(
        _put(backend, y, kind),
        backend.asarray(p),
        multi_class=multi_class,
        average=average,
        labels=labels,
        **kw,
    )
    expected = skm.roc_auc_score(
        y, p, multi_class=multi_class, average=average, labels=labels, sample_weight=sw
    )
    _check_score(backend, got, expected, None if average else n_classes)


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_multiclass_labels_with_absent_class(backend, rng, multi_class):
    """A class of ``labels`` absent from y_true: ovr warns and gives NaN."""
    y = rng.integers(0, 3, N)
    y[:3] = [0, 1, 2]
    p = _probabilities(rng, N, 4)
    labels = [0, 1, 2, 3]
    args = (backend.asarray(y), backend.asarray(p))
    kw = {"multi_class": multi_class, "labels": labels}
    if multi_class == "ovr":
        with pytest.warns(UndefinedMetricWarning, match="Only one class"):
            got = roc_auc_score(*args, average=None, **kw)
        with pytest.warns(UndefinedMetricWarning, match="Only one class"):
            expected = skm.roc_auc_score(y, p, average=None, **kw)
        _check_score(backend, got, expected, 4)
    else:
        got = roc_auc_score(*args, average="weighted", **kw)
        _check_score(backend, got, skm.roc_auc_score(y, p, average="weighted", **kw))


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
@pytest.mark.parametrize("kind", ["int", "str"])
def test_multiclass_average_precision_matches_sklearn(backend, rng, average, kind):
    _skip_strings_on_device(backend, kind)
    y = rng.integers(0, 3, N)
    y[:3] = [0, 1, 2]
    if kind == "str":
        y = np.array(["a", "b", "c"])[y]
    p = _probabilities(rng, N, 3)
    sw = rng.uniform(0, 2, N)
    got = average_precision_score(
        _put(backend, y, kind),
        backend.asarray(p),
        average=average,
        sample_weight=backend.asarray(sw),
    )
    expected = skm.average_precision_score(y, p, average=average, sample_weight=sw)
    _check_score(backend, got, expected, None if average else 3)


# --------------------------------------------------------------------------
# Multilabel
# --------------------------------------------------------------------------


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples", None])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [True, False])
def test_multilabel_matches_sklearn(backend, rng, average, weighted, ties):
    n_labels = 5
    y = _indicator(rng, N, n_labels)
    s = _scores(rng, ties, (N, n_labels))
    sw = rng.uniform(0, 2, N) if weighted else None
    if weighted:
        sw[:3] = 0.0
    kw = {} if sw is None else {"sample_weight": backend.asarray(sw)}
    yb, sb = backend.asarray(y), backend.asarray(s)
    n_out = None if average else n_labels
    for max_fpr in (None, 0.4):
        got = roc_auc_score(yb, sb, average=average, max_fpr=max_fpr, **kw)
        expected = skm.roc_auc_score(
            y, s, average=average, max_fpr=max_fpr, sample_weight=sw
        )
        _check_score(backend, got, expected, n_out)
    got = average_precision_score(yb, sb, average=average, **kw)
    expected = skm.average_precision_score(y, s, average=average, sample_weight=sw)
    _check_score(backend, got, expected, n_out)


def test_multilabel_weighted_without_positives_is_zero(backend, rng):
    y = np.zeros((N, 3), dtype=int)
    y[:2] = [[1, 0, 1], [0, 1, 0]]
    s = _scores(rng, False, (N, 3))
    sw = np.ones(N)
    sw[:2] = 0.0  # every positive has zero weight: scikit-learn returns 0
    # before scoring any label, so without a warning (warnings are errors here)
    for metric in (average_precision_score, roc_auc_score):
        got = metric(
            backend.asarray(y),
            backend.asarray(s),
            average="weighted",
            sample_weight=backend.asarray(sw),
        )
        assert got == 0.0


# --------------------------------------------------------------------------
# Degenerate targets
# --------------------------------------------------------------------------


def test_one_class_warns_and_gives_nan(backend):
    y = backend.asarray(np.array([1, 1, 1]))
    s = backend.asarray(np.array([0.1, 0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning, match="Only one class is present"):
        assert np.isnan(roc_auc_score(y, s))
    with pytest.warns(UndefinedMetricWarning, match="Only one class is present"):
        assert np.isnan(skm.roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]))


def test_average_precision_without_positives(backend):
    s = backend.asarray(np.array([0.1, 0.2, 0.3]))
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        assert average_precision_score(backend.asarray(np.zeros(3)), s) == 0.0
    assert average_precision_score(backend.asarray(np.ones(3)), s) == 1.0


def test_weights_leaving_one_class(backend):
    y = np.array([0, 1, 0, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4])
    sw = np.array([0.0, 1.0, 0.0, 2.0])
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        got = roc_auc_score(
            backend.asarray(y), backend.asarray(s), sample_weight=backend.asarray(sw)
        )
    assert np.isnan(got)


def test_multilabel_samples_with_one_class_row(backend, rng):
    y = _indicator(rng, 20, 3)
    y[0] = 1
    s = _scores(rng, False, (20, 3))
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        got = roc_auc_score(backend.asarray(y), backend.asarray(s), average="samples")
    assert np.isnan(got)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def test_parameter_errors():
    y, s = [0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8]
    for kw, match in [
        ({"average": "mean"}, "'average' parameter of roc_auc_score must be a str"),
        ({"max_fpr": 0}, r"'max_fpr' parameter .* range \(0.0, 1.0\] or None"),
        ({"max_fpr": 1.5}, "'max_fpr' parameter"),
        ({"multi_class": "ova"}, "'multi_class' parameter"),
    ]:
        with pytest.raises(ValueError, match=match):
            roc_auc_score(y, s, **kw)
        with pytest.raises(ValueError, match=match):
            skm.roc_auc_score(y, s, **kw)
    with pytest.raises(ValueError, match="'pos_label' parameter of average_prec"):
        average_precision_score(y, s, pos_label=None)
    with pytest.raises(ValueError, match="'average' parameter of average_prec"):
        average_precision_score(y, s, average="all")


def _same_error(func, sk_func, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        func(*args, **kwargs)
    with pytest.raises(error, match=match):
        sk_func(*args, **kwargs)


def test_multiclass_errors(rng):
    y = np.array([0, 1, 2, 2, 1, 0])
    p = _probabilities(rng, 6, 3)
    cases = [
        ({}, ValueError, r"multi_class must be in \('ovo', 'ovr'\)"),
        (
            {"multi_class": "ovr", "max_fpr": 0.5},
            ValueError,
            "Partial AUC computation not available in multiclass",
        ),
        (
            {"multi_class": "ovo", "average": None},
            NotImplementedError,
            "average=None is not implemented for multi_class='ovo'",
        ),
        (
            {"multi_class": "ovo", "average": "micro"},
            ValueError,
            r"average must be one of \('macro', 'weighted', None\)",
        ),
        (
            {"multi_class": "ovr", "average": "samples"},
            ValueError,
            r"average must be one of \('micro', 'macro', 'weighted', None\)",
        ),
        (
            {"multi_class": "ovo", "sample_weight": np.ones(6)},
            ValueError,
            "sample_weight is not supported for multiclass one-vs-one",
        ),
        ({"multi_class": "ovr", "labels": [0, 1, 1]}, ValueError, "must be unique"),
        ({"multi_class": "ovr", "labels": [0, 2, 1]}, ValueError, "must be ordered"),
        (
            {"multi_class": "ovr", "labels": [0, 1, 2, 3]},
            ValueError,
            "Number of given labels, 4, not equal to the number of columns",
        ),
        (
            {"multi_class": "ovr", "labels": [0, 1, 3]},
            ValueError,
            "'y_true' contains labels not in parameter 'labels'",
        ),
    ]
    for kwargs, error, match in cases:
        _same_error(roc_auc_score, skm.roc_auc_score, (y, p), kwargs, error, match)
    bad = p.copy()
    bad[0, 0] += 0.5
    _same_error(
        roc_auc_score,
        skm.roc_auc_score,
        (y, bad),
        {"multi_class": "ovr"},
        ValueError,
        "Target scores need to be probabilities for multiclass roc_auc",
    )
    _same_error(
        roc_auc_score,
        skm.roc_auc_score,
        (y, p[:, :2] / p[:, :2].sum(axis=1, keepdims=True)),
        {"multi_class": "ovr"},
        ValueError,
        "Number of classes in y_true not equal to the number of columns",
    )
    for func, sk_func in [
        (roc_auc_score, skm.roc_auc_score),
        (average_precision_score, skm.average_precision_score),
    ]:
        _same_error(
            func,
            sk_func,
            (y, p[:, 0]),
            {"multi_class": "ovr"} if func is roc_auc_score else {},
            ValueError,
            r"`y_score` needs to be of shape `\(n_samples, n_classes\)`",
        )
    _same_error(
        average_precision_score,
        skm.average_precision_score,
        (y, p),
        {"pos_label": 2},
        ValueError,
        "Parameter pos_label is fixed to 1 for multiclass y_true",
    )


def test_binary_and_target_errors():
    cases = [
        (([0, 2, 0, 2], [0.1, 0.2, 0.3, 0.4]), {}, "pos_label=1 is not a valid label"),
        (
            ([[0, 1], [1, 0]], [[0.1, 0.2], [0.3, 0.4]]),
            {"pos_label": 0},
            "Parameter pos_label is fixed to 1 for multilabel-indicator",
        ),
        (([0.5, 1.5, 2.5], [0.1, 0.2, 0.3]), {}, "continuous format is not supported"),
        (
            ([0, 1, 0], [[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]]),
            {},
            r"y should be a 1d array, got an array of shape \(3, 2\) instead",
        ),
    ]
    for args, kwargs, match in cases:
        _same_error(
            average_precision_score,
            skm.average_precision_score,
            args,
            kwargs,
            ValueError,
            match,
        )
    _same_error(
        roc_auc_score,
        skm.roc_auc_score,
        ([0, 1, 0], [[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]]),
        {},
        ValueError,
        r"y should be a 1d array, got an array of shape \(3, 2\) instead",
    )
    _same_error(
        roc_auc_score,
        skm.roc_auc_score,
        ([0, 1, 0], [0.1, 0.2]),
        {},
        ValueError,
        "inconsistent numbers of samples",
    )
    _same_error(
        roc_auc_score,
        skm.roc_auc_score,
        ([0, 1, 0], [0.1, np.nan, 0.2]),
        {},
        ValueError,
        "Input contains NaN|Input y_score contains NaN",
    )


# --------------------------------------------------------------------------
# Batched kernels
# --------------------------------------------------------------------------

_K = 5


def _batch_cases(rng):
    """(metric, y_true, (k, n, ...) scores, kwargs, n_outputs) to batch."""
    yb, _ = _binary_labels(rng, "01")
    sb = _scores(rng, True, (_K, N))
    yc = rng.integers(0, 4, N)
    yc[:4] = np.arange(4)
    pc = np.stack([_probabilities(rng, N, 4) for _ in range(_K)])
    yl = _indicator(rng, N, 3)
    sl = _scores(rng, True, (_K, N, 3))
    sw = rng.uniform(0.1, 2, N)
    return [
        (roc_auc_score, yb, sb, {}, None),
        (roc_auc_score, yb, sb, {"sample_weight": sw, "max_fpr": 0.3}, None),
        (roc_auc_score, yc, pc, {"multi_class": "ovr"}, None),
        (roc_auc_score, yc, pc, {"multi_class": "ovr", "average": None}, 4),
        (roc_auc_score, yc, pc, {"multi_class": "ovo", "average": "weighted"}, None),
        (roc_auc_score, yl, sl, {"average": "samples", "sample_weight": sw}, None),
        (roc_auc_score, yl, sl, {"average": "micro"}, None),
        (average_precision_score, yb, sb, {"sample_weight": sw}, None),
        (average_precision_score, yc, pc, {"average": "weighted"}, None),
        (average_precision_score, yl, sl, {"average": None}, 3),
        (average_precision_score, yl, sl, {"average": "samples"}, None),
    ]


def test_batched_equals_individual(backend, rng):
    for metric, y, scores, kwargs, n_outputs in _batch_cases(rng):
        kw = {
            k: backend.asarray(v) if k == "sample_weight" else v
            for k, v in kwargs.items()
        }
        got = BATCH_KERNELS[metric](backend.asarray(y), backend.asarray(scores), **kw)
        shape = (_K,) if n_outputs is None else (_K, n_outputs)
        backend.assert_family(got, dtype=np.float64, shape=shape)
        one_by_one = [
            backend.to_numpy(metric(backend.asarray(y), backend.asarray(s), **kw))
            for s in scores
        ]
        np.testing.assert_allclose(backend.to_numpy(got), one_by_one, rtol=1e-12)
        expected = [getattr(skm, metric.__name__)(y, s, **kwargs) for s in scores]
        np.testing.assert_allclose(backend.to_numpy(got), expected, rtol=RTOL)


def test_flat_sorts_match_row_sorts(rng, monkeypatch):
    """CuPy's path (rows sorted as one array, then grouped) checked on NumPy."""
    from gpuml.metrics import _ranking

    values = rng.integers(0, 5, (4, 3, 50)).astype(np.float64).reshape(-1)
    by_rows = _ranking._argsort_rows(values, 50, np, flat_sorts=False)
    flat = _ranking._argsort_rows(values, 50, np, flat_sorts=True)
    np.testing.assert_array_equal(values[flat], values[by_rows])
    np.testing.assert_array_equal(flat // 50, np.repeat(np.arange(12), 50))

    original = _ranking._argsort_rows

    def flat_argsort_rows(flat, n_per_row, xp, *, flat_sorts=None):
        return original(flat, n_per_row, xp, flat_sorts=True)

    monkeypatch.setattr(_ranking, "_argsort_rows", flat_argsort_rows)
    for metric, y, scores, kwargs, _ in _batch_cases(rng):
        got = BATCH_KERNELS[metric](y, scores, **kwargs)
        expected = [getattr(skm, metric.__name__)(y, s, **kwargs) for s in scores]
        np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_kernels_take_raw_targets_and_return_arrays(rng):
    y, _ = _binary_labels(rng, "01")
    scores = _scores(rng, False, (3, N))
    for kernel in (_roc_auc_score_batch, _average_precision_score_batch):
        got = kernel(y.tolist(), scores, sample_weight=np.ones(N).tolist())
        assert isinstance(got, np.ndarray) and got.shape == (3,)
        one = kernel(y, scores[:1])
        assert isinstance(one, np.ndarray) and one.shape == (1,)
    assert set(BATCH_KERNELS) == {roc_auc_score, average_precision_score}


def test_large_ranking_matches_sklearn(rng):
    n = 200_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 2)  # many ties
    np.testing.assert_allclose(roc_auc_score(y, s), skm.roc_auc_score(y, s), rtol=RTOL)
    np.testing.assert_allclose(
        average_precision_score(y, s), skm.average_precision_score(y, s), rtol=RTOL
    )


def test_host_labels_with_backend_scores(backend, rng):
    """String labels stay on the host; scores decide where the work runs."""
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, N)]
    y[:3] = ["a", "b", "c"]
    p = _probabilities(rng, N, 3)
    got = roc_auc_score(y, backend.asarray(p), multi_class="ovr", average=None)
    _check_score(
        backend, got, skm.roc_auc_score(y, p, multi_class="ovr", average=None), 3
    )


# --------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------


@pytest.mark.parametrize("func", [roc_curve, precision_recall_curve])
@pytest.mark.parametrize("kind", ["01", "pm1", "str"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("drop_intermediate", [False, True])
def test_curves_match_sklearn(backend, rng, func, kind, weighted, drop_intermediate):
    _skip_strings_on_device(backend, kind)
    y, pos_label = _binary_labels(rng, kind)
    s = _scores(rng, True, N) / 4
    sw = rng.uniform(0, 2, N) if weighted else None
    if weighted:
        sw[:5] = 0.0
    pos = pos_label if kind == "str" else None
    got = func(
        _put(backend, y, kind),
        backend.asarray(s),
        pos_label=pos,
        sample_weight=None if sw is None else backend.asarray(sw),
        drop_intermediate=drop_intermediate,
    )
    expected = getattr(skm, func.__name__)(
        y, s, pos_label=pos, sample_weight=sw, drop_intermediate=drop_intermediate
    )
    for a, b in zip(got, expected, strict=True):
        backend.assert_family(a, dtype=b.dtype, shape=b.shape)
        np.testing.assert_allclose(backend.to_numpy(a), b, rtol=RTOL)


def test_curve_errors_and_warnings(backend):
    s = backend.asarray(np.array([0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match=r"y_true takes value in \{0, 2\}"):
        roc_curve(backend.asarray(np.array([0, 2, 2])), s)
    with pytest.raises(ValueError, match="multiclass format is not supported"):
        precision_recall_curve(backend.asarray(np.array([0, 1, 2])), s)
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        fpr, _, _ = roc_curve(backend.asarray(np.array([1, 1, 1])), s)
    assert np.isnan(backend.to_numpy(fpr)).all()
    with pytest.warns(UserWarning, match="No positive class found"):
        _, recall, _ = precision_recall_curve(backend.asarray(np.zeros(3)), s)
    np.testing.assert_array_equal(backend.to_numpy(recall), [1, 1, 1, 0])
