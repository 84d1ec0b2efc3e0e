"""``n_jobs``: work that gpuml cannot batch, spread over joblib workers.

A search without a Dask client runs in the calling process. On a GPU most
of its work there is device work (batched fits, device-resident folds) that
extra host workers would not speed up, but some is plain host work: the
candidates of an estimator that is not gpuml's (scikit-learn's ``SVC`` in
gpuml's search) fitted on host data, and everything gpuml computes without a
GPU. For that work ``n_jobs`` and ``pre_dispatch`` mean what they mean in
scikit-learn's search: the fits run through ``joblib.Parallel`` (loky
processes by default, or whatever ``joblib.parallel_config`` selects), one
task per candidate and split, or per split for a batched group (its
candidates fitted together on that fold, as in process) and for a Pipeline
whose fitted prefix its candidates share. So on the CPU a search with
``n_jobs=-1`` shares the cores as scikit-learn's does: loky gives each
worker its share of the BLAS threads, where one process with every core's
BLAS threads lost to scikit-learn's workers on a loaded machine.

Device work stays in the calling process, as without ``n_jobs``. A task
runs the same :func:`~gpuml.model_selection._tasks.evaluate_unit` as the
serial search, on the host data, under the caller's gpuml configuration, so
the results are the serial search's.
"""

from __future__ import annotations

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import clone
from sklearn.utils.parallel import Parallel, delayed

from gpuml._config import config_context, get_config
from gpuml.base import accepts_device_input
from gpuml.model_selection._batch import Group
from gpuml.model_selection._data import SearchData
from gpuml.model_selection._results import resolve_deferred
from gpuml.model_selection._tasks import evaluate_unit


def wants_workers(n_jobs) -> bool:
    """Whether ``n_jobs`` (as joblib reads it) asks for more than one worker."""
    return effective_n_jobs(n_jobs) > 1


def host_units(estimator, units: list, data) -> tuple[list, list]:
    """``(kept, spread)``: units for the calling process, and units of host
    work for the workers, each of those split into one unit per candidate
    when it is a group fitted one by one (as scikit-learn's tasks are)."""
    kept, spread = [], []
    for unit in units:
        pipeline, groups = unit
        configured = [
            clone(estimator).set_params(**clone(g.fixed, safe=False)) for g in groups
        ]
        on_host = data.xp is np or not all(
            accepts_device_input(c, data.X) for c in configured
        )
        batched = any(g.batched for g in groups)
        if not on_host or (batched and data.xp is not np):
            kept.append(unit)
        elif pipeline is None and not batched:
            (group,) = groups
            spread += [(None, [Group(group.fixed, [m])]) for m in group.members]
        else:
            spread.append(unit)  # one task per fold: a batch stays whole
    return kept, spread


def run_task(estimator, unit, arrays, folds, split, scorer, options, config) -> list:
    """One unit of work on one fold, in a worker: ``[(candidate, split, record)]``."""
    X, y, fit_params, score_params = arrays
    with config_context(**config):
        # Units sent here read host data (see host_units): NumPy holds them.
        data = SearchData(X, y, fit_params, np, score_params)
        table: dict = {}
        evaluate_unit(estimator, unit, data, folds, [split], scorer, options, table)
        records = list(table.values())
        resolve_deferred(records)
    return [(index, s, record) for (index, s), record in table.items()]


def run(n_jobs, pre_dispatch, estimator, units, data, folds, scorer, options) -> dict:
    """Every (unit, fold) task through ``joblib.Parallel``: ``table[candidate,
    split]``."""
    view = data.view(False)
    arrays = (view.X, view.y, view.fit_params, view.score_params)
    config = get_config()
    tasks = (
        delayed(run_task)(
            estimator, unit, arrays, folds, split, scorer, options, config
        )
        for unit in units
        for split in range(len(folds))
    )
    table = {}
    for records in Parallel(n_jobs=n_jobs, pre_dispatch=pre_dispatch)(tasks):
        for index, split, record in records:
            table[index, split] = record
    return table
