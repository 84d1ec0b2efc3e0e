"""Naive Bayes classifiers: counts and class statistics as matrix products."""

from gpuml import _missing
from gpuml.naive_bayes._categorical import CategoricalNB
from gpuml.naive_bayes._counts import BernoulliNB, ComplementNB, MultinomialNB
from gpuml.naive_bayes._gaussian import GaussianNB

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MultinomialNB",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.naive_bayes", __all__)
