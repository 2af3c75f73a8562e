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
from collections.abc import Callable, Generator, Iterator, Sequence
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


# How long a unary port learned from the server has to connect and answer before the client
# keeps to the gRPC port: a port the client cannot reach (a firewall, a mapped port) must not
# hold up its first call for long. A server on a network that works answers in milliseconds.
CONNECT_TIMEOUT = 2.0


def _metadata(credential: str | None) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")] if credential else []


def host_of(target: str) -> str | None:
    """The host of a `host:port` target (`[::1]` kept in brackets; a `dns:///` prefix
    allowed), or None for any other form of target (`unix:`, `ipv4:` lists, ...)."""
    address = target.removeprefix("dns:///")
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit():
        return None
    if host.startswith("["):
        return host if host.endswith("]") else None
    return None if ":" in host or "/" in host else host


def _answers(channel: grpc.Channel, unary_port: int) -> bool:
    """Whether the server's unary port answers on `channel`: a connection within
    CONNECT_TIMEOUT (no waiting once a try fails), where GetServerInfo names the same port (not
    some other server that happens to listen there)."""
    if not _connects(channel):
        return False
    try:
        info = GameServiceStub(channel).GetServerInfo(
            pb.GetServerInfoRequest(), timeout=CONNECT_TIMEOUT
        )
    except grpc.RpcError:
        return False
    return bool(info.unary_port == unary_port)


def _connects(channel: grpc.Channel) -> bool:
    """Whether `channel` connects within CONNECT_TIMEOUT; False as soon as a try fails."""
    settled = threading.Event()
    states: list[grpc.ChannelConnectivity] = []

    def seen(state: grpc.ChannelConnectivity) -> None:
        states.append(state)
        if state in (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE):
            settled.set()

    channel.subscribe(seen, try_to_connect=True)
    try:
        settled.wait(CONNECT_TIMEOUT)
    finally:
        channel.unsubscribe(seen)
    return grpc.ChannelConnectivity.READY in states


# Failures of GetServerInfo after which a client asks again at its next call.
_ASK_AGAIN = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # calls without a credential over their rate
)


class _Route:
    """Where the calls but WatchGame go: to the unary target given; else, when learning, to the
    unary port the server names in GetServerInfo (asked once, before the first call, on the
    gRPC port) if it answers there within CONNECT_TIMEOUT; else to the gRPC port.
    A learned port that later refuses connections is given up for the client's life and the
    call sent again on the gRPC port (every call is safe to send twice: docs/api.md)."""

    def __init__(
        self,
        channel: grpc.Channel,
        target: str,
        connect: Callable[[str], grpc.Channel],
        unary_target: str | None,
        learn: bool,
        timeout: float | None,
    ) -> None:
        self.main = GameServiceStub(channel)
        self.unary_target = unary_target
        self.channels: list[grpc.Channel] = []  # closed with the client
        self.stub = self.main
        if unary_target:
            self.channels.append(connect(unary_target))
            self.stub = GameServiceStub(self.channels[0])
        self._target = target.removeprefix("dns:///")
        self._host = host_of(target) if learn and not unary_target else None
        self._connect = connect
        self._timeout = timeout
        self._learned: GameServiceStub | None = None
        self._lock = threading.Lock()

    def current(self) -> GameServiceStub:
        if self._host is not None:
            with self._lock:
                if self._host is not None:
                    self._learn(self._host)
        return self.stub

    def _learn(self, host: str) -> None:
        try:
            info = self.main.GetServerInfo(pb.GetServerInfoRequest(), timeout=self._timeout)
        except grpc.RpcError as error:
            if error.code() in _ASK_AGAIN:
                return  # the server is not there yet, or is busy: ask again at the next call
            self._host = None  # e.g. a server without GetServerInfo: the gRPC port it is
            return
        self._host = None
        address = f"{host}:{info.unary_port}"
        if not info.unary_port or address == self._target:  # none, or `target` is that port
            return
        channel = self._connect(address)
        if not _answers(channel, info.unary_port):
            channel.close()
            return
        self.channels.append(channel)
        self.stub = self._learned = GameServiceStub(channel)
        self.unary_target = address

    def gave_up(self, stub: GameServiceStub, error: CroupierError) -> bool:
        """Whether `error`, from a call through `stub`, was the learned port out of reach (a
        connection refused or lost); if so the route keeps to the gRPC port from now on."""
        unreachable = error.code == grpc.StatusCode.UNAVAILABLE and error.reason == "UNAVAILABLE"
        if stub is not self._learned or not unreachable:
            return False
        with self._lock:
            # Its channel stays open until the client closes: calls of other threads may
            # still be on it.
            self.stub, self._learned, self.unary_target = self.main, None, None
        return True


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
        unary_target: str | None = None,
        learn_unary_port: bool = True,
    ) -> None:
        """`credentials`: TLS channel credentials (e.g. grpc.ssl_channel_credentials(root));
        `operator_key`: sent with CreateGame to servers that restrict who creates games;
        `max_attempts`: tries of a call answered UNAVAILABLE (1: no retry), within `timeout`;
        `unary_target`: the server's unary port (`croupier-server --unary-port`, docs/api.md):
        every call but `watch` goes there, `watch` to `target`. Without it the client asks the
        server for its unary port before its first call and uses it if it can connect to it
        (on the host of `target`), unless `learn_unary_port` is False."""
        options = [("grpc.service_config", service_config(max_attempts))]

        def connect(address: str) -> grpc.Channel:
            if credentials:
                return grpc.secure_channel(address, credentials, options=options)
            return grpc.insecure_channel(address, options=options)

        self.channel = connect(target)
        self._route = _Route(self.channel, target, connect, unary_target, learn_unary_port, timeout)
        self.timeout = timeout
        self.operator_key = operator_key

    @property
    def unary_target(self) -> str | None:
        """Where the calls but `watch` go when not to `target`: the unary target given, or
        the unary port learned from the server (known after the first call)."""
        return self._route.unary_target

    def learn_unary_port(self) -> str | None:
        """Learn the unary port now rather than at the first call (when learning, and not yet
        done); `unary_target` after it."""
        self._route.current()
        return self.unary_target

    def server_info(self) -> pb.GetServerInfoResponse:
        """What the server tells its clients of itself (its unary port), asked on `target`."""
        response: pb.GetServerInfoResponse = self._call(
            "GetServerInfo", pb.GetServerInfoRequest(), None, self._route.main
        )
        return response

    def _call(
        self,
        rpc: str,
        request: Message,
        credential: str | None,
        stub: GameServiceStub | None = None,
    ) -> Any:
        stub = stub or self._route.current()
        try:
            return getattr(stub, rpc)(request, metadata=_metadata(credential), timeout=self.timeout)
        except grpc.RpcError as rpc_error:
            error = CroupierError.from_rpc_error(rpc_error)
        if self._route.gave_up(stub, error):
            return self._call(rpc, request, credential)
        raise error

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
        (its last message is the view now, turn clock included: docs/api.md, WatchGame).
        Resume that way after a CroupierError with reason WATCH_TOO_SLOW or UNAVAILABLE."""
        stream: Any = self._route.main.WatchGame(
            pb.WatchGameRequest(name=name, since_etag=since_etag), metadata=_metadata(credential)
        )
        try:
            yield from stream
        except grpc.RpcError as error:
            raise CroupierError.from_rpc_error(error) from None
        finally:
            stream.cancel()

    def close(self) -> None:
        self.channel.close()
        for channel in self._route.channels:
            channel.close()

    def __enter__(self) -> Croupier:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
