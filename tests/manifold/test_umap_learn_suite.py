"""umap-learn's own tests against gpuml's UMAP (issue 36).

umap-learn's wheel ships no tests: umap-learn 0.5.12's are kept beside the
project, in ``../shared/peer/umap-0.5.12-tests`` (see its README; the environment
variable ``GPUML_UMAP_PEER_TESTS`` names another place). The nine
files that construct UMAP run in a subprocess, from a copy of the installed
``umap`` package with those tests as its ``tests/``, with ``umap.UMAP``
bound to gpuml's class (``tests/umap_learn_plugin.py``), on each device.
With umap-learn's own class 97 pass and 2 skip. Every failure must be one
of :data:`KNOWN_FAILURES`, each listed with its reason in
docs/differences.rst; the count of passes may only grow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import DEVICES

ROOT = Path(__file__).resolve().parents[2]
# Beside the checkout; elsewhere (the GPU machine gets the checkout only)
# GPUML_UMAP_PEER_TESTS names a copy of the same directory.
PEER = Path(
    os.environ.get(
        "GPUML_UMAP_PEER_TESTS", ROOT.parent / "shared" / "peer" / "umap-0.5.12-tests"
    )
)
FILES = [
    "test_composite_models.py",
    "test_data_input.py",
    "test_densmap.py",
    "test_umap_get_feature_names_out.py",
    "test_umap_on_iris.py",
    "test_umap_ops.py",
    "test_umap_repeated_data.py",
    "test_umap_trustworthiness.py",
    "test_umap_validation_params.py",
]
# The passes (umap-learn 0.5.12, scikit-learn 1.9.1) on the CPU: 53 with
# target metrics, n_jobs, force_approximation_algorithm and unique; with
# densMAP and output_metric, the model operations, the input metrics,
# sparse input and disconnection_distance (2026-11-26): 92, of which 2
# depend on the session's random iris selection (see the iris entries
# below). On the GPU (H100): 38 when issue 36 was filed; 93-95 (2026-11-26).
PASSES = {"cpu": 90, "gpu": 90}


#: The failing cases (file, test), each with its reason in docs/differences.
KNOWN_FAILURES = {
    ("test_umap_validation_params", "test_umap_inverse_transform_fails_expectedly"),
    # a sparse precomputed fit on iris (not connected) starts at random:
    # trustworthiness 0.81-0.89 with the random selection of rows (0.85)
    ("test_umap_on_iris", "test_precomputed_sparse_transform_on_iris"),
    # supervised iris: KMeans finds the classes in 4 of 6 seeds (umap-learn's
    # in every one); the seed of this test is not one of the 4
    ("test_umap_on_iris", "test_umap_clusterability_on_supervised_iris"),
    # iris' exact float64 ties at the k-th neighbour, broken by row order:
    # the graph after update (equal to a fit on the rows in its order)
    # differs from a fit in iris' order by 1.7-3.3 with the random selection
    # of rows (allowed: 2.1 and 3.0); NN-descent's neighbours give a graph
    # 0.0056-0.0099 (rms) from gpuml's own fit (allowed: 0.005)
    ("test_umap_ops", "test_umap_update"),
    ("test_umap_ops", "test_umap_update_large"),
    ("test_umap_on_iris", "test_precomputed_knn_on_iris"),
}


def _umap_learn():
    """umap-learn 0.5.12, or None."""
    try:
        with warnings.catch_warnings():  # no TensorFlow: ParametricUMAP's warning
            warnings.simplefilter("ignore")
            import umap
    except ImportError:
        return None
    return umap if getattr(umap, "__version__", "") == "0.5.12" else None


@pytest.mark.parametrize("device", DEVICES)
def test_umap_learn_suite(tmp_path, device):
    umap = _umap_learn()
    if umap is None or not PEER.is_dir():
        pytest.skip("needs umap-learn 0.5.12 and ../shared/peer/umap-0.5.12-tests")
    package = tmp_path / "umap"
    shutil.copytree(
        Path(umap.__file__).parent, package, ignore=shutil.ignore_patterns("tests")
    )
    shutil.copytree(PEER, package / "tests")
    report = tmp_path / "report.xml"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path), *sys.path]),
        "GPUML_SUITE_DEVICE": device,
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.umap_learn_plugin"]
    command += ["-p", "no:cacheprovider", f"--junitxml={report}"]
    command += [str(package / "tests" / name) for name in FILES]
    subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=False)
    outcome = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        name = (case.get("classname").rsplit(".", 1)[-1], case.get("name"))
        outcome[name] = "failed" if failed else "skipped" if skipped else "passed"
    failed = {name for name, result in outcome.items() if result == "failed"}
    passed = sum(result == "passed" for result in outcome.values())
    print(
        f"umap-learn's suite on the {device}: {passed} passed, failed: {sorted(failed)}"
    )
    assert failed <= KNOWN_FAILURES, sorted(failed - KNOWN_FAILURES)
    assert passed >= PASSES[device]
