"""pytest plugin: scikit-learn's tests of its discretizer and target
encoder, run against gpuml's.

``python -m pytest -p tests.sklearn_target_kbins_plugin <sklearn>/
preprocessing/tests/test_discretization.py`` (from the repository root) runs
scikit-learn's test file with ``KBinsDiscretizer`` and ``TargetEncoder``
replaced by gpuml's in the package ``sklearn.preprocessing``, before the
test modules import them. Every scikit-learn estimator module is imported
before the swap (through scikit-learn's test-instance generator), so one
that binds these names at import keeps scikit-learn's. ``tests/
preprocessing/test_sklearn_target_kbins_suite.py`` runs the files.
"""

import sklearn.preprocessing

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.preprocessing

SWAPPED = ("KBinsDiscretizer", "TargetEncoder")
assert set(SWAPPED) <= set(gpuml.preprocessing.__all__), "update SWAPPED"

for _name in SWAPPED:
    setattr(sklearn.preprocessing, _name, getattr(gpuml.preprocessing, _name))
