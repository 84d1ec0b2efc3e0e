"""column_moments: the GPU kernel against its NumPy twin and a float64 oracle."""

from __future__ import annotations

import numpy as np
import pytest

from gpuml._reductions import column_moments


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (1000, 37), (3000, 300)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shifted", [False, True])
def test_column_moments(backend, rng, shape, dtype, weighted, shifted):
    xp = np if backend.device == "cpu" else pytest.importorskip("cupy")
    X = (rng.normal(size=shape) * 3 + 5).astype(dtype)
    X[rng.random(shape) < 0.1] = np.nan
    w = rng.uniform(0.5, 2, shape[0]) if weighted else None
    s = rng.normal(size=shape[1]) if shifted else None
    count, total, total_sq = column_moments(
        xp.asarray(X),
        None if w is None else xp.asarray(w),
        None if s is None else xp.asarray(s),
        xp=xp,
    )
    D = X.astype(np.float64) - (0 if s is None else s)
    ok = ~np.isnan(D)
    W = np.ones(shape[0]) if w is None else w
    Dz = np.where(ok, D, 0)
    for got, expected in [
        (count, W @ ok),
        (total, W @ Dz),
        (total_sq, W @ (Dz * Dz)),
    ]:
        got = backend.to_numpy(got)
        assert got.dtype == np.float64 and got.shape == (shape[1],)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
