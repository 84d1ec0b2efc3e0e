"""scikit-learn's own ``test_search.py``, ``test_validation.py`` and
``test_pipeline.py``, run under the zero-code-change mode (issue 40).

``tests/sklearn_accel_plugin.py`` calls :func:`gpuml.install` (after
enabling the halving searches) before the test modules import scikit-learn's
names, so each file gets gpuml's objects for every name gpuml implements
(58 with the halving searches: the searches and cross-validation helpers,
and estimators such as ``LogisticRegression``, ``Ridge``, ``StandardScaler``,
``PCA``, ``KMeans``, ``SimpleImputer``, ``CountVectorizer``); the
pipelines, splitters, metrics and the estimators gpuml lacks stay
scikit-learn's.

Each failure must fall in a category of :data:`KNOWN` (its reason is
written there and in ``docs/differences.rst``, "Zero-code-change mode"), no
category may fail more tests than measured, and each file must pass at
least its :data:`PASSED` tests. Measured with scikit-learn 1.9.1 on the CPU,
2026-11-27:

- plain scikit-learn: ``test_search`` 141 passed, ``test_validation`` 121,
  ``test_pipeline`` 163 (425; none failed);
- under ``gpuml.install()``: 141, 121 and 162 (424), one known failure in
  ``test_pipeline``.

The skipped tests (30, 90 and 19) are skipped for both: array-API tests
without PyTorch, CuPy under ``array_api_dispatch`` or ``array_api_strict``,
and optional dataframe libraries.

The other families' files (each family harness's, ``tests/*/
test_sklearn_*suite*.py``) run under the same plugin in
``tests/test_sklearn_accel_families.py``, whose docstring has their counts.
"""

from __future__ import annotations

import subprocess
import sys

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITES = [
    SKLEARN / "model_selection" / "tests" / "test_search.py",
    SKLEARN / "model_selection" / "tests" / "test_validation.py",
    SKLEARN / "tests" / "test_pipeline.py",
]

KNOWN = {
    "test_search": [],
    "test_validation": [],
    "test_pipeline": [
        Category(
            "array_api_support tag: a FeatureUnion supports the array API "
            "when all its transformers do; gpuml's StandardScaler does not "
            "declare scikit-learn's array_api_support tag, as it computes "
            "with NumPy or CuPy by gpuml's device policy, not in the input's "
            "namespace under array_api_dispatch (a PyTorch or "
            "array_api_strict input is computed on the host as NumPy)",
            1,
            error=r"AssertionError: assert False is True",
            name="test_feature_union_array_api_support_tag",
        ),
    ],
}
PASSED = {"test_search": 141, "test_validation": 121, "test_pipeline": 162}


@sklearn19(
    SUITES,
    reason="the expected results are scikit-learn 1.9's test_search.py, "
    "test_validation.py and test_pipeline.py",
)
def test_sklearn_suites_under_install_fail_only_as_known(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_accel_plugin", SUITES, tmp_path, KNOWN, PASSED
    )


def test_the_plugin_installs_before_the_test_modules_import():
    """The swap the suites rely on, checked in a subprocess (leaving this
    one's scikit-learn alone): the halving searches are enabled first, so
    they are swapped too; what gpuml lacks stays scikit-learn's."""
    from tests.sklearn_suite import ROOT

    code = (
        "import tests.sklearn_accel_plugin as p\nfrom gpuml import _accel\n"
        "assert _accel.installed()\n"
        "assert len(p.SWAPPED) == len(set(p.SWAPPED)) == 58, p.SWAPPED\n"
        "for name in ('sklearn.model_selection.GridSearchCV',\n"
        "             'sklearn.model_selection.HalvingGridSearchCV',\n"
        "             'sklearn.model_selection.cross_validate',\n"
        "             'sklearn.preprocessing.StandardScaler',\n"
        "             'sklearn.linear_model.LogisticRegression'):\n"
        "    assert name in p.SWAPPED, name\n"
        "from sklearn.model_selection import HalvingGridSearchCV, KFold\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import Pipeline\n"
        "assert HalvingGridSearchCV.__module__.startswith('gpuml.')\n"
        "assert LogisticRegression.__module__.startswith('gpuml.')\n"
        "assert KFold.__module__.startswith('sklearn.')\n"
        "assert Pipeline.__module__.startswith('sklearn.')\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
