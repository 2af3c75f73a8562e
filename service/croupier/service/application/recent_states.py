"""The state of each game as this process last read or wrote it, so that a move can go
straight to its write.

Only a hint: the store writes a move only if the game is still at the version the move was
decided on, and answers a stale write with the game as it is now, so a stale entry costs one
round trip, never a wrong move. A move is never refused on a remembered state either: the
servicer reads the game again before it says no. Bounded: when full, the games written least
recently are forgotten first.
"""

from __future__ import annotations

from croupier.service.store.protocol import Snapshot


class RecentStates:
    def __init__(self, size: int) -> None:
        self._size = size
        self._states: dict[str, Snapshot] = {}

    def get(self, game_id: str) -> Snapshot | None:
        return self._states.get(game_id)

    def put(self, game_id: str, version: int, data: bytes) -> None:
        """Remember the game at `version`, unless a later version is known (calls of one game
        that overlap may finish in any order)."""
        if self._size <= 0:
            return
        states = self._states
        known = states.pop(game_id, None)
        if known is not None and known.version > version:
            states[game_id] = known
            return
        states[game_id] = Snapshot(version, data, None)
        if len(states) > self._size:
            del states[next(iter(states))]

    def forget(self, game_id: str) -> None:
        self._states.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._states)
