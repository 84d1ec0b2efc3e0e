"""``gpuml.warmup()`` and ``python -m gpuml warmup``: compile every kernel now.

On a machine whose CuPy kernel cache is empty (a new cloud GPU, container
image or CI runner), gpuml's first GPU call compiles its CUDA modules (see
``gpuml/_cuda``). A deployment can pay that once, ahead of time: run the
warm-up in the image build or at a worker's start-up, and every later process
on that machine (same GPU architecture, same ``CUPY_CACHE_DIR``) loads the
compiled kernels from the cache.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def _cache_dir() -> Path:
    """CuPy's kernel cache folder (its default unless CUPY_CACHE_DIR is set)."""
    default = Path("~/.cupy/kernel_cache").expanduser()
    return Path(os.environ.get("CUPY_CACHE_DIR", default))


def _cache_files(folder: Path) -> set[str]:
    return (
        {p.name for p in folder.glob("*") if p.is_file()} if folder.exists() else set()
    )


def warmup(*, verbose: bool = True) -> dict:
    """Compile every CUDA kernel of the installed gpuml for the current GPU.

    The modules compile in parallel threads into CuPy's kernel cache
    (``CUPY_CACHE_DIR``, by default ``~/.cupy/kernel_cache``), each in both
    of its tiers where it has two (a quick compile that a first fit can
    use, and the fully optimised one that replaces it); those already there
    are loaded, which takes milliseconds. With ``verbose``, a
    line per module and a summary are printed as they complete.

    Returns
    -------
    report : dict
        ``device`` (the GPU's name), ``cache_dir``, ``modules`` (one
        ``{"module", "seconds"}`` record each), ``compiled`` (how many new
        binaries the cache received: at most one per module and tier),
        ``binaries`` (how many there are) and ``seconds`` (the wall time).

    Raises
    ------
    gpuml.NoGPUError
        When CuPy or a CUDA device is not usable.

    Examples
    --------
    In a Dockerfile, after installing gpuml (on a machine with the
    deployment's GPU architecture)::

        RUN python -m gpuml warmup

    On every worker of a Dask cluster::

        client.run(gpuml.warmup, verbose=False)
    """
    from gpuml import _cuda
    from gpuml._backend import get_cupy

    cupy = get_cupy()
    start = time.perf_counter()
    device = cupy.cuda.Device()
    name = cupy.cuda.runtime.getDeviceProperties(device.id)["name"]
    if isinstance(name, bytes):
        name = name.decode()
    folder = _cache_dir()
    before = _cache_files(folder)
    total = len(_cuda.MODULES)

    def progress(record: dict) -> None:
        if verbose:
            done = progress.count = getattr(progress, "count", 0) + 1
            print(
                f"gpuml warmup: [{done}/{total}] {record['module']} "
                f"{record['seconds']:.2f} s",
                flush=True,
            )

    if verbose:
        print(
            f"gpuml warmup: {total} CUDA modules for {name} into {folder}", flush=True
        )
    records = _cuda.compile_all(progress=progress)
    compiled = len(_cache_files(folder) - before)
    binaries = sum(len(_cuda.tiers(name)) for name in _cuda.MODULES)
    seconds = time.perf_counter() - start
    if verbose:
        print(
            f"gpuml warmup: done in {seconds:.1f} s; {compiled} of {binaries} "
            "binaries compiled, the others already in the cache",
            flush=True,
        )
    return {
        "device": name,
        "cache_dir": str(folder),
        "modules": records,
        "compiled": compiled,
        "binaries": binaries,
        "seconds": seconds,
    }


def main(argv: list[str]) -> int:
    """``python -m gpuml warmup [--quiet]``."""
    import argparse

    from gpuml._backend import _INSTALL_CUPY, NoGPUError

    parser = argparse.ArgumentParser(
        prog="python -m gpuml warmup",
        description=(
            "Compile every CUDA kernel of gpuml for this GPU into CuPy's kernel "
            "cache (CUPY_CACHE_DIR), so that later processes compile nothing."
        ),
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    try:
        warmup(verbose=not args.quiet)
    except NoGPUError as exc:
        # NoGPUError's own advice (computing on the CPU) does not apply: the
        # CPU path has no kernels to compile. Non-zero, so that a build step
        # meant to fill a GPU kernel cache does not pass having done nothing.
        reason = str(exc).split(". ")[0].rstrip(".")
        install = f" {_INSTALL_CUPY}." if "CuPy is not installed" in reason else ""
        print(
            f"gpuml warmup: nothing compiled ({reason}).{install} Warm-up fills "
            "the kernel cache of a GPU: run it where gpuml will compute on one "
            "(the CPU path needs none).",
            file=sys.stderr,
        )
        return 1
    return 0
