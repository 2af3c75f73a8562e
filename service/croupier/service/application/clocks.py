"""Turn clocks: each seat that must act has a deadline, kept in the game's own state
(so the version's compare-and-set covers it) and, as the game's next deadline, in a due index
(a sorted set per bucket, `keys.due_index`) that every replica sweeps. A timeout is a move
like any other: decided on the state at one version and written only if the game is still at
that version, so of the replicas that see a deadline pass exactly one acts, and a move that
lands before the timeout's write makes that write fail (docs/architecture.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from croupier.service.application import errors
from croupier.service.application.games import LoadedGame, items_of
from croupier.service.store import keys
from croupier.service.store.protocol import IndexEntry
from croupier.v1.game_service_pb2 import Clock, GameRecord, TimeoutPolicy
from croupier.v1.storage_pb2 import StoredClock

MIN_SECONDS = 1
MAX_SECONDS = 86_400
MAX_ABANDON_AFTER = 100  # more consecutive timeouts than moves in most games: absurd
MAX_BANK_SECONDS = 86_400
AUTO = TimeoutPolicy.TIMEOUT_POLICY_AUTO
FORFEIT = TimeoutPolicy.TIMEOUT_POLICY_FORFEIT
# Every game supports both: AUTO needs only a legal move (every game has one for a seat that must
# act) and FORFEIT only the game's seats (engines/croupier/engines/core/scoring.forfeit_result).
SUPPORTED_POLICIES = (TimeoutPolicy.TIMEOUT_POLICY_UNSPECIFIED, AUTO, FORFEIT)

# Who made a move: the seat's own credential, the service for it (a bot seat, an away seat),
# or the service because the seat's deadline passed.
By = Literal["seat", "service", "timeout"]


def _system_ms() -> int:
    return int(time.time() * 1000)


_now: Callable[[], int] = _system_ms


def now_ms() -> int:
    """The service's one notion of now for deadlines: this host's clock (replicas' clocks are
    assumed synchronised, e.g. by NTP, to well under the 1 s tolerance), unless a test set
    another source with `set_now`."""
    return _now()


def set_now(source: Callable[[], int] | None) -> None:
    """Replace the service's clock (Unix ms), for tests that drive deadlines without sleeping
    (tests/service/test_clock_policies.py); None: this host's clock again. Only the clock code
    reads it: call deadlines, TTLs and the lobby keep real time."""
    global _now
    _now = source or _system_ms


def _invalid(field: str, message: str) -> errors.ServiceError:
    return errors.invalid_argument(errors.Reason.INVALID_CLOCK, f"clock.{field}", message)


def check(clock: Clock | None) -> StoredClock | None:
    """The stored clock of CreateGame's `clock` (None: the field is unset, no clock), or
    INVALID_ARGUMENT. A clock message that is set but empty is refused like any clock of 0
    seconds: the caller asked for a clock and gave none of its figures, most likely a client
    that dropped them, and a game without deadlines is not what it asked for."""
    if clock is None:
        return None
    if clock.seconds_per_decision == 0:
        raise _invalid(
            "seconds_per_decision",
            f"a clock needs seconds per decision, {MIN_SECONDS} to {MAX_SECONDS}; for a game"
            " without deadlines, leave clock unset",
        )
    if not MIN_SECONDS <= clock.seconds_per_decision <= MAX_SECONDS:
        raise _invalid(
            "seconds_per_decision",
            f"seconds per decision are {MIN_SECONDS} to {MAX_SECONDS} (a day)",
        )
    if clock.on_timeout not in SUPPORTED_POLICIES:
        raise _invalid(
            "on_timeout",
            "on_timeout is TIMEOUT_POLICY_AUTO (the default) or TIMEOUT_POLICY_FORFEIT",
        )
    policy = clock.on_timeout or AUTO
    if not 0 <= clock.abandon_after <= MAX_ABANDON_AFTER:
        raise _invalid(
            "abandon_after",
            f"abandon_after is 1 to {MAX_ABANDON_AFTER} consecutive timeouts (0: never away)",
        )
    if clock.abandon_after and policy == FORFEIT:
        raise _invalid(
            "abandon_after", "with TIMEOUT_POLICY_FORFEIT the first timeout ends the game"
        )
    if not 0 <= clock.time_bank_seconds <= MAX_BANK_SECONDS:
        raise _invalid(
            "time_bank_seconds",
            f"a time bank is 0 (none) to {MAX_BANK_SECONDS} seconds (a day)",
        )
    return StoredClock(
        seconds=clock.seconds_per_decision,
        on_timeout=policy,
        abandon_after=clock.abandon_after,
        bank_ms=clock.time_bank_seconds * 1000,
    )


def has_clock(game: LoadedGame) -> bool:
    return game.stored.HasField("clock") and game.stored.clock.seconds > 0


def policy(game: LoadedGame) -> int:
    return game.stored.clock.on_timeout or AUTO


def is_away(game: LoadedGame, seat: int) -> bool:
    away = game.stored.clock.away
    return seat < len(away) and away[seat]


def _sized(clock: StoredClock, seats: int) -> None:
    """Every per-seat list of the clock one entry per seat (a new game's are empty)."""
    if len(clock.deadline_ms) != seats:
        del clock.deadline_ms[:]
        clock.deadline_ms.extend([0] * seats)
    if len(clock.started_ms) != seats:
        del clock.started_ms[:]
        clock.started_ms.extend([0] * seats)
    if clock.abandon_after and len(clock.away) != seats:
        del clock.away[:], clock.consecutive_timeouts[:]
        clock.away.extend([False] * seats)
        clock.consecutive_timeouts.extend([0] * seats)
    if clock.bank_ms and len(clock.banks_ms) != seats:
        del clock.banks_ms[:]
        clock.banks_ms.extend([clock.bank_ms] * seats)


def _settle(clock: StoredClock, seat: int, now: int, by: By) -> None:
    """Account for the decision `seat` just ended: its bank pays for the time beyond
    seconds_per_decision, and a timeout counts towards being away, an own move clears it."""
    started = clock.started_ms[seat]
    if clock.bank_ms and started:
        beyond = now - started - clock.seconds * 1000
        if beyond > 0:
            clock.banks_ms[seat] = max(0, clock.banks_ms[seat] - beyond)
    if not clock.abandon_after:
        return
    if by == "seat":
        clock.consecutive_timeouts[seat] = 0
        clock.away[seat] = False
    elif by == "timeout":
        clock.consecutive_timeouts[seat] += 1
        if clock.consecutive_timeouts[seat] >= clock.abandon_after:
            clock.away[seat] = True


def refresh(game: LoadedGame, mover: int | None, now: int, by: By = "seat") -> None:
    """Set the deadlines after a write: a seat that must act keeps its deadline unless it just
    moved (a new decision) or had none (it just became active); the others have none. A seat's
    deadline is seconds_per_decision plus its remaining bank after its decision begins."""
    if not has_clock(game):
        return
    clock = game.stored.clock
    seats = game.state.seats
    _sized(clock, seats)
    if mover is not None:
        _settle(clock, mover, now, by)
    # The engine lists no seat once its game is over; a forfeit ends the game outside it.
    stopped = game.waiting or clock.HasField("forfeited_seat")
    active = () if stopped else game.engine.active_seats(game.state)
    # Read once, written only where they change: an access to a repeated field of the stored
    # message costs more than the decision around it, and most seats stay as they were. A
    # seat has a deadline exactly when its decision has a start.
    deadlines = items_of(clock.deadline_ms)
    for seat, deadline in enumerate(deadlines):
        if deadline and seat not in active:
            clock.deadline_ms[seat] = clock.started_ms[seat] = 0
    for seat in active:
        if seat == mover or not deadlines[seat]:
            clock.started_ms[seat] = now
            bank = clock.banks_ms[seat] if clock.bank_ms else 0
            clock.deadline_ms[seat] = now + clock.seconds * 1000 + bank
    if not active and clock.indexed_ms:
        clock.indexed_ms = 0  # no deadline: the next one is indexed whatever it is


def come_back(game: LoadedGame, seat: int, now: int) -> bool:
    """An away seat's credential acted: the seat is no longer away and, if it must act, its
    decision begins now. False (nothing changed) when the seat was not away."""
    if not is_away(game, seat):
        return False
    clock = game.stored.clock
    clock.away[seat] = False
    clock.consecutive_timeouts[seat] = 0
    if clock.deadline_ms[seat]:
        clock.deadline_ms[seat] = clock.started_ms[seat] = 0
    refresh(game, None, now)
    return True


def forfeit(game: LoadedGame, seat: int, deadline: int, now: int) -> None:
    """End the game by `seat`'s forfeit: its deadline passed under FORFEIT."""
    clock = game.stored.clock
    clock.forfeited_seat = seat
    clock.forfeit_deadline_ms = deadline
    clock.forfeit_fired_ms = now
    clock.timeouts += 1
    refresh(game, None, now)


def next_deadline(game: LoadedGame) -> int | None:
    if not has_clock(game):
        return None
    return min(filter(None, items_of(game.stored.clock.deadline_ms)), default=None)


def due_entry(game: LoadedGame, deadline: int) -> IndexEntry:
    """The game's entry in the due index at `deadline`, which its write will record as the
    one it gave (`StoredClock.indexed_ms`)."""
    game.stored.clock.indexed_ms = deadline
    bucket = keys.bucket_of(game.game_id, keys.DUE_BUCKETS)
    return IndexEntry(keys.due_index(bucket), deadline, game.game_id)


# The games whose due entry this process last saw refused (Redis failed or refused the
# `ZADD`): until one of theirs is written, their moves index their deadline whatever entry their
# writes last gave, as every move did before rule 4. Bounded: a game forgotten when full is
# indexed again once its deadline is half a decision past the entry its state names.
_refused: dict[str, None] = {}
MAX_REFUSED = 65_536


def entry_refused(game_id: str) -> None:
    _refused[game_id] = None
    if len(_refused) > MAX_REFUSED:
        del _refused[next(iter(_refused))]


def entry_written(game_id: str) -> None:
    if _refused:
        _refused.pop(game_id, None)


def move_entry(game: LoadedGame) -> IndexEntry | None:
    """The due-index entry a move's write sends: the game's next deadline, unless the entry
    the game's writes last gave is no later and less than half a decision earlier. Such an
    entry (or a sweep's put-back in its place) is a lower bound of every deadline the game can
    have until a sweep reaches it, when the sweep finds the game not yet due and indexes its
    next deadline again (docs/architecture.md, "Turn clocks", rule 4): most moves of a game
    played faster than its clock send none."""
    deadline = next_deadline(game)
    if deadline is None:
        return None
    clock = game.stored.clock
    indexed = clock.indexed_ms
    kept = indexed and indexed <= deadline < indexed + clock.seconds * 500
    if kept and game.game_id not in _refused:
        return None
    return due_entry(game, deadline)


def due_keys() -> list[str]:
    return [keys.due_index(b) for b in range(keys.DUE_BUCKETS)]


def due_seats(game: LoadedGame, now: int) -> list[int]:
    """The seats whose deadline has passed at `now`, earliest deadline first."""
    if not has_clock(game) or game.waiting or game.over:
        return []
    active = set(game.engine.active_seats(game.state))
    deadlines = game.stored.clock.deadline_ms
    due = [s for s, d in enumerate(deadlines) if d and d <= now and s in active]
    return sorted(due, key=lambda s: (deadlines[s], s))


def add_to_record(game: LoadedGame, record: GameRecord) -> None:
    """The clock's part of a finished game's record: the clock it was created with (in its
    setup) and the forfeit that ended it, if one did (a replay ends there too)."""
    if not has_clock(game):
        return
    clock = game.stored.clock
    setup = record.setup.clock
    setup.seconds_per_decision = clock.seconds
    setup.on_timeout = TimeoutPolicy.ValueType(clock.on_timeout)
    setup.abandon_after = clock.abandon_after
    setup.time_bank_seconds = int(clock.bank_ms // 1000)
    if clock.HasField("forfeited_seat"):
        record.forfeit.seat = clock.forfeited_seat
        record.forfeit.deadline.FromMilliseconds(clock.forfeit_deadline_ms)
