"""What the coordinator hands each client process (all picklable: --client-processes spawns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PhaseKind = Literal["baseline", "replay", "game_play"]


@dataclass(frozen=True)
class Phase:
    """One measured phase: calls start at `start` (wall clock, shared by all client processes);
    figures count the calls that end within [start + warmup, start + warmup + duration]."""

    name: str  # "baseline", "replay", "replay:<game>", "game_play", "game_play:<game>"
    kind: PhaseKind
    games: tuple[str, ...]  # empty for the baseline
    start: float
    warmup: float
    duration: float


@dataclass(frozen=True)
class Recorded:
    """A complete game played with the bots: how it was created and every move in order."""

    game: str
    create: bytes  # a serialized CreateGameRequest: options, seats, seed
    moves: tuple[tuple[int, bytes], ...]  # (seat, serialized Move)


@dataclass(frozen=True)
class Payload:
    """Serialized sizes the baseline's Echo calls carry (the measured ApplyMoves' means)."""

    request_bytes: int
    response_bytes: int


@dataclass(frozen=True)
class ClientSpec:
    target: str
    index: int
    concurrency: int
    channels: int
    seats: dict[str, int]
    seed: int
    timeout: float
    uvloop: bool
    cpus: frozenset[int] | None
    phases: tuple[Phase, ...]
    monitor: dict[str, int] = field(default_factory=dict)  # label -> pid (process 0 only)
    profile: str | None = None  # py-spy output, recorded during the first replay phase
    profile_pid: int | None = None
    recorded: dict[str, tuple[Recorded, ...]] = field(default_factory=dict)
    redis_url: str | None = None  # process 0 with --redis-stats: INFO around replay windows
    # Blocking stubs instead of grpc.aio (one call in flight: the latency mode).
    blocking: bool = False
    # Replayed games created with a turn clock of this many seconds per decision (0: none).
    clock_seconds: int = 0
