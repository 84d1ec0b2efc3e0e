"""The zero-code-change mode (``gpuml/_accel.py``): ``gpuml.install()``,
``python -m gpuml run``, ``%load_ext gpuml``."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpuml
from gpuml import _accel


@pytest.fixture
def accelerated():
    """gpuml installed for the test, scikit-learn's names back after it."""
    swapped = gpuml.install()
    try:
        yield swapped
    finally:
        gpuml.uninstall()


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_install_swaps_and_uninstall_restores():
    import sklearn.impute._iterative
    import sklearn.linear_model

    originals = {}
    for sk_name, gpuml_name in _accel.FAMILIES.items():
        module = importlib.import_module(sk_name)
        for name in _accel.swappable(module, importlib.import_module(gpuml_name)):
            originals[f"{sk_name}.{name}"] = getattr(module, name)
    assert not _accel.installed()
    swapped = gpuml.install()
    try:
        assert sorted(originals) == swapped
        assert gpuml.install() == swapped  # a second call changes nothing
        for dotted in swapped:
            found = _resolve(dotted)
            assert found.__module__.startswith("gpuml."), dotted
        # scikit-learn's own code keeps what it bound at import
        assert (
            sklearn.impute._iterative.SimpleImputer
            is originals["sklearn.impute.SimpleImputer"]
        )
        # scikit-learn's splitters stay scikit-learn's
        from sklearn.model_selection import KFold

        assert KFold.__module__.startswith("sklearn.")
        model = sklearn.linear_model.Ridge()
        assert isinstance(model, sklearn.linear_model.Ridge)
        assert "sklearn.linear_model.Ridge" in swapped
        assert "sklearn.model_selection.GridSearchCV" in swapped
    finally:
        gpuml.uninstall()
    assert not _accel.installed()
    for dotted, original in originals.items():
        assert _resolve(dotted) is original, dotted


def test_ipython_extension(accelerated):
    gpuml.uninstall()
    gpuml.load_ipython_extension(None)
    import sklearn.preprocessing

    assert sklearn.preprocessing.StandardScaler.__module__.startswith("gpuml.")
    gpuml.unload_ipython_extension(None)
    assert sklearn.preprocessing.StandardScaler.__module__.startswith("sklearn.")


def test_a_search_imported_after_install_is_gpumls(accelerated, rng):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, cross_val_score

    X = rng.normal(size=(60, 4))
    y = X @ rng.normal(size=4) + rng.normal(size=60)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
    assert type(search).__module__.startswith("gpuml.")
    assert type(search.best_estimator_).__module__.startswith("gpuml.")
    assert cross_val_score(Ridge(), X, y, cv=3).shape == (3,)


SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = (X @ rng.normal(size=5) + rng.normal(size=200) > 0).astype(int)
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression(tol=1e-10)),
        {"logisticregression__C": [0.01, 0.1, 1.0]},
        cv=3,
    ).fit(X, y)
    print(json.dumps({
        "argv": sys.argv[1:],
        "search": type(search).__module__,
        "estimator": type(search.best_estimator_[-1]).__module__,
        "best": search.best_params_["logisticregression__C"],
        "scores": search.cv_results_["mean_test_score"].tolist(),
        "name": __name__,
    }))
    """
)


def _run(args, cwd):
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GPUML_DEVICE": "cpu"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_python_m_gpuml_run_a_script_unchanged(tmp_path):
    script = tmp_path / "search.py"
    script.write_text(SCRIPT)
    plain, _ = _run([str(script), "a", "--b"], tmp_path)
    ours, err = _run(["-m", "gpuml", "run", "-v", str(script), "a", "--b"], tmp_path)
    assert plain["search"].startswith("sklearn.")
    assert ours["search"].startswith("gpuml.")
    assert ours["estimator"].startswith("gpuml.")
    assert ours["argv"] == plain["argv"] == ["a", "--b"]
    assert ours["name"] == "__main__"
    assert ours["best"] == plain["best"]
    np.testing.assert_allclose(ours["scores"], plain["scores"], rtol=1e-9)
    assert "scikit-learn names now resolve to gpuml's" in err
    # -v: a line per gpuml search, and the summary line of every run
    assert "gpuml GridSearchCV: 3 candidates x 3 folds on the CPU" in err
    assert "1 gpuml searches (3 candidates, 9 fits)" in err
    # -m module, from the script's folder
    module, err = _run(["-m", "gpuml", "run", "-m", "search", "x"], tmp_path)
    assert module["search"].startswith("gpuml.") and module["argv"] == ["x"]
    assert "gpuml GridSearchCV" not in err  # not verbose
    assert "1 gpuml searches (3 candidates, 9 fits)" in err


def test_run_summary_line_once_when_the_script_keeps_a_traceback(tmp_path):
    # A stored exception's traceback keeps run()'s frame, and its handler
    # counting the searches, alive until logging's shutdown closes it at exit:
    # the summary line came a second time ("the script took 0.00 s").
    script = tmp_path / "keep.py"
    script.write_text(
        "import sys\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError as error:\n"
        "    sys.kept_error = error\n"
        "print('{}')\n"
    )
    _, err = _run(["-m", "gpuml", "run", str(script)], tmp_path)
    assert err.count("gpuml run: ") == 1, err


def test_run_without_a_script_says_how(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "gpuml", "run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "usage: python -m gpuml run" in done.stderr


def test_import_gpuml_installs_nothing():
    code = (
        "import gpuml, sklearn.linear_model as m\n"
        "assert m.Ridge.__module__.startswith('sklearn.'), m.Ridge\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
