"""Without a GPU: Lasso and ElasticNet fits, their CV classes and a search.

gpuml on the CPU (``device="cpu"``, NumPy) and scikit-learn, each workload
timed as pairs run back to back in one process (``--repeat`` pairs, 3 by
default, after one warm-up pair that also checks the results); the time
column holds the *minimum* over the pairs (on a shared machine the minimum
is the least disturbed), the notes the median of the paired ratios and the
largest absolute difference from scikit-learn's coefficients (or mean
squared errors, or mean test scores), with both libraries' ``n_iter_``
where they differ. Float64 data; scikit-learn single-process
(``n_jobs=None``), as gpuml runs:

- single fits on dense tall data (2,000 x 200, correlated columns): the
  elastic net, with sample weights, a positive Lasso, random selection,
  three targets;
- a single fit on dense wide data (75 x 500: the training split of
  scikit-learn's example ``plot_train_error_vs_test_error.py``,
  ``alpha=1e-3, l1_ratio=0.7, max_iter=10_000``);
- a Lasso on sparse CSR data (5,000 x 1,000, 1 % stored);
- LassoCV (100 alphas) and ElasticNetCV (two l1_ratios), 5 folds, on the
  tall data;
- gpuml's GridSearchCV of ElasticNet over 20 alphas x 5 folds against
  scikit-learn's.

``--quick`` runs smaller problems (a smoke test).
"""

from __future__ import annotations

import numpy as np

from benchmarks._timing import SKLEARN, row, time_once

PAIRS = 3


def correlated(n: int, p: int, seed: int = 0, targets: int | None = None):
    """X with neighbouring columns correlated (0.8), y from 20 % of them."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, p))
    X = np.empty_like(Z)
    X[:, 0] = Z[:, 0]
    for j in range(1, p):
        X[:, j] = 0.8 * X[:, j - 1] + 0.6 * Z[:, j]
    W = rng.standard_normal((p, targets or 1)) * (rng.random((p, 1)) < 0.2)
    Y = X @ W + rng.standard_normal((n, targets or 1))
    return X, (Y[:, 0] if targets is None else Y)


def gallery_wide():
    """The training split of scikit-learn's ``plot_train_error_vs_test_error``."""
    rng = np.random.RandomState(0)
    coef = rng.randn(500)
    coef[50:] = 0.0
    X = rng.randn(225, 500)
    return X[:75], (X @ coef)[:75]


def sparse_data(n: int, p: int):
    import scipy.sparse as sp

    X = sp.random(n, p, density=0.01, format="csr", random_state=0)
    rng = np.random.default_rng(1)
    w = rng.standard_normal(p) * (rng.random(p) < 0.2)
    return X, X @ w + 0.1 * rng.standard_normal(n)


def workloads(quick: bool):
    """(workload, input, gpuml factory, scikit-learn factory, X, y, fit
    keyword arguments, what to compare)."""
    import sklearn.linear_model as sk
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV

    import gpuml.linear_model as gl
    from gpuml.model_selection import GridSearchCV

    n = 400 if quick else 2000
    X, y = correlated(n, 200)
    Xm, Ym = correlated(n, 200, seed=1, targets=3)
    Xw, yw = gallery_wide()
    Xs, ys = sparse_data(1000 if quick else 5000, 1000)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, n)
    tall = f"{n:,}x200"
    enet = {"alpha": 1e-3, "l1_ratio": 0.5}
    grid = {"alpha": list(np.logspace(-3, 0, 20))}

    def pair(name, **params):
        return (
            lambda: getattr(gl, name)(**params),
            lambda: getattr(sk, name)(**params),
        )

    def search():
        return GridSearchCV(gl.ElasticNet(l1_ratio=0.5), grid, cv=5)

    def sk_search():
        return SkGridSearchCV(sk.ElasticNet(l1_ratio=0.5), grid, cv=5)

    wide = {"alpha": 1e-3, "l1_ratio": 0.7, "max_iter": 10_000}
    return [
        ("ElasticNet, dense tall", tall, *pair("ElasticNet", **enet), X, y, {}, "coef"),
        (
            "ElasticNet, dense wide (gallery)",
            "75x500",
            *pair("ElasticNet", **wide),
            Xw,
            yw,
            {},
            "coef",
        ),
        (
            "Lasso, sparse CSR",
            f"{Xs.shape[0]:,}x1,000 1%",
            *pair("Lasso", alpha=1e-3),
            Xs,
            ys,
            {},
            "coef",
        ),
        (
            "ElasticNet, sample_weight",
            tall,
            *pair("ElasticNet", **enet),
            X,
            y,
            {"sample_weight": sw},
            "coef",
        ),
        (
            "Lasso, positive=True",
            tall,
            *pair("Lasso", alpha=1e-3, positive=True),
            X,
            y,
            {},
            "coef",
        ),
        (
            "ElasticNet, selection='random'",
            tall,
            *pair("ElasticNet", **enet, selection="random", random_state=0),
            X,
            y,
            {},
            "coef",
        ),
        (
            "ElasticNet, 3 targets",
            tall,
            *pair("ElasticNet", **enet),
            Xm,
            Ym,
            {},
            "coef",
        ),
        ("LassoCV (100 alphas, 5 folds)", tall, *pair("LassoCV"), X, y, {}, "mse"),
        (
            "ElasticNetCV (l1_ratio 0.5, 0.9; 100 alphas, 5 folds)",
            tall,
            *pair("ElasticNetCV", l1_ratio=[0.5, 0.9]),
            X,
            y,
            {},
            "mse",
        ),
        (
            "GridSearchCV ElasticNet, 20 alphas x 5 folds",
            tall,
            search,
            sk_search,
            X,
            y,
            {},
            "search",
        ),
    ]


def _difference(ours, theirs, what: str) -> str:
    """The largest absolute difference of the compared results."""
    if what == "coef":
        got, expected = np.asarray(ours.coef_), theirs.coef_
        note = ""
        if np.any(np.asarray(ours.n_iter_) != np.asarray(theirs.n_iter_)):
            note = f"; n_iter_ {ours.n_iter_} vs {theirs.n_iter_}"
    elif what == "mse":
        got, expected = ours.mse_path_, theirs.mse_path_
        note = f"; alpha_ {'same' if ours.alpha_ == theirs.alpha_ else 'differs'}"
    else:
        got = ours.cv_results_["mean_test_score"]
        expected = theirs.cv_results_["mean_test_score"]
        same = ours.best_params_ == theirs.best_params_
        note = f"; best alpha {'same' if same else 'differs'}"
    return f"max |diff| {np.max(np.abs(got - expected)):.1e}{note}"


def run(quick: bool, repeat: int = PAIRS) -> list[dict]:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # (both libraries warn alike where a path's smallest alphas stop at
        # max_iter)
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _run(quick, repeat)


def _run(quick: bool, repeat: int) -> list[dict]:
    from gpuml import config_context

    rows = []
    for name, shape, ours, theirs, X, y, kwargs, what in workloads(quick):

        def fit_ours(ours=ours, X=X, y=y, kwargs=kwargs):
            with config_context(device="cpu"):
                return ours().fit(X, y, **kwargs)

        def fit_theirs(theirs=theirs, X=X, y=y, kwargs=kwargs):
            return theirs().fit(X, y, **kwargs)

        # the warm-up pair, whose results are compared
        note = _difference(fit_ours(), fit_theirs(), what)
        pairs = [
            (time_once(fit_ours)[0], time_once(fit_theirs)[0]) for _ in range(repeat)
        ]
        mine, sk = np.array(pairs).T
        ratios = sk / mine
        rows.append(row(name, SKLEARN, shape, float(sk.min()), f"min of {repeat}"))
        notes = f"min of {repeat}; paired ratios median {np.median(ratios):.2f}x; "
        rows.append(row(name, "gpuml (CPU)", shape, float(mine.min()), notes + note))
    return rows
