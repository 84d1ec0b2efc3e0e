"""Small mixins shared by gpuml estimators (no metaclasses).

Fitted attributes live in the family of the training input: a model fitted on
NumPy holds NumPy arrays (it pickles and loads where there is no GPU), one
fitted on CuPy holds CuPy arrays. When a method computes in another namespace
than the one its attributes live in (a NumPy-trained model predicting on the
GPU), the converted copies are kept in a private cache so that each attribute
crosses the bus once, not at every call. The cache is dropped on pickling.
"""

from __future__ import annotations

from types import ModuleType

from gpuml._array import namespace_of, to_namespace


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
