"""Exact nearest neighbours, on the GPU for dense data."""

from gpuml import _missing
from gpuml.neighbors._unsupervised import NearestNeighbors

__all__ = ["NearestNeighbors"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.neighbors", __all__)
