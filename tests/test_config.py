"""The device policy, lazy imports and the no-GPU error."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import gpuml
from gpuml import _backend, config_context, get_config, set_config
from gpuml._backend import NoGPUError, resolve_device
from gpuml.linear_model import Ridge


def test_default_and_set_config_round_trip():
    assert get_config()["device"] in ("auto", "gpu", "cpu")
    old = get_config()["device"]
    set_config(device="cpu")
    try:
        assert get_config() == {"device": "cpu"}
        assert resolve_device() == "cpu"
    finally:
        set_config(device=old)
    assert get_config()["device"] == old


def test_config_context_restores_even_on_error():
    before = get_config()
    with pytest.raises(RuntimeError), config_context(device="cpu"):
        assert get_config()["device"] == "cpu"
        raise RuntimeError
    assert get_config() == before


def test_config_is_thread_local():
    seen = []
    with config_context(device="cpu"):
        thread = threading.Thread(target=lambda: seen.append(get_config()["device"]))
        thread.start()
        thread.join()
    assert seen == [os.environ.get("GPUML_DEVICE", "auto")]


@pytest.mark.parametrize("bad", ["GPU!", "cuda", 1])
def test_invalid_device_is_rejected(bad):
    with pytest.raises(ValueError, match="device must be one of 'auto', 'gpu', 'cpu'"):
        set_config(device=bad)


def _import_gpuml(device: str) -> subprocess.CompletedProcess:
    code = "import gpuml; print(gpuml.get_config()['device'])"
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "GPUML_DEVICE": device},
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    ("value", "device"), [("cpu", "cpu"), (" GPU ", "gpu"), ("", "auto")]
)
def test_environment_variable_sets_the_default(value, device):
    result = _import_gpuml(value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == device
    assert result.stderr == ""


@pytest.mark.parametrize("bad", ["cuda", "tpu"])
def test_a_bad_environment_variable_warns_at_import_and_means_auto(bad):
    result = _import_gpuml(bad)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "auto"
    # one line, attributed to the code that imported gpuml (here `-c`), which
    # names the variable, the value, the valid ones and the fix
    [line] = result.stderr.splitlines()
    assert line.startswith("<string>:1: UserWarning: GPUML_DEVICE must be one of ")
    assert f"'auto', 'gpu', 'cpu'; got {bad!r}." in line
    assert "set GPUML_DEVICE to auto, gpu or cpu, or unset it" in line


def test_import_gpuml_imports_no_gpu_dask_or_rapids_module():
    code = (
        "import sys, gpuml, gpuml.linear_model, gpuml.preprocessing, gpuml.metrics, "
        "gpuml.model_selection, gpuml.manifold, gpuml.neighbors, "
        "gpuml.feature_extraction.text\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('cupy', 'cupyx', 'dask', 'distributed', 'dask_cuda', 'cudf', 'cuml', "
        "'rmm', 'torch', 'umap')]\n"
        "print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.fixture
def no_gpu(monkeypatch):
    """Pretend CuPy is missing, whatever this machine has."""
    monkeypatch.setattr(
        _backend, "_probe_cupy", lambda: (None, "CuPy is not installed")
    )


def test_gpu_without_gpu_names_the_fix(no_gpu):
    with config_context(device="gpu"):
        with pytest.raises(NoGPUError, match="asked to compute on the GPU") as info:
            resolve_device()
        message = str(info.value)
        assert "pip install 'gpuml[cuda13]'" in message
        assert "device='cpu'" in message and "GPUML_DEVICE=cpu" in message
        with pytest.raises(NoGPUError):
            Ridge().fit(np.ones((3, 2)), np.ones(3))
    with config_context(device="auto"):
        assert resolve_device() == "cpu"
        Ridge().fit(np.eye(3), np.ones(3))


def test_show_versions(capsys):
    gpuml.show_versions()
    out = capsys.readouterr().out
    assert f"gpuml: {gpuml.__version__}" in out
    assert "scikit-learn:" in out and "GPU" in out
