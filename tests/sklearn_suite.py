"""Run scikit-learn's own test files against gpuml, in a subprocess.

A plugin module (``tests/sklearn_*_plugin.py``) swaps gpuml's classes into
scikit-learn's modules before the test files import them; the outcome of
every test case is read from pytest's JUnit report.

The per-family tests (``tests/*/test_sklearn_*suite*.py``) check the outcome
with :func:`assert_fails_only_as_known`: each failure in a :class:`Category`
of theirs, no category failing more tests than measured, and at least as many
tests passed as measured.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]
SKLEARN = Path(sklearn.__file__).parent


def suite_device() -> str:
    """The device policy a suite runs under: ``"cpu"``, where its expected
    results were measured (and CI runs it), unless ``GPUML_SUITE_DEVICE``
    names another (``benchmarks/device.sh sklearn-gpu`` runs them on the GPU,
    where a failure not known on the CPU is one to look into)."""
    return os.environ.get("GPUML_SUITE_DEVICE", "cpu")


def run_sklearn_tests(
    plugin: str,
    files,
    tmp_path,
    select: str | None = None,
    env: dict | None = None,
    name: str | None = None,
) -> dict:
    """``{(class name, test name): "passed" | "failed" | "skipped"}``; ``env``
    adds to (or overrides) this process's environment for the subprocess;
    ``name`` names the report kept under ``GPUML_SUITE_REPORTS`` (the
    plugin's by default)."""
    report = tmp_path / "report.xml"
    env = {**os.environ, **(env or {})}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *sys.path])
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
        name = name or plugin.rpartition(".")[2]
        shutil.copyfile(report, Path(keep) / f"{name}.xml")
    outcome = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        outcome[case.get("classname"), case.get("name")] = (
            "failed" if failed else "skipped" if skipped else "passed"
        )
    return outcome


def _paths(suites) -> list:
    """The test files of ``suites``: a list of paths, or a dict of them."""
    return list(suites.values() if isinstance(suites, dict) else suites)


def sklearn19(suites, reason: str):
    """Skip unless scikit-learn is 1.9 and ships every file of ``suites``
    (the expected results were measured with scikit-learn 1.9's files)."""
    return pytest.mark.skipif(
        not sklearn.__version__.startswith("1.9.")
        or not all(path.exists() for path in _paths(suites)),
        reason=reason,
    )


@dataclass(frozen=True)
class Category:
    """Failures known and why: those whose traceback holds an exception
    line that ``error`` matches (from its qualified type on) and whose test
    name matches ``name``."""

    reason: str
    most: int  # measured; a category may shrink, not grow
    error: str | None = None
    name: str | None = None

    def matches(self, name: str, text: str) -> bool:
        # a line of Python's traceback (pytest's "E" lines in its own format)
        line = rf"^(?:E\s+)?[\w.]*{self.error}"
        if self.error is not None and not re.search(line, text, re.MULTILINE):
            return False
        return self.name is None or re.fullmatch(self.name, name) is not None


def failures_of(report) -> dict:
    """``{(file, test name): failure text}`` of pytest's JUnit report."""
    failures = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is not None:
            suite = case.get("classname").rsplit(".", 1)[-1]
            text = f"{failure.get('message', '')}\n{failure.text or ''}"
            failures[suite, case.get("name")] = text
    return failures


def assert_fails_only_as_known(
    plugin: str,
    suites,
    tmp_path,
    known,
    passed,
    select: str | None = None,
    device: bool = True,
) -> dict:
    """Run ``suites`` with ``plugin`` (:func:`run_sklearn_tests`) and assert
    that every failure falls in a category of ``known`` (the first that
    matches counts it), that no category fails more than its ``most`` tests,
    and that at least ``passed`` tests pass; returns the outcome.

    ``known`` and ``passed`` are a list of categories and a number for the
    files together, or dicts of them by file name (``"test_ridge"``, its
    JUnit class name's last part) for each file on its own; a failure of a
    file not in that dict is an error. The messages print what was measured.
    With ``device``, the subprocess runs under :func:`suite_device`'s policy
    (``GPUML_DEVICE``); without, under this process's.
    """
    env = {"GPUML_DEVICE": suite_device()} if device else None
    files = _paths(suites)
    outcome = run_sklearn_tests(plugin, files, tmp_path, select=select, env=env)
    check_fails_only_as_known(
        outcome, failures_of(tmp_path / "report.xml"), known, passed
    )
    return outcome


def check_fails_only_as_known(outcome: dict, failures: dict, known, passed) -> None:
    """The assertions of :func:`assert_fails_only_as_known`, on the outcome
    of a run already made (:func:`run_sklearn_tests`) and its failures
    (:func:`failures_of`): of one subprocess's report, or of the part of it
    that some files make up."""
    by_file = isinstance(known, dict)
    if not by_file:  # the files together: one group, keyed None
        known, passed = {None: known}, {None: passed}

    def group(suite):
        return suite if by_file else None

    unknown = []
    counts = Counter()
    for (suite, name), text in sorted(failures.items()):
        found = [c for c in known[group(suite)] if c.matches(name, text)]
        if found:
            counts[group(suite), found[0].reason] += 1
        else:
            unknown.append(f"{suite}::{name}" if by_file else name)
    passes = Counter(
        group(classname.rsplit(".", 1)[-1])
        for (classname, _), result in outcome.items()
        if result == "passed"
    )
    if by_file:
        measured = f"passed {dict(passes)}, failures by category {dict(counts)}"
    else:
        reasons = {reason: n for (_, reason), n in counts.items()}
        measured = f"passed {passes[None]}, failures by category {reasons}"
    assert unknown == [], f"{measured}; not in a category: {unknown}"
    for key, categories in known.items():
        for category in categories:
            assert counts[key, category.reason] <= category.most, measured
        assert passes[key] >= passed[key], measured


def plugin_swapped(plugin: str):
    """The ``SWAPPED`` names of ``plugin`` (``"tests.sklearn_x_plugin"``),
    read from its source: importing the plugin would swap the classes into
    this process's scikit-learn."""
    path = ROOT.joinpath(*plugin.split(".")).with_suffix(".py")
    swapped = None
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "SWAPPED":
            swapped = ast.literal_eval(node.value)
    assert swapped is not None, path.name
    return swapped
