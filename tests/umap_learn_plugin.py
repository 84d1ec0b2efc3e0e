"""pytest plugin: umap-learn's own tests against gpuml's UMAP.

Loaded with ``-p tests.umap_learn_plugin`` before umap-learn's test files
and their ``conftest.py`` import ``UMAP``: ``umap.UMAP`` and
``umap.umap_.UMAP`` become :class:`gpuml.manifold.UMAP`, computing on the
device that ``GPUML_SUITE_DEVICE`` names (see
``tests/manifold/test_umap_learn_suite.py``).
"""

import os

import umap
import umap.umap_

import gpuml
from gpuml.manifold import UMAP

gpuml.set_config(device=os.environ.get("GPUML_SUITE_DEVICE", "auto"))
umap.UMAP = UMAP
umap.umap_.UMAP = UMAP
