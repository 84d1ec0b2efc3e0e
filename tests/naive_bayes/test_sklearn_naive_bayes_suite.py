"""scikit-learn's own ``sklearn/tests/test_naive_bayes.py``, run against
gpuml's naive Bayes classifiers (``tests/sklearn_naive_bayes_plugin.py``
swaps all five into ``sklearn.naive_bayes``), with its float32 cases on
(``SKLEARN_RUN_FLOAT32_TESTS=1``).

Each failure must fall in a category of :data:`KNOWN` (its reason written
there and in ``docs/differences.rst``), no category may fail more tests than
measured, and the file must pass at least :data:`PASSED` tests: measured with
scikit-learn 1.9.1 on the CPU, gpuml's classes pass 87, as scikit-learn's
own do (the other 60 are array-API tests, skipped for both without PyTorch,
CuPy under ``array_api_dispatch``, dpnp or ``array_api_strict``).
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "tests" / "test_naive_bayes.py"

# No failure is known: a category added here needs its reason in
# docs/differences.rst.
KNOWN: list[Category] = []
PASSED = 87


@sklearn19(
    [SUITE], reason="the expected results are scikit-learn 1.9's test_naive_bayes.py"
)
def test_sklearn_naive_bayes_suite_fails_only_as_known(tmp_path, monkeypatch):
    monkeypatch.setenv("SKLEARN_RUN_FLOAT32_TESTS", "1")
    assert_fails_only_as_known(
        "tests.sklearn_naive_bayes_plugin", [SUITE], tmp_path, KNOWN, PASSED
    )
