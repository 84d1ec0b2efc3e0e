"""UMAP's layout: stochastic gradient descent over the graph's edges.

umap-learn's ``optimize_layout_euclidean``, made deterministic and
parallel. Each epoch, every head vertex walks its edges in order (CSR): an
edge due for a sample pulls the vertex toward the edge's tail, then the
edge's negative samples (random vertices) push it away, each move clipped
to 4 and scaled by the learning rate, which falls linearly over the epochs.
The vertex's own position changes as it goes (as umap-learn's ``current``);
every other position is read as it was when the part of the epoch began
(a fit's epoch runs in :data:`FIT_PARTS` parts, each a run of every
vertex's edges), so the result does not depend on the order in which
vertices are processed, while a move still reaches the neighbours within
the epoch. Read once per epoch (one part), the layout unfolded manifolds
less than umap-learn's sequential descent (issue 36). In a fit
the graph holds both directions of each edge; umap-learn moves both ends of
a sampled edge (``move_other``), so each end twice per period, where here
each end moves itself once, when its own direction is sampled: measured on
the CPU path against umap-learn 0.5.12 (trustworthiness, k=15), moving
once scored 0.836 on 20,000 points of issue 16's classification data
(umap-learn 0.822) and 0.988 on the digits (umap-learn 0.988), moving twice
0.817 and 0.986. Negative samples are
a hash of (seed, edge, epoch, sample), so a run repeats given its seed.

:func:`layout_device` runs one kernel launch per part of an epoch
(``gpuml/_cuda/umap.cu``: ``layout_epoch``, a thread per vertex);
:func:`layout_numpy` is the same algorithm on the host, vectorised over
vertices, one round of each vertex's due edges at a time (for small data and
the tests). It also takes another gradient than the euclidean one
(``LayoutSettings.gradient``): densMAP's (:mod:`~gpuml.manifold._umap_densmap`;
on the device too, kernel ``layout_epoch_densmap``) or an output metric's
(:mod:`~gpuml.manifold._umap_output_metric`; on the host even when a GPU
computes the rest, see :func:`layout`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuml import _cuda
from gpuml._backend import get_cupy


@dataclass(frozen=True)
class LayoutSettings:
    """What the gradient descent needs besides the graph: the curve's ``a``
    and ``b``, the repulsion ``gamma``, the first learning rate, negative
    samples per positive one, whether heads and tails are the same points
    (a fit) and the seed of the negative samples."""

    a: float
    b: float
    gamma: float
    initial_alpha: float
    negative_rate: float
    same_space: bool
    seed: int
    verbose: bool = False
    #: Another gradient than the euclidean one (densMAP's, or an output
    #: metric's): an object with ``start_epoch(embedding, epoch, n_epochs)``,
    #: ``attract(current, other, edges, heads, tails)`` and ``repel(current,
    #: other)`` (None: the euclidean one) returning clipped moves; such a
    #: layout runs on the host.
    gradient: object = None


def layout(xp, head, tail, indptr, keys, periods, n_epochs: int, settings):
    """:func:`layout_device` for device arrays (``xp`` CuPy), else
    :func:`layout_numpy`. A layout with another gradient than the
    euclidean one (``settings.gradient``: an output metric) runs
    :func:`layout_numpy` on the host, on host copies, and returns to ``xp``;
    densMAP's (``gradient.on_device``) runs on the device."""
    gradient = settings.gradient
    if gradient is not None and xp is not np and not getattr(gradient, "on_device", 0):
        from gpuml._array import to_host

        tail = None if tail is None else to_host(tail)
        host = (to_host(a) for a in (head, indptr, keys, periods))
        head, indptr, keys, periods = host
        run = layout_numpy(head, tail, indptr, keys, periods, n_epochs, settings)
        return xp.asarray(run)
    run = layout_numpy if xp is np else layout_device
    return run(head, tail, indptr, keys, periods, n_epochs, settings)


#: The layout kernel's largest embedding dimension.
MAX_DEVICE_COMPONENTS = 16

#: The parts of a fit's epoch: each vertex's edges are cut into this many
#: runs, and every position is read again between parts, so that a move
#: reaches a vertex's neighbours within the epoch, as in umap-learn's
#: sequential descent (issue 36: on 10,000 points of 3-D manifolds, CPU,
#: trustworthiness k=15, one part scored 0.9879 on a swiss roll, 0.9957 on
#: an S curve, 0.9860 on a sphere; four parts 0.9985, 0.9990, 0.9982;
#: umap-learn 0.9993, 0.9992, 0.9827). Fits of at most
#: :data:`ONE_PART_UP_TO` points, whose graphs are small, run one part: on
#: the digits (1,797 points, 500 epochs) four parts scored 0.9879 against
#: 0.9867 and cost 0.1 s more on an H100 (three times the kernel launches).
FIT_PARTS = 4
ONE_PART_UP_TO = 4096


def _parts(tail, n_heads: int) -> int:
    """Parts of an epoch: :data:`FIT_PARTS` in a fit of more than
    :data:`ONE_PART_UP_TO` points; one in a smaller fit, and in a transform,
    whose tails do not move (several would change nothing)."""
    return FIT_PARTS if tail is None and n_heads > ONE_PART_UP_TO else 1


_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def learning_rates(initial: float, n_epochs: int) -> list[float]:
    """umap-learn's rate per epoch: the initial one for the first two, then
    ``initial * (1 - (epoch - 1) / n_epochs)``."""
    return [
        initial if n == 0 else initial * (1.0 - (n - 1) / n_epochs)
        for n in range(n_epochs)
    ]


def _report(verbose: bool, epoch: int, n_epochs: int) -> None:
    if verbose and (epoch + 1) % max(1, n_epochs // 10) == 0:
        print(f"\tcompleted {epoch + 1} / {n_epochs} epochs", flush=True)


def layout_numpy(
    head,
    tail,
    indptr,
    keys,
    periods,
    n_epochs: int,
    settings: LayoutSettings,
):
    """The layout on the host: ``head`` (moving, float32 (n_heads, dim)) after
    ``n_epochs``; ``tail`` is the fixed embedding of a transform, or None in
    a fit (the heads are their own tails)."""
    head = np.array(head, dtype=np.float32, order="C")
    n_heads = head.shape[0]
    degree = np.diff(indptr)
    edge_head = np.repeat(np.arange(n_heads), degree)
    parts = _parts(tail, n_heads)
    # each edge's part: its slot among its vertex's edges, cut in ``parts`` runs
    slot = np.arange(edge_head.shape[0]) - np.repeat(indptr[:-1], degree)
    edge_part = np.zeros(edge_head.shape[0], dtype=np.int64)
    for part in range(1, parts):
        edge_part[slot >= np.repeat(degree * part // parts, degree)] = part
    state = _HostEdges(
        edge_head=edge_head,
        keys=keys,
        periods=periods,
        next_sample=periods.copy(),
        next_negative=periods / np.float32(settings.negative_rate),
        n_tails=head.shape[0] if tail is None else tail.shape[0],
        settings=settings,
        seed64=np.uint64(settings.seed & 0xFFFFFFFFFFFFFFFF),
    )
    sampled = periods > 0
    for epoch, alpha in enumerate(learning_rates(settings.initial_alpha, n_epochs)):
        due = sampled & (state.next_sample <= epoch)
        if settings.gradient is not None:
            settings.gradient.start_epoch(head, epoch, n_epochs)
        for part in range(parts):
            others = head.copy() if tail is None else tail
            in_part = np.flatnonzero(due & (edge_part == part))
            _layout_part(head, others, in_part, state, epoch, np.float32(alpha))
        _report(settings.verbose, epoch, n_epochs)
    return head


@dataclass
class _HostEdges:
    """What the host layout's parts share: the edges' heads, keys and
    periods, their sampling schedules (updated in place), the number of
    tails, the settings and the 64-bit seed."""

    edge_head: np.ndarray
    keys: np.ndarray
    periods: np.ndarray
    next_sample: np.ndarray
    next_negative: np.ndarray
    n_tails: int
    settings: LayoutSettings
    seed64: np.uint64


def _layout_part(head, others, due, edges: _HostEdges, epoch: int, alpha):
    """One part of an epoch on the host: the ``due`` edges, each vertex's in
    CSR order, moving ``head`` in place; tails read from ``others``."""
    settings, n_tails, seed64 = edges.settings, edges.n_tails, edges.seed64
    edge_head, keys, periods = edges.edge_head, edges.keys, edges.periods
    next_sample, next_negative = edges.next_sample, edges.next_negative
    a32, b32 = np.float32(settings.a), np.float32(settings.b)
    g32 = np.float32(settings.gamma)
    negative_rate, same_space = settings.negative_rate, settings.same_space
    gradient = settings.gradient
    repel = None if gradient is None else gradient.repel
    for e in _due_slots(due, edge_head):
        # the r-th due edge of each vertex that has one, in CSR order
        v, period = edge_head[e], periods[e]
        current = head[v]
        u = keys[e] - v * n_tails
        other = others[u]
        if gradient is None:
            step = attract_euclidean(current, other, a32, b32) * alpha
        else:
            step = gradient.attract(current, other, e, v, u) * alpha
        current = current + step
        next_sample[e] += period
        negative_period = period / np.float32(negative_rate)
        n_negative = ((np.float32(epoch) - next_negative[e]) / negative_period).astype(
            np.int64
        )
        salt = (e.astype(np.uint64) << np.uint64(20)) ^ (
            np.uint64(epoch) << np.uint64(8)
        )
        for p in range(int(n_negative.max(initial=0))):
            live = p < n_negative
            draw = _mix64(seed64 ^ _mix64(salt ^ np.uint64(p)))
            k = (draw % np.uint64(n_tails)).astype(np.int64)
            if same_space:
                live &= k != v
            if repel is not None:
                step = np.where(live[:, None], repel(current, others[k]), 0)
                current = current + step * alpha
                continue
            diff = current - others[k]
            dist2 = (diff * diff).sum(axis=1)
            live &= dist2 > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                coeff = (
                    np.float32(2.0)
                    * g32
                    * b32
                    / ((np.float32(0.001) + dist2) * (a32 * np.power(dist2, b32) + 1))
                ).astype(np.float32)
            coeff = np.where(live, coeff, np.float32(0))
            current = current + np.clip(coeff[:, None] * diff, -4, 4) * alpha
        next_negative[e] += n_negative.astype(np.float32) * negative_period
        head[v] = current


def attract_euclidean(current, other, a32, b32):
    """The euclidean layout's clipped moves of ``current`` toward ``other``
    (float32 rows), before the learning rate."""
    diff = current - other
    dist2 = (diff * diff).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        coeff = np.where(
            dist2 > 0,
            np.float32(-2.0)
            * a32
            * b32
            * np.power(dist2, b32 - np.float32(1))
            / (a32 * np.power(dist2, b32) + np.float32(1)),
            np.float32(0),
        ).astype(np.float32)
    return np.clip(coeff[:, None] * diff, -4, 4)


def _due_slots(due: np.ndarray, edge_head: np.ndarray):
    """The due edges (CSR order) in rounds: round r holds each vertex's r-th
    due edge, so that a vertex meets its edges in order, as the kernel's
    thread walks them, while each round is one vectorised step."""
    if due.shape[0] == 0:
        return []
    heads = edge_head[due]
    first = np.ones(due.shape[0], dtype=bool)
    first[1:] = heads[1:] != heads[:-1]
    positions = np.arange(due.shape[0])
    rank = positions - np.maximum.accumulate(np.where(first, positions, 0))
    order = np.argsort(rank, kind="stable")
    bounds = np.flatnonzero(np.diff(rank[order])) + 1
    return np.split(due[order], bounds)


def layout_device(
    head,
    tail,
    indptr,
    keys,
    periods,
    n_epochs: int,
    settings: LayoutSettings,
):
    """The layout on the device (one kernel per epoch); arguments as
    :func:`layout_numpy`'s, device arrays."""
    negative_rate = settings.negative_rate
    cupy = get_cupy()
    current = cupy.asarray(head, dtype=np.float32)
    if current.flags.c_contiguous:  # a copy (a memcpy: no kernel to compile)
        current = _cuda.copy(current) if current is head else current
    else:
        current = cupy.ascontiguousarray(current)  # the kernel reads rows
    n_heads, dim = current.shape
    spare = cupy.empty_like(current)
    n_tails = n_heads if tail is None else tail.shape[0]
    m = periods.shape[0]
    next_sample = cupy.empty_like(periods)
    next_negative = cupy.empty_like(periods)
    args = (periods, np.int64(m), np.float32(negative_rate), next_sample, next_negative)
    _cuda.launch("umap", "layout_start", m, args)
    kernel = _cuda.kernel("umap", "layout_epoch")
    blocks = _cuda.grid(n_heads)
    constants = (np.int64(n_heads), np.int64(n_tails), np.int32(dim))
    rates = learning_rates(settings.initial_alpha, n_epochs)
    ab = (np.float32(settings.a), np.float32(settings.b), np.float32(settings.gamma))
    parts = _parts(tail, n_heads)
    gradient = settings.gradient  # densMAP's, or None
    for epoch, alpha in enumerate(rates):
        extra = None
        if gradient is not None:  # the density term's arguments, or None
            extra = gradient.device_terms(
                current, indptr, keys, periods, epoch, n_epochs
            )
        for part in range(parts):
            tails = current if tail is None else tail
            args = (
                current,
                tails,
                spare,
                indptr,
                keys,
                periods,
                next_sample,
                next_negative,
            )
            args += (*constants, np.int32(epoch), np.float32(alpha), *ab)
            args += (np.float32(negative_rate), np.int32(settings.same_space))
            args += (np.uint64(settings.seed), np.int32(part), np.int32(parts))
            if extra is None:
                kernel(blocks, (_cuda.THREADS,), args)
            else:
                densmap = _cuda.kernel("umap_densmap", "layout_epoch_densmap")
                densmap(blocks, (_cuda.THREADS,), args + extra)
            current, spare = spare, current
        _report(settings.verbose, epoch, n_epochs)
    return current
