"""pytest plugin: scikit-learn's linear-model tests, run against gpuml's classes.

``python -m pytest -p tests.sklearn_linear_plugin <sklearn>/linear_model/
tests/test_ridge.py`` (from the repository root) runs scikit-learn's
``test_ridge.py`` (likewise ``test_logistic.py``, ``test_base.py``,
``test_coordinate_descent.py``) with every name of ``gpuml.linear_model``'s
``__all__`` that ``sklearn.linear_model`` also has replaced by gpuml's, in
the package ``sklearn.linear_model`` itself, before the test modules import
it: a class that gpuml adds later joins without an edit here.
``tests/linear_model/test_sklearn_linear_suite.py`` runs the files.

What is swapped, and what is not:

- Only the package's names. The test files take every public class and
  function from ``sklearn.linear_model``; what they import from the private
  modules (``sklearn.linear_model._ridge``, ``._logistic``) are private
  helpers that gpuml has no counterpart of (``_solve_cholesky``,
  ``_RidgeGCV``, ``_logistic_regression_path``, ...), and those stay
  scikit-learn's.
- scikit-learn's own classes keep scikit-learn's internals: its private
  modules' globals are left alone, so a scikit-learn class that gpuml does
  not replace (``MultiTaskLassoCV``, ``LassoLarsCV``, ...) builds
  scikit-learn's own models inside, with the
  solvers and private attributes it was written for, and
  ``_log_reg_scoring_path``'s scoring shell (a ``LogisticRegression`` whose
  ``coef_`` it sets by hand) stays scikit-learn's. Those tests then check
  scikit-learn's class, or compare it with gpuml's: nothing of gpuml's is
  tested through a scikit-learn helper it was not written for.
- scikit-learn's other modules keep scikit-learn's classes: every estimator
  module is imported before the swap (through scikit-learn's test-instance
  generator), so one that binds ``LogisticRegression`` at import (the
  stacking ensembles' default final estimator) binds scikit-learn's.
- ``_log_reg_scoring_path`` in ``sklearn.linear_model._logistic`` is wrapped
  to drop gpuml's own parameters (``engine``): scikit-learn's
  ``test_logistic_cv_multinomial_score`` passes a ``LogisticRegression``'s
  ``get_params()`` to that private function as keyword arguments, which a
  class with any parameter of its own fails, whatever it computes (gpuml's
  ``engine`` chooses whose kernels run on a GPU; the results are the same
  model). The wrapper is bound before the test module imports the name.

Failures' tracebacks are Python's (``--tb=native``): pytest's formatting of
the files' 460 expected failures would take longer than the tests.
"""

import functools

import sklearn.linear_model
import sklearn.linear_model._logistic

# Every scikit-learn estimator module, imported before the swap: those that
# bind a linear model from the package at import (the stacking ensembles'
# default final estimator, the test-instance generator) keep scikit-learn's.
import sklearn.utils._test_common.instance_generator

import gpuml.linear_model

# gpuml's constructor parameters that scikit-learn's classes do not have.
GPUML_ONLY_PARAMS = ("engine",)

SWAPPED = tuple(
    name for name in gpuml.linear_model.__all__ if hasattr(sklearn.linear_model, name)
)

for _name in SWAPPED:
    setattr(sklearn.linear_model, _name, getattr(gpuml.linear_model, _name))


def _without_gpuml_params(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        for name in GPUML_ONLY_PARAMS:
            kwargs.pop(name, None)
        return function(*args, **kwargs)

    return call


sklearn.linear_model._logistic._log_reg_scoring_path = _without_gpuml_params(
    sklearn.linear_model._logistic._log_reg_scoring_path
)


def pytest_configure(config):
    """Tracebacks formatted by Python (``--tb=native``): pytest's own
    formatting parses the source of every frame of every failure, about
    0.2 s a failure on two cores, which took the two files from 1.5 to 4
    minutes of CPU time for their 460 expected failures."""
    config.option.tbstyle = "native"
