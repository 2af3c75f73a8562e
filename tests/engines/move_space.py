"""Every move message a seat could send, per game: the move space the listing is checked against.
Each game's lives in its own test package, tests/engines/<game_type>/generic.py (see
tests/engines/helpers.py: generic_of): the generator `moves(state, seat, full)`, the option sets
that reach every kind of move (`OPTIONS`), the quick sweep's size (`SWEEP`) and, where the proto
makes two messages the same move, `canonical(move)`; so a new game brings its own.


Written from the protos (protos/croupier/v1/<game>.proto) and the rules in docs/games/, not from
the engines: each generator enumerates every variant of the game's `<Game>Move.kind` with every
combination of its fields over their domains (every card code or card message of the game,
every seat, slot, colour, rank and call), plus a few values just outside each domain (a card
code one past the deck, seat -1 and seat N, an unset enum) and the empty move, which must be
refused as malformed.

Moves made of several cards cannot be enumerated over the whole deck (One Card's two-card
Quatran answer has 54 x 54 orders; a Vampire Queen play is a multiset of up to 12 of 16 card
values). There the space is every combination over the whole card domain up to a small size,
plus every combination of a shape the rules can accept: One Card's pairs of the cards the seat
holds (a play of cards one does not hold is refused whatever they are), Vampire Queen's k copies
of one value with q Queens. With `full=True` One Card's pairs run over the whole deck and Vampire
Queen's small multisets go one card further.

Each function returns the moves in a canonical form: where the proto says the order of the
cards does not matter (Vampire Queen), cards are sorted; `canonical` puts a listed move in the
same form, so that moves compare as serialized messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.engines.helpers import generic_of


@dataclass(frozen=True)
class Sweep:
    games: int  # games walked per game type
    positions: int  # positions checked per game walked (at most)
    full: bool  # the whole move space where the default narrows it (see above)


def canonical(game_id: str, move: Any) -> Any:
    """The move in the form the game's generator yields it (itself unless the game says)."""
    form = getattr(generic_of(game_id), "canonical", None)
    return move if form is None else form(move)
