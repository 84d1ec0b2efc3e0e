"""The README's demo command runs and its three searches agree."""

from __future__ import annotations

import subprocess
import sys

import numpy as np


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


def _demo(*args):
    return subprocess.run(
        [sys.executable, "-m", "gpuml", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_demo_help_says_what_it_runs_and_the_defaults():
    result = _demo("--help")
    assert result.returncode == 0
    help_text = " ".join(result.stdout.split())
    assert "timed three ways" in help_text
    assert "(default: 400,000 on the GPU, 20,000 on the CPU)" in help_text
    assert "(auto, the default)" in help_text


def test_demo_refuses_bad_sizes_and_a_missing_gpu_without_a_traceback():
    from gpuml._backend import gpu_available

    result = _demo("--n-samples", "3")
    assert result.returncode == 2
    assert "--n-samples must be at least 10; got 3" in result.stderr
    if gpu_available():
        return  # the GPU case below needs a machine without one
    result = _demo("--device", "gpu")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "asked to compute on the GPU" in result.stderr
    assert result.stdout == ""  # nothing ran


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
