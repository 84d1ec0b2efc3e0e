"""The host half of issue 39's tabular search: the DataFrame made one matrix.

A search over ``Pipeline(ColumnTransformer, ...)`` fed a pandas DataFrame
first makes the table one numeric matrix on the host
(``gpuml/model_selection/_table.py``: each string column as the positions
of its values among its sorted distinct strings), before any device work;
on issue 39's table (2,000,000 rows, 8 string columns of 5 to 5,000
categories, 12 float32 columns; ``benchmarks/bench_tabular.py``) that took
1.1 s of a 9.7 s search on an H100. This times it alone, with no GPU
involved, for the string columns held three ways:

- ``object``: object columns (``None`` or NaN missing), as bench_tabular
  makes them: the rows repeat the objects of their labels;
- ``str``: pandas' default string dtype (Arrow-backed, NaN missing), what
  ``pd.read_csv`` gives under pandas 3;
- ``category``: pandas categoricals.

Usage::

    python -m benchmarks.bench_table_matrix [--rows N] [--repeat R]
        [--compare REF ...] [--rounds K]

``--compare`` runs this tree and each ``REF`` (a commit of this checkout or
a source tree, as for ``benchmarks.compare_trees``) in fresh processes,
alternating ``--rounds`` times, and reports each variant's minimum over the
rounds (each round the median of ``--repeat`` calls) and the ratio against
each reference, after checking that every tree made the same matrix (a
checksum of its bytes) and the same categories.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
VARIANTS = ("object", "str", "category")


def _tables(rows: int) -> dict:
    """The bench_tabular table, its string columns held each way."""
    from benchmarks.bench_tabular import make_table, string_columns

    X, _ = make_table(rows)
    tables = {"object": X}
    for variant in ("str", "category"):
        other = X.copy()
        for name in string_columns():
            other[name] = X[name].astype(variant)
        tables[variant] = other
    return tables


def child(rows: int, repeat: int) -> dict:
    """This process's figures: per variant, the median seconds of
    ``repeat`` matrices (each by a new plan, as each search makes its own)
    and a checksum of the matrix and categories."""
    from benchmarks.bench_tabular import string_columns
    from gpuml.model_selection._table import TablePlan

    out = {}
    for variant, X in _tables(rows).items():
        positions = frozenset(
            i for i, name in enumerate(X.columns) if name in string_columns()
        )
        times, plan = [], None
        for _ in range(repeat):
            plan = TablePlan(X, positions, np.float32)
            start = time.perf_counter()
            matrix = plan.matrix()
            times.append(time.perf_counter() - start)
        digest = hashlib.sha256(np.ascontiguousarray(matrix).tobytes())
        for key in sorted(plan._strings):
            digest.update(repr(list(plan._strings[key])).encode())
        out[variant] = {"s": float(np.median(times)), "sum": digest.hexdigest()[:16]}
    out["file"] = sys.modules["gpuml"].__file__
    return out


def _run_tree(tree: Path, rows: int, repeat: int) -> dict:
    """The child's figures, gpuml imported from ``tree`` (this checkout's
    benchmarks after it on the path; the folder ``/``, not the checkout)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(HERE)]))
    command = [sys.executable, "-m", "benchmarks.bench_table_matrix", "--child"]
    command += ["--rows", str(rows), "--repeat", str(repeat)]
    done = subprocess.run(
        command, env=env, cwd="/", capture_output=True, text=True, check=True
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    if not figures.pop("file").startswith(str(tree)):
        raise RuntimeError(f"the child did not import {tree}'s gpuml")
    return figures


def compare(refs: list[str], rows: int, repeat: int, rounds: int) -> None:
    from benchmarks.compare_trees import resolve

    with tempfile.TemporaryDirectory() as scratch:
        trees = {"this tree": HERE}
        for ref in refs:
            tree = resolve(ref, Path(scratch))
            if isinstance(tree, dict):
                raise SystemExit(f"{ref}: a stored run cannot be compared here")
            trees[ref] = tree
        figures = {label: [] for label in trees}
        for _ in range(rounds):
            for label, tree in trees.items():
                figures[label].append(_run_tree(tree, rows, repeat))
    print(f"{rows:,} rows, median of {repeat} per process, min of {rounds} rounds")
    for variant in VARIANTS:
        sums = {f[variant]["sum"] for runs in figures.values() for f in runs}
        best = {
            label: min(f[variant]["s"] for f in runs) for label, runs in figures.items()
        }
        cells = [f"{label} {best[label]:.3f} s" for label in trees]
        ratios = [f"{best['this tree'] / best[ref]:.2f}x of {ref}" for ref in refs]
        same = "same matrix" if len(sums) == 1 else "MATRICES DIFFER"
        print(f"{variant:9s} " + "; ".join(cells + ratios) + f"; {same}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--compare", nargs="*", default=[])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.rows, args.repeat)))
    elif args.compare:
        compare(args.compare, args.rows, args.repeat, args.rounds)
    else:
        figures = child(args.rows, args.repeat)
        for variant in VARIANTS:
            one = figures[variant]
            print(f"{variant:9s} {one['s']:.3f} s  (matrix {one['sum']})")


if __name__ == "__main__":
    main()
