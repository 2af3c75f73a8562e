"""A second port for the unary calls (`--unary-port`, issue 22; docs/decisions.md, "Server
style"): grpcio's synchronous server takes every call of GameService but WatchGame (and
health's Check, and Echo with --benchmark-service) and hands it to the same servicer on the
event loop, which answers it as it answers the grpc.aio port's. What changes is only who
takes the call from gRPC: on some machines the synchronous server's path costs much less per
call (docs/performance.md, "The server's threads on one core"), on others nothing.

A pool of THREADS threads carries the calls; each waits while the event loop runs its call.
The calls the port holds (waiting for a thread, or running) are bounded like the calls in
flight of the grpc.aio port (`--max-calls-in-flight`), health's Check among them: the excess
is refused at once with UNAVAILABLE / OVERLOADED, by a thread of its own, instead of queueing
behind the calls it could not take. grpcio's
synchronous server asks a generic handler for each call's handler (`service`) and then hands
the call to its pool (`submit`), both in its polling thread, one call after the other: the
first admits the call or not, the second sends a refused one to the refusal thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent import futures
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health_pb2

from croupier.service import metrics
from croupier.service.calls import CallLog, lenient
from croupier.service.overload import Bound

# Enough that calls rarely wait for a thread: with fewer threads than calls in flight, some
# runs fall into a mode of twice the context switches per call (docs/performance.md, "The
# unary port's pool"); at 64 and 128 in flight 32 threads cost no more than as many threads
# as calls. Threads are started as calls come.
THREADS = 32
REFUSAL_THREADS = 1

Handler = Callable[[Any, Any], Coroutine[Any, Any, Any]]


class _Aborted(Exception):
    def __init__(self, status: grpc.Status) -> None:
        self.status = status


class BridgedContext:
    """What the servicer uses of `grpc.aio.ServicerContext`, read from the synchronous
    server's context in the pool thread before the call is handed to the event loop."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._metadata: Sequence[tuple[str, str | bytes]] = context.invocation_metadata()
        self._peer: str = context.peer()
        remaining: float | None = context.time_remaining()
        self._deadline = None if remaining is None else time.monotonic() + remaining

    def invocation_metadata(self) -> Sequence[tuple[str, str | bytes]]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        if self._deadline is None:
            return None
        return max(self._deadline - time.monotonic(), 0.0)

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        raise _Aborted(_Status(code, details, tuple(trailing_metadata)))

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise _Aborted(status)


@dataclass(frozen=True)
class _Status(grpc.Status):  # type: ignore[misc]  # grpc.Status is an untyped abstract class
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


_routing = threading.local()  # the polling thread's last admission: see _Pools.submit


@dataclass(frozen=True)
class _Method:
    """A method's two handlers: the bridge to the servicer, and the refusal."""

    admitted: grpc.RpcMethodHandler
    refused: grpc.RpcMethodHandler


class _Admission(grpc.GenericRpcHandler):  # type: ignore[misc]  # grpc is untyped here
    """Each call's handler: the bridge while fewer calls than the bound wait or run, else the
    refusal."""

    def __init__(self, bound: Bound) -> None:
        self.methods: dict[str, _Method] = {}
        self._bound = bound
        self._lock = threading.Lock()  # the polling thread enters, the pool's threads leave
        self._admitted = 0
        metrics.UNARY_PORT_CALLS.set_function(lambda: self._admitted)

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = self.methods.get(details.method)
        if method is None:
            return None  # UNIMPLEMENTED: WatchGame and reflection are on the grpc.aio port
        with self._lock:
            admit = self._bound.limit <= 0 or self._admitted < self._bound.limit
            if admit:
                self._admitted += 1
        _routing.refused = not admit
        return method.admitted if admit else method.refused

    def leave(self) -> None:
        with self._lock:
            self._admitted -= 1


class _Pools(futures.Executor):
    """The server's pool: admitted calls to THREADS threads, each leaving the bound once its
    thread is done with it (also when its client went away before, and the handler never ran);
    refused ones to a thread of their own. `_Admission.service` decided for the call just
    before, in the same thread."""

    def __init__(self, admission: _Admission) -> None:
        self._admission = admission
        self._calls = futures.ThreadPoolExecutor(THREADS, thread_name_prefix="unary")
        self._refusals = futures.ThreadPoolExecutor(REFUSAL_THREADS, thread_name_prefix="refusal")

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        if getattr(_routing, "refused", False):
            _routing.refused = False
            return self._refusals.submit(fn, *args, **kwargs)
        return self._calls.submit(self._then_leave, fn, args, kwargs)

    def _then_leave(self, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            self._admission.leave()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._calls.shutdown(wait, cancel_futures=cancel_futures)
        self._refusals.shutdown(wait, cancel_futures=cancel_futures)


def _refusal(rpc: str, bound: Bound, loop: asyncio.AbstractEventLoop) -> Callable[..., NoReturn]:
    """Answer OVERLOADED; counted and logged (sampled) on the event loop, as the grpc.aio
    port's refusals are."""

    def refuse(request: Any, context: grpc.ServicerContext) -> NoReturn:
        started = time.perf_counter()
        error = bound.refusal()
        call = CallLog(rpc)
        call.fail(error)
        loop.call_soon_threadsafe(bound.count_refusal, rpc)
        loop.call_soon_threadsafe(call.count, time.perf_counter() - started)
        context.abort_with_status(error.to_status())
        raise AssertionError("not reached: abort raises")

    return refuse


def _bridge(handler: Handler, loop: asyncio.AbstractEventLoop) -> Callable[[Any, Any], Any]:
    def call(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            bridged = BridgedContext(context)
            return _run_on(loop, handler(request, bridged))
        except _Aborted as aborted:
            context.abort_with_status(aborted.status)

    return call


def _run_on(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]) -> Any:
    """`coro`'s result, run as a task on `loop` while this (another) thread waits: what
    `asyncio.run_coroutine_threadsafe(coro, loop).result()` does, with the task's end handed
    back by a lock rather than by a concurrent future chained to the task, which cost about
    10 µs more per call (docs/performance.md, "The unary port's hand-off")."""
    finished = threading.Lock()
    finished.acquire()
    ended: list[asyncio.Task[Any] | Exception] = []

    def done(task: asyncio.Task[Any]) -> None:
        ended.append(task)
        finished.release()

    def start() -> None:
        try:
            task = loop.create_task(coro)
        except Exception as error:  # never left waiting: the caller raises it too
            ended.append(error)
            finished.release()
            raise
        task.add_done_callback(done)

    loop.call_soon_threadsafe(start)
    finished.acquire()
    (outcome,) = ended
    if isinstance(outcome, Exception):
        raise outcome
    if outcome.cancelled():  # the loop is shutting down: an Exception, as grpcio's pool expects
        raise futures.CancelledError
    return outcome.result()


@dataclass
class UnaryPort:
    server: grpc.Server
    port: int

    async def stop(self, grace: float) -> None:
        """Let the calls under way finish within `grace` (the event loop runs them meanwhile)."""
        stopped = self.server.stop(grace)
        await asyncio.get_running_loop().run_in_executor(None, stopped.wait)


def start_unary_port(
    services: Sequence[tuple[object, ServiceDescriptor]],
    health: object,
    address: str,
    options: Sequence[tuple[str, Any]],
    bound: Bound,
    credentials: grpc.ServerCredentials | None,
) -> UnaryPort:
    """Serve the unary methods of `services` (servicer, descriptor) and `health`'s Check on
    `address`, each call handed to the running event loop."""
    loop = asyncio.get_running_loop()
    admission = _Admission(bound)
    health_check = health_pb2.DESCRIPTOR.services_by_name["Health"].methods_by_name["Check"]
    methods = [
        (servicer, method)
        for servicer, service in services
        for method in service.methods
        if not method.server_streaming
    ]
    for servicer, method in [*methods, (health, health_check)]:
        deserialize = lenient(message_factory.GetMessageClass(method.input_type))
        admission.methods[f"/{method.containing_service.full_name}/{method.name}"] = _Method(
            admitted=grpc.unary_unary_rpc_method_handler(
                _bridge(getattr(servicer, method.name), loop),
                request_deserializer=deserialize,
                response_serializer=message_factory.GetMessageClass(
                    method.output_type
                ).SerializeToString,
            ),
            refused=grpc.unary_unary_rpc_method_handler(
                _refusal(method.name, bound, loop), request_deserializer=deserialize
            ),
        )
    server = grpc.server(_Pools(admission), handlers=(admission,), options=options)
    port = (
        server.add_secure_port(address, credentials)
        if credentials is not None
        else server.add_insecure_port(address)
    )
    if port == 0:
        raise OSError(f"cannot bind {address}")
    server.start()
    return UnaryPort(server, port)
