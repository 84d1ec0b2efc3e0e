"""scikit-learn's own text tests pass against gpuml's CountVectorizer,
HashingVectorizer, TfidfTransformer and TfidfVectorizer.

``sklearn/feature_extraction/tests/test_text.py`` runs in a subprocess with
gpuml's classes swapped in (``tests/sklearn_text_plugin.py``); every test
must pass. The count was taken with scikit-learn 1.9.1.
"""

from __future__ import annotations

import pytest
import sklearn

from tests.sklearn_suite import SKLEARN, run_sklearn_tests

SUITE = SKLEARN / "feature_extraction" / "tests" / "test_text.py"


@pytest.mark.skipif(
    not sklearn.__version__.startswith("1.9.") or not SUITE.exists(),
    reason="the expected results are scikit-learn 1.9's test_text.py",
)
def test_sklearn_text_suite_passes(tmp_path):
    outcome = run_sklearn_tests("tests.sklearn_text_plugin", [SUITE], tmp_path)
    failed = {name for name, result in outcome.items() if result == "failed"}
    assert failed == set()
    assert sum(result == "passed" for result in outcome.values()) >= 131
