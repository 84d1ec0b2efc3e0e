"""The README's demo command runs and its three searches agree."""

from __future__ import annotations

import subprocess
import sys


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
