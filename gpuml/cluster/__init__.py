"""Clustering: k-means, its restarts fitted together on the GPU, and
mini-batch k-means."""

from gpuml import _missing
from gpuml.cluster._kmeans import KMeans
from gpuml.cluster._minibatch import MiniBatchKMeans

__all__ = ["KMeans", "MiniBatchKMeans"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.cluster", __all__)
