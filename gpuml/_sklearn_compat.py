"""The only module that touches scikit-learn's private API.

gpuml supports scikit-learn >= 1.6. Private helpers are imported here once, so
that a rename in a future release is mended in one place.
"""

from __future__ import annotations

from sklearn.model_selection._validation import _insert_error_scores
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import (
    _assert_all_finite_element_wise,
    _check_feature_names,
    _check_n_features,
    _check_y,
    _num_samples,
)

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "assert_all_finite_element_wise",
    "check_feature_names",
    "check_n_features",
    "check_y_host",
    "insert_error_scores",
    "num_samples",
    "sklearn_scorer_spec",
    "validate_estimator_params",
    "validate_params",
]

assert_all_finite_element_wise = _assert_all_finite_element_wise
check_feature_names = _check_feature_names
check_n_features = _check_n_features
check_y_host = _check_y
# A callable ``scoring`` returning a dict: failed fits get ``error_score`` per
# metric once the metric names are known (scikit-learn's own helper).
insert_error_scores = _insert_error_scores
num_samples = _num_samples


def validate_estimator_params(estimator) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    estimator._validate_params()


def sklearn_scorer_spec(name: str):
    """``(score_func, sign, kwargs, response_method)`` of scikit-learn's scorer.

    gpuml's scorer vocabulary is scikit-learn's own table, read here, so that
    it follows the installed version. Raises scikit-learn's ValueError for an
    unknown name.
    """
    from sklearn.metrics import get_scorer

    scorer = get_scorer(name)
    return (
        scorer._score_func,
        scorer._sign,
        dict(scorer._kwargs),
        scorer._response_method,
    )
