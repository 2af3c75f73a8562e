"""The service's errors as Python exceptions, with the reason and rule id from the status."""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


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
        code = call.code()
        message = call.details() or ""
        reason, rule_id, metadata, violations = "", None, {}, []
        status = rpc_status.from_call(call)
        for detail in status.details if status is not None else ():
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
