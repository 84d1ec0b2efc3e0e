"""scikit-learn's own text tests pass against gpuml's CountVectorizer,
HashingVectorizer, TfidfTransformer and TfidfVectorizer.

``sklearn/feature_extraction/tests/test_text.py`` runs in a subprocess with
gpuml's classes swapped in (``tests/sklearn_text_plugin.py``); every test
must pass. The count was taken with scikit-learn 1.9.1.
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "feature_extraction" / "tests" / "test_text.py"
PASSED = 131


@sklearn19([SUITE], reason="the expected results are scikit-learn 1.9's test_text.py")
def test_sklearn_text_suite_passes(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_text_plugin", [SUITE], tmp_path, [], PASSED, device=False
    )
