"""The performance-regression guard (benchmarks/compare_trees.py): what it
can check without a GPU (its report, its references, its errors)."""

from __future__ import annotations

import json

import pytest

from benchmarks import compare_trees as guard

H100 = "NVIDIA H100 80GB HBM3"


def test_report_gives_ratios_of_minima_and_flags_slower_warm_searches():
    results = {
        "ref": {"R64": {"warm": [0.10, 0.12], "first_cold": [1.0]}},
        "this": {"R64": {"warm": [0.11, 0.2], "first_cold": [2.0]}},
    }
    lines = guard.report(results, ["ref", "this"], ["R64"])
    warm = next(line for line in lines if "| warm |" in line)
    cold = next(line for line in lines if "empty cache" in line)
    assert "1.10 SLOWER" in warm and "0.1000 / 0.1100" in warm
    assert "2.00" in cold and "SLOWER" not in cold  # first use: reported only
    results["this"]["R64"]["warm"] = [0.104]
    warm = next(
        line
        for line in guard.report(results, ["ref", "this"], ["R64"])
        if "warm" in line
    )
    assert "1.04" in warm and "SLOWER" not in warm


def test_report_marks_what_a_reference_lacks():
    results = {"ref": {}, "this": {"W1": {"warm": [0.1]}}}
    (line,) = [line for line in guard.report(results, ["ref", "this"], ["W1"])][2:]
    assert line.endswith("| - | 0.1000 / 0.1000 | - |")


def test_stored_reference_of_the_h100_is_kept():
    path = guard.reference_path(H100)
    assert path.name == "nvidia-h100-80gb-hbm3.json"
    stored = json.loads(path.read_text())
    assert stored["gpu"] == H100 and not stored["quick"]
    assert set(stored["workloads"]) <= set(guard.WORKLOADS)
    assert all(stored["workloads"][name]["warm"] for name in stored["workloads"])


def test_a_stored_run_of_another_gpu_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(guard, "gpu_name", lambda: "NVIDIA H200")
    with pytest.raises(SystemExit, match="measured on 'NVIDIA H100 80GB HBM3'"):
        guard.resolve(str(guard.reference_path(H100)), tmp_path)
    with pytest.raises(SystemExit, match="no stored reference for this GPU"):
        guard.resolve("stored", tmp_path)


def test_references_that_are_not_trees_or_commits_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="holds no gpuml/ source tree"):
        guard.resolve(str(tmp_path), tmp_path)
    with pytest.raises(SystemExit, match="neither a folder, a stored JSON run"):
        guard.resolve("no-such-commit-here", tmp_path)


def test_a_commit_becomes_a_source_tree(tmp_path):
    if not (guard.HERE / ".git").exists():
        pytest.skip("not a git checkout")
    tree = guard.resolve("HEAD", tmp_path)
    assert (tree / "gpuml" / "__init__.py").is_file()
    assert (tree / "gpuml" / "_cuda" / "arrays.cu").is_file()


def test_a_reference_or_save_is_required(capsys):
    with pytest.raises(SystemExit):
        guard.main([])
    assert "give a REF to compare with, or --save PATH" in capsys.readouterr().err
