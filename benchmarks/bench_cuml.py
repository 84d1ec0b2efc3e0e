"""gpuml's kernels against cuML's, and how gpuml takes cuDF input today.

Run on the GPU machine with cuML and cuDF staged
(``../shared/device/stage-rapids.sh``; then ``source .gpu/rapids-env.sh``):
``python -m benchmarks.bench_cuml [--sections umap,linear,search,text,cudf]``.
One JSON line per measurement; a section that fails prints its error and
the others go on. Warm figures are medians after a warm-up call, the GPU
synchronised; inputs are NumPy (the copy to the device counted) unless
said otherwise.

- ``umap``: ``make_classification(60_000, 64, ...)`` as in bench_umap, and
  1,000,000 points (one fit each), time and trustworthiness (k=15, 5,000
  points) for gpuml's UMAP and cuML's (default settings, n_neighbors=15);
- ``linear``: one Ridge fit (400,000 x 256 float32) and one binary
  LogisticRegression fit (400,000 x 128 float32) each;
- ``search``: the first-use issue's W1 and W2 grids (20 alphas, 8 Cs, 5
  folds): gpuml's ``GridSearchCV`` against scikit-learn's around cuML's
  estimators, fed NumPy (one run: slow);
- ``text``: HashingVectorizer on the 200,000-document corpus: gpuml's from
  the Python list, cuML's from a cuDF string Series (its build timed apart),
  gpuml's from that Series;
- ``cudf``: gpuml's Ridge and LogisticRegression fitted on a cuDF
  DataFrame/Series: whether it works, ``feature_names_in_``, the output
  types of ``predict`` and a metric;
- ``engine``: gpuml's estimators with ``engine="gpuml"``, ``"cuml"`` and
  ``"auto"`` (what it picked, ``engine_``) in the same run: Ridge and
  LogisticRegression fits and searches, NearestNeighbors at 100,000 and
  300,000 points, UMAP at 100,000, 300,000 and 1,000,000 points with
  trustworthiness; and ``import cuml``'s time in a fresh process.

``--allocator rmm|rmm-pool|cupy`` chooses CuPy's allocator after ``import
cuml`` (which makes RMM's, without a pool, CuPy's): the allocator changes
gpuml's times, not cuML's C++ allocations. ``--allocator no-cuml`` does not
import cuML at all (CuPy's own pool, as for a user without RAPIDS); with
``--sections allocator`` (gpuml's kernels only) it is the baseline the
other allocators are compared with.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import traceback
from functools import partial

import numpy as np


def _sync():
    import cupy

    cupy.cuda.Device().synchronize()


def timed(call, repeat: int = 3):
    call()
    _sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        _sync()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4), out


def emit(**row):
    print(json.dumps(row, default=str), flush=True)


def to_numpy(array):
    import cupy

    if hasattr(array, "to_numpy"):
        return array.to_numpy()
    return cupy.asnumpy(array) if isinstance(array, cupy.ndarray) else np.asarray(array)


def umap_section():
    from cuml.manifold import UMAP as CumlUMAP

    from benchmarks.bench_umap import dataset, quality
    from gpuml.manifold import UMAP

    for n, repeat in ((60_000, 3), (1_000_000, 1)):
        X, _ = dataset("classification", n)
        seconds, E = timed(partial(UMAP(random_state=0).fit_transform, X), repeat)
        emit(section="umap", n=n, who="gpuml", seconds=seconds, trust=quality(X, E))
        seconds, E = timed(
            partial(CumlUMAP(n_neighbors=15, output_type="numpy").fit_transform, X),
            repeat,
        )
        emit(
            section="umap",
            n=n,
            who="cuml",
            seconds=seconds,
            trust=quality(X, to_numpy(E)),
        )


# The first-use issue's grids: W1 (Ridge) and W2 (LogisticRegression)
W1_GRID = {"alpha": np.logspace(-3, 2, 20).tolist()}
W2_GRID = {"C": np.logspace(-3, 2, 8).tolist()}


def linear_data(n, p, binary):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, p), dtype=np.float32)
    w = rng.standard_normal(p).astype(np.float32)
    if binary:
        y = (X @ w + rng.logistic(size=n) > 0).astype(np.int32)
    else:
        y = (X @ w + rng.standard_normal(n)).astype(np.float32)
    return X, y


def linear_section():
    from cuml.linear_model import LogisticRegression as CumlLogistic
    from cuml.linear_model import Ridge as CumlRidge

    from gpuml.linear_model import LogisticRegression, Ridge

    X, y = linear_data(400_000, 256, False)
    for who, make in (
        ("gpuml", lambda: Ridge(alpha=1.0)),
        ("cuml", lambda: CumlRidge(alpha=1.0, output_type="numpy")),
    ):
        seconds, model = timed(lambda make=make: make().fit(X, y), 5)
        coef = to_numpy(model.coef_)
        emit(
            section="ridge fit", who=who, seconds=seconds, coef_0=float(coef.ravel()[0])
        )
    X, y = linear_data(400_000, 128, True)
    for who, make in (
        ("gpuml", lambda: LogisticRegression(C=1.0)),
        ("cuml", lambda: CumlLogistic(C=1.0, output_type="numpy")),
    ):
        seconds, model = timed(lambda make=make: make().fit(X, y), 5)
        accuracy = float((to_numpy(model.predict(X)) == y).mean())
        emit(section="logistic fit", who=who, seconds=seconds, accuracy=accuracy)


def search_section():
    from cuml.linear_model import LogisticRegression as CumlLogistic
    from cuml.linear_model import Ridge as CumlRidge
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.model_selection import GridSearchCV

    cases = (
        ("W1 ridge", linear_data(400_000, 256, False), Ridge, CumlRidge, "alpha", 20),
        (
            "W2 logistic",
            linear_data(400_000, 128, True),
            LogisticRegression,
            CumlLogistic,
            "C",
            8,
        ),
    )
    for name, (X, y), ours, theirs, key, n in cases:
        grid = {key: np.logspace(-3, 2, n).tolist()}
        seconds, search = timed(partial(GridSearchCV(ours(), grid, cv=5).fit, X, y), 3)
        emit(
            section="search",
            case=name,
            who="gpuml",
            seconds=seconds,
            best=search.best_params_,
        )
        start = time.perf_counter()
        search = SkGridSearchCV(theirs(output_type="numpy"), grid, cv=5).fit(X, y)
        emit(
            section="search",
            case=name,
            who="scikit-learn GridSearchCV around cuml",
            seconds=round(time.perf_counter() - start, 3),
            best=search.best_params_,
        )


def text_section():
    import cudf
    from cuml.feature_extraction.text import HashingVectorizer as CumlHashing

    from benchmarks.bench_text import make_corpus
    from gpuml.feature_extraction.text import HashingVectorizer

    docs = make_corpus()
    seconds, X = timed(lambda: HashingVectorizer().transform(docs), 5)
    emit(section="text", who="gpuml from list", seconds=seconds, nnz=X.nnz)
    seconds, series = timed(lambda: cudf.Series(docs), 3)
    emit(section="text", who="cudf.Series(list) build", seconds=seconds)
    seconds, Xc = timed(lambda: CumlHashing().fit_transform(series), 5)
    emit(section="text", who="cuml from Series", seconds=seconds, nnz=int(Xc.nnz))
    try:
        seconds, Xs = timed(lambda: HashingVectorizer().transform(series), 3)
        emit(section="text", who="gpuml from Series", seconds=seconds, type=type(Xs))
    except Exception as error:  # what a user meets today
        emit(section="text", who="gpuml from Series", error=repr(error)[:300])


def cudf_section():
    import cudf

    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.metrics import r2_score

    X, y = linear_data(10_000, 8, False)
    frame = cudf.DataFrame({f"f{i}": X[:, i] for i in range(8)})
    target = cudf.Series(y)
    for name, call in (
        ("Ridge.fit(DataFrame, Series)", lambda: Ridge().fit(frame, target)),
        (
            "LogisticRegression.fit(DataFrame, Series)",
            lambda: LogisticRegression().fit(frame, target > 0),
        ),
    ):
        try:
            model = call()
            predicted = model.predict(frame)
            emit(
                section="cudf",
                call=name,
                feature_names_in_=getattr(model, "feature_names_in_", None),
                predict_type=type(predicted),
                r2_type=type(r2_score(target, predicted)) if "Ridge" in name else None,
            )
        except Exception as error:
            emit(section="cudf", call=name, error=repr(error)[:300])


def engine_section():
    """gpuml's estimators with engine="gpuml" and engine="cuml" in the same
    run, and what engine="auto" picks (``engine_``)."""
    import subprocess
    import sys

    from benchmarks.bench_umap import dataset, quality
    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.manifold import UMAP
    from gpuml.model_selection import GridSearchCV
    from gpuml.neighbors import NearestNeighbors

    code = "import time; t = time.perf_counter(); import cuml; "
    code += "print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    emit(
        section="engine", what="import cuml, fresh process", seconds=out.stdout.strip()
    )

    def compare(what, make, call, repeat, **extra):
        for engine in ("gpuml", "cuml", "auto"):
            seconds, result = timed(partial(call, make(engine)), repeat)
            row = dict(section="engine", what=what, engine=engine, seconds=seconds)
            row.update({key: f(result) for key, f in extra.items()})
            emit(**row)

    X, y = linear_data(400_000, 256, False)
    compare(
        "Ridge fit 400,000 x 256",
        lambda engine: Ridge(engine=engine),
        lambda model: model.fit(X, y),
        5,
        engine_=lambda m: m.engine_,
        coef_0=lambda m: float(to_numpy(m.coef_).ravel()[0]),
    )
    compare(
        "W1 search, 20 alphas x 5 folds",
        lambda engine: GridSearchCV(Ridge(engine=engine), W1_GRID, cv=5),
        lambda search: search.fit(X, y),
        1,
        best=lambda s: s.best_params_,
    )
    X, y = linear_data(400_000, 128, True)
    compare(
        "LogisticRegression fit 400,000 x 128",
        lambda engine: LogisticRegression(engine=engine),
        lambda model: model.fit(X, y),
        5,
        engine_=lambda m: m.engine_,
        accuracy=lambda m: float((to_numpy(m.predict(X)) == y).mean()),
    )
    compare(
        "W2 search, 8 Cs x 5 folds",
        lambda engine: GridSearchCV(LogisticRegression(engine=engine), W2_GRID, cv=5),
        lambda search: search.fit(X, y),
        1,
        best=lambda s: s.best_params_,
    )
    for n in (100_000, 300_000):
        X, _ = dataset("classification", n)
        reference = {}

        def agreement(result, reference=reference):
            indices = to_numpy(result)
            reference.setdefault("indices", indices)
            return float((indices == reference["indices"]).mean())

        compare(
            f"NearestNeighbors(15).kneighbors() of {n:,} x 64",
            lambda engine, X=X: NearestNeighbors(n_neighbors=15, engine=engine).fit(X),
            lambda model: model.kneighbors(return_distance=False),
            3,
            same_indices_as_gpuml=agreement,
        )
    # UMAP: medians of 3 after a warm-up at 100,000 points; one fit each
    # (the process warm) above
    for n in (100_000, 300_000, 1_000_000):
        X, _ = dataset("classification", n)
        for engine in ("gpuml", "cuml", "auto"):
            model = UMAP(engine=engine)
            if n == 100_000:
                seconds, E = timed(partial(model.fit_transform, X), 3)
            else:
                start = time.perf_counter()
                E = model.fit_transform(X)
                _sync()
                seconds = round(time.perf_counter() - start, 3)
            emit(
                section="engine",
                what=f"UMAP {n:,} x 64",
                engine=engine,
                engine_=model.engine_,
                seconds=seconds,
                trust=quality(X, to_numpy(E)),
            )


def allocator_section():
    """gpuml's own kernels only (engine="gpuml"), for comparing CuPy
    allocators: W1, W2, NearestNeighbors at 300,000 points and UMAP at
    100,000 (median of 3) and 1,000,000 points (one fit)."""
    from benchmarks.bench_umap import dataset, quality
    from gpuml.linear_model import LogisticRegression, Ridge
    from gpuml.manifold import UMAP
    from gpuml.model_selection import GridSearchCV
    from gpuml.neighbors import NearestNeighbors

    def row(what, seconds, **extra):
        emit(section="allocator", what=what, seconds=seconds, **extra)

    X, y = linear_data(400_000, 256, False)
    search = GridSearchCV(Ridge(engine="gpuml"), W1_GRID, cv=5)
    row("W1 search, 20 alphas x 5 folds", timed(partial(search.fit, X, y), 3)[0])
    X, y = linear_data(400_000, 128, True)
    search = GridSearchCV(LogisticRegression(engine="gpuml"), W2_GRID, cv=5)
    row("W2 search, 8 Cs x 5 folds", timed(partial(search.fit, X, y), 3)[0])
    X, _ = dataset("classification", 300_000)
    model = NearestNeighbors(n_neighbors=15, engine="gpuml").fit(X)
    row(
        "NearestNeighbors(15).kneighbors() of 300,000 x 64",
        timed(partial(model.kneighbors, return_distance=False), 3)[0],
    )
    for n in (100_000, 1_000_000):
        X, _ = dataset("classification", n)
        model = UMAP(engine="gpuml")
        if n == 100_000:
            seconds, E = timed(partial(model.fit_transform, X), 3)
        else:
            start = time.perf_counter()
            E = model.fit_transform(X)
            _sync()
            seconds = round(time.perf_counter() - start, 3)
        row(f"UMAP {n:,} x 64", seconds, trust=quality(X, to_numpy(E)))


SECTIONS = {
    "allocator": allocator_section,
    "cudf": cudf_section,
    "engine": engine_section,
    "linear": linear_section,
    "text": text_section,
    "umap": umap_section,
    "search": search_section,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument(
        "--allocator",
        choices=("rmm", "rmm-pool", "cupy", "no-cuml"),
        default="rmm",
        help="CuPy's allocator after `import cuml`: RMM's as cuML sets it "
        "(no pool; the default, as earlier runs), RMM's with a pool "
        "(rmm.reinitialize(pool_allocator=True)), CuPy's own pool put back, "
        "or cuML not imported at all (gpuml's sections only)",
    )
    args = parser.parse_args()
    import cupy

    if args.allocator == "no-cuml":
        for name in args.sections.split(","):
            SECTIONS[name]()
        return
    import cuml

    if args.allocator == "rmm-pool":
        import rmm

        rmm.reinitialize(pool_allocator=True)
    elif args.allocator == "cupy":
        cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)
    emit(cuml=cuml.__version__, allocator=args.allocator)
    for name in args.sections.split(","):
        try:
            SECTIONS[name]()
        except Exception:
            emit(section=name, error=traceback.format_exc()[-1500:])


if __name__ == "__main__":
    main()
