"""Small mixins shared by gpuml estimators (no metaclasses).

Fitted attributes live in the family of the training input: a model fitted on
NumPy holds NumPy arrays (it pickles and loads where there is no GPU), one
fitted on CuPy holds CuPy arrays. When a method computes in another namespace
than the one its attributes live in (a NumPy-trained model predicting on the
GPU), the converted copies are kept in a private cache so that each attribute
crosses the bus once, not at every call. The cache is dropped on pickling.
"""

from __future__ import annotations

import copy
from types import ModuleType

from gpuml._array import (
    DEVICE,
    HOST,
    input_family,
    namespace_of,
    to_family_attribute,
    to_namespace,
)
from gpuml._backend import is_cudf_strings


class DeviceCacheMixin:
    """Give an estimator ``_fitted(name, xp)``: a fitted attribute in ``xp``.

    Estimators call :meth:`_reset_device_cache` at the start of ``fit`` (so
    the cache exists before ``predict``, which must not add attributes).
    """

    def _reset_device_cache(self) -> None:
        self._gpuml_cache = {}

    def _fitted(self, name: str, xp: ModuleType):
        """Return fitted attribute ``name`` as an array of namespace ``xp``."""
        value = getattr(self, name)
        if not hasattr(value, "shape") or namespace_of(value) is xp:
            return value
        cache = self.__dict__.get("_gpuml_cache")
        if cache is None:
            return to_namespace(value, xp)
        hit = cache.get(name)
        # The cache is keyed by the attribute's identity, so a refit or a
        # user's assignment to the attribute invalidates it.
        if hit is not None and hit[0] is value and namespace_of(hit[1]) is xp:
            return hit[1]
        converted = to_namespace(value, xp)
        cache[name] = (value, converted)
        return converted

    def __getstate__(self):
        state = super().__getstate__()
        if "_gpuml_cache" in state:
            state = dict(state)
            state["_gpuml_cache"] = {}
        return state


def move_fitted_to_family(estimator, family: str) -> None:
    """Move a fitted gpuml estimator's public array attributes to ``family``.

    A search that fits its best candidate on device-resident copies of host
    data calls this so that ``best_estimator_`` holds what fitting it on the
    user's data would have given: NumPy attributes for NumPy input. Steps of
    a :class:`~sklearn.pipeline.Pipeline` are moved one by one; estimators
    that are not gpuml's are left alone (they were fitted on the user's own
    family to begin with). Attributes named in an estimator's class attribute
    ``_host_attributes`` stay on the host (the encoders' ``categories_``);
    private ones named in ``_family_attributes`` move too (KNNImputer's
    training data).
    """
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):
        for _, step in steps:
            move_fitted_to_family(step, family)
        return
    if not isinstance(estimator, DeviceCacheMixin):
        return
    for _, part, _ in _fitted_columns(estimator):  # a ColumnTransformer's
        move_fitted_to_family(part, family)
    host_only = getattr(estimator, "_host_attributes", ())
    private = getattr(estimator, "_family_attributes", ())
    for name, value in list(vars(estimator).items()):
        public = name.endswith("_") and not name.startswith("_")
        if not (public or name in private) or name in host_only:
            continue
        if isinstance(value, DeviceCacheMixin):  # a fitted sub-estimator
            move_fitted_to_family(value, family)  # (SimpleImputer's indicator_)
        elif hasattr(value, "shape"):
            setattr(estimator, name, to_family_attribute(value, family))
        elif isinstance(value, list) and any(hasattr(v, "shape") for v in value):
            # a list of arrays (CategoricalNB's per-feature counts)
            setattr(
                estimator,
                name,
                [
                    to_family_attribute(v, family) if hasattr(v, "shape") else v
                    for v in value
                ],
            )


def _fitted_columns(estimator) -> list:
    """A fitted ColumnTransformer's ``transformers_`` triples (name, fitted
    transformer, columns), else an empty list."""
    fitted = vars(estimator).get("transformers_")
    if _column_parts(estimator) is None or not isinstance(fitted, list):
        return []
    return fitted


def host_view(estimator):
    """``estimator`` as host code sees it: the object itself when none of its
    fitted arrays is device data, else a shallow copy whose fitted arrays
    (those of its sub-estimators and Pipeline steps too) are NumPy/SciPy.

    A foreign scorer (a scikit-learn scorer object, a user's callable) gets
    this view with host data: scikit-learn's scorers read ``classes_`` with
    NumPy, which refuses CuPy arrays. The estimator itself is not changed.
    """
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):
        viewed = [(name, host_view(step)) for name, step in steps]
        if all(new is old for (_, new), (_, old) in zip(viewed, steps, strict=True)):
            return estimator
        view = copy.copy(estimator)
        view.steps = viewed
        return view
    if not isinstance(estimator, DeviceCacheMixin):
        return estimator
    changed = {}
    fitted = _fitted_columns(estimator)  # a ColumnTransformer's transformers_
    viewed = [(name, host_view(part), columns) for name, part, columns in fitted]
    if any(new[1] is not old[1] for new, old in zip(viewed, fitted, strict=True)):
        changed["transformers_"] = viewed
    for name, value in vars(estimator).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        if isinstance(value, DeviceCacheMixin):
            moved = host_view(value)
        elif hasattr(value, "shape") and input_family(value) == DEVICE:
            moved = to_family_attribute(value, HOST)
        elif isinstance(value, list) and any(
            hasattr(v, "shape") and input_family(v) == DEVICE for v in value
        ):
            moved = [
                to_family_attribute(v, HOST) if hasattr(v, "shape") else v
                for v in value
            ]
        else:
            continue
        if moved is not value:
            changed[name] = moved
    if not changed:
        return estimator
    view = copy.copy(estimator)
    vars(view).update(changed)
    return view


def accepts_device_input(estimator, X=None) -> bool:
    """Whether ``estimator`` can be fed data held by the compute namespace.

    True for gpuml estimators (which compute where the device policy says
    and accept any family), for Pipelines made only of them (``None`` and
    ``"passthrough"`` steps aside) and for gpuml's ColumnTransformer whose
    transformers and remainder are all such (or ``"drop"``, ``"passthrough"``)
    and whose columns are picked by position (not by name or callable).
    scikit-learn's own estimators and any other object get host data. With
    ``X`` a cuDF string Series (documents on the device), also True for
    gpuml's text vectorizers, which read it there, and for Pipelines of
    gpuml estimators that start with one.
    """
    if X is not None and is_cudf_strings(X):
        return _reads_device_documents(estimator)
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):
        return all(
            step is None or step == "passthrough" or accepts_device_input(step)
            for _, step in steps
        )
    parts = _column_parts(estimator)
    if parts is not None:
        return _selects_by_position(estimator) and all(
            (isinstance(part, str) and part in ("drop", "passthrough"))
            or accepts_device_input(part)
            for part in parts
        )
    return isinstance(estimator, DeviceCacheMixin)


def _selects_by_position(estimator) -> bool:
    """Whether a ColumnTransformer picks every column by position (integers,
    slices of them, boolean masks): columns named by strings, and callables
    (``make_column_selector`` reads a DataFrame's names and dtypes), need the
    user's DataFrame, which device data would replace by an array."""
    for _, _, columns in estimator.transformers:
        if callable(columns) or isinstance(columns, str):
            return False
        if isinstance(columns, slice):
            if isinstance(columns.start, str) or isinstance(columns.stop, str):
                return False
            continue
        kind = getattr(getattr(columns, "dtype", None), "kind", None)
        if kind is not None:
            if kind in "OUS":
                return False
        elif any(isinstance(c, str) for c in columns):
            return False
    return True


def _column_parts(estimator):
    """The transformers and remainder of gpuml's ColumnTransformer (a
    :class:`DeviceCacheMixin` with a ``transformers`` list of triples), else
    None: it accepts device input when each of them does (``'drop'`` and
    ``'passthrough'`` included)."""
    transformers = getattr(estimator, "transformers", None)
    if not isinstance(estimator, DeviceCacheMixin) or not isinstance(
        transformers, list
    ):
        return None
    return [part for _, part, _ in transformers] + [
        getattr(estimator, "remainder", "drop")
    ]


def _reads_device_documents(estimator) -> bool:
    """Whether ``estimator`` reads a cuDF string Series on the device (see
    :func:`accepts_device_input`).

    An estimator declares it with the class attribute
    ``_reads_device_documents = True`` (gpuml's text vectorizers do), so that
    this module needs none of the families above it.
    """
    steps = getattr(estimator, "steps", None)
    if not isinstance(steps, list):
        return getattr(estimator, "_reads_device_documents", False) is True
    active = [step for _, step in steps if step is not None and step != "passthrough"]
    return (
        bool(active)
        and _reads_device_documents(active[0])
        and all(accepts_device_input(step) for step in active[1:])
    )


class NotSupported(ValueError):
    """Raised by a gpuml estimator's ``fit``, before it changes any state, for
    a setting that scikit-learn's class of the same name supports and gpuml's
    does not (yet): a ``ValueError`` whose message names scikit-learn's class
    as the fix. ``reason`` says what is not supported, in a few words
    (``"multi_class='crammer_singer'"``, the last one raised, before
    LinearSVC had that method).

    Under :func:`gpuml.install` (``python -m gpuml run``) the fit runs
    scikit-learn's own class instead, and the estimator takes its fitted
    attributes (``gpuml._accel``): raise it only where the estimator's other
    methods compute from scikit-learn's fitted attributes alone.
    """

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class BatchUnsupported(Exception):
    """Raised by an estimator's ``_fit_batch`` for data it cannot fit as a batch.

    The search then fits that group's candidates one by one, silently: this
    is a choice of method, not a failure.
    """
