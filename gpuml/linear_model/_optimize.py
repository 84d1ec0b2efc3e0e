"""A batched L-BFGS on the compute device: many smooth problems at once.

:func:`lbfgs` minimises ``k`` independent smooth functions whose parameters
are the rows of a ``(k, d)`` array, with one call of ``fun`` evaluating all
of them: for a linear model that is one matrix product with the data for all
``k`` candidates (all the ``C`` values of a search), so a batch costs about
what one fit costs while the data pass dominates.

Everything stays in the namespace of ``x0`` (CuPy on the GPU): the
two-loop recursion, the line search and the history. The host sees, per
function evaluation, one small array: which rows passed the sufficient-
decrease test, and their gradient norms (the convergence check).

The stopping rules are those of SciPy's L-BFGS-B as scikit-learn calls it
(``gtol=tol``, ``ftol=64 * eps``): a row stops when its largest absolute
gradient entry is at most ``tol``, when an accepted step reduces its value by
a relative ``ftol`` or less, or when its line search fails. The line search
backtracks from the unit step (``1 / ||g||`` on a row's first iteration,
as L-BFGS-B does) until the Armijo condition holds; pairs with non-positive
curvature are not added to a row's history.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import to_host
from gpuml._backend import get_cupy

FTOL = 64 * np.finfo(np.float64).eps
_ARMIJO = 1e-4


@dataclass
class LbfgsResult:
    """The outcome per row: solution, value, iterations and why it stopped."""

    x: object  # (k, d), in the namespace of x0
    fun: object  # (k,)
    n_iter: np.ndarray  # (k,) int32, host
    converged: np.ndarray  # (k,) bool, host
    message: list[str]


_DIRECTION_SOURCE = r"""
extern "C" __global__ void lbfgs_direction(
    const double* g, const double* S, const double* Y, const double* rho,
    const double* gamma, const int* order, int n_hist, int k, long long d,
    double* alpha, double* out)
{
    // One block per row: the two-loop recursion with block-wide dot products.
    __shared__ double partial[256];
    const int row = blockIdx.x, tid = threadIdx.x;
    double* q = out + (long long)row * d;
    for (long long j = tid; j < d; j += blockDim.x) q[j] = g[(long long)row * d + j];
    __syncthreads();
    for (int pass = 0; pass < 2; ++pass) {
        for (int t = 0; t < n_hist; ++t) {
            const int h = pass == 0 ? n_hist - 1 - t : t;
            const long long base = ((long long)order[h] * k + row) * d;
            const double* dot_with = pass == 0 ? S + base : Y + base;
            double sum = 0.0;
            for (long long j = tid; j < d; j += blockDim.x) sum += dot_with[j] * q[j];
            partial[tid] = sum;
            __syncthreads();
            for (int width = blockDim.x / 2; width > 0; width >>= 1) {
                if (tid < width) partial[tid] += partial[tid + width];
                __syncthreads();
            }
            const double r = rho[order[h] * k + row] * partial[0];
            __syncthreads();
            double coef;
            const double* along;
            if (pass == 0) {
                if (tid == 0) alpha[h * k + row] = r;
                coef = -r;
                along = Y + base;
            } else {
                coef = alpha[h * k + row] - r;
                along = S + base;
            }
            for (long long j = tid; j < d; j += blockDim.x) q[j] += coef * along[j];
            __syncthreads();
        }
        if (pass == 0) {
            for (long long j = tid; j < d; j += blockDim.x) q[j] *= gamma[row];
            __syncthreads();
        }
    }
    for (long long j = tid; j < d; j += blockDim.x) q[j] = -q[j];
}
"""


@functools.cache
def _direction_kernel():
    return get_cupy().RawKernel(_DIRECTION_SOURCE, "lbfgs_direction")


def _direction(g, S, Y, rho, order, gamma, xp):
    """``-H g`` from the two-loop recursion, row by row (rows share slots).

    On the GPU one kernel launch does the whole recursion (a block per row);
    the NumPy code below is the CPU path and the kernel's oracle.
    """
    if xp is not np:
        k, d = g.shape
        out = xp.empty_like(g)
        if not order:
            out[...] = -gamma[:, None] * g
            return out
        alpha = xp.empty((len(order), k))
        slots = xp.asarray(order, dtype=xp.int32)
        _direction_kernel()(
            (k,),
            (256,),
            (
                g,
                S,
                Y,
                rho,
                gamma,
                slots,
                np.int32(len(order)),
                np.int32(k),
                np.int64(d),
                alpha,
                out,
            ),
        )
        return out
    q = g.copy()
    alphas = []
    for slot in reversed(order):
        a = rho[slot] * (S[slot] * q).sum(axis=1)
        q -= a[:, None] * Y[slot]
        alphas.append(a)
    r = gamma[:, None] * q
    for slot, a in zip(order, reversed(alphas), strict=True):
        b = rho[slot] * (Y[slot] * r).sum(axis=1)
        r += (a - b)[:, None] * S[slot]
    return -r


def lbfgs(
    fun: Callable,
    x0,
    *,
    max_iter: int,
    tol: float,
    xp: ModuleType,
    history: int = 10,
    max_line_search: int = 50,
    verbose: int = 0,
) -> LbfgsResult:
    """Minimise the rows of ``x0`` independently; ``fun(x) -> (f (k,), g (k, d))``.

    Parameters
    ----------
    fun : callable
        Values and gradients of all rows at once, in ``xp`` (float64).
    x0 : array of shape (k, d)
        Starting points.
    max_iter : int
        Most iterations per row.
    tol : float
        A row has converged when ``max |g| <= tol``.
    xp : module
        NumPy or CuPy.
    history : int, default=10
        Pairs kept per row (SciPy's ``maxcor``).
    max_line_search : int, default=50
        Most backtracking steps per iteration (scikit-learn's ``maxls``).
    verbose : int, default=0
        Print the largest gradient entry of the active rows every iteration.
    """
    x = xp.array(x0, dtype=xp.float64)
    k, d = x.shape
    f, g = fun(x)
    S = xp.zeros((history, k, d))
    Y = xp.zeros((history, k, d))
    rho = xp.zeros((history, k))
    gamma = xp.ones(k)
    has_pairs = np.zeros(k, dtype=bool)  # host: which rows have a curvature pair
    order: list[int] = []
    n_iter = np.zeros(k, dtype=np.int32)
    converged = to_host(xp.abs(g).max(axis=1)) <= tol
    message = [
        "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL" if c else ""
        for c in converged
    ]
    active = ~converged
    # Device copies of host masks, rebuilt only when the host masks change.
    active_mask = first_mask = None
    active_key = first_key = None
    for iteration in range(max_iter):
        if not active.any():
            break
        direction = _direction(g, S, Y, rho, order, gamma, xp)
        gg = (g * g).sum(axis=1)
        slope = (g * direction).sum(axis=1)
        # A non-descent direction (rounding) restarts the row along -g.
        uphill = (slope >= 0).astype(xp.float64)
        direction -= uphill[:, None] * (direction + g)
        slope -= uphill * (slope + gg)
        # Unit steps, 1/||g|| on a row's first iteration, 0 for finished rows.
        first = active & ~has_pairs
        if first.any():
            if first_key != first.tobytes():
                first_key, first_mask = first.tobytes(), xp.asarray(first)
            base = xp.where(first_mask, xp.minimum(1.0, 1.0 / xp.sqrt(gg)), 1.0)
        else:
            base = xp.ones(k)
        if active.all():
            step = base
        else:
            if active_key != active.tobytes():
                active_key = active.tobytes()
                active_mask = xp.asarray(active.astype(np.float64))
            step = base * active_mask
        for _ in range(max_line_search):
            s = step[:, None] * direction
            f_new, g_new = fun(x + s)
            ok = (f_new <= f + _ARMIJO * step * slope) & xp.isfinite(f_new)
            y = g_new - g
            sy, yy = (s * y).sum(axis=1), (y * y).sum(axis=1)
            # One transfer: the test, and for the rows that pass it their
            # convergence statistics and whether the pair has curvature.
            reduction = (f - f_new) / xp.maximum(
                xp.maximum(xp.abs(f), xp.abs(f_new)), 1.0
            )
            stats = to_host(
                xp.stack([ok, xp.abs(g_new).max(axis=1), reduction, sy > 1e-10 * yy])
            )
            accepted = stats[0].astype(bool) | ~active
            if accepted.all():
                break
            step = xp.where(ok, step, 0.5 * step)
        g_max, reduced = stats[1], stats[2]
        failed = ~accepted
        moved = accepted & active
        curved = moved & stats[3].astype(bool)
        if failed.any():  # those rows keep their point and stop
            keep = xp.asarray(moved.astype(np.float64))
            s *= keep[:, None]
            y *= keep[:, None]
            f_new = f + keep * (f_new - f)
            g_new = g + y
        x = x + s
        f, g = f_new, g_new
        slot = (order[-1] + 1) % history if order else 0
        if len(order) == history:
            order = order[1:]
        order.append(slot)
        if curved.all():
            S[slot], Y[slot] = s, y
            rho[slot] = 1.0 / sy
            gamma = sy / yy
        else:
            c = xp.asarray(curved.astype(np.float64))
            S[slot], Y[slot] = s * c[:, None], y * c[:, None]
            rho[slot] = c / (sy * c + (1 - c))
            gamma = c * sy / (yy * c + (1 - c)) + (1 - c) * gamma
        has_pairs |= curved
        n_iter[active] += 1
        for row in np.flatnonzero(active):
            if failed[row]:
                message[row] = "ABNORMAL: LINE SEARCH FAILED"
            elif g_max[row] <= tol:
                message[row] = "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL"
                converged[row] = True
            elif reduced[row] <= FTOL:
                message[row] = "CONVERGENCE: RELATIVE REDUCTION OF F <= FACTR*EPSMCH"
                converged[row] = True
            else:
                continue
            active[row] = False
        if verbose:
            shown = g_max[active] if active.any() else g_max
            print(
                f"L-BFGS iteration {iteration + 1}: {int(active.sum())} of {k} rows "
                f"active, max |gradient| {float(shown.max()):.3e}"
            )
    for row in np.flatnonzero(active):
        message[row] = "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
    return LbfgsResult(x, f, n_iter, converged, message)
