"""pytest plugin: scikit-learn's own search tests, run against gpuml's searches.

``python -m pytest -p tests.sklearn_search_plugin <sklearn>/model_selection/
tests/test_search.py`` (from the repository root) runs scikit-learn's
``test_search.py`` with ``GridSearchCV`` and ``RandomizedSearchCV`` replaced
by gpuml's, in ``sklearn.model_selection`` itself, before the test module
imports them. ``tests/model_selection/test_sklearn_suite.py`` runs it.
"""

import sklearn.model_selection

import gpuml.model_selection

sklearn.model_selection.GridSearchCV = gpuml.model_selection.GridSearchCV
sklearn.model_selection.RandomizedSearchCV = gpuml.model_selection.RandomizedSearchCV
