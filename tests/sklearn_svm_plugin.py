"""pytest plugin: scikit-learn's SVM tests, run against gpuml's linear SVMs.

``python -m pytest -p tests.sklearn_svm_plugin <sklearn>/svm/tests/
test_svm.py`` (from the repository root) runs scikit-learn's ``test_svm.py``
with every name of ``gpuml.svm``'s ``__all__`` (``LinearSVC``,
``LinearSVR``) replaced by gpuml's in the package ``sklearn.svm``, before
the test modules import it. scikit-learn's libsvm classes (``SVC``, ``SVR``,
``NuSVC``, ...) stay scikit-learn's, and so do its other modules: every
estimator module is imported before the swap (through scikit-learn's
test-instance generator), so one that binds ``LinearSVC`` at import keeps
scikit-learn's. ``tests/svm/test_sklearn_svm_suite.py`` runs the file.
"""

import sklearn.svm

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.svm

SWAPPED = tuple(name for name in gpuml.svm.__all__ if hasattr(sklearn.svm, name))

for _name in SWAPPED:
    setattr(sklearn.svm, _name, getattr(gpuml.svm, _name))
