"""Manifold learning: UMAP, on the GPU."""

from gpuml import _missing
from gpuml.manifold._umap import UMAP

__all__ = ["UMAP"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.manifold", __all__)
