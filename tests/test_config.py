"""Settings are read by their declared types: booleans from words, numbers checked."""

from __future__ import annotations

import dataclasses
import os

import pytest
import structlog.testing

from croupier.service.application.config import (
    cpu_policy_of,
    cpus_allowed,
    parse,
    parse_bool,
    to_args,
)
from croupier.service.main import set_cpu_policy, worker_cpus


@pytest.mark.parametrize("word", ["1", "true", "True", "YES", "on", " true "])
def test_true_words(word: str) -> None:
    assert parse_bool(word) is True


@pytest.mark.parametrize("word", ["0", "false", "False", "no", "OFF", ""])
def test_false_words(word: str) -> None:
    """`bool("false")` is True in Python: the parser must not use it."""
    assert parse_bool(word) is False


def test_other_words_are_refused() -> None:
    with pytest.raises(ValueError, match="not a boolean"):
        parse_bool("maybe")


def test_environment_values_take_their_declared_types() -> None:
    settings = parse(
        [],
        environ={
            "CROUPIER_PORT": "6000",
            "CROUPIER_STORE_TIMEOUT": "0.25",
            "CROUPIER_WEB_PORT": "8080",  # `int | None`
            "CROUPIER_LOG_FORMAT": "console",
        },
    )
    assert (settings.port, settings.store_timeout_seconds) == (6000, 0.25)
    assert (settings.web_port, settings.log_format) == (8080, "console")


def test_a_malformed_environment_value_is_an_error_naming_the_variable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse([], environ={"CROUPIER_PORT": "fifty"})
    assert "CROUPIER_PORT" in capsys.readouterr().err


@pytest.mark.parametrize("reuse_port", [True, False])
def test_to_args_gives_the_same_settings_again(reuse_port: bool) -> None:
    """What --workers hands its processes: flags (and secrets in the environment) that parse
    back to the same settings, booleans both ways."""
    settings = dataclasses.replace(
        parse([], environ={}),
        reuse_port=reuse_port,
        pin_workers=not reuse_port,
        operator_key="k",
        web_port=0,
    )
    args, environ = to_args(settings)
    assert "k" not in args
    assert parse(args, environ=environ) == settings
    # A boolean turned off by a flag stays off.
    assert parse(["--no-reuse-port"], environ={}).reuse_port is False


def test_a_cpu_policy_the_system_refuses_stops_the_server_or_is_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linux always grants SCHED_BATCH (tests/service/test_operations.py starts real servers
    with it); elsewhere the call is missing or refused, which must not go unnoticed."""

    def refuse(pid: int, policy: int, param: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    set_cpu_policy("normal")  # asks for nothing
    with pytest.raises(SystemExit, match="--cpu-policy batch: cannot set SCHED_BATCH here"):
        set_cpu_policy("batch")
    # Chosen by `auto` (on one CPU), a refusal is a warning: the server runs as normal.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    with structlog.testing.capture_logs() as logs:
        set_cpu_policy("auto")
    assert [line["event"] for line in logs] == ["cpu_policy_refused"]


def test_the_auto_policy_where_the_system_names_no_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not Linux (no CPU affinity to read): the normal policy, never a crash."""
    monkeypatch.delattr(os, "sched_getaffinity")
    assert cpus_allowed() is None
    assert cpu_policy_of("auto") == "normal"


def test_auto_cpu_policy_is_batch_only_on_one_cpu() -> None:
    assert parse([], environ={}).cpu_policy == "auto"
    assert cpu_policy_of("auto", cpus=1) == "batch"
    assert cpu_policy_of("auto", cpus=2) == "normal"
    assert cpu_policy_of("normal", cpus=1) == "normal"
    assert cpu_policy_of("batch", cpus=4) == "batch"


def test_pinned_workers_take_the_cpus_the_server_may_use_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parse([], environ={}).pin_workers is False
    assert worker_cpus(parse([], environ={})) is None
    assert parse([], environ={"CROUPIER_PIN_WORKERS": "yes"}).pin_workers is True
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5, 2, 7})
    assert worker_cpus(parse(["--pin-workers"], environ={})) == [2, 5, 7]
    # Not Linux: asked for, pinning cannot happen, and the server says so rather than start.
    monkeypatch.delattr(os, "sched_getaffinity")
    with pytest.raises(SystemExit, match="--pin-workers needs Linux"):
        worker_cpus(parse(["--pin-workers"], environ={}))
