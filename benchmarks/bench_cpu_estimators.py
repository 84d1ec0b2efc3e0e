"""Without a GPU: each gpuml estimator's fit and predict against scikit-learn's.

A guard for the CPU users (CI, laptops): a host path of gpuml's that is far
slower than scikit-learn's compiled code shows here as a large ratio. Until
2026-11-28 LinearSVC's hinge loss and LinearSVR's epsilon-insensitive loss
ran liblinear's method as a Python loop, 400x slower than scikit-learn, and
no benchmark timed them.

One process, ``GPUML_DEVICE=cpu`` (NumPy/SciPy). Every case fits and then
predicts (or transforms) the same data with each class; the time is the
minimum of ``--repeat`` such calls after one untimed call on 200 rows (the
two libraries alternate, so a shared machine slows both alike). The data:
20,000 x 30 float64 (standard normal; four classes from a noisy argmax,
or a linear target with noise), non-negative copies for the count models,
integers 0-4 for the encoders and CategoricalNB, 10 % missing for the
imputers (KNNImputer on 3,000 rows). ``--quick`` uses 5,000 rows.
"""

from __future__ import annotations

import importlib
import os
import time
import warnings

import numpy as np

from benchmarks._timing import SKLEARN, row

GPUML = "gpuml (CPU)"

# (module, class, parameters, data, target): the data and targets by name
CASES = [
    ("linear_model", "LinearRegression", {}, "X", "reg"),
    ("linear_model", "Ridge", {}, "X", "reg"),
    ("linear_model", "RidgeCV", {}, "X", "reg"),
    ("linear_model", "RidgeClassifier", {}, "X", "clf"),
    ("linear_model", "RidgeClassifierCV", {}, "X", "clf"),
    ("linear_model", "Lasso", {"alpha": 0.01}, "X", "reg"),
    ("linear_model", "ElasticNet", {}, "X", "reg"),
    ("linear_model", "LassoCV", {}, "X", "reg"),
    ("linear_model", "ElasticNetCV", {}, "X", "reg"),
    ("linear_model", "LogisticRegression", {}, "X", "clf"),
    (
        "linear_model",
        "LogisticRegression",
        {"l1_ratio": 1, "solver": "saga"},
        "X",
        "clf",
    ),
    ("linear_model", "LogisticRegression", {"solver": "liblinear"}, "X", "binary"),
    ("linear_model", "LogisticRegressionCV", {}, "X", "clf"),
    ("svm", "LinearSVC", {}, "X", "clf"),
    ("svm", "LinearSVC", {"loss": "hinge", "random_state": 0}, "X", "clf"),
    (
        "svm",
        "LinearSVC",
        {"multi_class": "crammer_singer", "random_state": 0},
        "X",
        "clf",
    ),
    ("svm", "LinearSVR", {"random_state": 0}, "X", "reg"),
    ("neighbors", "KNeighborsClassifier", {}, "X", "clf"),
    ("neighbors", "KNeighborsRegressor", {}, "X", "reg"),
    ("decomposition", "PCA", {"n_components": 5}, "X", None),
    ("decomposition", "TruncatedSVD", {}, "X", None),
    ("cluster", "KMeans", {"n_clusters": 8, "random_state": 0}, "X", None),
    ("cluster", "MiniBatchKMeans", {"n_clusters": 8, "random_state": 0}, "X", None),
    ("naive_bayes", "GaussianNB", {}, "X", "clf"),
    ("naive_bayes", "BernoulliNB", {}, "X", "clf"),
    ("naive_bayes", "MultinomialNB", {}, "positive", "clf"),
    ("naive_bayes", "ComplementNB", {}, "positive", "clf"),
    ("naive_bayes", "CategoricalNB", {}, "integers", "clf"),
    ("preprocessing", "StandardScaler", {}, "X", None),
    ("preprocessing", "MinMaxScaler", {}, "X", None),
    ("preprocessing", "MaxAbsScaler", {}, "X", None),
    ("preprocessing", "RobustScaler", {}, "X", None),
    ("preprocessing", "Normalizer", {}, "X", None),
    ("preprocessing", "PolynomialFeatures", {}, "X10", None),
    ("preprocessing", "SplineTransformer", {}, "X10", None),
    (
        "preprocessing",
        "KBinsDiscretizer",
        {"quantile_method": "averaged_inverted_cdf"},
        "X",
        None,
    ),
    ("preprocessing", "OneHotEncoder", {}, "integers", None),
    ("preprocessing", "OrdinalEncoder", {}, "integers", None),
    ("preprocessing", "TargetEncoder", {}, "integers", "reg"),
    ("impute", "SimpleImputer", {}, "missing", None),
    ("impute", "MissingIndicator", {}, "missing", None),
    ("impute", "KNNImputer", {}, "missing3k", None),
]


def _data(n: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 30))
    missing = X.copy()
    missing[rng.random(X.shape) < 0.1] = np.nan
    clf = np.argmax(X[:, :4] + rng.normal(size=(n, 4)), axis=1)
    data = {
        "X": X,
        "X10": X[:, :10],
        "positive": np.abs(X),
        "integers": rng.integers(0, 5, size=(n, 30)),
        "missing": missing,
        "missing3k": missing[:3000],
    }
    targets = {
        "clf": clf,
        "binary": clf % 2,
        "reg": X @ rng.normal(size=30) + rng.normal(size=n),
    }
    return data, targets


def _fit_use(estimator, X, y) -> float:
    start = time.perf_counter()
    estimator.fit(X) if y is None else estimator.fit(X, y)
    if hasattr(estimator, "predict"):
        estimator.predict(X)
    else:
        estimator.transform(X)
    return time.perf_counter() - start


def run(quick: bool, repeat: int = 3) -> list[dict]:
    os.environ["GPUML_DEVICE"] = "cpu"
    n = 5_000 if quick else 20_000
    data, targets = _data(n)
    rows = []
    for module, name, params, data_name, target_name in CASES:
        X = data[data_name]
        y = None if target_name is None else targets[target_name][: X.shape[0]]
        classes = [
            getattr(importlib.import_module(f"{package}.{module}"), name)
            for package in ("sklearn", "gpuml")
        ]
        times = {cls: [] for cls in classes}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning alike in both
            for cls in classes:
                _fit_use(cls(**params), X[:200], None if y is None else y[:200])
            for _ in range(repeat):
                for cls in classes:
                    times[cls].append(_fit_use(cls(**params), X, y))
        shape = f"{X.shape[0]:,}x{X.shape[1]}"
        workload = f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
        sk, ours = (min(times[cls]) for cls in classes)
        rows.append(row(workload, SKLEARN, shape, sk, "fit + predict/transform"))
        flag = "  SLOWER THAN 3x" if ours > 3 * sk and ours > 0.2 else ""
        rows.append(row(workload, GPUML, shape, ours, f"NumPy backend{flag}"))
    return rows
