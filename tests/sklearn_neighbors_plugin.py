"""pytest plugin: scikit-learn's neighbours tests, run against gpuml's classes.

``python -m pytest -p tests.sklearn_neighbors_plugin <sklearn>/neighbors/
tests/test_neighbors.py`` (from the repository root) runs scikit-learn's
``test_neighbors.py`` with every name of ``gpuml.neighbors``' ``__all__``
(``KNeighborsClassifier``, ``KNeighborsRegressor``, ``NearestNeighbors``)
replaced by gpuml's in the package ``sklearn.neighbors``, before the test
modules import it. scikit-learn's other neighbours classes (the radius
estimators, ``KNeighborsTransformer``, the trees...) stay scikit-learn's,
and so do its other modules: every estimator module is imported before the
swap (through scikit-learn's test-instance generator), so one that binds a
swapped name at import keeps scikit-learn's. With ``GPUML_SWAP`` set to a
comma-separated list of names, only those are swapped.
``tests/neighbors/test_sklearn_neighbors_suite.py`` runs the file.
"""

import os

import sklearn.neighbors

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.neighbors

_ONLY = os.environ.get("GPUML_SWAP")
SWAPPED = tuple(
    name
    for name in gpuml.neighbors.__all__
    if hasattr(sklearn.neighbors, name) and (not _ONLY or name in _ONLY.split(","))
)

for _name in SWAPPED:
    setattr(sklearn.neighbors, _name, getattr(gpuml.neighbors, _name))
