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
# Public modules inside the packages, as scikit-learn's.
MODULES = ["gpuml.feature_extraction.text"]


@pytest.mark.parametrize("name", PACKAGES + MODULES)
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
        "gpuml.feature_extraction",
        "gpuml.linear_model",
        "gpuml.metrics",
        "gpuml.model_selection",
        "gpuml.preprocessing",
    } <= set(PACKAGES)


@pytest.mark.parametrize(
    "module, name, sklearn_module",
    [
        ("gpuml.linear_model", "Lasso", "sklearn.linear_model"),
        ("gpuml.preprocessing", "MinMaxScaler", "sklearn.preprocessing"),
        (
            "gpuml.feature_extraction.text",
            "strip_accents_unicode",
            "sklearn.feature_extraction.text",
        ),
        ("gpuml.metrics", "silhouette_score", "sklearn.metrics"),
        ("gpuml.model_selection", "TimeSeriesSplit", "sklearn.model_selection"),
    ],
)
def test_a_missing_sklearn_name_says_what_to_use(module, name, sklearn_module):
    """``from gpuml.x import <scikit-learn name gpuml lacks>`` names what the
    module has and the scikit-learn import that works with gpuml."""
    package = importlib.import_module(module)
    with pytest.raises(ImportError) as info:
        exec(f"from {module} import {name}", {})
    message = str(info.value)
    assert f"from {sklearn_module} import {name}" in message
    assert ", ".join(package.__all__) in message
    # any other name is the usual missing attribute
    assert not hasattr(package, "no_such_name")
    with pytest.raises(ImportError, match="cannot import name"):
        exec(f"from {module} import no_such_name", {})


@pytest.mark.parametrize(
    "name", [name for name in PACKAGES + MODULES if not name.startswith("gpuml._")]
)
def test_every_public_name_has_examples(name):
    """numpydoc Examples (run by tests/test_doctests.py) on every public class
    and function."""
    module = importlib.import_module(name)
    lacking = [
        attr
        for attr in module.__all__
        if (inspect.isclass(getattr(module, attr)) or callable(getattr(module, attr)))
        and "Examples\n--------"
        not in inspect.cleandoc(getattr(module, attr).__doc__ or "")
    ]
    assert not lacking, f"{name}: no Examples section in {lacking}"
