"""Scalers and other transformers used in pipelines."""

from gpuml import _missing
from gpuml.preprocessing._data import StandardScaler

__all__ = ["StandardScaler"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.preprocessing", __all__)
