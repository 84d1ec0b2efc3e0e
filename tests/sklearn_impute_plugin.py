"""pytest plugin: scikit-learn's imputation tests, run against gpuml's
SimpleImputer, KNNImputer and MissingIndicator.

``python -m pytest -p tests.sklearn_impute_plugin
<sklearn>/impute/tests/test_impute.py`` (from the repository root) runs
scikit-learn's ``test_impute.py`` with every name of ``gpuml.impute``'s
``__all__`` (``SimpleImputer``, ``KNNImputer``, ``MissingIndicator``)
replaced by gpuml's in the package ``sklearn.impute``, before the test
modules import it. scikit-learn's ``IterativeImputer`` stays scikit-learn's
(and keep scikit-learn's SimpleImputer inside: ``sklearn.impute._iterative``
binds it at import, before the swap), and so do its other modules: every
estimator module is imported before the swap (through scikit-learn's
test-instance generator). ``tests/impute/test_sklearn_impute_suite.py`` runs
the files.
"""

import sklearn.impute

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.impute

SWAPPED = tuple(name for name in gpuml.impute.__all__ if hasattr(sklearn.impute, name))

for _name in SWAPPED:
    setattr(sklearn.impute, _name, getattr(gpuml.impute, _name))
