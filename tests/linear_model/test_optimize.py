"""The batched L-BFGS: SciPy's optimum row by row, and its GPU kernels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from gpuml.linear_model._optimize import _direction, lbfgs


def _problems(rng, k=4, d=6):
    """``k`` strictly convex smooth functions: quadratic plus softplus terms."""
    A = []
    for _ in range(k):
        M = rng.normal(size=(d, d))
        A.append(M @ M.T + 0.5 * np.eye(d))
    A = np.stack(A)
    b = rng.normal(size=(k, d))

    def fun(x, xp=np):
        quad = 0.5 * xp.einsum("ki,kij,kj->k", x, xp.asarray(A), x)
        soft = xp.logaddexp(0.0, x).sum(axis=1)
        value = quad - (xp.asarray(b) * x).sum(axis=1) + 0.3 * soft
        grad = xp.einsum("kij,kj->ki", xp.asarray(A), x) - xp.asarray(b)
        grad = grad + 0.3 / (1 + xp.exp(-x))
        return value, grad

    return fun


def test_rows_reach_scipys_optimum(rng):
    fun = _problems(rng)
    result = lbfgs(fun, np.zeros((4, 6)), max_iter=200, tol=1e-9, xp=np)
    assert result.converged.all()
    for row in range(4):

        def single(z, row=row):
            value, grad = fun(np.tile(z, (4, 1)))
            return value[row], grad[row]

        ref = minimize(
            single,
            np.zeros(6),
            jac=True,
            method="L-BFGS-B",
            options={"gtol": 1e-12, "ftol": 1e-15},
        )
        np.testing.assert_allclose(result.x[row], ref.x, atol=1e-6)
        assert result.fun[row] == pytest.approx(ref.fun, rel=1e-10)


def test_iteration_limit_is_reported(rng):
    fun = _problems(rng)
    result = lbfgs(fun, np.zeros((4, 6)), max_iter=2, tol=1e-12, xp=np)
    assert not result.converged.any()
    np.testing.assert_array_equal(result.n_iter, [2, 2, 2, 2])
    assert set(result.message) == {"STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"}


def test_converged_start_takes_no_iteration(rng):
    fun = _problems(rng, k=2)
    solved = lbfgs(fun, np.zeros((2, 6)), max_iter=200, tol=1e-10, xp=np).x
    again = lbfgs(fun, solved, max_iter=200, tol=1e-6, xp=np)
    np.testing.assert_array_equal(again.n_iter, [0, 0])
    assert again.converged.all()


@pytest.mark.gpu
def test_direction_kernel_matches_numpy(rng):
    import cupy

    m, k, d = 5, 3, 300
    g = rng.normal(size=(k, d))
    S, Y = rng.normal(size=(m, k, d)), rng.normal(size=(m, k, d))
    rho = rng.uniform(0.1, 1.0, size=(m, k))
    rho[2, 1] = 0.0  # a skipped pair of row 1
    gamma = rng.uniform(0.5, 2.0, size=k)
    order = [3, 4, 0, 1]  # a wrapped circular buffer
    expected = _direction(g, S, Y, rho, order, gamma, np)
    args = [cupy.asarray(a) for a in (g, S, Y, rho)]
    got = _direction(*args, order, cupy.asarray(gamma), cupy)
    # Block-wide dot products add in another order than NumPy's: rounding at
    # 1e-12 of the entries' scale (they reach 1e3 on this random history).
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got.get(), expected, rtol=1e-10, atol=1e-12 * scale)
    empty = _direction(*args, [], cupy.asarray(gamma), cupy)
    np.testing.assert_allclose(empty.get(), -gamma[:, None] * g)


@pytest.mark.gpu
def test_gpu_rows_match_cpu_rows(rng):
    import cupy

    fun = _problems(rng)
    cpu = lbfgs(fun, np.zeros((4, 6)), max_iter=200, tol=1e-9, xp=np)
    gpu = lbfgs(
        lambda x: fun(x, cupy), cupy.zeros((4, 6)), max_iter=200, tol=1e-9, xp=cupy
    )
    np.testing.assert_allclose(gpu.x.get(), cpu.x, atol=1e-7)


@pytest.mark.gpu
def test_binary_terms_kernel_matches_numpy(rng):
    import cupy

    from gpuml.linear_model._logistic import _binary_terms

    raw = rng.normal(scale=30, size=(50, 3, 1))
    target = (rng.uniform(size=(50, 1, 1)) < 0.5).astype(float)
    weights = rng.uniform(0, 2, size=(50, 1, 1))
    expected = _binary_terms(raw, target, weights, np)
    got = _binary_terms(*(cupy.asarray(a) for a in (raw, target, weights)), cupy)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a.get(), b, rtol=1e-10, atol=1e-12)
