"""Model selection: the device-resident hyperparameter search.

The search (GridSearchCV / RandomizedSearchCV with batched candidates and Dask
dispatch, DESIGN.md §6) is built on the estimators and metrics in the other
subpackages. Until it lands, scikit-learn's own ``GridSearchCV`` works with
gpuml estimators.
"""

__all__: list[str] = []
