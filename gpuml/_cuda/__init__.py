"""gpuml's own CUDA kernels: a few ``.cu`` files, one NVRTC compile each.

Every CUDA kernel of gpuml lives in this package. A file is loaded as one
``cupy.RawModule`` (one compile on a machine whose kernel cache is empty,
then a cache hit in every later process), with its templates instantiated
through the name expressions listed in :data:`MODULES`. The hot paths of the
estimators, metrics and searches call these kernels, cuBLAS and cuSOLVER
only, rather than CuPy's generic element-wise and reduction kernels, each of
which is a compile of its own per operation and dtype (and, for CUB
reductions, per launch configuration, so per input size): see "First use:
what compiles" in ``docs/development.md``.

:func:`compile_all` compiles the modules in parallel threads (NVRTC releases
the GIL); :func:`gpuml.warmup` runs it.

Small Python helpers below wrap the kernels that several modules use
(checks, copies, casts, row gathers); each returns ``None`` when its input
is outside what the kernel handles, and the caller then falls back to CuPy.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from concurrent.futures import (
    FIRST_COMPLETED,
    ThreadPoolExecutor,
    as_completed,
    wait,
)
from pathlib import Path

import numpy as np

from gpuml import _backend

_FLOAT_TYPES = ("float", "double")
_LABEL_TYPES = ("int", "long long")

#: The modules (``<name>.cu``) and the template instantiations each exports
#: (its ``extern "C"`` kernels need none). Modules are small so that their
#: compiles, run in parallel, each take a fraction of a second.
MODULES: dict[str, tuple[str, ...]] = {
    "arrays": (
        *(f"nonfinite_flag<{t}>" for t in _FLOAT_TYPES),
        *(
            f"cast<{s}, {d}>"
            for s, d in [
                ("float", "double"),
                ("double", "float"),
                ("long long", "double"),
                ("int", "double"),
                ("unsigned char", "long long"),
                ("long long", "int"),
            ]
        ),
        *(f"cast_rows<double, {t}>" for t in _FLOAT_TYPES),
        *(f"gather_rows<{w}>" for w in ("unsigned char", "unsigned int", "double")),
        "scatter_rows<double>",
        *(
            f"csr_take_rows<{w}, {i}>"
            for w in ("unsigned int", "unsigned long long")
            for i in _LABEL_TYPES
        ),
        *(f"csr_column_counts<{i}>" for i in _LABEL_TYPES),
        *(f"tfidf_rows<{t}, {i}>" for t in _FLOAT_TYPES for i in _LABEL_TYPES),
        *(f"fortran_to_c<{t}>" for t in _FLOAT_TYPES),
        *(f"sum_chunks<{t}>" for t in _FLOAT_TYPES),
    ),
    "ridge": tuple(
        f"{name}<{t}>"
        for name in (
            "column_moments",
            "moments_mean",
            "ridge_design",
            "add_blocks",
            "eigen_shrink",
            "add_intercepts",
            "square_values",
            "loo_squares",
        )
        for t in _FLOAT_TYPES
    ),
    "labels": (
        *(
            f"binary_labels<{t}, {label}>"
            for t in _FLOAT_TYPES
            for label in _LABEL_TYPES
        ),
        *(f"label_range<{t}>" for t in _LABEL_TYPES),
        *(f"label_histogram<{t}>" for t in _LABEL_TYPES),
        *(f"label_encode<{t}>" for t in _LABEL_TYPES),
    ),
    "linear": tuple(f"binary_logistic_terms<{t}>" for t in _FLOAT_TYPES),
    # Lasso and ElasticNet: whole coordinate-descent sweeps (on demand).
    "enet": tuple(
        f"{name}<{t}>"
        for name in ("enet_gram_sweep", "enet_dense_sweep")
        for t in _FLOAT_TYPES
    ),
    "metrics": (
        *(
            f"squared_error_partials<{t}, {u}>"
            for t in _FLOAT_TYPES
            for u in _FLOAT_TYPES
        ),
        *(f"target_partials<{u}>" for u in _FLOAT_TYPES),
        *(f"match_partials<{t}>" for t in _LABEL_TYPES),
    ),
    # The text vectorizers: text.cu (hashing) and vocabulary.cu
    # (CountVectorizer's vocabularies and counts), each in three modules
    # compiled in parallel: the shared kernels, then each character type's
    # templates.
    "text": (
        *(
            f"{name}<{t}, {i}>"
            for name in ("csr_write", "csr_normalize")
            for t in _FLOAT_TYPES
            for i in _LABEL_TYPES
        ),
        # CountVectorizer's integer counts
        *(f"csr_write<{t}, {i}>" for t in _LABEL_TYPES for i in _LABEL_TYPES),
        *(f"csr_indptr<{i}>" for i in _LABEL_TYPES),
    ),
    **{
        module: tuple(
            f"{name}<{c}>"
            for name in (
                "spaces_count",
                "spaces_write",
                "token_tile_counts",
                "token_tile_write",
                "hash_word_ngrams",
                "hash_char_ngrams",
                "char_wb_counts",
                "hash_char_wb_ngrams",
                "decode_packed_utf8",
            )
        )
        for module, c in (
            ("text_ascii", "unsigned char"),
            ("text_unicode", "unsigned int"),
        )
    },
    "vocabulary": (
        *(f"csr_kept_counts<{i}>" for i in _LABEL_TYPES),
        *(
            f"csr_map_columns<{w}, {i}>"
            for w in ("unsigned int", "unsigned long long")
            for i in _LABEL_TYPES
        ),
    ),
    **{
        module: tuple(
            f"{name}<{c}>"
            for name in (
                "fingerprint_word_ngrams",
                "fingerprint_documents",
                "word_ngram_write",
                "fingerprint_char_ngrams",
                "fingerprint_char_wb_ngrams",
                "char_wb_spans",
                "span_write",
            )
        )
        for module, c in (
            ("vocabulary_ascii", "unsigned char"),
            ("vocabulary_unicode", "unsigned int"),
        )
    },
    # Exact nearest neighbours and UMAP (on demand, like the text modules).
    "neighbors": (),
    "umap": tuple(f"smooth_knn<{t}>" for t in _FLOAT_TYPES),
    "umap_densmap": (),
    # KMeans's Lloyd iterations (on demand).
    "kmeans": tuple(
        f"{name}<{t}>"
        for name in ("kmeans_assign", "kmeans_block_sums")
        for t in _FLOAT_TYPES
    ),
}
#: Modules compiled from another module's source file.
_SOURCES = {
    "text_ascii": "text",
    "text_unicode": "text",
    "vocabulary_ascii": "vocabulary",
    "vocabulary_unicode": "vocabulary",
}
#: Headers that a source file (by name) is compiled with, after common.cuh.
_HEADERS = {
    "text": ("text.cuh",),
    "vocabulary": ("text.cuh",),
    "umap": ("umap_layout.cuh",),
    "umap_densmap": ("umap_layout.cuh",),
}

#: Modules that only the text vectorizers, the neighbours search and UMAP
#: use: compiled when one first runs (or by :func:`compile_all`), not by
#: every process's :func:`prefetch`.
_ON_DEMAND = frozenset(
    {
        "text",
        "text_ascii",
        "text_unicode",
        "vocabulary",
        "vocabulary_ascii",
        "vocabulary_unicode",
        "neighbors",
        "umap",
        "umap_densmap",
        "enet",
        "kmeans",
    }
)

# Compile time is part of a user's first call, kernel speed of every later
# one: each module that kernels of the estimators' hot paths use compiles in
# two tiers (see :func:`prefetch`): first with NVRTC's fast-compile mode
# (CUDA 12.8 and later; on an H100 0.09-0.21 s a module against 0.44-0.97 s,
# but its kernels ran 5-10x slower: Ridge's design kernel 1.06 ms against
# 0.12 ms, L-BFGS's direction 0.34 ms against 0.07 ms), then with the
# optimiser's full effort in the background, which replaces it when ready.
# No debug information in either. Both tiers compile without contracting a
# product and a sum into one fused multiply-add (the optimiser fuses where
# the fast mode may not), so that they round alike: a fit gives the same
# bits whichever tier ran it (checked by tests/test_cuda.py).
_OPTIONS = ("--std=c++17",)
_SAME_ROUNDING = "--fmad=false"
# The niceness of the thread that compiles the full tiers.
_UPGRADE_NICE = 10
_FAST_COMPILE = "-Ofc=max"
_FAST_COMPILE_NVRTC = (12, 8)
FAST, FULL = "fast", "full"
# Modules compiled with the full optimiser only: their kernels do
# per-character work in loops, which fast-compile code ran ten times slower
# (text: measured on an H100, see benchmarks/RESULTS.md), and none is on the
# path of a first fit.
_OPTIMIZED = _ON_DEMAND
THREADS = 256
_MAX_BLOCKS = 4096

CTYPES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.bool_): "unsigned char",
}

_locks = {(name, tier): threading.Lock() for name in MODULES for tier in (FAST, FULL)}
_state_lock = threading.Lock()
#: (module, device): the best tier compiled so far, which kernels come from.
_best: dict[tuple[str, int], str] = {}
#: (module, device): the futures of its compiles, started by :func:`_start`.
_started: dict[tuple[str, int], list] = {}
#: device: the one thread that compiles the full tiers of two-tier modules.
_upgrades: dict[int, ThreadPoolExecutor] = {}


def source(name: str) -> str:
    """The CUDA source of module ``name``, with the shared definitions."""
    folder = Path(__file__).parent
    file = _SOURCES.get(name, name)
    parts = ("common.cuh", *_HEADERS.get(file, ()), f"{file}.cu")
    return "".join((folder / part).read_text() for part in parts)


@functools.cache
def tiers(name: str) -> tuple[str, ...]:
    """The tiers module ``name`` compiles in, in order: ``(FAST, FULL)``, or
    ``(FULL,)`` for the :data:`_OPTIMIZED` modules and where NVRTC has no
    fast-compile mode."""
    cupy = _backend.get_cupy()
    fast = tuple(cupy.cuda.nvrtc.getVersion()) >= _FAST_COMPILE_NVRTC
    return (FAST, FULL) if fast and name not in _OPTIMIZED else (FULL,)


def _options(name: str, tier: str) -> tuple[str, ...]:
    if len(tiers(name)) == 1:
        return _OPTIONS
    options = (*_OPTIONS, _SAME_ROUNDING)
    return (*options, _FAST_COMPILE) if tier == FAST else options


@functools.cache
def _module(name: str, device: int, tier: str):
    cupy = _backend.get_cupy()
    return cupy.RawModule(
        code=source(name),
        options=_options(name, tier),
        name_expressions=list(MODULES[name]),
    )


def _compiled(name: str, device: int, tier: str):
    """Module ``name`` compiled in ``tier`` for ``device`` (one thread
    compiles it; any other that needs it meanwhile waits), from then on the
    source of its kernels unless a better tier already is."""
    with _locks[(name, tier)]:
        module = _module(name, device, tier)
        module.compile()
    with _state_lock:
        if tier == FULL or (name, device) not in _best:
            _best[(name, device)] = tier
    return module


def kernel(module: str, name: str):
    """The compiled kernel ``name`` (a template name expression or an
    ``extern "C"`` name) of ``module``, from its best tier compiled so far;
    on first use, the first of its tiers to be ready (starting the compiles
    if :func:`prefetch` has not)."""
    device = _backend.get_cupy().cuda.Device().id
    tier = _best.get((module, device))
    if tier is None:
        tier = _first_ready(module, device)
    return _kernel(module, name, device, tier)


@functools.cache
def _kernel(module: str, name: str, device: int, tier: str):
    return _module(module, device, tier).get_function(name)


def _build(name: str, device: int, tier: str, after=None) -> dict:
    """Compile module ``name`` in ``tier`` for ``device`` (in any thread),
    once ``after`` (a future, or None) is done; its record."""
    if after is not None:
        wait([after])
        _yield_processor()
    start = time.perf_counter()
    with _backend.get_cupy().cuda.Device(device):
        _compiled(name, device, tier)
    return {"module": name, "tier": tier, "seconds": time.perf_counter() - start}


def _yield_processor() -> None:
    """Lower this thread's scheduling priority (Linux, where a thread has
    its own; nothing elsewhere): an upgrade compile gives way to the fits
    that are running meanwhile."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _UPGRADE_NICE)
    except (AttributeError, OSError):
        pass


def _start(name: str, device: int) -> None:
    """Start compiling (or loading) module ``name`` for ``device`` in the
    background, once: its fast tier in a thread of its own, then its full
    tier in the device's upgrade thread, one module after another (so that
    the optimiser's longer compiles do not compete with the fast ones for
    the processor); a one-tier module in a thread of its own."""
    key = (name, device)
    with _state_lock:
        if key in _started:
            return
        own = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpuml-compile")
        first = own.submit(_build, name, device, tiers(name)[0])
        futures = [first]
        if len(tiers(name)) == 2:
            if device not in _upgrades:
                _upgrades[device] = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="gpuml-optimise"
                )
            futures.append(_upgrades[device].submit(_build, name, device, FULL, first))
        _started[key] = futures
    own.shutdown(wait=False)


def _first_ready(name: str, device: int) -> str:
    """Wait for the first of module ``name``'s tiers to be ready; that tier
    (a compile error is raised here)."""
    _start(name, device)
    futures = _started[(name, device)]
    done, _ = wait(futures, return_when=FIRST_COMPLETED)
    for future in done:
        future.result()
    tier = _best.get((name, device))
    if tier is None:  # a failed compile left the other tier to wait for
        for future in futures:
            future.result()
        tier = _best[(name, device)]
    return tier


def prefetch() -> None:
    """Start compiling (or loading) every module that the estimators' fits
    use (all but the :data:`_ON_DEMAND` ones) for the current device, in
    background threads, and return at once.

    Called when gpuml first computes on a device (with the libraries' and
    the copies' set-up, see :func:`gpuml._array.compute_namespace`): the
    compiles then overlap the copy of the data and the Python work before
    the first kernel, and a kernel that is needed before any tier of its
    module is ready waits for the first. On a machine whose kernel cache is
    empty the first fits run the fast tier's kernels and later ones the
    full tier's, once its compiles are done (one thread, the modules one
    after another: up to about 3 s on an H100's host); a
    process whose cache holds both loads both at once.
    """
    device = _backend.get_cupy().cuda.Device().id
    for name in MODULES:
        if name not in _ON_DEMAND:
            _start(name, device)


def ready() -> None:
    """Wait until every module that :func:`prefetch` starts has a tier ready
    on the current device (starting them if need be)."""
    device = _backend.get_cupy().cuda.Device().id
    for name in MODULES:
        if name not in _ON_DEMAND:
            _first_ready(name, device)


def prefetch_module(name: str) -> None:
    """Start compiling (or loading) one on-demand module for the current
    device in a background thread, once; a kernel needed before it is
    ready waits for it."""
    _start(name, _backend.get_cupy().cuda.Device().id)


def compile_all(threads: int | None = None, progress=None) -> list[dict]:
    """Compile (or load from CuPy's kernel cache) every module in each of
    its tiers for the current device, in parallel threads (NVRTC releases
    the GIL), so that later processes compile nothing.

    ``progress(record)`` is called as each module is ready. Returns one
    ``{"module", "seconds"}`` record per module (the seconds of its
    slowest tier), in completion order.
    """
    device = _backend.get_cupy().cuda.Device().id
    builds = [(name, tier) for name in MODULES for tier in tiers(name)]
    remaining = {name: len(tiers(name)) for name in MODULES}
    seconds = dict.fromkeys(MODULES, 0.0)
    records = []
    with ThreadPoolExecutor(max_workers=threads or len(builds)) as pool:
        futures = [pool.submit(_build, name, device, tier) for name, tier in builds]
        for future in as_completed(futures):
            built = future.result()
            name = built["module"]
            seconds[name] = max(seconds[name], built["seconds"])
            remaining[name] -= 1
            if remaining[name] == 0:
                records.append({"module": name, "seconds": seconds[name]})
                if progress is not None:
                    progress(records[-1])
    return records


def grid(n: int) -> tuple[int]:
    """Blocks for a grid-stride loop over ``n`` items."""
    return (max(1, min(_MAX_BLOCKS, -(-n // THREADS))),)


def launch(module: str, name: str, n: int, args) -> None:
    """Run a grid-stride kernel over ``n`` items."""
    kernel(module, name)(grid(n), (THREADS,), args)


def ctype(dtype) -> str | None:
    return CTYPES.get(np.dtype(dtype))


# -- helpers used across gpuml ----------------------------------------------


def any_nonfinite(values) -> bool | None:
    """Whether a float32/float64 device array holds NaN or infinity (one
    pass, one integer to the host); None for other dtypes or layouts."""
    t = ctype(values.dtype)
    if t not in _FLOAT_TYPES or not values.flags.c_contiguous:
        return None
    cupy = _backend.get_cupy()
    flag = cupy.zeros(1, dtype=cupy.int32)
    args = (values, np.int64(values.size), flag)
    launch("arrays", f"nonfinite_flag<{t}>", values.size, args)
    return bool(flag.get()[0])


def copy(array):
    """A contiguous copy of a C-contiguous device array (a memcpy, no kernel)."""
    cupy = _backend.get_cupy()
    if not array.flags.c_contiguous:
        return array.copy()
    out = cupy.empty_like(array)
    if array.nbytes:
        out.data.copy_from_device_async(array.data, array.nbytes)
    return out


def cast(array, dtype):
    """``array.astype(dtype)`` for a device array: a memcpy copy for the same
    dtype, one of gpuml's cast kernels for the common pairs, else CuPy's."""
    cupy = _backend.get_cupy()
    dtype = np.dtype(dtype)
    if array.dtype == dtype:
        return array
    if not array.flags.c_contiguous:
        return array.astype(dtype)
    name = f"cast<{ctype(array.dtype)}, {ctype(dtype)}>"
    if name not in MODULES["arrays"]:
        return array.astype(dtype)
    out = cupy.empty(array.shape, dtype=dtype)
    source_array = array.view(np.uint8) if array.dtype == np.bool_ else array
    launch("arrays", name, array.size, (source_array, out, np.int64(array.size)))
    return out


def cast_rows(array, dtype):
    """A C-contiguous ``array.astype(dtype)`` of a float64 2-D device array
    whose rows are contiguous but may be spaced (some columns of a matrix)."""
    cupy = _backend.get_cupy()
    dtype = np.dtype(dtype)
    name = f"cast_rows<{ctype(array.dtype)}, {ctype(dtype)}>"
    item = array.itemsize
    if (
        array.ndim != 2
        or name not in MODULES["arrays"]
        or (array.shape[1] > 1 and array.strides[1] != item)
        or array.strides[0] % item
    ):
        return cupy.ascontiguousarray(array.astype(dtype))
    rows, cols = array.shape
    out = cupy.empty((rows, cols), dtype=dtype)
    if out.size:
        stride = np.int64(array.strides[0] // item)
        args = (array, stride, np.int64(rows), np.int64(cols), out)
        launch("arrays", name, out.size, args)
    return out


def take_rows(array, rows):
    """``array[rows]`` for a C-contiguous device array of any fixed-size dtype
    and int64 device ``rows``, or for a cupyx CSR matrix (by
    :func:`csr_take_rows`, with ``rows`` on the host or the device);
    negative rows count from the end. None when the layout does not allow
    it."""
    cupy = _backend.get_cupy()
    if getattr(array, "format", None) == "csr":  # cupyx sparse: no .flags
        return csr_take_rows(
            array, rows if isinstance(rows, np.ndarray) else rows.get()
        )
    if (
        array.ndim == 0
        or not array.flags.c_contiguous
        or rows.ndim != 1
        or rows.dtype != np.int64
        or array.dtype.hasobject
    ):
        return None
    out = cupy.empty((rows.shape[0], *array.shape[1:]), dtype=array.dtype)
    row_bytes = array.itemsize * (array.size // max(array.shape[0], 1))
    if out.size == 0:
        return out
    word, size = next(
        (word, size)
        for word, size in (("double", 8), ("unsigned int", 4), ("unsigned char", 1))
        if row_bytes % size == 0 and array.data.ptr % size == 0
    )
    words = row_bytes // size
    n_rows, n_src = np.int64(rows.shape[0]), np.int64(array.shape[0])
    args = (array, rows, n_rows, n_src, np.int64(words), out)
    launch("arrays", f"gather_rows<{word}>", rows.shape[0] * words, args)
    return out


def scatter_rows(values, rows, out) -> None:
    """``out[rows] = values`` for C-contiguous float64 device arrays (``out``
    of the same row shape) and distinct int64 device ``rows``, in place."""
    words = values.size // max(values.shape[0], 1)
    if values.size:
        args = (values, rows, np.int64(rows.shape[0]), np.int64(words), out)
        launch("arrays", "scatter_rows<double>", values.size, args)


def column_sums(array, ones):
    """``array.sum(axis=0)`` of a C-contiguous (n, k) float64 device array.

    ``ones @ array`` (a GEMV by cuBLAS; ``ones`` is the caller's (n,) vector
    of ones, kept across calls) for several columns; for one column (where
    CuPy's matrix product takes a vector path that compiles kernels of its
    own), gpuml's chunked sum. Returns a (k,) array.
    """
    cupy = _backend.get_cupy()
    n, k = array.shape
    if k > 1 or array.dtype != np.float64 or not array.flags.c_contiguous:
        return ones @ array
    chunk = max(4096, -(-n // 256))
    n_chunks = max(1, -(-n // chunk))
    partials = cupy.empty((n_chunks, 1), dtype=cupy.float64)
    args = (array, np.int64(n), np.int64(chunk), partials)
    kernel("arrays", "chunk_sums")((n_chunks,), (THREADS,), args)
    out = cupy.empty(1, dtype=cupy.float64)
    args = (partials, np.int64(n_chunks), np.int64(1), out)
    launch("arrays", "sum_chunks<double>", 1, args)
    return out


def c_order(array):
    """A C-contiguous version of a 2-D float device array: itself when it is,
    gpuml's copy kernel for a Fortran-ordered one (a cupyx sparse matrix
    times a dense one comes back so), else CuPy's copy."""
    if array.flags.c_contiguous:
        return array
    t = ctype(array.dtype)
    if array.ndim != 2 or not array.flags.f_contiguous or t not in _FLOAT_TYPES:
        return _backend.get_cupy().ascontiguousarray(array)
    n, k = array.shape
    out = _backend.get_cupy().empty((n, k), dtype=array.dtype)
    launch(
        "arrays", f"fortran_to_c<{t}>", n * k, (array, np.int64(n), np.int64(k), out)
    )
    return out


def csr_from_parts(data, indices, indptr, shape, canonical: bool | None):
    """A cupyx CSR matrix of device arrays that are known to be valid (no
    checks: CuPy's constructor would launch kernels of its own, compiled on
    a new machine), with its canonical-format flag when known. CuPy's
    ``_from_parts`` (CuPy 14) where it exists, else the constructor."""
    import cupyx.scipy.sparse as cusp

    from_parts = getattr(cusp.csr_matrix, "_from_parts", None)
    if from_parts is None:
        matrix = cusp.csr_matrix((data, indices, indptr), shape=shape)
        if canonical is not None:
            matrix.has_canonical_format = canonical
        return matrix
    return from_parts(data, indices, indptr, shape, has_canonical_format=canonical)


def csr_take_rows(X, rows):
    """``X[rows]`` for a cupyx CSR matrix of float32/float64 values and
    host integer ``rows`` (negative ones counting from the end); None
    outside that (or for rows out of range, which CuPy's indexing reports).
    The new row pointers are made on the host from a copy of ``X.indptr``."""
    cupy = _backend.get_cupy()
    rows = np.asarray(rows)
    index_type = ctype(X.indices.dtype)
    n = X.shape[0]
    if (
        X.format != "csr"
        or rows.ndim != 1
        or rows.dtype.kind not in "iu"
        or ctype(X.dtype) not in _FLOAT_TYPES
        or index_type not in _LABEL_TYPES
        or X.indptr.dtype != X.indices.dtype
        or (rows.size and (rows.min() < -n or rows.max() >= n))
    ):
        return None
    rows = np.where(rows < 0, rows + n, rows).astype(np.int64)
    indptr = X.indptr.get()
    lengths = indptr[rows + 1] - indptr[rows]
    out_indptr = np.zeros(rows.shape[0] + 1, dtype=X.indptr.dtype)
    np.cumsum(lengths, out=out_indptr[1:])
    nnz = int(out_indptr[-1])
    data = cupy.empty(nnz, dtype=X.dtype)
    indices = cupy.empty(nnz, dtype=X.indices.dtype)
    d_indptr = cupy.asarray(out_indptr)
    if nnz:
        word = "unsigned int" if X.dtype.itemsize == 4 else "unsigned long long"
        warps_per_block = THREADS // 32
        blocks = max(1, min(_MAX_BLOCKS, -(-rows.shape[0] // warps_per_block)))
        args = (X.data, X.indices, X.indptr, cupy.asarray(rows))
        args += (np.int64(rows.shape[0]), d_indptr, data, indices)
        kernel("arrays", f"csr_take_rows<{word}, {index_type}>")(
            (blocks,), (THREADS,), args
        )
    canonical = getattr(X, "_has_canonical_format", None)
    shape = (rows.shape[0], X.shape[1])
    return csr_from_parts(data, indices, d_indptr, shape, canonical)


__all__ = [
    "FAST",
    "FULL",
    "MODULES",
    "THREADS",
    "any_nonfinite",
    "c_order",
    "cast",
    "cast_rows",
    "column_sums",
    "compile_all",
    "copy",
    "csr_from_parts",
    "csr_take_rows",
    "ctype",
    "grid",
    "kernel",
    "launch",
    "prefetch",
    "prefetch_module",
    "ready",
    "scatter_rows",
    "source",
    "take_rows",
    "tiers",
]
