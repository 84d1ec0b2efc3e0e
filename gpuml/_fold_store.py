"""Results a search keeps for one fold across its candidates.

While a search fits a Pipeline prefix on a fold (``model_selection._tasks``),
:func:`shared_fold` names the fold's (training, test) rows as given to the
prefix and a dict the search keeps for that fold across its candidates. A
first step that receives exactly those objects can keep work that depends
only on them and on some of its parameters there (:func:`fold_cached`):
UMAP's neighbour searches (``neighbors._search.neighbours_of``), the text
vectorizers' term counts (``feature_extraction._count``).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

# (store, (training rows, test rows)) while a search fits a fold's prefix.
_SHARED: ContextVar = ContextVar("gpuml_fold_store", default=None)


@contextmanager
def shared_fold(store: dict, rows: tuple):
    """Open ``store`` for the fold whose (training, test) rows are ``rows``."""
    token = _SHARED.set((store, rows))
    try:
        yield
    finally:
        _SHARED.reset(token)


def fold_rows():
    """``(store, (train, test))`` of the open fold, or None."""
    return _SHARED.get()


def fold_cached(X, key: tuple, compute):
    """``compute()``, or its result from an earlier candidate of the same
    search and fold: where ``X`` is exactly the open fold's training or test
    rows, the result is kept in the fold's store under ``key``, which must
    name everything else it depends on. While the search's context is open
    its rows are alive, so an identical object is the same rows."""
    shared = _SHARED.get()
    if shared is None:
        return compute()
    store, (train, test) = shared
    if X is not train and X is not test:
        return compute()
    full_key = (X is test, *key)
    if full_key not in store:
        store[full_key] = compute()
    return store[full_key]
