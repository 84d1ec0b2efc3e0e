"""scikit-learn's own model-selection tests pass against gpuml's.

``test_search.py``, ``test_successive_halving.py``, ``test_validation.py``
and the metadata-routing cases of the searches and ``cross_validate`` in
``test_metaestimators_metadata_routing.py`` run in a subprocess
(``tests/sklearn_search_plugin.py`` swaps gpuml's classes and functions in),
and every test must pass, metadata routing included. The counts were taken
with scikit-learn 1.9; other releases ship other tests, so the check runs
there only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[2]
SKLEARN = Path(sklearn.__file__).parent
TESTS = SKLEARN / "model_selection" / "tests"
ROUTING = SKLEARN / "tests" / "test_metaestimators_metadata_routing.py"
SUITES = [
    TESTS / "test_search.py",
    TESTS / "test_successive_halving.py",
    TESTS / "test_validation.py",
    ROUTING,
]
# Of the routing file, the cases of the classes and functions swapped in.
SELECTED = "not test_metaestimators_metadata_routing or SearchCV or cross_validate"


@pytest.mark.skipif(
    not sklearn.__version__.startswith("1.9.")
    or not all(suite.exists() for suite in SUITES),
    reason="the expected results are scikit-learn 1.9's test_search.py",
)
def test_sklearn_search_suite_passes(tmp_path):
    report = tmp_path / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.sklearn_search_plugin",
            "-p",
            "no:cacheprovider",
            f"--confcutdir={SKLEARN.parent}",  # scikit-learn's conftest fixtures
            f"--junitxml={report}",
            "-k",
            SELECTED,
            *map(str, SUITES),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    cases = ET.parse(report).getroot().iter("testcase")
    outcome = {}
    for case in cases:
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        outcome[case.get("classname"), case.get("name")] = (
            "failed" if failed else "skipped" if skipped else "passed"
        )
    failed = {name for name, result in outcome.items() if result == "failed"}
    assert failed == set()
    # 141 of test_search.py, 102 of test_successive_halving.py, 121 of
    # test_validation.py, 32 routing cases (1.9.1).
    assert sum(result == "passed" for result in outcome.values()) >= 396
