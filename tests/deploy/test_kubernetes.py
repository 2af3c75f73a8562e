"""deploy/kubernetes: every manifest is valid against the Kubernetes schemas (strict: no unknown
field), every kustomization names existing files and builds, and the objects agree with each
other and with the server (ports, probes, labels, settings, shutdown timing)."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from croupier.service.application import config
from croupier.service.transport.server import SERVICE_NAME
from tests.deploy import DEPLOY

KUBERNETES = DEPLOY / "kubernetes"
# The oldest version the manifests are meant for (native gRPC probes are GA since 1.27,
# matchLabelKeys in topology spread since 1.27 beta), and the newest the validator knows.
VERSIONS = ["1.31", kubernetes_validate.latest_version()]
ROOTS = [KUBERNETES, KUBERNETES / "base", KUBERNETES / "dev"]
PORT = 50051
UID = 10001

Obj = dict[str, Any]


def documents(path: Path) -> list[Obj]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def manifest_files() -> list[Path]:
    return sorted(p for p in KUBERNETES.rglob("*.yaml") if p.name != "kustomization.yaml")


def kustomizations() -> list[Path]:
    return sorted(KUBERNETES.rglob("kustomization.yaml"))


def every_object() -> Iterator[tuple[Path, Obj]]:
    for path in manifest_files():
        for obj in documents(path):
            yield path, obj


def find(kind: str, name: str, root: Path = KUBERNETES / "base") -> Obj:
    for path in root.glob("*.yaml"):
        for obj in documents(path):
            if obj.get("kind") == kind and obj["metadata"]["name"] == name:
                return obj
    raise AssertionError(f"no {kind} {name} in {root}")


def pod_spec() -> Obj:
    spec: Obj = find("Deployment", "croupier")["spec"]["template"]["spec"]
    return spec


def container() -> Obj:
    containers: list[Obj] = pod_spec()["containers"]
    assert len(containers) == 1
    return containers[0]


def config_data() -> dict[str, str]:
    data: dict[str, str] = find("ConfigMap", "croupier-config")["data"]
    return data


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def test_there_are_manifests() -> None:
    kinds = {obj["kind"] for _, obj in every_object()}
    assert kinds >= {
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "ConfigMap",
        "Secret",
        "StatefulSet",
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", manifest_files(), ids=lambda p: str(p.relative_to(KUBERNETES)))
def test_manifest_is_valid_against_the_kubernetes_schemas(path: Path, version: str) -> None:
    objects = documents(path)
    assert objects, f"{path} holds no object"
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(part) for part in error.path)
            pytest.fail(f"{path.name}: {obj['kind']}/{obj['metadata']['name']}: {where}: {error}")


@pytest.mark.parametrize("path", kustomizations(), ids=lambda p: str(p.relative_to(KUBERNETES)))
def test_kustomization_names_existing_resources(path: Path) -> None:
    kustomization = yaml.safe_load(path.read_text())
    assert kustomization["kind"] == "Kustomization"
    assert kustomization["namespace"] == "croupier"
    for resource in kustomization["resources"]:
        target = (path.parent / resource).resolve()
        assert target.is_file() or (target / "kustomization.yaml").is_file(), resource


def test_every_manifest_is_in_a_kustomization() -> None:
    listed = set()
    for path in kustomizations():
        for resource in yaml.safe_load(path.read_text())["resources"]:
            listed.add((path.parent / resource).resolve())
    assert [p for p in manifest_files() if p.resolve() not in listed] == []


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
@pytest.mark.parametrize("root", ROOTS, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_kustomize_builds_valid_objects(root: Path) -> None:
    """What `kubectl apply -k` would send: built offline by kubectl's own kustomize."""
    built = subprocess.run(
        ["kubectl", "kustomize", str(root)], capture_output=True, text=True, timeout=60
    )
    assert built.returncode == 0, built.stderr
    objects = [d for d in yaml.safe_load_all(built.stdout) if d]
    for obj in objects:
        kubernetes_validate.validate(obj, VERSIONS[0], strict=True)
        if obj["kind"] != "Namespace":
            assert obj["metadata"]["namespace"] == "croupier"
    kinds = [obj["kind"] for obj in objects]
    assert "Deployment" in kinds
    assert ("Secret" in kinds) == (root != KUBERNETES / "base")
    assert ("StatefulSet" in kinds) == (root == KUBERNETES / "dev")


def test_selectors_and_labels_agree() -> None:
    deployment = find("Deployment", "croupier")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert matches(selector, pod_labels)
    for name in ("croupier", "croupier-headless"):
        assert matches(find("Service", name)["spec"]["selector"], pod_labels)
    assert find("PodDisruptionBudget", "croupier")["spec"]["selector"]["matchLabels"] == selector
    for constraint in pod_spec()["topologySpreadConstraints"]:
        assert constraint["labelSelector"]["matchLabels"] == selector
    target = find("HorizontalPodAutoscaler", "croupier")["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        "apps/v1",
        "Deployment",
        "croupier",
    )


def test_services_speak_grpc_on_the_container_port() -> None:
    ports = container()["ports"]
    assert ports == [{"name": "grpc", "containerPort": PORT, "protocol": "TCP"}]
    assert config_data()["CROUPIER_PORT"] == str(PORT)
    cluster_ip = find("Service", "croupier")["spec"]
    headless = find("Service", "croupier-headless")["spec"]
    assert cluster_ip["type"] == "ClusterIP"
    assert headless["clusterIP"] == "None"
    for spec in (cluster_ip, headless):
        assert spec["ports"] == [
            {
                "name": "grpc",
                "port": PORT,
                "targetPort": "grpc",
                "protocol": "TCP",
                "appProtocol": "grpc",
            }
        ]


def test_no_policy_for_cores_of_their_own() -> None:
    """The pods share their nodes' cores, so their threads keep the normal policy, also on a
    node of one CPU (a pod confined to it by the static CPU manager), where `auto` would choose
    batch."""
    settings = config.parse([], environ=config_data())
    assert config.cpu_policy_of(settings.cpu_policy, cpus=1) == "normal"


def test_probes_use_the_grpc_health_protocol() -> None:
    readiness = container()["readinessProbe"]
    liveness = container()["livenessProbe"]
    assert readiness["grpc"] == {"port": PORT, "service": SERVICE_NAME}
    # "liveness" stays SERVING during a Redis outage, so no pod restarts for one.
    assert liveness["grpc"] == {"port": PORT, "service": "liveness"}
    assert liveness["periodSeconds"] * liveness["failureThreshold"] >= 30
    assert readiness["periodSeconds"] * readiness["failureThreshold"] <= 15


def test_termination_grace_covers_prestop_delay_and_drain() -> None:
    pre_stop = container()["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    sleep = float(pre_stop[1])
    data = config_data()
    drain = float(data["CROUPIER_SHUTDOWN_DELAY"]) + float(data["CROUPIER_GRACE"])
    assert drain >= config.Settings().grace_seconds
    grace_period = pod_spec()["terminationGracePeriodSeconds"]
    assert sleep + drain + 2 <= grace_period <= sleep + drain + 30


def test_configuration_names_real_settings() -> None:
    """Every ConfigMap key and the Secret's key are environment variables the server reads."""
    known = {f.metadata["env"] for f in dataclasses.fields(config.Settings)}
    assert set(config_data()) <= known
    secrets = [obj for _, obj in every_object() if obj["kind"] == "Secret"]
    assert len(secrets) == 2  # the production example and the dev Redis
    for secret in secrets:
        assert secret["metadata"]["name"] == "croupier-redis"
        assert set(secret["stringData"]) == {"CROUPIER_REDIS_URL"} <= known
        assert re.match(r"^rediss?(\+cluster)?://", secret["stringData"]["CROUPIER_REDIS_URL"])
    env_from = container()["envFrom"]
    assert env_from == [
        {"configMapRef": {"name": "croupier-config"}},
        {"secretRef": {"name": "croupier-redis"}},
    ]


def test_pods_are_locked_down() -> None:
    pod = pod_spec()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == UID  # the image's USER
    assert pod["automountServiceAccountToken"] is False
    security = container()["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    mounts = {m["mountPath"] for m in container()["volumeMounts"]}
    assert mounts == {"/tmp"}


def test_resources_and_scaling() -> None:
    resources = container()["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}
    deployment = find("Deployment", "croupier")
    assert "replicas" not in deployment["spec"], "the HorizontalPodAutoscaler owns replicas"
    hpa = find("HorizontalPodAutoscaler", "croupier")["spec"]
    assert hpa["minReplicas"] >= 2
    assert hpa["maxReplicas"] > hpa["minReplicas"]
    assert [m["resource"]["name"] for m in hpa["metrics"]] == ["cpu"]
    pdb = find("PodDisruptionBudget", "croupier")["spec"]
    assert pdb["maxUnavailable"] < hpa["minReplicas"]
    zones = [c["topologyKey"] for c in pod_spec()["topologySpreadConstraints"]]
    assert zones == ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]
