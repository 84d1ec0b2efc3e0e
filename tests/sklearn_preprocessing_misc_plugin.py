"""pytest plugin: scikit-learn's tests of its polynomial, label and function
transformers, run against gpuml's.

``python -m pytest -p tests.sklearn_preprocessing_misc_plugin <sklearn>/
preprocessing/tests/test_polynomial.py`` (from the repository root) runs
scikit-learn's test file with the names in :data:`SWAPPED` replaced by
gpuml's in the package ``sklearn.preprocessing``, before the test modules
import it. ``MultiLabelBinarizer`` and the function ``label_binarize``
stay scikit-learn's, and so do scikit-learn's other
modules: every estimator module is imported before the swap (through
scikit-learn's test-instance generator), so one that binds these names at
import keeps scikit-learn's. ``tests/preprocessing/
test_sklearn_preprocessing_misc_suite.py`` runs the files.
"""

import sklearn.preprocessing

# Every scikit-learn estimator module, imported before the swap.
import sklearn.utils._test_common.instance_generator

import gpuml.preprocessing

SWAPPED = (
    "FunctionTransformer",
    "LabelBinarizer",
    "LabelEncoder",
    "PolynomialFeatures",
    "SplineTransformer",
)
assert set(SWAPPED) <= set(gpuml.preprocessing.__all__), "update SWAPPED"

for _name in SWAPPED:
    setattr(sklearn.preprocessing, _name, getattr(gpuml.preprocessing, _name))
