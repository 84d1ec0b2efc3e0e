"""pytest plugin: scikit-learn's naive Bayes tests, run against gpuml's.

``python -m pytest -p tests.sklearn_naive_bayes_plugin <sklearn>/tests/
test_naive_bayes.py`` (from the repository root) runs scikit-learn's
``test_naive_bayes.py`` with every name of ``gpuml.naive_bayes``'s
``__all__`` replaced by gpuml's in the module ``sklearn.naive_bayes``,
before the test module imports it. Every scikit-learn estimator module is
imported before the swap (through scikit-learn's test-instance generator),
so one that binds a naive Bayes class at import keeps scikit-learn's.
``tests/naive_bayes/test_sklearn_naive_bayes_suite.py`` runs the file.
"""

import sklearn.naive_bayes

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.naive_bayes

SWAPPED = tuple(
    name for name in gpuml.naive_bayes.__all__ if hasattr(sklearn.naive_bayes, name)
)

for _name in SWAPPED:
    setattr(sklearn.naive_bayes, _name, getattr(gpuml.naive_bayes, _name))


def pytest_collection_modifyitems(items):
    """Refuse to run a test module that bound scikit-learn's own classes (the
    swap would then test scikit-learn, not gpuml)."""
    for module in {getattr(item, "module", None) for item in items} - {None}:
        for name in SWAPPED:
            bound = getattr(module, name, None)
            if bound is not None and bound is not getattr(gpuml.naive_bayes, name):
                raise RuntimeError(f"{module.__name__} holds scikit-learn's {name}")
