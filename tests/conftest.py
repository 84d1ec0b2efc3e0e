"""Test backends and fresh random data.

Every estimator and metric test that takes the ``backend`` fixture runs once
per backend:

- ``numpy-cpu``: NumPy input, computed with NumPy (always);
- ``numpy-gpu``: NumPy input, computed on the GPU (host in, host out);
- ``cupy-gpu``: CuPy input, computed on the GPU (device in, device out).

The GPU backends are skipped where no CUDA GPU and CuPy are usable. Random
data are fresh on every run: the seed is printed in the report header and can
be fixed with ``GPUML_TEST_SEED`` to reproduce a failure.
"""

from __future__ import annotations

import importlib.util
import os
import zlib

if os.environ.get("GPUML_TEST_GPUS") and "CUDA_VISIBLE_DEVICES" not in os.environ:
    # pytest-xdist processes spread over the machine's GPUs (benchmarks/
    # device.sh tests-gpu sets the count), before anything starts CUDA
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    os.environ["CUDA_VISIBLE_DEVICES"] = str(
        int(_worker.removeprefix("gw")) % int(os.environ["GPUML_TEST_GPUS"])
    )

if importlib.util.find_spec("cuml") is not None:
    # cuML first, where it is installed: on a machine whose CUDA toolkit is
    # older than the one cuML's wheels need, cuML cannot load its libraries
    # once CuPy has loaded the toolkit's (docs/rapids.rst).
    import cuml  # noqa: F401

import numpy as np
import pytest
import scipy.sparse as sp

from gpuml import config_context
from gpuml._array import DEVICE, HOST, to_host
from gpuml._backend import gpu_available

SEED = int(os.environ.get("GPUML_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
HAS_GPU = gpu_available()


def pytest_report_header(config):
    gpu = "yes" if HAS_GPU else "no (GPU backends skipped)"
    return [f"gpuml test seed: GPUML_TEST_SEED={SEED}", f"gpuml GPU: {gpu}"]


NO_GPU = "needs a CUDA GPU with CuPy"


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason=NO_GPU)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """On a machine without a GPU, one line for the GPU tests' skips instead
    of one per test location in the short summary (the counts are kept)."""
    stats = terminalreporter.stats
    skipped = stats.get("skipped", [])
    no_gpu = [r for r in skipped if NO_GPU in str(getattr(r, "longrepr", ""))]
    if no_gpu:
        stats["skipped"] = [r for r in skipped if r not in no_gpu]
    try:
        yield
    finally:
        if no_gpu:
            stats["skipped"] = skipped
            terminalreporter.write_line(
                f"SKIPPED {len(no_gpu)} GPU tests: {NO_GPU} (the numpy-cpu "
                "backend ran; see the report header)"
            )


class Backend:
    """An input family and a compute device, with helpers to build and check."""

    def __init__(self, name: str, family: str, device: str):
        self.name = name
        self.family = family
        self.device = device

    def __repr__(self) -> str:
        return self.name

    def asarray(self, array):
        """Put a NumPy array (or SciPy sparse matrix) into this backend's family."""
        if self.family == HOST:
            return array
        import cupy
        import cupyx.scipy.sparse as cusp

        if sp.issparse(array):
            array = sp.csr_matrix(array)
            if array.dtype.kind in "iu":  # cupyx sparse holds floats and bools
                array = array.astype(np.float64)
            return cusp.csr_matrix(array)
        return cupy.asarray(array)

    def as_format(self, X, fmt: str):
        """Dense NumPy ``X`` in this backend's family as ``"dense"``, ``"csr"``
        or ``"csc"`` (integers become float64 in cupyx, which holds floats)."""
        if fmt == "dense":
            return self.asarray(X)
        host = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
        if self.family == HOST:
            return host
        import cupyx.scipy.sparse as cusp

        host = host.astype(np.float64) if host.dtype.kind in "iu" else host
        return cusp.csr_matrix(host) if fmt == "csr" else cusp.csc_matrix(host)

    def to_numpy(self, array):
        return to_host(array)

    def assert_family(self, array, *, dtype=None, shape=None):
        """Check an output's family (host/device), dtype and shape together."""
        module = type(array).__module__.partition(".")[0]
        if self.family == HOST:
            assert module in ("numpy", "scipy"), f"expected host output, got {module}"
        else:
            assert module in ("cupy", "cupyx"), f"expected device output, got {module}"
        if dtype is not None:
            assert array.dtype == np.dtype(dtype), (array.dtype, dtype)
        if shape is not None:
            assert array.shape == tuple(shape), (array.shape, shape)


BACKENDS = [
    pytest.param(Backend("numpy-cpu", HOST, "cpu"), id="numpy-cpu"),
    pytest.param(
        Backend("numpy-gpu", HOST, "gpu"), id="numpy-gpu", marks=pytest.mark.gpu
    ),
    pytest.param(
        Backend("cupy-gpu", DEVICE, "gpu"), id="cupy-gpu", marks=pytest.mark.gpu
    ),
]
DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("gpu", id="gpu", marks=pytest.mark.gpu),
]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """A :class:`Backend`; the device policy is set for the test's duration."""
    with config_context(device=request.param.device):
        yield request.param


@pytest.fixture
def rng(request):
    """A fresh generator per test, reproducible from the printed seed."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.fixture
def lacking_crammer_singer(monkeypatch):
    """gpuml's LinearSVC made to refuse ``multi_class='crammer_singer'`` with
    :class:`gpuml.base.NotSupported`, as it did before it had that method.

    Every gpuml class now fits every setting of its scikit-learn name, so the
    accelerator's per-instance fallback to scikit-learn's class (issue 40)
    has no setting of its own to test with: this restores one, at the only
    point a real refusal would be raised (before ``fit`` changes state).
    """
    from gpuml.base import NotSupported
    from gpuml.svm import _classes

    resolve = _classes._LiblinearMixin._resolve

    def refusing(self, X, penalty, multi_class):
        if multi_class == "crammer_singer":
            raise NotSupported(
                "gpuml's LinearSVC does not support multi_class='crammer_singer' "
                "(in this test); use "
                "sklearn.svm.LinearSVC(multi_class='crammer_singer').",
                reason="multi_class='crammer_singer'",
            )
        return resolve(self, X, penalty, multi_class)

    monkeypatch.setattr(_classes._LiblinearMixin, "_resolve", refusing)
