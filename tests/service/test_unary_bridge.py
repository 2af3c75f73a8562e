"""The unary port's hand-off (service/unary_port.py, `_run_on`): a pool thread has a coroutine
run as a task on the event loop, in another thread, and gets what it returned or raised, as
`asyncio.run_coroutine_threadsafe(...).result()` gives it; a task cancelled by the loop's
shutdown, or one that cannot be started, is an Exception in the pool thread, never a wait
without end."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import pytest

from croupier.service.unary_port import _run_on


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(5)
    running.close()


async def _answer(value: int) -> int:
    await asyncio.sleep(0)  # suspended once, as a call waiting for its write is
    return value


async def _fail() -> None:
    await asyncio.sleep(0)
    raise ValueError("refused")


async def _wait_forever(started: threading.Event) -> None:
    started.set()
    await asyncio.Event().wait()


def test_the_result_comes_back_to_the_waiting_thread(loop: asyncio.AbstractEventLoop) -> None:
    assert [_run_on(loop, _answer(n)) for n in range(50)] == list(range(50))


def test_an_exception_comes_back_as_raised(loop: asyncio.AbstractEventLoop) -> None:
    with pytest.raises(ValueError, match="refused"):
        _run_on(loop, _fail())


def test_calls_from_many_threads_at_once(loop: asyncio.AbstractEventLoop) -> None:
    with futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda n: _run_on(loop, _answer(n)), range(400)))
    assert results == list(range(400))


def test_a_task_cancelled_by_the_loop_is_an_exception_in_the_thread(
    loop: asyncio.AbstractEventLoop,
) -> None:
    started = threading.Event()
    with futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(_run_on, loop, _wait_forever(started))
        assert started.wait(5)

        def cancel_all() -> None:
            for task in asyncio.all_tasks(loop):
                task.cancel()

        loop.call_soon_threadsafe(cancel_all)
        with pytest.raises(futures.CancelledError):
            waiting.result(timeout=5)


def test_a_task_that_cannot_start_is_raised_not_waited_for(
    loop: asyncio.AbstractEventLoop,
) -> None:
    not_a_coroutine: Any = object()
    with pytest.raises(TypeError):
        _run_on(loop, not_a_coroutine)
