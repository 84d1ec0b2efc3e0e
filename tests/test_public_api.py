"""Every public name is listed in its package's ``__all__``, sorted."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import gpuml

PACKAGES = ["gpuml"] + [
    f"gpuml.{info.name}" for info in pkgutil.iter_modules(gpuml.__path__) if info.ispkg
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_complete_and_sorted(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert list(exported) == sorted(exported), f"{name}.__all__ is not sorted"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ lists missing {attr!r}"
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", "").startswith("gpuml")
    }
    assert public <= set(exported), f"{name} does not export {public - set(exported)}"


def test_subpackages_exist():
    assert {
        "gpuml.linear_model",
        "gpuml.metrics",
        "gpuml.model_selection",
        "gpuml.preprocessing",
    } <= set(PACKAGES)
