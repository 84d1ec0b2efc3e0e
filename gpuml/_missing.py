"""The error for a scikit-learn name that a gpuml module does not have.

``from gpuml.linear_model import Lasso`` should say what gpuml offers
instead and that scikit-learn's class still works with gpuml, not only
"cannot import name". Each public subpackage installs
:func:`module_getattr` as its module ``__getattr__``: it is only called for
names the module lacks, and it raises :class:`NotInGpuml` (an
``ImportError``, so that ``from ... import`` shows its message) for the
public names of the matching scikit-learn module, the usual
``AttributeError`` for anything else.
"""

from __future__ import annotations

import importlib


class NotInGpuml(ImportError):
    """A scikit-learn name that gpuml does not implement (yet)."""


def module_getattr(module_name: str, sklearn_module: str, offered: list[str]):
    """A module ``__getattr__`` for ``module_name`` (see above)."""

    def __getattr__(name: str):
        if not name.startswith("_"):
            sk = importlib.import_module(sklearn_module)
            if name in getattr(sk, "__all__", ()):
                raise NotInGpuml(
                    f"{module_name} has no {name} (yet). It has: "
                    f"{', '.join(offered)}. scikit-learn's {name} works with "
                    "gpuml (in Pipelines and gpuml's searches, fitted on host "
                    f"data): from {sklearn_module} import {name}",
                    name=name,
                )
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__
