"""Truncated prefixes: one decomposition per fold for every ``n_components``.

In a search over a Pipeline whose prefix holds an exact decomposition (PCA
with an exact solver, TruncatedSVD with ``algorithm='arpack'``), candidates
that differ only in that step's ``n_components`` need not decompose each
fold once per value: the fit with fewer components is the first rows of the
fit with more. A transformer opts in with two methods:

``_truncation_params(self) -> frozenset[str]``
    The parameters (of its current configuration) whose smaller values give
    a truncation of the fit at a larger value; empty when none do.

``_truncated(self, **params)`` (on a fitted transformer)
    The fitted transformer as a fit with those (smaller) values would leave
    it, without fitting again, whose ``transform`` output is the leading
    ``_n_features_out`` columns of this one's. It raises the error that fit
    would raise (an ``n_components`` too large for ``'arpack'``), and
    :class:`~gpuml.base.BatchUnsupported` where that fit would be no
    truncation (PCA's ``'auto'`` choosing ``'randomized'`` for it).

The search (``_search._units``) puts the prefixes that differ only in the
first such step's truncation parameters into one unit, its Pipeline
configured with their largest values; :func:`evaluate_truncated_unit`
evaluates each prefix's groups as
:func:`~gpuml.model_selection._tasks.evaluate_pipeline_groups` does, with a
prefix fitter that, on each fold, fits the steps up to the decomposition
once (at the largest values), keeps the first columns of its output for each
smaller value, and fits the steps after it per value. Where sharing is not
possible (fit parameters routed to the prefix, a non-array output), or the
shared fit fails (the largest value invalid for the data), each prefix is
fitted on its own, as without this module.
"""

from __future__ import annotations

from numbers import Integral

from sklearn.base import clone

from gpuml.base import BatchUnsupported

_FAILED = object()  # the shared fit of a fold failed: fit each prefix alone


def truncation_point(pipeline, *, is_prefix: bool = False):
    """``(index, name, {param: value})`` of the first step before the final
    one (any step, for a prefix) declaring truncation parameters with
    integer values, or None."""
    steps = pipeline.steps if is_prefix else pipeline.steps[:-1]
    for index, (name, step) in enumerate(steps):
        names = getattr(step, "_truncation_params", lambda: frozenset())()
        if not names:
            continue
        values = step.get_params(deep=False)
        if all(
            isinstance(values[p], Integral) and not isinstance(values[p], bool)
            for p in names
        ):
            return index, name, {p: values[p] for p in names}
        return None
    return None


def shared_prefix_key(pipeline, prefix_fixed: dict) -> tuple[dict, dict]:
    """``(shared, truncation)``: the prefix parameters that must be equal for
    prefixes to share a decomposition, and its truncation parameters
    (search-level names), empty when the prefix has no truncation point."""
    point = truncation_point(pipeline)
    if point is None:
        return prefix_fixed, {}
    _, name, values = point
    names = {f"{name}__{p}" for p in values}
    shared = {k: v for k, v in prefix_fixed.items() if k not in names}
    return shared, {f"{name}__{p}": v for p, v in values.items()}


def largest(pipelines: list):
    """The truncation parameters, at their largest values over ``pipelines``
    (configured prefixes sharing a key), by search-level name."""
    out: dict = {}
    for pipeline in pipelines:
        _, name, values = truncation_point(pipeline)
        for p, v in values.items():
            key = f"{name}__{p}"
            out[key] = max(out.get(key, v), v)
    return out


def _value(pipeline) -> tuple:
    point = truncation_point(pipeline)
    return () if point is None else tuple(sorted(point[2].items()))


def split_by_value(pipeline, groups: list, search_estimator) -> list:
    """``[(configured pipeline, groups)]``: the unit's groups by their value
    of the truncation parameters, largest first."""
    name = pipeline.steps[-1][0]
    by_value: dict = {}
    for group in groups:
        prefix_fixed = {
            k: v
            for k, v in group.fixed.items()
            if k != name and not k.startswith(f"{name}__")
        }
        configured = clone(search_estimator).set_params(
            **clone(prefix_fixed, safe=False)
        )
        entry = by_value.setdefault(_value(configured), (configured, []))
        entry[1].append(group)
    return [by_value[key] for key in sorted(by_value, reverse=True)]


class SharedDecomposition:
    """The prefix fitter of one unit: per fold, the steps up to the
    decomposition fitted once at ``source`` (the unit's Pipeline, at the
    largest values), then truncated per value."""

    def __init__(self, source, fit_prefix, n_prefixes: int):
        self.source = source
        self.fit_prefix = fit_prefix  # the unshared fitter (_tasks._fit_prefix)
        self.n_prefixes = n_prefixes  # each asks for every fold once
        self.folds: dict = {}
        self.asked: dict = {}

    def __call__(self, prefix, lead, view, indices, X_pair, y_train, fit_params):
        index, name, values = truncation_point(prefix, is_prefix=True)
        shared = (
            None if fit_params else self._shared(lead, view, indices, X_pair, y_train)
        )
        if shared is None:
            return self.fit_prefix(
                prefix, lead, view, indices, X_pair, y_train, fit_params
            )
        head, H_train, H_test = shared
        try:
            truncated = head.steps[-1][1]._truncated(**values)
        except BatchUnsupported:
            return self.fit_prefix(
                prefix, lead, view, indices, X_pair, y_train, fit_params
            )
        k = truncated._n_features_out
        Xt_train, Xt_test = H_train[:, :k], H_test[:, :k]
        fitted = clone(prefix)
        rest = []
        if len(prefix.steps) > index + 1:
            tail = fitted[index + 1 :]
            Xt_train = tail.fit_transform(Xt_train, y_train)
            Xt_test = tail.transform(Xt_test)
            rest = tail.steps
        fitted.steps = [*head.steps[:-1], (name, truncated), *rest]
        return fitted, Xt_train, Xt_test

    def _shared(self, lead, view, indices, X_pair, y_train):
        """The fold's ``(fitted head, head output on train, on test)``, fitted
        on the first call for the fold; None where it cannot be shared."""
        key = indices[0].tobytes()
        self.asked[key] = self.asked.get(key, 0) + 1
        if self.asked[key] == self.n_prefixes:  # the fold's last prefix
            found = self.folds.pop(key, None)
            if found is not None:
                return None if found is _FAILED else found
        found = self.folds.get(key)
        if found is None:
            index, _, _ = truncation_point(self.source)
            head = self.source[: index + 1]
            try:
                found = self.fit_prefix(head, lead, view, indices, X_pair, y_train, {})
            except Exception:
                found = _FAILED  # each prefix meets its own error alone
            else:
                if not all(_sliceable(H) for H in found[1:]):
                    found = _FAILED
            self.folds[key] = found
        return None if found is _FAILED else found


def _sliceable(H) -> bool:
    """A NumPy or CuPy 2-d array (columns sliced as ``H[:, :k]``)."""
    module = type(H).__module__.partition(".")[0]
    return module in ("numpy", "cupy") and getattr(H, "ndim", 0) == 2
