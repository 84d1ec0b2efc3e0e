"""Every Examples section in gpuml's docstrings runs, on NumPy, as written.

Runs the doctests of every gpuml module with the device policy set to the
CPU (so that outputs are the NumPy ones the examples show, with or without a
GPU). A failing example names its module and line.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import gpuml
from gpuml import config_context

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(gpuml.__path__, prefix="gpuml.")
    if info.name != "gpuml.__main__"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    with config_context(device="cpu"):
        for test in finder.find(module, name, globs={}):
            if test.examples:
                runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)
