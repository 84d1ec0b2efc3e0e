"""Linear models."""

from gpuml import _missing
from gpuml.linear_model._coordinate_descent import ElasticNet, Lasso
from gpuml.linear_model._coordinate_descent_cv import ElasticNetCV, LassoCV
from gpuml.linear_model._linear import LinearRegression
from gpuml.linear_model._logistic import LogisticRegression
from gpuml.linear_model._logistic_cv import LogisticRegressionCV
from gpuml.linear_model._ridge import Ridge, ridge_path
from gpuml.linear_model._ridge_classifier import RidgeClassifier, RidgeClassifierCV
from gpuml.linear_model._ridge_cv import RidgeCV

__all__ = [
    "ElasticNet",
    "ElasticNetCV",
    "Lasso",
    "LassoCV",
    "LinearRegression",
    "LogisticRegression",
    "LogisticRegressionCV",
    "Ridge",
    "RidgeCV",
    "RidgeClassifier",
    "RidgeClassifierCV",
    "ridge_path",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.linear_model", __all__)
