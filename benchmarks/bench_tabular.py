"""Issue 39's tabular search: ColumnTransformer + LogisticRegression from a DataFrame.

The target of issue 39: a 2,000,000-row pandas DataFrame with 8 string
columns (5 to 5,000 categories of skewed frequencies, some missing: ``None``
in some columns, NaN in others) and 12 float32 numeric columns (5 % NaN
each), a binary target that depends on three of the string columns and six
numeric ones; the pipeline

    ColumnTransformer([
        ("cat", OneHotEncoder(handle_unknown="ignore"), string columns),
        ("num", make_pipeline(SimpleImputer(), StandardScaler()), numeric columns),
    ]) + LogisticRegression(max_iter=1000)

in GridSearchCV over 12 ``C`` (``logspace(-3, 2, 12)``) x 5 folds (accuracy,
refit). The issue asks for at least 30x scikit-learn's search
(``n_jobs=16``), the same best ``C`` and best scores within 1e-6, and the
same from a cuDF DataFrame.

gpuml's pipeline is the same with gpuml's classes (``gpuml.preprocessing``
OneHotEncoder and StandardScaler, ``gpuml.impute.SimpleImputer``,
``gpuml.linear_model.LogisticRegression``,
``gpuml.model_selection.GridSearchCV``) and ``gpuml.compose``'s
ColumnTransformer where gpuml has one, else scikit-learn's with gpuml's
transformers inside (the row's notes say which;
``BENCH_TABULAR_CT=sklearn`` asks for scikit-learn's where gpuml has one, to
compare the two). A class gpuml does not have is a skipped row naming it.

Workloads:

- ``table``: the DataFrame as described. gpuml's search reads it as one
  numeric matrix, made on the clock (string columns as positions among
  their sorted values: ``gpuml/model_selection/_table.py``), so that the
  folds' encoding runs on the device; its refit reads the DataFrame as
  given (the string categories found by scikit-learn's host code, the
  encoding of numbers on the device).
- ``table-codes``: the same search on the same table after its string
  columns are mapped once, before the search and outside the clock, to
  pandas' category codes as float32 (``pd.Categorical(column).codes``,
  missing as NaN; the categories are sorted, so the one-hot columns are
  the same as ``table``'s, in the same order), so that gpuml's encoders
  work on numeric data on the device. The mapping's time is in the notes.

Rows of each workload, in the order they run: gpuml on the pandas DataFrame
(warm: the median of ``--repeat`` searches after a first call, the only
warm-up, whose time is in the notes), gpuml on a cuDF DataFrame made from it
(when ``cudf`` imports, else a skipped row saying why; string columns' NaN
made null, numeric NaN kept), then scikit-learn's search with ``n_jobs=16``
on the pandas DataFrame, timed once. Each gpuml row's notes compare its
result with scikit-learn's: best ``C`` same or not, the best scores'
difference and the largest difference of mean test scores over the 12
``C``. A gpuml search that raises is a skipped row with the error (traceback
on stderr), so the other rows still run.

``python -m benchmarks.run tabular [--quick] [--repeat N]`` (``--quick``
divides the rows by 10); ``python -m benchmarks.bench_tabular [NAME ...]
[--rows-divisor D] [--repeat N] [--device cpu] [--sklearn-timeout S]
[--sklearn-jobs J]`` runs some workloads (``--device cpu``: gpuml on the
CPU, to check the script where there is no GPU; ``--sklearn-timeout``:
scikit-learn's search in a child process stopped after S seconds, its row
then "did not finish" and the speed-up a lower bound; ``--sklearn-jobs``:
its ``n_jobs`` instead of 16, for a check on a small machine). Each result
is printed as it comes.

``python -m benchmarks.bench_tabular --first-use [NAME ...] [--rows-divisor
D] [--device cpu]``: each workload's gpuml search (pandas input) in a fresh
process on an empty ``CUPY_CACHE_DIR``, then in two on that cache (imports,
the CUDA context and the data before the clock, the imports' time apart),
as JSON lines.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import time
import traceback

import numpy as np

from benchmarks._timing import (
    DEFAULT_REPEAT,
    SKLEARN,
    child_result,
    cupy_or_none,
    first_use_runs,
    free_gpu_memory,
    no_gpu_reason,
    row,
    time_once,
)

N_JOBS = 16
N_ROWS = 2_000_000
# The string columns' numbers of categories and shares of missing values
# (None in even columns, NaN in odd ones: both are scikit-learn's missing
# category of an object column).
CARDINALITIES = (5, 12, 40, 150, 500, 1000, 2500, 5000)
MISSING = (0.0, 0.01, 0.02, 0.05, 0.0, 0.1, 0.03, 0.2)
N_NUMERIC = 12
NUMERIC_NAN = 0.05
CS = [float(c) for c in np.logspace(-3, 2, 12)]
# The gpuml classes the pipeline needs: (module, class).
GPUML_CLASSES = (
    ("preprocessing", "OneHotEncoder"),
    ("impute", "SimpleImputer"),
    ("preprocessing", "StandardScaler"),
    ("linear_model", "LogisticRegression"),
    ("model_selection", "GridSearchCV"),
)


def _gpuml(module: str, name: str):
    """gpuml's class ``name`` of ``gpuml.<module>``, or None where gpuml
    has no such class yet."""
    try:
        found = importlib.import_module(f"gpuml.{module}")
    except ImportError:
        return None
    return getattr(found, name) if name in getattr(found, "__all__", ()) else None


def _missing_classes() -> list[str]:
    return [name for module, name in GPUML_CLASSES if _gpuml(module, name) is None]


def _gpuml_column_transformer():
    """gpuml's ColumnTransformer, or None where gpuml has none or
    ``BENCH_TABULAR_CT=sklearn`` asks for scikit-learn's."""
    if os.environ.get("BENCH_TABULAR_CT", "gpuml") == "sklearn":
        return None
    return _gpuml("compose", "ColumnTransformer")


def _column_transformer_source() -> str:
    """Whose ColumnTransformer gpuml's pipeline uses."""
    if _gpuml_column_transformer() is not None:
        return "gpuml's ColumnTransformer"
    if os.environ.get("BENCH_TABULAR_CT", "gpuml") == "sklearn":
        return "scikit-learn's ColumnTransformer (BENCH_TABULAR_CT=sklearn)"
    return "scikit-learn's ColumnTransformer (no gpuml.compose yet)"


# --------------------------------------------------------------------------
# The data
# --------------------------------------------------------------------------


def string_columns() -> list[str]:
    return [f"s{i}" for i in range(len(CARDINALITIES))]


def numeric_columns() -> list[str]:
    return [f"x{i}" for i in range(N_NUMERIC)]


def make_table(n: int, seed: int = 0):
    """``(X, y)``: the issue's pandas DataFrame of ``n`` rows and its binary
    target (int64 NumPy array).

    Each string column draws its categories (``"s<col>_<k>"``) with Zipf-like
    frequencies (``1 / (k + 1) ** 1.1``), so that rare categories are in
    some folds' test rows only; ``MISSING`` gives each column's share of
    missing values. Numeric columns have their own offsets and scales,
    5 % NaN each. The target is a noisy threshold of a score made of
    per-category effects of columns s0, s2 and s5 and a linear function of
    x0..x5, balanced at its median.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    data, score = {}, np.zeros(n)
    for i, (k, missing) in enumerate(zip(CARDINALITIES, MISSING, strict=True)):
        p = 1.0 / np.arange(1, k + 1) ** 1.1
        codes = rng.choice(k, size=n, p=p / p.sum())
        labels = np.array([f"s{i}_{j}" for j in range(k)], dtype=object)
        values = labels[codes]
        absent = rng.random(n) < missing
        values[absent] = None if i % 2 == 0 else np.nan
        data[f"s{i}"] = pd.Series(values, dtype=object)
        if i in (0, 2, 5):
            effect = rng.normal(scale=1.0, size=k)
            score += np.where(absent, 0.5, effect[codes])
    for j in range(N_NUMERIC):
        z = rng.normal(size=n)
        if j < 6:
            score += rng.normal() * z
        x = (rng.uniform(-50, 50) + np.exp(rng.normal(scale=2.0)) * z).astype(
            np.float32
        )
        x[rng.random(n) < NUMERIC_NAN] = np.nan
        data[f"x{j}"] = x
    score += rng.logistic(size=n)
    y = (score > np.median(score)).astype(np.int64)
    return pd.DataFrame(data), y


def to_codes(X):
    """``X`` with each string column replaced by its pandas category codes
    as float32 (missing as NaN). The categories of ``pd.Categorical`` are
    sorted, as OneHotEncoder's are, so the one-hot columns keep their order."""
    import pandas as pd

    X = X.copy()
    for name in string_columns():
        codes = pd.Categorical(X[name]).codes.astype(np.float32)
        codes[codes < 0] = np.nan
        X[name] = codes
    return X


def to_cudf(X):
    """A cuDF DataFrame of ``X``: missing strings as nulls, numeric NaN kept
    (what SimpleImputer's ``missing_values=np.nan`` looks for)."""
    import cudf

    X = X.copy()
    for name in string_columns():
        if X[name].dtype == object:
            X[name] = X[name].where(X[name].notna(), None)
    return cudf.DataFrame.from_pandas(X, nan_as_null=False)


def _table(divisor: int):
    return make_table(N_ROWS // divisor, seed=0)


def _table_codes(divisor: int):
    X, y = make_table(N_ROWS // divisor, seed=0)
    start = time.perf_counter()
    X = to_codes(X)
    return X, y, time.perf_counter() - start


def _data(name: str, divisor: int):
    """``(X, y, note)`` of workload ``name``."""
    if name == "table":
        X, y = _table(divisor)
        return X, y, ""
    X, y, seconds = _table_codes(divisor)
    return X, y, f"codes made by pandas in {seconds:.2f} s, before the search"


# --------------------------------------------------------------------------
# The searches
# --------------------------------------------------------------------------


def _search(sklearn: bool, n_jobs: int = N_JOBS):
    """The GridSearchCV of the issue, scikit-learn's or gpuml's."""
    grid = {"logisticregression__C": CS}
    cat, num = string_columns(), numeric_columns()
    if sklearn:
        from sklearn.compose import ColumnTransformer
        from sklearn.impute import SimpleImputer
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GridSearchCV
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder, StandardScaler

        search_kwargs = {"n_jobs": n_jobs}
    else:
        from sklearn.pipeline import make_pipeline

        OneHotEncoder = _gpuml("preprocessing", "OneHotEncoder")
        SimpleImputer = _gpuml("impute", "SimpleImputer")
        StandardScaler = _gpuml("preprocessing", "StandardScaler")
        LogisticRegression = _gpuml("linear_model", "LogisticRegression")
        GridSearchCV = _gpuml("model_selection", "GridSearchCV")
        ColumnTransformer = _gpuml_column_transformer()
        if ColumnTransformer is None:
            from sklearn.compose import ColumnTransformer
        search_kwargs = {}
    columns = ColumnTransformer(
        [
            ("cat", OneHotEncoder(handle_unknown="ignore"), cat),
            ("num", make_pipeline(SimpleImputer(), StandardScaler()), num),
        ]
    )
    pipeline = make_pipeline(columns, LogisticRegression(max_iter=1000))
    return GridSearchCV(pipeline, grid, cv=5, **search_kwargs)


def _fitting(X, y, *, sklearn: bool, n_jobs: int = N_JOBS):
    return lambda: _search(sklearn, n_jobs).fit(X, y)


def _summary(fitted) -> dict:
    """What a search's result is compared by (JSON-able)."""
    return {
        "best_C": float(fitted.best_params_["logisticregression__C"]),
        "best_score": float(fitted.best_score_),
        "scores": [float(v) for v in fitted.cv_results_["mean_test_score"]],
    }


def _describe(summary: dict) -> str:
    return f"best C {summary['best_C']:.3g}, best score {summary['best_score']:.6f}"


def _compare(ours: dict, theirs: dict) -> str:
    same = ours["best_C"] == theirs["best_C"]
    score = abs(ours["best_score"] - theirs["best_score"])
    every = np.max(np.abs(np.subtract(ours["scores"], theirs["scores"])))
    verdict = "same" if same else f"DIFFERS: {ours['best_C']:.3g}"
    return (
        f"best C {verdict}; best score diff {score:.1e} "
        f"(max over the {len(CS)} C {every:.1e})"
    )


def _sklearn_in_child(name: str, divisor: int, timeout: float, n_jobs: int):
    """scikit-learn's search of a workload in a child process stopped after
    ``timeout`` seconds: ``(seconds, summary)``, or ``(None, None)`` when it
    did not finish (the speed-up is then at least ``timeout`` over gpuml's)."""
    command = [sys.executable, "-m", "benchmarks.bench_tabular"]
    command += ["--sklearn-child", name, str(divisor), str(n_jobs)]
    found = child_result(command, timeout)
    return (None, None) if found is None else (found["seconds"], found["summary"])


def _sklearn_child(name: str, divisor: int, n_jobs: int) -> None:
    X, y, _ = _data(name, divisor)
    seconds, fitted = time_once(_fitting(X, y, sklearn=True, n_jobs=n_jobs))
    print(json.dumps({"seconds": seconds, "summary": _summary(fitted)}))


def _ratio(r: float) -> str:
    return f"{r:.0f}" if r >= 10 else f"{r:.1f}"


def _one_line(exc: Exception) -> str:
    """An error's message on one line: its first line and, for the search's
    "All the 60 fits failed" report, its last (the fits' own error)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if len(lines) > 1:
        lines = [lines[0], "...", lines[-1]]
    return " ".join(lines)[:300]


def _gpuml_row(name, label, input_desc, workload, X, y, device, repeat, reason):
    """Time gpuml's search: ``(row or None, seconds, first, summary)``; the
    row is a skipped one when ``reason`` is set or the search raises."""
    from gpuml import config_context

    if reason:
        return row(workload, label, input_desc, None, reason), None, None, None
    try:
        with config_context(device=device):
            t_first, _ = time_once(_fitting(X, y, sklearn=False))
            times = []
            for _ in range(max(1, repeat)):  # the first call was the warm-up
                seconds, fitted = time_once(_fitting(X, y, sklearn=False))
                times.append(seconds)
            t = statistics.median(times)
    except Exception as exc:  # the other rows still run
        traceback.print_exc()
        message = f"failed: {type(exc).__name__}: {_one_line(exc)}"
        return row(workload, label, input_desc, None, message), None, None, None
    summary = _summary(fitted)
    print(
        f"{name}: {label} {input_desc} {t:.3f} s (first call {t_first:.3f} s; "
        f"{_describe(summary)})",
        flush=True,
    )
    return None, t, t_first, summary


def _cudf_reason() -> str:
    """Why there is no cuDF row (empty when cuDF imports)."""
    try:
        import cudf  # noqa: F401
    except Exception as exc:  # any failure to load is a reason
        return f"no cuDF: {type(exc).__name__}: {str(exc)[:120]}"
    return ""


def run(
    quick: bool,
    repeat: int = DEFAULT_REPEAT,
    *,
    names=None,
    divisor=None,
    device="gpu",
    sklearn_timeout=None,
    sklearn_jobs=N_JOBS,
) -> list[dict]:
    """The rows of the workloads ``names`` (all by default). gpuml's searches
    run first (pandas, then cuDF); with ``sklearn_timeout`` scikit-learn's
    runs in a child process stopped after that many seconds."""
    divisor = divisor or (10 if quick else 1)
    rows = []
    cupy = cupy_or_none() if device == "gpu" else None
    missing = _missing_classes()
    for name in names or WORKLOADS:
        if name not in WORKLOADS:
            raise SystemExit(
                f"unknown workload {name!r}; choose from {list(WORKLOADS)}"
            )
        X, y, data_note = _data(name, divisor)
        workload = WORKLOADS[name].format(n=len(X))
        label = f"gpuml ({device.upper()})"
        if missing:
            reason = f"no gpuml {', '.join(missing)} yet"
        elif device == "gpu" and cupy is None:
            reason = no_gpu_reason()
        else:
            reason = ""
        transformer = _column_transformer_source()
        results = []  # (skipped row or None, input, t, t_first, summary)
        found = _gpuml_row(
            name, label, "pandas DataFrame", workload, X, y, device, repeat, reason
        )
        results.append((found[0], "pandas DataFrame", *found[1:]))
        free_gpu_memory()
        cudf_reason = reason or (
            "cuDF needs the GPU" if device != "gpu" else _cudf_reason()
        )
        X_cudf = None if cudf_reason else to_cudf(X)
        found = _gpuml_row(
            name, label, "cuDF DataFrame", workload, X_cudf, y, device, repeat,
            cudf_reason,
        )  # fmt: skip
        results.append((found[0], "cuDF DataFrame", *found[1:]))
        del X_cudf
        free_gpu_memory()
        if sklearn_timeout is None:
            fitting = _fitting(X, y, sklearn=True, n_jobs=sklearn_jobs)
            t_sk, fitted_sk = time_once(fitting)
            summary_sk = _summary(fitted_sk)
            del fitted_sk
        else:
            t_sk, summary_sk = _sklearn_in_child(
                name, divisor, sklearn_timeout, sklearn_jobs
            )
        del X, y
        print(f"{name}: scikit-learn {t_sk} s", flush=True)
        if t_sk is None:
            note = f"did not finish in {sklearn_timeout:g} s"
        else:
            note = _describe(summary_sk)
        note = "; ".join(n for n in (note, data_note) if n)
        rows.append(
            row(
                workload,
                SKLEARN,
                f"pandas DataFrame, n_jobs={sklearn_jobs}",
                t_sk,
                note,
            )
        )
        for skipped, input_desc, t, t_first, summary in results:
            if skipped is not None:
                rows.append(skipped)
                continue
            compared = (
                _compare(summary, summary_sk)
                if summary_sk is not None
                else f"at least {_ratio(sklearn_timeout / t)}x (unfinished baseline)"
            )
            notes = f"{transformer}; first call {t_first:.3f} s; {compared}"
            rows.append(row(workload, label, input_desc, t, notes))
    return rows


# name: workload title ({n}: rows)
WORKLOADS = {
    "table": (
        "GridSearchCV ColumnTransformer+LogisticRegression, 12 C x 5 folds, "
        "{n:,} x (8 string + 12 numeric)"
    ),
    "table-codes": (
        "the same, string columns as float32 category codes, "
        "{n:,} x (8 codes + 12 numeric)"
    ),
}


# --------------------------------------------------------------------------
# First use
# --------------------------------------------------------------------------


def _child(name: str, divisor: int, device: str) -> None:
    start = time.perf_counter()
    cupy = None
    if device == "gpu":
        import cupy
    import pandas  # noqa: F401
    import sklearn.compose  # noqa: F401

    for module, cls in (*GPUML_CLASSES, ("compose", "ColumnTransformer")):
        _gpuml(module, cls)  # imported before the clock
    from gpuml import config_context

    imported = time.perf_counter() - start
    if cupy is not None:
        cupy.zeros(1).sum()  # the CUDA context, before the clock
    X, y, _ = _data(name, divisor)
    times = []
    with config_context(device=device):
        for _ in range(2):
            start = time.perf_counter()
            _search(sklearn=False).fit(X, y)
            if cupy is not None:
                cupy.cuda.Device().synchronize()
            times.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "workload": name,
                "rows": len(X),
                "column_transformer": _column_transformer_source(),
                "import": round(imported, 3),
                "first": round(times[0], 3),
                "again": round(times[1], 3),
            }
        )
    )


def first_use(names, divisor: int = 1, device: str = "gpu") -> None:
    missing = _missing_classes()
    if missing:
        print(f"skipped: no gpuml {', '.join(missing)} yet", flush=True)
        return
    for name in names or WORKLOADS:
        command = [sys.executable, "-m", "benchmarks.bench_tabular"]
        command += ["--child", name, str(divisor), device]
        first_use_runs(command, "gpuml-tabular-cache-")


def main(argv) -> None:
    from benchmarks._timing import format_table

    if argv[:1] == ["--child"]:
        _child(argv[1], int(argv[2]), argv[3])
        return
    if argv[:1] == ["--sklearn-child"]:
        _sklearn_child(argv[1], int(argv[2]), int(argv[3]))
        return
    divisor, device, names, timeout = None, "gpu", [], None
    repeat, first, jobs = DEFAULT_REPEAT, False, N_JOBS
    args = iter(argv)
    for arg in args:
        if arg == "--first-use":
            first = True
        elif arg == "--rows-divisor":
            divisor = int(next(args))
        elif arg == "--device":
            device = next(args)
        elif arg == "--sklearn-timeout":
            timeout = float(next(args))
        elif arg == "--sklearn-jobs":
            jobs = int(next(args))
        elif arg == "--repeat":
            repeat = int(next(args))
        else:
            names.append(arg)
    if first:
        first_use(names, divisor or 1, device)
        return
    rows = run(
        False,
        repeat,
        names=names or None,
        divisor=divisor,
        device=device,
        sklearn_timeout=timeout,
        sklearn_jobs=jobs,
    )
    print(format_table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
