"""`--durability` (CROUPIER_DURABILITY): its values, how they are read and written back, the wait
each one sends after a write and which replies confirm it."""

from __future__ import annotations

import dataclasses

import pytest

from croupier.service.application.config import parse, to_args
from croupier.service.store.durability import NONE, Durability


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("none", Durability("none")),
        ("aof", Durability("aof")),
        (" AOF ", Durability("aof")),
        ("replicas:1", Durability("replicas", 1)),
        ("Replicas:3", Durability("replicas", 3)),
    ],
)
def test_the_values(text: str, expected: Durability) -> None:
    assert Durability.parse(text) == expected
    assert Durability.parse(str(expected)) == expected  # written back as it reads


@pytest.mark.parametrize(
    "text", ["", "always", "fsync", "replicas", "replicas:", "replicas:0", "replicas:-1", "aof:1"]
)
def test_other_values_are_refused_naming_the_valid_ones(text: str) -> None:
    with pytest.raises(ValueError, match=r"none, aof, or replicas:N"):
        Durability.parse(text)


def test_the_default_waits_for_nothing() -> None:
    settings = parse([], environ={})
    assert settings.durability == NONE
    assert not settings.durability.waits
    with pytest.raises(ValueError, match="waits for nothing"):
        NONE.wait_command(2.0)


def test_flag_and_environment_variable() -> None:
    assert parse(["--durability", "aof"], environ={}).durability == Durability("aof")
    environ = {"CROUPIER_DURABILITY": "replicas:2"}
    assert parse([], environ=environ).durability == Durability("replicas", 2)
    assert parse(["--durability", "none"], environ=environ).durability == NONE  # the flag wins


@pytest.mark.parametrize(
    ("argv", "environ", "named"),
    [
        (["--durability", "always"], {}, "argument --durability"),
        ([], {"CROUPIER_DURABILITY": "replicas:0"}, "CROUPIER_DURABILITY"),
    ],
)
def test_a_bad_value_stops_with_a_message_naming_the_setting(
    argv: list[str], environ: dict[str, str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse(argv, environ=environ)
    error = capsys.readouterr().err
    assert named in error
    assert "none, aof, or replicas:N" in error


@pytest.mark.parametrize("value", ["none", "aof", "replicas:2"])
def test_workers_are_given_the_same_setting(value: str) -> None:
    settings = dataclasses.replace(parse([], environ={}), durability=Durability.parse(value))
    args, environ = to_args(settings)
    assert args[args.index("--durability") + 1] == value
    assert parse(args, environ=environ) == settings


def test_the_waits_leave_time_for_their_answer_within_the_store_timeout() -> None:
    """Redis answers a wait up to about 100 ms after its timeout: the wait's own is shorter
    than --store-timeout by a tenth of it, and by 250 ms at least."""
    assert Durability("aof").wait_command(2.0) == ("WAITAOF", 1, 0, 1750)
    assert Durability("replicas", 2).wait_command(2.0) == ("WAIT", 2, 1750)
    assert Durability("aof").wait_command(5.0) == ("WAITAOF", 1, 0, 4500)
    assert Durability("aof").wait_command(0.5) == ("WAITAOF", 1, 0, 250)
    assert Durability("aof").wait_command(0.2) == ("WAITAOF", 1, 0, 1)


@pytest.mark.parametrize(
    ("durability", "reply", "confirmed"),
    [
        (Durability("aof"), [1, 0], True),
        (Durability("aof"), [1, 2], True),
        (Durability("aof"), [0, 0], False),  # not fsynced in time
        (Durability("aof"), 1, False),  # not WAITAOF's reply
        (Durability("replicas", 2), 2, True),
        (Durability("replicas", 2), 3, True),
        (Durability("replicas", 2), 1, False),  # one replica has it
        (Durability("replicas", 2), [2, 0], False),
    ],
)
def test_which_replies_confirm(durability: Durability, reply: object, confirmed: bool) -> None:
    assert durability.confirmed(reply) is confirmed
