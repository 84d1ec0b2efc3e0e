"""pytest plugin: scikit-learn's own search tests, run against gpuml's searches.

``python -m pytest -p tests.sklearn_search_plugin <sklearn>/model_selection/
tests/test_search.py`` (from the repository root) runs scikit-learn's
``test_search.py`` with ``GridSearchCV`` and ``RandomizedSearchCV`` replaced
by gpuml's, in ``sklearn.model_selection`` itself, before the test module
imports them; likewise ``test_successive_halving.py`` with the halving
searches (enabled first, so that the test module's own
``enable_halving_search_cv`` import finds gpuml's classes in place).
``tests/model_selection/test_sklearn_suite.py`` runs both.
"""

import sklearn.model_selection
from sklearn.experimental import enable_halving_search_cv  # noqa: F401

import gpuml.model_selection

for _name in (
    "GridSearchCV",
    "RandomizedSearchCV",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
):
    setattr(sklearn.model_selection, _name, getattr(gpuml.model_selection, _name))
