"""Metrics and scorers computed where the data lives (GPU for device inputs).

Same names, signatures and results as :mod:`sklearn.metrics`; every metric
can also score many candidates' predictions in one batched reduction (see
:class:`Scorer` and ``docs/metrics.rst``).
"""

from gpuml import _missing
from gpuml.metrics._classification import (
    accuracy_score,
    balanced_accuracy_score,
    brier_score_loss,
    confusion_matrix,
    f1_score,
    fbeta_score,
    hamming_loss,
    jaccard_score,
    log_loss,
    matthews_corrcoef,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
    top_k_accuracy_score,
    zero_one_loss,
)
from gpuml.metrics._curves import precision_recall_curve, roc_curve
from gpuml.metrics._ranking import average_precision_score, roc_auc_score
from gpuml.metrics._regression import (
    d2_absolute_error_score,
    d2_pinball_score,
    d2_tweedie_score,
    explained_variance_score,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_gamma_deviance,
    mean_pinball_loss,
    mean_poisson_deviance,
    mean_squared_error,
    mean_squared_log_error,
    mean_tweedie_deviance,
    median_absolute_error,
    r2_score,
    root_mean_squared_error,
    root_mean_squared_log_error,
)
from gpuml.metrics._scorer import (
    MultimetricScorer,
    Scorer,
    check_scoring,
    get_scorer,
    get_scorer_names,
    make_scorer,
)
from gpuml.metrics._trustworthiness import trustworthiness

__all__ = [
    "MultimetricScorer",
    "Scorer",
    "accuracy_score",
    "average_precision_score",
    "balanced_accuracy_score",
    "brier_score_loss",
    "check_scoring",
    "confusion_matrix",
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "explained_variance_score",
    "f1_score",
    "fbeta_score",
    "get_scorer",
    "get_scorer_names",
    "hamming_loss",
    "jaccard_score",
    "log_loss",
    "make_scorer",
    "matthews_corrcoef",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_error",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "median_absolute_error",
    "multilabel_confusion_matrix",
    "precision_recall_curve",
    "precision_recall_fscore_support",
    "precision_score",
    "r2_score",
    "recall_score",
    "roc_auc_score",
    "roc_curve",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
    "top_k_accuracy_score",
    "trustworthiness",
    "zero_one_loss",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.metrics", __all__)
