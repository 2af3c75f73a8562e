"""The service's errors as Python exceptions, with the reason and rule id from the status."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

_CODES = {code.value[0]: code for code in grpc.StatusCode}


@dataclass
class CroupierError(Exception):
    """A call the service refused. `reason` is the stable ErrorInfo reason (e.g. ILLEGAL_MOVE);
    `rule_id` names the rule that forbids a move (e.g. VQ-3.2) when there is one."""

    code: grpc.StatusCode
    reason: str
    message: str
    rule_id: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    field_violations: list[tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}"

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> CroupierError:
        call: grpc.Call = error
        status = rpc_status.from_call(call)
        details = status.details if status is not None else ()
        return cls._of(call.code(), call.details() or "", details)

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> CroupierError:
        """A refusal the service sent inside a message rather than as a call's status: a
        session's MoveOutcome (the same status ApplyMove would have ended with)."""
        code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
        return cls._of(code, status.message, status.details)

    @classmethod
    def _of(
        cls, code: grpc.StatusCode, message: str, details: Iterable[any_pb2.Any]
    ) -> CroupierError:
        reason, rule_id, metadata, violations = "", None, {}, []
        for detail in details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, metadata = info.reason, dict(info.metadata)
            elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
                failure = error_details_pb2.PreconditionFailure()
                detail.Unpack(failure)
                rule_id = failure.violations[0].type if failure.violations else None
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations = [(v.field, v.description) for v in bad.field_violations]
        return cls(code, reason or code.name, message, rule_id, metadata, violations)
