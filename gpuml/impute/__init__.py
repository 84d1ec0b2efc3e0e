"""Imputation of missing values: :class:`SimpleImputer` (mean, median, most
frequent value or a constant per column), :class:`KNNImputer` (the mean of
the nearest neighbours) and :class:`MissingIndicator`."""

from gpuml import _missing
from gpuml.impute._base import SimpleImputer
from gpuml.impute._indicator import MissingIndicator
from gpuml.impute._knn import KNNImputer

__all__ = ["KNNImputer", "MissingIndicator", "SimpleImputer"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.impute", __all__)
