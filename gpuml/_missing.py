"""The errors for scikit-learn names and modules that gpuml does not have.

Swapping ``sklearn`` for ``gpuml`` in an import either works or says what to
do: what gpuml has instead, and the scikit-learn import that works with gpuml
(scikit-learn's estimators run in gpuml's searches and in Pipelines with
gpuml's, on host data). Two hooks raise these errors, worded by
:func:`_advice` alone:

- A missing *name* (``from gpuml.linear_model import Lasso``): each public
  subpackage installs :func:`module_getattr` as its module ``__getattr__``.
  It is only called for names the module lacks, and raises
  :class:`NotInGpuml` (an ``ImportError``, so that ``from ... import`` shows
  its message) for the public names of the matching scikit-learn module, the
  usual ``AttributeError`` for anything else (a scikit-learn submodule such
  as ``sklearn.metrics.cluster`` included, which is left to the finder).
- A missing *module* (``import gpuml.covariance``, ``from
  gpuml.covariance import EmpiricalCovariance``, ``from gpuml import
  covariance``): a finder at the end of :data:`sys.meta_path`
  (:func:`install_module_finder`, called once by ``gpuml/__init__.py``) is
  asked only after the usual finders found nothing, so real gpuml modules
  never reach it. It answers only for public ``gpuml.<name>`` (no part
  private or a test module) where ``sklearn.<name>`` is a module, by raising
  :class:`ModuleNotInGpuml` (a ``ModuleNotFoundError``); for anything else
  it returns None, the usual "No module named" error.
  ``hasattr(gpuml, "covariance")`` imports nothing and is False.

The module error's ``name`` is None, not the module's name: Python's
``from gpuml import covariance`` turns a ``ModuleNotFoundError`` whose ``name``
is ``"gpuml.covariance"`` into a bare "cannot import name", dropping the message.

The wording depends on what scikit-learn's object is (a module: whether it
has estimators): an estimator class works "in Pipelines and gpuml's
searches"; a function (a metric), a display or any other object works
"alongside gpuml", as nothing of it is fitted.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import pkgutil
import sys
from types import ModuleType

_ESTIMATOR_USE = "works with gpuml (in Pipelines and gpuml's searches, on host data)"
_OTHER_USE = "works alongside gpuml, on host data"


class NotInGpuml(ImportError):
    """A scikit-learn name that gpuml does not implement (yet)."""


class ModuleNotInGpuml(NotInGpuml, ModuleNotFoundError):
    """A scikit-learn module that gpuml does not have (yet)."""


def _is_estimator(obj) -> bool:
    return isinstance(obj, type) and callable(getattr(obj, "fit", None))


def _advice(
    missing: str, offered: list[str], sklearn_object: str, estimator: bool, line: str
) -> str:
    """The message: what gpuml lacks, what it has, and what works instead."""
    has = f" It has: {', '.join(offered)}." if offered else ""
    use = _ESTIMATOR_USE if estimator else _OTHER_USE
    return f"{missing} (yet).{has} scikit-learn's {sklearn_object} {use}: {line}"


def module_getattr(module_name: str, sklearn_module: str, offered: list[str]):
    """A module ``__getattr__`` for ``module_name`` (see above)."""

    def __getattr__(name: str):
        if not name.startswith("_"):
            sk = importlib.import_module(sklearn_module)
            if name in getattr(sk, "__all__", ()):
                obj = getattr(sk, name)
                if not isinstance(obj, ModuleType):
                    raise NotInGpuml(
                        _advice(
                            f"{module_name} has no {name}",
                            offered,
                            name,
                            _is_estimator(obj),
                            f"from {sklearn_module} import {name}",
                        ),
                        name=name,
                    )
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def _public_names(module: ModuleType) -> list[str]:
    """``__all__``, or else the public names the module itself defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = sorted(
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and getattr(value, "__module__", None) == module.__name__
        )
    return list(names)


def _private(part: str) -> bool:
    """A private or test module's name (scikit-learn's ``tests``, ``conftest``)."""
    return part.startswith(("_", "test")) or part == "conftest"


def _sklearn_counterpart(fullname: str) -> str | None:
    """``sklearn.<x>`` for ``gpuml.<x>`` where that is a public scikit-learn
    module, else None."""
    package, _, rest = fullname.partition(".")
    if package != "gpuml" or not rest:
        return None
    if any(_private(part) for part in rest.split(".")):
        return None
    try:
        found = importlib.util.find_spec(f"sklearn.{rest}")
    except (ImportError, ValueError):  # a parent scikit-learn lacks; no spec
        return None
    return None if found is None else f"sklearn.{rest}"


def _module_message(fullname: str, sklearn_module: str) -> str:
    """What ``fullname``'s parent has; an estimator of ``sklearn_module`` (or
    another of its names) to import instead."""
    parent_name = fullname.rpartition(".")[0]
    parent = sys.modules[parent_name]
    offered = [
        f"{parent_name}.{info.name}"
        for info in pkgutil.iter_modules(parent.__path__)
        if not info.name.startswith("_")
    ]
    sk = importlib.import_module(sklearn_module)
    names = [name for name in _public_names(sk) if hasattr(sk, name)]
    estimators = [name for name in names if _is_estimator(getattr(sk, name))]
    example = (estimators or names or [None])[0]
    line = (
        f"import {sklearn_module}"
        if example is None
        else f"from {sklearn_module} import {example}"
    )
    return _advice(
        f"{parent_name} has no module {fullname}",
        sorted(offered),
        sklearn_module,
        bool(estimators),
        f"import from {sklearn_module} instead, as in: {line}",
    )


class _MissingModuleFinder(importlib.abc.MetaPathFinder):
    """Raises :class:`ModuleNotInGpuml` for scikit-learn's modules that gpuml
    lacks (see above)."""

    def find_spec(self, fullname, path=None, target=None):
        sklearn_module = _sklearn_counterpart(fullname)
        if sklearn_module is None:
            return None
        raise ModuleNotInGpuml(_module_message(fullname, sklearn_module), name=None)


def install_module_finder() -> None:
    """Append the finder to :data:`sys.meta_path`, once."""
    if not any(isinstance(finder, _MissingModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MissingModuleFinder())
