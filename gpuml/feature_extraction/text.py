"""Text feature extraction, as :mod:`sklearn.feature_extraction.text`."""

from gpuml import _missing
from gpuml.feature_extraction._count import CountVectorizer, TfidfVectorizer
from gpuml.feature_extraction._hashing import HashingVectorizer
from gpuml.feature_extraction._tfidf import TfidfTransformer

__all__ = [
    "CountVectorizer",
    "HashingVectorizer",
    "TfidfTransformer",
    "TfidfVectorizer",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(
    __name__, "sklearn.feature_extraction.text", __all__
)
