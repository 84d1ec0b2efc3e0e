"""Execute every notebook of ``notebooks/`` as a user would, at the size the
machine picks (the notebooks choose larger data on a GPU), timing each.

On the GPU machine (Jupyter's packages come from
``benchmarks/notebook_wheels.sh``)::

    source .gpu/env.sh && source .gpu/nb-env.sh
    python3 -m benchmarks.run_notebooks --out $OUT/notebooks

Each notebook runs in a fresh kernel from its own folder; the executed copy
(outputs, figures) is written to ``--out`` (nothing in ``notebooks/`` is
changed), and the text the cells printed goes to stdout, after the
notebook's name and wall time. Exits non-zero when a notebook fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def printed(notebook) -> str:
    """The text of the stream outputs and plain-text results of the cells."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output.get("text", ""))
            elif output.get("output_type") == "error":
                parts.append(f"{output['ename']}: {output['evalue']}\n")
    return "".join(parts)


def main() -> int:
    import nbclient
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("names", nargs="*", help="notebook names (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if args.names:
        paths = [p for p in paths if p.stem in args.names or p.name in args.names]
    failed = 0
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        client = nbclient.NotebookClient(
            notebook,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        try:
            client.execute()
            status = "ok"
        except Exception as error:  # the cell and its traceback are in the text
            status = f"FAILED: {type(error).__name__}"
            failed += 1
        seconds = time.perf_counter() - start
        nbformat.write(notebook, args.out / path.name)
        print(f"=== {path.name}: {status}, {seconds:.1f} s", flush=True)
        print(printed(notebook), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
