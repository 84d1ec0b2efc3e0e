"""Feature extraction: text transformers in :mod:`gpuml.feature_extraction.text`."""

from gpuml import _missing
from gpuml.feature_extraction import text

__all__ = ["text"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.feature_extraction", __all__)
