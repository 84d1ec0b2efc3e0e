"""Timing, machine description and the result table shared by the benchmarks.

A benchmark returns rows (plain dicts, see :func:`row`); the runner prints
them with :func:`format_table`. Times are wall-clock medians after one
warm-up call, with the GPU synchronised before the clock stops, so that
asynchronous CuPy work is counted.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

DEFAULT_REPEAT = 5
SKLEARN = "scikit-learn"


def cupy_or_none() -> ModuleType | None:
    """CuPy when it imports and a CUDA device is usable, else None."""
    from gpuml._backend import gpu_available

    if not gpu_available():
        return None
    import cupy

    return cupy


def no_gpu_reason() -> str:
    """Why the GPU rows are skipped (empty when a GPU is usable)."""
    from gpuml._backend import _probe_cupy

    return _probe_cupy()[1]


def synchronize() -> None:
    """Wait for all queued work on the current GPU, if CuPy is in use."""
    if "cupy" in sys.modules and cupy_or_none() is not None:
        sys.modules["cupy"].cuda.Device().synchronize()


def free_gpu_memory() -> None:
    """Return CuPy's cached device and pinned blocks (between workloads)."""
    if "cupy" in sys.modules and cupy_or_none() is not None:
        cupy = sys.modules["cupy"]
        synchronize()
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def time_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """One timed call, no warm-up (the long scikit-learn baselines, first
    calls): ``(seconds, result)``."""
    synchronize()
    start = time.perf_counter()
    result = fn()
    synchronize()
    return time.perf_counter() - start, result


def time_call(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Call ``fn`` once to warm up, then ``repeat`` times; median seconds.

    Returns ``(median_seconds, result_of_last_call)``.
    """
    result = fn()
    synchronize()
    times = []
    for _ in range(max(1, repeat)):
        result = None  # let the previous result go before the next call
        start = time.perf_counter()
        result = fn()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def row(
    workload: str,
    implementation: str,
    input_desc: str,
    median_s: float | None = None,
    notes: str = "",
    *,
    compare: bool = True,
) -> dict:
    """One table row. ``median_s=None`` marks a skipped row (say why in notes).

    ``compare=False`` leaves the speed-up empty (for rows that time a part of
    the work, such as a copy, rather than the whole workload).
    """
    return {
        "workload": workload,
        "implementation": implementation,
        "input": input_desc,
        "median_s": median_s,
        "notes": notes,
        "compare": compare,
    }


def rel_error(a, b) -> float:
    """``||a - b|| / ||b||`` for host or device arrays."""
    from gpuml._array import to_host

    a = np.asarray(to_host(a), dtype=np.float64)
    b = np.asarray(to_host(b), dtype=np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def gb_per_s(n_bytes: int, seconds: float) -> str:
    return f"{n_bytes / seconds / 1e9:.1f} GB/s"


def _speedup(r: dict, baselines: dict[str, float]) -> str:
    base = baselines.get(r["workload"])
    if not r["compare"] or r["median_s"] is None or base is None:
        return ""
    return f"{base / r['median_s']:.2f}x"


def format_table(rows: list[dict]) -> str:
    """A plain-text table; speed-ups are against the scikit-learn row."""
    baselines = {
        r["workload"]: r["median_s"]
        for r in rows
        if r["implementation"] == SKLEARN and r["median_s"] is not None
    }
    header = [
        "workload",
        "implementation",
        "input",
        "median s",
        "speed-up vs scikit-learn",
        "notes",
    ]
    body = [
        [
            r["workload"],
            r["implementation"],
            r["input"],
            "skipped" if r["median_s"] is None else f"{r['median_s']:.4f}",
            _speedup(r, baselines),
            r["notes"],
        ]
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(5)]
    lines = []
    for line in [header, None, *body]:
        if line is None:
            lines.append("  ".join("-" * w for w in widths) + "  -----")
            continue
        cells = [
            line[0].ljust(widths[0]),
            line[1].ljust(widths[1]),
            line[2].ljust(widths[2]),
            line[3].rjust(widths[3]),
            line[4].rjust(widths[4]),
            line[5],
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_threads() -> str:
    """The BLAS libraries NumPy/SciPy loaded and their thread counts."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown"
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    found = dict.fromkeys(f"{i['internal_api']} {i['num_threads']}" for i in blas)
    return ", ".join(found) or "none"


def machine_lines() -> list[str]:
    """The machine and the versions that matter to the timings."""
    import sklearn

    import gpuml

    lines = [
        f"CPU: {_cpu_model()}, os.cpu_count()={os.cpu_count()}, "
        f"BLAS threads: {blas_threads()}",
    ]
    cupy = cupy_or_none()
    if cupy is None:
        lines.append(f"GPU: none ({no_gpu_reason()})")
    else:
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else name
        lines.append(
            f"GPU: {name}, {props['totalGlobalMem'] / 2**30:.0f} GiB "
            f"(of {cupy.cuda.runtime.getDeviceCount()} visible), "
            f"CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}"
        )
    versions = [
        f"python {platform.python_version()}",
        f"gpuml {gpuml.__version__}",
        f"numpy {np.__version__}",
        f"scikit-learn {sklearn.__version__}",
    ]
    if cupy is not None:
        versions.append(f"cupy {cupy.__version__}")
    lines.append("versions: " + ", ".join(versions))
    return lines


def child_result(command: list[str], timeout: float | None = None) -> dict | None:
    """The JSON object a benchmark's child process prints last, or None when
    it ran past ``timeout`` seconds. The child has a session of its own, so
    that a timeout stops its joblib workers too (left running, they would
    slow the rows that follow)."""
    import json
    import signal
    import subprocess

    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return None
    if child.returncode != 0:
        raise RuntimeError(f"{command[2:]} failed (exit {child.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def first_use_runs(command: list[str], prefix: str) -> None:
    """A first-use measurement: ``command`` (a child that times its first
    search and prints one line) run three times on one new kernel cache
    (``CUPY_CACHE_DIR``): on it empty (a new machine), then twice warm (a
    later process); each child's last line printed after its label."""
    import subprocess
    import tempfile

    env = dict(os.environ, CUPY_CACHE_DIR=tempfile.mkdtemp(prefix=prefix))
    for label in ("empty cache", "warm cache", "warm cache"):
        out = subprocess.run(command, env=env, capture_output=True, text=True)
        last = (out.stdout.strip().splitlines() or [out.stderr.strip()[-300:]])[-1]
        print(f"{label}: {last}", flush=True)
