"""The turn clocks' sweep (docs/architecture.md, "Turn clocks"): every replica reads the due index,
and for each deadline that has passed plays the seat's move (AUTO, or a bot seat whose replica is
gone; the move its game's rules make of a timeout, where they name one) or ends the game by its
forfeit (FORFEIT), with the version's compare-and-set. An away seat's coming back is a write of
ApplyMove's (service/croupier/service/application/moves.py); the clock's rules on one game are in
service/croupier/service/application/clocks.py."""

from __future__ import annotations

import asyncio
from typing import Any

import structlog

from croupier.engines.core.bots import bot_for, decision_rng
from croupier.service.application import bots, clocks, errors, moves
from croupier.service.application.bot_seats import BotSeats
from croupier.service.application.games import LoadedGame, player_ids
from croupier.service.application.writes import GameWrites
from croupier.service.observability import metrics
from croupier.service.store.protocol import IndexEntry, Snapshot, StoreUnavailable
from croupier.v1 import game_service_pb2 as pb

log = structlog.get_logger(__name__)


class ClockSweep:
    def __init__(self, writes: GameWrites, bot_seats: BotSeats) -> None:
        self._writes = writes
        self._bots = bot_seats
        self._store = writes.store
        self._settings = writes.settings
        self._states = writes.states

    async def run_clocks(self) -> None:
        """Every replica's sweep of the due index: each deadline that has passed is checked
        against its game and acted on with the version's compare-and-set (exactly one replica's
        write is made). Runs until cancelled."""
        tick = self._settings.clock_tick_seconds
        while True:
            try:
                await self.sweep_clocks()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.warning("clock_sweep_failed", error=str(exc))
            except Exception:
                log.exception("clock_sweep_failed")
            await asyncio.sleep(tick)

    async def sweep_clocks(self) -> int:
        """One sweep: act on every deadline of the due index that has passed by now (tests
        with an injectable clock call it between their moves). Returns the entries found."""
        entries = await self._store.index_page(clocks.due_keys(), (clocks.now_ms(), "g"), 256)
        if entries:
            await asyncio.gather(*(self._fire(e) for e in entries))
        return len(entries)

    async def _fire(self, entry: IndexEntry) -> None:
        """Act for the seats of one game whose deadlines have passed, each with the version's
        compare-and-set. The entry is removed first, the game read after, and the game's next
        deadline indexed again whatever is found (docs/architecture.md, "Turn clocks")."""
        game_id = entry.game_id
        await self._store.index_remove([entry])
        snapshot = await self._store.load(game_id)
        for _ in range(self._settings.max_commit_attempts * 4):
            if snapshot is None:
                return
            try:
                game = LoadedGame.decode(game_id, snapshot.version, snapshot.data)
            except errors.ServiceError as exc:  # GAME_UNREADABLE: its entry is dropped
                log.warning("clock_sweep_skipped", game=game_id, error=exc.message)
                return
            # The entry is removed: this sweep's write (a timeout's) indexes the next deadline
            # whatever it is, as does the put-back below.
            if game.stored.clock.indexed_ms:
                game.stored.clock.indexed_ms = 0
            now = clocks.now_ms()
            due = clocks.due_seats(game, now)
            if not due:
                # Put back no later than now + seconds: a write decided meanwhile, whose own
                # entry this sweep's removal may have taken, has no deadline earlier than its
                # decision's now + seconds, even when time banks make the state read here
                # end later (docs/architecture.md, "Turn clocks", 3).
                await self._writes.schedule(game, now + game.stored.clock.seconds * 1000)
                self._bots.start_bots(game)
                return
            seat = due[0]
            deadline = game.stored.clock.deadline_ms[seat]
            bot_seat = bool(bots.level_of(game, seat))
            # A bot seat (its replica gone) is played, never forfeited: it is the service's.
            if clocks.policy(game) == clocks.FORFEIT and not bot_seat:
                snapshot = await self._forfeit(game, seat, deadline, now)
                if snapshot is None:
                    return
                continue
            legal = game.engine.legal_moves(game.state, seat)
            if not legal:
                return
            move = self._timeout_move(game, seat, legal, bot_seat)
            emitted = game.engine.apply(game.state, seat, move)
            game.stored.clock.timeouts += 1
            # Only a human seat's timeouts count towards its being away.
            by: clocks.By = "service" if bot_seat else "timeout"
            _, commit = moves.move_commit(
                self._settings,
                game,
                seat,
                game.wrap_move(move),
                emitted,
                None,
                b"",
                0,
                (deadline, now),
                by,
                self._writes.watched_here(game_id),
            )
            result = await self._writes.commit(commit)
            if result.written:
                metrics.TIMEOUTS.inc()
                metrics.TIMEOUT_LATENESS.observe(max(0, now - deadline) / 1000)
                log.info("timeout_fired", game=game_id, seat=seat, late_ms=now - deadline)
                snapshot = Snapshot(commit.expected_version + 1, commit.data, None)
                self._states.put(game_id, snapshot.version, snapshot.data)
                continue
            # A move (or another replica's timeout) landed first: decide again on it.
            snapshot = result.current

    @staticmethod
    def _timeout_move(game: LoadedGame, seat: int, legal: list[Any], bot_seat: bool) -> Any:
        """The move a timeout plays for `seat` (AUTO, or a bot seat whose replica is gone)."""
        engine = game.engine
        # Where the game's rules say what a timeout means, they win over the policy. A bot
        # seat's deadline passing is no decision of its player's: its bot decides by itself.
        if not bot_seat:
            ruled = engine.timeout_move(game.state, seat)
            if ruled is not None:
                return ruled
        view = engine.view(game.state, seat)
        rng = decision_rng(engine.setup_of(game.state).seed, game.stored.move_count, seat)
        # A human seat's move is the strong bot's; a bot seat (its replica gone) plays its own.
        level = bots.level_of(game, seat) or "strong"
        return bot_for(engine.game_type, level).choose(seat, view, legal, rng)

    async def _forfeit(
        self, game: LoadedGame, seat: int, deadline: int, now: int
    ) -> Snapshot | None:
        """End the game by `seat`'s forfeit (FORFEIT: its deadline passed), a write that is no
        move, with the version's compare-and-set: None once written (or the game is gone), else
        the game as it is now (a move landed first: decide again on it)."""
        clocks.forfeit(game, seat, deadline, now)
        try:
            current = await self._writes.update(game)
        except errors.ServiceError:  # the game is gone (expired)
            return None
        if current is not None:
            return current
        metrics.TIMEOUTS.inc()
        metrics.TIMEOUT_LATENESS.observe(max(0, now - deadline) / 1000)
        log.info("game_forfeited", game=game.game_id, seat=seat, late_ms=now - deadline)
        await self._writes.feed(
            pb.FeedEvent.Kind.KIND_GAME_FINISHED,
            game.game_id,
            game.version,
            game.stored.game_type,
            player_ids(game.stored, game.state.seats),
            result=game.view(None),
        )
        return None
