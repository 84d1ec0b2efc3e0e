"""Scalers, encoders and other transformers used in pipelines."""

from gpuml import _missing
from gpuml.preprocessing._data import StandardScaler
from gpuml.preprocessing._discretization import KBinsDiscretizer
from gpuml.preprocessing._encoders import OneHotEncoder, OrdinalEncoder
from gpuml.preprocessing._function_transformer import FunctionTransformer
from gpuml.preprocessing._label import LabelBinarizer, LabelEncoder
from gpuml.preprocessing._normalize import Normalizer
from gpuml.preprocessing._polynomial import PolynomialFeatures
from gpuml.preprocessing._robust import RobustScaler
from gpuml.preprocessing._scalers import MaxAbsScaler, MinMaxScaler
from gpuml.preprocessing._spline import SplineTransformer
from gpuml.preprocessing._target_encoder import TargetEncoder

__all__ = [
    "FunctionTransformer",
    "KBinsDiscretizer",
    "LabelBinarizer",
    "LabelEncoder",
    "MaxAbsScaler",
    "MinMaxScaler",
    "Normalizer",
    "OneHotEncoder",
    "OrdinalEncoder",
    "PolynomialFeatures",
    "RobustScaler",
    "SplineTransformer",
    "StandardScaler",
    "TargetEncoder",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.preprocessing", __all__)
