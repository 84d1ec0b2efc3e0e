"""Run benchmarks and print their tables.

Usage::

    python -m benchmarks.run                      # list the benchmarks
    python -m benchmarks.run NAME [NAME ...] [--repeat N] [--quick]
    python -m benchmarks.run --compare REF [REF ...] [--workloads ...] [--save PATH]

A benchmark ``NAME`` is the module ``benchmarks/bench_NAME.py``; its
``run(quick, repeat=N)`` returns rows, printed here after the date, the exact
command and the machine, ready to paste into ``benchmarks/RESULTS.md``.

``--compare`` is the performance-regression guard of
:mod:`benchmarks.compare_trees`: this tree's searches against other commits,
source trees or a stored run (``stored``: ``benchmarks/reference/`` for this
GPU), in fresh processes of the same call, with the ratios.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib
import shlex
import sys
from pathlib import Path

from benchmarks import _timing

PREFIX = "bench_"


def available() -> dict[str, str]:
    """Benchmark names and the first line of their docstrings (no imports)."""
    found = {}
    for path in sorted(Path(__file__).parent.glob(f"{PREFIX}*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        found[path.stem[len(PREFIX) :]] = doc.strip().splitlines()[0] if doc else ""
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--compare" in argv:
        from benchmarks import compare_trees

        return compare_trees.main([a for a in argv if a != "--compare"])
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Time gpuml against scikit-learn; with no NAME, list them.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help=f"timed calls after one warm-up (default {_timing.DEFAULT_REPEAT})",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a 10x smaller problem, for a smoke test"
    )
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")

    benchmarks = available()
    if not args.names:
        print("benchmarks (python -m benchmarks.run NAME [NAME ...]):")
        width = max(map(len, benchmarks), default=0)
        for name, summary in benchmarks.items():
            print(f"  {name.ljust(width)}  {summary}")
        return 0
    unknown = [name for name in args.names if name not in benchmarks]
    if unknown:
        parser.error(
            f"unknown benchmark(s) {', '.join(unknown)}; "
            f"choose from {', '.join(benchmarks)}"
        )

    now = datetime.datetime.now(datetime.timezone.utc)
    print(f"date: {now:%Y-%m-%d %H:%M} UTC")
    print(f"command: python -m benchmarks.run {shlex.join(argv)}")
    for line in _timing.machine_lines():
        print(line)
    kwargs = {} if args.repeat is None else {"repeat": args.repeat}
    for name in args.names:
        module = importlib.import_module(f"benchmarks.{PREFIX}{name}")
        print(f"\n== {name}{' (quick)' if args.quick else ''}", flush=True)
        rows = module.run(args.quick, **kwargs)
        print(_timing.format_table(rows), flush=True)
        _timing.free_gpu_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
