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

scikit-learn's own code keeps the objects it was written for: the names it
binds at import (``sklearn.ensemble`` binds ``LogisticRegression`` as its
stacking default, ``TSNE`` binds ``PCA``) are set back to scikit-learn's in
every scikit-learn module imported while installed, after the outermost
import of it ends (an import hook, ``_ImportHook``, sees them; scikit-learn's
test files are left as users' code). Names bound before :func:`install`
(``from sklearn.linear_model import Ridge`` run earlier in the process) stay
scikit-learn's: Python gives no way to reach them. The halving searches are
swapped when ``sklearn.experimental.enable_halving_search_cv`` is imported,
before or after :func:`install`. gpuml's own modules are imported before the
first swap, and take scikit-learn's classes at run time through
:func:`gpuml._sklearn_compat.sklearn_own`.

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

A fitted gpuml model becomes scikit-learn's own class with
:func:`gpuml.to_sklearn` (``gpuml/_to_sklearn.py``), installed or not (it
takes scikit-learn's classes through
:func:`gpuml._sklearn_compat.sklearn_own`).
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import importlib.abc
import logging
import os
import sys
import threading
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
    """Whether :func:`install` (or ``python -m gpuml run``) is in effect."""
    return _HOOK.attached()


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
    install_when_imported(verbose)
    for sk_name in FAMILIES:
        importlib.import_module(sk_name)
    _settle()
    return sorted(f"{m}.{n}" for m, n in _ORIGINALS)


def install_when_imported(verbose: bool = False) -> None:
    """Swap scikit-learn's names for gpuml's in each of scikit-learn's public
    modules that gpuml mirrors as soon as it is imported (now for those
    already imported): ``python -m gpuml run`` calls it, so that a script
    that never imports scikit-learn pays nothing, and one that imports
    ``sklearn.ensemble`` alone pays for the gpuml modules it pulls in."""
    global _verbose
    _verbose = _verbose or verbose
    if not _HOOK.attached():
        _HOOK.attach()
        _settle()


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
    global _verbose, _said_names
    _HOOK.detach()
    for (owner, method), function in _WRAPPED.items():
        setattr(owner, method, function)
    _WRAPPED.clear()
    _SKLEARN_CLASS.clear()
    for (sk_name, name), original in _ORIGINALS.items():
        setattr(sys.modules[sk_name], name, original)
    _ORIGINALS.clear()
    _REVERSE.clear()
    _verbose = _said_names = False


# id(gpuml's object) -> (that object, scikit-learn's), while installed.
_REVERSE: dict = {}
_verbose = False
_said_names = False
_settling = threading.Lock()


def _settle() -> None:
    """Swap the names of every public module of :data:`FAMILIES` imported so
    far (those enabled late included: the halving searches), and give the
    scikit-learn modules imported since the last call back scikit-learn's
    own objects where they bound a swapped name (``sklearn.ensemble``
    imported after ``sklearn.linear_model`` keeps scikit-learn's
    ``LogisticRegression`` as its stacking default, as without gpuml).
    Runs whenever an outermost import of a scikit-learn module ends."""
    global _said_names
    if not _HOOK.attached() or "sklearn" not in sys.modules:
        return
    if getattr(_HOOK.local, "settling", False):
        return  # this thread's _settle imported it: that loop sees it
    if not _settling.acquire(blocking=False):
        return  # another thread's loop sees it
    _HOOK.local.settling = True
    try:
        if not _ORIGINALS:
            # gpuml's own modules first, before any swap: those that take a
            # scikit-learn class from a public module at import (to build on
            # it) get scikit-learn's (at run time they use sklearn_own)
            for name in (*FAMILIES.values(), "gpuml.metrics"):
                importlib.import_module(name)
        while True:
            fresh, _HOOK.fresh = _HOOK.fresh, []
            for sk_name, gpuml_name in FAMILIES.items():
                if sk_name in sys.modules:
                    _swap_module(sk_name, gpuml_name)
            for name in fresh:
                _keep_sklearns_own(name)
            if not _HOOK.fresh:
                break
    finally:
        _HOOK.local.settling = False
        _settling.release()
    if _verbose and _ORIGINALS and not _said_names:
        _said_names = True
        print(
            f"gpuml: {len(_ORIGINALS)} scikit-learn names now resolve to gpuml's "
            f"(in {len({m for m, _ in _ORIGINALS})} of scikit-learn's modules: "
            "estimators, searches and cross-validation helpers)",
            file=sys.stderr,
        )


def _swap_module(sk_name: str, gpuml_name: str) -> None:
    sk_module = sys.modules[sk_name]
    gpuml_module = importlib.import_module(gpuml_name)
    for name in swappable(sk_module, gpuml_module):
        original = getattr(sk_module, name)
        swapped = _ours(gpuml_module, name)
        _ORIGINALS[sk_name, name] = original
        _REVERSE[id(swapped)] = (swapped, original)
        setattr(sk_module, name, swapped)
        ours = getattr(gpuml_module, name)
        if isinstance(ours, type):
            _SKLEARN_CLASS[ours] = original
            _wrap_fits(ours, search=sk_name == "sklearn.model_selection")


def _keep_sklearns_own(module_name: str) -> None:
    """scikit-learn's objects back in ``module_name``'s globals that bound a
    swapped name at import (its own code keeps what it was written for);
    the swapped names themselves stay gpuml's."""
    module = sys.modules.get(module_name)
    if module is None:
        return
    for key, value in list(vars(module).items()):
        found = _REVERSE.get(id(value))
        if found is not None and found[0] is value:
            if (module_name, key) not in _ORIGINALS:
                setattr(module, key, found[1])


def _watched(name: str) -> bool:
    """scikit-learn's modules, but not its test files (code of users', in
    effect: they get gpuml's names, as a script does)."""
    if name != "sklearn" and not name.startswith("sklearn."):
        return False
    parts = name.split(".")
    return "tests" not in parts and "conftest" not in parts


class _ImportHook(importlib.abc.MetaPathFinder):
    """Sees every scikit-learn module imported while installed: it runs the
    module's own loader, notes the module, and calls :func:`_settle` when
    the outermost such import ends (never in the middle of one, where a
    module may be half initialised). First on ``sys.meta_path`` while
    attached."""

    def __init__(self):
        self.fresh: list = []
        self.local = threading.local()

    def attached(self) -> bool:
        return self in sys.meta_path

    def attach(self) -> None:
        if not self.attached():
            sys.meta_path.insert(0, self)

    def detach(self) -> None:
        while self in sys.meta_path:
            sys.meta_path.remove(self)
        self.fresh = []

    def find_spec(self, name, path, target=None):
        if not _watched(name):
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
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _WatchedLoader(spec.loader, self)
        return spec

    def executed(self, module, loader) -> None:
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        try:
            loader.exec_module(module)
        finally:
            self.local.depth = depth
        self.fresh.append(module.__name__)
        if depth == 0:
            _settle()


class _WatchedLoader(importlib.abc.Loader):
    """The module's own loader, run through :meth:`_ImportHook.executed`; the
    module keeps its own loader in ``__loader__`` and ``__spec__``."""

    def __init__(self, loader, hook: _ImportHook):
        self.loader = loader
        self.hook = hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__spec__.loader = module.__loader__ = self.loader
        self.hook.executed(module, self.loader)


_HOOK = _ImportHook()


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
