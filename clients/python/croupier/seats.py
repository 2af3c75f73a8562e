"""How `croupier-play` reaches the seats it plays, all of one game and all from this process:
through a PlayGame session per seat (`SessionSeats`, the default), or through one unary call
per step (`CallSeats`: ListLegalMoves, ApplyMove, GetGame), as a client without streams would.
Both give the same lists of legal moves in the same order and the same events, so a seeded bot
plays the same game through either.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Protocol

from croupier.client import Croupier, Session
from croupier.errors import CroupierError
from croupier.v1 import game_service_pb2 as pb

# How long a seat's session may take to bring an update that is known to be on its way (the
# server sends every seat's update of a move at once): beyond it something is broken, and
# waiting on would hang croupier-play for good.
UPDATE_TIMEOUT = 60.0


class Seats(Protocol):
    def legal_moves(self, seat: int, move_count: int) -> list[pb.Move]:
        """The seat's legal moves once `move_count` moves are applied (none since)."""
        ...

    def move(self, seat: int, move: pb.Move) -> pb.GameUpdate:
        """Apply the seat's move; the view after it and its events as the seat sees them."""
        ...

    def public_view(self, etag: str) -> pb.GameView:
        """The spectators' view at `etag`, the game's etag now (no move since)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Seats: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class SessionSeats:
    """A session per seat, opened at once (each seat's updates wait in its session until the
    seat is played), and a spectator's WatchGame stream, opened at the first public view."""

    def __init__(self, croupier: Croupier, name: str, credentials: Sequence[str]) -> None:
        self._croupier = croupier
        self._name = name
        self.sessions = [croupier.session(name, credential) for credential in credentials]
        self._spectator: Iterator[pb.WatchGameResponse] | None = None
        self._public: pb.GameView | None = None

    def __getitem__(self, seat: int) -> Session:
        return self.sessions[seat]

    def legal_moves(self, seat: int, move_count: int) -> list[pb.Move]:
        return list(caught_up(self.sessions[seat], move_count).legal_moves)

    def move(self, seat: int, move: pb.Move) -> pb.GameUpdate:
        session = self.sessions[seat]
        moved = session.move(move)
        if moved.update is not None:
            return moved.update
        # Other updates were due first: the move's follows them.
        while (update := session.next_update(UPDATE_TIMEOUT)) is not None:
            if update.view.etag == moved.etag:
                return update
        raise RuntimeError(f"{self._name}: seat {seat}'s session ended before its move's update")

    def public_view(self, etag: str) -> pb.GameView:
        if self._spectator is None:
            self._spectator = self._croupier.watch(self._name)
        while self._public is None or self._public.etag != etag:
            message = next(self._spectator, None)
            if message is None:
                raise RuntimeError(f"{self._name}: the spectators' stream ended before {etag}")
            self._public = message.view
        return self._public

    def close(self) -> None:
        for session in self.sessions:
            session.close()
        if self._spectator is not None:
            close = getattr(self._spectator, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> SessionSeats:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def caught_up(session: Session, move_count: int) -> pb.GameView:
    """The session's view once it has read the updates up to `move_count` moves (the newest
    that has come, if it is further)."""
    while session.view is None or session.view.move_count < move_count or session.pending:
        if session.next_update(UPDATE_TIMEOUT) is None:
            break
    if session.view is None or session.view.move_count < move_count:
        raise RuntimeError(f"{session.name}: the session ended before move {move_count}")
    return session.view


class CallSeats:
    """One unary call per step, with each seat's credential."""

    def __init__(self, croupier: Croupier, name: str, credentials: Sequence[str]) -> None:
        self._croupier = croupier
        self._name = name
        self._credentials = list(credentials)

    def legal_moves(self, seat: int, move_count: int) -> list[pb.Move]:
        return self._croupier.legal_moves(self._name, self._credentials[seat])

    def move(self, seat: int, move: pb.Move) -> pb.GameUpdate:
        response = self._croupier.apply(self._name, self._credentials[seat], move)
        return pb.GameUpdate(view=response.view, events=response.events)

    def public_view(self, etag: str) -> pb.GameView:
        """Read without a credential, so the server counts it against the address's limit
        (--anonymous-rate-limit, 100/s by default), which bots playing at full speed pass: a
        refused read waits a little and is made again."""
        for _ in range(50):
            try:
                return self._croupier.get(self._name)
            except CroupierError as error:
                if error.reason != "RATE_LIMITED":
                    raise
                time.sleep(0.05)
        return self._croupier.get(self._name)

    def close(self) -> None:
        pass

    def __enter__(self) -> CallSeats:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
