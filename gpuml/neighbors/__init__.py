"""Exact nearest neighbours on the GPU for dense data, and the k-nearest
neighbours classifier and regressor built on them."""

from gpuml import _missing
from gpuml.neighbors._classification import KNeighborsClassifier
from gpuml.neighbors._regression import KNeighborsRegressor
from gpuml.neighbors._unsupervised import NearestNeighbors

__all__ = ["KNeighborsClassifier", "KNeighborsRegressor", "NearestNeighbors"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.neighbors", __all__)
