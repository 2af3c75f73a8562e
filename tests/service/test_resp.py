"""The lean Redis client (service/resp.py) against a real redis-server."""

from __future__ import annotations

import asyncio

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from croupier.service.embedded_redis import EmbeddedRedis
from croupier.service.resp import RespClient


def test_commands_pipelines_and_errors() -> None:
    async def run(url: str) -> None:
        client = RespClient(url)
        assert await client.ping()
        assert await client.set("k", b"v", ex=60, nx=True, get=True) is None
        assert await client.set("k", b"w", ex=60, nx=True, get=True) == b"v"
        async with client.pipeline(transaction=False) as pipe:
            pipe.hmget("h", "a", "b")
            pipe.get("k")
            assert await pipe.execute() == [[None, None], b"v"]
        with pytest.raises(ResponseError):
            await client.execute_command("LPUSH", "k", "x")  # wrong type
        assert await client.get("k") == b"v"  # still in step after an error reply
        results = await asyncio.gather(*(client.execute_command("INCR", "n") for _ in range(200)))
        assert sorted(results) == list(range(1, 201))
        await client.aclose()

    with EmbeddedRedis() as server:
        asyncio.run(run(server.url))


def test_commands_of_one_turn_go_out_in_one_write() -> None:
    """Commands sent during one turn of the event loop (concurrent calls' writes) reach Redis
    together: one read of its socket for all of them, not one each."""

    async def run(url: str, port: int) -> None:
        client = RespClient(url)
        await client.ping()
        counter = redis.Redis(port=port)
        before = counter.info("stats")["total_reads_processed"]
        replies = await asyncio.gather(
            *(client.execute_command("SET", f"k{n}", n) for n in range(50))
        )
        after = counter.info("stats")["total_reads_processed"]
        counter.close()
        assert replies == [b"OK"] * 50
        # The first command goes out at once (none was waiting), the other 49 in one write; the
        # INFO of `after` is one more read; margin for a write that arrives in two reads.
        assert after - before <= 5
        assert await client.execute_command("GET", "k49") == b"49"
        await client.aclose()

    with EmbeddedRedis() as server:
        asyncio.run(run(server.url, server.port))


def test_a_command_sent_without_waiting_keeps_its_place_in_the_order() -> None:
    """`send_nowait` puts a command on the connection with this turn's others, behind those
    sent before it, and returns its reply's future; without a connection it sends nothing
    (None). `written` is done once the commands not yet written are."""

    async def run(url: str) -> None:
        client = RespClient(url)
        assert client.send_nowait("SET", "k", "never") is None  # not connected yet
        await client.ping()
        assert client.written() is None  # nothing waits to be written
        # Queued behind a command in flight, with another queued command of this turn: Redis
        # sees them in the order they were sent.
        first = asyncio.ensure_future(client.execute_command("SET", "k", "0"))
        await asyncio.sleep(0)  # the first is sent: the next ones wait for the turn's end
        queued = asyncio.ensure_future(client.execute_command("APPEND", "k", "1"))
        await asyncio.sleep(0)
        now = client.send_nowait("APPEND", "k", "2")
        later = client.send_nowait("APPEND", "k", "3")
        assert now is not None and later is not None
        written = client.written()
        assert written is not None and not written.done()
        await written
        assert client.written() is None
        assert await first == b"OK"
        assert [await queued, await now, await later] == [2, 3, 4]
        assert await client.get("k") == b"0123"
        failed = client.send_nowait("LPUSH", "k", "x")  # wrong type: its future fails
        assert failed is not None
        with pytest.raises(ResponseError):
            await failed
        assert await client.get("k") == b"0123"  # in step after it
        await client.aclose()

    with EmbeddedRedis() as server:
        asyncio.run(run(server.url))


def test_a_caller_that_gives_up_leaves_the_connection_in_step() -> None:
    """A command whose caller stopped waiting (its deadline) has its reply read and dropped:
    the next command gets its own reply."""

    async def run(url: str, port: int) -> None:
        client = RespClient(url)
        await client.execute_command("SET", "k", "v")
        sleeper = redis.Redis(port=port)
        slow = asyncio.get_running_loop().run_in_executor(
            None, sleeper.execute_command, "DEBUG", "SLEEP", "0.5"
        )
        await asyncio.sleep(0.1)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await client.execute_command("GET", "k")
        await slow
        sleeper.close()
        assert await client.execute_command("ECHO", "mine") == b"mine"
        await client.aclose()

    with EmbeddedRedis(extra_args=("--enable-debug-command", "local")) as server:
        asyncio.run(run(server.url, server.port))


def test_commands_past_their_deadline_fail_and_the_connection_stays_in_step() -> None:
    """With `timeout`, a command Redis does not answer in time fails with TimeoutError (every
    command waiting behind it too, each at its own deadline); the late replies are dropped."""

    async def run(url: str, port: int) -> None:
        client = RespClient(url, timeout=0.2)
        await client.execute_command("SET", "k", "v")
        sleeper = redis.Redis(port=port)
        slow = asyncio.get_running_loop().run_in_executor(
            None, sleeper.execute_command, "DEBUG", "SLEEP", "0.6"
        )
        await asyncio.sleep(0.1)
        loop = asyncio.get_running_loop()
        started = loop.time()
        first = asyncio.ensure_future(client.execute_command("GET", "k"))
        await asyncio.sleep(0.1)
        second = asyncio.ensure_future(client.execute_command("GET", "k"))
        with pytest.raises(TimeoutError):
            await first
        assert 0.15 < loop.time() - started < 0.35
        with pytest.raises(TimeoutError):
            await second
        assert 0.25 < loop.time() - started < 0.45
        await slow
        sleeper.close()
        assert await client.execute_command("ECHO", "mine") == b"mine"
        assert await client.get("k") == b"v"
        await client.aclose()

    with EmbeddedRedis(extra_args=("--enable-debug-command", "local")) as server:
        asyncio.run(run(server.url, server.port))


def test_scripts_load_themselves_and_connections_come_back() -> None:
    async def run(server: EmbeddedRedis) -> None:
        client = RespClient(server.url)
        script = client.register_script("return ARGV[1] .. KEYS[1]")
        assert await script(keys=["k"], args=["a"]) == b"ak"  # NOSCRIPT, then EVAL
        assert await script(keys=["k"], args=["b"]) == b"bk"  # EVALSHA
        server.stop()
        with pytest.raises(RedisConnectionError):
            await client.ping()
        server.start()
        assert await client.ping()  # connects again by itself
        await client.aclose()

    with EmbeddedRedis() as server:
        asyncio.run(run(server))
