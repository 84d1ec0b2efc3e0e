"""Linear models."""

from gpuml.linear_model._ridge import Ridge, ridge_path

__all__ = ["Ridge", "ridge_path"]
