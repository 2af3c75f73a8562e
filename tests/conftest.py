"""Suite-wide options: `--run-slow` enables the long soak and load tests. And the suite refuses
to run on compiled engines older than their sources (setup.py): Python would import the old
compiled module and the change under test would not run."""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parent.parent / "engines"


def stale_compiled_engines(engines: Path) -> list[str]:
    """The engine sources changed since mypyc compiled them, as paths under `engines`."""
    stale = []
    for suffix in EXTENSION_SUFFIXES:
        for compiled in engines.rglob(f"*{suffix}"):
            source = compiled.with_name(compiled.name.removesuffix(suffix) + ".py")
            if source.is_file() and source.stat().st_mtime > compiled.stat().st_mtime:
                stale.append(source.relative_to(engines).as_posix())
    return sorted(stale)


def pytest_sessionstart(session: pytest.Session) -> None:
    stale = stale_compiled_engines(ENGINES)
    if stale:
        more = f" and {len(stale) - 1} more" if len(stale) > 1 else ""
        raise pytest.UsageError(
            f"engines/{stale[0]}{more} changed after the engines were compiled:"
            " run `make install` to compile them again (or `make pure-engines`)"
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the long soak and load tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long run: use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
