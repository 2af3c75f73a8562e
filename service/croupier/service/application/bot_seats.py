"""Bot seats played in the background: one task per game while one of its bot (or away) seats may
act, each move written like any move (service/croupier/service/application/bots.py chooses them)."""

from __future__ import annotations

import asyncio

import structlog

from croupier.engines.core.bots import MAX_MOVES as MAX_BOT_MOVES
from croupier.service.application import bots, errors, moves
from croupier.service.application.games import LoadedGame
from croupier.service.application.writes import GameWrites
from croupier.service.observability import metrics
from croupier.service.store.protocol import Snapshot, StoreUnavailable

log = structlog.get_logger(__name__)


class BotSeats:
    def __init__(self, writes: GameWrites) -> None:
        self._writes = writes
        self._store = writes.store
        self._settings = writes.settings
        self._states = writes.states
        # The bot seats this process is playing now, one task per game.
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def start_bots(self, game: LoadedGame) -> None:
        """Play the game's bot seats in the background when one of them may act now."""
        if bots.bot_due(game):
            self.start_bots_of(game.game_id)

    def start_bots_of(self, game_id: str) -> None:
        if game_id in self.tasks:
            return
        task = asyncio.get_running_loop().create_task(self._play_bots(game_id))
        self.tasks[game_id] = task
        task.add_done_callback(lambda _: self.tasks.pop(game_id, None))

    async def _play_bots(self, game_id: str) -> None:
        """Play the game's bot seats while one may act: each move decided from the seat's
        view, written with the version's compare-and-set like any move (a human's move, or
        another replica's bot move, that lands first makes this one decide again)."""
        try:
            snapshot = self._states.get(game_id) or await self._writes.read(game_id)
            for _ in range(MAX_BOT_MOVES):
                game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
                chosen = bots.next_bot_move(game)
                if chosen is None:
                    return
                emitted = game.engine.apply(game.state, chosen.seat, chosen.move)
                move = game.wrap_move(chosen.move)
                _, commit = moves.move_commit(
                    self._settings,
                    game,
                    chosen.seat,
                    move,
                    emitted,
                    None,
                    b"",
                    0,
                    by="service",
                    notifications=self._writes.watched_here(game_id),
                )
                result = await self._writes.commit(commit)
                if result.written:
                    metrics.BOT_MOVES.labels(chosen.level).inc()
                    snapshot = Snapshot(commit.expected_version + 1, commit.data, None)
                    self._states.put(game_id, snapshot.version, snapshot.data)
                    continue
                if result.current is None:
                    self._states.forget(game_id)
                    return
                snapshot = result.current
                self._states.put(game_id, snapshot.version, snapshot.data)
        except (StoreUnavailable, errors.ServiceError) as exc:
            # Nothing half-written: the next read of the game (GetGame, a watch stream's poll)
            # by any replica starts the bots again.
            log.warning("bot_moves_stopped", game=game_id, error=str(exc))
        except Exception:
            log.exception("bot_moves_failed", game=game_id)
