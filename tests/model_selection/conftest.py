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
