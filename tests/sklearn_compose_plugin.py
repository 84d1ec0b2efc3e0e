"""pytest plugin: scikit-learn's ColumnTransformer tests, run against gpuml's.

``python -m pytest -p tests.sklearn_compose_plugin <sklearn>/compose/tests/
test_column_transformer.py`` (from the repository root) runs scikit-learn's
``test_column_transformer.py`` with ``ColumnTransformer`` and
``make_column_transformer`` replaced by gpuml's in the package
``sklearn.compose``, before the test module imports them. Every
scikit-learn estimator module is imported before the swap (through
scikit-learn's test-instance generator), so one that binds them at import
keeps scikit-learn's. ``tests/compose/test_sklearn_compose_suite.py`` runs
the file.
"""

import sklearn.compose

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.compose

SWAPPED = ("ColumnTransformer", "make_column_transformer")
assert set(SWAPPED) <= set(gpuml.compose.__all__), "update SWAPPED"

for _name in SWAPPED:
    setattr(sklearn.compose, _name, getattr(gpuml.compose, _name))
