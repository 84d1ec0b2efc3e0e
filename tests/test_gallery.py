"""scikit-learn's example-gallery scripts run unchanged under ``python -m gpuml
run`` and print what they print without it (issue 40).

Each script of ``tests/data/gallery`` (scikit-learn's own, see the README
there) runs twice, at the same time, in a fixed environment: ``python
script.py`` and ``python -m gpuml run -v script.py``. Their standard outputs
must be the same line by line, text for text, numbers within a tolerance
(:func:`differences`). The gpuml run must also

- end with one summary line on stderr saying that scikit-learn's names were
  gpuml's, and that gpuml searches ran for a script with a search;
- have called the gpuml objects the script is listed with (a script that uses
  nothing that gpuml swaps would prove nothing): a ``sitecustomize`` put on
  that run's path only (:data:`RECORDER`) notes every fit of a gpuml class
  and every call of a gpuml function, and prints them at exit.

The fixed environment: matplotlib's ``Agg`` backend (``plt.show()`` draws
nothing), ``GPUML_DEVICE=cpu`` (the same computation with or without a GPU),
one BLAS/OpenMP thread per process (two processes share the machine, and a
reduction's order does not change with the thread count), a fixed hash seed,
no other ``GPUML_*`` or ``PYTHON*`` variable of the caller's (a
``PYTHONWARNINGS=error`` would stop the scripts at scikit-learn's own
deprecation warnings), and this gpuml first on the path.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import gpuml

GALLERY = Path(__file__).parent / "data" / "gallery"
# where this gpuml is imported from: the subprocesses import the same one
ROOT = Path(gpuml.__file__).resolve().parents[1]
TIMEOUT = 600
# Numbers printed in full (``print(r2)``, a NumPy array) differ in their last
# digits where gpuml sums in another order (BLAS, reductions) or an iterative
# solver (lsqr, coordinate descent) rounds differently on its way: 1e-13
# relative is what the scripts show. 1e-6 leaves room for that and is far
# tighter than any difference of substance; numbers printed rounded (a score
# to 2 or 3 digits, a count) must then be the same.
RTOL = 1e-6
ATOL = 1e-9
# wall-clock times printed by a script ("0.46s")
SECONDS = r"\b\d+\.\d+s\b"


class Case(NamedTuple):
    """A script of ``tests/data/gallery``: its path in scikit-learn's
    repository, the gpuml objects its gpuml run must use, whether it runs a
    search, a regular expression of its output to ignore, the tolerance, and
    pytest marks."""

    upstream: str
    uses: tuple[str, ...]
    searches: bool = False
    mask: str | None = None
    rtol: float = RTOL
    atol: float = ATOL
    marks: tuple = ()


CASES = {
    "plot_calibration": Case(
        "examples/calibration/plot_calibration.py", ("GaussianNB",)
    ),
    "plot_digits_classification_exercise": Case(
        "examples/exercises/plot_digits_classification_exercise.py",
        ("KNeighborsClassifier", "LogisticRegression"),
    ),
    "plot_feature_selection": Case(
        "examples/feature_selection/plot_feature_selection.py",
        ("LinearSVC", "MinMaxScaler"),
    ),
    "plot_grid_search_refit_callable": Case(
        "examples/model_selection/plot_grid_search_refit_callable.py",
        ("GridSearchCV", "LinearSVC", "PCA"),
        searches=True,
    ),
    "plot_kmeans_digits": Case(
        "examples/cluster/plot_kmeans_digits.py",
        ("KMeans", "PCA"),
        mask=SECONDS,
    ),
    "plot_kmeans_silhouette_analysis": Case(
        "examples/cluster/plot_kmeans_silhouette_analysis.py", ("KMeans",)
    ),
    "plot_nested_cross_validation_iris": Case(
        "examples/model_selection/plot_nested_cross_validation_iris.py",
        ("GridSearchCV", "cross_val_score"),
        searches=True,
    ),
    "plot_nnls": Case("examples/linear_model/plot_nnls.py", ("LinearRegression",)),
    "plot_ols": Case("examples/linear_model/plot_ols.py", ("LinearRegression",)),
    "plot_pca_vs_lda": Case("examples/decomposition/plot_pca_vs_lda.py", ("PCA",)),
    "plot_quantile_regression": Case(
        "examples/linear_model/plot_quantile_regression.py",
        ("LinearRegression", "cross_validate"),
    ),
    "plot_rbf_parameters": Case(
        "examples/svm/plot_rbf_parameters.py",
        ("GridSearchCV", "StandardScaler"),
        searches=True,
    ),
    "plot_scaling_importance": Case(
        "examples/preprocessing/plot_scaling_importance.py",
        ("KNeighborsClassifier", "LogisticRegressionCV", "PCA", "StandardScaler"),
    ),
    "plot_select_from_model_diabetes": Case(
        "examples/feature_selection/plot_select_from_model_diabetes.py",
        ("LassoCV",),
    ),
    "plot_target_encoder_cross_val": Case(
        "examples/preprocessing/plot_target_encoder_cross_val.py",
        ("KBinsDiscretizer", "Ridge", "TargetEncoder"),
    ),
    "plot_train_error_vs_test_error": Case(
        "examples/model_selection/plot_train_error_vs_test_error.py",
        ("ElasticNet",),
    ),
}

# The gpuml run's sitecustomize: wraps the fitting methods of gpuml's public
# classes and gpuml's public functions, before ``gpuml.install()`` copies
# them into scikit-learn's modules, to note which ones the script used; the
# wrappers only note, and the outputs compared are theirs.
RECORDER = """\
import atexit
import functools
import importlib
import inspect
import sys

from gpuml import _accel

_USED = set()
_METHODS = ("fit", "fit_transform", "fit_predict", "partial_fit")


def _note(function, name=None):
    @functools.wraps(function)
    def noted(*args, **kwargs):
        if name is not None:
            _USED.add(name)
        elif args and type(args[0]).__module__.startswith("gpuml."):
            _USED.add(type(args[0]).__name__)
        return function(*args, **kwargs)

    noted._gallery_noted = True
    return noted


for _module_name in _accel.FAMILIES.values():
    _module = importlib.import_module(_module_name)
    for _name in _module.__all__:
        _obj = getattr(_module, _name)
        if not getattr(_obj, "__module__", "").startswith("gpuml."):
            continue  # one of scikit-learn's, re-exported
        if not isinstance(_obj, type):
            setattr(_module, _name, _note(_obj, _name))
            continue
        for _method in _METHODS:
            _found = inspect.getattr_static(_obj, _method, None)
            if inspect.isfunction(_found) and not hasattr(_found, "_gallery_noted"):
                setattr(_obj, _method, _note(_found))

atexit.register(
    lambda: print("gallery recorder: " + " ".join(sorted(_USED)), file=sys.stderr)
)
"""

_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
    r"|(?<![A-Za-z_])(?:nan|inf)(?![A-Za-z_])"
)


def _split(line: str) -> tuple[list[str], list[str]]:
    """The text between the numbers, and the numbers."""
    return _NUMBER.split(line), _NUMBER.findall(line)


def _same_number(a: str, b: str, rtol: float, atol: float) -> bool:
    if a == b:
        return True
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rtol, abs_tol=atol)


def differences(expected: str, actual: str, rtol=RTOL, atol=ATOL) -> list[str]:
    """The lines where ``actual`` differs from ``expected``: in their text, or
    in a number beyond the tolerance; empty where they are the same."""
    found = []
    ours, theirs = actual.splitlines(), expected.splitlines()
    if len(ours) != len(theirs):
        found.append(f"{len(theirs)} lines expected, {len(ours)} printed")
    for i, (want, got) in enumerate(zip(theirs, ours, strict=False), start=1):
        (want_text, want_numbers), (got_text, got_numbers) = _split(want), _split(got)
        if want_text != got_text or len(want_numbers) != len(got_numbers):
            found.append(f"line {i}: {want!r} != {got!r}")
        elif not all(
            _same_number(a, b, rtol, atol)
            for a, b in zip(want_numbers, got_numbers, strict=True)
        ):
            found.append(f"line {i}: {want!r} != {got!r} (numbers)")
    return found


def test_differences():
    assert differences("R2 0.8225220806196525\n", "R2 0.8225220806196526\n") == []
    assert differences("[0.92 0.05]\nx = 2", "[0.92 0.05]\nx = 2") == []
    assert differences("score: 0.97", "score: 0.96")
    assert differences("n_clusters = 2", "n_clusters = 3")
    assert differences("a 1.0", "b 1.0")
    assert differences("a 1.0", "a 1.0 2.0")
    assert differences("a\nb", "a")
    assert differences("x nan", "x nan") == []
    assert differences("C=1e-05", "C=1.0000000001e-05") == []
    assert differences("float64(1.0)", "float64(1.0)") == []


def _environment(*path: Path) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GPUML_", "PYTHON"))
    }
    env.update(
        MPLBACKEND="Agg",
        GPUML_DEVICE="cpu",
        PYTHONHASHSEED="0",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONPATH=os.pathsep.join(str(p) for p in (*path, ROOT)),
    )
    return env


@pytest.fixture(scope="module")
def recorder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("recorder")
    (folder / "sitecustomize.py").write_text(RECORDER)
    return folder


def _start(args, env, folder: Path):
    folder.mkdir()
    with open(folder / "stdout", "w") as out, open(folder / "stderr", "w") as err:
        return subprocess.Popen(
            [sys.executable, *args], cwd=folder, env=env, stdout=out, stderr=err
        )


def _finish(processes, folders):
    try:
        for process in processes:
            process.wait(timeout=TIMEOUT)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return [((f / "stdout").read_text(), (f / "stderr").read_text()) for f in folders]


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=case.marks) for name, case in CASES.items()]
)
def test_gallery_script(name, recorder, tmp_path):
    case = CASES[name]
    script = str(GALLERY / f"{name}.py")
    folders = [tmp_path / "sklearn", tmp_path / "gpuml"]
    processes = [
        _start([script], _environment(), folders[0]),
        _start(
            ["-m", "gpuml", "run", "-v", script], _environment(recorder), folders[1]
        ),
    ]
    (plain, plain_err), (ours, err) = _finish(processes, folders)
    assert processes[0].returncode == 0, plain_err[-3000:]
    assert processes[1].returncode == 0, err[-3000:]
    assert plain.strip(), "the script prints nothing to compare"
    if case.mask:
        plain, ours = (re.sub(case.mask, "<masked>", out) for out in (plain, ours))
    found = differences(plain, ours, case.rtol, case.atol)
    assert not found, "\n".join(found[:20])
    summary = re.findall(
        r"^gpuml run: (\d+) scikit-learn names were gpuml's; (\d+) gpuml searches",
        err,
        re.MULTILINE,
    )
    assert len(summary) == 1, err[-3000:]
    names, searches = map(int, summary[0])
    assert names > 0
    if case.searches:
        assert searches > 0, summary
    used = set()
    for line in re.findall(r"^gallery recorder:(.*)$", err, re.MULTILINE):
        used.update(line.split())
    assert used, f"no gpuml object used:\n{err[-3000:]}"
    assert set(case.uses) <= used, (sorted(used), case.uses)


def test_every_script_has_a_case_and_its_source():
    assert sorted(p.stem for p in GALLERY.glob("*.py")) == sorted(CASES)
    readme = (GALLERY / "README.md").read_text()
    for name, case in CASES.items():
        assert f"`{name}.py`" in readme and f"`{case.upstream}`" in readme, name
