"""Placements and results (C-7)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from croupier.v1.common_pb2 import GameResult, SeatResult


def placements(keys: Sequence[Any]) -> list[int]:
    """1-based placement of every seat given its sort key (smaller key is better).

    Seats with equal keys share a placement; the next placement skips accordingly (1, 1, 3).
    """
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def build_result(
    scores: Sequence[int],
    *,
    lower_is_better: bool,
    summary: str,
    tie_break: Callable[[int], Any] | None = None,
) -> GameResult:
    """A result from per-seat scores; `tie_break(seat)` orders equal scores when the rules do
    (smaller is better), otherwise equal scores share a placement."""

    def key(seat: int) -> tuple[int, Any]:
        score = scores[seat] if lower_is_better else -scores[seat]
        return (score, tie_break(seat) if tie_break else 0)

    places = placements([key(seat) for seat in range(len(scores))])
    return GameResult(
        seats=[
            SeatResult(seat=seat, score=score, placement=place)
            for seat, (score, place) in enumerate(zip(scores, places, strict=True))
        ],
        winners=[seat for seat, place in enumerate(places) if place == 1],
        summary=summary,
    )


def shared_result(seats: int, *, won: bool, summary: str) -> GameResult:
    """The result of a cooperative game (C-7): every seat wins together (score 1), or none
    does (score 0); all share the first place."""
    return GameResult(
        seats=[SeatResult(seat=seat, score=int(won), placement=1) for seat in range(seats)],
        winners=list(range(seats)) if won else [],
        summary=summary,
    )


def forfeit_result(seats: int, forfeited: int, *, cooperative: bool) -> GameResult:
    """The result of a game that ended when `forfeited`'s deadline passed under the FORFEIT
    policy (the service's, not a rule): that seat is last alone (placement `seats`, score 0).
    In a competitive game every other seat scores 1, shares the first place and wins; in a
    cooperative one the team loses (no winners, every score 0) and the other seats share the
    first place as in any lost game (docs/games/<game>.md, "Forfeit")."""
    others = 0 if cooperative else 1
    return GameResult(
        seats=[
            SeatResult(
                seat=seat,
                score=0 if seat == forfeited else others,
                placement=seats if seat == forfeited else 1,
            )
            for seat in range(seats)
        ],
        winners=[] if cooperative else [s for s in range(seats) if s != forfeited],
        summary=f"seat {forfeited} forfeited (its deadline passed)"
        + (": the team loses" if cooperative else ": the other seats share the win"),
    )
