"""The zero-code-change mode (issue 40): scikit-learn's names resolve to
gpuml's.

:func:`install` sets, in scikit-learn's public modules
(``sklearn.linear_model``, ``sklearn.preprocessing``...), every name that
gpuml implements to gpuml's object: its estimator classes, and in
``sklearn.model_selection`` the searches and cross-validation helpers
(``GridSearchCV``, ``RandomizedSearchCV``, the halving searches,
``cross_validate``, ``cross_val_score``, ``cross_val_predict``,
``validation_curve``, ``learning_curve``, ``permutation_test_score``), so
that ``from sklearn.linear_model import Ridge`` run afterwards gives gpuml's
``Ridge``, and an unchanged script's searches are gpuml's device-resident
ones. :func:`uninstall` puts scikit-learn's objects back. ``python -m gpuml
run script.py`` (or ``-m module``) installs when the script first imports
scikit-learn (a script that does not pays nothing), then runs it; ``%load_ext
gpuml`` in IPython or Jupyter installs in the session.

Before the swap, every scikit-learn estimator module is imported, so that
scikit-learn's own code keeps the objects it binds at import (its
``StackingClassifier`` keeps scikit-learn's ``LogisticRegression``, its
``TSNE`` scikit-learn's ``PCA``...); only what is imported from the public
modules afterwards is gpuml's. Names bound before :func:`install` (``from
sklearn.linear_model import Ridge`` run earlier in the process) stay
scikit-learn's: Python gives no way to reach them. The halving searches are
swapped when ``sklearn.experimental.enable_halving_search_cv`` is imported,
before or after :func:`install`.

While installed, the ``fit`` (and ``fit_transform``, ``fit_predict``) of
gpuml's swapped classes:

- runs scikit-learn's own class instead where gpuml's class raises
  :class:`gpuml.base.NotSupported` (a setting it lacks, such as
  ``LinearSVC(multi_class='crammer_singer')``): per instance, at fit; the
  estimator takes that fit's attributes (its methods compute from them), and
  the reason is logged and kept in its ``_gpuml_fallback`` attribute;
- reports itself on the ``gpuml.accel`` logger at INFO (``python -m gpuml
  run -v`` or ``GPUML_LOG=info`` prints it): gpuml or scikit-learn, why a
  fallback happened, the data's shape, the device and the time. A fit inside
  a gpuml search or cross-validation helper is part of that call's line
  (a search's says its candidates, folds, how many were fitted in batches,
  device and time). A summary line on stderr ends every ``python -m gpuml
  run``. Without a GPU, the first gpuml fit or search says once that it
  computes with NumPy on the CPU.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import importlib.abc
import logging
import os
import sys
import time

# scikit-learn's public module -> gpuml's module whose ``__all__`` names it
# implements (each family's module mirrors scikit-learn's).
FAMILIES = {
    "sklearn.cluster": "gpuml.cluster",
    "sklearn.compose": "gpuml.compose",
    "sklearn.decomposition": "gpuml.decomposition",
    "sklearn.feature_extraction.text": "gpuml.feature_extraction.text",
    "sklearn.impute": "gpuml.impute",
    "sklearn.linear_model": "gpuml.linear_model",
    "sklearn.model_selection": "gpuml.model_selection",
    "sklearn.naive_bayes": "gpuml.naive_bayes",
    "sklearn.neighbors": "gpuml.neighbors",
    "sklearn.preprocessing": "gpuml.preprocessing",
    "sklearn.svm": "gpuml.svm",
}

# In sklearn.model_selection only these (gpuml's splitters and
# train_test_split give scikit-learn's splits; scikit-learn's stay).
SEARCHES = (
    "GridSearchCV",
    "RandomizedSearchCV",
    "HalvingGridSearchCV",
    "HalvingRandomSearchCV",
    "cross_validate",
    "cross_val_score",
    "cross_val_predict",
    "validation_curve",
    "learning_curve",
    "permutation_test_score",
)

# The methods of gpuml's swapped classes that report (and may fall back).
FIT_METHODS = ("fit", "fit_transform", "fit_predict")

_HALVING = "sklearn.experimental.enable_halving_search_cv"

# (module name, attribute) -> scikit-learn's object, while installed.
_ORIGINALS: dict = {}
# gpuml's swapped class -> scikit-learn's class of the same name.
_SKLEARN_CLASS: dict = {}
# (class, method name) -> the function that the report wraps.
_WRAPPED: dict = {}
# How deep in reported calls the current one is: a fit inside a search (or
# inside another fit) is part of that call's report.
_DEPTH = contextvars.ContextVar("gpuml_accel_depth", default=0)
_LOG = logging.getLogger("gpuml.accel")
_said_cpu = False


def swappable(sk_module, gpuml_module) -> list[str]:
    """The names of ``gpuml_module.__all__`` that ``sk_module`` has as another
    object (a scikit-learn splitter that gpuml re-exports is the same
    object: nothing to swap). A halving search not enabled yet is left
    alone (scikit-learn's module raises its ImportError for it)."""
    names = []
    wanted = gpuml_module.__all__
    if sk_module.__name__ == "sklearn.model_selection":
        wanted = [name for name in wanted if name in SEARCHES]
    for name in wanted:
        try:
            theirs = getattr(sk_module, name)
        except (AttributeError, ImportError):
            continue
        if theirs is not _ours(gpuml_module, name) and theirs is not getattr(
            gpuml_module, name
        ):
            names.append(name)
    return names


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return bool(_ORIGINALS)


def install(verbose: bool = False) -> list[str]:
    """Make scikit-learn's public names that gpuml implements resolve to
    gpuml's objects, until :func:`uninstall`. Returns the names swapped, as
    ``"sklearn.linear_model.Ridge"``; a second call changes nothing.

    Parameters
    ----------
    verbose : bool, default=False
        Print one line saying how many names now resolve to gpuml's.

    Examples
    --------
    >>> import gpuml
    >>> swapped = gpuml.install()
    >>> from sklearn.linear_model import Ridge
    >>> Ridge.__module__
    'gpuml.linear_model._ridge'
    >>> gpuml.uninstall()
    >>> from sklearn.linear_model import Ridge
    >>> Ridge.__module__
    'sklearn.linear_model._ridge'
    """
    if installed():
        return sorted(f"{m}.{n}" for m, n in _ORIGINALS)
    _AFTER_IMPORT.forget("sklearn")
    # scikit-learn's own modules bind their imports first
    from sklearn.utils.discovery import all_estimators

    all_estimators()
    for sk_name, gpuml_name in FAMILIES.items():
        _swap_module(sk_name, gpuml_name)
    if _HALVING not in sys.modules:  # swapped when it is imported
        _AFTER_IMPORT.add(_HALVING, _swap_halving)
    swapped = sorted(f"{m}.{n}" for m, n in _ORIGINALS)
    if verbose:
        print(
            f"gpuml: {len(swapped)} scikit-learn names now resolve to gpuml's "
            f"(in {len({m for m, _ in _ORIGINALS})} of scikit-learn's modules: "
            "estimators, searches and cross-validation helpers)",
            file=sys.stderr,
        )
    return swapped


def install_when_imported(verbose: bool = False) -> None:
    """:func:`install` now if scikit-learn is imported, else right after the
    first import of it (``python -m gpuml run``: a script that never
    imports scikit-learn pays nothing)."""
    if "sklearn" in sys.modules:
        install(verbose=verbose)
    else:
        _AFTER_IMPORT.add("sklearn", functools.partial(install, verbose=verbose))


def uninstall() -> None:
    """Put back scikit-learn's objects that :func:`install` replaced.

    Examples
    --------
    >>> import gpuml
    >>> _ = gpuml.install()
    >>> gpuml.uninstall()
    >>> from sklearn.model_selection import GridSearchCV
    >>> GridSearchCV.__module__
    'sklearn.model_selection._search'
    """
    _AFTER_IMPORT.forget("sklearn")
    _AFTER_IMPORT.forget(_HALVING)
    for (owner, method), function in _WRAPPED.items():
        setattr(owner, method, function)
    _WRAPPED.clear()
    _SKLEARN_CLASS.clear()
    for (sk_name, name), original in _ORIGINALS.items():
        setattr(sys.modules[sk_name], name, original)
    _ORIGINALS.clear()


def _swap_module(sk_name: str, gpuml_name: str) -> None:
    sk_module = importlib.import_module(sk_name)
    gpuml_module = importlib.import_module(gpuml_name)
    for name in swappable(sk_module, gpuml_module):
        original = getattr(sk_module, name)
        _ORIGINALS[sk_name, name] = original
        setattr(sk_module, name, _ours(gpuml_module, name))
        ours = getattr(gpuml_module, name)
        if isinstance(ours, type):
            _SKLEARN_CLASS[ours] = original
            _wrap_fits(ours, search=sk_name == "sklearn.model_selection")


def _swap_halving() -> None:
    """``enable_halving_search_cv`` imported while installed: its searches
    become gpuml's too."""
    if installed():
        _swap_module("sklearn.model_selection", "gpuml.model_selection")


def _ours(gpuml_module, name: str):
    """What scikit-learn's name resolves to while installed: gpuml's class, or
    gpuml's cross-validation helper wrapped to report itself."""
    ours = getattr(gpuml_module, name)
    if isinstance(ours, type) or not callable(ours):
        return ours
    wrapped = _FUNCTIONS.get(ours)
    if wrapped is None:
        wrapped = _FUNCTIONS[ours] = _reported_function(ours)
    return wrapped


_FUNCTIONS: dict = {}


def _wrap_fits(cls: type, search: bool) -> None:
    """Wrap the fit methods that ``cls`` gets from gpuml's code (once per
    defining class: a base shared by several swapped classes is wrapped
    once)."""
    for method in FIT_METHODS:
        owner = next((k for k in cls.__mro__ if method in vars(k)), None)
        if owner is None or (owner, method) in _WRAPPED:
            continue
        function = vars(owner)[method]
        if not getattr(function, "__module__", "").startswith("gpuml."):
            continue  # scikit-learn's mixin: it calls the wrapped fit
        _WRAPPED[owner, method] = function
        setattr(owner, method, _reported_method(function, method, search))


def _reported_method(function, method: str, search: bool):
    from gpuml.base import NotSupported

    @functools.wraps(function)
    def reported(self, *args, **kwargs):
        depth = _DEPTH.get()
        token = _DEPTH.set(depth + 1)
        started = time.perf_counter()
        reason = None
        before = dict(vars(self))
        try:
            try:
                result = function(self, *args, **kwargs)
                vars(self).pop("_gpuml_fallback", None)
            except NotSupported as error:
                original = _SKLEARN_CLASS.get(type(self))
                if search or original is None:
                    raise  # a user's subclass: its own code, not ours
                reason = error.reason
                vars(self).clear()
                vars(self).update(before)
                result = _fit_sklearn_instead(self, original, method, args, kwargs)
                self._gpuml_fallback = reason
        finally:
            _DEPTH.reset(token)
        if depth == 0 and reason is None:
            _say_device_once()
        if not search:
            _report_fit(self, method, args, depth, reason, started)
        return result

    return reported


def _reported_function(function):
    @functools.wraps(function)
    def reported(*args, **kwargs):
        token = _DEPTH.set(_DEPTH.get() + 1)
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _DEPTH.reset(token)
            _say_device_once()
            _LOG.info(
                "gpuml %s on the %s in %.3f s",
                function.__name__,
                _device(),
                time.perf_counter() - started,
                extra={"gpuml_call": function.__name__},
            )

    return reported


def _fit_sklearn_instead(estimator, original: type, method: str, args, kwargs):
    """Fit scikit-learn's ``original`` with ``estimator``'s parameters, and
    give ``estimator`` its fitted attributes in place of its own."""
    names = set(original._get_param_names())
    params = {k: v for k, v in estimator.get_params(deep=False).items() if k in names}
    model = original(**params)
    result = getattr(model, method)(*args, **kwargs)
    # the last fit's attributes go (public ones end with "_", scikit-learn's
    # convention); what others set on the estimator before the fit (metadata
    # requests, a search's callback context) stays
    stale = [k for k in vars(estimator) if k.endswith("_") or k == "_gpuml_cache"]
    for key in stale:
        if key not in params:
            delattr(estimator, key)
    for key, value in vars(model).items():
        if key not in params and key != "_metadata_request":
            setattr(estimator, key, value)
    return estimator if result is model else result


def _report_fit(estimator, method, args, depth, reason, started) -> None:
    name = type(estimator).__name__
    seconds = time.perf_counter() - started
    shape = getattr(args[0], "shape", None) if args else None
    size = " x ".join(map(str, shape)) if shape else "?"
    if reason is not None:
        _LOG.log(
            logging.INFO if depth == 0 else logging.DEBUG,
            "scikit-learn %s.%s (gpuml's %s does not support %s): %s in %.3f s",
            name,
            method,
            name,
            reason,
            size,
            seconds,
            extra={"gpuml_fit": {"ran": "scikit-learn", "name": name, "why": reason}},
        )
        return
    if depth == 0:
        _LOG.info(
            "gpuml %s.%s: %s on the %s in %.3f s",
            name,
            method,
            size,
            _device(),
            seconds,
            extra={"gpuml_fit": {"ran": "gpuml", "name": name}},
        )


def _device() -> str:
    from gpuml._backend import resolve_device

    try:
        return resolve_device().upper()
    except Exception:
        return "device that the configuration names"


def _say_device_once() -> None:
    """Without a GPU in use, say once (on stderr) that gpuml computes with
    NumPy on the CPU."""
    global _said_cpu
    if _said_cpu:
        return
    _said_cpu = True
    from gpuml._backend import _probe_cupy
    from gpuml._config import get_config

    if _device() != "CPU":
        return
    if get_config()["device"] == "cpu":
        why = "the configuration says device='cpu' (GPUML_DEVICE or set_config)"
    else:
        why = _probe_cupy()[1]
    print(
        f"gpuml: computing with NumPy on the CPU ({why}); the results are "
        "those of the GPU, only slower",
        file=sys.stderr,
    )


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a function right after a named module's code has run, the first
    time it is imported (the trigger of :func:`install_when_imported`, and
    the halving searches' swap when they are enabled after
    :func:`install`). On ``sys.meta_path`` only while it has a name."""

    def __init__(self):
        self.then: dict = {}

    def add(self, name: str, then) -> None:
        self.then[name] = then
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def forget(self, name: str) -> None:
        self.then.pop(name, None)
        if not self.then and self in sys.meta_path:
            sys.meta_path.remove(self)

    def find_spec(self, name, path, target=None):
        then = self.then.get(name)
        if then is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        self.forget(name)
        spec.loader = _ThenLoader(spec.loader, then)
        return spec


class _ThenLoader(importlib.abc.Loader):
    """The module's own loader, then ``then()``; the module keeps its own
    loader in ``__loader__`` and ``__spec__``."""

    def __init__(self, loader, then):
        self.loader = loader
        self.then = then

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__spec__.loader = module.__loader__ = self.loader
        self.loader.exec_module(module)
        self.then()


_AFTER_IMPORT = _AfterImport()


def run(argv: list[str]) -> int:
    """``python -m gpuml run [-v] [--scheduler ADDRESS] script.py [args...]``
    or ``python -m gpuml run [-v] [--scheduler ADDRESS] -m module [args...]``:
    install (when the script first imports scikit-learn), then run the
    script or module as ``__main__`` with ``sys.argv`` set as Python would
    set it. With ``-v`` (or ``GPUML_LOG=info``) each gpuml fit and search
    says what ran where as it ends; a line on stderr sums them up at the
    end. ``--scheduler ADDRESS`` (or ``GPUML_CLIENT=ADDRESS``) sends every
    search to the Dask scheduler there."""
    import runpy

    usage = (
        "usage: python -m gpuml run [-v] [--scheduler ADDRESS] "
        "(script.py | -m module) [args...]"
    )
    verbose = os.environ.get("GPUML_LOG", "").lower() == "info"
    while argv[:1] in (["-v"], ["--scheduler"]):
        if argv[0] == "-v":
            verbose, argv = True, argv[1:]
        elif len(argv) < 2:
            argv = []
            break
        else:
            os.environ["GPUML_CLIENT"], argv = argv[1], argv[2:]
    if not argv or (argv[0] == "-m" and len(argv) < 2):
        print(usage, file=sys.stderr)
        return 2
    tally = _Tally(verbose)
    install_when_imported(verbose=verbose)
    started = time.perf_counter()
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, _script_dir(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
    finally:
        tally.close(time.perf_counter() - started)
    return 0


class _Tally(logging.Handler):
    """Counts the records of the ``gpuml`` logger's searches, helpers and fits
    (and prints them on stderr when verbose) for the summary line of
    :func:`run`."""

    def __init__(self, verbose: bool):
        super().__init__(logging.DEBUG)
        self.verbose = verbose
        self.searches = self.candidates = self.search_fits = self.batched = 0
        self.calls = self.fits = 0
        self.fallbacks: dict = {}
        self.seconds = 0.0
        self._logger = logging.getLogger("gpuml")
        self._level = self._logger.level
        self._logger.setLevel(logging.DEBUG)
        self._logger.addHandler(self)

    def emit(self, record) -> None:
        search = getattr(record, "gpuml_search", None)
        if search is not None:
            self.searches += 1
            self.candidates += search["candidates"]
            self.search_fits += search["candidates"] * search["folds"]
            self.batched += search.get("batched", 0)
        if getattr(record, "gpuml_call", None) is not None:
            self.calls += 1
        fit = getattr(record, "gpuml_fit", None)
        if fit is not None and fit["ran"] == "gpuml":
            self.fits += 1
        elif fit is not None:
            key = f"{fit['name']}: {fit['why']}"
            self.fallbacks[key] = self.fallbacks.get(key, 0) + 1
        if self.verbose and (record.levelno >= logging.INFO or fit is not None):
            print(record.getMessage(), file=sys.stderr)

    def close(self, seconds: float = 0.0) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
        super().close()
        fallbacks = ""
        if self.fallbacks:
            count = sum(self.fallbacks.values())
            fallbacks = (
                f"; {count} fits ran scikit-learn's class ("
                + ", ".join(f"{k} x{n}" for k, n in self.fallbacks.items())
                + ")"
            )
        print(
            f"gpuml run: {len(_ORIGINALS)} scikit-learn names were gpuml's; "
            f"{self.searches} gpuml searches ({self.candidates} candidates, "
            f"{self.search_fits} fits, {self.batched} candidates fitted in "
            f"batches), {self.calls} gpuml cross-validation calls, "
            f"{self.fits} gpuml fits{fallbacks}; the script took {seconds:.2f} s",
            file=sys.stderr,
        )


def _script_dir(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))
