"""The README's demo command runs and its three searches agree."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import HAS_GPU


def test_demo_runs_and_agrees():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuml",
            "--device",
            "cpu",
            "--n-samples",
            "3000",
            "--n-features",
            "16",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    assert "computing on the CPU" in out
    assert "all methods chose the same alpha" in out, out
    # each run says when it starts and how long it took, then the table
    for step in ("[1/3] scikit-learn", "[2/3] scikit-learn", "[3/3] gpuml"):
        assert step in out, out
    assert "best alpha" in out and "best R²" in out
    # the data have signal: the best model explains most of the target
    table = ("scikit-learn GridSearchCV(", "gpuml GridSearchCV(")
    scores = {
        float(line.split()[-1]) for line in out.splitlines() if line.startswith(table)
    }
    assert len(scores) == 1 and 0.6 < scores.pop() < 0.9, out


def test_demo_logistic_without_sklearn_runs():
    result = _demo(
        "--device",
        "cpu",
        "--estimator",
        "logistic",
        "--no-sklearn",
        "--n-samples",
        "2000",
        "--n-features",
        "8",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "[1/1] gpuml GridSearchCV(gpuml LogisticRegression)" in out
    assert "scikit-learn GridSearchCV" not in out
    [row] = [line for line in out.splitlines() if line.startswith("gpuml Grid")]
    seconds, speedup, best_c, accuracy = row.split()[-4:]
    assert float(seconds) > 0 and speedup == "-" and 0.5 < float(accuracy) <= 1.0
    assert float(best_c) in {float(f"{c:.4g}") for c in np.logspace(-4, 1, 8)}


def _demo(*args, env=None, hide=()):
    """``python -m gpuml *args``, as a user runs it; ``env`` adds environment
    variables, ``hide`` names modules to make unimportable (a missing extra:
    then runpy runs the module as ``-m`` does, after a ``None`` is put in
    ``sys.modules`` for each)."""
    command = [sys.executable, "-m", "gpuml", *args]
    if hide:
        code = (
            f"import runpy, sys; sys.modules.update(dict.fromkeys({list(hide)!r})); "
            "runpy.run_module('gpuml', run_name='__main__', alter_sys=True)"
        )
        command = [sys.executable, "-c", code, *args]
    return subprocess.run(
        command,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _one_line_naming(result, *fixes):
    """The program ended before any work with one line naming the fix(es),
    exit status 2 and no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""  # nothing ran
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("python -m gpuml: ")
    for fix in fixes:
        assert fix in line
    return line


def test_demo_help_says_what_it_runs_the_defaults_and_warmup():
    result = _demo("--help")
    assert result.returncode == 0
    help_text = " ".join(result.stdout.split())
    assert "timed three ways" in help_text
    assert "(default: 400,000 on the GPU, 20,000 on the CPU)" in help_text
    assert "(default: GPUML_DEVICE when set, else auto)" in help_text
    assert "python -m gpuml warmup [--quiet]" in help_text
    assert "pip install 'gpuml[dask]'" in help_text


def test_demo_warmup_subcommand_is_dispatched():
    result = _demo("warmup", "--help")
    assert result.returncode == 0
    assert "usage: python -m gpuml warmup" in result.stdout


def test_demo_refuses_bad_sizes():
    result = _demo("--n-samples", "3")
    assert result.returncode == 2
    assert "--n-samples must be at least 10; got 3" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(HAS_GPU, reason="checks the message without a GPU")
def test_demo_gpu_without_a_gpu_names_the_cli_fix():
    line = _one_line_naming(
        _demo("--device", "gpu"),
        "--device gpu asks for the GPU, but CuPy",
        "pip install 'gpuml[cuda13]'",
        "or run with --device cpu (or --device auto).",
    )
    assert "set_config" not in line  # the CLI's own option is the fix
    _one_line_naming(
        _demo(env={"GPUML_DEVICE": "gpu"}),
        "GPUML_DEVICE=gpu asks for the GPU",
        "or run with --device cpu (or --device auto).",
    )


def test_demo_dask_without_the_extra_names_it_before_any_search():
    _one_line_naming(
        _demo("--device", "cpu", "--dask", hide=["distributed"]),
        "--dask needs the dask extra",
        "pip install 'gpuml[dask]', or run without --dask.",
    )


def test_demo_out_of_memory_names_the_options():
    # 10**15 rows of 64 float32 (256 PB) exceed any address space: NumPy's
    # allocation fails at once
    _one_line_naming(
        _demo("--device", "cpu", "--n-samples", str(10**15)),
        "out of memory",
        "run with a smaller --n-samples or --n-features.",
    )


def test_demo_follows_gpuml_device_and_its_option_wins_over_a_bad_one():
    small = ("--no-sklearn", "--n-samples", "200", "--n-features", "4")
    result = _demo(*small, env={"GPUML_DEVICE": "cpu"})
    assert result.returncode == 0, result.stderr
    assert "computing on the CPU" in result.stdout
    assert result.stderr == ""
    result = _demo("--device", "cpu", *small, env={"GPUML_DEVICE": "cuda"})
    assert result.returncode == 0, result.stderr
    assert "computing on the CPU" in result.stdout
    [line] = result.stderr.splitlines()  # the bad value reported in one line
    assert "GPUML_DEVICE must be one of 'auto', 'gpu', 'cpu'; got 'cuda'." in line
    assert "unset it" in line


def test_demo_text_pipeline_runs_and_agrees():
    result = _demo(
        "--device", "cpu", "--estimator", "text", "--n-samples", "300",
        "--n-features", "30",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "300 documents of 30 words; text pipeline, 4 values of C" in out, out
    assert "[3/3] gpuml GridSearchCV(gpuml text pipeline)" in out, out
    assert "all methods chose the same C" in out, out
