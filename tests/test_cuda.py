"""gpuml's CUDA modules: their sources, the warm-up, and each helper against
NumPy (the GPU tests run only where CuPy and a GPU are usable)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import gpuml
from gpuml import _cuda
from gpuml._backend import gpu_available

gpu = pytest.mark.gpu


def _kernels(name: str) -> set[str]:
    return set(re.findall(r"__global__\s+void\s+(\w+)", _cuda.source(name)))


@pytest.mark.parametrize("name", sorted(_cuda.MODULES))
def test_every_name_expression_is_a_kernel_of_its_module(name):
    defined = _kernels(name)
    assert defined, f"{name}.cu defines no kernel"
    for expression in _cuda.MODULES[name]:
        assert expression.partition("<")[0] in defined, expression


def test_sources_ship_with_the_package():
    from pathlib import Path

    folder = Path(_cuda.__file__).parent
    shipped = {p.stem for p in folder.glob("*.cu")}
    assert shipped == {_cuda._SOURCES.get(name, name) for name in _cuda.MODULES}
    config = (Path(gpuml.__file__).parents[1] / "setup.cfg").read_text()
    assert "gpuml._cuda = *.cu, *.cuh" in config


@pytest.mark.skipif(gpu_available(), reason="checks the error without a GPU")
def test_warmup_without_gpu_names_the_fix():
    with pytest.raises(gpuml.NoGPUError, match="Install CuPy"):
        gpuml.warmup(verbose=False)
    done = subprocess.run(
        [sys.executable, "-m", "gpuml", "warmup"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "gpuml warmup: nothing compiled" in done.stderr
    assert "Install CuPy" in done.stderr
    # not the library's advice to compute on the CPU: that needs no warm-up
    assert "set_config" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@gpu
def test_warmup_compiles_every_module(capsys, monkeypatch, tmp_path):
    # a kernel cache of its own: the count of new binaries is warm-up's
    # alone, not those of other processes sharing a cache (pytest-xdist)
    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    report = gpuml.warmup()
    assert {r["module"] for r in report["modules"]} == set(_cuda.MODULES)
    tiers = {name: _cuda.tiers(name) for name in _cuda.MODULES}
    assert report["binaries"] == sum(map(len, tiers.values()))
    assert 0 <= report["compiled"] <= report["binaries"]
    # the estimators' modules compile quickly first, then fully optimised
    assert {tiers[name][-1] for name in tiers} == {_cuda.FULL}
    assert all(len(tiers[name]) == 1 for name in _cuda._ON_DEMAND)
    out = capsys.readouterr().out
    assert f"[{len(_cuda.MODULES)}/{len(_cuda.MODULES)}]" in out
    # Every listed kernel is in the compiled modules.
    for module, names in _cuda.MODULES.items():
        for name in names:
            assert _cuda.kernel(module, name) is not None
    # and, every tier being compiled now, they come from the full one
    device = pytest.importorskip("cupy").cuda.Device().id
    assert {_cuda._best[(m, device)] for m in _cuda.MODULES} == {_cuda.FULL}


def test_cuda_imports_only_the_backend():
    """One direction: the kernel layer imports no gpuml module but
    _backend (_array and _linalg, which use its kernels, import it)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(_cuda.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpuml"):
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names if a.name.startswith("gpuml")}
    assert imported == {"gpuml._backend"}


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_any_nonfinite(dtype):
    cp = pytest.importorskip("cupy")
    x = np.arange(100_001, dtype=dtype)
    assert _cuda.any_nonfinite(cp.asarray(x)) is False
    for bad in (np.nan, np.inf, -np.inf):
        y = x.copy()
        y[77_777] = bad
        assert _cuda.any_nonfinite(cp.asarray(y)) is True
    assert _cuda.any_nonfinite(cp.asarray(x[:100].astype(np.float16))) is None


@gpu
@pytest.mark.parametrize(
    "source, target",
    [
        (np.float32, np.float64),
        (np.float64, np.float32),
        (np.int64, np.float64),
        (np.int32, np.float64),
        (np.bool_, np.int64),
        (np.int16, np.float32),  # no kernel: CuPy's astype
    ],
)
def test_cast(rng, source, target):
    cp = pytest.importorskip("cupy")
    x = (rng.normal(size=(301, 7)) * 50).astype(source)
    got = _cuda.cast(cp.asarray(x), target)
    assert got.dtype == target
    np.testing.assert_array_equal(got.get(), x.astype(target))


@gpu
@pytest.mark.parametrize("target", [np.float32, np.float64])
def test_cast_rows_of_a_strided_view(rng, target):
    cp = pytest.importorskip("cupy")
    x = rng.normal(size=(6, 11))
    got = _cuda.cast_rows(cp.asarray(x)[:, 2:9], target)
    assert got.flags.c_contiguous and got.dtype == target
    np.testing.assert_array_equal(got.get(), x[:, 2:9].astype(target))


@gpu
@pytest.mark.parametrize(
    "dtype, shape",
    [
        (np.float32, (50, 3)),  # 12-byte rows: 4-byte words
        (np.float64, (50, 4)),
        (np.int64, (50,)),
        (np.bool_, (50, 3)),  # 3-byte rows: bytes
        (np.complex128, (50, 2)),
    ],
)
def test_take_rows(rng, dtype, shape):
    cp = pytest.importorskip("cupy")
    x = (rng.normal(size=shape) * 10).astype(dtype)
    rows = np.array([3, 0, 49, -1, 3, -50], dtype=np.int64)
    got = _cuda.take_rows(cp.asarray(x), cp.asarray(rows))
    np.testing.assert_array_equal(got.get(), x[rows])
    assert _cuda.take_rows(cp.asarray(x), cp.asarray(rows.astype(np.int32))) is None


@gpu
@pytest.mark.parametrize("shape", [(6,), (6, 5)])
def test_scatter_rows(rng, shape):
    cp = pytest.importorskip("cupy")
    out = rng.normal(size=shape)
    rows = np.array([4, 0, 2], dtype=np.int64)
    values = rng.normal(size=(3, *shape[1:]))
    got = cp.asarray(out)
    _cuda.scatter_rows(cp.asarray(values), cp.asarray(rows), got)
    out[rows] = values
    np.testing.assert_array_equal(got.get(), out)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_csr_take_rows(rng, dtype, index):
    """Rows of a device CSR matrix (long and empty rows, repeats, negative
    rows) equal SciPy's, with sorted indices kept canonical; rows out of
    range are left to CuPy (None)."""
    cp = pytest.importorskip("cupy")
    import scipy.sparse as sp

    from gpuml._array import to_namespace

    dense = rng.normal(size=(60, 500)) * (rng.random((60, 500)) < 0.05)
    dense[7] = 0.0
    dense[8] = rng.normal(size=500)  # a row longer than a warp's pass
    host = sp.csr_matrix(dense.astype(dtype))
    host.indices, host.indptr = host.indices.astype(index), host.indptr.astype(index)
    device = to_namespace(host, cp)
    assert device.has_canonical_format
    rows = np.array([8, 7, 0, -1, 8, 59, 3], dtype=np.int64)
    got = _cuda.csr_take_rows(device, rows)
    want = host[rows]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.indptr.get(), want.indptr)
    np.testing.assert_array_equal(got.indices.get(), want.indices)
    np.testing.assert_array_equal(got.data.get(), want.data)
    assert _cuda.csr_take_rows(device, np.array([60])) is None
    empty = _cuda.csr_take_rows(device, np.array([], dtype=np.int64))
    assert empty.shape == (0, 500) and empty.nnz == 0


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_c_order(rng, dtype):
    cp = pytest.importorskip("cupy")
    x = rng.normal(size=(7, 3)).astype(dtype)
    fortran = cp.asfortranarray(cp.asarray(x))
    got = _cuda.c_order(fortran)
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got.get(), x)
    same = cp.asarray(x)
    assert _cuda.c_order(same) is same


@gpu
@pytest.mark.parametrize("k", [1, 3])
def test_column_sums(rng, k):
    cp = pytest.importorskip("cupy")
    x = rng.normal(size=(100_003, k))
    got = _cuda.column_sums(cp.asarray(x), cp.ones(x.shape[0])).get()
    np.testing.assert_allclose(got, x.sum(axis=0), rtol=1e-12, atol=1e-9)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_eigh(rng, dtype):
    cp = pytest.importorskip("cupy")
    from gpuml._linalg import device_eigh

    A = rng.normal(size=(40, 30))
    G = (A.T @ A).astype(dtype)
    w, V = device_eigh(cp.asarray(G))
    w, V = w.get(), V.get()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(G.astype(np.float64)), rtol=1e-4)
    # The rows of V are eigenvectors.
    tol = 1e-3 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(V @ G, w[:, None] * V, atol=tol * np.abs(w).max())


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_grams(rng, dtype):
    cp = pytest.importorskip("cupy")
    from gpuml._linalg import block_grams

    Z = rng.normal(size=(4 * 37, 5)).astype(dtype)
    Zw = Z * rng.uniform(0.5, 2.0, size=(Z.shape[0], 1)).astype(dtype)
    parts = block_grams(cp.asarray(Zw), cp.asarray(Z), 37).get()
    expected = [Zw[b : b + 37].T @ Z[b : b + 37] for b in range(0, Z.shape[0], 37)]
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(parts, np.stack(expected), rtol=tol, atol=tol)


@gpu
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("subset", [False, True])
def test_device_gram_statistics_match_numpy(rng, monkeypatch, weighted, subset):
    # Small chunks and blocks, so that rows span several chunks and the
    # last chunk is padded with zero rows.
    cp = pytest.importorskip("cupy")
    from gpuml.linear_model import _ridge_moments

    monkeypatch.setattr(_ridge_moments, "_CHUNK_ELEMENTS", 700)
    monkeypatch.setattr(_ridge_moments, "_GRAM_BLOCK_ROWS", 16)
    X = rng.normal(size=(301, 6))
    Y = rng.normal(size=(301, 2))
    w = rng.uniform(0.5, 2.0, size=301) if weighted else None
    rows = np.sort(rng.choice(301, size=123, replace=False)) if subset else None
    folds = [None if rows is None else rows]
    host = _ridge_moments._RidgeMoments(X, Y, w, True, np, folds)
    device = _ridge_moments._DeviceRidgeMoments(
        cp.asarray(X),
        cp.asarray(Y),
        None if w is None else cp.asarray(w),
        True,
        cp,
        [None if rows is None else cp.asarray(rows)],
    )
    got = device.system(0)
    expected = host.system(0)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_labels_encode_as_unique(rng, dtype):
    cp = pytest.importorskip("cupy")
    from gpuml._labels import distinct_integer_labels, encode_integer_labels

    y = rng.choice(np.array([-7, 3, 12, 40], dtype=dtype), size=1000)
    classes, indices = encode_integer_labels(cp.asarray(y), cp)
    expected, inverse = np.unique(y, return_inverse=True)
    assert classes.dtype == dtype
    np.testing.assert_array_equal(classes.get(), expected)
    np.testing.assert_array_equal(indices.get(), inverse)
    distinct = distinct_integer_labels(cp.asarray(y.reshape(100, 10)), cp)
    assert distinct.dtype == dtype
    np.testing.assert_array_equal(distinct, expected)
    wide = np.array([0, 1 << 40], dtype=np.int64)
    assert encode_integer_labels(cp.asarray(wide), cp) is None  # too wide
    assert distinct_integer_labels(cp.asarray(wide), cp) is None
    # not C-contiguous, or not int32/int64: the callers' general path
    assert distinct_integer_labels(cp.asarray(y.reshape(100, 10)).T, cp) is None
    assert distinct_integer_labels(cp.asarray(y.astype(np.float64)), cp) is None


def test_text_kernels_launch_from_the_module_that_defines_them():
    """Every kernel name that the text code launches (found in its source)
    is routed by ``_text_device._module`` to a module that defines it, and a
    template to a module that instantiates it, for both character types."""
    from pathlib import Path

    from gpuml.feature_extraction import _text_device

    folder = Path(_text_device.__file__).parent
    code = "".join(
        (folder / f"{name}.py").read_text()
        for name in ("_text_device", "_vocabulary", "_hashing", "_count", "_tfidf")
    )
    launched = set(re.findall(r'(?:_launch|_kernel)\(\s*f?"([\w]+(?:<[^"]*>)?)"', code))
    # names built first, then launched (in the two modules that do so)
    for name in ("_text_device", "_vocabulary"):
        source = (folder / f"{name}.py").read_text()
        launched |= set(re.findall(r'\bname = f?"([\w]+(?:<[^"]*>)?)"', source))
    assert {
        "term_heads",
        "span_write<{docs.ctype}>",
        "fingerprint_word_ngrams<{documents.ctype}>",
        "scan_apply",
    } <= launched
    for name in launched:
        if "{docs.ctype}" in name or "{documents.ctype}" in name:
            base = name.partition("<")[0]
            names = [f"{base}<unsigned char>", f"{base}<unsigned int>"]
        elif "{" in name:  # other templates: checked through MODULES below
            continue
        else:
            names = [name]
        for full in names:
            module = _text_device._module(full)
            assert full.partition("<")[0] in _kernels(module), (full, module)
            if "<" in full:
                assert full in _cuda.MODULES[module], (full, module)
    for module in ("text", "text_ascii", "text_unicode"):
        for expression in _cuda.MODULES[module]:
            assert _text_device._module(expression) == module, expression
    for module in ("vocabulary", "vocabulary_ascii", "vocabulary_unicode"):
        for expression in _cuda.MODULES[module]:
            assert _text_device._module(expression) == module, expression


@gpu
def test_fast_and_full_tiers_fit_alike(rng):
    """The quickly compiled tier that a first fit may run gives the fits of
    the optimised one that replaces it, bit for bit."""
    cp = pytest.importorskip("cupy")
    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.model_selection import GridSearchCV

    two = [name for name in _cuda.MODULES if len(_cuda.tiers(name)) == 2]
    if not two:
        pytest.skip("this NVRTC has no fast-compile mode: one tier only")
    gpuml.warmup(verbose=False)  # every tier compiled
    device = cp.cuda.Device().id
    X = rng.normal(size=(3_000, 20))
    y = X @ rng.normal(size=20) + rng.normal(size=3_000)
    X_d, y_d, labels = cp.asarray(X), cp.asarray(y), cp.asarray((y > 0).astype(int))

    def fits():
        ridge = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0, 10.0]}, cv=3).fit(X_d, y_d)
        logistic = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=3)
        logistic.fit(X_d, labels)
        return [
            ridge.cv_results_["mean_test_score"],
            ridge.best_estimator_.coef_.get(),
            logistic.cv_results_["mean_test_score"],
            logistic.best_estimator_.coef_.get(),
        ]

    saved = dict(_cuda._best)
    try:
        for name in two:
            _cuda._best[(name, device)] = _cuda.FAST
        fast = fits()
    finally:
        _cuda._best.update(saved)
    assert {_cuda._best[(name, device)] for name in two} == {_cuda.FULL}
    for got, expected in zip(fast, fits(), strict=True):
        np.testing.assert_array_equal(got, expected)
