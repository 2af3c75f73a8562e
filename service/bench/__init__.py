"""`croupier-bench`: the service benchmark (baseline, replayed ApplyMoves, game play) and the
engine benchmark. `croupier.service.bench.cli` has the options; docs/performance.md the method."""

from __future__ import annotations

from croupier.service.bench.cli import main

__all__ = ["main"]
