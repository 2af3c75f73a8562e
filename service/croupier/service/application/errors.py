"""Every error the service returns, mapped to a `google.rpc.Status` in one place.

Each carries a stable machine-readable reason (`ErrorInfo.reason`, domain `croupier.v1`) and a
message a person can act on; move refusals also name the rule id in a `PreconditionFailure`.
The catalogue of reasons is documented in docs/api.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "croupier.v1"


class Reason(StrEnum):
    """Every ErrorInfo reason the service returns (documented in docs/api.md)."""

    GAME_TYPE_MISSING = "GAME_TYPE_MISSING"
    INVALID_OPTIONS = "INVALID_OPTIONS"
    INVALID_DISPLAY_NAMES = "INVALID_DISPLAY_NAMES"
    INVALID_REQUEST_ID = "INVALID_REQUEST_ID"
    INVALID_NAME = "INVALID_NAME"
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    MOVE_GAME_MISMATCH = "MOVE_GAME_MISMATCH"
    MALFORMED_MOVE = "MALFORMED_MOVE"
    ILLEGAL_MOVE = "ILLEGAL_MOVE"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    CREDENTIAL_MISSING = "CREDENTIAL_MISSING"
    CREDENTIAL_MALFORMED = "CREDENTIAL_MALFORMED"
    OPERATOR_KEY_MISSING = "OPERATOR_KEY_MISSING"
    CREDENTIAL_REJECTED = "CREDENTIAL_REJECTED"
    OPERATOR_KEY_REJECTED = "OPERATOR_KEY_REJECTED"
    ETAG_MISMATCH = "ETAG_MISMATCH"
    CONTENTION = "CONTENTION"
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    RATE_LIMITED = "RATE_LIMITED"
    SEAT_LIMIT = "SEAT_LIMIT"
    WATCHER_LIMIT = "WATCHER_LIMIT"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    OVERLOADED = "OVERLOADED"
    INTERNAL = "INTERNAL"
    INVALID_RESPONSE_SIZE = "INVALID_RESPONSE_SIZE"
    # WatchGame: resuming with since_etag, and a watcher cut off instead of skipped.
    INVALID_ETAG = "INVALID_ETAG"
    RESUME_OUT_OF_RANGE = "RESUME_OUT_OF_RANGE"
    WATCH_TOO_SLOW = "WATCH_TOO_SLOW"
    # PlayGame: a session's messages out of order (a move before `start`, a second `start`).
    INVALID_SESSION_MESSAGE = "INVALID_SESSION_MESSAGE"
    # Streams: a game that lets no spectator in; a client address's share of the streams.
    SPECTATORS_OFF = "SPECTATORS_OFF"
    INVALID_SPECTATORS = "INVALID_SPECTATORS"
    ADDRESS_STREAM_LIMIT = "ADDRESS_STREAM_LIMIT"
    SEAT_STREAM_LIMIT = "SEAT_STREAM_LIMIT"
    # The lobby: players, joining, listing, reissue, records, rematch.
    INVALID_PLAYER_ID = "INVALID_PLAYER_ID"
    INVALID_FILTER = "INVALID_FILTER"
    INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"
    INVALID_PAGE_SIZE = "INVALID_PAGE_SIZE"
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_REMATCH = "INVALID_REMATCH"
    INVALID_JOIN_CODE = "INVALID_JOIN_CODE"
    JOIN_CODE_REJECTED = "JOIN_CODE_REJECTED"
    GAME_FULL = "GAME_FULL"
    ALREADY_SEATED = "ALREADY_SEATED"
    GAME_WAITING = "GAME_WAITING"
    GAME_STARTED = "GAME_STARTED"
    NOT_JOINABLE = "NOT_JOINABLE"
    SEAT_OPEN = "SEAT_OPEN"
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    # Bot seats.
    INVALID_BOT_LEVEL = "INVALID_BOT_LEVEL"
    ALL_SEATS_BOTS = "ALL_SEATS_BOTS"
    BOT_SEAT = "BOT_SEAT"
    INVALID_CLOCK = "INVALID_CLOCK"
    GAME_FORFEITED = "GAME_FORFEITED"
    # A game stored in the format before StoredGame.state was an Any.
    GAME_UNREADABLE = "GAME_UNREADABLE"


@dataclass
class ServiceError(Exception):
    """An error to return to the caller as a gRPC status."""

    code: grpc.StatusCode
    reason: Reason
    message: str
    metadata: dict[str, str] = field(default_factory=dict)
    details: list[Message] = field(default_factory=list)
    # gRPC's own retry (a service config retryPolicy) waits this long before its next attempt
    # when the server says so in the `grpc-retry-pushback-ms` trailer; RetryInfo says the same
    # to clients that read the details.
    pushback_ms: int | None = None

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}"

    def status_message(self) -> status_pb2.Status:
        """The google.rpc.Status: what a call's trailers carry, and a session's MoveOutcome."""
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=DOMAIN, metadata=self.metadata
        )
        packed = []
        for detail in [info, *self.details]:
            wrapper = any_pb2.Any()
            wrapper.Pack(detail)
            packed.append(wrapper)
        return status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=self.message, details=packed
        )

    def to_status(self) -> grpc.Status:
        result = rpc_status.to_status(self.status_message())
        if self.pushback_ms is not None:
            pushback = ("grpc-retry-pushback-ms", str(self.pushback_ms))
            result = result._replace(trailing_metadata=(*result.trailing_metadata, pushback))
        return result


def invalid_argument(reason: Reason, field_name: str, message: str) -> ServiceError:
    violation = error_details_pb2.BadRequest.FieldViolation(field=field_name, description=message)
    return ServiceError(
        grpc.StatusCode.INVALID_ARGUMENT,
        reason,
        message,
        metadata={"field": field_name},
        details=[error_details_pb2.BadRequest(field_violations=[violation])],
    )


# How a request can fail to be a message, as MALFORMED_REQUEST says it (never a parser's own
# text: that names Python internals, and varies with the protobuf version).
BAD_PROTOBUF = "bad protobuf encoding, or invalid UTF-8 in a string field"
NOT_JSON = "the body is not JSON"
BAD_JSON = (
    "the JSON does not follow the message's protobuf JSON mapping: a field of the wrong type,"
    " an unknown enum value or a repeated key"
)
BAD_FRAMING = "the body is not one message as the protocol frames it, or its compression is bad"


def malformed_request(type_name: str, problem: str = BAD_PROTOBUF) -> ServiceError:
    return invalid_argument(
        Reason.MALFORMED_REQUEST,
        "request",
        f"the request is not a valid {type_name} message ({problem})",
    )


def illegal_move(rule_id: str, message: str) -> ServiceError:
    violation = error_details_pb2.PreconditionFailure.Violation(
        type=rule_id, subject="move", description=message
    )
    return ServiceError(
        grpc.StatusCode.FAILED_PRECONDITION,
        Reason.ILLEGAL_MOVE,
        f"{rule_id}: {message}",
        metadata={"rule_id": rule_id},
        details=[error_details_pb2.PreconditionFailure(violations=[violation])],
    )


def game_not_found(name: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, Reason.GAME_NOT_FOUND, f"no game named {name!r}")


def credential_missing() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.UNAUTHENTICATED,
        Reason.CREDENTIAL_MISSING,
        "this call needs a seat credential in the metadata: 'authorization: Bearer <credential>'",
    )


def credential_malformed(
    message: str = "the authorization metadata must be 'Bearer <credential>' with a credential"
    " from CreateGame",
) -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, Reason.CREDENTIAL_MALFORMED, message)


def spectators_off() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.SPECTATORS_OFF,
        "this game lets no spectators in: send a seat credential"
        " ('authorization: Bearer <credential>')",
    )


def credential_rejected() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.CREDENTIAL_REJECTED,
        "the credential is not one of this game's seat credentials",
    )


def operator_key_missing() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.UNAUTHENTICATED,
        Reason.OPERATOR_KEY_MISSING,
        "this server only creates games for operators: send 'authorization: Bearer <operator key>'",
    )


def operator_key_rejected() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.OPERATOR_KEY_REJECTED,
        "the credential is not an operator key of this server",
    )


def resource_exhausted(
    reason: Reason, message: str, retry_after: float | None = None
) -> ServiceError:
    details: list[Message] = []
    if retry_after is not None:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.FromMilliseconds(max(1, int(retry_after * 1000)))
        details.append(info)
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message, details=details)


def overloaded(message: str, retry_after: float) -> ServiceError:
    """A call refused before any work because the process has as much under way as it accepts:
    UNAVAILABLE, the code gRPC retry policies retry, since nothing was done (docs/decisions.md).
    """
    delay_ms = max(1, int(retry_after * 1000))
    info = error_details_pb2.RetryInfo()
    info.retry_delay.FromMilliseconds(delay_ms)
    return ServiceError(
        grpc.StatusCode.UNAVAILABLE,
        Reason.OVERLOADED,
        message,
        details=[info],
        pushback_ms=delay_ms,
    )


def deadline_exceeded() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.DEADLINE_EXCEEDED,
        Reason.DEADLINE_EXCEEDED,
        "the call's deadline passed before the move could be written; nothing was applied",
    )


def etag_mismatch(current: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED,
        Reason.ETAG_MISMATCH,
        "the game has changed since that etag; read it again and retry",
        metadata={"current_etag": current},
    )


def request_id_reused() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ALREADY_EXISTS,
        Reason.REQUEST_ID_REUSED,
        "this request_id was already used for a different request",
    )


def contention() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED,
        Reason.CONTENTION,
        "too many concurrent moves on this game; retry",
    )


def store_unavailable(detail: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.UNAVAILABLE,
        Reason.STORE_UNAVAILABLE,
        f"the game store cannot be reached ({detail}); retry later",
    )


def internal() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.INTERNAL, Reason.INTERNAL, "internal error; it has been logged"
    )


def invalid_etag() -> ServiceError:
    return invalid_argument(
        Reason.INVALID_ETAG,
        "since_etag",
        "since_etag must be an etag this service sent (a view's etag), or empty",
    )


def resume_out_of_range(since_etag: str, current: str, detail: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.OUT_OF_RANGE,
        Reason.RESUME_OUT_OF_RANGE,
        f"cannot resume from etag {since_etag!r} ({detail}); watch without since_etag for the"
        " current view",
        metadata={"current_etag": current},
    )


def watch_too_slow(behind: int) -> ServiceError:
    # No RetryInfo: the client resumes at once, from the last etag it received (the server
    # cannot know which of the messages it wrote last reached the client).
    return ServiceError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        Reason.WATCH_TOO_SLOW,
        f"this watcher fell {behind} moves behind the game without reading; watch again with"
        " since_etag set to the etag of the last view received (nothing is lost)",
    )


def failed_precondition(reason: Reason, subject: str, message: str) -> ServiceError:
    """A lobby call the game's state does not allow now (the violation type is the reason)."""
    violation = error_details_pb2.PreconditionFailure.Violation(
        type=reason, subject=subject, description=message
    )
    return ServiceError(
        grpc.StatusCode.FAILED_PRECONDITION,
        reason,
        message,
        details=[error_details_pb2.PreconditionFailure(violations=[violation])],
    )


def join_code_rejected() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.JOIN_CODE_REJECTED,
        "the join code is not this game's",
    )


def no_operator_keys() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.OPERATOR_KEY_REJECTED,
        "this call needs an operator key, and this server has none (--operator-key)",
    )


def all_seats_bots() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.PERMISSION_DENIED,
        Reason.ALL_SEATS_BOTS,
        "every seat a bot is a simulation: it needs the operator key (give at least one seat"
        " to a human otherwise)",
    )


def game_unreadable(name: str, detail: str) -> ServiceError:
    return failed_precondition(
        Reason.GAME_UNREADABLE,
        name,
        f"{name} cannot be read by this version of the service ({detail}); create a new game",
    )


def game_forfeited(seat: int) -> ServiceError:
    return failed_precondition(
        Reason.GAME_FORFEITED,
        "move",
        f"the game is over: seat {seat} forfeited when its deadline passed (no more moves)",
    )
