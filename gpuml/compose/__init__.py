"""Transformers applied to subsets of columns: :class:`ColumnTransformer`,
:func:`make_column_transformer`, and scikit-learn's
:func:`~sklearn.compose.make_column_selector` (a callable on DataFrames,
re-exported as it is)."""

from sklearn.compose import make_column_selector

from gpuml import _missing
from gpuml.compose._column_transformer import (
    ColumnTransformer,
    make_column_transformer,
)

__all__ = ["ColumnTransformer", "make_column_selector", "make_column_transformer"]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.compose", __all__)
