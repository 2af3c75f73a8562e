"""Server settings: every setting is a flag with an environment variable as its default.

`croupier-server --help` lists them; docs and README name the same flags and variables.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croupier.service.store.durability import NONE, Durability


def _setting(default: Any, env: str | None, help: str, **extra: Any) -> Any:
    return field(default=default, metadata={"env": env, "help": help, **extra})


def _int_or_off(text: str) -> int | None:
    return None if text.strip().lower() == "off" else int(text)


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = _setting("[::]", "CROUPIER_HOST", "address to bind")
    port: int = _setting(50051, "CROUPIER_PORT", "port to bind (0: any free port)")
    redis_url: str | None = _setting(
        None,
        "CROUPIER_REDIS_URL",
        "redis://host:port/0 (rediss:// over TLS, unix:///path/redis.sock), or"
        " redis+cluster://host:port for a Redis Cluster (rediss+cluster:// over TLS); without it"
        " a private redis-server child is started, or games are kept in memory when none is"
        " installed",
    )
    data_dir: str | None = _setting(
        None,
        "CROUPIER_DATA_DIR",
        "folder where that private redis-server keeps the games from one start to the next, in"
        " an append-only file fsynced every second; one server at a time; default"
        " $XDG_DATA_HOME/croupier/redis, else ~/.local/share/croupier/redis",
        shown=lambda environ: str(default_data_dir(environ)),
    )
    ephemeral: bool = _setting(
        False,
        "CROUPIER_EPHEMERAL",
        "start that private redis-server in a temporary folder instead, removed when the server"
        " stops: no game is kept (--data-dir is then unused)",
    )
    workers: int = _setting(1, "CROUPIER_WORKERS", "server processes sharing the port")
    pin_workers: bool = _setting(
        False,
        "CROUPIER_PIN_WORKERS",
        "pin each server process (each of --workers) to one CPU of those it may use, in"
        " turn, so that each takes the one-CPU setting of auto (SCHED_BATCH): for cores that"
        " are the server's alone (docs/deployment.md)",
    )
    cpu_policy: str = _setting(
        "auto",
        "CROUPIER_CPU_POLICY",
        "Linux scheduling policy of the server's threads: normal; batch for cores given to the"
        " server alone (less CPU per call; with other work busy on its cores, milliseconds"
        " more per call: docs/deployment.md); auto (the default): batch when the process may"
        " run on one CPU only (its CPU affinity), else normal",
        choices=["auto", "normal", "batch"],
    )
    log_format: str = _setting(
        "json", "CROUPIER_LOG_FORMAT", "json or console", choices=["json", "console"]
    )
    log_level: str = _setting("info", "CROUPIER_LOG_LEVEL", "debug, info, warning or error")
    game_ttl_seconds: int = _setting(
        7 * 24 * 3600, "CROUPIER_GAME_TTL", "seconds a game without moves is kept"
    )
    finished_ttl_seconds: int = _setting(
        24 * 3600, "CROUPIER_FINISHED_TTL", "seconds a finished game is kept"
    )
    request_ttl_seconds: int = _setting(
        3600, "CROUPIER_REQUEST_TTL", "seconds a move's request id is remembered"
    )
    # A CreateGame retry returns the seat credentials again, so its record is kept briefly.
    create_request_ttl_seconds: int = _setting(
        600, "CROUPIER_CREATE_REQUEST_TTL", "seconds a CreateGame request id is remembered"
    )
    store_timeout_seconds: float = _setting(
        2.0, "CROUPIER_STORE_TIMEOUT", "seconds to wait for the store before UNAVAILABLE"
    )
    # Durability is frozen: its one default instance is shared safely (RUF009 cannot tell).
    durability: Durability = _setting(  # noqa: RUF009
        NONE,
        "CROUPIER_DURABILITY",
        "when a write is acknowledged: none (once Redis has applied it: durable as far as"
        " that Redis's own appendfsync makes it), aof (once fsynced to the append-only file of"
        " the Redis that took it: WAITAOF, Redis 7.2+ with appendonly yes and appendfsync"
        " always, checked at start-up) or replicas:N (once N replicas have it: WAIT); a write"
        " not confirmed"
        " within --store-timeout is answered UNAVAILABLE (docs/deployment.md, Durability)",
    )
    state_cache_size: int = _setting(
        10_000,
        "CROUPIER_STATE_CACHE",
        "games whose last state each process remembers, so that their next move skips its read"
        " (a stale one costs a retry, never a wrong move; 0: always read)",
    )
    max_commit_attempts: int = _setting(
        32, None, "re-validations of one move under contention before ABORTED"
    )
    grace_seconds: float = _setting(
        10.0, "CROUPIER_GRACE", "seconds SIGTERM waits for in-flight calls"
    )
    shutdown_delay_seconds: float = _setting(
        0.0,
        "CROUPIER_SHUTDOWN_DELAY",
        "seconds between reporting NOT_SERVING on SIGTERM and refusing new calls",
    )
    clock_tick_seconds: float = _setting(
        0.2,
        "CROUPIER_CLOCK_TICK",
        "seconds between two sweeps of the turn clocks' due deadlines (timeouts fire at most"
        " about this late, plus the sweep's own time)",
    )
    health_interval_seconds: float = _setting(
        1.0,
        "CROUPIER_HEALTH_INTERVAL",
        "seconds between two pings of the store, which set health's SERVING or NOT_SERVING",
    )
    watch_poll_seconds: float = _setting(
        5.0,
        "CROUPIER_WATCH_POLL",
        "seconds a watch stream waits for a notification before it reads the game itself",
    )
    operator_key: str | None = _setting(
        None,
        "CROUPIER_OPERATOR_KEY",
        "when set, CreateGame needs 'authorization: Bearer <key>' (several keys: comma-separated)",
        secret=True,
    )
    tls_cert: str | None = _setting(
        None, "CROUPIER_TLS_CERT", "PEM certificate chain file: serve TLS (with --tls-key)"
    )
    tls_key: str | None = _setting(None, "CROUPIER_TLS_KEY", "PEM private key file for TLS")
    max_message_bytes: int = _setting(
        64 * 1024, "CROUPIER_MAX_MESSAGE_BYTES", "largest request message accepted"
    )
    max_seats: int = _setting(
        12, "CROUPIER_MAX_SEATS", "most seats a game may be created with (within its rules)"
    )
    # Spectators (streams without a credential) and seats are counted apart, so that spectators
    # never crowd out a seat (service/croupier/service/application/limits.py: StreamCount).
    max_watchers_per_game: int = _setting(
        100,
        "CROUPIER_MAX_WATCHERS",
        "spectator streams per game on one process (0: no limit)",
    )
    max_streams_per_address: int = _setting(
        50,
        "CROUPIER_MAX_STREAMS_PER_ADDRESS",
        "spectator streams per client address (IPv6: per /64) on one process (0: no limit)",
    )
    max_streams_per_seat: int = _setting(
        8,
        "CROUPIER_MAX_STREAMS_PER_SEAT",
        "watch streams and sessions per seat on one process: the seat's devices (0: no limit)",
    )
    max_spectator_streams: int = _setting(
        2_000,
        "CROUPIER_MAX_SPECTATOR_STREAMS",
        "spectator streams open on one process, apart from the seats' (--max-watch-streams);"
        " more are refused with OVERLOADED (0: no limit)",
    )
    # Beyond these a call is refused at once with UNAVAILABLE / OVERLOADED (docs/decisions.md).
    max_calls_in_flight: int = _setting(
        1000,
        "CROUPIER_MAX_CALLS_IN_FLIGHT",
        "calls (other than watch streams) one process handles at once; more are refused with"
        " OVERLOADED (0: no limit)",
    )
    max_watch_streams: int = _setting(
        5_000,
        "CROUPIER_MAX_WATCH_STREAMS",
        "seats' watch streams and sessions open on one process; more are refused with OVERLOADED"
        " (0: no limit)",
    )
    rate_limit: float = _setting(
        1000.0, "CROUPIER_RATE_LIMIT", "calls per second per credential on one process (0: off)"
    )
    rate_burst: float = _setting(
        2000.0, "CROUPIER_RATE_BURST", "calls a credential may make at once above the rate"
    )
    # Calls without a credential (spectators, and CreateGame when no operator key is set) are
    # counted per client address instead: low enough to stop one address flooding the store
    # with games, high enough for a room of players and spectators behind one NAT.
    anonymous_rate_limit: float = _setting(
        100.0,
        "CROUPIER_ANONYMOUS_RATE_LIMIT",
        "calls per second without a credential per client address (IPv6: per /64) on one"
        " process (0: off)",
    )
    anonymous_rate_burst: float = _setting(
        400.0,
        "CROUPIER_ANONYMOUS_RATE_BURST",
        "calls without a credential one address may make at once above the rate",
    )
    benchmark_service: bool = _setting(
        False,
        "CROUPIER_BENCHMARK_SERVICE",
        "also serve croupier.v1.BenchmarkService/Echo, the baseline of croupier-bench (off by"
        " default: it answers small requests with up to 64 KiB, without a credential)",
    )
    metrics_port: int = _setting(
        0,
        "CROUPIER_METRICS_PORT",
        "serve Prometheus metrics over HTTP on this port (0: off; with --workers, worker i"
        " uses this port + i)",
    )
    web_port: int | None = _setting(
        None,
        "CROUPIER_WEB_PORT",
        "port of the web gateway for browsers (gRPC-Web and the Connect protocol; 0: any free"
        " port); off when unset",
    )
    web_origins: str = _setting(
        "",
        "CROUPIER_WEB_ORIGINS",
        "comma-separated origins whose pages may call the web gateway (CORS); * for any",
    )
    feed_moves: bool = _setting(
        False,
        "CROUPIER_FEED_MOVES",
        "also append every move to the event feed (games created, seats joined and games"
        " finished always are)",
    )
    feed_max_len: int = _setting(
        100_000,
        "CROUPIER_FEED_MAX_LEN",
        "entries each of the event feed's 8 streams keeps, about (older ones are trimmed)",
    )
    page_token_secret: str | None = _setting(
        None,
        "CROUPIER_PAGE_TOKEN_SECRET",
        "key that signs ListGames page tokens, the same on every replica; unset: a random one"
        " kept in Redis, made by the first replica that needs it",
        secret=True,
    )
    reuse_port: bool = _setting(
        False, None, "bind with SO_REUSEPORT (set for the processes of --workers)"
    )


def _flag(name: str) -> str:
    return "--" + name.removesuffix("_seconds").replace("_", "-")


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def parse_bool(text: str) -> bool:
    """An environment variable's boolean: `bool("false")` is True, so words are read here."""
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false, 1/0, yes/no, on/off)")


def _parser_of(annotation: Any) -> Callable[[str], Any]:
    """How to read a setting of type `annotation` from text (`int | None`: an int, or `off`)."""
    optional = isinstance(annotation, types.UnionType)
    if optional:
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
    if annotation is bool:
        return parse_bool
    if annotation is Durability:
        return _durability
    if optional and annotation is int:
        return _int_or_off
    if annotation in (int, float, str):
        parse: Callable[[str], Any] = annotation
        return parse
    raise TypeError(f"no parser for settings of type {annotation!r}")


def _durability(text: str) -> Durability:
    """`--durability`'s value; argparse shows the message of an ArgumentTypeError as it is."""
    try:
        return Durability.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def parse(argv: list[str] | None = None, environ: dict[str, str] | None = None) -> Settings:
    environ = dict(os.environ) if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="croupier-server", description="Run the Croupier gRPC server."
    )
    annotations = typing.get_type_hints(Settings)
    for f in dataclasses.fields(Settings):
        meta = f.metadata
        if not meta.get("help"):
            continue
        env = meta["env"]
        kind = _parser_of(annotations[f.name])
        try:
            default = f.default if env is None or env not in environ else kind(environ[env])
        except (ValueError, argparse.ArgumentTypeError) as exc:
            parser.error(f"{env}: {exc}")
        help_text = meta["help"]
        if "shown" in meta:  # a default that depends on the environment, resolved for --help
            try:
                shown = meta["shown"](environ)
            except RuntimeError as exc:
                shown = f"unknown: {exc}"
            help_text += " (here: " + shown.replace("%", "%%") + ")"
        help_text += f"; env {env}" if env else ""
        if kind is parse_bool:
            parser.add_argument(
                _flag(f.name),
                dest=f.name,
                action=argparse.BooleanOptionalAction,
                default=default,
                help=help_text,
            )
            continue
        parser.add_argument(
            _flag(f.name),
            dest=f.name,
            type=kind,
            default=default,
            choices=meta.get("choices"),
            help=help_text,
        )
    values = vars(parser.parse_args(argv))
    for name in (
        "redis_url", "data_dir", "operator_key", "tls_cert", "tls_key", "page_token_secret",
    ):  # fmt: skip
        values[name] = values[name] or None
    settings = Settings(**values)
    if (settings.tls_cert is None) != (settings.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    return settings


def to_args(settings: Settings) -> tuple[list[str], dict[str, str]]:
    """The flags and environment that give `settings` again (for the processes of --workers).
    Secrets travel in the environment, never on a command line."""
    args: list[str] = []
    env: dict[str, str] = {}
    for f in dataclasses.fields(Settings):
        if not f.metadata.get("help"):
            continue
        if f.metadata.get("secret"):
            if getattr(settings, f.name) is not None:
                env[f.metadata["env"]] = getattr(settings, f.name)
            continue
        value = getattr(settings, f.name)
        if isinstance(value, bool):
            # Explicit both ways: a child's environment could otherwise turn a flag back on.
            args += [_flag(f.name) if value else "--no-" + _flag(f.name).removeprefix("--")]
        elif value is not None:
            args += [_flag(f.name), str(value)]
        elif f.default is not None:
            args += [_flag(f.name), "off"]  # (None of an `int | None` setting reads as off)
    return args, env


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The embedded store's folder without --data-dir: in the user's data directory, where the
    XDG Base Directory specification puts it ($XDG_DATA_HOME, else ~/.local/share). Raises
    RuntimeError when there is no home directory to find it in."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):  # unset, or relative, which the specification says to ignore
        base = os.path.join(environ.get("HOME") or Path.home(), ".local", "share")
    return Path(base) / "croupier" / "redis"


def data_dir_of(settings: Settings, environ: Mapping[str, str] | None = None) -> Path:
    """The folder of the embedded store when it keeps its games (not --ephemeral)."""
    if settings.data_dir:
        return Path(settings.data_dir).expanduser()
    return default_data_dir(environ)


def allowed_cpus() -> list[int] | None:
    """The CPUs this process may run on (its CPU affinity), in order, or None where the
    system does not say (not Linux)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return None if affinity is None else sorted(affinity(0))


def cpus_allowed() -> int | None:
    """How many CPUs this process may run on, or None where the system does not say."""
    cpus = allowed_cpus()
    return None if cpus is None else len(cpus)


def one_cpu(cpus: int | None = None) -> bool:
    """Whether this process may run on one CPU only (`cpus`, by default `cpus_allowed()`):
    what `--cpu-policy auto` takes for a core given to the server (`taskset`, a container's
    cpuset, Kubernetes' static CPU manager), where its threads cannot float."""
    return (cpus_allowed() if cpus is None else cpus) == 1


def cpu_policy_of(setting: str, cpus: int | None = None) -> str:
    """The scheduling policy for a `--cpu-policy` setting: `auto` is batch on one CPU
    (`one_cpu`), where the server's threads take turns on one core and a waking thread
    preempting the event loop is only a context switch more (docs/decisions.md, "CPU
    policy"), else normal."""
    if setting != "auto":
        return setting
    return "batch" if one_cpu(cpus) else "normal"
