"""The zero-code-change mode (``gpuml/_accel.py``): ``gpuml.install()``,
``python -m gpuml run``, ``%load_ext gpuml``."""

from __future__ import annotations

import importlib
import json
import os
import re
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


def _swappable(sk_module, gpuml_module) -> list[str]:
    """The test's own account of what install() swaps (independent of
    _accel's arming): the names of ``gpuml_module.__all__`` that
    ``sk_module`` has as another object (a splitter gpuml re-exports is the
    same object), in model_selection the searches and helpers only; a
    halving search not enabled yet is absent."""
    names = []
    wanted = gpuml_module.__all__
    if sk_module.__name__ == "sklearn.model_selection":
        wanted = [name for name in wanted if name in _accel.SEARCHES]
    for name in wanted:
        try:
            theirs = getattr(sk_module, name)
        except (AttributeError, ImportError):
            continue
        if theirs is not getattr(gpuml_module, name):
            names.append(name)
    return names


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_install_swaps_and_uninstall_restores():
    import sklearn.impute._iterative

    originals = {}
    for sk_name, gpuml_name in _accel.FAMILIES.items():
        module = importlib.import_module(sk_name)
        for name in _swappable(module, importlib.import_module(gpuml_name)):
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
    assert "names that gpuml implements now resolve to gpuml's" in err
    # -v: a line per gpuml search, and the summary line of every run
    assert (
        "gpuml GridSearchCV: 3 candidates x 3 folds (3 fitted in batches) on the CPU"
        in err
    )
    assert "1 gpuml searches (3 candidates, 9 fits, 3 candidates fitted" in err
    # the summary parts the script's time: the search's share counts its time
    search_s = float(re.search(r"fitted in batches\) on the CPU in ([\d.]+) s", err)[1])
    took = re.search(r"the script took ([\d.]+) s, ([\d.]+) s of it in these", err)
    assert took, err
    assert search_s - 0.005 <= float(took[2]) <= float(took[1])
    # said once: no GPU in this run
    assert err.count("gpuml: computing with NumPy on the CPU") == 1
    # -m module, from the script's folder
    module, err = _run(["-m", "gpuml", "run", "-m", "search", "x"], tmp_path)
    assert module["search"].startswith("gpuml.") and module["argv"] == ["x"]
    assert "gpuml GridSearchCV" not in err  # not verbose
    assert "1 gpuml searches (3 candidates, 9 fits, 3 candidates fitted" in err


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


def test_run_installs_only_when_the_script_imports_sklearn(tmp_path):
    """A script that never imports scikit-learn pays nothing for the mode
    (not even scikit-learn's import); one that does gets gpuml's names from
    its first import on."""
    plain = tmp_path / "plain.py"
    plain.write_text(
        "import json, sys\nprint(json.dumps({'sk': 'sklearn' in sys.modules}))\n"
    )
    found, err = _run(["-m", "gpuml", "run", str(plain)], tmp_path)
    assert found == {"sk": False}
    assert "0 scikit-learn names were gpuml's" in err
    late = tmp_path / "late.py"
    late.write_text(
        "import json\nimport sklearn\nfrom sklearn.linear_model import Ridge\n"
        "print(json.dumps({'ridge': Ridge.__module__}))\n"
    )
    found, _ = _run(["-m", "gpuml", "run", str(late)], tmp_path)
    assert found["ridge"].startswith("gpuml.")


def test_halving_searches_enabled_after_install_are_gpumls():
    code = (
        "import gpuml\ngpuml.install()\n"
        "from sklearn.experimental import enable_halving_search_cv\n"
        "from sklearn.model_selection import HalvingGridSearchCV as H\n"
        "assert H.__module__.startswith('gpuml.'), H\n"
        "gpuml.uninstall()\n"
        "from sklearn.model_selection import HalvingGridSearchCV as H\n"
        "assert H.__module__.startswith('sklearn.'), H\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_run_scheduler_option_sets_gpuml_client(tmp_path):
    script = tmp_path / "env.py"
    script.write_text(
        "import json, os\nprint(json.dumps({'client': os.environ['GPUML_CLIENT']}))\n"
    )
    args = ["-m", "gpuml", "run", "--scheduler", "tcp://127.0.0.1:8786", str(script)]
    found, _ = _run(args, tmp_path)
    assert found == {"client": "tcp://127.0.0.1:8786"}
    done = subprocess.run(
        [sys.executable, "-m", "gpuml", "run", "--scheduler"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "--scheduler ADDRESS" in done.stderr


def _crammer_singer_data(rng):
    X = rng.normal(size=(150, 4))
    y = np.argmax(X[:, :3] + 0.5 * rng.normal(size=(150, 3)), axis=1)
    return X, y


def test_a_setting_gpuml_lacks_runs_sklearns_class_under_install(
    accelerated, lacking_crammer_singer, rng
):
    """A setting gpuml's class refuses (NotSupported; here LinearSVC made to
    refuse multi_class='crammer_singer'): scikit-learn's class fits,
    per instance and at fit; the estimator stays gpuml's (isinstance, clone,
    get_params), predicts as scikit-learn's fit does, and records why.
    Without install, gpuml's error names scikit-learn's class."""
    import sklearn.svm
    from sklearn.base import clone

    from gpuml._accel import _ORIGINALS

    SkLinearSVC = _ORIGINALS["sklearn.svm", "LinearSVC"]
    X, y = _crammer_singer_data(rng)
    # (liblinear's Crammer-Singer solver stops at 1,000 iterations, with a
    # ConvergenceWarning, on some draws: GPUML_TEST_SEED=4242)
    params = dict(multi_class="crammer_singer", C=0.5, random_state=0, max_iter=100_000)
    model = sklearn.svm.LinearSVC(**params)
    assert model.fit(X, y) is model
    assert isinstance(model, sklearn.svm.LinearSVC)
    assert type(model).__module__.startswith("gpuml.")
    assert model._gpuml_fallback == "multi_class='crammer_singer'"
    expected = SkLinearSVC(**params).fit(X, y)
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))
    np.testing.assert_allclose(
        model.decision_function(X), expected.decision_function(X), rtol=1e-12
    )
    assert clone(model).get_params() == model.get_params()
    # the same instance refitted with a setting gpuml has: gpuml's fit again
    model.set_params(multi_class="ovr").fit(X, y)
    assert not hasattr(model, "_gpuml_fallback")
    gpuml.uninstall()
    with pytest.raises(ValueError, match=r"use sklearn\.svm\.LinearSVC\("):
        gpuml.svm.LinearSVC(multi_class="crammer_singer").fit(X, y)


def test_fallback_inside_a_search_matches_sklearn(
    accelerated, lacking_crammer_singer, rng
):
    """The candidates of a search that gpuml's class lacks run scikit-learn's
    class one by one, with scikit-learn's scores."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import LinearSVC

    from gpuml._accel import _ORIGINALS

    X, y = _crammer_singer_data(rng)
    grid = {"C": [0.1, 1.0], "multi_class": ["ovr", "crammer_singer"]}
    ours = GridSearchCV(LinearSVC(random_state=0, max_iter=100_000), grid, cv=3).fit(
        X, y
    )
    SkGridSearchCV = _ORIGINALS["sklearn.model_selection", "GridSearchCV"]
    SkLinearSVC = _ORIGINALS["sklearn.svm", "LinearSVC"]
    theirs = SkGridSearchCV(
        SkLinearSVC(random_state=0, max_iter=100_000), grid, cv=3
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        atol=1e-12,
    )
    assert ours.best_params_ == theirs.best_params_


def test_crammer_singer_and_negative_weights_are_gpumls_under_install(accelerated, rng):
    """Settings that once fell back to scikit-learn's class are gpuml's own
    fits now (no ``_gpuml_fallback``), equal to scikit-learn's."""
    from sklearn.svm import LinearSVC, LinearSVR

    from gpuml._accel import _ORIGINALS

    X = rng.normal(size=(80, 3))
    y = X @ rng.normal(size=3)
    weights = rng.uniform(-0.2, 1.0, size=80)
    model = LinearSVR(tol=1e-8, max_iter=100_000, random_state=0)
    model.fit(X, y, sample_weight=weights)
    assert not hasattr(model, "_gpuml_fallback")
    expected = _ORIGINALS["sklearn.svm", "LinearSVR"](
        tol=1e-8, max_iter=100_000, random_state=0
    ).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.predict(X), expected.predict(X), atol=1e-6)
    X, y = _crammer_singer_data(rng)
    params = dict(multi_class="crammer_singer", random_state=0, max_iter=100_000)
    model = LinearSVC(**params).fit(X, y)
    assert not hasattr(model, "_gpuml_fallback")
    expected = _ORIGINALS["sklearn.svm", "LinearSVC"](**params).fit(X, y)
    np.testing.assert_array_equal(model.coef_, expected.coef_)


def test_each_fit_and_search_reports_once(accelerated, rng, caplog):
    """A fit outside searches gives one INFO record (gpuml, shape, device); a
    search gives its own, not one per inner fit; a cross-validation helper
    one line; uninstall unwraps gpuml's classes."""
    import logging

    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, cross_val_score

    X = rng.normal(size=(60, 4))
    y = X @ rng.normal(size=4) + rng.normal(size=60)
    with caplog.at_level(logging.INFO, logger="gpuml"):
        Ridge().fit(X, y)
        GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
        cross_val_score(Ridge(), X, y, cv=3)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3, messages
    assert messages[0].startswith("gpuml Ridge.fit: 60 x 4 on the ")
    assert messages[1].startswith(
        "gpuml GridSearchCV: 2 candidates x 3 folds (2 fitted in batches) on the "
    )
    assert messages[2].startswith("gpuml cross_val_score on the ")
    wrapped = dict(_accel._WRAPPED)
    assert (gpuml.linear_model.Ridge, "fit") in wrapped
    gpuml.uninstall()
    for (owner, method), function in wrapped.items():
        assert vars(owner)[method] is function, (owner, method)


def test_gpuml_client_sends_searches_to_a_scheduler(rng, monkeypatch):
    """GPUML_CLIENT (what ``run --scheduler`` sets) dispatches a search with
    no client of its own to the scheduler there; an address where none
    answers is an error that names the variable and the fix."""
    distributed = pytest.importorskip("distributed")
    import dask

    from gpuml.linear_model import Ridge
    from gpuml.model_selection import GridSearchCV, _dask

    calls = []
    real = _dask.dispatch
    monkeypatch.setattr(
        _dask, "dispatch", lambda c, *a, **k: calls.append(c) or real(c, *a, **k)
    )
    X = rng.normal(size=(60, 4))
    y = X @ rng.normal(size=4)
    with distributed.LocalCluster(
        n_workers=1, processes=False, dashboard_address=":0"
    ) as cluster:
        monkeypatch.setenv("GPUML_CLIENT", cluster.scheduler_address)
        with gpuml.config_context(device="cpu"):
            remote = GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
            local = GridSearchCV(
                Ridge(), {"alpha": [0.1, 1.0]}, cv=3, client=False
            ).fit(X, y)
    assert len(calls) == 1
    np.testing.assert_allclose(
        remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
    monkeypatch.setenv("GPUML_CLIENT", "tcp://127.0.0.1:9")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(
            OSError, match=r"GPUML_CLIENT='tcp://127\.0\.0\.1:9'.*unset"
        ):
            GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)


def _swapped_names() -> dict:
    """{scikit-learn module: the names gpuml.install() swaps there}."""
    names = {
        sk_name: set(
            _swappable(
                importlib.import_module(sk_name), importlib.import_module(gpuml_name)
            )
        )
        for sk_name, gpuml_name in _accel.FAMILIES.items()
    }
    names["sklearn.model_selection"] |= {"HalvingGridSearchCV", "HalvingRandomSearchCV"}
    return names


def test_gpumls_code_reaches_sklearns_classes_also_when_installed():
    """gpuml's code that builds on a scikit-learn class takes it from a
    public module only at import, in a module imported before the first swap
    (those that ``_accel._settle`` imports first); in a function it uses
    ``sklearn_own``. A name taken from the public module at run time would
    be gpuml's own class while installed (gpuml's LabelBinarizer calling
    itself instead of scikit-learn's: a RecursionError seen in
    scikit-learn's test_validation under the accelerator)."""
    import ast
    from pathlib import Path

    swapped = _swapped_names()
    assert swapped["sklearn.preprocessing"] >= {"LabelEncoder", "LabelBinarizer"}
    code = (
        "import importlib, sys\nfrom gpuml import _accel\n"
        "for name in (*_accel.FAMILIES.values(), 'gpuml.metrics'):\n"
        "    importlib.import_module(name)\n"
        "print(' '.join(m for m in sys.modules if m.startswith('gpuml')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    first = set(done.stdout.split())
    root = Path(gpuml.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        tree = ast.parse(path.read_text())
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in swapped:
                        aliases[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module == "sklearn":
                for alias in node.names:
                    if f"sklearn.{alias.name}" in swapped:
                        aliases[alias.asname or alias.name] = f"sklearn.{alias.name}"
        top_level = set(map(id, tree.body))
        for node in ast.walk(tree):
            where = f"{module}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.ImportFrom) and node.module in swapped:
                taken = {a.name for a in node.names} & swapped[node.module]
                if taken and (id(node) not in top_level or module not in first):
                    found.append(f"{where} imports {sorted(taken)}")
            if isinstance(node, ast.FunctionDef) or isinstance(
                node, ast.AsyncFunctionDef
            ):
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Attribute)
                        and isinstance(inner.value, ast.Name)
                        and inner.attr in swapped.get(aliases.get(inner.value.id), ())
                    ):
                        found.append(f"{where} reads {inner.value.id}.{inner.attr}")
    assert not found, found


def test_sklearn_modules_imported_after_install_keep_sklearns_classes():
    """scikit-learn's own modules imported while installed (here after the
    swap of sklearn.linear_model) bind scikit-learn's classes, as they do
    without gpuml; the public names stay gpuml's."""
    code = (
        "import sys, gpuml\n"
        "assert 'sklearn.ensemble' not in sys.modules\n"
        "gpuml.install()\n"
        "from gpuml._accel import _ORIGINALS\n"
        "import sklearn.ensemble._stacking as stacking, sklearn.linear_model as lm\n"
        "assert stacking.LogisticRegression is "
        "_ORIGINALS['sklearn.linear_model', 'LogisticRegression']\n"
        "assert lm.LogisticRegression.__module__.startswith('gpuml.')\n"
        "from sklearn.ensemble import StackingClassifier\n"
        "assert StackingClassifier.__module__.startswith('sklearn.')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gpuml_all_read_from_source_is_the_modules_all():
    for gpuml_name in _accel.FAMILIES.values():
        module = importlib.import_module(gpuml_name)
        assert _accel._gpuml_all(gpuml_name) == list(module.__all__), gpuml_name


def test_run_imports_nothing_of_gpuml_for_a_script_that_uses_none_of_it(tmp_path):
    """A script whose scikit-learn imports pull in sklearn.linear_model and
    sklearn.preprocessing only as scikit-learn's own dependencies (the
    ensembles) uses none of gpuml's names: gpuml's estimator modules are not
    imported, and scikit-learn's code has its own classes."""
    script = tmp_path / "forest.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            from sklearn.ensemble import RandomForestClassifier, StackingClassifier
            from sklearn.datasets import make_classification
            import sklearn.ensemble._stacking as stacking

            X, y = make_classification(200, 5, random_state=0)
            model = RandomForestClassifier(5, random_state=0).fit(X, y)
            print(json.dumps({
                "gpuml": sorted(m for m in sys.modules if m.startswith("gpuml.")
                                and m.count(".") == 1 and not m.startswith("gpuml._")),
                "stacking": stacking.LogisticRegression.__module__,
                "score": model.score(X, y),
            }))
            """
        )
    )
    plain, _ = _run([str(script)], tmp_path)
    ours, err = _run(["-m", "gpuml", "run", str(script)], tmp_path)
    assert ours["gpuml"] == [], ours["gpuml"]
    assert ours["stacking"].startswith("sklearn.")
    assert ours["score"] == plain["score"]
    assert "0 scikit-learn names were gpuml's" in err


def test_installed_estimators_behave_as_sklearns(accelerated):
    """What scikit-learn's code and users see of an estimator made from
    scikit-learn's name: isinstance, is_classifier/is_regressor, clone,
    get_params, repr and a pickle round trip as for scikit-learn's own."""
    import pickle

    from sklearn.base import clone, is_classifier, is_regressor

    originals = _accel._ORIGINALS
    cases = [
        ("sklearn.linear_model", "LogisticRegression", {"C": 0.5, "max_iter": 50}),
        ("sklearn.linear_model", "Ridge", {"alpha": 2.0}),
        ("sklearn.preprocessing", "StandardScaler", {"with_mean": False}),
    ]
    X = np.arange(40.0).reshape(20, 2) % 7
    y = np.arange(20) % 2
    for module, name, params in cases:
        ours = getattr(importlib.import_module(module), name)(**params)
        theirs = originals[module, name](**params)
        assert isinstance(ours, getattr(importlib.import_module(module), name))
        assert type(ours).__module__.startswith("gpuml.")
        assert is_classifier(ours) == is_classifier(theirs)
        assert is_regressor(ours) == is_regressor(theirs)
        assert repr(ours) == repr(theirs)
        assert clone(ours).get_params() == ours.get_params()
        shared = {k: v for k, v in ours.get_params().items() if k != "engine"}
        assert shared == theirs.get_params()
        fitted = ours.fit(X, y)
        again = pickle.loads(pickle.dumps(fitted))
        method = "transform" if name == "StandardScaler" else "predict"
        np.testing.assert_array_equal(
            getattr(again, method)(X), getattr(fitted, method)(X)
        )
