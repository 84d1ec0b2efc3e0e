"""Linear support vector machines (liblinear's objectives)."""

from gpuml import _missing
from gpuml.svm._classes import LinearSVC, LinearSVR

__all__ = ["LinearSVC", "LinearSVR"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.svm", __all__)
