"""`python -m croupier.healthcheck`: ask a server whether it is SERVING, through the standard
gRPC health protocol (`grpc.health.v1.Health/Check`).

    python -m croupier.healthcheck [--target HOST:PORT] [--service NAME] [--timeout S]

Exits 0 when the answer is SERVING and 1 otherwise: NOT_SERVING (the store is unreachable, or
the server got SIGTERM), an unknown service name, no server on the port, or no answer within the
timeout. It prints one line saying which. Meant for container HEALTHCHECKs, compose healthchecks
and scripts; Kubernetes probes the same protocol natively with `grpc:` probes.

Without `--target` it asks `$CROUPIER_HEALTHCHECK_TARGET`, else `127.0.0.1:$CROUPIER_PORT`
(50051 when unset): the server in the same container.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_PORT = 50051
SERVING = health_pb2.HealthCheckResponse.SERVING


def default_target(environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    explicit = environ.get("CROUPIER_HEALTHCHECK_TARGET")
    if explicit:
        return explicit
    port = environ.get("CROUPIER_PORT") or ""
    if not port.isdigit() or int(port) == 0:
        port = str(DEFAULT_PORT)
    return f"127.0.0.1:{port}"


def check(target: str, service: str = "", timeout: float = 2.0) -> tuple[bool, str]:
    """(whether `service` at `target` is SERVING, the status or error in words).

    The empty service name is the server as a whole."""
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            code = error.code()
            name = code.name if isinstance(code, grpc.StatusCode) else str(code)
            details = error.details() or ""
            return False, f"{name}: {details}" if details else name
    status: int = reply.status
    return status == SERVING, health_pb2.HealthCheckResponse.ServingStatus.Name(status)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m croupier.healthcheck",
        description="Exit 0 when the server reports SERVING (gRPC health protocol), else 1.",
    )
    parser.add_argument(
        "--target",
        default=None,
        help="HOST:PORT of the server (default: $CROUPIER_HEALTHCHECK_TARGET, else"
        " 127.0.0.1:$CROUPIER_PORT, else 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--service",
        default="",
        help="service to ask about, e.g. croupier.v1.GameService (default: the whole server)",
    )
    parser.add_argument(
        "--timeout", type=float, default=2.0, help="seconds to wait for the answer (default 2)"
    )
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    target: str = args.target or default_target()
    service: str = args.service
    serving, detail = check(target, service, args.timeout)
    print(f"{target} {service or '(server)'}: {detail}", file=sys.stdout if serving else sys.stderr)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
