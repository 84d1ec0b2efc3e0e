"""pytest plugin: scikit-learn's preprocessing tests, run against gpuml's scalers.

``python -m pytest -p tests.sklearn_preprocessing_plugin <sklearn>/
preprocessing/tests/test_data.py`` (from the repository root) runs
scikit-learn's ``test_data.py`` with the names in :data:`SWAPPED`
(``MaxAbsScaler``, ``MinMaxScaler``, ``Normalizer``, ``RobustScaler`` and
``StandardScaler``: the scalers of ``gpuml.preprocessing``'s ``__all__``;
the encoders have their own plugin, ``tests/sklearn_encoders_plugin.py``;
``tests/sklearn_preprocessing_misc_plugin.py`` swaps others for their files)
replaced by gpuml's in the package ``sklearn.preprocessing``, before the test
modules import it. scikit-learn's functions (``scale``, ``minmax_scale``,
``maxabs_scale``, ``robust_scale``, ``normalize``) and its other classes
(``QuantileTransformer``, ``PowerTransformer``, ...) stay scikit-learn's, and
so do its other modules: every estimator module is imported before the swap
(through scikit-learn's test-instance generator), so one that binds a scaler
at import keeps scikit-learn's. ``tests/preprocessing/
test_sklearn_preprocessing_suite.py`` runs the file.
"""

import sklearn.preprocessing

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.preprocessing

SWAPPED = (
    "MaxAbsScaler",
    "MinMaxScaler",
    "Normalizer",
    "RobustScaler",
    "StandardScaler",
)
assert set(SWAPPED) <= set(gpuml.preprocessing.__all__), "update SWAPPED"

for _name in SWAPPED:
    setattr(sklearn.preprocessing, _name, getattr(gpuml.preprocessing, _name))
