"""A watch stream's first read (service/croupier/service/application/writes.py,
`GameWrites.load_shared`): the streams that open on the same version of a game get one decoded game
between them, a newer version is decoded anew, and a game no stream holds any more is not kept. The
in-memory store (a real Store)."""

from __future__ import annotations

import asyncio
import gc
import weakref

from croupier.engines.registry import GAMES
from croupier.play import options_for
from croupier.service.application.callers import CallLog
from croupier.service.application.config import Settings
from croupier.service.application.games import pack_state
from croupier.service.application.recent_states import RecentStates
from croupier.service.application.writes import GameWrites
from croupier.service.store.memory_store import MemoryStore
from croupier.service.store.protocol import Update
from croupier.v1.storage_pb2 import StoredGame

GAME = "0123456789abcdef01234567"


def stored_game(seed: int) -> bytes:
    state, _ = GAMES["vampire_queen"].new_game(options_for("vampire_queen"), 12, seed)
    stored = StoredGame(game_type="vampire_queen", display_names=[f"p{n}" for n in range(12)])
    pack_state(stored, state)
    return stored.SerializeToString()


def test_streams_on_one_version_share_one_decoded_game() -> None:
    async def main() -> None:
        store = MemoryStore()
        writes = GameWrites(store, Settings(), RecentStates(8))
        await store.create(GAME, stored_game(1), 60)
        first = await writes.load_shared(GAME, CallLog("WatchGame"))
        call = CallLog("WatchGame")
        second = await writes.load_shared(GAME, call)
        assert second is first and first.version == 1
        assert call.game_type == "vampire_queen"  # the call's log line, as a decoded one's

        written = await store.update(Update(GAME, 1, stored_game(2), b"", 60))
        assert written.written
        newer = await writes.load_shared(GAME, CallLog("WatchGame"))
        assert newer is not first and newer.version == 2
        assert first.version == 1  # what the first streams hold stays as it was
        assert newer.stored.SerializeToString() == stored_game(2)
        assert first.stored.SerializeToString() == stored_game(1)

        # Held by no stream, a game is let go of: the next stream decodes its version again.
        kept = weakref.ref(newer)
        del first, second, newer
        gc.collect()
        assert kept() is None
        again = await writes.load_shared(GAME, CallLog("WatchGame"))
        assert again.version == 2

    asyncio.run(main())
