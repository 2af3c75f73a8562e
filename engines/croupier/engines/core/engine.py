"""The interface every game engine implements, after OpenSpiel's `State` and boardgame.io's
game declaration, with python-chess's single legality check.

An engine is stateless: the game state is the game's `<Game>State` protobuf message, which the
engine reads and, in `apply`, changes in place after validating. The same seed, options and
move sequence always give a byte-identical state (C-2).

Conventions every game's messages follow (so that the service stays generic):
- `<Game>State` has `options` (field 1), `rng` (field 2, `RngState`) and `seats` (field 3).
- `<Game>Move` and `<Game>Event` carry their variants in a oneof named `kind`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from google.protobuf.message import Message

from croupier.engines.core.errors import InvalidOptions
from croupier.v1.common_pb2 import GameResult

OptionsT = TypeVar("OptionsT", bound=Message)  # options
StateT = TypeVar("StateT", bound=Message)  # state
ViewT = TypeVar("ViewT", bound=Message)  # view
MoveT = TypeVar("MoveT", bound=Message)  # move
EventT = TypeVar("EventT", bound=Message)  # event


# The `private` of an event every audience sees alike: shared, so it must not change.
NO_PRIVATE: Mapping[int, Any] = MappingProxyType({})


class Emitted(NamedTuple, Generic[EventT]):
    """One event and who sees which version of it (C-4).

    Seats named in `private` see their own version; every other seat and every spectator sees
    `public` (nothing when it is None). Build both versions positively from what each audience
    may know; never by deleting fields from the full event.

    (A named tuple: immutable, as a frozen dataclass is, and made in a third of the time; every
    move makes a few.)
    """

    public: EventT | None
    private: Mapping[int, EventT] = NO_PRIVATE

    def for_seat(self, seat: int | None) -> EventT | None:
        if seat is not None:
            own = self.private.get(seat)
            if own is not None:
                return own
        return self.public


@dataclass(frozen=True, slots=True)
class Setup(Generic[OptionsT]):
    """What a game was created from: enough, with the move log, to replay it."""

    options: OptionsT
    seats: int
    seed: int


class Engine(ABC, Generic[OptionsT, StateT, ViewT, MoveT, EventT]):
    """One game's rules. Subclasses set the class attributes and implement the methods."""

    game_type: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    # Every seat wins or loses together (C-7): what a forfeit means for the others.
    cooperative: ClassVar[bool] = False
    options_type: type[OptionsT]
    state_type: type[StateT]
    view_type: type[ViewT]
    move_type: type[MoveT]
    event_type: type[EventT]

    @abstractmethod
    def new_game(
        self, options: OptionsT, seats: int, seed: int
    ) -> tuple[StateT, list[Emitted[EventT]]]:
        """Set up a game (shuffle, deal, automatic setup steps); raise InvalidOptions for
        options or a seat count the game does not accept."""

    @abstractmethod
    def active_seats(self, state: StateT) -> list[int]:
        """The seats that may act now, in seat order, out-of-turn moves included; empty once
        the game is over."""

    @abstractmethod
    def legal_moves(self, state: StateT, seat: int) -> list[MoveT]:
        """Every move `seat` may make now (validated by the same check `apply` uses)."""

    @abstractmethod
    def apply(self, state: StateT, seat: int, move: MoveT) -> list[Emitted[EventT]]:
        """Validate `move` for `seat` (raising MalformedMove or IllegalMove before anything
        changes), then change `state` in place, run the automatic steps that follow (C-6), and
        return the events in order."""

    # The fields of the view (numbers, ascending) that differ from one audience to another. An
    # engine that names them builds every view from `shared_view`, alike for every audience, and
    # `own_view`, the audience's own fields; a watch update for each seat then builds and serializes
    # only the seat's own part (service/croupier/service/application/games.py, SharedView). Empty:
    # each audience's view is built whole by `view`.
    own_view_fields: ClassVar[tuple[int, ...]] = ()

    @abstractmethod
    def view(self, state: StateT, seat: int | None) -> ViewT:
        """What `seat` may see (C-4), built from that alone; `None` is a spectator. With
        `own_view_fields`, exactly `shared_view` with `own_view` merged in."""

    def shared_view(self, state: StateT) -> ViewT:
        """The view without any of `own_view_fields`: what every audience sees alike."""
        raise NotImplementedError(f"{self.game_type} names no own_view_fields")

    def own_view(self, state: StateT, seat: int | None) -> tuple[bytes, ...]:
        """For each of `own_view_fields`, its encoding in the view of `seat` (b"": empty)."""
        raise NotImplementedError(f"{self.game_type} names no own_view_fields")

    def timeout_move(self, state: StateT, seat: int) -> MoveT | None:
        """The move the game's rules make of `seat`'s turn clock running out now, one of its
        legal moves (Pig Mau Mau's bet decision: the decline); None where the rules say nothing
        of a timeout, so the clock's policy decides (docs/api.md, "Turn clocks")."""
        return None

    @abstractmethod
    def result(self, state: StateT) -> GameResult | None:
        """The final result once the game is over, else None."""

    def check_seats(self, seats: int) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions(
                "seats",
                f"{self.title} is played by {self.min_seats} to {self.max_seats} players,"
                f" not {seats}",
            )

    def setup_of(self, state: StateT) -> Setup[OptionsT]:
        s: Any = state
        return Setup(options=s.options, seats=s.seats, seed=s.rng.seed)

    def replay(self, setup: Setup[OptionsT], log: Iterable[tuple[int, MoveT]]) -> StateT:
        """The state reached from `setup` by applying the logged (seat, move) pairs."""
        state, _ = self.new_game(setup.options, setup.seats, setup.seed)
        for seat, move in log:
            self.apply(state, seat, move)
        return state

    @staticmethod
    def move_kind(move: Message) -> str:
        """The name of the move's variant, for logs and transcripts."""
        return move.WhichOneof("kind") or ""
