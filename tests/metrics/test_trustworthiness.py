"""trustworthiness against scikit-learn's, on each backend."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sk_trustworthiness
from sklearn.metrics import pairwise_distances

from gpuml.metrics import trustworthiness


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine", "correlation"])
def test_matches_sklearn(backend, rng, metric):
    X = rng.normal(size=(400, 9))
    E = X[:, :2] + 0.5 * rng.normal(size=(400, 2))
    for k in (1, 5, 12):
        want = sk_trustworthiness(X, E, n_neighbors=k, metric=metric)
        got = trustworthiness(
            backend.asarray(X), backend.asarray(E), n_neighbors=k, metric=metric
        )
        assert isinstance(got, float)
        assert got == pytest.approx(want, rel=1e-12)


def test_precomputed_and_float32(backend, rng):
    X = rng.normal(size=(200, 6))
    E = (X[:, :3] + 0.3 * rng.normal(size=(200, 3))).astype(np.float32)
    D = pairwise_distances(X)
    want = sk_trustworthiness(D, E, n_neighbors=7, metric="precomputed")
    got = trustworthiness(
        backend.asarray(D), backend.asarray(E), n_neighbors=7, metric="precomputed"
    )
    assert got == pytest.approx(want, rel=1e-12)
    # float32 distances tie now and then; scikit-learn's argsort orders ties
    # as its sort leaves them, gpuml by index: a rank may differ by one
    want = sk_trustworthiness(X.astype(np.float32), E, n_neighbors=7)
    got = trustworthiness(
        backend.asarray(X.astype(np.float32)), backend.asarray(E), n_neighbors=7
    )
    assert got == pytest.approx(want, rel=1e-4)


def test_identity_is_one_and_errors(backend, rng):
    X = rng.normal(size=(50, 4))
    assert trustworthiness(backend.asarray(X), backend.asarray(X)) == pytest.approx(1.0)
    with pytest.raises(ValueError) as want:
        sk_trustworthiness(X, X, n_neighbors=25)
    with pytest.raises(ValueError) as got:
        trustworthiness(backend.asarray(X), backend.asarray(X), n_neighbors=25)
    assert str(got.value) == str(want.value)
