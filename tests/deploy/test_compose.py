"""deploy/compose.yaml, without Docker: it parses, every reference names a service that
exists, every `service_healthy` condition waits on a real healthcheck, and the replicas, Redis
and the load-test job agree on names, ports and the image."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from croupier.service.application import config
from tests.deploy import DEPLOY, REPO

COMPOSE = DEPLOY / "compose.yaml"
REPLICAS = ("croupier-1", "croupier-2")
PORT = 50051

Service = dict[str, Any]


@pytest.fixture(scope="module")
def services() -> dict[str, Service]:
    document = yaml.safe_load(COMPOSE.read_text())  # merges the x-croupier anchor (<<:)
    assert isinstance(document, dict)
    found: dict[str, Service] = document["services"]
    return found


def seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration)
    assert parts, duration
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(float(number) * units[unit] for number, unit in parts)


def has_healthcheck(service: Service) -> bool:
    check = service.get("healthcheck")
    return isinstance(check, dict) and not check.get("disable") and bool(check.get("test"))


def test_the_services(services: dict[str, Service]) -> None:
    assert set(services) == {"redis", *REPLICAS, "loadtest"}


def test_depends_on_names_services_and_waits_for_real_healthchecks(
    services: dict[str, Service],
) -> None:
    for name, service in services.items():
        for dependency, condition in service.get("depends_on", {}).items():
            assert dependency in services, f"{name} depends on unknown {dependency}"
            assert dependency != name
            assert condition["condition"] in ("service_healthy", "service_started")
            if condition["condition"] == "service_healthy":
                assert has_healthcheck(services[dependency]), f"{dependency} has no healthcheck"
    for replica in REPLICAS:
        assert services[replica]["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert services["loadtest"]["depends_on"] == {
        replica: {"condition": "service_healthy"} for replica in REPLICAS
    }


def test_healthchecks(services: dict[str, Service]) -> None:
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    for replica in REPLICAS:
        check = services[replica]["healthcheck"]
        assert check["test"][:4] == ["CMD", "python", "-m", "croupier.healthcheck"]
        for key in ("interval", "timeout", "start_period"):
            assert seconds(check[key]) > 0
    assert services["loadtest"]["healthcheck"] == {"disable": True}


def test_replicas_share_redis_and_the_image(services: dict[str, Service]) -> None:
    for replica in REPLICAS:
        service = services[replica]
        url = service["environment"]["CROUPIER_REDIS_URL"]
        assert re.fullmatch(r"redis://redis:6379/\d+", url), url
        assert service["environment"]["CROUPIER_LOG_FORMAT"] == "json"
        assert service["image"] == services["loadtest"]["image"]
        # Drain (health NOT_SERVING, then in-flight calls for up to the grace) before SIGKILL.
        assert seconds(service["stop_grace_period"]) > config.Settings().grace_seconds
        assert service["read_only"] is True
        assert service["cap_drop"] == ["ALL"]
    published = [services[r]["ports"][0] for r in REPLICAS]
    assert published == [f"50051:{PORT}", f"50052:{PORT}"]


def test_every_build_uses_the_dockerfile_from_the_repository_root(
    services: dict[str, Service],
) -> None:
    builds = [s["build"] for s in services.values() if "build" in s]
    assert len(builds) == 3
    for build in builds:
        context = (COMPOSE.parent / build["context"]).resolve()
        assert context == REPO
        assert (context / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"


def test_load_test_targets_a_replica(services: dict[str, Service]) -> None:
    job = services["loadtest"]
    assert job["entrypoint"] == ["croupier-bench"]
    command: list[str] = job["command"]
    target = command[command.index("--target") + 1]
    host, _, port = target.partition(":")
    assert host in REPLICAS
    assert int(port) == PORT
    # croupier-bench's baseline is Echo, served only when asked; its creates all come from one
    # address (docs/performance.md).
    settings = config.parse([], environ=services[host]["environment"])
    assert settings.benchmark_service
    assert settings.anonymous_rate_limit == 0
    assert int(command[command.index("--duration") + 1]) > 0
    assert int(command[command.index("--concurrency") + 1]) > 0
    assert job["restart"] == "no"
