"""Who is calling: a seat of the game (its credential), the operator (an operator key), or
nobody; each RPC asks here before it reads or writes on the caller's behalf."""

from __future__ import annotations

from croupier.service import auth, errors
from croupier.service.calls import CallLog
from croupier.service.games import LoadedGame, items_of


def seat(game: LoadedGame, call: CallLog, *, required: bool) -> int | None:
    """The caller's seat; None for a spectator, where `required` is False and the game lets
    spectators in."""
    if call.token is None:
        if required:
            raise errors.credential_missing()
        if game.stored.spectators_off:
            raise errors.spectators_off()
        return None
    seat = auth.seat_of(call.token, items_of(game.stored.credential_hashes))
    call.seat = seat
    return seat


def caller_of(game: LoadedGame, call: CallLog, operator_hashes: list[bytes]) -> int | None:
    """A seat of the game (its seat), or the operator (None); refused otherwise."""
    if call.token is None:
        raise errors.credential_missing()
    if operator_hashes and auth.is_operator(call.token, operator_hashes):
        return None
    return seat(game, call, required=True)


def require_operator(call: CallLog, operator_hashes: list[bytes]) -> None:
    if not operator_hashes:
        raise errors.no_operator_keys()
    auth.check_operator(call.token, operator_hashes)
