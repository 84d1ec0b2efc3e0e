"""Model selection where the data lives.

- Splitters (:class:`KFold`, :class:`StratifiedKFold`, ...) are scikit-learn's,
  with indices in the family of ``X``.
- :class:`GridSearchCV` and :class:`RandomizedSearchCV` are scikit-learn's
  searches with a device-resident ``fit``: data uploaded once, folds indexed
  on the device, candidates batched where the estimator allows it (see
  ``_batch.py``), scores computed on the device.
  :class:`HalvingGridSearchCV` and :class:`HalvingRandomSearchCV` (scikit-learn's
  successive halving) run on the same ``fit``.
- :func:`cross_validate`, :func:`cross_val_score`, :func:`cross_val_predict`,
  :func:`validation_curve`, :func:`learning_curve` and
  :func:`permutation_test_score` run on the same machinery (in a validation
  curve, the values of the parameter form one batch per fold where the
  estimator allows it).
- Every other public name of :mod:`sklearn.model_selection` is
  scikit-learn's own object, re-exported unchanged so that
  ``gpuml.model_selection`` can replace ``sklearn.model_selection`` in an
  import:

  - the splitters :class:`GroupShuffleSplit`, :class:`LeaveOneGroupOut`,
    :class:`LeaveOneOut`, :class:`LeavePGroupsOut`, :class:`LeavePOut`,
    :class:`PredefinedSplit`, :class:`RepeatedKFold`,
    :class:`RepeatedStratifiedKFold`, :class:`StratifiedGroupKFold` and
    :class:`TimeSeriesSplit` work as ``cv=`` of gpuml's searches and
    cross-validation helpers, which index the data in its own family (called
    directly, their ``split`` returns NumPy indices); their bases
    :class:`BaseCrossValidator` and :class:`BaseShuffleSplit`, and
    :func:`check_cv`, which turns a ``cv=`` argument into a splitter as
    gpuml's searches do;
  - :class:`ParameterGrid` and :class:`ParameterSampler`, which enumerate
    candidates as gpuml's grid and randomized searches do;
  - :class:`FixedThresholdClassifier`, :class:`TunedThresholdClassifierCV`,
    :class:`LearningCurveDisplay` and :class:`ValidationCurveDisplay`, which
    run scikit-learn's own code (on host data) around any estimator, gpuml's
    included.
"""

from sklearn.model_selection import (
    BaseCrossValidator,
    BaseShuffleSplit,
    FixedThresholdClassifier,
    GroupShuffleSplit,
    LearningCurveDisplay,
    LeaveOneGroupOut,
    LeaveOneOut,
    LeavePGroupsOut,
    LeavePOut,
    ParameterGrid,
    ParameterSampler,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedGroupKFold,
    TimeSeriesSplit,
    TunedThresholdClassifierCV,
    ValidationCurveDisplay,
    check_cv,
)

from gpuml import _missing
from gpuml.model_selection._halving import HalvingGridSearchCV, HalvingRandomSearchCV
from gpuml.model_selection._search import GridSearchCV, RandomizedSearchCV
from gpuml.model_selection._split import (
    GroupKFold,
    KFold,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    split_indices,
    train_test_split,
)
from gpuml.model_selection._validation import (
    cross_val_predict,
    cross_val_score,
    cross_validate,
    learning_curve,
    permutation_test_score,
    validation_curve,
)

# gpuml's names and scikit-learn's own (see above): every public name of
# sklearn.model_selection (tests/test_public_api.py checks it).
__all__ = [
    "BaseCrossValidator",
    "BaseShuffleSplit",
    "FixedThresholdClassifier",
    "GridSearchCV",
    "GroupKFold",
    "GroupShuffleSplit",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
    "KFold",
    "LearningCurveDisplay",
    "LeaveOneGroupOut",
    "LeaveOneOut",
    "LeavePGroupsOut",
    "LeavePOut",
    "ParameterGrid",
    "ParameterSampler",
    "PredefinedSplit",
    "RandomizedSearchCV",
    "RepeatedKFold",
    "RepeatedStratifiedKFold",
    "ShuffleSplit",
    "StratifiedGroupKFold",
    "StratifiedKFold",
    "StratifiedShuffleSplit",
    "TimeSeriesSplit",
    "TunedThresholdClassifierCV",
    "ValidationCurveDisplay",
    "check_cv",
    "cross_val_predict",
    "cross_val_score",
    "cross_validate",
    "learning_curve",
    "permutation_test_score",
    "split_indices",
    "train_test_split",
    "validation_curve",
]

# scikit-learn's names that gpuml lacks: an ImportError that says what to use.
__getattr__ = _missing.module_getattr(__name__, "sklearn.model_selection", __all__)
