"""scikit-learn's own ``sklearn/cluster/tests/test_k_means.py``, run against
gpuml's KMeans and MiniBatchKMeans (``tests/sklearn_cluster_plugin.py``
swaps them into ``sklearn.cluster``; the ``k_means`` function and the
private helpers, ``_mini_batch_step`` among them, stay scikit-learn's).

Every test must pass, and the file must pass at least :data:`PASSED` tests
(measured with scikit-learn 1.9.1 on the CPU: 264 passed and 18 skipped,
as with scikit-learn's own classes; the file parametrizes most of its tests
over both estimators, and its MiniBatchKMeans-only tests, of the verbose
lines, reassignment, ``init_size``, early stopping and ``n_steps_``, pass
too).
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "cluster" / "tests" / "test_k_means.py"
PASSED = 264


@sklearn19(
    [SUITE], reason="the expected results are scikit-learn 1.9's test_k_means.py"
)
def test_sklearn_kmeans_suite_passes(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_cluster_plugin", [SUITE], tmp_path, [], PASSED
    )
