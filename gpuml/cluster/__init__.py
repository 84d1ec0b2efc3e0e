"""Clustering: k-means, its restarts fitted together on the GPU."""

from gpuml import _missing
from gpuml.cluster._kmeans import KMeans

__all__ = ["KMeans"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.cluster", __all__)
