"""Every game the service referees, by game id. The service reaches engines only through
`GAMES`, so adding a game means adding its engine here and its messages to the protos."""

from __future__ import annotations

from typing import Any

from engines.core.engine import Engine

AnyEngine = Engine[Any, Any, Any, Any, Any]

GAMES: dict[str, AnyEngine] = {}


def register(engine: AnyEngine) -> None:
    GAMES[engine.game_id] = engine


def _load() -> None:
    # Imported here so that a game's package may import engines.core without a cycle.
    from engines import one_card, pig_mau_mau, trinity, vampire_queen, whats_your_name

    for module in (whats_your_name, one_card, pig_mau_mau, vampire_queen, trinity):
        register(module.ENGINE)


_load()
