"""docs/install.rst and setup.cfg name the same extras (issue 34)."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_extras() -> dict[str, set[str]]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    extras = config["options.extras_require"]
    return {
        name: {
            re.split(r"[<>=!~ ;\[]", line.strip(), maxsplit=1)[0]
            for line in value.splitlines()
            if line.strip()
        }
        for name, value in extras.items()
    }


def _documented_extras() -> dict[str, str]:
    """The extras table of docs/install.rst: ``{extra: its description}``."""
    text = (ROOT / "docs" / "install.rst").read_text()
    table = text.split("Extra           Adds", 1)[1].split("\n\n", 1)[0]
    rows, current = {}, None
    for line in table.splitlines():
        match = re.match(r"``([\w-]+)``\s+(.*)", line)
        if match:
            current = match.group(1)
            rows[current] = match.group(2)
        elif current is not None and line.startswith(" "):
            rows[current] += " " + line.strip()
    return rows


def test_every_documented_extra_exists_and_every_user_extra_is_documented():
    documented = _documented_extras()
    extras = _setup_extras()
    assert set(documented) - set(extras) == set(), "documented, not in setup.cfg"
    # "dev" and "notebooks" are the project's own tools, not a user's extras
    assert set(extras) - set(documented) <= {"dev", "notebooks"}


def test_documented_test_extra_lists_what_it_installs():
    documented = _documented_extras()["test"]
    for package in ("pytest", "pandas", "dask", "distributed", "dask-ml"):
        assert f"``{package}``" in documented
        assert package in _setup_extras()["test"]
    # dask-ml's interoperability tests (tests/model_selection/test_dask_ml.py)
    # run wherever the test extra is installed, CI included.
    assert "dask-ml" in _setup_extras()["dask-ml"]
