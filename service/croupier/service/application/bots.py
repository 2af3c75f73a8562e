"""Bot seats: seats of a game that the service plays itself, and seats that walked
away (`clocks`: abandon_after consecutive timeouts), which the strong bot plays meanwhile.

A bot seat is marked in the stored game by its level (`StoredGame.bot_levels`) and by a
credential hash no credential has (`BOT_SEAT_HASH`: a SHA-256 digest is 32 bytes, this is
not), so it is neither open (JoinGame) nor anyone's to act for. Its moves are chosen by
`croupier.engines.core.bots` from the seat's own view and legal moves, with the generator of
`decision_rng(seed, move_count, seat)`, so a game with bot seats replays from its record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from croupier.engines.core.bots import LEVELS, bot_for, decision_rng
from croupier.service.application import clocks
from croupier.service.application.games import LoadedGame

AWAY_LEVEL = "strong"  # who plays a seat that walked away (clocks: abandon_after)

BOT_SEAT_HASH = b"bot seat"


def level_of(game: LoadedGame, seat: int) -> str:
    """The seat's bot level; empty for a human seat."""
    levels = game.stored.bot_levels
    return levels[seat] if seat < len(levels) else ""


def player_of(game: LoadedGame, seat: int) -> str:
    """The level the service plays the seat with now: a bot seat's own, the strong bot for a
    seat that is away; empty when the seat's player moves itself."""
    return level_of(game, seat) or (AWAY_LEVEL if clocks.is_away(game, seat) else "")


def _any_played(game: LoadedGame) -> bool:
    return any(game.stored.bot_levels) or any(game.stored.clock.away)


def known_level(level: str) -> bool:
    return level in LEVELS


@dataclass(frozen=True, slots=True)
class BotMove:
    seat: int
    level: str
    move: Any  # the game's own move message


def bot_due(game: LoadedGame) -> bool:
    """Whether a bot seat may act now (cheap: no decision made)."""
    if not _any_played(game) or game.waiting or game.over:
        return False
    return any(player_of(game, seat) for seat in game.engine.active_seats(game.state))


def next_bot_move(game: LoadedGame) -> BotMove | None:
    """The move of the first active bot seat with a legal move (in seat order rotated by the
    move count, so that no bot seat of a simultaneous decision is always first), None when no
    bot seat may act now (a game waiting for players, over, or a human's turn)."""
    if not _any_played(game) or game.waiting or game.over:
        return None
    engine, state = game.engine, game.state
    active = engine.active_seats(state)
    if not active:
        return None
    shift = game.stored.move_count % len(active)
    for seat in active[shift:] + active[:shift]:
        level = player_of(game, seat)
        if not level:
            continue
        legal = engine.legal_moves(state, seat)
        if not legal:
            continue
        seed = engine.setup_of(state).seed
        rng = decision_rng(seed, game.stored.move_count, seat)
        # The bot is given the seat's view and legal moves, never the state.
        move = bot_for(engine.game_type, level).choose(seat, engine.view(state, seat), legal, rng)
        return BotMove(seat, level, move)
    return None
