"""gpuml's benchmarks: ``python -m benchmarks.run NAME [NAME ...]``.

Each workload is a module ``bench_<name>.py`` with ``run(quick) -> list[dict]``
returning table rows built by :func:`benchmarks._timing.row`.
"""
