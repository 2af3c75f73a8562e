"""Every game the service referees, by game type. The service reaches engines only through `GAMES`;
a game's type names its package (`engines/croupier/engines/<game_type>`, exporting `ENGINE`) and the
members of the protos' oneofs, so adding a game is one id here (docs/api.md, "Adding a game")."""

from __future__ import annotations

import importlib
from typing import Any

from croupier.engines.core import descriptors
from croupier.engines.core.engine import Engine

AnyEngine = Engine[Any, Any, Any, Any, Any]

# In the order of the games index (docs/games/README.md) and the protos' oneofs.
GAME_TYPES = ("whats_your_name", "one_card", "pig_mau_mau", "vampire_queen", "trinity")

GAMES: dict[str, AnyEngine] = {}


def register(engine: AnyEngine) -> None:
    GAMES[engine.game_type] = engine


def _load() -> None:
    # Imported here so that a game's package may import croupier.engines.core without a cycle.
    for game_type in GAME_TYPES:
        engine: AnyEngine = importlib.import_module(f"croupier.engines.{game_type}").ENGINE
        if engine.game_type != game_type:  # the service finds the messages by it
            raise ImportError(
                f"croupier.engines.{game_type}.ENGINE is the engine of {engine.game_type}"
            )
        register(engine)
    descriptors.keep(engine.state_type.DESCRIPTOR.file for engine in GAMES.values())


_load()
