"""The store's Redis client (service/croupier/service/store/resp.py) against a real redis-server:
commands, group commit, deadlines, over TCP, TLS and a Unix socket, and its pub/sub subscriber."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from croupier.service.store.embedded_redis import EmbeddedRedis, self_signed_certificate
from croupier.service.store.resp import Endpoint, RespClient, Subscriber


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


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def server(certificate: tuple[Path, Path]) -> Iterator[EmbeddedRedis]:
    """One Redis on TCP, TLS and a Unix socket."""
    with EmbeddedRedis(tls=certificate, unix_socket=True) as running:
        yield running


class Heard:
    """What a Subscriber hands on: the messages, and the confirmed channels."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.confirmed: list[str] = []

    def subscriber(self, url: str) -> Subscriber:
        return Subscriber(
            Endpoint.parse(url),
            lambda channel, data: self.messages.append((channel, data)),
            self.confirmed.append,
        )

    async def until(self, what: Callable[[], bool], seconds: float = 10.0) -> None:
        for _ in range(int(seconds * 100)):
            if what():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"not heard: {self.messages}, {self.confirmed}")


@pytest.mark.parametrize("kind", ["tcp", "tls", "unix"])
def test_every_url_kind_runs_commands_and_pubsub_on_the_same_code(
    server: EmbeddedRedis, kind: str
) -> None:
    """redis://, rediss:// and unix:// differ only in how a connection opens: commands, the
    turn's group commit, a write's wait and sharded pub/sub are the same on each."""
    url = {"tcp": server.url, "tls": server.tls_url, "unix": server.unix_url}[kind]

    async def run() -> None:
        client = RespClient(url, timeout=5)
        assert await client.ping()
        replies = await asyncio.gather(*(client.execute_command("INCR", kind) for _ in range(50)))
        assert sorted(replies) == list(range(1, 51))
        reply, waiting = await client.execute_then_wait(("SET", f"{kind}:w", 1), ("WAIT", 0, 100))
        assert (reply, await waiting) == (b"OK", 0)
        heard = Heard()
        subscriber = heard.subscriber(url)
        channel = f"moves:{{{kind}}}"
        await subscriber.subscribe(channel)
        await heard.until(lambda: heard.confirmed == [channel])
        assert await client.execute_command("SPUBLISH", channel, b"one") == 1
        await heard.until(lambda: heard.messages == [(channel, b"one")])
        subscriber.unsubscribe(channel)
        await subscriber.subscribe(channel)  # again, on the same connection
        await heard.until(lambda: heard.confirmed == [channel, channel])
        assert await client.execute_command("SPUBLISH", channel, b"three") == 1
        await heard.until(lambda: heard.messages == [(channel, b"one"), (channel, b"three")])
        await subscriber.aclose()
        await client.aclose()

    asyncio.run(run())


def test_tls_verifies_the_certificate_unless_told_not_to(server: EmbeddedRedis) -> None:
    """A rediss:// URL verifies the server's certificate and name against the system's
    authorities by default: a self-signed one is refused unless the URL names it
    (`ssl_ca_certs`) or turns verification off (`ssl_cert_reqs=none`), redis-py's options."""
    plain = f"rediss://127.0.0.1:{server.tls_port}/0"

    async def run() -> None:
        with pytest.raises(RedisConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await RespClient(plain, connect_timeout=5).ping()
        unverified = RespClient(f"{plain}?ssl_cert_reqs=none")
        assert await unverified.ping()
        await unverified.aclose()
        with pytest.raises(ValueError, match="ssl_no_such_option"):
            RespClient(f"{plain}?ssl_no_such_option=1")

    asyncio.run(run())


def test_a_subscriber_whose_connection_is_killed_subscribes_again(server: EmbeddedRedis) -> None:
    """Redis drops the pub/sub connection (a restart, a failover, CLIENT KILL): the subscriber
    connects again on its own and subscribes every channel still wanted, confirmed again."""

    async def run() -> None:
        client = RespClient(server.url, timeout=5)
        heard = Heard()
        subscriber = heard.subscriber(server.url)
        await subscriber.subscribe("a:{kill}")
        await subscriber.subscribe("b:{kill}")
        await heard.until(lambda: sorted(heard.confirmed) == ["a:{kill}", "b:{kill}"])
        subscriber.unsubscribe("b:{kill}")
        assert heard.confirmed.count("a:{kill}") == 1  # once, whatever opened the connection
        assert await client.execute_command("CLIENT", "KILL", "TYPE", "pubsub") >= 1
        await heard.until(lambda: heard.confirmed.count("a:{kill}") == 2)
        assert heard.confirmed.count("b:{kill}") == 1  # no longer wanted: not subscribed again
        assert await client.execute_command("SPUBLISH", "a:{kill}", b"after") == 1
        await heard.until(lambda: heard.messages == [("a:{kill}", b"after")])
        await subscriber.aclose()
        await client.aclose()

    asyncio.run(run())
