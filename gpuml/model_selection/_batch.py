"""The batched-candidates protocol, and how a search groups its candidates.

An estimator opts in to batched fitting with two methods:

``_batch_params(self) -> frozenset[str]``
    The parameters whose values may differ within one batch (Ridge:
    ``{"alpha"}``; empty when the current configuration cannot batch).

``_fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None)``
    Fit one model per dict of ``param_sets`` (values of the batch
    parameters; every other parameter is the estimator's own) on the
    training rows of each fold (host NumPy int64 index arrays, which the
    estimator moves to the device where it needs them there: Ridge's
    statistics only read which rows each fold has; ``None`` means one fit
    on all rows). ``X`` and ``y`` are the whole data
    in the compute namespace. Returns an iterator with one *batch model* per
    fold, so an estimator can share work across folds (Ridge's Gram
    statistics; LogisticRegression's joint optimisation). It raises if any
    candidate's own ``fit`` would, and raises
    :class:`~gpuml.base.BatchUnsupported` to decline data it cannot batch.
    A candidate's model must not depend on the other candidates of its
    batch: the search may split a batch (see **Memory**, below).

A batch model has ``len(model) == len(param_sets)`` and the response methods
of the estimator (``predict``, and for classifiers ``classes_`` with
``decision_function`` / ``predict_proba`` / ``predict_log_proba``), each
returning the candidates' responses stacked on a leading axis:
``(k, n_samples)`` or ``(k, n_samples, n_columns)``. The batched scorers of
:mod:`gpuml.metrics` score such a stack in one reduction.

Optionally, a class attribute ``_batch_cost_per_candidate = True`` says
that a batch costs about the sum of its candidates' fits
(LogisticRegression: one L-BFGS iterate per ``C``), so that a Dask search
may split a batch into sub-batches to keep every worker busy; without it
(Ridge: one factorisation per fold serves every ``alpha``) a batch is not
split to spread work, since splitting would repeat its shared work (only
to fit in memory, below).

The search groups candidates that differ only in batch parameters (of the
estimator, or of a Pipeline's final step), fits each group with one
``_fit_batch`` and scores it with one batched scorer call per metric.
Everything else is fitted one by one.

**Memory.** A batch model's stacked responses take ``k * n_samples *
n_columns`` values per fold, a few times over while they are scored (the
product's output, the response, the scorer's temporaries), and that is what
grows with the grid: the fits' own memory rarely does (Ridge keeps ``k``
coefficient vectors). So a group is fitted in batches of at most
:func:`candidates_per_batch` candidates, the number whose scoring fits a
share of the memory left where the search computes
(:func:`memory_budget`: the device's free memory and CuPy's pooled bytes on
a GPU; on the host the least of the available memory, a cgroup's limit less
its usage, and the address-space limit less the process's size). A batch
that still runs out of memory (``MemoryError``, which CuPy's
``OutOfMemoryError`` is, or a CUDA library's allocation failure) is retried
with half its candidates, down to one, then one fold at a time; only a
batch of one candidate on one fold that fails is fitted one by one. The
folds a batch scored before it failed are kept, and the records are those an
unsplit batch would give (each candidate's model does not depend on the
others of its batch).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.base import clone, is_regressor

from gpuml._array import namespace_of
from gpuml._labels import distinct_integer_labels
from gpuml.metrics._scorer import (
    MultimetricScorer,
    Scorer,
    binary_response,
    get_scorer,
    response_method_of,
)


def final_step(estimator):
    """``(name, step)`` of a Pipeline's last step, or ``(None, estimator)``."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        return steps[-1]
    return None, estimator


def cost_per_candidate(estimator) -> bool:
    """Whether a batch of the estimator (or its final step) costs about the
    sum of its candidates' fits (see the protocol above)."""
    return bool(getattr(final_step(estimator)[1], "_batch_cost_per_candidate", False))


def is_pipeline(estimator) -> bool:
    return final_step(estimator)[0] is not None


def batch_param_names(estimator) -> frozenset:
    """Search-level names of the parameters ``estimator`` can batch over."""
    name, step = final_step(estimator)
    if not hasattr(step, "_fit_batch") or not hasattr(step, "_batch_params"):
        return frozenset()
    names = step._batch_params()
    return frozenset(names if name is None else (f"{name}__{p}" for p in names))


def _value_key(value):
    """A key under which equal parameter values compare equal."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)


@dataclass
class Group:
    """Candidates sharing every parameter but batch ones.

    ``fixed`` is set on the estimator; ``members`` lists ``(index, params)``
    with the candidate's full parameters; ``batch_names`` are the parameter
    names varying inside the group (empty: fit one by one).
    """

    fixed: dict
    members: list = field(default_factory=list)
    batch_names: frozenset = frozenset()

    @property
    def batched(self) -> bool:
        return bool(self.batch_names)

    def param_sets(self, members: list | None = None) -> list[dict]:
        """The batch parameters of ``members`` (default: all the group's), by
        their names on the final step."""
        return [
            {name.rsplit("__", 1)[-1]: params[name] for name in self.batch_names}
            for _, params in (self.members if members is None else members)
        ]


def group_candidates(estimator, candidates: list[dict]) -> list[Group]:
    """Group candidates that one ``_fit_batch`` can fit together.

    Candidates are grouped by their non-batch parameters (in order of first
    appearance); a group is batched when its configured estimator declares
    all of its varying parameters batchable.
    """
    names = batch_param_names(estimator)
    groups: dict = {}
    for index, params in enumerate(candidates):
        fixed = {k: v for k, v in params.items() if k not in names}
        key = tuple(sorted((k, _value_key(v)) for k, v in fixed.items()))
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(fixed)
        group.members.append((index, params))
    for group in groups.values():
        varying = frozenset(group.members[0][1]) - frozenset(group.fixed)
        if not varying or any(
            set(p) != set(group.members[0][1]) for _, p in group.members
        ):
            continue  # nothing to batch, or one grid dict with different keys
        configured = clone(estimator).set_params(**clone(group.fixed, safe=False))
        if varying <= batch_param_names(configured):
            group.batch_names = varying
    return list(groups.values())


@dataclass
class BatchScoring:
    """How a group's stacked responses are scored.

    ``scorers`` maps each metric's name to a :class:`~gpuml.metrics.Scorer`;
    ``multimetric`` says whether the search's scorer is a
    :class:`~gpuml.metrics._scorer.MultimetricScorer` (its records are then
    ``{name: score}`` dicts, and its metadata are shared out as it does).
    """

    scorers: dict
    multimetric: bool

    @property
    def needs_y(self) -> bool:
        """Whether a metric compares with targets (all but an estimator's
        own unsupervised score, such as KMeans's)."""
        return any(getattr(s, "needs_y", True) for s in self.scorers.values())

    def metadata(self, score_params: dict) -> dict:
        """``{name: metadata}``: each metric's share of a fold's metadata."""
        if not self.multimetric:
            return {name: score_params for name in self.scorers}
        return MultimetricScorer(scorers=self.scorers).route(score_params)


def batch_scorers(scorer, estimator) -> BatchScoring | None:
    """How to score stacked responses, or None if impossible.

    gpuml :class:`~gpuml.metrics.Scorer` objects score stacks of responses
    (batched on the device for gpuml metrics); ``scoring=None`` means the
    estimator's ``score``, which for batchable estimators is R² (regressors)
    or accuracy (classifiers), or the scorer the class names as
    ``_batch_passthrough_scorer`` (KMeans: minus the inertia, which needs
    no targets). Any other scorer callable needs a fitted
    estimator object per candidate, so the group is fitted one by one.
    """
    if isinstance(scorer, MultimetricScorer):
        scorers = scorer._scorers
        if all(isinstance(s, Scorer) for s in scorers.values()):
            return BatchScoring(dict(scorers), multimetric=True)
        return None
    if isinstance(scorer, Scorer):
        return BatchScoring({"score": scorer}, multimetric=False)
    if type(scorer).__name__ == "_PassthroughScorer":
        _, step = final_step(estimator)
        own = getattr(step, "_batch_passthrough_scorer", None)
        if own is not None:  # a score other than R² or accuracy (KMeans)
            return BatchScoring({"score": own()}, multimetric=False)
        metric = get_scorer("r2" if is_regressor(step) else "accuracy")
        return BatchScoring({"score": metric}, multimetric=False)
    return None


def batch_response(model, X, scorer: Scorer, estimator):
    """The stacked response ``scorer`` needs, post-processed like scikit-learn.

    :func:`gpuml.metrics.response_values` on a leading candidate axis: the
    same method lookup and the same binary post-processing.
    """
    name, method = response_method_of(model, scorer._response_method, estimator)
    y_pred = method(X)
    _, step = final_step(estimator)
    if is_regressor(step) or not hasattr(model, "classes_"):
        return y_pred
    return binary_response(
        y_pred, name, model.classes_, scorer._pos_label(), stacked=True
    )


# --------------------------------------------------------------------------
# Memory: how many candidates one batch takes
# --------------------------------------------------------------------------

# Share of the memory left where the search computes that the stacked
# responses of one batch, and their scoring, may take.
MEMORY_FRACTION = 0.5
# Copies of a batch's stacked responses alive at once while they are formed
# and scored (measured on the host: the product's output and the response
# with its intercepts, then the response and the scorer's temporaries).
RESPONSE_COPIES = 3
# Bytes per stacked value: scorers compute in float64 whatever the response.
_VALUE_BYTES = 8


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` says that an allocation failed.

    ``MemoryError`` covers NumPy's and CuPy's (``cupy.cuda.memory.
    OutOfMemoryError`` derives from it); cuBLAS and cuSOLVER report a failed
    workspace allocation as their own error, named by its status.
    """
    if isinstance(exc, MemoryError):
        return True
    module = type(exc).__module__.partition(".")[0]
    if module not in ("cupy", "cupy_backends", "cupyx"):
        return False
    text = str(exc)
    return "ALLOC_FAILED" in text or "cudaErrorMemoryAllocation" in text


def memory_budget(xp) -> int | None:
    """Bytes that one batch's stacked responses and scoring may take.

    :data:`MEMORY_FRACTION` of the memory left where ``xp`` computes: on a
    GPU (``xp`` is CuPy) the device's free memory plus the bytes CuPy's
    memory pool holds unused; on the host :func:`host_memory_left`. None when
    unknown (no limit is then applied up front).
    """
    if xp is not None and xp is not np:
        free, _ = xp.cuda.Device().mem_info
        left = free + xp.get_default_memory_pool().free_bytes()
    else:
        left = host_memory_left()
    return None if left is None else int(left * MEMORY_FRACTION)


def host_memory_left() -> int | None:
    """Bytes this process may still allocate on the host, or None if unknown.

    The least of: the system's available memory (``MemAvailable``, or
    psutil's, or free pages from ``os.sysconf``); for each cgroup the process
    is in, v2 (``memory.max``) or v1 (``memory.limit_in_bytes``), its limit
    less its usage (less the inactive file cache, which the kernel reclaims
    first) — under a cgroup's limit the process is killed rather than given a
    ``MemoryError``; and the address-space limit (``ulimit -v``, ``prlimit
    --as``) less the process's virtual size.
    """
    bounds = [_available_memory(), *_cgroup_memory_left(), _address_space_left()]
    bounds = [b for b in bounds if b is not None]
    return max(0, min(bounds)) if bounds else None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def _available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_memory_left(
    root: Path = Path("/sys/fs/cgroup"), membership: Path = Path("/proc/self/cgroup")
) -> list[int]:
    """Limit less usage of each memory cgroup of this process (listed in
    ``membership``) and its ancestors (a nested limit can be the tighter
    one), from the cgroup file systems under ``root``."""
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return []
    left = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # cgroup v2
            base, names = root, ("memory.max", "memory.current", "inactive_file")
        elif "memory" in controllers.split(","):  # cgroup v1
            base = root / "memory"
            names = ("memory.limit_in_bytes", "memory.usage_in_bytes")
            names += ("total_inactive_file",)
        else:
            continue
        directory = base / path.lstrip("/")
        while True:
            limit = _read_int(directory / names[0])
            usage = _read_int(directory / names[1])
            # v1 reports "no limit" as a huge number (2**63 rounded to pages).
            if limit is not None and usage is not None and limit < 1 << 62:
                left.append(limit - usage + _stat(directory, names[2]))
            if directory == base or base not in directory.parents:
                break
            directory = directory.parent
    return left


def _stat(directory: Path, key: str) -> int:
    try:
        for line in (directory / "memory.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _address_space_left() -> int | None:
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return soft - pages * os.sysconf("SC_PAGE_SIZE")


def candidates_per_batch(
    n_candidates: int, n_rows: int, n_columns: int, budget: int | None
) -> int:
    """How many candidates one batch takes: all of them, or as many as have
    their stacked responses on ``n_rows`` samples (``n_columns`` values each)
    scored within ``budget`` bytes, at least one."""
    if budget is None:
        return n_candidates
    per_candidate = RESPONSE_COPIES * _VALUE_BYTES * max(n_rows, 1) * n_columns
    return max(1, min(n_candidates, budget // per_candidate))


def response_columns(estimator, y) -> int:
    """Values per sample in a batch's stacked responses: one per target for
    a regressor, one per class for a classifier (``predict_proba``,
    ``decision_function``)."""
    _, step = final_step(estimator)
    shape = getattr(y, "shape", (0,))
    n_outputs = shape[1] if len(shape) == 2 else 1
    if is_regressor(step):
        return n_outputs
    if len(shape) == 2:
        return 2 * n_outputs
    xp = namespace_of(y)
    if xp is not np:
        # integer labels counted by gpuml's kernels: no sort to compile
        distinct = distinct_integer_labels(y, xp)
        if distinct is not None:
            return max(2, distinct.shape[0])
    try:
        return max(2, int(xp.unique(y).shape[0]))
    except Exception:  # labels that no namespace sorts: a binary guess
        return 2
