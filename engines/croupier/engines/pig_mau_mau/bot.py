"""The strong Pig Mau Mau player: a one-ply heuristic over the seat's own view (PM-8).

Points come from the bet on the winning pig (6, 4, 3, 2, 1 by slot, PM-1.4), moving a pig to
the finish (3) and emptying the hand (5). How it thinks:
- Make the call the play needs (PM-7): a play without it is undone and the turn lost.
- Back one pig, "mine": its own bet, or before betting the pig furthest ahead. Push that pig
  forward, prefer numbers that finish the race with it, avoid bringing another pig near the
  finish, and empty the hand when it can (5 points).
- Bet at the first chance (an early slot scores most) on the strongest pig (position, and the
  numbers of its colour in hand); change the bet only when another pig is far ahead.
- Pass a +2 on rather than draw; spend consolation steps on the other pigs, the leader first.
"""

from __future__ import annotations

from typing import Any, Final

from croupier.engines.core.bots import ScoringBot
from croupier.v1.pig_mau_mau_pb2 import (
    MAU_CALL_MAU,
    MAU_CALL_MAU_MAU,
    MAU_CALL_UNSPECIFIED,
    PigMauMauMove,
    PigMauMauView,
)

_NUMBERS: Final = 24
_SKIPS: Final = 28
_PLUS_TWOS: Final = 32
_TIRED: Final = 36
_FARMERS: Final = 39


def _strength(view: PigMauMauView, pig: int) -> float:
    """How likely `pig` (colour index) looks to win, from what the seat sees."""
    support = sum(c.number for c in view.hand[:] if c.code < _NUMBERS and c.code // 6 == pig)
    return view.pigs[pig] + 0.5 * support


def _mine(view: PigMauMauView) -> int:
    if view.my_bet:
        return int(view.my_bet) - 1
    return max(range(4), key=lambda pig: (_strength(view, pig), -pig))


class StrongBot(ScoringBot):
    def score(self, seat: int, view: Any, move: Any) -> float:
        v: PigMauMauView = view
        m: PigMauMauMove = move
        kind = m.WhichOneof("kind")
        mine = _mine(v)
        if kind == "place_bet":
            pig = int(m.place_bet.color) - 1
            if not v.my_bet:
                return 100.0 + _strength(v, pig)
            if pig == mine:
                return -10.0
            return _strength(v, pig) - _strength(v, mine) - 5.0
        if kind == "decline_bet":
            return 0.0
        if kind == "step_back":
            pig = int(m.step_back.pig) - 1
            return -100.0 if pig == mine else 1.0 + v.pigs[pig]
        if kind == "end_steps":
            return 0.0
        if kind == "draw":
            return -20.0
        play = m.play
        left = len(v.hand) - 1
        needed = MAU_CALL_UNSPECIFIED
        if v.mau:
            needed = MAU_CALL_MAU_MAU if left == 0 else MAU_CALL_MAU if left == 1 else needed
        if play.call != needed:
            return -1_000.0
        code = play.card
        value = 500.0 if left == 0 else 0.0
        if code < _NUMBERS:
            pig, number = code // 6, code % 6 + 1
            reached = v.pigs[pig] + number
            if reached >= v.finish:
                return value + (800.0 if pig == mine else 300.0)
            if pig == mine:
                value += 20.0 + number
            elif reached >= v.finish - 6:
                value -= 10.0 + number  # brings a rival pig within one card of the finish
            else:
                value += 5.0
        elif code < _SKIPS:
            value += 8.0
        elif code < _PLUS_TWOS:
            value += 15.0
        elif code < _TIRED:
            # The rearmost pig moves 3: good when it is ours.
            value += 15.0 if int(play.pig) - 1 == mine else 5.0
        else:
            held = [c.code // 6 for c in v.hand[:] if c.code < _NUMBERS]
            value += 6.0 + held.count(int(play.color) - 1)
        return value
