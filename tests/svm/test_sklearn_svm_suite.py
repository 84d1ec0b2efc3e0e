"""scikit-learn's own ``sklearn/svm/tests/test_svm.py``, run against gpuml's
LinearSVC and LinearSVR (``tests/sklearn_svm_plugin.py`` swaps them into
``sklearn.svm``; the libsvm classes stay scikit-learn's).

No failure is known (:data:`KNOWN` is empty: any failure fails this test)
and the file must pass at least :data:`PASSED` tests: all 128, as with
scikit-learn's own classes (scikit-learn 1.9.1, CPU, 2026-11-28). Before
gpuml's LinearSVC had ``crammer_singer`` its two tests failed, and before
liblinear's sequential methods ran compiled ``test_linearsvr_fit_sampleweight``
was deselected (minutes in gpuml's Python loop; now under a second).
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "svm" / "tests" / "test_svm.py"

KNOWN: list[Category] = []
PASSED = 128


@sklearn19([SUITE], reason="the expected results are scikit-learn 1.9's test_svm.py")
def test_sklearn_svm_suite_fails_only_as_known(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_svm_plugin", [SUITE], tmp_path, KNOWN, PASSED
    )
