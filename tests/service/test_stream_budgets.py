"""Seats and spectators have budgets of their own, so that no crowd of spectators keeps a seat
from its stream: spectators per game and per client address, a seat's streams per seat, and
on the server the seats' and the spectators' bounds apart. A game may also let no spectator
in at all."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import pytest

from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.service.application import errors
from croupier.service.application.limits import StreamCount
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.game_service_pb2_grpc import GameServiceStub

TIMEOUT = 120.0
SPECTATOR_ATTEMPTS = 10_000


def _auth(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


def _reason(error: grpc.aio.AioRpcError) -> str:
    return CroupierError.from_rpc_error(error).reason


def test_spectators_and_seats_are_counted_apart() -> None:
    """A full spectator budget (per game, per address) refuses spectators only; a seat's own
    budget counts its streams, whoever else watches."""
    streams = StreamCount(spectators_per_game=2, spectators_per_address=3, streams_per_seat=2)
    kept = [streams.enter("g", None, "10.0.0.1"), streams.enter("g", None, "10.0.0.1")]
    with pytest.raises(errors.ServiceError) as per_game:
        streams.enter("g", None, "10.0.0.2")
    assert per_game.value.reason == errors.Reason.WATCHER_LIMIT
    kept.append(streams.enter("h", None, "10.0.0.1"))
    with pytest.raises(errors.ServiceError) as per_address:
        streams.enter("i", None, "10.0.0.1")
    assert per_address.value.reason == errors.Reason.ADDRESS_STREAM_LIMIT
    seat = [streams.enter("g", "cs_seat0", "10.0.0.1") for _ in range(2)]
    with pytest.raises(errors.ServiceError) as per_seat:
        streams.enter("g", "cs_seat0", "10.0.0.9")
    assert per_seat.value.reason == errors.Reason.SEAT_STREAM_LIMIT
    other_seat = streams.enter("g", "cs_seat1", "10.0.0.1")
    assert streams.count("g") == 5
    for stream in (*kept, *seat, other_seat):
        streams.leave(stream)
    assert streams.count("g") == streams.count("h") == 0
    streams.enter("i", None, "10.0.0.1")  # the address's spectators left: room again


def test_a_flood_of_spectators_from_one_address_never_keeps_a_seat_from_its_stream(
    store_url: str,
) -> None:
    """One address attempts 10,000 spectator streams on a public game (its name is all it
    needs) and holds every one it gets; then every seat opens its session and the game is
    played to the end. The spectators get their address's share and are refused beyond it
    with RESOURCE_EXHAUSTED, never a seat."""
    with LocalServer(store_url, extra_args=("--anonymous-rate-limit", "0")) as server:
        figures = asyncio.run(_flood(server.target))
    print(f"[streams] spectator flood: {figures}")
    assert figures["spectators_open"] == 50  # --max-streams-per-address's default
    assert figures["refused_address_limit"] + figures["spectators_open"] == SPECTATOR_ATTEMPTS
    assert figures["finished"] == 1


async def _flood(target: str) -> dict[str, int]:
    channels = [grpc.aio.insecure_channel(target) for _ in range(8)]
    try:
        stubs = [GameServiceStub(channel) for channel in channels]
        request = pb.CreateGameRequest(seats=4, seed=81)
        request.one_card.SetInParent()
        created = await stubs[0].CreateGame(request)
        figures = {"spectators_open": 0, "refused_address_limit": 0, "finished": 0}
        refusals: list[tuple[grpc.StatusCode, str]] = []
        held: list[grpc.aio.UnaryStreamCall] = []

        async def spectate(index: int) -> None:
            call = stubs[index % len(stubs)].WatchGame(pb.WatchGameRequest(name=created.name))
            try:
                await asyncio.wait_for(call.read(), TIMEOUT)
            except grpc.aio.AioRpcError as error:
                refusals.append((error.code(), _reason(error)))
                return
            figures["spectators_open"] += 1
            held.append(call)

        for start in range(0, SPECTATOR_ATTEMPTS, 1000):
            await asyncio.gather(*(spectate(i) for i in range(start, start + 1000)))
        assert set(refusals) <= {(grpc.StatusCode.RESOURCE_EXHAUSTED, "ADDRESS_STREAM_LIMIT")}
        figures["refused_address_limit"] = len(refusals)
        rng = random.Random(81)
        sessions = []
        for seat, credential in enumerate(created.seat_credentials):
            call = stubs[seat % len(stubs)].PlayGame(metadata=_auth(credential))
            await call.write(pb.PlayGameRequest(start=pb.PlayGameStart(name=created.name)))
            first = await asyncio.wait_for(call.read(), TIMEOUT)
            assert isinstance(first, pb.PlayGameResponse)
            sessions.append((call, first))

        async def play(call: grpc.aio.StreamStreamCall, message: pb.PlayGameResponse) -> None:
            while True:
                if message.HasField("update"):
                    view = message.update.view
                    if view.status == pb.GAME_STATUS_FINISHED:
                        await call.done_writing()
                    elif view.legal_moves:
                        move = rng.choice(list(view.legal_moves))
                        await call.write(
                            pb.PlayGameRequest(
                                move=pb.PlayGameMove(
                                    move=move, etag=view.etag, request_id=str(uuid.uuid4())
                                )
                            )
                        )
                read = await call.read()
                if read is grpc.aio.EOF:
                    assert await call.code() == grpc.StatusCode.OK
                    return
                assert isinstance(read, pb.PlayGameResponse)
                message = read

        await asyncio.wait_for(asyncio.gather(*(play(c, m) for c, m in sessions)), TIMEOUT)
        final = await stubs[0].GetGame(pb.GetGameRequest(name=created.name))
        figures["finished"] = int(final.view.status == pb.GAME_STATUS_FINISHED)
        for call in held:
            call.cancel()
        return figures
    finally:
        for channel in channels:
            await channel.close()


def test_a_game_without_spectators_lets_only_its_seats_in(store_url: str) -> None:
    """CreateGame with SPECTATORS_OFF: GetGame and WatchGame without a credential are refused
    PERMISSION_DENIED (SPECTATORS_OFF), a seat is served, and the rematch keeps the setting;
    an unknown value is INVALID_ARGUMENT."""

    async def run(target: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = GameServiceStub(channel)
            request = pb.CreateGameRequest(seats=2, seed=82, spectators=pb.SPECTATORS_OFF)
            request.one_card.SetInParent()
            created = await stub.CreateGame(request)
            for attempt in (
                stub.GetGame(pb.GetGameRequest(name=created.name)),
                _first(stub.WatchGame(pb.WatchGameRequest(name=created.name))),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await attempt
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert _reason(refused.value) == "SPECTATORS_OFF"
            seat = await stub.GetGame(
                pb.GetGameRequest(name=created.name), metadata=_auth(created.seat_credentials[0])
            )
            assert seat.view.viewer_seat == 0
            request.spectators = 7  # type: ignore[assignment]
            with pytest.raises(grpc.aio.AioRpcError) as invalid:
                await stub.CreateGame(request)
            assert _reason(invalid.value) == "INVALID_SPECTATORS"

    with LocalServer(store_url) as server:
        asyncio.run(run(server.target))


async def _first(call: grpc.aio.UnaryStreamCall) -> object:
    return await asyncio.wait_for(call.read(), TIMEOUT)
