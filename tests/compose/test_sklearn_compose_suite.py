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

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "compose" / "tests" / "test_column_transformer.py"

# No test of the file fails with gpuml's classes (scikit-learn 1.9.1, CPU).
KNOWN: list[Category] = []
PASSED = 235


@sklearn19(
    [SUITE],
    reason="the expected results are scikit-learn 1.9's test_column_transformer.py",
)
def test_sklearn_compose_suite_fails_only_as_known(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_compose_plugin", [SUITE], tmp_path, KNOWN, PASSED
    )


def test_plugin_swaps_the_column_transformer():
    """The plugin's explicit list: gpuml.compose's own names, each one of
    scikit-learn's (read from its source: importing the plugin would swap
    them in this process)."""
    import sklearn.compose as skc

    from tests.sklearn_suite import plugin_swapped

    swapped = plugin_swapped("tests.sklearn_compose_plugin")
    assert sorted(swapped) == ["ColumnTransformer", "make_column_transformer"]
    assert all(hasattr(skc, name) for name in swapped)
