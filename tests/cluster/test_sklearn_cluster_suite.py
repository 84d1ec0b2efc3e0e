"""scikit-learn's own ``sklearn/cluster/tests/test_k_means.py``, run against
gpuml's KMeans (``tests/sklearn_cluster_plugin.py`` swaps it into
``sklearn.cluster``; MiniBatchKMeans, the ``k_means`` function and the
private helpers stay scikit-learn's).

Every test must pass, and the file must pass at least :data:`PASSED` tests
(measured with scikit-learn 1.9.1 on the CPU: 264 passed and 18 skipped,
as with scikit-learn's own KMeans).
"""

from __future__ import annotations

import pytest
import sklearn

from tests.linear_model.test_sklearn_linear_suite import _failures
from tests.sklearn_suite import SKLEARN, run_sklearn_tests, suite_device

SUITE = SKLEARN / "cluster" / "tests" / "test_k_means.py"
PASSED = 264


@pytest.mark.skipif(
    not sklearn.__version__.startswith("1.9.") or not SUITE.exists(),
    reason="the expected results are scikit-learn 1.9's test_k_means.py",
)
def test_sklearn_kmeans_suite_passes(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUML_DEVICE", suite_device())
    outcome = run_sklearn_tests("tests.sklearn_cluster_plugin", [SUITE], tmp_path)
    failures = _failures(tmp_path / "report.xml")
    passed = sum(result == "passed" for result in outcome.values())
    assert sorted(name for _, name in failures) == [], f"passed {passed}"
    assert passed >= PASSED, f"passed {passed}"
