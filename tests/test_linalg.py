"""The namespace-dispatched linear algebra helpers."""

from __future__ import annotations

import numpy as np
import pytest

from gpuml._linalg import block_cg, cho_solve


def _xp(backend):
    if backend.device == "cpu":
        return np
    import cupy

    return cupy


def test_cho_solve_solves_and_detects_singular(backend, rng):
    xp = _xp(backend)
    A = rng.normal(size=(30, 6))
    A = A.T @ A + np.eye(6)
    B = rng.normal(size=(6, 2))
    X = backend.to_numpy(cho_solve(xp.asarray(A), xp.asarray(B), xp))
    np.testing.assert_allclose(A @ X, B, atol=1e-10)
    singular = np.outer(np.arange(1.0, 7.0), np.arange(1.0, 7.0))
    with pytest.raises(np.linalg.LinAlgError):
        cho_solve(xp.asarray(singular), xp.asarray(B), xp)
    with pytest.raises(np.linalg.LinAlgError):
        cho_solve(xp.asarray(-np.eye(6)), xp.asarray(B), xp)


def test_block_cg_solves_each_column_with_its_shift(backend, rng):
    xp = _xp(backend)
    M = rng.normal(size=(40, 10))
    A = M.T @ M
    shifts = np.array([0.5, 2.0, 10.0])
    B = rng.normal(size=(10, 3))
    A_x, B_x, s_x = xp.asarray(A), xp.asarray(B), xp.asarray(shifts)
    X, n_iter, converged = block_cg(
        lambda V: A_x @ V + s_x[None, :] * V, B_x, tol=1e-12, max_iter=100, xp=xp
    )
    assert converged and n_iter.shape == (3,) and (n_iter >= 1).all()
    for j, shift in enumerate(shifts):
        expected = np.linalg.solve(A + shift * np.eye(10), B[:, j])
        np.testing.assert_allclose(backend.to_numpy(X)[:, j], expected, rtol=1e-8)
