"""Feature extraction: text transformers in :mod:`gpuml.feature_extraction.text`."""

from gpuml.feature_extraction import text

__all__ = ["text"]
