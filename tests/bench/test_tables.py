"""The tables of docs/performance.md and docs/scaling.md are what `python -m
croupier.bench.tables` makes from the reports in docs/results/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from croupier.bench import tables

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


@pytest.mark.parametrize("page", ["performance.md", "scaling.md"])
def test_the_pages_tables_are_made_from_the_reports(page: str) -> None:
    text = (ROOT / "docs" / page).read_text()
    assert tables.BLOCK.search(text), f"docs/{page} has no results table"
    made = tables.render_page(text, RESULTS)
    assert made == text, (
        f"docs/{page}'s tables differ from docs/results/:"
        " run .venv/bin/python -m croupier.bench.tables"
    )


def test_every_report_is_shown() -> None:
    """No report in docs/results/ is kept without a table that shows it."""
    named = " ".join(
        match.group(2)
        for page in ("performance.md", "scaling.md")
        for match in tables.BLOCK.finditer((ROOT / "docs" / page).read_text())
    )
    shown = {
        Path(path).name
        for pattern in named.split()
        for path in RESULTS.glob(pattern)
        if pattern not in tables.RENDERERS
    }
    assert {path.name for path in RESULTS.glob("*.json")} == shown


def test_check_finds_a_stale_table_and_the_command_writes_it(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(RESULTS / "watch-split.json", results / "watch-split.json")
    page = tmp_path / "page.md"
    stale = "Before.\n\n<!-- results: watch-split watch-split.json -->\nold\n<!-- /results -->\n"
    page.write_text(stale)

    assert tables.main([str(page), "--results", str(results), "--check"]) == 1
    assert page.read_text() == stale
    assert tables.main([str(page), "--results", str(results)]) == 0
    written = page.read_text()
    assert written.startswith("Before.\n\n<!-- results: watch-split watch-split.json -->\n")
    assert "old" not in written and "| moves/s | pairs |" in written
    assert tables.main([str(page), "--results", str(results), "--check"]) == 0


def test_the_machine_line_says_when_other_work_shared_the_machine() -> None:
    machine = {
        "cpu": "AMD EPYC",
        "cpu_count": 2,
        "system": "Linux 6.18",
        "python": "3.11.7",
        "grpcio": "1.85.3",
        "protobuf": "7.36.2",
    }
    quiet = {"machine": {**machine, "load_average_before": [0.2, 0.1, 0.1]}}
    busy = {"machine": {**machine, "load_average_before": [3.5, 2.0, 1.0]}}
    assert tables.machine_line([quiet]) == (
        "Machine: AMD EPYC, 2 CPUs, Linux 6.18, Python 3.11.7, grpcio 1.85.3, protobuf 7.36.2;"
        " load average 0.20 before the run."
    )
    assert "other work shared the machine" in tables.machine_line([quiet, busy])
    # Reports written before the machine was recorded: their load at the end of the run.
    old = {"config": {"cpu_count": 2, "load_average": [2.5, 2.0, 1.0]}}
    assert tables.machine_line([old]) == "Machine: 2 CPUs; load average 2.50 at the end of the run."
    assert "noisy" in tables.machine_line([{"config": {**old["config"], "load_average": [5.7]}}])


def test_a_missing_report_is_an_error(tmp_path: Path) -> None:
    page = "<!-- results: engines nothing-*.json -->\n<!-- /results -->\n"
    with pytest.raises(tables.MissingReport):
        tables.render_page(page, tmp_path)
