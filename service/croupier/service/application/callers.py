"""Who is calling: a seat of the game (its credential), the operator (an operator key), or nobody;
each RPC asks here before it reads or writes on the caller's behalf. The call's record (`CallLog`)
is here too: what the application learns of a call (its game, seat, move) goes into it, and the call
wrapper (service/croupier/service/transport/calls.py) writes its log line and metrics from it."""

from __future__ import annotations

from dataclasses import dataclass

from croupier.service.application import auth, errors
from croupier.service.application.games import LoadedGame, items_of
from croupier.service.observability import logs, metrics


@dataclass(slots=True)
class CallLog:
    """What the one log line of a call says, filled in as the call proceeds."""

    rpc: str
    game: str | None = None
    game_type: str | None = None
    seat: int | None = None
    move: str | None = None
    outcome: str = "CANCELLED"
    reason: str | None = None
    rule_id: str | None = None
    # The bearer token of the call's metadata (a seat credential or an operator key). Secret:
    # never logged.
    token: str | None = None
    # Who called: gRPC's peer (`ipv4:127.0.0.1:54321`; the web gateway's `web:…`), read once
    # per call; its line gives the address (service/croupier/service/observability/logs.py).
    peer: str | None = None

    def fail(self, error: errors.ServiceError) -> None:
        self.outcome, self.reason = error.code.name, error.reason
        self.rule_id = error.metadata.get("rule_id")

    def emit(self, latency: float) -> None:
        """The call's metrics and line, now (a watch stream's, the web gateway's; a unary call's
        wait for the end of the event loop's turn: service/croupier/service/transport/calls.py,
        `_Answered`)."""
        metrics.record_call(
            self.rpc, self.game_type, self.outcome, latency, self.rule_id, self.reason
        )
        logs.rpc_line(
            self.rpc,
            self.outcome,
            round(latency * 1000, 3),
            self.game,
            self.game_type,
            self.seat,
            self.move,
            self.reason,
            self.peer,
        )

    def count(self, latency: float) -> None:
        """The metrics of `emit` without its log line: for calls refused as OVERLOADED, whose lines
        are sampled (service/croupier/service/transport/overload.py) so that refusing stays
        cheap."""
        metrics.record_call(
            self.rpc, self.game_type, self.outcome, latency, self.rule_id, self.reason
        )


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
