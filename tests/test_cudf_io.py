"""cuDF in, cuDF out; ``set_output(transform="cudf")``; pandas under
cuDF's accelerator mode (``python -m cudf.pandas``).

The rule (docs/device-and-outputs.rst): a cuDF DataFrame or Series given to
``predict``, ``predict_proba``, ``predict_log_proba``,
``decision_function``, ``transform``, ``inverse_transform`` or
``fit_transform`` gives cuDF back (a Series for one dimension, a DataFrame
otherwise, with the input's index), where the output is dense; fitted
attributes stay CuPy. The cuDF parts are skipped without cuDF and a GPU.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils._set_output import ADAPTERS_MANAGER

from gpuml._array import to_output
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.manifold import UMAP
from gpuml.preprocessing import StandardScaler
from tests.conftest import HAS_GPU

HAS_CUDF = importlib.util.find_spec("cudf") is not None
needs_cudf = pytest.mark.skipif(
    not (HAS_CUDF and HAS_GPU), reason="needs cuDF and a GPU"
)


# -- everywhere -------------------------------------------------------------


def test_cudf_output_is_registered_with_scikit_learn():
    assert "cudf" in ADAPTERS_MANAGER.supported_outputs


def test_other_inputs_keep_their_output(rng):
    values = rng.standard_normal((4, 2))
    assert to_output(values, values) is values
    assert to_output(values, values.tolist()) is values


@pytest.mark.skipif(HAS_CUDF, reason="cuDF is installed")
def test_cudf_output_without_cudf_names_the_package(rng):
    scaler = StandardScaler().set_output(transform="cudf")
    with pytest.raises(ImportError, match="requires cudf to be installed"):
        scaler.fit_transform(rng.standard_normal((5, 2)))


@pytest.fixture
def stand_in_cudf(monkeypatch):
    """A stand-in ``cudf`` module built on pandas (its DataFrame and Series
    report ``cudf`` as their module, as cuDF's types do), so that the output
    rule and the ``set_output`` container run here without a GPU."""
    import types

    import pandas as pd

    class DataFrame(pd.DataFrame):
        __module__ = "cudf.core.dataframe"

        @property
        def _constructor(self):  # its slices are of its type, as cuDF's
            return DataFrame

        @property
        def _constructor_sliced(self):
            return Series

    class Series(pd.Series):
        __module__ = "cudf.core.series"

        @property
        def _constructor(self):
            return Series

        @property
        def _constructor_expanddim(self):
            return DataFrame

    module = types.ModuleType("cudf")
    module.DataFrame, module.Series = DataFrame, Series
    module.concat = lambda frames, axis: DataFrame(pd.concat(frames, axis=axis))
    monkeypatch.setitem(sys.modules, "cudf", module)
    return module


def test_output_rule_with_a_stand_in_cudf(stand_in_cudf, rng):
    X = stand_in_cudf.DataFrame(
        rng.standard_normal((5, 2)), columns=["a", "b"], index=range(10, 15)
    )
    one = to_output(np.arange(5.0), X)
    assert isinstance(one, stand_in_cudf.Series)
    assert list(one.index) == list(range(10, 15))
    two = to_output(np.ones((5, 2)), X, columns=lambda: ["p", "q"])
    assert isinstance(two, stand_in_cudf.DataFrame)
    assert list(two.columns) == ["p", "q"] and list(two.index) == list(X.index)


def test_set_output_cudf_with_a_stand_in_cudf(stand_in_cudf, rng):
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import StandardScaler as SkStandardScaler

    values = rng.standard_normal((6, 2))
    scaled = StandardScaler().set_output(transform="cudf").fit_transform(values)
    assert isinstance(scaled, stand_in_cudf.DataFrame)
    assert list(scaled.columns) == ["x0", "x1"]
    np.testing.assert_allclose(
        scaled.to_numpy(), StandardScaler().fit_transform(values), rtol=1e-12
    )
    # a ColumnTransformer stacks its parts with the container's hstack
    # (scikit-learn's scalers: gpuml's would take the stand-in for device
    # data, which needs a GPU)
    X = stand_in_cudf.DataFrame(values, columns=["a", "b"], index=range(3, 9))
    both = make_column_transformer(
        (SkStandardScaler(), ["a"]), (SkStandardScaler(), ["b"])
    ).set_output(transform="cudf")
    out = both.fit_transform(X)
    assert isinstance(out, stand_in_cudf.DataFrame)
    assert list(out.columns) == ["standardscaler-1__a", "standardscaler-2__b"]
    assert list(out.index) == list(range(3, 9))


# -- on a GPU with cuDF -----------------------------------------------------


def frame(rng, n=200, p=4, start=10):
    import cudf

    values = rng.standard_normal((n, p))
    index = cudf.RangeIndex(start, start + n)
    return cudf.DataFrame({f"f{i}": values[:, i] for i in range(p)}, index=index)


@pytest.mark.gpu
@needs_cudf
def test_ridge_predicts_a_series_with_the_index(rng):
    import cudf
    import cupy

    X = frame(rng)
    y = cudf.Series(X.to_cupy() @ cupy.arange(1.0, 5.0), index=X.index)
    model = Ridge().fit(X, y)
    assert isinstance(model.coef_, cupy.ndarray)  # attributes stay CuPy
    predicted = model.predict(X)
    assert isinstance(predicted, cudf.Series)
    assert predicted.index.equals(X.index)
    on_cupy = Ridge().fit(X.to_cupy(), y.to_cupy())
    cupy.testing.assert_allclose(predicted.to_cupy(), on_cupy.predict(X.to_cupy()))
    two = Ridge().fit(X, cudf.DataFrame({"a": y, "b": -y}))
    assert isinstance(two.predict(X), cudf.DataFrame)
    assert two.predict(X).shape == (len(X), 2)


@pytest.mark.gpu
@needs_cudf
def test_logistic_outputs_are_cudf_with_class_columns(rng):
    import cudf

    X = frame(rng)
    codes = (X["f0"] > 0).astype("int64") + (X["f1"] > 0.5).astype("int64")
    labels = np.array(["ant", "bee", "cat"])[codes.to_numpy()]
    model = LogisticRegression().fit(X, labels)
    predicted = model.predict(X)
    assert isinstance(predicted, cudf.Series)
    assert predicted.index.equals(X.index)
    on_numpy = LogisticRegression().fit(X.to_numpy(), labels)
    np.testing.assert_array_equal(predicted.to_numpy(), on_numpy.predict(X.to_numpy()))
    for method in ("predict_proba", "predict_log_proba", "decision_function"):
        response = getattr(model, method)(X)
        assert isinstance(response, cudf.DataFrame), method
        assert list(response.columns) == ["ant", "bee", "cat"]
        assert response.index.equals(X.index)
    binary = LogisticRegression().fit(X, codes > 0)
    assert isinstance(binary.decision_function(X), cudf.Series)


@pytest.mark.gpu
@needs_cudf
def test_scaler_keeps_columns_and_index(rng):
    import cudf

    X = frame(rng)
    scaler = StandardScaler().fit(X)
    scaled = scaler.transform(X)
    assert isinstance(scaled, cudf.DataFrame)
    assert list(scaled.columns) == list(X.columns)
    assert scaled.index.equals(X.index)
    back = scaler.inverse_transform(scaled)
    assert isinstance(back, cudf.DataFrame)
    np.testing.assert_allclose(back.to_numpy(), X.to_numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
@needs_cudf
def test_umap_embeds_into_a_dataframe(rng):
    import cudf

    X = frame(rng, n=300)
    model = UMAP(n_epochs=20, random_state=0)
    embedding = model.fit_transform(X)
    assert isinstance(embedding, cudf.DataFrame)
    assert list(embedding.columns) == ["umap0", "umap1"]
    assert embedding.index.equals(X.index)
    new = model.transform(X.head(20))
    assert isinstance(new, cudf.DataFrame) and new.shape == (20, 2)


@pytest.mark.gpu
@needs_cudf
def test_set_output_cudf_from_numpy_and_in_a_pipeline(rng):
    import cudf
    from sklearn.pipeline import make_pipeline

    values = rng.standard_normal((100, 3))
    scaled = StandardScaler().set_output(transform="cudf").fit_transform(values)
    assert isinstance(scaled, cudf.DataFrame)
    assert list(scaled.columns) == ["x0", "x1", "x2"]
    np.testing.assert_allclose(
        scaled.to_numpy(), StandardScaler().fit_transform(values), rtol=1e-12
    )
    pipeline = make_pipeline(StandardScaler(), UMAP(n_epochs=10, random_state=0))
    embedding = pipeline.set_output(transform="cudf").fit_transform(values)
    assert isinstance(embedding, cudf.DataFrame)
    assert list(embedding.columns) == ["umap0", "umap1"]


ACCELERATED_SCRIPT = textwrap.dedent(
    """
    import json
    import numpy as np
    import pandas as pd
    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.metrics import accuracy_score, r2_score
    from gpuml.model_selection import GridSearchCV
    from gpuml.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.standard_normal((300, 4)), columns=list("abcd"))
    y = pd.Series(X.to_numpy() @ np.arange(1.0, 5.0) + rng.standard_normal(300))
    ridge = Ridge().fit(X, y)
    search = GridSearchCV(
        LogisticRegression(), {"C": [0.01, 1.0]}, cv=3
    ).fit(X, y > 0)
    scaled = StandardScaler().fit_transform(X)
    print(json.dumps({
        "pandas": type(X).__module__,
        "names": list(map(str, ridge.feature_names_in_)),
        "predict": type(ridge.predict(X)).__module__,
        "coef": np.asarray(ridge.coef_).round(10).tolist(),
        "r2": round(r2_score(y, ridge.predict(X)), 10),
        "best": search.best_params_,
        "accuracy": accuracy_score(y > 0, search.predict(X)),
        "scaled": type(scaled).__module__,
    }))
    """
)


@pytest.mark.gpu
@needs_cudf
def test_pandas_under_cudf_accelerator_mode_works_as_pandas(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(ACCELERATED_SCRIPT)
    outputs = []
    for prefix in ([], ["-m", "cudf.pandas"]):
        done = subprocess.run(
            [sys.executable, *prefix, str(script)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    plain, accelerated = outputs
    assert accelerated["names"] == ["a", "b", "c", "d"]
    assert accelerated["predict"] == "numpy" and accelerated["scaled"] == "numpy"
    np.testing.assert_allclose(accelerated["coef"], plain["coef"], rtol=1e-9)
    assert accelerated["r2"] == pytest.approx(plain["r2"], rel=1e-9)
    assert accelerated["best"] == plain["best"]
    assert accelerated["accuracy"] == plain["accuracy"]


@pytest.mark.gpu
@needs_cudf
def test_search_and_metrics_take_cudf(rng):
    import cudf
    from sklearn.linear_model import Ridge as SkRidge
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    from gpuml.metrics import mean_squared_error, r2_score
    from gpuml.model_selection import GridSearchCV

    X = frame(rng, n=300)
    values = X.to_numpy()
    target = values @ np.arange(1.0, 5.0) + rng.standard_normal(300)
    y = cudf.Series(target, index=X.index)
    grid = {"alpha": [0.01, 1.0, 100.0]}
    search = GridSearchCV(Ridge(), grid, cv=3).fit(X, y)
    want = SkGridSearchCV(SkRidge(), grid, cv=3).fit(values, target)
    assert search.best_params_ == want.best_params_
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"],
        want.cv_results_["mean_test_score"],
        rtol=1e-10,
    )
    assert list(search.feature_names_in_) == list(X.columns)
    predicted = search.predict(X)
    assert isinstance(predicted, cudf.Series) and predicted.index.equals(X.index)
    assert r2_score(y, predicted) == pytest.approx(
        want.score(values, target), rel=1e-10
    )
    assert isinstance(mean_squared_error(y, predicted), float)


def test_which_estimators_read_documents_on_the_device(stand_in_cudf):
    """A cuDF string Series goes as it is to gpuml's text vectorizers (each
    declares ``_reads_device_documents``) and to Pipelines that start with
    one and continue with gpuml's estimators; anything else gets host data."""
    from sklearn.feature_extraction.text import HashingVectorizer as SkHashing
    from sklearn.linear_model import LogisticRegression as SkLogistic
    from sklearn.pipeline import make_pipeline

    from gpuml.base import accepts_device_input
    from gpuml.feature_extraction.text import (
        CountVectorizer,
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
    )

    docs = stand_in_cudf.Series(["a b", "b c"])
    for vectorizer in (CountVectorizer(), HashingVectorizer(), TfidfVectorizer()):
        assert accepts_device_input(vectorizer, docs)
        assert accepts_device_input(
            make_pipeline(vectorizer, "passthrough", LogisticRegression()), docs
        )
        assert not accepts_device_input(make_pipeline(vectorizer, SkLogistic()), docs)
    assert not accepts_device_input(SkHashing(), docs)
    assert not accepts_device_input(TfidfTransformer(), docs)
    assert not accepts_device_input(make_pipeline(StandardScaler()), docs)
    assert not accepts_device_input(make_pipeline("passthrough"), docs)


def test_base_imports_no_estimator_family():
    """gpuml.base sits below every estimator family: no import in it, at the
    top or inside a function, names one (it imports gpuml's array and
    backend helpers only)."""
    import ast

    import gpuml.base

    tree = ast.parse(Path(gpuml.base.__file__).read_text())
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    gpuml_modules = {name for name in imported if name and name.startswith("gpuml")}
    assert gpuml_modules <= {"gpuml._array", "gpuml._backend"}, gpuml_modules
