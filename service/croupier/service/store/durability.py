"""When a write is acknowledged: `--durability` (docs/deployment.md, "Durability").

- `none`: once Redis has applied it. What a crash can then lose is what the Redis's own
  configuration allows: nothing with `appendonly yes` and `appendfsync always` (Redis fsyncs
  its append-only file before it answers anyone), up to a second with `everysec`.
- `aof`: once the Redis that took it has it in its append-only file on disk: each write is
  followed by `WAITAOF 1 0 <timeout>` on its connection (Redis 7.2 or newer, `appendonly yes`,
  `appendfsync always`: with `everysec`, WAITAOF waits for Redis's once-a-second fsync, and
  some versions confirm writes not yet fsynced, Valkey 9.1.2 among them, as measured here:
  `check`).
- `replicas:N`: once N replicas of that Redis have it (`WAIT N <timeout>`), in their memory.

A write whose wait is not confirmed within `--store-timeout` is answered UNAVAILABLE /
STORE_UNAVAILABLE (NotDurable), never as done: the client retries it with the same request id,
and the retry is answered once the first write is confirmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from redis.exceptions import RedisError, ResponseError

from croupier.service.store.redis_client import is_cluster_url
from croupier.service.store.resp import RespClient
from croupier.service.store.resp_cluster import ClusterClient

Kind = Literal["none", "aof", "replicas"]

_REPLICAS = re.compile(r"replicas:(\d+)")


@dataclass(frozen=True, slots=True)
class Durability:
    kind: Kind = "none"
    replicas: int = 0  # `replicas:N`'s N

    @staticmethod
    def parse(text: str) -> Durability:
        """`none`, `aof` or `replicas:N` (N ≥ 1), in any case; ValueError otherwise."""
        word = text.strip().lower()
        if word in ("none", "aof"):
            return Durability("none" if word == "none" else "aof")
        match = _REPLICAS.fullmatch(word)
        if match is not None and int(match[1]) >= 1:
            return Durability("replicas", int(match[1]))
        raise ValueError(
            f"{text!r} is not a durability: none, aof, or replicas:N with N a number of"
            " replicas (1 or more)"
        )

    def __str__(self) -> str:
        return f"replicas:{self.replicas}" if self.kind == "replicas" else self.kind

    @property
    def waits(self) -> bool:
        """Whether each write is followed by a wait."""
        return self.kind != "none"

    def wait_command(self, timeout_seconds: float) -> tuple[str | int, ...]:
        """The command that follows each write on its connection. Redis waits
        `timeout_seconds` less a tenth (at least 250 ms) at most, then answers with what it
        has: the rest is for that answer, which Redis sends up to about 100 ms after the
        wait's own timeout (it looks at blocked clients about ten times a second), to come
        back before the client's deadline, which would say less."""
        total = round(timeout_seconds * 1000)
        milliseconds = max(1, total - max(250, total // 10))
        if self.kind == "aof":
            return ("WAITAOF", 1, 0, milliseconds)
        if self.kind == "replicas":
            return ("WAIT", self.replicas, milliseconds)
        raise ValueError("--durability none waits for nothing")

    def confirmed(self, reply: Any) -> bool:
        """Whether the wait's reply confirms the writes before it: WAITAOF answers [local
        fsyncs, replica fsyncs], WAIT the number of replicas that have them."""
        if self.kind == "aof":
            return isinstance(reply, list) and len(reply) == 2 and int(reply[0]) >= 1
        if self.kind == "replicas":
            return isinstance(reply, int) and reply >= self.replicas
        return True


NONE = Durability()


class Refused(Exception):
    """The store cannot honour the durability asked for: the server does not start."""


async def check(url: str | None, durability: Durability, store_timeout: float) -> dict[str, Any]:
    """What the start-up line says of the store (`durability_checked`), once every master has
    shown that it honours `durability`: its version, its append-only file and its replicas,
    and the wait itself answered. Raises Refused, with what to change, otherwise."""
    if url is None:
        raise Refused(
            f"--durability {durability} needs Redis: give --redis-url, or install redis-server"
        )
    # The wait may take its whole timeout (too few replicas): the client gives it more.
    patience = store_timeout + 1.0
    client: RespClient | ClusterClient = (
        ClusterClient(url, connect_timeout=store_timeout, timeout=patience)
        if is_cluster_url(url)
        else RespClient(url, connect_timeout=store_timeout, timeout=patience)
    )
    try:
        nodes = await client.masters() if isinstance(client, ClusterClient) else [client]
        checked = [await _check_node(node, durability, store_timeout) for node in nodes]
        return {"masters": checked}
    except (RedisError, TimeoutError) as exc:
        raise Refused(
            f"--durability {durability}: cannot check the store at {_shown(url)}, which does"
            f" not answer ({type(exc).__name__}: {exc})"
        ) from exc
    finally:
        await client.aclose()


async def _check_node(
    node: RespClient, durability: Durability, store_timeout: float
) -> dict[str, Any]:
    server = _info(await node.execute_command("INFO", "server"))
    persistence = _info(await node.execute_command("INFO", "persistence"))
    replication = _info(await node.execute_command("INFO", "replication"))
    name = (
        f"Valkey {server['valkey_version']}"
        if "valkey_version" in server
        else f"Redis {server.get('redis_version', '(version unknown)')}"
    )
    appendonly = persistence.get("aof_enabled") == "1"
    replicas = int(replication.get("connected_slaves", "0"))
    role = replication.get("role", "unknown")
    facts: dict[str, Any] = {
        "address": node.address,
        "server": name,
        "appendonly": appendonly,
        "role": role,
        "replicas": replicas,
    }
    if durability.kind == "aof":
        facts["appendfsync"] = await _appendfsync(node)
    # The wait itself, as each write will send it: a Redis without the command, a primary
    # without its append-only file or replicas, a user whose ACL forbids it all answer here.
    error = ""
    try:
        reply = await node.execute_command(*durability.wait_command(store_timeout))
    except ResponseError as exc:
        error = str(exc)
        reply = None
    fsync = facts.get("appendfsync")
    if error == "" and durability.confirmed(reply) and fsync in (None, "always"):
        return facts
    if durability.kind == "aof" and error == "" and durability.confirmed(reply):
        # With `everysec` a write is confirmed once Redis fsyncs, about once a second: a lone
        # move would wait for it. Worse, some versions (Redis before its fix "Fix wrongly
        # updating fsynced_reploff_pending when appendfsync=everysecond", and Valkey 9.1.2 as
        # measured here: 20 writes confirmed, 3 fdatasync calls) mark every write
        # fsynced when less than a second has passed since the last fsync: WAITAOF then
        # confirms writes that are not on disk.
        raise Refused(
            f"--durability aof needs Redis to fsync every write (appendfsync always), and the"
            f" store at {node.address} ({name}) runs with appendfsync {fsync}: there WAITAOF"
            " confirms a write at Redis's next fsync, about once a second, and on some versions"
            " before it. Start Redis with --appendfsync always, or keep --durability none with"
            ' such a Redis (docs/deployment.md, "Durability")'
        )
    if durability.kind == "aof":
        raise Refused(
            f"--durability aof needs Redis 7.2 or newer (its WAITAOF command) running with"
            f" appendonly yes and appendfsync always, and the store at {node.address} is {name}"
            f" with appendonly {'yes' if appendonly else 'no'}{_because(error)}. Start Redis 7.2"
            " or newer with --appendonly yes --appendfsync always, or keep --durability none"
            " with a Redis (7.0 or newer) started so"
            ' (docs/deployment.md, "Durability")'
        )
    raise Refused(
        f"--durability {durability} needs {durability.replicas} replica(s) of each master"
        f" acknowledging its writes, and the store at {node.address} ({name}) is a {role} with"
        f" {replicas} replica(s) connected{_because(error)}"
        ' (docs/deployment.md, "Durability")'
    )


async def _appendfsync(node: RespClient) -> str:
    """The Redis's fsync policy, which INFO does not tell; Refused when CONFIG is not allowed
    (managed services rename or forbid it): then it cannot be checked."""
    try:
        reply = await node.execute_command("CONFIG", "GET", "appendfsync")
    except ResponseError as exc:
        raise Refused(
            f"--durability aof needs Redis to fsync every write (appendfsync always), and the"
            f" store at {node.address} does not let CONFIG GET appendfsync read it ({exc}): use"
            ' --durability replicas:N there (docs/deployment.md, "Durability")'
        ) from exc
    values = [v.decode() if isinstance(v, bytes) else str(v) for v in reply]
    return dict(zip(values[::2], values[1::2], strict=True)).get("appendfsync", "unknown")


def _because(error: str) -> str:
    return f" (it answered: {error})" if error else ""


def _info(reply: Any) -> dict[str, str]:
    """INFO's text as fields."""
    text = reply.decode(errors="replace") if isinstance(reply, bytes) else str(reply)
    fields: dict[str, str] = {}
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and not name.startswith("#"):
            fields[name.strip()] = value.strip()
    return fields


def _shown(url: str) -> str:
    """`url` without its credentials."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rpartition('@')[2]}"
