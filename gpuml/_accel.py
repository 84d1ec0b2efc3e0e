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

scikit-learn's own code keeps the objects it was written for. An import hook
(``_ImportHook``) sees every scikit-learn and gpuml module imported while
installed: each public module of :data:`FAMILIES` is armed when imported (the
names gpuml implements taken out, resolved by a module ``__getattr__``), and an
armed name is scikit-learn's object while scikit-learn's or gpuml's modules
are being imported (``sklearn.ensemble`` binds scikit-learn's
``LogisticRegression`` as its stacking default, gpuml builds on scikit-learn's
classes), and makes its module's names gpuml's when any other code uses it
(``from sklearn.linear_model import Ridge`` in a script). scikit-learn modules
imported after a swap get scikit-learn's objects back where they bound a
swapped name. scikit-learn's test files count as users' code. Names bound
before :func:`install` (``from sklearn.linear_model import Ridge`` run earlier
in the process) stay scikit-learn's: Python gives no way to reach them. The
halving searches join when ``sklearn.experimental.enable_halving_search_cv``
is imported, before or after :func:`install`. At run time, gpuml's code takes
scikit-learn's classes through :func:`gpuml._sklearn_compat.sklearn_own`.

While installed, the ``fit`` (and ``fit_transform``, ``fit_predict``) of
gpuml's swapped classes:

- runs scikit-learn's own class instead where gpuml's class raises
  :class:`gpuml.base.NotSupported` (a setting it lacks; none of today's
  classes lacks one, the tests make one refuse): per instance, at fit; the
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

# gpuml's swapped class -> scikit-learn's class of the same name.
_SKLEARN_CLASS: dict = {}
# (class, method name) -> the function that the report wraps.
_WRAPPED: dict = {}
# How deep in reported calls the current one is: a fit inside a search (or
# inside another fit) is part of that call's report.
_DEPTH = contextvars.ContextVar("gpuml_accel_depth", default=0)
# Seconds spent in outermost reported calls (gpuml's fits, searches and
# helpers, and the scikit-learn fits they fell back to), for the summary
# line of ``python -m gpuml run``: what the rest of the script took is
# then plain to see.
_SECONDS = [0.0]
_LOG = logging.getLogger("gpuml.accel")
_said_cpu = False


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
    for sk_name in FAMILIES:
        _swap(sk_name)
    return swapped_names()


def swapped_names() -> list[str]:
    """The scikit-learn names that resolve to gpuml's objects now, as
    ``"sklearn.linear_model.Ridge"``."""
    return sorted(f"{m}.{n}" for m, n in _SWAPPED)


def install_when_imported(verbose: bool = False) -> None:
    """Install, lazily: ``python -m gpuml run`` calls it. Each of
    scikit-learn's public modules that gpuml mirrors is armed when it is
    imported, and its names become gpuml's at the first use of one of them
    by code that is not an import of scikit-learn's or gpuml's own modules
    (a script's ``from sklearn.linear_model import Ridge``). A script that
    never uses one pays nothing: not gpuml's imports, not even
    scikit-learn's when it never imports it."""
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
    for sk_name, previous in _GETATTR.items():
        module = sys.modules[sk_name]
        if previous is None:
            vars(module).pop("__getattr__", None)
        else:
            module.__getattr__ = previous
    _GETATTR.clear()
    _ORIGINALS.clear()
    _ARMED.clear()
    _SWAPPED.clear()
    _SAME.clear()
    _REVERSE.clear()
    _verbose = _said_names = False


# (module name, attribute) -> scikit-learn's object, armed or swapped.
_ORIGINALS: dict = {}
# scikit-learn's module -> the names taken out of it, resolved on first use.
_ARMED: dict = {}
# (module name, attribute) set to gpuml's object.
_SWAPPED: set = set()
# (module name, attribute) that gpuml re-exports as scikit-learn's object.
_SAME: set = set()
# scikit-learn's module -> its own module ``__getattr__`` (or None).
_GETATTR: dict = {}
# id(gpuml's object) -> (that object, scikit-learn's), while installed.
_REVERSE: dict = {}
_verbose = False
_said_names = False
_settling = threading.Lock()
_gpuml_imported = False


def _settle() -> None:
    """Arm the public modules of :data:`FAMILIES` imported so far (and the
    names added to them since: the halving searches, when enabled), and give
    the scikit-learn modules imported since the last call back scikit-learn's
    own objects where they bound a swapped name (``sklearn.ensemble``
    imported after the swap of ``sklearn.linear_model`` keeps
    scikit-learn's ``LogisticRegression`` as its stacking default, as
    without gpuml). Runs whenever an outermost import of a scikit-learn or
    gpuml module ends."""
    if not _HOOK.attached() or "sklearn" not in sys.modules:
        return
    if getattr(_HOOK.local, "settling", False):
        return  # this thread's _settle imported it: that loop sees it
    if not _settling.acquire(blocking=False):
        return  # another thread's loop sees it
    _HOOK.local.settling = True
    try:
        while True:
            fresh, _HOOK.fresh = _HOOK.fresh, []
            for sk_name in FAMILIES:
                if sk_name in sys.modules:
                    _arm(sk_name)
            for name in fresh:
                _keep_sklearns_own(name)
            if not _HOOK.fresh:
                break
    finally:
        _HOOK.local.settling = False
        _settling.release()


def _gpuml_all(gpuml_name: str) -> list[str]:
    """``__all__`` of gpuml's module ``gpuml_name``, read from its source
    without importing it (an armed module costs no gpuml import)."""
    import ast
    from pathlib import Path

    found = _ALL.get(gpuml_name)
    if found is None:
        path = Path(__file__).parent.joinpath(*gpuml_name.split(".")[1:])
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "__all__" for t in node.targets
            ):
                found = _ALL[gpuml_name] = list(ast.literal_eval(node.value))
                break
    return found


_ALL: dict = {}


def _arm(sk_name: str) -> None:
    """Take out of scikit-learn's module ``sk_name`` the names gpuml's module
    implements (keeping scikit-learn's objects in :data:`_ORIGINALS`), and
    give the module a ``__getattr__`` that resolves them; names already
    swapped are swapped again where scikit-learn set them anew."""
    module = sys.modules[sk_name]
    names = _gpuml_all(FAMILIES[sk_name])
    if sk_name == "sklearn.model_selection":
        names = [name for name in names if name in SEARCHES]
    swapped = any(m == sk_name for m, _ in _SWAPPED)
    armed = _ARMED.setdefault(sk_name, set())
    for name in names:
        value = vars(module).get(name)
        if value is None or _is_ours(value) or (sk_name, name) in _SAME:
            continue
        _ORIGINALS[sk_name, name] = vars(module).pop(name)
        _SWAPPED.discard((sk_name, name))
        armed.add(name)
    if sk_name not in _GETATTR:
        _GETATTR[sk_name] = vars(module).get("__getattr__")
        module.__getattr__ = _module_getattr(sk_name)
    if swapped and armed:
        _swap(sk_name)


def _is_ours(value) -> bool:
    found = _REVERSE.get(id(value))
    return found is not None and found[0] is value


def _module_getattr(sk_name: str):
    """The armed module's ``__getattr__``: an armed name is scikit-learn's
    object for the imports of scikit-learn's and gpuml's own modules (their
    code keeps what it was written for), and makes the module's names
    gpuml's for any other code; other names go to the module's own
    ``__getattr__``."""

    def __getattr__(name: str):
        if name in _ARMED.get(sk_name, ()):
            if _HOOK.importing():
                return _ORIGINALS[sk_name, name]
            _swap(sk_name)
            return vars(sys.modules[sk_name])[name]
        previous = _GETATTR.get(sk_name)
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {sk_name!r} has no attribute {name!r}")

    return __getattr__


def _swap(sk_name: str) -> None:
    """Set the armed names of ``sk_name`` to gpuml's objects. The first swap
    imports all of gpuml's mirroring modules, before any name is gpuml's:
    those that take a scikit-learn class from a public module at import
    (to build on it) get scikit-learn's."""
    global _gpuml_imported, _said_names
    if sk_name not in _ARMED:
        _arm(sk_name)
    if not _gpuml_imported:
        _gpuml_imported = True
        for name in (*FAMILIES.values(), "gpuml.metrics"):
            importlib.import_module(name)
    module = sys.modules[sk_name]
    gpuml_module = importlib.import_module(FAMILIES[sk_name])
    for name in sorted(_ARMED.get(sk_name, ())):
        original = _ORIGINALS[sk_name, name]
        if getattr(gpuml_module, name) is original:  # re-exported as it is
            setattr(module, name, original)
            _SAME.add((sk_name, name))
            continue
        swapped = _ours(gpuml_module, name)
        _REVERSE[id(swapped)] = (swapped, original)
        setattr(module, name, swapped)
        _SWAPPED.add((sk_name, name))
        ours = getattr(gpuml_module, name)
        if isinstance(ours, type):
            _SKLEARN_CLASS[ours] = original
            _wrap_fits(ours, search=sk_name == "sklearn.model_selection")
    _ARMED[sk_name] = set()
    if _verbose and _SWAPPED and not _said_names:
        _said_names = True
        print(
            "gpuml: scikit-learn's names that gpuml implements now resolve to "
            "gpuml's (estimators, searches and cross-validation helpers)",
            file=sys.stderr,
        )


def _keep_sklearns_own(module_name: str) -> None:
    """scikit-learn's objects back in ``module_name``'s globals that bound a
    swapped name at import (its own code keeps what it was written for);
    the swapped names themselves stay gpuml's."""
    module = sys.modules.get(module_name)
    if module is None:
        return
    for key, value in list(vars(module).items()):
        if _is_ours(value) and (module_name, key) not in _SWAPPED:
            setattr(module, key, _REVERSE[id(value)][1])


def _watched(name: str) -> bool:
    """scikit-learn's and gpuml's modules, but not scikit-learn's test files
    (users' code, in effect: they get gpuml's names, as a script does)."""
    top = name.partition(".")[0]
    if top not in ("sklearn", "gpuml"):
        return False
    parts = name.split(".")
    return "tests" not in parts and "conftest" not in parts


class _ImportHook(importlib.abc.MetaPathFinder):
    """Sees every scikit-learn and gpuml module imported while installed: it
    runs the module's own loader, counting how deep such imports are in this
    thread (:meth:`importing`), notes scikit-learn's modules, and calls
    :func:`_settle` when the outermost import ends (never in the middle of
    one, where a module may be half initialised). First on
    ``sys.meta_path`` while attached."""

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

    def importing(self) -> bool:
        """Whether this thread is running a scikit-learn or gpuml module's
        code at import."""
        return getattr(self.local, "depth", 0) > 0

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
        if module.__name__.partition(".")[0] == "sklearn":
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
            if depth == 0:
                _SECONDS[0] += time.perf_counter() - started
        if depth == 0 and reason is None:
            _say_device_once()
        if not search:
            _report_fit(self, method, args, depth, reason, started)
        return result

    return reported


def _reported_function(function):
    @functools.wraps(function)
    def reported(*args, **kwargs):
        depth = _DEPTH.get()
        token = _DEPTH.set(depth + 1)
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _DEPTH.reset(token)
            if depth == 0:
                _SECONDS[0] += time.perf_counter() - started
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
        "those of the GPU",
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
        tally.finish(time.perf_counter() - started)
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
        self.before = _SECONDS[0]
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

    def finish(self, seconds: float) -> None:
        """Stop counting and print the summary line. Not in :meth:`close`:
        logging's shutdown at exit closes every handler still alive, and a
        traceback the script keeps (an exception it stored) keeps :func:`run`'s
        frame, and so this handler, alive: the line would come twice."""
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
        self.close()
        fallbacks = ""
        if self.fallbacks:
            count = sum(self.fallbacks.values())
            fallbacks = (
                f"; {count} fits ran scikit-learn's class ("
                + ", ".join(f"{k} x{n}" for k, n in self.fallbacks.items())
                + ")"
            )
        print(
            f"gpuml run: {len(_SWAPPED)} scikit-learn names were gpuml's; "
            f"{self.searches} gpuml searches ({self.candidates} candidates, "
            f"{self.search_fits} fits, {self.batched} candidates fitted in "
            f"batches), {self.calls} gpuml cross-validation calls, "
            f"{self.fits} gpuml fits{fallbacks}; the script took {seconds:.2f} s, "
            f"{_SECONDS[0] - self.before:.2f} s of it in these searches, calls "
            "and fits",
            file=sys.stderr,
        )


def _script_dir(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))
