"""The documentation builds and the notebooks run, as a new user meets them.

Sphinx builds ``docs/`` with warnings as errors (the API pages generated
from the docstrings, numpydoc-checked), and every notebook of
``notebooks/`` is executed from a clean kernel and must run without an
error. Both need the packages of the ``test`` extra (Sphinx, numpydoc,
MyST, nbclient, ipykernel); where they are missing (the GPU machine's
image) the tests are skipped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_docs_build_with_warnings_as_errors(tmp_path):
    for module in ("sphinx", "numpydoc", "myst_parser"):
        pytest.importorskip(module)
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
            str(ROOT / "docs"),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "html" / "index.html").exists()


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
