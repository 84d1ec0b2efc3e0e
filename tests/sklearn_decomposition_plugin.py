"""pytest plugin: scikit-learn's decomposition tests, run against gpuml's
PCA and TruncatedSVD.

``python -m pytest -p tests.sklearn_decomposition_plugin
<sklearn>/decomposition/tests/test_pca.py`` (from the repository root)
runs scikit-learn's ``test_pca.py`` with every name of
``gpuml.decomposition``'s ``__all__`` (``PCA``, ``TruncatedSVD``) replaced
by gpuml's in the package ``sklearn.decomposition``, before the test modules
import it. scikit-learn's other decomposition classes stay scikit-learn's,
and so do its other modules: every estimator module is imported before the
swap (through scikit-learn's test-instance generator), so one that binds
``PCA`` at import keeps scikit-learn's.
``tests/decomposition/test_sklearn_decomposition_suite.py`` runs the files.
"""

import sklearn.decomposition

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.decomposition

SWAPPED = tuple(
    name for name in gpuml.decomposition.__all__ if hasattr(sklearn.decomposition, name)
)

for _name in SWAPPED:
    setattr(sklearn.decomposition, _name, getattr(gpuml.decomposition, _name))
