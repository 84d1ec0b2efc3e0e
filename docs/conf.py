"""Sphinx configuration for gpuml's documentation.

Build from the repository root with::

    python3 -m sphinx -W -b html docs docs/_build/html

Nothing is fetched from the network: intersphinx has no inventories.
"""

import sys
from pathlib import Path

# Document the checkout this file belongs to, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gpuml

project = "gpuml"
author = "the gpuml developers"
copyright = "the gpuml developers"
version = release = gpuml.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build"]

# API pages are generated into docs/generated/ (git-ignored) at build time.
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc "Parameters" sections carry the types
numpydoc_show_class_members = False  # the class template lists members once
numpydoc_class_members_toctree = False

# Left empty on purpose: the build must not need the network.
intersphinx_mapping = {}

# Class pages show the methods a gpuml class defines, not those inherited from
# scikit-learn's mixins (their docstrings link into scikit-learn's own docs).
# Docstrings follow scikit-learn's and may cite its glossary (:term:`fit`);
# with no inventory those terms render as plain text instead of failing -W.
suppress_warnings = ["ref.term"]

html_theme = "alabaster"
html_title = f"gpuml {release}"


def _skip_metadata_request_methods(app, what, name, obj, skip, options):
    """Hide the ``set_{method}_request`` methods scikit-learn generates.

    scikit-learn adds them to every estimator class with a ``sample_weight``
    (or similar) argument; they are documented in scikit-learn's metadata
    routing guide, not here.
    """
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_request_methods)
