"""`croupier-bench`: the service benchmark (baseline, replayed ApplyMoves, game play) and the
engine benchmark. `croupier.bench.cli` has the options; docs/performance.md the method."""

from __future__ import annotations

from croupier.bench.cli import main

__all__ = ["main"]
