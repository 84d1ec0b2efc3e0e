"""scikit-learn's own ``sklearn/compose/tests/test_column_transformer.py``,
run against gpuml's ColumnTransformer (``tests/sklearn_compose_plugin.py``
swaps ``ColumnTransformer`` and ``make_column_transformer`` into
``sklearn.compose``).

Each failure must fall in a category of :data:`KNOWN` (its reason written
there and in ``docs/differences.rst``), no category may fail more tests than
measured, and the file must pass at least :data:`PASSED` tests (measured with
scikit-learn 1.9.1 on the CPU: 235 passed, none failed, 5 skipped for want of
polars; scikit-learn's own classes pass the same 235).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
import sklearn

from tests.linear_model.test_sklearn_linear_suite import Category, _failures
from tests.sklearn_suite import SKLEARN, run_sklearn_tests, suite_device

SUITE = SKLEARN / "compose" / "tests" / "test_column_transformer.py"

# No test of the file fails with gpuml's classes (scikit-learn 1.9.1, CPU).
KNOWN: list[Category] = []
PASSED = 235


@pytest.mark.skipif(
    not sklearn.__version__.startswith("1.9.") or not SUITE.exists(),
    reason="the expected results are scikit-learn 1.9's test_column_transformer.py",
)
def test_sklearn_compose_suite_fails_only_as_known(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUML_DEVICE", suite_device())
    outcome = run_sklearn_tests("tests.sklearn_compose_plugin", [SUITE], tmp_path)
    failures = _failures(tmp_path / "report.xml")
    unknown = []
    counts = Counter()
    for (_, name), text in sorted(failures.items()):
        found = [c for c in KNOWN if c.matches(name, text)]
        if found:
            counts[found[0].reason] += 1
        else:
            unknown.append(name)
    passed = sum(result == "passed" for result in outcome.values())
    measured = f"passed {passed}, failures by category {dict(counts)}"
    assert unknown == [], f"{measured}; not in a category: {unknown}"
    for category in KNOWN:
        assert counts[category.reason] <= category.most, measured
    assert passed >= PASSED, measured


def test_plugin_swaps_the_column_transformer():
    """The plugin's explicit list: gpuml.compose's own names, each one of
    scikit-learn's (read from its source: importing the plugin would swap
    them in this process)."""
    import sklearn.compose as skc

    plugin = Path(__file__).parents[1] / "sklearn_compose_plugin.py"
    swapped = None
    for node in ast.parse(plugin.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "SWAPPED":
            swapped = ast.literal_eval(node.value)
    assert sorted(swapped) == ["ColumnTransformer", "make_column_transformer"]
    assert all(hasattr(skc, name) for name in swapped)
