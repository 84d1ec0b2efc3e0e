"""Every batch kernel returns an array of its inputs' namespace, never a float.

On the GPU this is the promise that only the final score leaves the device:
each kernel of ``BATCH_KERNELS`` fed CuPy inputs gives a CuPy array of the
``k`` candidates' scores, equal to scoring each candidate with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuml.metrics._scorer import BATCH_KERNELS

K, N = 4, 300
PROBABILISTIC = {
    "log_loss",
    "brier_score_loss",
    "roc_auc_score",
    "average_precision_score",
    "top_k_accuracy_score",
}
BETA = {"fbeta_score": {"beta": 2.0}}


def _inputs(name, rng):
    if name in PROBABILISTIC:
        y = (rng.random(N) < 0.4).astype(np.int64)
        preds = np.clip(rng.random((K, N)) * 0.8 + 0.2 * y, 0.01, 0.99)
        if name == "top_k_accuracy_score":  # needs more classes than k
            y = rng.integers(0, 4, N)
            preds = rng.dirichlet(np.ones(4), size=(K, N))
        return y, preds
    module = next(f.__module__ for f in BATCH_KERNELS if f.__name__ == name)
    if module.endswith("_regression"):
        y = rng.uniform(1, 5, N)
        return y, y + rng.uniform(0.1, 1, (K, N))
    y = rng.integers(0, 2, N)
    return y, rng.integers(0, 2, (K, N))


@pytest.mark.parametrize(
    "metric", sorted(BATCH_KERNELS, key=lambda f: f.__name__), ids=lambda f: f.__name__
)
def test_kernel_returns_namespace_array(backend, rng, metric):
    kernel = BATCH_KERNELS[metric]
    y, preds = _inputs(metric.__name__, rng)
    kwargs = BETA.get(metric.__name__, {})
    if metric.__name__ == "top_k_accuracy_score":
        kwargs = {"k": 2}
    scores = kernel(backend.asarray(y), backend.asarray(preds), **kwargs)
    assert not isinstance(scores, float)
    backend.assert_family(scores, shape=(K,))
    expected = [metric(y, p, **kwargs) for p in preds]
    np.testing.assert_allclose(backend.to_numpy(scores), expected, rtol=1e-10)
