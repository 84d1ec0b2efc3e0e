"""Run scikit-learn's own test files against gpuml, in a subprocess.

A plugin module (``tests/sklearn_*_plugin.py``) swaps gpuml's classes into
scikit-learn's modules before the test files import them; the outcome of
every test case is read from pytest's JUnit report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import sklearn

ROOT = Path(__file__).resolve().parents[1]
SKLEARN = Path(sklearn.__file__).parent


def suite_device() -> str:
    """The device policy a suite runs under: ``"cpu"``, where its expected
    results were measured (and CI runs it), unless ``GPUML_SUITE_DEVICE``
    names another (``benchmarks/device.sh sklearn-gpu`` runs them on the GPU,
    where a failure not known on the CPU is one to look into)."""
    return os.environ.get("GPUML_SUITE_DEVICE", "cpu")


def run_sklearn_tests(plugin: str, files, tmp_path, select: str | None = None) -> dict:
    """``{(class name, test name): "passed" | "failed" | "skipped"}``."""
    report = tmp_path / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    command = [sys.executable, "-m", "pytest", "-q", "-p", plugin]
    command += ["-p", "no:cacheprovider", f"--junitxml={report}"]
    command.append(f"--confcutdir={SKLEARN.parent}")  # scikit-learn's fixtures
    workers = os.environ.get("GPUML_SUITE_WORKERS")
    if workers:  # pytest-xdist processes (benchmarks/device.sh sklearn-gpu)
        command += ["-n", workers, "-p", "no:benchmark"]
    if select is not None:
        command += ["-k", select]
    command += [str(f) for f in files]
    subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=False)
    keep = os.environ.get("GPUML_SUITE_REPORTS")
    if keep:  # the JUnit report, tracebacks included, kept for a later look
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(report, Path(keep) / f"{plugin.rpartition('.')[2]}.xml")
    outcome = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        outcome[case.get("classname"), case.get("name")] = (
            "failed" if failed else "skipped" if skipped else "passed"
        )
    return outcome
