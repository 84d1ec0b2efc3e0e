"""Linear models."""

from gpuml.linear_model._logistic import LogisticRegression
from gpuml.linear_model._ridge import Ridge, ridge_path

__all__ = ["LogisticRegression", "Ridge", "ridge_path"]
