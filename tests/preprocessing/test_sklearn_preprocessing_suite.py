"""scikit-learn's own ``sklearn/preprocessing/tests/test_data.py``, run
against gpuml's scalers (``tests/sklearn_preprocessing_plugin.py`` swaps
``MaxAbsScaler``, ``MinMaxScaler``, ``Normalizer``, ``RobustScaler`` and
``StandardScaler`` into ``sklearn.preprocessing``; the functions ``scale``,
``minmax_scale``, ``maxabs_scale``, ``robust_scale``, ``normalize`` and the
other classes stay scikit-learn's).

Each failure must fall in a category of :data:`KNOWN` (its reason written
there and in ``docs/differences.rst``), no category may fail more tests than
measured, and the file must pass at least :data:`PASSED` tests (measured with
scikit-learn 1.9.1 on the CPU: 461 passed, 269 skipped, none failed;
scikit-learn's own classes pass the same 461).
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, Category, assert_fails_only_as_known, sklearn19

SUITE = SKLEARN / "preprocessing" / "tests" / "test_data.py"

# No test of the file fails with gpuml's classes (scikit-learn 1.9.1, CPU).
KNOWN: list[Category] = []
PASSED = 461


@sklearn19([SUITE], reason="the expected results are scikit-learn 1.9's test_data.py")
def test_sklearn_preprocessing_suite_fails_only_as_known(tmp_path):
    assert_fails_only_as_known(
        "tests.sklearn_preprocessing_plugin", [SUITE], tmp_path, KNOWN, PASSED
    )


def test_plugin_swaps_every_public_preprocessing_class():
    """The plugins' explicit lists (the scalers' here, the encoders' in
    ``tests/sklearn_encoders_plugin.py``, the discretizer's and the target
    encoder's in ``tests/sklearn_target_kbins_plugin.py``, the others' in
    ``tests/sklearn_preprocessing_misc_plugin.py``) make up gpuml.preprocessing's
    ``__all__``, each name a scikit-learn class (read from their source:
    importing a plugin would swap the classes in this process)."""
    import sklearn.preprocessing as skp

    import gpuml.preprocessing
    from tests.sklearn_suite import plugin_swapped

    swapped = []
    for name in (
        "tests.sklearn_preprocessing_plugin",
        "tests.sklearn_encoders_plugin",
        "tests.sklearn_preprocessing_misc_plugin",
        "tests.sklearn_target_kbins_plugin",
    ):
        swapped += plugin_swapped(name)
    assert sorted(swapped) == sorted(gpuml.preprocessing.__all__)
    assert all(isinstance(getattr(skp, name), type) for name in swapped)
