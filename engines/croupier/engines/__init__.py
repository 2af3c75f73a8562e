"""The rule engines: deterministic, free of I/O, one package per game (see
engines/croupier/engines/core)."""
