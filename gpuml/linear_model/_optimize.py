"""A batched L-BFGS on the compute device: SciPy's L-BFGS-B, row by row.

:func:`lbfgs` minimises ``k`` independent smooth functions whose parameters
are the rows of a ``(k, d)`` array, with one call of ``fun`` evaluating all
of them: for a linear model that is one matrix product with the data for all
``k`` candidates (all the ``C`` values of a search), so a batch costs about
what one fit costs while the data pass dominates.

Each row follows the algorithm scikit-learn's ``solver="lbfgs"`` runs, SciPy's
L-BFGS-B without bounds as ``scipy.optimize.minimize`` drives it
(``maxcor=10``, ``maxls=50``, ``gtol=tol``, ``ftol=64 * eps``), so a row takes
the same steps as SciPy up to rounding:

- the direction is ``-H g``: the limited-memory inverse Hessian of the last
  pairs ``(s, y)`` applied by the two-loop recursion (with no bounds, equal
  to L-BFGS-B's compact form), scaled by ``s'y / y'y`` of the newest pair;
  ``-g`` while the memory is empty;
- the step comes from the Moré-Thuente line search (MINPACK-2's ``dcsrch``
  with ``ftol=1e-3``, ``gtol=0.9``, ``xtol=0.1``), started from the unit
  step, or from ``1 / ||d||`` on a row's first iteration;
- a pair is skipped when ``s'y <= eps * (-g's)``; a line search that fails
  (an uphill direction, ``maxls`` evaluations, or a trial it would accept
  with a non-finite value, which SciPy would take) empties the row's memory
  and restarts it along ``-g``, or stops the row ("ABNORMAL") when its memory
  is already empty;
- after each iteration: the iteration limit first (SciPy's driver checks it
  before the solver's own tests), then ``max |g| <= tol``, then a relative
  reduction of ``f`` of at most ``ftol``.

The work is split by size. Vectors stay in the namespace of ``x0`` (CuPy on
the GPU): the point, the gradient, the direction and the ``(s, y)`` memory.
Each row's scalars (its line-search bracket, its memory bookkeeping and its
counters) live on the host, fed by one transfer of four numbers per row per
function evaluation (value, slope along the direction, largest gradient
entry, ``y'y``) and one of two per iteration (the new direction's slope and
squared length). Besides ``fun``, an evaluation costs two small kernels on
the GPU (:func:`_stats`, :func:`_advance`) and an iteration one more
(:func:`_direction`); each has a NumPy twin, the CPU path and the GPU
kernel's oracle in the tests.

Rows do not wait on each other's evaluations where ``fun`` can evaluate a
subset of rows (``row_subsets``): the first trial of an iteration is
evaluated for every row still running, the later trials of its line
searches for the rows still searching only (a gather before ``fun``, a
scatter after). A batch then costs about the sum of its rows' own
evaluations rather than its slowest row's times ``k``: issue 17's 16
``C`` x 5 folds at ``tol=1e-6`` took 1.1 s instead of 3.1 s on an H100.
Its iterations still run in step: a converged row costs nothing more, but
every iteration's first evaluation covers all the rows still running.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from gpuml import _cuda
from gpuml._array import to_host

FTOL = 64 * np.finfo(np.float64).eps
_EPS = float(np.finfo(np.float64).eps)
_MAX_STEP = 1e10  # L-BFGS-B's largest step without bounds
_MAX_HISTORY = 64  # the direction kernel keeps one coefficient per pair

CONVERGED_GRADIENT = "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL"
CONVERGED_VALUE = "CONVERGENCE: RELATIVE REDUCTION OF F <= FACTR*EPSMCH"
ITERATION_LIMIT = "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
LINE_SEARCH_FAILED = "ABNORMAL: "


@dataclass
class LbfgsResult:
    """The outcome per row: solution, value, iterations and why it stopped.

    ``status`` follows ``scipy.optimize.OptimizeResult``: 0 converged, 1 the
    iteration limit, 2 the line search failed.
    """

    x: object  # (k, d), in the namespace of x0
    fun: object  # (k,), in the namespace of x0
    n_iter: np.ndarray  # (k,) int32, host
    status: np.ndarray  # (k,) int32, host
    message: list[str]

    @property
    def converged(self) -> np.ndarray:
        return self.status == 0


# -- the Moré-Thuente line search (scalar, one per row, on the host) --------


def _safeguarded_step(stx, fx, dx, sty, fy, dy, stp, fp, dp, bracketed, lo, hi):
    """One step of MINPACK-2's ``dcstep``: a new trial step and interval.

    ``stx`` is the best step so far (value ``fx``, slope ``dx``), ``sty`` the
    other end of the interval, ``stp`` the step just evaluated (``fp``,
    ``dp``). The trial comes from a cubic or quadratic (secant) model of the
    four cases of Moré and Thuente (1994), safeguarded to ``[lo, hi]``.
    Returns ``(stx, fx, dx, sty, fy, dy, trial, bracketed)``.
    """
    opposite = (dp < 0 < dx) or (dx < 0 < dp)  # slopes of opposite signs

    def cubic_terms(f1, f2, s1, s2, d1, d2):
        """``theta`` and ``gamma`` of the cubic through two steps (values,
        slopes), in dcstep's order of operations."""
        theta = 3.0 * (f1 - f2) / (s2 - s1) + d1 + d2
        s = max(abs(theta), abs(d1), abs(d2))
        return theta, s * math.sqrt(max(0.0, (theta / s) ** 2 - (d1 / s) * (d2 / s)))

    if fp > fx:
        # 1: a higher value; the minimum is bracketed. Take the cubic step
        # if it is closer to stx than the quadratic step, else their mean.
        theta, gamma = cubic_terms(fx, fp, stx, stp, dx, dp)
        if stp < stx:
            gamma = -gamma
        r = ((gamma - dx) + theta) / (((gamma - dx) + gamma) + dp)
        cubic = stx + r * (stp - stx)
        quad = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx)
        if abs(cubic - stx) < abs(quad - stx):
            trial = cubic
        else:
            trial = cubic + (quad - cubic) / 2.0
        bracketed = True
    elif opposite:
        # 2: a lower value and slopes of opposite signs; bracketed. Take the
        # cubic step if it is farther from stp than the secant step.
        theta, gamma = cubic_terms(fx, fp, stx, stp, dx, dp)
        if stp > stx:
            gamma = -gamma
        r = ((gamma - dp) + theta) / (((gamma - dp) + gamma) + dx)
        cubic = stp + r * (stx - stp)
        secant = stp + (dp / (dp - dx)) * (stx - stp)
        trial = cubic if abs(cubic - stp) > abs(secant - stp) else secant
        bracketed = True
    elif abs(dp) < abs(dx):
        # 3: a lower value, slopes of the same sign, the slope shrinks.
        theta, gamma = cubic_terms(fx, fp, stx, stp, dx, dp)
        if stp > stx:
            gamma = -gamma
        r = ((gamma - dp) + theta) / ((gamma + (dx - dp)) + gamma)
        if r < 0 and gamma != 0:
            cubic = stp + r * (stx - stp)
        else:
            cubic = hi if stp > stx else lo
        secant = stp + (dp / (dp - dx)) * (stx - stp)
        if bracketed:
            trial = cubic if abs(cubic - stp) < abs(secant - stp) else secant
            limit = stp + 0.66 * (sty - stp)
            trial = min(limit, trial) if stp > stx else max(limit, trial)
        else:
            trial = cubic if abs(cubic - stp) > abs(secant - stp) else secant
            trial = min(hi, max(lo, trial))
    else:
        # 4: a lower value, slopes of the same sign, the slope does not
        # shrink: the cubic step inside a bracket, else a bound.
        if bracketed:
            theta, gamma = cubic_terms(fp, fy, stp, sty, dy, dp)
            if stp > sty:
                gamma = -gamma
            r = ((gamma - dp) + theta) / (((gamma - dp) + gamma) + dy)
            trial = stp + r * (sty - stp)
        else:
            trial = hi if stp > stx else lo
    # The interval: stp replaces the end it improves on.
    if fp > fx:
        sty, fy, dy = stp, fp, dp
    else:
        if opposite:
            sty, fy, dy = stx, fx, dx
        stx, fx, dx = stp, fp, dp
    return stx, fx, dx, sty, fy, dy, trial, bracketed


class _LineSearch:
    """MINPACK-2's ``dcsrch`` for one row: strong Wolfe steps along ``d``.

    Built with the value ``f0`` and slope ``g0 < 0`` at the step 0 and the
    first trial step; :meth:`next` takes the value and slope at the current
    trial and answers ``None`` when the step is accepted (the Wolfe
    conditions hold, or a warning of ``dcsrch`` ends the search at the
    current trial, as L-BFGS-B accepts it) or the next trial step.
    """

    FTOL, GTOL, XTOL = 1e-3, 0.9, 0.1  # L-BFGS-B's settings

    def __init__(self, f0: float, g0: float, step: float, step_max: float):
        self.step, self.step_max = step, step_max
        self.f0, self.g0 = f0, g0
        self.gtest = self.FTOL * g0
        self.bracketed, self.stage = False, 1
        self.width, self.width1 = step_max, 2.0 * step_max
        self.stx, self.fx, self.gx = 0.0, f0, g0
        self.sty, self.fy, self.gy = 0.0, f0, g0
        self.stmin, self.stmax = 0.0, step + 4.0 * step

    def next(self, f: float, g: float) -> float | None:
        stp = self.step
        ftest = self.f0 + stp * self.gtest
        if self.stage == 1 and f <= ftest and g >= 0:
            self.stage = 2
        if (
            (self.bracketed and (stp <= self.stmin or stp >= self.stmax))
            or (self.bracketed and self.stmax - self.stmin <= self.XTOL * self.stmax)
            or (stp == self.step_max and f <= ftest and g <= self.gtest)
            or (stp == 0.0 and (f > ftest or g >= self.gtest))
            or (f <= ftest and abs(g) <= self.GTOL * -self.g0)
        ):
            return None
        try:
            trial = self._update(stp, f, g)
        except (ZeroDivisionError, OverflowError, ValueError):
            return math.nan  # degenerate models: the caller fails the search
        if self.bracketed:
            if abs(self.sty - self.stx) >= 0.66 * self.width1:
                trial = self.stx + 0.5 * (self.sty - self.stx)
            self.width1, self.width = self.width, abs(self.sty - self.stx)
            self.stmin, self.stmax = min(self.stx, self.sty), max(self.stx, self.sty)
        else:
            self.stmin = trial + 1.1 * (trial - self.stx)
            self.stmax = trial + 4.0 * (trial - self.stx)
        trial = min(max(trial, 0.0), self.step_max)
        if self.bracketed and (
            trial <= self.stmin
            or trial >= self.stmax
            or self.stmax - self.stmin <= self.XTOL * self.stmax
        ):
            trial = self.stx
        self.step = trial
        return trial

    def _update(self, stp: float, f: float, g: float) -> float:
        """The bracket and the next trial. While stage 1 has no sufficient
        decrease, on the modified function ``f - step * gtest`` (a shift of
        0 otherwise, which leaves every value exactly as it is)."""
        shift = 0.0
        if self.stage == 1 and self.fx >= f > self.f0 + stp * self.gtest:
            shift = self.gtest
        stx, fx, gx, sty, fy, gy, trial, self.bracketed = _safeguarded_step(
            self.stx,
            self.fx - self.stx * shift,
            self.gx - shift,
            self.sty,
            self.fy - self.sty * shift,
            self.gy - shift,
            stp,
            f - stp * shift,
            g - shift,
            self.bracketed,
            self.stmin,
            self.stmax,
        )
        self.stx, self.fx, self.gx = stx, fx + stx * shift, gx + shift
        self.sty, self.fy, self.gy = sty, fy + sty * shift, gy + shift
        return trial


@dataclass
class _Row:
    """One row's scalar state: memory bookkeeping, counters, outcome."""

    size: int
    head: int = 0
    count: int = 0
    gamma: float = 1.0  # s'y / y'y of the newest pair (L-BFGS-B's 1/theta)
    rho: list = field(init=False)  # 1 / s'y per memory slot
    n_iter: int = 0
    evaluations: int = 0  # in the current line search
    search: _LineSearch | None = None
    status: int | None = None  # None while the row runs
    message: str = ""

    def __post_init__(self):
        self.rho = [0.0] * self.size

    def push(self, sy: float, yy: float) -> int:
        """Add a pair (the oldest goes when full); returns its slot."""
        if self.count < self.size:
            slot = (self.head + self.count) % self.size
            self.count += 1
        else:
            slot = self.head
            self.head = (self.head + 1) % self.size
        self.rho[slot] = 1.0 / sy
        self.gamma = sy / yy
        return slot

    def clear(self) -> None:
        self.head = self.count = 0
        self.gamma = 1.0

    def finish(self, status: int, message: str) -> None:
        self.status, self.message = status, message

    def table_row(self) -> list[float]:
        return [*self.rho, self.gamma, float(self.head), float(self.count)]


# -- the vector work: GPU kernels and their NumPy twins ---------------------

_THREADS = 256
# Rows of at least this many entries use the "wide" kernels, which spread
# each row over many blocks (one block per row left an H100 mostly idle on a
# sparse problem's 2**20 coefficients: 48 ms per direction for 12 rows).
WIDE = 2**15
WIDE_CHUNK = 256 * 8  # linear.cu's WIDE_CHUNK


def _wide_grid(k: int, n: int) -> tuple[int, int]:
    return (-(-n // WIDE_CHUNK), k)


def _direction(g, S, Y, memory: np.ndarray, xp):
    """``(d (k, d), slopes g.d (k,), squared lengths d.d (k,))``, ``d = -H g``.

    ``memory`` is the host table of :meth:`_Row.table_row` rows; slopes and
    lengths come back as host lists.
    """
    k, m, n = S.shape
    if xp is not np and n >= WIDE:
        return _wide_direction(g, S, Y, memory, xp)
    if xp is not np:
        out = xp.empty_like(g)
        dots = xp.empty((k, 2))
        table = xp.asarray(memory)
        _cuda.kernel("linear", "lbfgs_direction")(
            (k,), (_THREADS,), (g, S, Y, table, np.int32(m), np.int64(n), out, dots)
        )
        slope, length = to_host(dots).T.tolist()
        return out, slope, length
    out = np.empty_like(g)
    for row in range(k):
        rho, gamma = memory[row, :m], memory[row, m]
        head, count = int(memory[row, m + 1]), int(memory[row, m + 2])
        slots = [(head + t) % m for t in range(count)]
        q = g[row].copy()
        alpha = {}
        for slot in reversed(slots):
            alpha[slot] = rho[slot] * (S[row, slot] @ q)
            q -= alpha[slot] * Y[row, slot]
        q *= gamma
        for slot in slots:
            q += (alpha[slot] - rho[slot] * (Y[row, slot] @ q)) * S[row, slot]
        out[row] = -q
    return out, np.einsum("ij,ij->i", g, out).tolist(), (out * out).sum(1).tolist()


def _wide_direction(g, S, Y, memory: np.ndarray, xp):
    """:func:`_direction` for wide rows: one launch per step of the two-loop
    recursion, each spread over ``(chunks, rows)`` blocks."""
    k, m, n = S.shape
    grid, block = _wide_grid(k, n), (_THREADS,)
    pairs = int(memory[:, m + 2].max()) if k else 0
    table = xp.asarray(memory)
    q = _cuda.copy(g)
    alpha = xp.empty((k, m))
    dots = xp.zeros((2 * pairs + 1, k))  # a memset: no kernel
    dot = _cuda.kernel("linear", "lbfgs_wide_dot")
    update = _cuda.kernel("linear", "lbfgs_wide_update")
    shape = (table, np.int32(m), np.int64(n))
    steps = [(t, 0, S) for t in reversed(range(pairs))]
    steps += [(m, -1, None)]  # q *= gamma (no row holds pair m)
    steps += [(t, 1, Y) for t in range(pairs)]
    for i, (t, second, A) in enumerate(steps):
        row_dots = dots[i]
        if A is not None:
            dot(grid, block, (A, q, *shape, np.int32(t), row_dots))
        args = (S, Y, *shape, np.int32(t), np.int32(second == 1))
        args += (np.int32(second == -1), row_dots, alpha, q)
        update(grid, block, args)
    out = xp.zeros((k, 2))
    _cuda.kernel("linear", "lbfgs_wide_finish")(grid, block, (g, np.int64(n), q, out))
    slope, length = to_host(out).T.tolist()
    return q, slope, length


def _stats(f, g_new, g, direction, xp) -> list[list[float]]:
    """Host lists ``[f, g_new.d, max |g_new|, |g_new - g|^2]``, one transfer."""
    if xp is not np and g_new.shape[1] >= WIDE:
        k, n = g_new.shape
        out = xp.zeros((k, 4))
        args = (f, g_new, g, direction, np.int64(n), out)
        _cuda.kernel("linear", "lbfgs_wide_stats")(_wide_grid(k, n), (_THREADS,), args)
        return to_host(out).T.tolist()
    if xp is not np:
        k, n = g_new.shape
        out = xp.empty((k, 4))
        _cuda.kernel("linear", "lbfgs_stats")(
            (k,), (_THREADS,), (f, g_new, g, direction, np.int64(n), out)
        )
        return to_host(out).T.tolist()
    y = g_new - g
    return [
        np.asarray(f, dtype=np.float64).tolist(),
        np.einsum("ij,ij->i", g_new, direction).tolist(),
        np.abs(g_new).max(axis=1).tolist(),
        np.einsum("ij,ij->i", y, y).tolist(),
    ]


def _advance(x, g, trial, g_trial, direction, S, Y, control: np.ndarray, xp):
    """Commit accepted trials (and their pairs), then place the next trials.

    Per row of ``control``: ``[commit, slot, step]``. A committed row takes
    ``trial`` and ``g_trial`` as its point and gradient, and stores
    ``(trial - x, g_trial - g)`` in ``slot`` of its memory unless ``slot``
    is -1; every row's next trial is ``x + step * direction``. In place.
    """
    k, m, n = S.shape
    if xp is not np:
        args = (g if g_trial is None else g_trial, direction, xp.asarray(control))
        args += (np.int64(k), np.int64(n), np.int32(m), x, g, trial, S, Y)
        _cuda.launch("linear", "lbfgs_advance", k * n, args)
        return
    for row in np.flatnonzero(control[:, 0] > 0):
        slot = int(control[row, 1])
        if slot >= 0:
            S[row, slot] = trial[row] - x[row]
            Y[row, slot] = g_trial[row] - g[row]
        x[row] = trial[row]
        g[row] = g_trial[row]
    np.multiply(control[:, 2:3], direction, out=trial)
    trial += x


def _evaluate_rows(fun, points, rows: list[int], g, xp):
    """``fun`` at the listed rows of ``points`` only: values and gradients
    of all the rows, the others' set to 0 and to their current gradient
    (read by nothing but the statistics of rows not searching). On the GPU
    a gather and two scatters (gpuml's kernels) around ``fun``."""
    index = np.asarray(rows, dtype=np.int64)
    if xp is np:
        f_part, g_part = fun(points[index], index)
        f = np.zeros(points.shape[0])
        f[index] = f_part
        g_trial = g.copy()
        g_trial[index] = g_part
        return f, g_trial
    index = xp.asarray(index)
    f_part, g_part = fun(_cuda.take_rows(points, index), index)
    f = xp.zeros(points.shape[0])  # a memset: no kernel
    # contiguous float64 as they come from the loss: no copies to scatter
    _cuda.scatter_rows(_cuda.cast(_cuda.c_order(f_part), xp.float64), index, f)
    g_trial = _cuda.copy(g)
    _cuda.scatter_rows(_cuda.cast(_cuda.c_order(g_part), xp.float64), index, g_trial)
    return f, g_trial


def _float64_copy(array, xp):
    """A float64 copy (a memcpy for contiguous float64 device arrays)."""
    if xp is np:
        return np.array(array, dtype=np.float64)
    if array.dtype == np.float64 and array.flags.c_contiguous:
        return _cuda.copy(array)
    return xp.array(array, dtype=xp.float64)


# -- the driver --------------------------------------------------------------


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
    callback: Callable | None = None,
    row_subsets: bool = False,
) -> LbfgsResult:
    """Minimise the rows of ``x0`` independently; ``fun(x) -> (f (k,), g (k, d))``.

    Parameters
    ----------
    fun : callable
        Values and gradients of all rows at once, in ``xp`` (float64).
    x0 : array of shape (k, d)
        Starting points.
    max_iter : int
        Most iterations per row (as in SciPy, a row takes at least one
        iteration unless it starts converged).
    tol : float
        A row has converged when ``max |g| <= tol``.
    xp : module
        NumPy or CuPy.
    history : int, default=10
        Pairs kept per row (SciPy's ``maxcor``), at most 64.
    max_line_search : int, default=50
        Most function evaluations per line search (SciPy's ``maxls``).
    verbose : int, default=0
        Print the largest gradient entry of the running rows every iteration.
    callback : callable, default=None
        For one row (``k == 1``): called with the new point, a ``(1, d)``
        copy, after each iteration, as SciPy's ``callback`` is.
    row_subsets : bool, default=False
        ``fun(x, rows)`` also evaluates only some rows: ``x`` holds the rows
        numbered ``rows`` (an int64 index array in ``xp``). The evaluations
        of a line search then cover only the rows still searching: a row
        that has converged, or whose line search needs more evaluations,
        does not cost the others evaluations.
    """
    if not 0 < history <= _MAX_HISTORY:
        raise ValueError(f"history must be in [1, {_MAX_HISTORY}]; got {history}.")
    x = _float64_copy(x0, xp)
    k, n = x.shape
    if callback is not None and k != 1:
        raise ValueError(f"callback needs a single row; got {k} rows.")
    S = xp.zeros((k, history, n))
    Y = xp.zeros((k, history, n))
    direction = xp.zeros((k, n))
    f_dev, g = fun(x)
    g = _float64_copy(g, xp)
    f, _, g_max, _ = _stats(f_dev, g, g, direction, xp)
    rows = [_Row(history) for _ in range(k)]
    for row, top in zip(rows, g_max, strict=True):
        if top <= tol:
            row.finish(0, CONVERGED_GRADIENT)
    trial = xp.empty_like(x)
    iteration = 0
    while any(row.status is None for row in rows):
        memory = np.array([row.table_row() for row in rows])
        direction, slope0, length = _direction(g, S, Y, memory, xp)
        control = np.zeros((k, 3))
        control[:, 1] = -1.0
        searching = []
        for r, row in enumerate(rows):
            if row.status is not None:
                continue
            if not slope0[r] < 0:  # uphill: line search impossible
                if row.count:
                    row.clear()  # retry along -g with an empty memory
                else:
                    row.n_iter += 1
                    row.finish(2, LINE_SEARCH_FAILED)
                continue
            step = min(1.0 / math.sqrt(length[r]), _MAX_STEP) if not row.n_iter else 1.0
            row.search = _LineSearch(f[r], slope0[r], step, _MAX_STEP)
            row.evaluations = 1
            control[r, 2] = step
            searching.append(r)
        if not searching:  # only restarts (or nothing) this round
            continue
        _advance(x, g, trial, None, direction, S, Y, control, xp)
        while searching:
            if row_subsets and len(searching) < k:
                f_dev, g_trial = _evaluate_rows(fun, trial, searching, g, xp)
            else:
                f_dev, g_trial = fun(trial)
            f_new, slope, g_max, yy = _stats(f_dev, g_trial, g, direction, xp)
            control = np.zeros((k, 3))
            control[:, 1] = -1.0
            still = []
            for r in searching:
                row = rows[r]
                step = row.search.step
                following = row.search.next(f_new[r], slope[r])
                finite = math.isfinite(f_new[r]) and math.isfinite(slope[r])
                if following is None and finite:  # accepted: a new iterate
                    control[r, 0] = 1.0
                    f_old, f[r] = f[r], f_new[r]
                    row.n_iter += 1
                    if row.n_iter >= max_iter:
                        row.finish(1, ITERATION_LIMIT)
                    elif g_max[r] <= tol:
                        row.finish(0, CONVERGED_GRADIENT)
                    elif f_old - f_new[r] <= FTOL * max(abs(f_old), abs(f_new[r]), 1.0):
                        row.finish(0, CONVERGED_VALUE)
                    else:
                        sy = (slope[r] - slope0[r]) * step
                        if sy > _EPS * (-slope0[r] * step):
                            control[r, 1] = row.push(sy, yy[r])
                elif (
                    following is None  # a warning at a non-finite trial
                    or not math.isfinite(following)
                    or row.evaluations >= max_line_search
                ):  # failed: the row keeps its point
                    if row.count:
                        row.clear()
                    else:
                        row.n_iter += 1
                        row.finish(2, LINE_SEARCH_FAILED)
                else:
                    row.evaluations += 1
                    control[r, 2] = following
                    still.append(r)
            searching = still
            _advance(x, g, trial, g_trial, direction, S, Y, control, xp)
            if callback is not None and control[0, 0] > 0:
                callback(_float64_copy(x, xp))
        iteration += 1
        if verbose:
            running = [r for r, row in enumerate(rows) if row.status is None]
            shown = max(g_max[r] for r in running or range(k))
            print(
                f"L-BFGS iteration {iteration}: {len(running)} of {k} rows "
                f"running, max |gradient| {shown:.3e}"
            )
    return LbfgsResult(
        x,
        xp.asarray(f, dtype=xp.float64),
        np.array([row.n_iter for row in rows], dtype=np.int32),
        np.array([row.status for row in rows], dtype=np.int32),
        [row.message for row in rows],
    )
