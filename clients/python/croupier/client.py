"""A thin typed client of GameService: one method per RPC, errors as `CroupierError`.

with Croupier("localhost:50051") as croupier:
    game = croupier.create(VampireQueenOptions(), seats=5, seed=7)
    moves = croupier.legal_moves(game.name, game.seat_credentials[0])
    croupier.apply(game.name, game.seat_credentials[0], moves[0])
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
from google.protobuf.message import Message

from croupier.errors import CroupierError
from croupier.messages import game_of_options, wrap_move
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

# What gRPC itself retries, with exponential backoff (randomized, so that the calls refused
# together do not come back together): UNAVAILABLE only, the code of calls the server refused
# before doing anything (OVERLOADED), of a store it could not reach (STORE_UNAVAILABLE), and of
# a connection that failed. Where the server asks for a delay (grpc-retry-pushback-ms, sent with
# OVERLOADED beside its RetryInfo) gRPC waits that long instead. Nothing else is retried:
# RESOURCE_EXHAUSTED includes limits no retry lifts (SEAT_LIMIT); see docs/api.md. A call made
# twice is harmless: reads change nothing, and ApplyMove and JoinGame always carry a request id.
MAX_ATTEMPTS = 5  # gRPC's own ceiling


def service_config(max_attempts: int = MAX_ATTEMPTS) -> str:
    """The gRPC service config (JSON) of the channel: GameService's retry policy."""
    method: dict[str, object] = {"name": [{"service": "croupier.v1.GameService"}]}
    if max_attempts > 1:
        method["retryPolicy"] = {
            "maxAttempts": max_attempts,
            "initialBackoff": "0.1s",
            "maxBackoff": "2s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE"],
        }
    return json.dumps({"methodConfig": [method]})


def _metadata(credential: str | None) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")] if credential else []


class Croupier:
    """A synchronous client. `target` is `host:port`; `timeout` is each call's deadline."""

    def __init__(
        self,
        target: str,
        *,
        timeout: float | None = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        operator_key: str | None = None,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        """`credentials`: TLS channel credentials (e.g. grpc.ssl_channel_credentials(root));
        `operator_key`: sent with CreateGame to servers that restrict who creates games;
        `max_attempts`: tries of a call answered UNAVAILABLE (1: no retry), within `timeout`."""
        options = [("grpc.service_config", service_config(max_attempts))]
        self.channel = (
            grpc.secure_channel(target, credentials, options=options)
            if credentials
            else grpc.insecure_channel(target, options=options)
        )
        self._stub = GameServiceStub(self.channel)
        self.timeout = timeout
        self.operator_key = operator_key

    def _call(self, rpc: str, request: Message, credential: str | None) -> Any:
        try:
            return getattr(self._stub, rpc)(
                request, metadata=_metadata(credential), timeout=self.timeout
            )
        except grpc.RpcError as error:
            raise CroupierError.from_rpc_error(error) from None

    def create(
        self,
        options: Message,
        seats: int,
        *,
        display_names: Sequence[str] = (),
        seed: int | None = None,
        request_id: str = "",
        player_ids: Sequence[str] = (),
        open_seats: bool = False,
        public: bool = False,
        bot_levels: Sequence[str] = (),
        clock_seconds: int = 0,
        clock: pb.Clock | None = None,
    ) -> pb.CreateGameResponse:
        """`request_id`: a UUID (`str(uuid.uuid4())`), kept to retry with; a retry returns the
        first response, seat credentials included (docs/api.md). `player_ids`: your app's user
        ids, one per seat; `open_seats`: seats without a player id are left for JoinGame (the
        response's `join_code`); `public`: list the game in the lobby while seats are open;
        `bot_levels`: one per seat, `random` or `strong` for a seat the server plays itself, empty
        for a human seat (docs/api.md, "Bot seats"); `clock_seconds`: a turn clock of that many
        seconds per decision, after which the server's bot moves for the seat; `clock`: the
        whole clock instead (policy, abandon_after, time bank: docs/api.md, "Turn clocks")."""
        request = pb.CreateGameRequest(
            seats=seats,
            display_names=display_names,
            request_id=request_id,
            player_ids=player_ids,
            open_seats=open_seats,
            public=public,
            bot_levels=bot_levels,
        )
        getattr(request, game_of_options(options)).CopyFrom(options)
        if seed is not None:
            request.seed = seed
        if clock is not None:
            request.clock.CopyFrom(clock)
        elif clock_seconds:
            request.clock.seconds_per_decision = clock_seconds
        response: pb.CreateGameResponse = self._call("CreateGame", request, self.operator_key)
        return response

    def rematch(self, name: str, credential: str | None = None) -> pb.CreateGameResponse:
        """The rematch of the finished game `name` (made by the first call, the same one for
        every later call): each seat plays it with its credential of `name`. `credential`: a
        seat's of `name`; without one, the client's operator key."""
        response: pb.CreateGameResponse = self._call(
            "CreateGame",
            pb.CreateGameRequest(rematch_of=name),
            credential or self.operator_key,
        )
        return response

    def join(
        self,
        name: str,
        join_code: str,
        *,
        player_id: str = "",
        display_name: str = "",
        request_id: str = "",
    ) -> pb.JoinGameResponse:
        """Claim an open seat; the response holds its seat and secret credential. Always sent
        with a request id (a fresh UUID unless given), so the channel's retries, and a caller
        sending the same id again, claim one seat and get the same credential back."""
        request = pb.JoinGameRequest(
            name=name,
            join_code=join_code,
            player_id=player_id,
            display_name=display_name,
            request_id=request_id or str(uuid.uuid4()),
        )
        response: pb.JoinGameResponse = self._call("JoinGame", request, None)
        return response

    def leave(self, name: str, credential: str) -> pb.GameView:
        """Free the credential's seat (before the first move); the public view after it."""
        response: pb.LeaveGameResponse = self._call(
            "LeaveGame", pb.LeaveGameRequest(name=name), credential
        )
        return response.view

    def list_games(
        self, *, filter: str = "", page_size: int = 0, page_token: str = ""
    ) -> pb.ListGamesResponse:
        """One page of games, newest first: with the client's operator key every game, else
        the lobby (public games with open seats). `filter`, e.g. `status = waiting`."""
        response: pb.ListGamesResponse = self._call(
            "ListGames",
            pb.ListGamesRequest(filter=filter, page_size=page_size, page_token=page_token),
            self.operator_key,
        )
        return response

    def iter_games(self, *, filter: str = "", page_size: int = 0) -> Iterator[pb.GameSummary]:
        """Every game list_games finds, page after page."""
        token = ""
        while True:
            page = self.list_games(filter=filter, page_size=page_size, page_token=token)
            yield from page.games
            token = page.next_page_token
            if not token:
                return

    def reissue(self, name: str, seat: int) -> str:
        """A new credential for `seat` (needs the operator key); the old one is refused."""
        response: pb.ReissueCredentialResponse = self._call(
            "ReissueCredential",
            pb.ReissueCredentialRequest(name=name, seat=seat),
            self.operator_key,
        )
        return response.seat_credential

    def record(self, name: str, credential: str | None = None) -> pb.GameRecord:
        """The record of a finished game, to a seat's credential or the operator key."""
        response: pb.GetGameRecordResponse = self._call(
            "GetGameRecord",
            pb.GetGameRecordRequest(name=name),
            credential or self.operator_key,
        )
        return response.record

    def get(self, name: str, credential: str | None = None) -> pb.GameView:
        response: pb.GetGameResponse = self._call(
            "GetGame", pb.GetGameRequest(name=name), credential
        )
        return response.view

    def legal_moves(self, name: str, credential: str) -> list[pb.Move]:
        response: pb.ListLegalMovesResponse = self._call(
            "ListLegalMoves", pb.ListLegalMovesRequest(name=name), credential
        )
        return list(response.moves)

    def apply(
        self, name: str, credential: str, move: Message, *, etag: str = "", request_id: str = ""
    ) -> pb.ApplyMoveResponse:
        """Apply `move` (a `Move`, or a game's own move message) for the credential's seat.
        `request_id`: a UUID, the seat's own; a retry with it applies nothing twice."""
        request = pb.ApplyMoveRequest(
            # Never without a request id (a fresh one when none is given): a try whose answer
            # was lost may have been applied, and gRPC's retry of it must then get that first
            # response back rather than apply the move twice. Give one to retry it yourself.
            name=name,
            move=wrap_move(move),
            etag=etag,
            request_id=request_id or str(uuid.uuid4()),
        )
        response: pb.ApplyMoveResponse = self._call("ApplyMove", request, credential)
        return response

    def watch(
        self, name: str, credential: str | None = None, *, since_etag: str = ""
    ) -> Generator[pb.WatchGameResponse, None, None]:
        """The view now, then after every move, until the game ends (no deadline).

        `since_etag`: the etag of the last view received on an earlier stream; the stream then
        starts with every move made after it instead of the view now, so nothing is missed
        (the catch-up ends on the view now, turn clock included; with nothing missed that view
        is all it sends: docs/api.md, WatchGame).
        Resume that way after a CroupierError with reason WATCH_TOO_SLOW or UNAVAILABLE."""
        stream: Any = self._stub.WatchGame(
            pb.WatchGameRequest(name=name, since_etag=since_etag), metadata=_metadata(credential)
        )
        try:
            yield from stream
        except grpc.RpcError as error:
            raise CroupierError.from_rpc_error(error) from None
        finally:
            stream.cancel()

    def session(self, name: str, credential: str, *, since_etag: str = "") -> Session:
        """The seat's session of game `name` (PlayGame): one stream that brings the seat's view
        after every move of any seat, each with the seat's legal moves, and takes its moves.

        `since_etag`: the etag of the last view received on an earlier session or watch; the
        session then starts with every update made after it instead of the view now, as
        `watch` does, so nothing is missed. Errors of the stream (a game that does not exist, a
        refused credential) come from the first read or move."""
        return Session(self._stub, name, credential, since_etag=since_etag, timeout=self.timeout)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Croupier:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True)
class MoveResult:
    """An applied move of a session."""

    etag: str  # the game's etag after the move
    request_id: str
    # The update the move made, when it came with the move's outcome, as it usually does; None
    # when updates of other seats' moves were due first (it then follows among the session's
    # updates), or when the request id had been applied before. Either way the update is also
    # among the session's updates, in its place.
    update: pb.GameUpdate | None


class Session:
    """A seat's PlayGame session (Croupier.session): its updates in order, its moves answered.

    with croupier.session(game.name, credential) as session:
        for update in session:  # the view now, then the view and events after every move
            if update.view.legal_moves and not session.pending:
                session.move(update.view.legal_moves[0])

    A thread of the session reads the stream as it comes, so the server never waits for this
    seat however long the caller takes between reads (no WATCH_TOO_SLOW); the updates wait
    here, `pending` of them. Act on the newest (`pending` 0): an older update's legal moves may
    be refused now. Iteration ends after the update that finishes the game (or once the session
    is closed); a session that ends with an error raises it as a CroupierError after the updates
    that came before it. Moves and reads may come from different threads.
    """

    def __init__(
        self,
        stub: GameServiceStub,
        name: str,
        credential: str,
        *,
        since_etag: str = "",
        timeout: float | None = 10.0,
    ) -> None:
        """`timeout`: how long `move` waits for its outcome."""
        self.name = name
        self.timeout = timeout
        # The view of the last update read (None before the first one).
        self.view: pb.GameView | None = None
        self._changed = threading.Condition()
        self._updates: deque[pb.GameUpdate] = deque()
        # The moves sent and not yet answered, in the order sent, which is the order of their
        # outcomes: (request id, where its outcome goes).
        self._unanswered: deque[tuple[str, Future[MoveResult]]] = deque()
        self._ended = False
        self._error: CroupierError | None = None
        self._closing = False
        self._requests: deque[pb.PlayGameRequest | None] = deque(
            [pb.PlayGameRequest(start=pb.PlayGameStart(name=name, since_etag=since_etag))]
        )
        self._call: Any = stub.PlayGame(self._sent(), metadata=_metadata(credential))
        self._reader = threading.Thread(target=self._read, name=f"session {name}", daemon=True)
        self._reader.start()

    @property
    def pending(self) -> int:
        """Updates received and not yet read."""
        with self._changed:
            return len(self._updates)

    def next_update(self, timeout: float | None = None) -> pb.GameUpdate | None:
        """The next update (waiting up to `timeout` seconds, None: as long as it takes; then
        TimeoutError), or None once the session is over and every update has been read."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._updates or self._ended, timeout):
                raise TimeoutError(f"no update of {self.name} within {timeout} s")
            if not self._updates:
                if self._error is not None:
                    raise self._error
                return None
            update = self._updates.popleft()
        self.view = update.view
        return update

    def __iter__(self) -> Iterator[pb.GameUpdate]:
        while (update := self.next_update()) is not None:
            yield update

    def send(self, move: Message, *, etag: str = "", request_id: str = "") -> Future[MoveResult]:
        """Send `move` (a `Move`, or a game's own move message) without waiting: its outcome
        comes in the future, which raises CroupierError if the move is refused (as `apply`
        would have been: reason, rule id) or the session ends first. Always sent with a request
        id (a fresh UUID unless given): send it again with the same id, on this session or
        another, after an outcome that did not come, and it is applied once."""
        request_id = request_id or str(uuid.uuid4())
        outcome: Future[MoveResult] = Future()
        request = pb.PlayGameRequest(
            move=pb.PlayGameMove(move=wrap_move(move), etag=etag, request_id=request_id)
        )
        with self._changed:
            if self._ended or self._closing:
                outcome.set_exception(self._error or _ended_before(request_id))
                return outcome
            # Queued together, so that outcomes (which come in the order the moves were sent)
            # meet their moves whatever the threads that send.
            self._unanswered.append((request_id, outcome))
            self._requests.append(request)
            self._changed.notify_all()
        return outcome

    def move(self, move: Message, *, etag: str = "", request_id: str = "") -> MoveResult:
        """Send `move` and wait for its outcome (at most the session's `timeout`): the move
        applied, or a CroupierError as `apply` raises it (ILLEGAL_MOVE with the rule id,
        ETAG_MISMATCH with `etag`, ...). DEADLINE_EXCEEDED when no outcome came in time: the
        move may still be applied; send it again with its `request_id` to learn."""
        request_id = request_id or str(uuid.uuid4())
        outcome = self.send(move, etag=etag, request_id=request_id)
        try:
            return outcome.result(self.timeout)
        except TimeoutError:
            raise CroupierError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                "DEADLINE_EXCEEDED",
                f"no outcome of move {request_id} within {self.timeout} s",
            ) from None

    def close(self) -> None:
        """End the session: the server answers the moves already sent, then the stream ends
        (cancelled if that takes longer than `timeout`). Updates not yet read are dropped."""
        with self._changed:
            self._closing = True
            self._requests.append(None)  # closes this side of the stream
            self._changed.notify_all()
        if threading.current_thread() is not self._reader:
            self._reader.join(self.timeout)
        self._call.cancel()
        with self._changed:
            self._updates.clear()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _sent(self) -> Iterator[pb.PlayGameRequest]:
        """The client's side of the stream, which gRPC reads from a thread of its own."""
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._requests)
                request = self._requests.popleft()
            if request is None:
                return
            yield request

    def _read(self) -> None:
        error: CroupierError | None = None
        try:
            for response in self._call:
                if response.HasField("update"):
                    # Before the outcome is answered: a caller back from `move` finds the
                    # update its move made among the pending ones.
                    with self._changed:
                        self._updates.append(response.update)
                        self._changed.notify_all()
                if response.HasField("outcome"):
                    update = response.update if response.HasField("update") else None
                    self._answer(response.outcome, update)
        except grpc.RpcError as rpc_error:
            if not (self._closing and rpc_error.code() == grpc.StatusCode.CANCELLED):
                error = CroupierError.from_rpc_error(rpc_error)
        except CroupierError as broken:  # an outcome that answers no move sent
            error = broken
            self._call.cancel()
        with self._changed:
            self._ended = True
            self._error = error
            unanswered = list(self._unanswered)
            self._unanswered.clear()
            self._requests.append(None)  # ends gRPC's reading of `_sent`, if still reading
            self._changed.notify_all()
        for request_id, outcome in unanswered:
            outcome.set_exception(error or _ended_before(request_id))

    def _answer(self, answer: pb.MoveOutcome, update: pb.GameUpdate | None) -> None:
        with self._changed:
            request_id, outcome = self._unanswered[0] if self._unanswered else ("", None)
            if outcome is None or answer.request_id != request_id:
                raise CroupierError(
                    grpc.StatusCode.INTERNAL,
                    "INTERNAL",
                    f"the session answered move {answer.request_id!r}, not {request_id!r}",
                )
            self._unanswered.popleft()
        if answer.status.code:
            outcome.set_exception(CroupierError.from_status(answer.status))
        else:
            outcome.set_result(MoveResult(answer.etag, answer.request_id, update))


def _ended_before(request_id: str) -> CroupierError:
    return CroupierError(
        grpc.StatusCode.CANCELLED,
        "CANCELLED",
        f"the session ended before the outcome of move {request_id}",
    )
