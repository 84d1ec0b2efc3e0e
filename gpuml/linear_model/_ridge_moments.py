"""The statistics of Ridge's batched fit: each fold's centred Gram matrix,
cross products and offsets, from the fold's own rows only.

For dense data with more samples than features (see
:mod:`~gpuml.linear_model._ridge_batch`):

- All alphas share one eigendecomposition of the fold's centred Gram matrix
  ``Xᵀ W X``, so a fold costs one fit plus a small product per alpha. When
  that matrix is too ill-conditioned for the eigenvalues to give the
  solution to working precision (an outlier, a vanishing penalty), each
  alpha is solved by Cholesky in float64 instead, as scikit-learn solves it.
- **No row outside a fold can change that fold's result.** The rows are
  partitioned into *groups* by fold membership: rows that are in exactly
  the same set of training folds form a group (for ``KFold``, the test
  sets; contiguous runs of rows, as ``KFold`` without shuffling gives, are
  groups of their own and need no gather). Rows in no training fold belong
  to no group and are never read. Each group's moments (total weight,
  weighted means, centred co-moments of ``[X, y]``) are computed from its
  own rows only, in float64, around its own weighted mean (a first pass
  over its rows: the shift keeps the sums of products from cancelling, and
  the centring loses no more than scikit-learn's). A fold's moments
  combine those of the groups of its training rows by the pairwise (Chan
  et al.) rule, ``M = Σ M_g + Σ W_g (m_g - m)(m_g - m)ᵀ``: sums of positive
  semi-definite terms, never a difference of two large Gram matrices.
  Without an intercept the groups' plain, uncentred sums are added up.
- Each row is read twice per search (for its group's mean, then its
  sums), not once per fold, while there are few groups (at most twice the
  number of folds); when there are many (``ShuffleSplit`` with many splits
  gives up to ``2 ** n_splits``), each fold's moments are computed directly
  from its own rows.
- A fold whose weights are negative, or all zero, or whose system
  overflows (scikit-learn's cholesky solver raises there), raises: the
  search then fits its candidates one by one, and each fit fails or
  succeeds as ``Ridge.fit`` does.

Measured (W1: 20 alphas, ``KFold(5)``, 400,000 x 256 float32, on an H100,
warm, min of 3 in a process, two processes each): the former design (the
whole data's Gram minus each fold's held-out rows, after a global shift)
0.091-0.093 s, this one 0.089-0.097 s in one session, and 0.113-0.166 s
against 0.116-0.139 s in a noisier one: no slower. It reads fewer rows
(each group once for its mean and once for its sums, against the whole
data once and every held-out row once more) and moves a group's sums, not
a fold's, to the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import to_host, to_namespace
from gpuml._linalg import add_products, block_grams, device_eigh, eigh
from gpuml._reductions import column_mean
from gpuml.linear_model._ridge_problem import (
    NON_FINITE_SYSTEM,
    _eigh_solve,
    _shifted_solve,
    check_finite_system,
    has_negative,
)

# Rows of X (times its width) handled per pass when accumulating moments,
# on the GPU and (in float64) on the host.
_CHUNK_ELEMENTS = 1 << 24
_HOST_CHUNK_ELEMENTS = 1 << 22
# Rows per block of the GPU's batched Gram GEMM (see _linalg.block_grams).
_GRAM_BLOCK_ROWS = 2048
# Thread blocks of the kernel that forms a chunk's design (one row each).
_DESIGN_BLOCKS = 8192
# Largest system that a GPU Ridge.fit solves by Cholesky on the host in
# float64 (about a millisecond for 256 features) rather than with CuPy.
_HOST_SOLVE_MAX = 1024
# Most groups of rows per fold before each fold is computed from its own
# rows instead (the groups' moments are combined on the host).
_GROUPS_PER_FOLD = 2
_MAX_GROUPS = 64
# The relative error that the eigenvalue solve may make (about its dtype's
# eps times the condition number of the shifted Gram matrix) before each
# alpha is solved by Cholesky instead.
_EIGEN_ERROR = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10}

SAMPLE_WEIGHTS_ZERO = "Sample weights must contain at least one non-zero number."


def _check_fold_weights(weights, xp: ModuleType) -> None:
    """Raise where ``Ridge.fit`` raises for a fold's weights: negative ones
    (scikit-learn's solver meets NaN square roots) or all zero."""
    if weights is None:
        return
    if has_negative(weights, xp):
        raise ValueError(NON_FINITE_SYSTEM)
    if not bool((weights != 0).any()):
        raise ValueError(SAMPLE_WEIGHTS_ZERO)


# --------------------------------------------------------------------------
# Groups of rows by fold membership, and their moments.
# --------------------------------------------------------------------------


@dataclass
class _Groups:
    """Rows partitioned by the set of training folds they belong to.

    ``rows[g]`` is a ``slice`` (a contiguous run) or a sorted host index
    array; ``members[f]`` lists the groups of fold ``f``'s training rows.
    """

    rows: list
    members: list


def _partition(folds: list, n_rows: int) -> _Groups | None:
    """The groups of rows of ``folds`` (host index arrays, or None for all
    rows), or None when there are too many of them, or a fold repeats a
    row (each fold is then computed from its own rows).

    Each row's key has bit ``f`` set when fold ``f`` trains on it; a few
    vectorised passes over the rows, no sort where there are few groups.
    """
    n_folds = len(folds)
    if n_folds > 63:
        return None
    limit = min(_MAX_GROUPS, _GROUPS_PER_FOLD * n_folds)
    runs = _run_partition(folds, n_rows, limit)
    if runs is not None:
        return runs
    bits = next(b for b in (8, 16, 32, 64) if n_folds <= b)
    key = np.zeros(n_rows, dtype=f"uint{bits}")
    for f, train in enumerate(folds):
        bit = key.dtype.type(1 << f)
        if train is None:
            key |= bit
            continue
        if train.shape[0] > 1 and not bool(np.all(train[1:] > train[:-1])):
            seen = np.zeros(n_rows, dtype=bool)
            seen[train] = True
            if np.count_nonzero(seen) != train.shape[0]:
                return None  # a repeated row counts twice in its fold's fit
        key[train] |= bit
    bounds = np.flatnonzero(key[1:] != key[:-1]) + 1
    if bounds.shape[0] < 4 * limit:
        starts = np.concatenate(([0], bounds))
        stops = np.concatenate((bounds, [n_rows]))
        run_keys = key[starts]
        used = np.flatnonzero(run_keys)
        if used.shape[0] <= limit:  # contiguous runs: no gather
            rows = [slice(int(starts[i]), int(stops[i])) for i in used]
            return _Groups(rows, _members(run_keys[used], n_folds))
    if bits <= 16:
        values = np.flatnonzero(np.bincount(key))
    else:  # a sort (NumPy's unique hashes, several times slower here)
        ordered = np.sort(key)
        values = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
    values = values[values != 0]
    if values.shape[0] > limit:
        return None
    rows = [np.flatnonzero(key == value) for value in values]
    return _Groups(rows, _members(values, n_folds))


def _run_partition(folds: list, n_rows: int, limit: int) -> _Groups | None:
    """:func:`_partition` where every fold's rows are increasing and make
    few contiguous runs (``KFold`` without shuffling: at most two): the
    groups are the segments between the runs' ends, found from those ends
    alone (two passes over each fold's indices, none over all rows). None
    when a fold is not so, or the segments are more than ``limit``."""
    edges = [np.array([0, n_rows])]
    spans = []
    for train in folds:
        if train is None:
            spans.append((np.array([0]), np.array([n_rows])))
            continue
        if train.shape[0] == 0:
            spans.append((np.empty(0, np.int64), np.empty(0, np.int64)))
            continue
        step = train[1:] - train[:-1]
        breaks = np.flatnonzero(step != 1)
        if breaks.shape[0] >= limit or not bool(np.all(step[breaks] > 0)):
            return None  # many runs, or not increasing (maybe repeated rows)
        if train[0] < 0 or train[-1] >= n_rows:
            return None
        starts = train[np.concatenate(([0], breaks + 1))]
        stops = train[np.concatenate((breaks, [train.shape[0] - 1]))] + 1
        spans.append((starts, stops))
        edges += [starts, stops]
    bounds = np.unique(np.concatenate(edges))
    lo, hi = bounds[:-1], bounds[1:]
    keys = np.zeros(lo.shape[0], dtype=np.uint64)
    for f, (starts, stops) in enumerate(spans):
        run = np.searchsorted(starts, lo, side="right") - 1
        inside = (run >= 0) & (lo < stops[np.maximum(run, 0)]) if starts.size else False
        keys |= np.where(inside, np.uint64(1 << f), np.uint64(0))
    used = np.flatnonzero(keys)
    if used.shape[0] > limit:
        return None
    rows = [slice(int(lo[i]), int(hi[i])) for i in used]
    return _Groups(rows, _members(keys[used], len(folds)))


def _members(keys, n_folds: int) -> list:
    """The groups (indices into ``keys``) of each fold."""
    keys = np.asarray(keys, dtype=np.uint64)
    return [
        np.flatnonzero((keys >> np.uint64(f)) & np.uint64(1)).tolist()
        for f in range(n_folds)
    ]


@dataclass
class _Moments:
    """Float64 moments of some rows of the design ``[X, Y]``.

    With an intercept: the total weight ``total``, the weighted column
    means ``mean`` and the centred co-moments ``comoment`` ``Σ w (z - m)
    (z - m)ᵀ``; without: ``mean`` is None and ``comoment`` the plain
    ``Σ w z zᵀ``.
    """

    total: float
    mean: np.ndarray | None
    comoment: np.ndarray


class _RidgeMoments:
    """Per-fold ridge systems from the moments of groups of rows (NumPy).

    See the module docstring: a fold's system is built from its own rows
    only. Subclassed for the GPU, which overrides :meth:`_design_sums`.
    """

    def __init__(self, X, Y, weights, fit_intercept: bool, xp: ModuleType, folds: list):
        self.X, self.Y, self.weights, self.xp = X, Y, weights, xp
        self.fit_intercept = fit_intercept
        n_rows = X.shape[0]
        self.folds = [
            None if f is None else np.asarray(to_host(f), dtype=np.int64) for f in folds
        ]
        self.host_weights = None if weights is None else np.asarray(to_host(weights))
        self.groups = _partition(self.folds, n_rows)
        self._group_moments = {}

    # -- moments ----------------------------------------------------------

    def fold_moments(self, fold: int | None) -> _Moments:
        """The moments of fold ``fold``'s training rows (all rows if None).

        Raises where ``Ridge.fit`` on those rows raises for their weights.
        """
        if fold is None or self.folds[fold] is None:
            rows = [slice(0, self.X.shape[0])]
        elif self.groups is None:
            rows = [self.folds[fold]]
        else:
            rows = [self.groups.rows[g] for g in self.groups.members[fold]]
        if self.host_weights is not None:
            _check_fold_weights(
                np.concatenate([self.host_weights[r] for r in rows]), np
            )
        if self.groups is None or fold is None or self.folds[fold] is None:
            return self._combine([self._moments(r) for r in rows])
        parts = []
        for g in self.groups.members[fold]:
            if g not in self._group_moments:
                self._group_moments[g] = self._moments(self.groups.rows[g])
            parts.append(self._group_moments[g])
        return self._combine(parts)

    def _combine(self, parts: list) -> _Moments:
        """The moments of the union of disjoint groups of rows: sums, and the
        pairwise (Chan et al.) update for the centred co-moments, by
        :meth:`_sum_comoments` and :meth:`_add_products` (each backend's).
        Overflows are left to :meth:`system`'s finiteness check."""
        with np.errstate(all="ignore"):
            total = float(sum(part.total for part in parts))
            if self.fit_intercept:
                parts = [part for part in parts if part.total != 0]  # no rows
                if not parts:
                    return _Moments(0.0, None, None)
                if len(parts) == 1:
                    return parts[0]
            comoment = self._sum_comoments([part.comoment for part in parts])
            if not self.fit_intercept:
                return _Moments(total, None, comoment)
            # The weights' shares first: the products of totals and means of
            # extreme values would overflow where the means do not.
            mean = sum((part.total / total) * part.mean for part in parts)
            # (zero beyond the means' columns: the device's co-moments keep
            # the design's column of ones)
            deviations = np.zeros((len(parts), comoment.shape[0]))
            deviations[:, : mean.shape[0]] = [part.mean - mean for part in parts]
            weights = np.array([part.total for part in parts])
            self._add_products(comoment, deviations * weights[:, None], deviations)
        return _Moments(total, mean, comoment)

    def _sum_comoments(self, comoments: list):
        """A new array, the sum of ``comoments`` (in order)."""
        out = comoments[0].copy()
        for comoment in comoments[1:]:
            out += comoment
        return out

    def _add_products(self, C, A, B) -> None:
        """``C += Aᵀ B`` (host arrays ``A`` and ``B``)."""
        C += A.T @ B

    def _moments(self, rows) -> _Moments:
        """The moments of ``rows`` (a slice or a host index array)."""
        with np.errstate(all="ignore"):  # overflows are checked in `system`
            sums, shift = self._design_sums(rows, self.fit_intercept)
            total = float(sums[-1, -1])
            if not self.fit_intercept:
                return _Moments(total, None, sums[:-1, :-1])
            if total == 0:
                return _Moments(0.0, None, None)
            shifted_sums = sums[-1, :-1]
            offset = shifted_sums / total
            comoment = sums[:-1, :-1] - np.outer(shifted_sums, offset)
            return _Moments(total, shift + offset, comoment)

    def _mean_weights(self, rows):
        """Float64 weights of ``rows`` that sum to one (``w / Σw``, or
        ``1 / n``): the weighted mean is then a product with no overflow."""
        if self.host_weights is None:
            return np.full(_count(rows), 1.0 / max(_count(rows), 1))
        weights = self.host_weights[rows].astype(np.float64)
        total = weights.sum()
        return weights / total if total > 0 else np.zeros_like(weights)

    def _design(self, rows, shift):
        """``Z = [X - sx, Y - sy, 1]`` (float64) of ``rows``."""
        p, t = self.X.shape[1], self.Y.shape[1]
        Z = np.empty((_count(rows), p + t + 1))
        Z[:, :p] = self.X[rows]
        Z[:, p : p + t] = self.Y[rows]
        if shift is not None:
            Z[:, : p + t] -= shift
        Z[:, -1] = 1.0
        return Z

    def _design_sums(self, rows, fit_intercept: bool, centre=None):
        """``(Zwᵀ Z, shift)`` in float64, ``Z = [X - sx, Y - sy, 1]`` over
        ``rows`` (``Zw = w Z``), and the shift ``[sx, sy]`` used: ``centre``
        (host, ``p + t`` values) where given; else, with an intercept, the
        rows' weighted mean (one pass before the sums), so that the
        centring loses no more than scikit-learn's."""
        p, t = self.X.shape[1], self.Y.shape[1]
        width = p + t + 1
        n_rows = _count(rows)
        step = max(1, _HOST_CHUNK_ELEMENTS // width)
        shift = np.zeros(p + t)
        if centre is not None:
            shift = np.asarray(centre, dtype=np.float64)
        elif fit_intercept:
            shares = self._mean_weights(rows)
            for lo in range(0, n_rows, step):
                index = _take(rows, lo, step)
                shift += shares[lo : lo + step] @ self._design(index, None)[:, :-1]
        sums = np.zeros((width, width))
        for lo in range(0, n_rows, step):
            index = _take(rows, lo, step)
            Z = self._design(index, shift)
            Zw = Z if self.weights is None else Z * self.host_weights[index, None]
            sums += Zw.T @ Z
        return sums, shift

    # -- systems and solutions ---------------------------------------------

    def system(self, fold: int | None):
        """``(A, B, X_offset, y_offset)``, float64 on the host: the centred
        Gram and cross products of fold ``fold`` (all rows if None) and the
        offsets that give the intercepts.

        Raises scikit-learn's ``ValueError`` where its cholesky solver does:
        when the system (in the data's dtype) or the offsets overflowed.
        """
        moments = self.fold_moments(fold)
        p, t = self.X.shape[1], self.Y.shape[1]
        if moments.total == 0 and self.fit_intercept:
            raise ValueError(SAMPLE_WEIGHTS_ZERO)
        M = moments.comoment
        A, B = M[:p, :p], M[:p, p : p + t]
        if self.fit_intercept:
            X_offset, y_offset = moments.mean[:p], moments.mean[p : p + t]
        else:
            X_offset, y_offset = np.zeros(p), np.zeros(t)
        return self._checked_system(A, B, X_offset, y_offset)

    def fit_system(self):
        """``(A, B, X_offset, y_offset)`` of all rows as ``Ridge.fit``'s
        general path (and scikit-learn) forms them, float64 on the host.

        The offsets are :func:`~gpuml._reductions.column_mean`'s, as
        :func:`~gpuml.linear_model._ridge_problem._make_problem` takes them
        (scikit-learn's ``np.average``: its weighted sums overflow, and
        raise, where scikit-learn's do); ``A`` and ``B`` are the weighted
        sums of products of the rows centred at those offsets, taken as
        they are. :meth:`system` instead centres each group of rows at its
        own mean, exactly, which scikit-learn does not: where an extreme
        weight makes the rounding of the offsets count (a weight of 1e308
        times the last bit of a mean), the two differ, and a single fit
        follows scikit-learn.
        """
        if self.host_weights is not None:
            _check_fold_weights(self.host_weights, np)
        p, t = self.X.shape[1], self.Y.shape[1]
        with np.errstate(all="ignore"):  # overflows are checked below
            if self.fit_intercept:
                X_offset, y_offset = (
                    np.asarray(
                        to_host(column_mean(a, self.weights, xp=self.xp)),
                        dtype=np.float64,
                    )
                    for a in (self.X, self.Y)
                )
                centre = np.concatenate((X_offset, y_offset))
            else:
                X_offset, y_offset = np.zeros(p), np.zeros(t)
                centre = None
            sums, _ = self._design_sums(
                slice(0, self.X.shape[0]), self.fit_intercept, centre
            )
        sums = np.asarray(to_host(sums))
        A, B = sums[:p, :p], sums[:p, p : p + t]
        return self._checked_system(A, B, X_offset, y_offset)

    def _checked_system(self, A, B, X_offset, y_offset):
        """The system, after the check that ``Ridge.fit``'s cholesky solver
        makes: scikit-learn's ``ValueError`` where the system (in the data's
        dtype) or the offsets overflowed."""
        dtype = self.X.dtype
        with np.errstate(over="ignore", invalid="ignore"):
            check_finite_system(
                A.astype(dtype), B.astype(dtype), X_offset, y_offset, xp=np
            )
        return A, B, X_offset, y_offset

    def __call__(self, fold: int, alphas):
        A, B, X_offset, y_offset = self.system(fold)
        host_alphas = np.asarray(to_host(alphas), dtype=np.float64)
        decomposition = eigh(A, np)
        if _well_conditioned(decomposition[0], host_alphas, np.float64):
            coefs = _eigh_solve(A, B, host_alphas, np, decomposition)
        else:
            coefs = _per_alpha_cholesky(A, B, host_alphas)
        coefs = coefs.transpose(0, 2, 1)  # (k, t, p)
        intercepts = y_offset[None, :] - coefs @ X_offset
        dtype = self.X.dtype
        return coefs.astype(dtype), intercepts.astype(dtype)


def _count(rows) -> int:
    return rows.stop - rows.start if isinstance(rows, slice) else rows.shape[0]


def _take(rows, lo: int, step: int):
    """Rows ``lo .. lo + step`` of ``rows`` (a slice or an index array)."""
    if isinstance(rows, slice):
        return slice(rows.start + lo, min(rows.start + lo + step, rows.stop))
    return rows[lo : lo + step]


def _well_conditioned(evals, alphas, dtype) -> bool:
    """Whether every alpha's system is solved to :data:`_EIGEN_ERROR` from
    the eigenvalues ``evals`` (ascending) of the Gram matrix."""
    top = max(float(evals[-1]), 0.0)
    bottom = max(float(evals[0]), 0.0) + float(np.min(alphas))
    eps = np.finfo(dtype).eps
    return top * eps <= _EIGEN_ERROR[np.dtype(dtype)] * bottom


def _per_alpha_cholesky(A, B, alphas, xp: ModuleType = np):
    """``(k, p, t)`` solutions by Cholesky, one per row of ``alphas``, in
    ``A``'s dtype and namespace; the minimum-norm solution where a system
    without penalty is singular, as ``Ridge.fit`` gives it. Raises
    ``LinAlgError`` (the search then fits one by one) where a penalised
    system cannot be factorised."""
    out = []
    for alpha in alphas:
        shifts = xp.asarray(alpha, dtype=A.dtype)
        try:
            out.append(_shifted_solve(A, B, shifts, xp))
        except np.linalg.LinAlgError:
            if np.all(alpha > 0):
                # Positive definite but not factorisable: Ridge.fit falls
                # back to an SVD of the data, which the batch does not have.
                raise
            out.append(_eigh_solve(A, B, shifts[None, :], xp)[0])
    return xp.stack(out)


class _DeviceRidgeMoments(_RidgeMoments):
    """:class:`_RidgeMoments` on the GPU, with gpuml's kernels and cuBLAS only.

    A chunk of a group's rows becomes the augmented design ``Z = [X - sx,
    Y - sy, 1]`` (one gather-and-shift kernel; ``Zw = w Z`` with weights),
    and ``Zwᵀ Z`` gives all the sums of the chunk at once: the Gram and
    cross products, the column sums and the total weight. It is computed
    per block of rows by one batched GEMM and the blocks are added up in
    float64 on the device; a group's sums come to the host once, where the
    groups are combined into each fold's system in float64. The
    eigendecomposition is one cuSOLVER call on the device and the
    shrinkage for every alpha one gpuml kernel between two GEMMs. Nothing
    here is a CuPy element-wise or reduction kernel, so nothing compiles on
    first use but gpuml's own modules.
    """

    def __init__(self, X, Y, weights, fit_intercept: bool, xp: ModuleType, folds: list):
        from gpuml import _cuda

        # scikit-learn solves in X's dtype, targets and weights included.
        Y = _cuda.cast(xp.ascontiguousarray(Y), X.dtype)
        if weights is not None:
            weights = _cuda.cast(xp.ascontiguousarray(weights), X.dtype)
        super().__init__(xp.ascontiguousarray(X), Y, weights, fit_intercept, xp, folds)
        self._device_rows = {}

    def _rows_on_device(self, rows):
        """``(pointer or 0, offset)`` for the design kernel."""
        if isinstance(rows, slice):
            return 0, rows.start
        key = id(rows)
        if key not in self._device_rows:
            self._device_rows[key] = (rows, self.xp.asarray(rows))
        return self._device_rows[key][1], 0

    def _design(self, rows, lo, count, padded, shift, Z, Zw):
        """One chunk's ``Z`` (and ``Zw`` unless None) by gpuml's kernel."""
        from gpuml import _cuda

        X, Y, weights = self.X, self.Y, self.weights
        device_rows, offset = self._rows_on_device(rows)
        null = 0
        design = _cuda.kernel("ridge", f"ridge_design<{_cuda.ctype(X.dtype)}>")
        design(
            (min(padded, _DESIGN_BLOCKS),),
            (_cuda.THREADS,),
            (
                X,
                Y,
                device_rows,
                np.int64(offset + lo),
                np.int64(count),
                np.int64(padded),
                np.int64(X.shape[1]),
                np.int64(Y.shape[1]),
                null if shift is None else shift,
                null if weights is None or Zw is None else weights,
                Z,
                null if weights is None or Zw is None else Zw,
            ),
        )

    def _design_sums(self, rows, fit_intercept: bool, centre=None):
        """``(Zwᵀ Z, shift)`` as on NumPy: each chunk's ``Z`` (padded with
        zero rows to whole blocks) by one kernel, every block's ``Zwᵀ Z`` by
        one batched GEMM and one kernel that adds them to a float64 total
        on the device; the total comes to the host once. The shift is
        ``centre`` (host, ``p + t`` values) where given; else, with an
        intercept, the rows' weighted mean, from a first pass: each
        chunk's unshifted ``Z`` times its rows' shares of the weight (a
        cuBLAS matrix-vector product), added up on the host."""
        from gpuml import _cuda

        xp, X = self.xp, self.X
        p, t = X.shape[1], self.Y.shape[1]
        width = p + t + 1
        n_rows = _count(rows)
        total = xp.zeros((width, width), dtype=xp.float64)
        block = max(1, min(_GRAM_BLOCK_ROWS, n_rows))
        step = max(block, _CHUNK_ELEMENTS // width // block * block)
        ctype = _cuda.ctype(X.dtype)
        shift, host_shift = None, np.zeros(p + t)
        chunks = [
            (lo, min(step, n_rows - lo), -(-min(step, n_rows - lo) // block) * block)
            for lo in range(0, n_rows, step)
        ]
        if centre is not None:
            shift = xp.asarray(np.asarray(centre).astype(X.dtype))
            host_shift = np.asarray(centre).astype(X.dtype).astype(np.float64)
        elif fit_intercept:
            shares = self._mean_weights(rows)
            mean = np.zeros(p + t)
            for lo, count, padded in chunks:
                Z = xp.empty((padded, width), dtype=X.dtype)
                self._design(rows, lo, count, padded, None, Z, None)
                chunk_shares = np.zeros(padded, dtype=X.dtype)
                chunk_shares[:count] = shares[lo : lo + count]
                mean += to_host(xp.asarray(chunk_shares) @ Z)[: p + t]
            shift = xp.asarray(mean.astype(X.dtype))
            host_shift = mean.astype(X.dtype).astype(np.float64)  # as applied
        for lo, count, padded in chunks:
            Z = xp.empty((padded, width), dtype=X.dtype)
            Zw = Z if self.weights is None else xp.empty_like(Z)
            self._design(rows, lo, count, padded, shift, Z, Zw)
            parts = block_grams(Zw, Z, block)
            args = (parts, np.int64(parts.shape[0]), np.int64(total.size), total)
            _cuda.launch("ridge", f"add_blocks<{ctype}>", total.size, args)
        return total, host_shift

    def _moments(self, rows) -> _Moments:
        """As on NumPy, with the co-moments left on the device (float64,
        the whole (width, width) matrix, whose first ``p + t`` rows and
        columns are the statistics): the centring is a rank-one update by
        cuBLAS, and only the sums' last row (the shifted sums and the total
        weight) comes to the host."""
        xp = self.xp
        with np.errstate(all="ignore"):  # overflows are checked in `system`
            sums, shift = self._design_sums(rows, self.fit_intercept)
            last = np.asarray(to_host(sums[-1]))
            total = float(last[-1])
            if not self.fit_intercept:
                return _Moments(total, None, sums)
            if total == 0:
                return _Moments(0.0, None, None)
            offset = last[:-1] / total
            scaled = last * (-1.0 / total)
        add_products(sums, xp.asarray(scaled[None, :]), xp.asarray(last[None, :]))
        return _Moments(total, shift + offset, sums)

    def _sum_comoments(self, comoments: list):
        """:meth:`_RidgeMoments._sum_comoments` by a memcpy and gpuml's add
        kernel."""
        from gpuml import _cuda

        out = _cuda.copy(comoments[0])
        for comoment in comoments[1:]:
            args = (comoment, np.int64(1), np.int64(out.size), out)
            _cuda.launch("ridge", "add_blocks<double>", out.size, args)
        return out

    def _add_products(self, C, A, B) -> None:
        """:meth:`_RidgeMoments._add_products` by one cuBLAS GEMM."""
        add_products(C, self.xp.asarray(A), self.xp.asarray(B))

    def device_system(self, fold: int | None):
        """``(A, B, X_offset, y_offset, M)``: fold ``fold``'s system with
        ``A`` and ``B`` in X's dtype on the device (C-contiguous), the
        offsets on the host (float64) and ``M`` the fold's float64
        co-moments on the device, after :meth:`system`'s checks (made on
        the device)."""
        from gpuml import _cuda

        moments = self.fold_moments(fold)
        p, t = self.X.shape[1], self.Y.shape[1]
        if moments.total == 0 and self.fit_intercept:
            raise ValueError(SAMPLE_WEIGHTS_ZERO)
        M = moments.comoment
        dtype = self.X.dtype
        A = _cuda.cast_rows(M[:p, :p], dtype)
        B = _cuda.cast_rows(M[:p, p : p + t], dtype)
        if self.fit_intercept:
            X_offset, y_offset = moments.mean[:p], moments.mean[p : p + t]
        else:
            X_offset, y_offset = np.zeros(p), np.zeros(t)
        if _cuda.any_nonfinite(A) or _cuda.any_nonfinite(B):
            raise ValueError(NON_FINITE_SYSTEM)
        with np.errstate(over="ignore", invalid="ignore"):
            check_finite_system(X_offset, y_offset, xp=np)
        return A, B, X_offset, y_offset, M

    def system(self, fold: int | None):
        """:meth:`_RidgeMoments.system`'s float64 host arrays, from
        :meth:`device_system`."""
        from gpuml import _cuda

        _, _, X_offset, y_offset, M = self.device_system(fold)
        p, t = self.X.shape[1], self.Y.shape[1]
        A = to_host(_cuda.cast_rows(M[:p, :p], np.float64))
        B = to_host(_cuda.cast_rows(M[:p, p : p + t], np.float64))
        return A, B, X_offset, y_offset

    def __call__(self, fold: int, alphas):
        from gpuml import _cuda

        xp = self.xp
        A_t, B_t, X_offset, y_offset, M = self.device_system(fold)
        dtype = self.X.dtype
        p, t = B_t.shape
        k = alphas.shape[0]
        host_alphas = np.asarray(to_host(alphas), dtype=np.float64)
        # The eigendecomposition on the device (cuSOLVER), the shrinkage by
        # gpuml's kernel and two GEMMs: coefs (k * t, p) = S Vᵀ-rows.
        evals, V = device_eigh(A_t)
        host_evals = np.asarray(to_host(evals))  # p values, ascending
        if not _well_conditioned(host_evals, host_alphas, dtype):
            # Each alpha by Cholesky in float64: on the host for a small
            # system, on the device (cuSOLVER) for a large one.
            on = np if p <= _HOST_SOLVE_MAX else xp
            A = on.asarray(to_namespace(_cuda.cast_rows(M[:p, :p], np.float64), on))
            B = _cuda.cast_rows(M[:p, p : p + t], np.float64)
            B = on.asarray(to_namespace(B, on))
            coefs = _per_alpha_cholesky(A, B, host_alphas, on)
            coefs = to_host(coefs).transpose(0, 2, 1)  # (k, t, p), float64
            intercepts = y_offset[None, :] - coefs @ X_offset
            return (
                xp.asarray(coefs.astype(dtype)),
                xp.asarray(intercepts.astype(dtype)),
            )
        projected = V @ B_t  # (p, t)
        S = xp.empty((k * t, p), dtype=dtype)
        eps_p = np.dtype(dtype).type(p * np.finfo(dtype).eps)
        args = (evals, projected, _cuda.cast(alphas, dtype), np.int64(p))
        args += (np.int64(t), np.int64(k * t), eps_p, S)
        _cuda.launch("ridge", f"eigen_shrink<{_cuda.ctype(dtype)}>", S.size, args)
        coefs = S @ V  # (k * t, p)
        fitted = to_host(coefs @ xp.asarray(X_offset.astype(dtype)))  # (k * t,)
        intercepts = y_offset[None, :] - fitted.reshape(k, t)
        return coefs.reshape(k, t, p), xp.asarray(intercepts.astype(dtype))
