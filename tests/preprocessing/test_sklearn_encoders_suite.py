"""scikit-learn's own ``sklearn/preprocessing/tests/test_encoders.py``, run
against gpuml's encoders (``tests/sklearn_encoders_plugin.py`` swaps
``OneHotEncoder`` and ``OrdinalEncoder`` into ``sklearn.preprocessing``).

Each failure must fall in a category of :data:`KNOWN` (its reason written
there and in ``docs/differences.rst``), no category may fail more tests than
measured, and the file must pass at least :data:`PASSED` tests (measured with
scikit-learn 1.9.1 on the CPU: 264 passed, none failed;
scikit-learn's own classes pass the same 264).
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "preprocessing" / "tests" / "test_encoders.py"

# No test of the file fails with gpuml's classes (scikit-learn 1.9.1, CPU).
KNOWN: list[Category] = []
PASSED = 264


@sklearn19(
    [SUITE], reason="the expected results are scikit-learn 1.9's test_encoders.py"
)
def test_sklearn_encoders_suite_fails_only_as_known(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_encoders_plugin", [SUITE], tmp_path, KNOWN, PASSED
    )


def test_plugin_swaps_the_encoders():
    """The plugin's explicit list is gpuml.preprocessing's encoders, each
    name a scikit-learn class (read from its source: importing the plugin
    would swap the classes in this process)."""
    import sklearn.preprocessing as skp

    from tests.sklearn_suite import plugin_swapped

    swapped = plugin_swapped("tests.sklearn_encoders_plugin")
    assert sorted(swapped) == ["OneHotEncoder", "OrdinalEncoder"]
    assert all(isinstance(getattr(skp, name), type) for name in swapped)
