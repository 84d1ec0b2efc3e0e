"""The compute-device policy.

One setting decides where gpuml computes: ``device``.

- ``"auto"`` (default): the GPU when CuPy imports and a CUDA device is usable,
  otherwise the CPU.
- ``"gpu"``: the GPU; an error that names the fix is raised when there is none.
- ``"cpu"``: NumPy/SciPy on the host, even when a GPU is present.

The initial value comes from the ``GPUML_DEVICE`` environment variable, read
once, at import. A value that is not a device does not stop ``import gpuml``
(the variable is set far from the code, often for every process of a job,
and nothing could catch the error): it warns, naming the variable and the
valid values, and gpuml starts from ``"auto"``. The setting is thread-local,
like scikit-learn's own configuration, so that a ``config_context`` in one
thread does not leak into another (Dask worker threads included).

Where computation runs is independent of what comes out: the output family
follows the input family (see ``gpuml._array``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

_DEVICES = ("auto", "gpu", "cpu")


def _check_device(device: str, source: str) -> str:
    value = device.strip().lower() if isinstance(device, str) else device
    if value not in _DEVICES:
        raise ValueError(
            f"{source} must be one of {', '.join(repr(d) for d in _DEVICES)}; "
            f"got {device!r}."
        )
    return value


def _default_config() -> dict:
    """The configuration a thread starts from: ``GPUML_DEVICE``, else "auto"."""
    env = os.environ.get("GPUML_DEVICE", "")
    if not env.strip():
        return {"device": "auto"}
    try:
        return {"device": _check_device(env, "GPUML_DEVICE")}
    except ValueError as error:
        problem = str(error)
    warnings.warn(  # outside the except: under -W error, no chained traceback
        f"{problem} gpuml ignores it and starts from 'auto' (the GPU when one "
        "is usable, else the CPU): set GPUML_DEVICE to auto, gpu or cpu, or "
        "unset it.",
        UserWarning,
        stacklevel=_importer_stacklevel(),
    )
    return {"device": "auto"}


_GPUML_DIR = os.path.dirname(__file__) + os.sep  # as frames name gpuml's files


def _importer_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning to the code that imported
    gpuml (a user's ``import gpuml`` line), past gpuml's own frames and
    runpy's (``python -m gpuml`` leaves no such code: Python then reports
    the warning as ``sys:1``). ``warnings`` skips importlib's frames itself,
    so they are not counted."""
    level, frame = 1, sys._getframe(1)  # the frame that calls warnings.warn
    while frame is not None:
        filename = frame.f_code.co_filename
        if "importlib" in filename and "_bootstrap" in filename:
            pass
        elif filename.startswith(_GPUML_DIR) or "runpy" in os.path.basename(filename):
            level += 1
        else:
            break
        frame = frame.f_back
    return level


_global_config = _default_config()
_threadlocal = threading.local()


def _get_threadlocal_config() -> dict:
    if not hasattr(_threadlocal, "global_config"):
        _threadlocal.global_config = _global_config.copy()
    return _threadlocal.global_config


def get_config() -> dict:
    """Return a copy of gpuml's current configuration.

    Returns
    -------
    config : dict
        Keys are the parameter names of :func:`set_config`.

    Examples
    --------
    >>> import gpuml
    >>> sorted(gpuml.get_config())
    ['device']
    """
    return _get_threadlocal_config().copy()


def set_config(device: str | None = None) -> None:
    """Set gpuml's configuration for the current thread.

    Parameters
    ----------
    device : {"auto", "gpu", "cpu"}, default=None
        Where gpuml computes. ``"auto"`` uses the GPU when CuPy and a CUDA
        device are usable, else the CPU; ``"gpu"`` requires a GPU; ``"cpu"``
        always computes with NumPy/SciPy. ``None`` leaves the value unchanged.

    Examples
    --------
    >>> import gpuml
    >>> gpuml.set_config(device="cpu")
    >>> gpuml.get_config()["device"]
    'cpu'
    >>> gpuml.set_config(device="auto")
    """
    config = _get_threadlocal_config()
    if device is not None:
        config["device"] = _check_device(device, "device")


@contextmanager
def config_context(*, device: str | None = None) -> Iterator[None]:
    """Temporarily change gpuml's configuration, restoring it on exit.

    Parameters
    ----------
    device : {"auto", "gpu", "cpu"}, default=None
        See :func:`set_config`.

    Examples
    --------
    >>> import gpuml
    >>> with gpuml.config_context(device="cpu"):
    ...     gpuml.get_config()["device"]
    'cpu'
    """
    old = get_config()
    set_config(device=device)
    try:
        yield
    finally:
        set_config(**old)
