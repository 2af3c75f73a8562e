"""Helpers every game's tests share: a state's bytes, the events as one audience receives them,
and the check that a refused move is refused for the right rule and changes nothing.

Each game's own helpers (positions, short card names, move builders) import these and bind
their engine; nothing here knows a particular game. What the generic tests need of a game lives
in its own test package, tests/engines/<game_type>/generic.py, found by `generic_of`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.protobuf.message import Message

from croupier.engines.core.engine import Emitted
from croupier.engines.core.errors import IllegalMove
from croupier.engines.registry import AnyEngine
from croupier.v1.game_service_pb2 import GameView

Events = Sequence[Emitted[Any]]


def generic_of(game_id: str) -> ModuleType:
    """What the generic tests need of a game, from tests/engines/<game_type>/generic.py: `OPTIONS`
    (option sets reaching every kind of move), `SWEEP` (the move-space sweep's size), `moves` (its
    move space), optionally `canonical`, and `scrambled` (the state with what a seat may not see
    changed). A game without the module fails the generic tests (ModuleNotFoundError)."""
    return importlib.import_module(f"tests.engines.{game_id}.generic")


GAMES_INDEX = Path(__file__).resolve().parents[2] / "docs" / "games" / "README.md"


@dataclass(frozen=True)
class IndexRow:
    """One game's line of the games index (docs/games/README.md)."""

    title: str
    players: str  # "2-6" (with an en dash) or "exactly 3"
    page: str
    prefix: str  # of its rule ids, "WN" for WN-x.y


def games_index() -> dict[str, IndexRow]:
    """The games index by game type: the one place besides the registry and the protos that a new
    game is added to; the tests read the games and their rule-id prefixes from it."""
    rows = re.findall(
        r"^\| `(\w+)` \| (.+?) \| (.+?) \| \[.+?\]\((.+?)\) \| ([A-Z]+)-x\.y \|$",
        GAMES_INDEX.read_text(),
        re.M,
    )
    return {game_id: IndexRow(*rest) for game_id, *rest in rows}


def encode(message: Message) -> bytes:
    """The message's deterministic bytes: what "the state did not change" is compared on."""
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def received(events: Events, seat: int | None = None) -> list[Any]:
    """The events as `seat` receives them (None: a spectator), in order."""
    out: list[Any] = []
    for emitted in events:
        event = emitted.for_seat(seat)
        if event is not None:
            out.append(event)
    return out


def kinds(events: Events, seat: int | None = None) -> list[str]:
    """The event kinds as `seat` receives them (None: a spectator)."""
    return [event.WhichOneof("kind") or "" for event in received(events, seat)]


def events_of(events: Events, kind: str, seat: int | None = None) -> list[Any]:
    """The whole events of one kind as `seat` receives them."""
    return [event for event in received(events, seat) if event.WhichOneof("kind") == kind]


def of_kind(events: Events, kind: str, seat: int | None = None) -> list[Any]:
    """The payloads of the events of one kind as `seat` receives them."""
    return [getattr(event, kind) for event in events_of(events, kind, seat)]


def refused(
    engine: AnyEngine, state: Any, seat: int, move: Any, rule_id: str | None = None
) -> IllegalMove:
    """Assert that `move` is refused (citing `rule_id` when given), that the state's bytes did
    not change and that `legal_moves` does not list it: the listing and the check agree."""
    assert move not in engine.legal_moves(state, seat), f"{move} is listed as legal"
    before = encode(state)
    with pytest.raises(IllegalMove) as caught:
        engine.apply(state, seat, move)
    if rule_id is not None:
        assert caught.value.rule_id == rule_id, caught.value
    assert encode(state) == before, "a refused move changed the state"
    return caught.value


def seat_view(engine: AnyEngine, state: Any, seat: int, names: Sequence[str]) -> GameView:
    """The service's GameView of `state` for `seat`, as the renderers receive it: the game's
    own view under the member named by its game type, the table's first names."""
    seats: int = state.seats
    view = GameView(
        game_type=engine.game_type, seats=seats, display_names=names[:seats], viewer_seat=seat
    )
    getattr(view, engine.game_type).CopyFrom(engine.view(state, seat))
    return view
