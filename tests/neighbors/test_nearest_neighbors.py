"""NearestNeighbors against scikit-learn's, on each backend.

Fresh continuous random data (no tied distances), every device metric,
float32 and float64: the same neighbours in the same order, distances
equal to float rounding, outputs in the input's family and dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors as SkNearestNeighbors

from gpuml.neighbors import NearestNeighbors

METRICS = [
    ("euclidean", {}),
    ("minkowski", {"p": 2}),
    ("manhattan", {}),
    ("minkowski", {"p": 1}),
    ("cosine", {}),
    ("correlation", {}),
]
RTOL = {np.float32: 1e-5, np.float64: 1e-10}


@pytest.mark.parametrize("metric, params", METRICS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kneighbors_match_sklearn(backend, rng, metric, params, dtype):
    X = rng.normal(size=(300, 7)).astype(dtype)
    Q = rng.normal(size=(45, 7)).astype(dtype)
    sk = SkNearestNeighbors(n_neighbors=6, metric=metric, **params).fit(X)
    ours = NearestNeighbors(n_neighbors=6, metric=metric, **params).fit(
        backend.asarray(X)
    )
    assert ours.n_samples_fit_ == 300 and ours.n_features_in_ == 7
    assert ours.effective_metric_ == sk.effective_metric_
    for query in (Q, None):
        want_d, want_i = sk.kneighbors(query)
        got_d, got_i = ours.kneighbors(
            None if query is None else backend.asarray(query)
        )
        backend.assert_family(got_i, shape=want_i.shape)
        backend.assert_family(got_d, dtype=want_d.dtype, shape=want_d.shape)
        np.testing.assert_array_equal(backend.to_numpy(got_i), want_i)
        np.testing.assert_allclose(
            backend.to_numpy(got_d), want_d, rtol=RTOL[dtype], atol=RTOL[dtype]
        )
    got = ours.kneighbors(backend.asarray(Q), n_neighbors=3, return_distance=False)
    np.testing.assert_array_equal(backend.to_numpy(got), sk.kneighbors(Q, 3)[1])


def test_precomputed_and_graphs(backend, rng):
    X = rng.normal(size=(120, 4))
    D = pairwise_distances(X)
    sk = SkNearestNeighbors(n_neighbors=4, metric="precomputed").fit(D)
    ours = NearestNeighbors(n_neighbors=4, metric="precomputed").fit(backend.asarray(D))
    want_d, want_i = sk.kneighbors(D[:30])
    got_d, got_i = ours.kneighbors(backend.asarray(D[:30]))
    np.testing.assert_array_equal(backend.to_numpy(got_i), want_i)
    np.testing.assert_allclose(backend.to_numpy(got_d), want_d)
    plain = NearestNeighbors(n_neighbors=5).fit(backend.asarray(X))
    sk_plain = SkNearestNeighbors(n_neighbors=5).fit(X)
    for mode in ("connectivity", "distance"):
        for query in (None, X[:20]):
            q = None if query is None else backend.asarray(query)
            got = plain.kneighbors_graph(q, mode=mode)
            want = sk_plain.kneighbors_graph(query, mode=mode)
            assert got.shape == want.shape
            np.testing.assert_allclose(backend.to_numpy(got).toarray(), want.toarray())


def test_radius_neighbors_are_sklearn(backend, rng):
    X = rng.normal(size=(80, 3))
    ours = NearestNeighbors(radius=0.8).fit(backend.asarray(X))
    sk = SkNearestNeighbors(radius=0.8).fit(X)
    got_d, got_i = ours.radius_neighbors(X[:5])
    want_d, want_i = sk.radius_neighbors(X[:5])
    for g, w, gd, wd in zip(got_i, want_i, got_d, want_d, strict=True):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_allclose(gd, wd)


def test_errors_match_sklearn(backend, rng):
    X = rng.normal(size=(10, 3))
    ours = NearestNeighbors(n_neighbors=3).fit(backend.asarray(X))
    sk = SkNearestNeighbors(n_neighbors=3).fit(X)
    for kwargs in (dict(n_neighbors=11), dict(n_neighbors=10, X=None)):
        query = kwargs.pop("X", X)
        with pytest.raises(ValueError) as want:
            sk.kneighbors(query, **kwargs)
        with pytest.raises(ValueError) as got:
            ours.kneighbors(None if query is None else backend.asarray(query), **kwargs)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="X has 2 features"):
        ours.kneighbors(backend.asarray(X[:, :2]))
    with pytest.raises(ValueError, match="Unsupported mode"):
        ours.kneighbors_graph(mode="weights")


@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_many_rows_cross_tiles_and_blocks(backend, rng, monkeypatch, metric):
    """Query rows spread over several tiles, fitted rows over several
    blocks (the last narrower than k), give the same result."""
    from gpuml.neighbors import _search

    monkeypatch.setattr(_search, "TILE_BYTES", 8 * 120 * 61)
    monkeypatch.setattr(_search, "MIN_TILE_ROWS", 120)
    X = rng.normal(size=(400, 5))  # blocks of 61 fitted rows: the last has 34
    sk = SkNearestNeighbors(n_neighbors=9, metric=metric).fit(X)
    ours = NearestNeighbors(n_neighbors=9, metric=metric).fit(backend.asarray(X))
    np.testing.assert_array_equal(
        backend.to_numpy(ours.kneighbors(return_distance=False)),
        sk.kneighbors(return_distance=False),
    )
    got_d, got_i = ours.kneighbors(backend.asarray(X[:50]), n_neighbors=40)
    want_d, want_i = sk.kneighbors(X[:50], n_neighbors=40)
    np.testing.assert_array_equal(backend.to_numpy(got_i), want_i)
    np.testing.assert_allclose(backend.to_numpy(got_d), want_d, rtol=1e-10)
