"""pytest plugin: scikit-learn's encoder tests, run against gpuml's encoders.

``python -m pytest -p tests.sklearn_encoders_plugin <sklearn>/preprocessing/
tests/test_encoders.py`` (from the repository root) runs scikit-learn's
``test_encoders.py`` with ``OneHotEncoder`` and ``OrdinalEncoder`` replaced
by gpuml's in the package ``sklearn.preprocessing``, before the test module
imports them. Every scikit-learn estimator module is imported before the
swap (through scikit-learn's test-instance generator), so one that binds an
encoder at import keeps scikit-learn's. ``tests/preprocessing/
test_sklearn_encoders_suite.py`` runs the file.
"""

import sklearn.preprocessing

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.preprocessing

SWAPPED = ("OneHotEncoder", "OrdinalEncoder")
assert set(SWAPPED) <= set(gpuml.preprocessing.__all__), "update SWAPPED"

for _name in SWAPPED:
    setattr(sklearn.preprocessing, _name, getattr(gpuml.preprocessing, _name))
