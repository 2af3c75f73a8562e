"""What a PlayGame session adds to a watch stream: its client's messages, read one at a time
into the stream's queue (so that one loop sends every message of the stream, in order), and the
framing of what it sends: updates, and the outcome of each move.

Every server message is a PlayGameResponse, serialized here from parts: an update is the same
bytes as a WatchGameResponse (GameUpdate has its fields), which every stream of a seat shares
(games.Published.update_for), so a session only puts a field's tag and length before them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from croupier.service.application import errors
from croupier.service.application.games import field_bytes, tag_bytes
from croupier.service.store.fanout import Inbound, WatchQueue
from croupier.service.transport.calls import Undecodable
from croupier.v1 import game_service_pb2 as pb

_OUTCOME_TAG = tag_bytes(pb.PlayGameResponse.OUTCOME_FIELD_NUMBER, 2)
_UPDATE_TAG = tag_bytes(pb.PlayGameResponse.UPDATE_FIELD_NUMBER, 2)

Request = pb.PlayGameRequest | Undecodable


def update_message(update: pb.WatchGameResponse | bytes) -> bytes:
    """The session message of an update (a WatchGameResponse, or its bytes)."""
    if not isinstance(update, bytes):
        update = update.SerializeToString()
    return field_bytes(_UPDATE_TAG, update)


def outcome_message(outcome: pb.MoveOutcome, update: bytes | None = None) -> bytes:
    """The session message of a move's outcome, with the update the move made (its bytes as a
    WatchGameResponse) when it goes with it."""
    answer = field_bytes(_OUTCOME_TAG, outcome.SerializeToString())
    return answer if update is None else answer + field_bytes(_UPDATE_TAG, update)


async def first_message(requests: AsyncIterator[Request]) -> pb.PlayGameStart | None:
    """The session's `start` (None: the client closed without sending one)."""
    async for request in requests:
        if isinstance(request, Undecodable):
            raise errors.malformed_request(request.type_name, request.problem)
        if request.WhichOneof("kind") != "start":
            raise errors.invalid_argument(
                errors.Reason.INVALID_SESSION_MESSAGE,
                "start",
                "a session's first message is `start`, naming the game",
            )
        return request.start
    return None


def move_of(request: object) -> pb.PlayGameMove:
    """A later message of the session, which must be a move (else the session ends with
    INVALID_ARGUMENT: a client that sends garbage or a second `start` is broken, and no outcome
    could name the move it meant)."""
    if isinstance(request, Undecodable):
        raise errors.malformed_request(request.type_name, request.problem)
    assert isinstance(request, pb.PlayGameRequest)
    if request.WhichOneof("kind") != "move":
        raise errors.invalid_argument(
            errors.Reason.INVALID_SESSION_MESSAGE,
            "move",
            "after `start`, every message of a session is a move",
        )
    return request.move


class Reader:
    """Reads the client's messages into the stream's queue, the next one only once the stream
    has handled the last (the client's moves wait in HTTP/2's flow control, not in memory)."""

    def __init__(self, requests: AsyncIterator[Request]) -> None:
        self._requests = requests
        self._task: asyncio.Task[None] | None = None

    def start(self, queue: WatchQueue) -> None:
        self._task = asyncio.create_task(self._read(queue))

    async def _read(self, queue: WatchQueue) -> None:
        try:
            async for request in self._requests:
                inbound = Inbound(request)
                queue.put_inbound(inbound)
                await inbound.handled.wait()
        except asyncio.CancelledError:
            raise
        except Exception:
            # The call ended under the read (the client went away, the server is stopping):
            # nothing more comes, which the stream learns below, as from a closed side.
            pass
        queue.put_inbound(Inbound(None))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
