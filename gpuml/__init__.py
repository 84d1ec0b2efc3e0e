"""gpuml: scikit-learn compatible estimators, metrics and model selection on the GPU.

Swap imports (``from gpuml.linear_model import Ridge``) and keep your
scikit-learn code. Computation runs on the GPU through CuPy when one is
usable, else on the CPU through NumPy/SciPy, with the same API and results;
outputs come back in the family of their input (NumPy in, NumPy out; CuPy in,
CuPy out). ``import gpuml`` imports neither CuPy nor Dask.

A scikit-learn module or name that gpuml does not have yet raises an
``ImportError`` that lists what gpuml has and gives the scikit-learn import
that works with gpuml instead (``gpuml/_missing.py``).

Without changing a script: ``python -m gpuml run script.py``,
``%load_ext gpuml`` or :func:`gpuml.install` make scikit-learn's names that
gpuml implements resolve to gpuml's (``gpuml/_accel.py``);
:func:`gpuml.to_sklearn` turns a fitted gpuml model into scikit-learn's own
class, which loads without gpuml (``gpuml/_to_sklearn.py``).
"""

from gpuml import _missing
from gpuml._accel import install, uninstall
from gpuml._backend import NoGPUError, resolve_device
from gpuml._config import config_context, get_config, set_config
from gpuml._show_versions import show_versions
from gpuml._to_sklearn import to_sklearn
from gpuml._warmup import warmup

__version__ = "0.1.0.dev0"

# ``import gpuml.covariance`` and the like: an error that says what to use.
_missing.install_module_finder()

__all__ = [
    "NoGPUError",
    "__version__",
    "config_context",
    "get_config",
    "install",
    "load_ipython_extension",
    "resolve_device",
    "set_config",
    "show_versions",
    "to_sklearn",
    "uninstall",
    "unload_ipython_extension",
    "warmup",
]


def load_ipython_extension(ipython) -> None:
    """``%load_ext gpuml``: scikit-learn's names that gpuml implements resolve
    to gpuml's in this session (:func:`gpuml.install`).

    Examples
    --------
    In IPython or Jupyter, ``%load_ext gpuml`` calls it:

    >>> import gpuml
    >>> gpuml.load_ipython_extension(None)
    >>> from sklearn.preprocessing import StandardScaler
    >>> StandardScaler.__module__
    'gpuml.preprocessing._scalers'
    >>> gpuml.unload_ipython_extension(None)
    """
    install(verbose=True)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext gpuml``: scikit-learn's own names back
    (:func:`gpuml.uninstall`).

    Examples
    --------
    >>> import gpuml
    >>> gpuml.load_ipython_extension(None)
    >>> gpuml.unload_ipython_extension(None)
    >>> from sklearn.preprocessing import StandardScaler
    >>> StandardScaler.__module__
    'sklearn.preprocessing._data'
    """
    uninstall()
