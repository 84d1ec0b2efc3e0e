"""The only module that touches scikit-learn's private API.

gpuml supports scikit-learn >= 1.6. Private helpers are imported here once, so
that a rename in a future release is mended in one place.
"""

from __future__ import annotations

from sklearn.utils.validation import (
    _assert_all_finite_element_wise,
    _check_feature_names,
    _check_n_features,
    _check_y,
    _num_samples,
)

__all__ = [
    "assert_all_finite_element_wise",
    "check_feature_names",
    "check_n_features",
    "check_y_host",
    "num_samples",
    "validate_params",
]

assert_all_finite_element_wise = _assert_all_finite_element_wise
check_feature_names = _check_feature_names
check_n_features = _check_n_features
check_y_host = _check_y
num_samples = _num_samples


def validate_params(estimator) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    estimator._validate_params()
