"""Model selection: splitters whose indices live where the data lives.

The device-resident hyperparameter search (GridSearchCV / RandomizedSearchCV
with batched candidates and Dask dispatch, DESIGN.md §6) builds on these
splitters and on the batched scorers of :mod:`gpuml.metrics`.
"""

from gpuml.model_selection._split import (
    GroupKFold,
    KFold,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    split_indices,
    train_test_split,
)

__all__ = [
    "GroupKFold",
    "KFold",
    "ShuffleSplit",
    "StratifiedKFold",
    "StratifiedShuffleSplit",
    "split_indices",
    "train_test_split",
]
