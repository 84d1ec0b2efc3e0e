"""``gpuml.show_versions()``: what a bug report needs."""

from __future__ import annotations

import importlib.metadata
import platform
import sys


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def show_versions() -> None:
    """Print the versions of gpuml, its dependencies and the GPU it would use.

    This imports CuPy (if installed) to read the device, so it is not free.

    Examples
    --------
    >>> import gpuml
    >>> gpuml.show_versions()  # doctest: +ELLIPSIS
    gpuml: ...
    python: ...
    """
    from gpuml import __version__
    from gpuml._backend import _probe_cupy
    from gpuml._config import get_config

    print("gpuml:", __version__)
    print("python:", sys.version.replace("\n", " "))
    print("platform:", platform.platform())
    for dist in (
        "numpy",
        "scipy",
        "scikit-learn",
        "joblib",
        "pandas",
        "dask",
        "distributed",
        "dask-cuda",
        "dask-ml",
    ):
        print(f"{dist}:", _version(dist))
    for name in ("cudf", "cuml"):  # RAPIDS wheels carry the CUDA version
        found = [_version(f"{name}{suffix}") for suffix in ("", "-cu13", "-cu12")]
        print(f"{name}:", next((v for v in found if v), None))
    cupy, reason = _probe_cupy()
    print("device policy:", get_config()["device"])
    if cupy is None:
        print("GPU: none usable:", reason)
        return
    print("cupy:", cupy.__version__)
    get_allocator = getattr(cupy.cuda, "get_allocator", None)
    if get_allocator is not None:
        allocator = get_allocator()
        owner = getattr(allocator, "__module__", None) or type(allocator).__module__
        # RMM's allocator once cuDF or cuML is imported (see docs/rapids.rst)
        print("cupy allocator:", "rmm" if "rmm" in str(owner) else "cupy")
    runtime = cupy.cuda.runtime
    print("CUDA runtime:", runtime.runtimeGetVersion())
    for i in range(runtime.getDeviceCount()):
        props = runtime.getDeviceProperties(i)
        name = (
            props["name"].decode()
            if isinstance(props["name"], bytes)
            else props["name"]
        )
        print(f"GPU {i}: {name}, {props['totalGlobalMem'] / 2**30:.1f} GiB")
