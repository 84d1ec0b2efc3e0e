"""pytest plugin: scikit-learn's own model-selection tests, run against gpuml's.

``python -m pytest -p tests.sklearn_search_plugin <sklearn>/model_selection/
tests/test_search.py`` (from the repository root) runs scikit-learn's
``test_search.py`` with the searches and cross-validation helpers replaced
by gpuml's, in ``sklearn.model_selection`` itself, before the test module
imports them; likewise ``test_successive_halving.py`` with the halving
searches (enabled first, so that the test module's own
``enable_halving_search_cv`` import finds gpuml's classes in place),
``test_validation.py`` and the searches' and ``cross_validate``'s cases of
``sklearn/tests/test_metaestimators_metadata_routing.py``.
``tests/model_selection/test_sklearn_suite.py`` runs them all.

gpuml's own fall-backs to scikit-learn's functions bound them at import,
before the swap, so they still reach scikit-learn's.
"""

import sklearn.model_selection
from sklearn.experimental import enable_halving_search_cv  # noqa: F401

import gpuml.model_selection
from gpuml._accel import SEARCHES

# The searches and cross-validation helpers, as gpuml.install() swaps them.
SWAPPED = SEARCHES

for _name in SWAPPED:
    setattr(sklearn.model_selection, _name, getattr(gpuml.model_selection, _name))
