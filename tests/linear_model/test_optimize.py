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


def _scipy(fun, x0, row, **options):
    """SciPy's L-BFGS-B on one row, as scikit-learn's lbfgs calls it."""
    k = x0.shape[0]

    def single(z):
        value, grad = fun(np.tile(z, (k, 1)))
        return value[row], grad[row]

    options = {"ftol": 64 * np.finfo(float).eps, "maxls": 50, **options}
    return minimize(single, x0[row], jac=True, method="L-BFGS-B", options=options)


def _rosenbrock_rows(scales):
    """Scaled Rosenbrock functions: curved valleys that need the line
    search's bracketing and interpolation, not just the unit step."""
    from scipy.optimize import rosen, rosen_der

    def fun(x):
        value = np.array([rosen(r) * s for r, s in zip(x, scales, strict=True)])
        grad = np.array([rosen_der(r) * s for r, s in zip(x, scales, strict=True)])
        return value, grad

    return fun


@pytest.mark.parametrize("tol", [1e-4, 1e-6])
def test_rows_follow_scipys_iterates(rng, tol):
    """Each row takes SciPy's L-BFGS-B steps: the same iteration count, stop
    reason and point, to rounding."""
    fun = _problems(rng)
    result = lbfgs(fun, np.zeros((4, 6)), max_iter=200, tol=tol, xp=np)
    assert result.converged.all()
    for row in range(4):
        ref = _scipy(fun, np.zeros((4, 6)), row, gtol=tol, maxiter=200)
        assert result.n_iter[row] == ref.nit
        assert result.message[row] == ref.message
        # The two-loop recursion and L-BFGS-B's compact form round apart, by
        # about 1e-10 of the solution's scale (an entry near 0 has no 1e-8
        # relative accuracy to offer).
        scale = np.abs(ref.x).max()
        np.testing.assert_allclose(result.x[row], ref.x, rtol=1e-8, atol=1e-8 * scale)
        assert result.fun[row] == pytest.approx(ref.fun, rel=1e-12)


@pytest.mark.parametrize("max_iter", [7, 0])
def test_line_search_follows_scipy_on_curved_valleys(rng, max_iter):
    scales = [1.0, 3.0, 10.0, 0.1, 100.0]
    fun = _rosenbrock_rows(scales)
    x0 = 2 * rng.normal(size=(len(scales), 8))
    result = lbfgs(fun, x0, max_iter=max_iter, tol=1e-6, xp=np)
    for row in range(len(scales)):
        ref = _scipy(fun, x0, row, gtol=1e-6, maxiter=max_iter)
        # SciPy takes one iteration even with maxiter=0; so does lbfgs.
        assert result.n_iter[row] == ref.nit
        assert result.status[row] == ref.status
        assert result.message[row] == ref.message
        # Rounding differences (two-loop vs compact form) grow over about 60
        # curved iterations to 1e-9 relative on some seeds.
        np.testing.assert_allclose(result.x[row], ref.x, rtol=1e-7, atol=1e-9)


def test_curved_valleys_reach_scipys_minimum(rng):
    """Run to convergence, rounding differences grow along the valley (the
    step counts can differ by one); both optimisers end at the minimum."""
    scales = [1.0, 3.0, 10.0, 0.1, 100.0]
    fun = _rosenbrock_rows(scales)
    x0 = 2 * rng.normal(size=(len(scales), 8))
    result = lbfgs(fun, x0, max_iter=1000, tol=1e-6, xp=np)
    assert result.converged.all()
    for row in range(len(scales)):
        ref = _scipy(fun, x0, row, gtol=1e-6, maxiter=1000)
        assert abs(int(result.n_iter[row]) - ref.nit) <= 0.2 * ref.nit
        np.testing.assert_allclose(result.x[row], ref.x, atol=1e-4)


def test_row_subsets_evaluate_only_the_searching_rows(rng):
    """With ``row_subsets`` the NumPy driver evaluates a line search's later
    trials on the rows still searching only: the same steps per row as
    SciPy's (and as without subsets), in fewer row evaluations."""
    scales = [1.0, 3.0, 10.0, 0.1, 100.0]
    plain = _rosenbrock_rows(scales)
    x0 = 2 * rng.normal(size=(len(scales), 8))
    counted = []

    def fun(x, rows=None):
        rows = range(len(scales)) if rows is None else rows
        counted.append(len(rows))
        parts = [_rosenbrock_rows([scales[r]])(x[[i]]) for i, r in enumerate(rows)]
        return np.concatenate([v for v, _ in parts]), np.concatenate(
            [g for _, g in parts]
        )

    result = lbfgs(fun, x0, max_iter=40, tol=1e-6, xp=np, row_subsets=True)
    with_subsets = sum(counted)
    counted.clear()
    whole = lbfgs(fun, x0, max_iter=40, tol=1e-6, xp=np)
    assert with_subsets < sum(counted)
    assert min(counted) == len(scales)  # without: every call has every row
    np.testing.assert_array_equal(result.n_iter, whole.n_iter)
    np.testing.assert_array_equal(result.status, whole.status)
    np.testing.assert_allclose(result.x, whole.x, rtol=1e-12, atol=1e-12)
    for row in range(len(scales)):
        ref = _scipy(plain, x0, row, gtol=1e-6, maxiter=40)
        assert result.n_iter[row] == ref.nit


def test_iteration_limit_is_reported(rng):
    fun = _problems(rng)
    result = lbfgs(fun, np.zeros((4, 6)), max_iter=2, tol=1e-12, xp=np)
    assert not result.converged.any()
    np.testing.assert_array_equal(result.n_iter, [2, 2, 2, 2])
    np.testing.assert_array_equal(result.status, [1, 1, 1, 1])
    assert set(result.message) == {"STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"}


def test_converged_start_takes_no_iteration(rng):
    fun = _problems(rng, k=2)
    solved = lbfgs(fun, np.zeros((2, 6)), max_iter=200, tol=1e-10, xp=np).x
    again = lbfgs(fun, solved, max_iter=200, tol=1e-6, xp=np)
    np.testing.assert_array_equal(again.n_iter, [0, 0])
    assert again.converged.all()


def test_failed_line_search_stops_only_its_row(rng):
    """A row whose every trial value is NaN ends "ABNORMAL" (status 2) at its
    start point, never at a NaN point; the other rows converge as if alone."""
    fun = _problems(rng, k=3)

    def broken(x):
        value, grad = fun(x)
        value = value.copy()
        value[1] = np.nan if np.any(x[1] != 0) else value[1]
        return value, grad

    result = lbfgs(broken, np.zeros((3, 6)), max_iter=200, tol=1e-8, xp=np)
    alone = lbfgs(fun, np.zeros((3, 6)), max_iter=200, tol=1e-8, xp=np)
    assert result.status.tolist() == [0, 2, 0]
    assert result.message[1] == "ABNORMAL: "
    np.testing.assert_array_equal(result.x[1], 0.0)
    np.testing.assert_array_equal(result.x[[0, 2]], alone.x[[0, 2]])
    np.testing.assert_array_equal(result.n_iter[[0, 2]], alone.n_iter[[0, 2]])


def _memory(rng, k, m, d):
    """A random per-row memory: row 0 empty, row 1 partly filled, row 2 a
    full ring that has wrapped."""
    S, Y = rng.normal(size=(k, m, d)), rng.normal(size=(k, m, d))
    table = np.zeros((k, m + 3))
    table[:, :m] = rng.uniform(0.1, 1.0, size=(k, m))
    table[:, m] = rng.uniform(0.5, 2.0, size=k)  # gamma
    table[:, m + 1 :] = [[0, 0], [0, 3], [2, m]][:k]  # head, count
    return S, Y, table


@pytest.mark.gpu
@pytest.mark.parametrize("wide, d", [(False, 300), (True, 300), (True, 5000)])
def test_vector_kernels_match_numpy(rng, monkeypatch, wide, d):
    """The three L-BFGS kernels against their NumPy twins; ``wide``: the
    kernels for long rows (each row over many blocks), made to run here by
    lowering their threshold, on rows of one chunk or several."""
    import cupy

    from gpuml.linear_model import _optimize
    from gpuml.linear_model._optimize import _advance, _stats

    if wide:
        monkeypatch.setattr(_optimize, "WIDE", 1)
    k, m = 3, 5
    g = rng.normal(size=(k, d))
    S, Y, table = _memory(rng, k, m, d)
    direction, slope, length = _direction(g, S, Y, table, np)
    dev = [cupy.asarray(a) for a in (g, S, Y)]
    got, got_slope, got_length = _direction(*dev, table, cupy)
    # Block-wide dot products add in another order than NumPy's: rounding
    # at 1e-12 of the entries' scale.
    scale = np.abs(direction).max()
    np.testing.assert_allclose(got.get(), direction, rtol=1e-10, atol=1e-12 * scale)
    np.testing.assert_allclose(got_slope, slope, rtol=1e-10)
    np.testing.assert_allclose(got_length, length, rtol=1e-10)
    np.testing.assert_allclose(direction[0], -table[0, m] * g[0])

    f = rng.normal(size=k)
    g_new = rng.normal(size=(k, d))
    g_new[2, 7] = np.nan
    expected = _stats(f, g_new, g, direction, np)
    dev_stats = _stats(*(cupy.asarray(a) for a in (f, g_new, g, direction)), cupy)
    np.testing.assert_allclose(dev_stats, expected, rtol=1e-10)
    assert np.isnan(dev_stats[2][2])  # a NaN gradient is never "converged"

    x, trial = rng.normal(size=(k, d)), rng.normal(size=(k, d))
    control = np.array([[1.0, 4.0, 0.5], [1.0, -1.0, 2.0], [0.0, -1.0, 0.0]])
    host = [a.copy() for a in (x, g, trial, S, Y)]
    _advance(*host[:3], g_new, direction, *host[3:], control, np)
    device = [cupy.asarray(a) for a in (x, g, trial, S, Y)]
    _advance(
        *device[:3],
        cupy.asarray(g_new),
        cupy.asarray(direction),
        *device[3:],
        control,
        cupy,
    )
    for a, b in zip(device, host, strict=True):
        np.testing.assert_array_equal(a.get(), b)
    np.testing.assert_array_equal(host[3][0, 4], trial[0] - x[0])  # stored pair
    np.testing.assert_array_equal(host[0][2], x[2])  # uncommitted row kept


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
@pytest.mark.parametrize("wide", [False, True])
def test_loss_kernels_match_numpy(rng, monkeypatch, wide):
    """The loss's kernels against NumPy; ``wide``: the finishing kernels for
    long parameter rows, made to run here by lowering their threshold."""
    import cupy

    from gpuml.linear_model import _logistic
    from gpuml.linear_model._logistic import _binary_terms, _LogisticLoss

    if wide:
        monkeypatch.setattr(_logistic, "WIDE", 1)

    raw = rng.normal(scale=30, size=(50, 3))
    intercept = rng.normal(size=3)
    target = (rng.uniform(size=(50, 1)) < 0.5).astype(float)
    weights = rng.uniform(0, 2, size=(50, 1))
    expected = _binary_terms(raw, intercept, target, weights, np)
    got = _binary_terms(
        *(cupy.asarray(a) for a in (raw, intercept, target, weights)), cupy
    )
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a.get(), b, rtol=1e-10, atol=1e-12)
    raw32 = raw.astype(np.float32)  # float32 data gives float32 decision values
    expected = _binary_terms(raw32, intercept, target, weights, np)
    got = _binary_terms(
        *(cupy.asarray(a) for a in (raw32, intercept, target, weights)), cupy
    )
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a.get(), b, rtol=1e-10, atol=1e-12)

    X = rng.normal(size=(40, 7))
    for n_classes, fit_intercept in [(2, True), (3, True), (4, False)]:
        y = rng.integers(0, n_classes, size=40)
        inverse_C = np.array([0.0, 0.5, 20.0])
        w = rng.uniform(0.5, 2, size=40)
        params = None
        for X_typed, rtol, atol in [
            (X, 1e-10, 1e-13),
            (X.astype(np.float32), 1e-5, 1e-6),
        ]:
            host = _LogisticLoss(X_typed, y, n_classes, w, inverse_C, fit_intercept, np)
            dev = _LogisticLoss(
                *(cupy.asarray(a) for a in (X_typed, y)),
                n_classes,
                cupy.asarray(w),
                cupy.asarray(inverse_C),
                fit_intercept,
                cupy,
            )
            if params is None:  # the same parameters for both dtypes
                params = rng.normal(size=(3, host.n_params))
            for a, b in zip(dev(cupy.asarray(params)), host(params), strict=True):
                np.testing.assert_allclose(a.get(), b, rtol=rtol, atol=atol)
