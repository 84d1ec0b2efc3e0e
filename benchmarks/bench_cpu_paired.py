"""Without a GPU: the demo's logistic search, gpuml and scikit-learn alternated.

On a shared machine one search can take 1.5x longer than the next, so a
pair of single timings says little. This runs, in one process, gpuml's
``GridSearchCV(LogisticRegression(tol=tol))`` (in process, NumPy) and
scikit-learn's search of scikit-learn's estimator with ``n_jobs=-1``
(workers started before the clock) one after the other ``--repeat`` times
(7 by default), on the demo's 20,000 x 64 float32 data, 8 ``C`` from 1e-4
to 10, ``StratifiedKFold(5, shuffle=True, random_state=0)``, for
``tol=1e-4`` (the demo's) and ``tol=1e-6``. The speed-up column is the
ratio of medians; the notes give the median and range of the paired
ratios. ``--quick`` uses 5,000 rows.
"""

from __future__ import annotations

import numpy as np

from benchmarks._timing import SKLEARN, row

PAIRS = 7


def run(quick: bool, repeat: int = PAIRS) -> list[dict]:
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV
    from sklearn.model_selection import StratifiedKFold

    from benchmarks._timing import time_once
    from gpuml import config_context
    from gpuml._demo import _data
    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    n = 5_000 if quick else 20_000
    X, y = _data("logistic", n, 64, np.random.default_rng(0))
    grid = {"C": np.logspace(-4, 1, 8)}
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    rows = []
    for tol in (1e-4, 1e-6):

        def ours(tol=tol):
            with config_context(device="cpu"):
                return GridSearchCV(LogisticRegression(tol=tol), grid, cv=cv).fit(X, y)

        def theirs(tol=tol):
            model = SkLogisticRegression(tol=tol)
            return SkGridSearchCV(model, grid, cv=cv, n_jobs=-1).fit(X, y)

        theirs()  # the worker processes start once and are reused
        ours()
        pairs = [(time_once(ours)[0], time_once(theirs)[0]) for _ in range(repeat)]
        mine, sk = np.array(pairs).T
        ratios = sk / mine
        workload = f"logistic demo search, tol={tol:g}, paired x{repeat}"
        shape = f"{n:,}x64 float32"
        rows.append(row(workload, SKLEARN, shape, float(np.median(sk)), "n_jobs=-1"))
        notes = (
            f"in process; paired ratios median {np.median(ratios):.2f}x "
            f"(range {ratios.min():.2f}-{ratios.max():.2f})"
        )
        rows.append(row(workload, "gpuml (CPU)", shape, float(np.median(mine)), notes))
    return rows
