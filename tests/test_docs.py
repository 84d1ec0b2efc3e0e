"""The documentation builds and the notebooks run, as a new user meets them.

Sphinx builds a copy of ``docs/`` in a temporary folder (so that nothing,
the generated API pages included, is written into the checkout) with
warnings as errors (the API pages generated from the docstrings,
numpydoc-checked; the benchmarks page is ``benchmarks/RESULTS.md``),
``docs/api.rst`` lists every public name, and
every notebook of ``notebooks/`` is executed from a clean kernel and must
run without an error. Both need the packages of the ``test`` extra (Sphinx, numpydoc,
MyST, nbclient, ipykernel); where they are missing (the GPU machine's
image) the tests are skipped.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gpuml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PACKAGES = ["gpuml"] + [  # the public ones (gpuml._cuda is private)
    f"gpuml.{info.name}"
    for info in pkgutil.iter_modules(gpuml.__path__)
    if info.ispkg and not info.name.startswith("_")
]
PUBLIC_MODULES = ["gpuml.feature_extraction.text"]  # inside the packages


def test_docs_build_with_warnings_as_errors(tmp_path):
    for module in ("sphinx", "numpydoc", "myst_parser"):
        pytest.importorskip(module)
    # Build a copy of the sources: autosummary writes the API pages next to
    # them (generated/), and the tests write nothing into the checkout.
    source = _copy_docs_sources(tmp_path / "src")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(source),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        check=False,
        # the copy's conf.py finds no gpuml beside it: document the checkout's
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *_pythonpath()])},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "html" / "index.html").exists()
    assert (source / "generated" / "gpuml.set_config.rst").exists()


def _copy_docs_sources(root: Path) -> Path:
    """``docs/`` (without build output) and what it includes from outside
    (``benchmarks/RESULTS.md``), at the same relative places under ``root``."""
    shutil.copytree(
        ROOT / "docs",
        root / "docs",
        ignore=shutil.ignore_patterns("_build", "generated"),
    )
    (root / "benchmarks").mkdir()
    shutil.copy2(ROOT / "benchmarks" / "RESULTS.md", root / "benchmarks")
    return root / "docs"


def _pythonpath() -> list[str]:
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the cell, on an error
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ has no notebook to run"


def _documented_names() -> dict[str, set[str]]:
    """``{module: names}`` of the autosummary lists of docs/api.rst."""
    documented: dict[str, set[str]] = {}
    module = None
    for line in (ROOT / "docs" / "api.rst").read_text().splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::", 1)[1].strip()
        elif line.startswith("   ") and not line.strip().startswith(":"):
            name = line.strip()
            if module and name.isidentifier():
                documented.setdefault(module, set()).add(name)
    return documented


@pytest.mark.parametrize("module", PACKAGES + PUBLIC_MODULES)
def test_api_reference_lists_every_public_name(module):
    public = set(importlib.import_module(module).__all__) - {"__version__"}
    missing = public - _documented_names().get(module, set())
    assert not missing, f"docs/api.rst lacks {sorted(missing)} of {module}"
