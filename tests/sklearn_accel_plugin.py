"""pytest plugin: scikit-learn's own tests, run under the zero-code-change
mode (issue 40).

``python -m pytest -p tests.sklearn_accel_plugin <files>`` (from the
repository root) enables scikit-learn's halving searches, then calls
:func:`gpuml.install`, before the test modules import scikit-learn's names:
every public scikit-learn name that gpuml implements (the estimators of
``sklearn.linear_model``, ``sklearn.preprocessing``, ``sklearn.cluster``...,
and in ``sklearn.model_selection`` the searches and cross-validation helpers)
is gpuml's when the test module imports it, as in a script run by ``python
-m gpuml run``. ``tests/test_sklearn_accel_suite.py`` runs scikit-learn's
``test_search.py``, ``test_validation.py`` and ``test_pipeline.py`` with it,
``tests/test_sklearn_accel_families.py`` the files of every family harness
(``tests/*/test_sklearn_*suite*.py``). Only what :func:`gpuml.install` does
applies: none of the harness plugins' own patches.
"""

from sklearn.experimental import enable_halving_search_cv  # noqa: F401

import gpuml

# "sklearn.linear_model.Ridge"... : every name gpuml.install() swapped.
SWAPPED = tuple(gpuml.install())
