"""The reliability tests report their figures (games, moves, clients, faults, fuzz cases,
latencies): each test prints its own line (visible with `-s`), and at the end of the run they are
written to `reliability-figures.json` in pytest's temporary folder and printed in the summary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.support import FIGURES

_written: list[Path] = []


@pytest.fixture(scope="session", autouse=True)
def figures_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.getbasetemp() / "reliability-figures.json"
    yield path
    if FIGURES:
        path.write_text(json.dumps(FIGURES, indent=2, sort_keys=True) + "\n")
        _written.append(path)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES:
        return
    terminalreporter.section("reliability figures")
    terminalreporter.write_line(json.dumps(FIGURES, indent=2, sort_keys=True))
    for path in _written:
        terminalreporter.write_line(f"written to {path}")
