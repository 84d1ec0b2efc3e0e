"""pytest plugin: scikit-learn's k-means tests, run against gpuml's KMeans
and MiniBatchKMeans.

``python -m pytest -p tests.sklearn_cluster_plugin <sklearn>/cluster/tests/
test_k_means.py`` (from the repository root) runs scikit-learn's
``test_k_means.py`` with every name of ``gpuml.cluster``'s ``__all__``
(``KMeans``, ``MiniBatchKMeans``) replaced by gpuml's in the package
``sklearn.cluster``, before the test modules import it. The ``k_means``
function and scikit-learn's private helpers (``_mini_batch_step`` and
``_labels_inertia``, which some tests call directly) stay scikit-learn's,
and so do its other modules: every estimator module is imported before the
swap (through scikit-learn's test-instance generator), so one that binds
``KMeans`` at import keeps scikit-learn's.
``tests/cluster/test_sklearn_cluster_suite.py`` runs the file.
"""

import sklearn.cluster

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.cluster

SWAPPED = tuple(
    name for name in gpuml.cluster.__all__ if hasattr(sklearn.cluster, name)
)

for _name in SWAPPED:
    setattr(sklearn.cluster, _name, getattr(gpuml.cluster, _name))
