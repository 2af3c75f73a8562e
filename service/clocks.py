"""Turn clocks (issue 19): each seat that must act has a deadline, kept in the game's own state
(so the version's compare-and-set covers it) and, as the game's next deadline, in a due index
(a sorted set per bucket, `keys.due_index`) that every replica sweeps. A timeout is a move
like any other: decided on the state at one version and written only if the game is still at
that version, so of the replicas that see a deadline pass exactly one acts, and a move that
lands before the timeout's write makes that write fail (docs/architecture.md).
"""

from __future__ import annotations

import time

from croupier.v1.game_service_pb2 import Clock, TimeoutPolicy
from croupier.v1.storage_pb2 import StoredClock
from service import errors, keys
from service.games import LoadedGame
from service.store import IndexEntry

MIN_SECONDS = 1
MAX_SECONDS = 86_400
SUPPORTED_POLICIES = (TimeoutPolicy.TIMEOUT_POLICY_UNSPECIFIED, TimeoutPolicy.TIMEOUT_POLICY_AUTO)


def now_ms() -> int:
    """The service's one notion of now for deadlines: this host's clock (replicas' clocks are
    assumed synchronised, e.g. by NTP, to well under the 1 s tolerance)."""
    return int(time.time() * 1000)


def check(clock: Clock) -> StoredClock | None:
    """The stored clock of CreateGame's `clock` (None: none), or INVALID_ARGUMENT."""
    if clock.ByteSize() == 0:
        return None
    if not MIN_SECONDS <= clock.seconds_per_decision <= MAX_SECONDS:
        raise errors.invalid_argument(
            errors.Reason.INVALID_CLOCK,
            "clock.seconds_per_decision",
            f"seconds per decision are {MIN_SECONDS} to {MAX_SECONDS} (a day)",
        )
    if clock.on_timeout not in SUPPORTED_POLICIES:
        raise errors.invalid_argument(
            errors.Reason.INVALID_CLOCK,
            "clock.on_timeout",
            "on_timeout: the one policy is TIMEOUT_POLICY_AUTO (the default)",
        )
    return StoredClock(
        seconds=clock.seconds_per_decision, on_timeout=TimeoutPolicy.TIMEOUT_POLICY_AUTO
    )


def has_clock(game: LoadedGame) -> bool:
    return game.stored.HasField("clock") and game.stored.clock.seconds > 0


def refresh(game: LoadedGame, mover: int | None, now: int) -> None:
    """Set the deadlines after a write: a seat that must act keeps its deadline unless it just
    moved (a new decision) or had none (it just became active); the others have none."""
    if not has_clock(game):
        return
    clock = game.stored.clock
    seats = game.state.seats
    if len(clock.deadline_ms) != seats:
        del clock.deadline_ms[:]
        clock.deadline_ms.extend([0] * seats)
    over = game.engine.result(game.state) is not None
    active = set() if over or game.waiting else set(game.engine.active_seats(game.state))
    for seat in range(seats):
        if seat not in active:
            clock.deadline_ms[seat] = 0
        elif seat == mover or not clock.deadline_ms[seat]:
            clock.deadline_ms[seat] = now + clock.seconds * 1000


def next_deadline(game: LoadedGame) -> int | None:
    if not has_clock(game):
        return None
    pending = [d for d in game.stored.clock.deadline_ms if d]
    return min(pending) if pending else None


def due_entry(game: LoadedGame, deadline: int) -> IndexEntry:
    bucket = keys.bucket_of(game.game_id, keys.DUE_BUCKETS)
    return IndexEntry(keys.due_index(bucket), deadline, game.game_id)


def due_keys() -> list[str]:
    return [keys.due_index(b) for b in range(keys.DUE_BUCKETS)]


def due_seats(game: LoadedGame, now: int) -> list[int]:
    """The seats whose deadline has passed at `now`, earliest deadline first."""
    if not has_clock(game) or game.waiting or game.engine.result(game.state) is not None:
        return []
    active = set(game.engine.active_seats(game.state))
    deadlines = game.stored.clock.deadline_ms
    due = [s for s, d in enumerate(deadlines) if d and d <= now and s in active]
    return sorted(due, key=lambda s: (deadlines[s], s))
