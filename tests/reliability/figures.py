"""The figures every reliability test reports (games, moves, clients, faults, fuzz cases,
latencies): each test prints its own line (visible with `-s`), and at the end of the run they
are printed in pytest's summary and written as JSON to `reliability-figures.json` in its
temporary folder (tests/conftest.py, which gathers them from every worker)."""

from __future__ import annotations

import json
from typing import Any

FIGURES: dict[str, dict[str, Any]] = {}


def record(section: str, **values: Any) -> None:
    """Add figures of one promise."""
    FIGURES.setdefault(section, {}).update(values)
    print(f"[reliability] {section}: {json.dumps(values, sort_keys=True)}")
