"""Every public name is listed in its package's ``__all__``, sorted; every
public module and name of scikit-learn is gpuml's or raises an error that says
what to use instead, so that swapping ``sklearn`` for ``gpuml`` in an import
works or explains itself."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys

import pytest
import sklearn

import gpuml
from gpuml._missing import ModuleNotInGpuml, NotInGpuml

PACKAGES = ["gpuml"] + [
    f"gpuml.{info.name}" for info in pkgutil.iter_modules(gpuml.__path__) if info.ispkg
]
# Public modules inside the packages, as scikit-learn's.
MODULES = ["gpuml.feature_extraction.text"]


def _is_gpumls(value) -> bool:
    """Defined by gpuml, not re-exported from scikit-learn."""
    return getattr(value, "__module__", "").startswith("gpuml")


def _public(name: str) -> bool:
    """Not private, not a test module (scikit-learn's ``tests``, ``conftest``)."""
    return not name.startswith(("_", "test")) and name != "conftest"


def _sklearn_modules(package=sklearn, gpuml_prefix="gpuml") -> list[tuple[str, bool]]:
    """``(name, gpuml has it)`` for scikit-learn's public modules (``sklearn.x``,
    with ``x`` as in gpuml), descending into the packages gpuml has."""
    gpuml_package = importlib.import_module(gpuml_prefix)
    has = {info.name for info in pkgutil.iter_modules(gpuml_package.__path__)}
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if not _public(info.name):
            continue
        name = f"{package.__name__}.{info.name}"
        found.append((name, info.name in has))
        if info.ispkg and info.name in has:
            found += _sklearn_modules(
                importlib.import_module(name), f"{gpuml_prefix}.{info.name}"
            )
    return found


SKLEARN_MODULES = _sklearn_modules()
SKLEARN_HAD = [name for name, has in SKLEARN_MODULES if has]
SKLEARN_LACKED = [name for name, has in SKLEARN_MODULES if not has]


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


ESTIMATOR_USE = "works with gpuml (in Pipelines and gpuml's searches, on host data)"
OTHER_USE = "works alongside gpuml, on host data"


@pytest.mark.parametrize(
    "module, name, sklearn_module, use",
    [
        ("gpuml.linear_model", "LassoLars", "sklearn.linear_model", ESTIMATOR_USE),
        (
            "gpuml.preprocessing",
            "QuantileTransformer",
            "sklearn.preprocessing",
            ESTIMATOR_USE,
        ),
        ("gpuml.svm", "SVC", "sklearn.svm", ESTIMATOR_USE),
        (
            "gpuml.feature_extraction.text",
            "strip_accents_unicode",
            "sklearn.feature_extraction.text",
            OTHER_USE,
        ),
        ("gpuml.metrics", "silhouette_score", "sklearn.metrics", OTHER_USE),
        ("gpuml.metrics", "ConfusionMatrixDisplay", "sklearn.metrics", OTHER_USE),
    ],
)
def test_a_missing_sklearn_name_says_what_to_use(module, name, sklearn_module, use):
    """``from gpuml.x import <scikit-learn name gpuml lacks>`` names what the
    module has and the scikit-learn import that works with gpuml, worded for
    an estimator (Pipelines, searches) or anything else (a metric, a display:
    nothing is fitted)."""
    package = importlib.import_module(module)
    with pytest.raises(NotInGpuml) as info:
        exec(f"from {module} import {name}", {})
    message = str(info.value)
    assert f"from {sklearn_module} import {name}" in message
    assert ", ".join(package.__all__) in message
    assert f"scikit-learn's {name} {use}" in message
    if use == OTHER_USE:
        assert "fitted" not in message and "Pipeline" not in message
    # any other name is the usual missing attribute
    assert not hasattr(package, "no_such_name")
    with pytest.raises(ImportError, match="cannot import name"):
        exec(f"from {module} import no_such_name", {})


@pytest.mark.parametrize(
    "name", [name for name in PACKAGES + MODULES if not name.startswith("gpuml._")]
)
def test_every_public_name_has_examples(name):
    """numpydoc Examples (run by tests/test_doctests.py) on every public class
    and function of gpuml's own (not scikit-learn's, re-exported)."""
    module = importlib.import_module(name)
    lacking = [
        attr
        for attr in module.__all__
        if _is_gpumls(getattr(module, attr))
        and (inspect.isclass(getattr(module, attr)) or callable(getattr(module, attr)))
        and "Examples\n--------"
        not in inspect.cleandoc(getattr(module, attr).__doc__ or "")
    ]
    assert not lacking, f"{name}: no Examples section in {lacking}"


def test_the_walk_finds_scikit_learns_modules():
    assert {
        "sklearn.linear_model",
        "sklearn.feature_extraction.text",
        "sklearn.svm",
    } <= set(SKLEARN_HAD)
    assert {
        "sklearn.covariance",
        "sklearn.ensemble",
        "sklearn.metrics.pairwise",
        "sklearn.feature_extraction.image",
    } <= set(SKLEARN_LACKED)
    assert not [name for name, _ in SKLEARN_MODULES if ".tests" in name]


@pytest.mark.parametrize("sklearn_module", SKLEARN_HAD)
def test_every_sklearn_name_is_gpumls_or_says_what_to_use(sklearn_module):
    """Each name of a scikit-learn module's ``__all__`` that gpuml has too:
    gpuml's, or ``from gpuml.x import Name`` raises :class:`NotInGpuml` with
    the scikit-learn import (a submodule: :class:`ModuleNotInGpuml`)."""
    module = "gpuml" + sklearn_module.removeprefix("sklearn")
    sk = importlib.import_module(sklearn_module)
    unexplained = []
    for name in getattr(sk, "__all__", ()):
        try:
            exec(f"from {module} import {name}", {})
        except ModuleNotInGpuml as error:
            if f"from {sklearn_module}.{name} import" not in str(error):
                unexplained.append(name)
        except NotInGpuml as error:
            if f"from {sklearn_module} import {name}" not in str(error):
                unexplained.append(name)
        except ImportError:
            unexplained.append(name)
    assert not unexplained, f"{module}: bare ImportError for {unexplained}"


def test_model_selection_has_every_sklearn_name():
    """``import gpuml.model_selection as ms`` replaces scikit-learn's: every
    name is there, gpuml's own or scikit-learn's same object (isinstance and
    identity checks work)."""
    from sklearn import model_selection as sk

    from gpuml import model_selection as ours

    assert set(sk.__all__) <= set(ours.__all__)
    for name in sk.__all__:
        value = getattr(ours, name)
        assert _is_gpumls(value) or value is getattr(sk, name), name
    assert ours.TimeSeriesSplit is sk.TimeSeriesSplit


@pytest.mark.parametrize("sklearn_module", SKLEARN_LACKED)
def test_a_missing_sklearn_module_says_what_to_use(sklearn_module):
    """``import gpuml.x``, ``from gpuml.x import Name`` and ``from gpuml import
    x`` for a scikit-learn module gpuml lacks: a ``ModuleNotFoundError`` that
    lists what gpuml has and the scikit-learn import to use instead."""
    module = "gpuml" + sklearn_module.removeprefix("sklearn")
    parent, _, last = module.rpartition(".")
    for statement in (
        f"import {module}",
        f"from {module} import Name",
        f"from {parent} import {last}",
    ):
        with pytest.raises(ModuleNotInGpuml) as info:
            exec(statement, {})
        assert isinstance(info.value, ModuleNotFoundError)
        message = str(info.value)
        assert message.startswith(f"{parent} has no module {module} (yet).")
        sk = re.escape(sklearn_module)
        line = rf"import from {sk} instead, as in: (from {sk} import \w+|import {sk})$"
        assert re.search(line, message), message
    if parent == "gpuml":
        assert "gpuml.linear_model, gpuml.manifold, gpuml.metrics," in message
    assert module not in sys.modules
    assert not hasattr(importlib.import_module(parent), last)


def test_a_missing_module_is_worded_by_what_scikit_learn_has():
    """Estimators: Pipelines and searches, with an estimator to import;
    anything else (metrics, datasets): alongside gpuml, nothing fitted."""
    with pytest.raises(
        ModuleNotInGpuml, match=r"from sklearn\.ensemble import AdaBoostClassifier$"
    ) as info:
        import gpuml.ensemble  # noqa: F401
    assert "scikit-learn's sklearn.ensemble " + ESTIMATOR_USE in str(info.value)
    with pytest.raises(ModuleNotInGpuml) as info:
        from gpuml.metrics import pairwise  # noqa: F401
    assert "scikit-learn's sklearn.metrics.pairwise " + OTHER_USE in str(info.value)
    assert "Pipeline" not in str(info.value)


@pytest.mark.parametrize(
    "statement",
    [
        "import gpuml.no_such_module",
        "import gpuml._private",
        "import gpuml.tests",
        "import gpuml.conftest",
        "import gpuml.linear_model.no_such_module",
        "import gpuml.model_selection._no_such_module",
        "import covariance",
        "import sklearn.no_such_module",
    ],
)
def test_other_missing_modules_are_the_usual_error(statement):
    """The finder answers only for scikit-learn's public modules under gpuml."""
    with pytest.raises(ModuleNotFoundError) as info:
        exec(statement, {})
    assert not isinstance(info.value, NotInGpuml)
    assert info.value.name == statement.split()[-1]


def test_the_module_finder_is_installed_once():
    """Last on sys.meta_path (real modules are found first), once, even after
    gpuml is imported again; and ``hasattr`` probes import nothing."""
    code = (
        "import importlib, sys, gpuml\n"
        "importlib.reload(gpuml)\n"
        "finders = [type(f).__name__ for f in sys.meta_path]\n"
        "assert finders.count('_MissingModuleFinder') == 1, finders\n"
        "assert finders[-1] == '_MissingModuleFinder', finders\n"
        "before = set(sys.modules)\n"
        "assert not hasattr(gpuml, 'covariance')\n"
        "assert set(sys.modules) == before\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
