"""Store key names. Every key of one game shares the hash tag `{<game id>}`, so a Redis
Cluster keeps them in one slot and the compare-and-set script can touch them all."""

from __future__ import annotations

PREFIX = "croupier"


def game(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:game"


def log(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:log"


def request(game_id: str, request_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:req:{request_id}"


def channel(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:moves"


def create_request(request_id: str) -> str:
    return f"{PREFIX}:create:{{{request_id}}}"
