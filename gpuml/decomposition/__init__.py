"""Matrix decomposition: principal component analysis and truncated SVD."""

from gpuml import _missing
from gpuml.decomposition._pca import PCA
from gpuml.decomposition._truncated_svd import TruncatedSVD

__all__ = ["PCA", "TruncatedSVD"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.decomposition", __all__)
