"""Suite-wide options: `--run-slow` enables the long soak and load tests. The suite refuses to
run on compiled engines older than their sources (setup.py): Python would import the old
compiled module and the change under test would not run. And what running it on several
workers (`make test`: pytest-xdist) needs: which tests share a worker, and the reliability
tests' figures gathered from every worker into the one summary."""

from __future__ import annotations

import json
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.figures import FIGURES

ENGINES = Path(__file__).resolve().parent.parent / "engines" / "croupier" / "engines"


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
            f"engines/croupier/engines/{stale[0]}{more} changed after the engines were compiled:"
            " run `make install` to compile them again (or `make pure-engines`)"
        )


def pytest_configure(config: pytest.Config) -> None:
    """Every croupier-server the suite starts without a Redis URL keeps its store in a
    temporary folder, even one started otherwise than by LocalServer (which passes
    --ephemeral): a test never writes into the user's own store. Tests of the kept store give
    --data-dir and --no-ephemeral."""
    os.environ["CROUPIER_EPHEMERAL"] = "1"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the long soak and load tests")


# `make test` runs the suite on two workers (`-n 2 --dist loadgroup`), a group of tests per
# worker at a time. A test module is a group: its module fixtures (servers, stores) start once,
# and some modules add up figures over all their tests. The tests that run npm in
# clients/typescript are one group, because they build into that folder.
NPM_PROJECT_TESTS = ("tests/e2e/", "tests/service/test_lobby_typescript.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.nodeid.split("::")[0]
        group = "npm project" if module.startswith(NPM_PROJECT_TESTS) else module
        item.add_marker(pytest.mark.xdist_group(group))
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long run: use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# --- the reliability figures (tests/reliability/figures.py) ----------------------------------

FIGURES_FILE = "reliability-figures.json"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker hands its figures to the process that reports (pytest_testnodedown)."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["reliability_figures"] = json.dumps(FIGURES)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: the process that runs the workers
def pytest_testnodedown(node: Any, error: object) -> None:
    worker_figures = json.loads(getattr(node, "workeroutput", {}).get("reliability_figures", "{}"))
    for section, values in worker_figures.items():
        FIGURES.setdefault(section, {}).update(values)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if not FIGURES or hasattr(config, "workerinput"):
        return
    # Where tmp_path_factory puts this run's folders (workers' folders are inside it).
    path = Path(config._tmp_path_factory.getbasetemp()) / FIGURES_FILE  # type: ignore[attr-defined]
    path.write_text(json.dumps(FIGURES, indent=2, sort_keys=True) + "\n")
    terminalreporter.section("reliability figures")
    terminalreporter.write_line(json.dumps(FIGURES, indent=2, sort_keys=True))
    terminalreporter.write_line(f"written to {path}")
