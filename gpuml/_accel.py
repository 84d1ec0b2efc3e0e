"""The zero-code-change mode (issue 40, first step): scikit-learn's names
resolve to gpuml's.

:func:`install` sets, in scikit-learn's public modules
(``sklearn.linear_model``, ``sklearn.preprocessing``...), every name that
gpuml implements to gpuml's object: its estimator classes, and in
``sklearn.model_selection`` the searches and cross-validation helpers
(``GridSearchCV``, ``RandomizedSearchCV``, the halving searches when they
are enabled, ``cross_validate``, ``cross_val_score``, ``cross_val_predict``,
``validation_curve``, ``learning_curve``, ``permutation_test_score``), so
that ``from sklearn.linear_model import Ridge`` run afterwards gives gpuml's
``Ridge``, and an unchanged script's searches are gpuml's device-resident
ones. :func:`uninstall` puts scikit-learn's objects back. ``python -m gpuml
run script.py`` (or ``-m module``) installs before running the script, and
``%load_ext gpuml`` in IPython or Jupyter installs in the session.

Before the swap, every scikit-learn estimator module is imported, so that
scikit-learn's own code keeps the objects it binds at import (its
``IterativeImputer`` keeps scikit-learn's ``SimpleImputer``...); only what is
imported from the public modules afterwards is gpuml's. Names bound before
:func:`install` (``from sklearn.linear_model import Ridge`` run earlier in
the process) stay scikit-learn's: Python gives no way to reach them.

``python -m gpuml run -v`` (or ``GPUML_LOG=info``) prints a line for each
gpuml search as it ends (its candidates, folds, device and time: the
``gpuml.search`` logger at INFO); a summary line on stderr ends every run.

What this first step does not do yet: run scikit-learn's own class for a
parameter value gpuml does not support (gpuml's classes accept scikit-learn's
parameters; the few values they refuse raise their error), report each
estimator's fit outside searches and how many candidates were batched,
``gpuml.to_sklearn``, and the swap of names enabled after :func:`install`
(``enable_halving_search_cv`` imported later sets scikit-learn's halving
searches).
"""

from __future__ import annotations

import importlib
import logging
import sys

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

# (module name, attribute) -> scikit-learn's object, while installed.
_ORIGINALS: dict = {}


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
        if theirs is not getattr(gpuml_module, name):
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
    # scikit-learn's own modules bind their imports first
    from sklearn.utils.discovery import all_estimators

    all_estimators()
    for sk_name, gpuml_name in FAMILIES.items():
        sk_module = importlib.import_module(sk_name)
        gpuml_module = importlib.import_module(gpuml_name)
        for name in swappable(sk_module, gpuml_module):
            _ORIGINALS[sk_name, name] = getattr(sk_module, name)
            setattr(sk_module, name, getattr(gpuml_module, name))
    swapped = sorted(f"{m}.{n}" for m, n in _ORIGINALS)
    if verbose:
        print(
            f"gpuml: {len(swapped)} scikit-learn names now resolve to gpuml's "
            f"(in {len({m for m, _ in _ORIGINALS})} of scikit-learn's modules: "
            "estimators, searches and cross-validation helpers)",
            file=sys.stderr,
        )
    return swapped


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
    for (sk_name, name), original in _ORIGINALS.items():
        setattr(sys.modules[sk_name], name, original)
    _ORIGINALS.clear()


def run(argv: list[str]) -> int:
    """``python -m gpuml run [-v] script.py [args...]`` or ``python -m gpuml
    run [-v] -m module [args...]``: install, then run the script or module
    as ``__main__`` with ``sys.argv`` set as Python would set it. With
    ``-v`` (or ``GPUML_LOG=info``) each gpuml search says its candidates,
    folds, device and time as it ends; a line on stderr sums them up at the
    end."""
    import os
    import runpy
    import time

    usage = "usage: python -m gpuml run [-v] (script.py | -m module) [args...]"
    verbose = argv[:1] == ["-v"]
    argv = argv[1:] if verbose else argv
    verbose = verbose or os.environ.get("GPUML_LOG", "").lower() == "info"
    if not argv or (argv[0] == "-m" and len(argv) < 2):
        print(usage, file=sys.stderr)
        return 2
    tally = _Tally(verbose)
    install(verbose=verbose)
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
    """Counts the searches' records of the ``gpuml`` logger (and prints them
    on stderr when verbose) for the summary line of :func:`run`."""

    def __init__(self, verbose: bool):
        super().__init__(logging.INFO)
        self.verbose = verbose
        self.searches = self.candidates = self.fits = 0
        self.seconds = 0.0
        self._logger = logging.getLogger("gpuml")
        self._level = self._logger.level
        self._logger.setLevel(logging.INFO)
        self._logger.addHandler(self)

    def emit(self, record) -> None:
        search = getattr(record, "gpuml_search", None)
        if search is not None:
            self.searches += 1
            self.candidates += search["candidates"]
            self.fits += search["candidates"] * search["folds"]
        if self.verbose:
            print(record.getMessage(), file=sys.stderr)

    def finish(self, seconds: float) -> None:
        """Stop counting and print the summary line. Not in :meth:`close`:
        logging's shutdown at exit closes every handler still alive, and a
        traceback the script keeps (an exception it stored) keeps :func:`run`'s
        frame, and so this handler, alive: the line would come twice."""
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
        self.close()
        print(
            f"gpuml run: {len(_ORIGINALS)} scikit-learn names were gpuml's; "
            f"{self.searches} gpuml searches ({self.candidates} candidates, "
            f"{self.fits} fits); the script took {seconds:.2f} s",
            file=sys.stderr,
        )


def _script_dir(path: str) -> str:
    import os

    return os.path.dirname(os.path.abspath(path))
