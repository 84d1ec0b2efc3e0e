"""Scalers and other transformers used in pipelines."""

from gpuml.preprocessing._data import StandardScaler

__all__ = ["StandardScaler"]
