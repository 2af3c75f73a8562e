"""Croupier client: the generated API (croupier.v1), a typed wrapper, bots and tools."""
