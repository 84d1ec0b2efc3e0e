"""The only module that imports CuPy, lazily, and the device detection.

``import gpuml`` must not import CuPy (it costs a second and a CUDA context);
everything here defers the import to the first call that needs it and caches
the answer. Arrays are recognised as device arrays from their type's module
name or the CUDA interchange protocols, which needs no import either.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from types import ModuleType

from gpuml._config import get_config

_INSTALL_CUPY = (
    "Install CuPy for your CUDA version (pip install 'gpuml[cuda13]' or "
    "'gpuml[cuda12]')"
)
_INSTALL_HINT = (
    f"{_INSTALL_CUPY}, or compute on the CPU with gpuml.set_config(device='cpu') "
    "or the environment variable GPUML_DEVICE=cpu."
)


class NoGPUError(RuntimeError):
    """Raised when the GPU was asked for (``device="gpu"``) and none is usable.

    Its message says why (no CuPy, no CUDA device, a driver error) and names
    the fixes: install the CUDA extra, or compute on the CPU.

    Examples
    --------
    >>> import gpuml
    >>> try:
    ...     with gpuml.config_context(device="gpu"):
    ...         gpuml.resolve_device()
    ... except gpuml.NoGPUError as error:
    ...     print("no GPU:", "device='cpu'" in str(error))
    ... else:
    ...     print("a GPU is usable")  # doctest: +SKIP
    no GPU: True
    """


@functools.cache
def _probe_cupy() -> tuple[ModuleType | None, str]:
    """Import CuPy and look for a CUDA device, once per process."""
    if importlib.util.find_spec("cupy") is None:
        return None, "CuPy is not installed"
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # a broken CUDA install raises many kinds of error
        return None, f"CuPy failed to import ({type(exc).__name__}: {exc})"
    try:
        n_devices = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return None, f"CuPy found no usable CUDA device ({type(exc).__name__}: {exc})"
    if n_devices < 1:
        return None, "CuPy found no CUDA device"
    return cupy, ""


def gpu_available() -> bool:
    """Return True when CuPy imports and at least one CUDA device is usable."""
    return _probe_cupy()[0] is not None


def get_cupy() -> ModuleType:
    """Return the ``cupy`` module, or raise :class:`NoGPUError` naming the fix."""
    cupy, reason = _probe_cupy()
    if cupy is None:
        raise NoGPUError(f"gpuml needs a CUDA GPU here, but {reason}. {_INSTALL_HINT}")
    return cupy


def resolve_device() -> str:
    """Return ``"gpu"`` or ``"cpu"``: where the current configuration computes.

    ``device="auto"`` resolves to ``"gpu"`` when CuPy imports and a CUDA
    device is usable (probed once per process, which imports CuPy).

    Raises
    ------
    NoGPUError
        When ``device="gpu"`` is set and no GPU is usable.

    Examples
    --------
    >>> import gpuml
    >>> with gpuml.config_context(device="cpu"):
    ...     gpuml.resolve_device()
    'cpu'
    """
    device = get_config()["device"]
    if device == "cpu":
        return "cpu"
    if device == "gpu":
        cupy, reason = _probe_cupy()
        if cupy is None:
            raise NoGPUError(
                f"gpuml was asked to compute on the GPU (device='gpu'), but "
                f"{reason}. {_INSTALL_HINT}"
            )
        return "gpu"
    return "gpu" if gpu_available() else "cpu"


def _type_module(obj: object) -> str:
    return type(obj).__module__.partition(".")[0]


def is_cupy_object(obj: object) -> bool:
    """True for CuPy arrays and cupyx sparse matrices (no import needed)."""
    return _type_module(obj) in ("cupy", "cupyx")


def is_cudf_object(obj: object) -> bool:
    """True for cuDF DataFrames, Series and Index objects (duck-typed)."""
    return _type_module(obj) == "cudf"


def is_cudf_strings(obj: object) -> bool:
    """True for a cuDF Series of strings (cuDF's ``.str`` accessor exists for
    string columns only)."""
    if not is_cudf_object(obj) or getattr(obj, "ndim", 2) != 1:
        return False
    try:
        obj.str  # noqa: B018
    except (AttributeError, TypeError):
        return False
    return True


def has_cuda_memory(obj: object) -> bool:
    """True when ``obj`` exposes CUDA device memory through a standard protocol."""
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    dlpack_device = getattr(obj, "__dlpack_device__", None)
    if dlpack_device is None or not hasattr(obj, "__dlpack__"):
        return False
    try:
        device_type = int(dlpack_device()[0])
    except Exception:
        return False
    # DLPack device types: 2 = CUDA, 13 = CUDA managed memory.
    return device_type in (2, 13)


def import_cupyx(submodule: str = "") -> ModuleType:
    """Import ``cupyx`` or ``cupyx.<submodule>`` (e.g. ``"scipy.sparse"``)."""
    get_cupy()
    return importlib.import_module(f"cupyx.{submodule}" if submodule else "cupyx")
