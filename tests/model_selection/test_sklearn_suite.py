"""scikit-learn's own model-selection tests pass against gpuml's.

``test_search.py``, ``test_successive_halving.py``, ``test_validation.py``
and the metadata-routing cases of the searches and ``cross_validate`` in
``test_metaestimators_metadata_routing.py`` run in a subprocess
(``tests/sklearn_search_plugin.py`` swaps gpuml's classes and functions in),
and every test must pass, metadata routing included. The counts were taken
with scikit-learn 1.9; other releases ship other tests, so the check runs
there only.
"""

from __future__ import annotations

from tests.sklearn_suite import SKLEARN, assert_fails_only_as_known, sklearn19

TESTS = SKLEARN / "model_selection" / "tests"
ROUTING = SKLEARN / "tests" / "test_metaestimators_metadata_routing.py"
SUITES = [
    TESTS / "test_search.py",
    TESTS / "test_successive_halving.py",
    TESTS / "test_validation.py",
    ROUTING,
]
# Of the routing file, the cases of the classes and functions swapped in.
SELECTED = "not test_metaestimators_metadata_routing or SearchCV or cross_validate"


@sklearn19(SUITES, reason="the expected results are scikit-learn 1.9's test_search.py")
def test_sklearn_search_suite_passes(tmp_path):
    # 141 of test_search.py, 102 of test_successive_halving.py, 121 of
    # test_validation.py, 32 routing cases (1.9.1).
    assert_fails_only_as_known(
        "tests.sklearn_search_plugin",
        SUITES,
        tmp_path,
        [],
        396,
        select=SELECTED,
        device=False,
    )
