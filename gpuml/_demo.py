"""``python -m gpuml`` (the demo): a hyperparameter search on synthetic data, timed.

(``python -m gpuml warmup`` instead compiles gpuml's CUDA kernels for this
GPU ahead of time: see :func:`gpuml.warmup`; ``python -m gpuml run
script.py`` runs an unchanged scikit-learn script with gpuml's estimators
and searches: see :func:`gpuml.install`.)

It searches the penalty of a linear model with 5-fold cross-validation
three ways, on the same data, and prints the time, best parameter and best
mean score of each:

1. scikit-learn's ``GridSearchCV`` around scikit-learn's estimator (all
   cores);
2. scikit-learn's ``GridSearchCV`` around gpuml's estimator (swap one
   import: each fit is fast, but the search copies every fold to the device
   and scores on the host);
3. gpuml's ``GridSearchCV`` around gpuml's estimator (swap both imports):
   the data copied to the device once, the candidates of a fold fitted
   together and scored with one batched metric on the device.

Both sides are warmed up first, untimed, on a slice of the data: imports,
gpuml's CUDA context and kernels on a GPU, and the worker processes of
scikit-learn's ``n_jobs=-1`` (which start once and are reused), so that the
times compare the searches, not start-up costs.

``--estimator ridge`` (the default) searches 20 alphas of a ``Ridge``
(R²); ``--estimator logistic`` 8 values of ``C`` of a binary
``LogisticRegression`` (accuracy); ``--estimator text`` 4 values of ``C``
of ``HashingVectorizer(n_features=2**18)`` + ``TfidfTransformer`` +
``LogisticRegression`` on synthetic documents (accuracy; ``--n-samples`` documents of
``--n-features`` words). It runs on the GPU when one is usable, else on the
CPU (with a smaller problem), or where ``GPUML_DEVICE`` says; ``--device
cpu`` forces the CPU, ``--n-samples`` and ``--n-features`` set the size, and
``--no-sklearn`` skips the two runs of scikit-learn's search (slow at large
sizes). Each run says when it starts and how long it took.

``--dask`` adds a run: gpuml's search dispatched through a local Dask
cluster that the demo starts (``dask_cuda.LocalCUDACluster``, one worker per
GPU, when computing on the GPU; two CPU worker processes otherwise), which
listens on 127.0.0.1 only.

A mistake in the options or the environment (a size too small, ``--device
gpu`` without a GPU, ``--dask`` without the ``dask`` extra) is found before
any work and ends the program with one line that names the fix, and exit
status 2, as argparse's own usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import NamedTuple, NoReturn

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline

import gpuml
from gpuml._backend import _INSTALL_CUPY, _probe_cupy
from gpuml._sklearn_compat import sklearn_own
from gpuml.feature_extraction.text import HashingVectorizer, TfidfTransformer
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import GridSearchCV

# scikit-learn's own classes (the demo's baseline), also under gpuml.install()
_TEXT = "sklearn.feature_extraction.text"
SkHashingVectorizer = sklearn_own(_TEXT, "HashingVectorizer")
SkTfidfTransformer = sklearn_own(_TEXT, "TfidfTransformer")
SkLogisticRegression = sklearn_own("sklearn.linear_model", "LogisticRegression")
SkRidge = sklearn_own("sklearn.linear_model", "Ridge")
SkGridSearchCV = sklearn_own("sklearn.model_selection", "GridSearchCV")


class Problem(NamedTuple):
    """What ``--estimator`` searches: a name, gpuml's and scikit-learn's
    estimator factories, the searched parameter (its short name for the
    table), its values, the metric, and the default size (rows, columns;
    on the GPU, then on the CPU)."""

    name: str
    ours: Callable
    theirs: Callable
    param: str
    short: str
    values: np.ndarray
    metric: str
    gpu_size: tuple[int, int]
    cpu_size: tuple[int, int]


def _text_pipeline(hashing, tfidf, logistic):
    return lambda: make_pipeline(hashing(n_features=2**18), tfidf(), logistic())


PROBLEMS = {
    "ridge": Problem(
        "Ridge",
        Ridge,
        SkRidge,
        "alpha",
        "alpha",
        np.logspace(-3, 5, 20),
        "R²",
        (400_000, 256),
        (20_000, 64),
    ),
    "logistic": Problem(
        "LogisticRegression",
        LogisticRegression,
        SkLogisticRegression,
        "C",
        "C",
        np.logspace(-4, 1, 8),
        "accuracy",
        (400_000, 256),
        (20_000, 64),
    ),
    "text": Problem(
        "text pipeline",
        _text_pipeline(HashingVectorizer, TfidfTransformer, LogisticRegression),
        _text_pipeline(SkHashingVectorizer, SkTfidfTransformer, SkLogisticRegression),
        "logisticregression__C",
        "C",
        np.logspace(-1, 2, 4),
        "accuracy",
        (50_000, 120),
        (1_000, 60),
    ),
}


def _data(estimator: str, n_samples: int, n_features: int, rng):
    """Synthetic data whose best penalty is well inside the grid.

    ``ridge``: features on scales from 10 down to 0.01 (raw measurements
    rarely share one), each with an effect of 1 or -1 on the target, plus
    noise worth a quarter of the target's variance, so the best model
    explains about three quarters of it (R² near 0.75). The small-scale
    features carry little signal for the noise they let a model fit: the
    penalty that trades the two off is the best alpha, well inside the grid,
    a real optimum rather than a run of near-ties. ``logistic``: many small
    effects, a binary target. ``text``: documents of ``n_features`` words
    from a vocabulary of 2,000, whose frequencies lean slightly towards the
    document's class.
    """
    if estimator == "text":
        return _documents(n_samples, n_features, rng)
    X = rng.standard_normal((n_samples, n_features), dtype=np.float32)
    if estimator == "ridge":
        scales = np.logspace(1, -2, n_features, dtype=np.float32)
        X *= scales
        w = rng.choice(np.float32([-1, 1]), size=n_features)
        noise = np.sqrt(np.sum(scales.astype(np.float64) ** 2) / 3)
        return X, X @ w + np.float32(noise) * rng.standard_normal(
            n_samples, dtype=np.float32
        )
    w = rng.standard_normal(n_features).astype(np.float32) * 3 / np.sqrt(n_features)
    p = 1 / (1 + np.exp(-(X @ w)))
    return X, (rng.uniform(size=n_samples) < p).astype(np.int64)


def _documents(n_docs: int, n_words: int, rng):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    sizes = rng.integers(3, 9, size=2000)
    vocabulary = np.array(["".join(rng.choice(letters, size=k)) for k in sizes])
    base = rng.dirichlet(np.full(2000, 0.5))
    lean = np.exp(0.2 * rng.standard_normal(2000))
    y = rng.integers(0, 2, n_docs)
    docs = []
    for label in (0, 1):
        p = base * (lean if label else 1 / lean)
        rows = np.flatnonzero(y == label)
        words = rng.choice(vocabulary, size=(len(rows), n_words), p=p / p.sum())
        docs += [(i, " ".join(w)) for i, w in zip(rows, words, strict=True)]
    docs.sort()
    return [doc for _, doc in docs], y


def _timed(label, search, X, y, rows, step):
    """Run one search, saying when it starts and how long it took."""
    index, total = step
    print(f"[{index}/{total}] {label} ...", end="", flush=True)
    start = time.perf_counter()
    search.fit(X, y)
    seconds = time.perf_counter() - start
    print(f" {seconds:.2f} s", flush=True)
    (param,) = search.best_params_.values()
    rows.append((label, seconds, param, search.best_score_))


def _fail(message: str) -> NoReturn:
    """End the program with one line that names the fix, and status 2 (as
    argparse's usage errors): no traceback for a user's mistake."""
    sys.stderr.write(f"python -m gpuml: {message}\n")
    raise SystemExit(2)


def _resolve_device(requested: str | None) -> str:
    """``"gpu"`` or ``"cpu"``: ``--device`` if given, else the configuration
    (``GPUML_DEVICE``, else "auto"); a GPU asked for and missing ends here."""
    if requested is not None:
        gpuml.set_config(device=requested)
    try:
        return gpuml.resolve_device()
    except gpuml.NoGPUError:
        source = (
            f"--device {requested}"
            if requested is not None
            else f"GPUML_DEVICE={os.environ.get('GPUML_DEVICE', '').strip()}"
        )
        _fail(
            f"{source} asks for the GPU, but {_probe_cupy()[1]}. {_INSTALL_CUPY}, "
            "or run with --device cpu (or --device auto)."
        )


def _require_dask(on_gpu: bool) -> None:
    """Import what ``--dask`` needs now, before any search, or end naming the
    extra to install (on the GPU ``dask-cuda``: Dask and one worker per GPU)."""
    extra = "dask-cuda" if on_gpu else "dask"
    instead = (
        "run with --device cpu (two CPU workers) or without --dask"
        if on_gpu
        else "run without --dask"
    )
    for module in ("distributed", "dask_cuda") if on_gpu else ("distributed",):
        try:
            importlib.import_module(module)
        except ImportError as error:
            _fail(
                f"--dask{' on the GPU' if on_gpu else ''} needs the {extra} extra "
                f"({error}): pip install 'gpuml[{extra}]', or {instead}."
            )


def _local_cluster(on_gpu: bool):
    """A Dask cluster on this machine, reachable from 127.0.0.1 only."""
    import distributed

    local = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}
    if on_gpu:
        from dask_cuda import LocalCUDACluster

        return LocalCUDACluster(**local)
    workers = max(1, min(2, os.cpu_count() or 1))
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, **local
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m gpuml [options]``: the demo (``gpuml/__main__.py`` sends
    ``run`` and ``warmup`` elsewhere)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    args = parser.parse_args(argv)
    for name in ("n_samples", "n_features"):
        value = getattr(args, name)
        if value is not None and value < (10 if name == "n_samples" else 1):
            parser.error(
                f"--{name.replace('_', '-')} must be at least "
                f"{10 if name == 'n_samples' else 1}; got {value}"
            )
    device = _resolve_device(args.device)
    if args.dask:
        _require_dask(device == "gpu")
    try:
        _run(args, device)
    except MemoryError as error:  # NumPy's and CuPy's out-of-memory errors
        _fail(
            f"out of memory ({type(error).__name__}: {error}): run with a "
            "smaller --n-samples or --n-features."
        )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gpuml",
        usage="%(prog)s [options]\n       %(prog)s warmup [--quiet]",
        description=(
            "A penalty search on synthetic data (5 folds), timed three ways: "
            "scikit-learn's search around scikit-learn's estimator, "
            "scikit-learn's search around gpuml's, and gpuml's search around "
            "gpuml's; then a table of times, best parameters and scores."
        ),
        epilog=(
            "python -m gpuml warmup [--quiet] instead compiles gpuml's CUDA "
            "kernels for this GPU into CuPy's kernel cache, so that later "
            "processes compile none (see python -m gpuml warmup --help)."
        ),
    )
    parser.add_argument(
        "--estimator",
        choices=sorted(PROBLEMS),
        default="ridge",
        help=(
            "ridge: 20 alphas of a Ridge, scored by R² (the default); logistic: "
            "8 values of C of a binary LogisticRegression, scored by accuracy; "
            "text: 4 values of C of HashingVectorizer(n_features=2**18) + "
            "TfidfTransformer + LogisticRegression on synthetic documents "
            "(50,000 of 120 words on the GPU, 1,000 of 60 on the CPU), scored "
            "by accuracy"
        ),
    )
    parser.add_argument(
        "--device",
        choices=["auto", "gpu", "cpu"],
        default=None,
        help=(
            "where gpuml computes: the GPU when one is usable, else the CPU "
            "(auto), or forced (default: GPUML_DEVICE when set, else auto)"
        ),
    )
    parser.add_argument(
        "--n-samples",
        type=int,
        default=None,
        help="rows of the data (default: 400,000 on the GPU, 20,000 on the CPU)",
    )
    parser.add_argument(
        "--n-features",
        type=int,
        default=None,
        help="columns of the data (default: 256 on the GPU, 64 on the CPU)",
    )
    parser.add_argument(
        "--no-sklearn",
        action="store_true",
        help="skip the runs of scikit-learn's search (slow at large sizes)",
    )
    parser.add_argument(
        "--dask",
        action="store_true",
        help=(
            "also run gpuml's search through a local Dask cluster (needs the "
            "dask extra: pip install 'gpuml[dask]'; on the GPU, the dask-cuda "
            "extra)"
        ),
    )
    return parser


def _run(args: argparse.Namespace, device: str) -> None:
    """The searches, timed, and the table."""
    on_gpu = device == "gpu"
    problem = PROBLEMS[args.estimator]
    rows_default, columns_default = problem.gpu_size if on_gpu else problem.cpu_size
    n_samples = args.n_samples or rows_default
    n_features = args.n_features or columns_default
    model, sk_model, name = problem.ours, problem.theirs, problem.name
    param, values, metric = problem.short, problem.values, problem.metric
    X, y = _data(args.estimator, n_samples, n_features, np.random.default_rng(0))
    splitter = KFold if args.estimator == "ridge" else StratifiedKFold
    cv = splitter(n_splits=5, shuffle=True, random_state=0)
    grid = {problem.param: values}
    print(f"gpuml {gpuml.__version__}: computing on the {device.upper()}")
    shape = (
        f"{n_samples:,} documents of {n_features} words"
        if args.estimator == "text"
        else f"{n_samples:,} x {n_features} float32"
    )
    print(
        f"data: {shape}; {name}, {len(values)} values of {param} x 5 folds, "
        f"scoring {metric}\n"
    )
    runs = []
    if not args.no_sklearn:
        runs += [
            (
                f"scikit-learn GridSearchCV(sklearn {name}), n_jobs=-1",
                lambda: SkGridSearchCV(sk_model(), grid, cv=cv, n_jobs=-1),
            ),
            (
                f"scikit-learn GridSearchCV(gpuml {name})",
                lambda: SkGridSearchCV(model(), grid, cv=cv),
            ),
        ]
    runs.append(
        (
            f"gpuml GridSearchCV(gpuml {name})",
            lambda: GridSearchCV(model(), grid, cv=cv),
        )
    )
    total = len(runs) + args.dask
    # Warm up on a slice, untimed, both sides: gpuml's imports (on a GPU the
    # CUDA context and kernels), and scikit-learn's imports and its n_jobs=-1
    # worker processes, which start once (2 to 3 s on 2 cores) and are reused.
    # The first use is another matter (docs/development.md).
    what = " (CUDA context, kernels)" if on_gpu else ""
    warm = min(2000, max(50, n_samples // 10))
    if args.no_sklearn:
        print(f"warming gpuml up on {warm:,} rows{what} ...", flush=True)
    else:
        print(
            f"warming gpuml{what} and scikit-learn's worker processes up on "
            f"{warm:,} rows ...",
            flush=True,
        )
        SkGridSearchCV(sk_model(), grid, cv=cv, n_jobs=-1).fit(X[:warm], y[:warm])
    GridSearchCV(model(), grid, cv=cv).fit(X[:warm], y[:warm])
    rows = []
    for step, (label, make) in enumerate(runs, start=1):
        _timed(label, make(), X, y, rows, (step, total))
    with contextlib.ExitStack() as stack:
        if args.dask:
            from distributed import Client

            cluster = stack.enter_context(_local_cluster(on_gpu))
            client = stack.enter_context(Client(cluster, set_as_default=False))
            n_workers = len(client.scheduler_info()["workers"])
            print(f"Dask: {n_workers} workers; dashboard {client.dashboard_link}")
            from distributed import get_task_stream

            # Warm up the workers (imports, CUDA contexts), untimed.
            GridSearchCV(model(), grid, cv=cv, client=client).fit(X[:warm], y[:warm])
            label = f"gpuml GridSearchCV(gpuml {name}), Dask, {n_workers} workers"
            with get_task_stream(client) as tasks:
                _timed(
                    label,
                    GridSearchCV(model(), grid, cv=cv, client=client),
                    X,
                    y,
                    rows,
                    (total, total),
                )
            if not tasks.data:  # gpuml kept a search this small in process
                rows[-1] = (f"{label} (ran in process)", *rows[-1][1:])
    _print_table(rows, param, metric, baseline=not args.no_sklearn)


def _print_table(rows, param: str, metric: str, *, baseline: bool) -> None:
    """Times, speed-ups against scikit-learn's search (when it ran), best
    parameters and their mean cross-validated scores."""
    width = max(len(r[0]) for r in rows)
    print(
        f"\n{'method':<{width}}  {'time (s)':>9}  {'speed-up':>8}  "
        f"{'best ' + param:>10}  {'best ' + metric:>13}"
    )
    for label, seconds, best, score in rows:
        speedup = f"{rows[0][1] / seconds:7.1f}x" if baseline else f"{'-':>8}"
        print(
            f"{label:<{width}}  {seconds:9.3f}  {speedup}  {best:10.4g}  {score:13.6f}"
        )
    if len(rows) > 1:
        agree = len({round(np.log10(r[2]), 6) for r in rows}) == 1
        print(
            f"\nall methods chose the same {param}"
            if agree
            else f"\nWARNING: the methods chose different values of {param}"
        )
