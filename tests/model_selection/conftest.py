"""Fixtures shared by the search tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client():
    """A client of an in-process Dask cluster (two workers of one thread,
    started once per test module), not set as the default client."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            processes=False,
            threads_per_worker=1,
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client


@pytest.fixture(autouse=True)
def send_every_search(monkeypatch):
    """The search tests' Dask searches are small: on a GPU, gpuml would run
    them in process (``_dask.worth_dispatching``); they test the dispatch,
    so every search is sent (the rule has tests of its own)."""
    from gpuml.model_selection import _dask

    monkeypatch.setattr(_dask, "DISPATCH_SECONDS", 0.0)
    monkeypatch.setattr(_dask, "DISPATCH_SECONDS_PER_WORKER", 0.0)
    monkeypatch.setattr(_dask, "WARM_UP_SECONDS", 0.0)
