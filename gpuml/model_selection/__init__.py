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
"""

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

__all__ = [
    "GridSearchCV",
    "GroupKFold",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
    "KFold",
    "RandomizedSearchCV",
    "ShuffleSplit",
    "StratifiedKFold",
    "StratifiedShuffleSplit",
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
