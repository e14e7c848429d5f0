"""The Kubernetes manifests in deploy/kubernetes: valid against the Kubernetes schemas (kubernetes-validate, the
schemas bundled, nothing fetched), and the taskgate config and policy their ConfigMaps carry compile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import kubernetes_validate.utils
import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from taskgate.gateway.config import parse_config
from taskgate.proxy.app import create_app, default_registry

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))
KUBERNETES = "1.33.0"


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_there_are_the_two_shapes() -> None:
    assert [p.name for p in MANIFESTS] == ["gateway.yaml", "sidecar.yaml"]
    kinds = {d["kind"] for d in documents(MANIFESTS[0])}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap", "Secret"} <= kinds


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_is_valid_against_the_kubernetes_schemas(path: Path) -> None:
    for document in documents(path):
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_the_validator_refuses_what_kubernetes_would() -> None:
    deployment = next(d for d in documents(MANIFESTS[0]) if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["pth"] = "/readyz"
    with pytest.raises(kubernetes_validate.utils.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES, strict=True)


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_config_and_policy_in_the_configmaps_compile(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data: dict[str, str] = {}
    for document in documents(path):
        if document["kind"] == "ConfigMap":
            data.update(document["data"])
    (tmp_path / "policy.csv").write_text(data["policy.csv"])
    config = data["config.yaml"].replace("/etc/taskgate/policy/policy.csv", str(tmp_path / "policy.csv"))
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    monkeypatch.setenv("TASKGATE_TASK_KEY_PEM", pem.decode())
    registry = default_registry()
    parsed = parse_config(yaml.safe_load(config), str(path), registry)
    create_app(parsed, registry)  # every step built, every plan compiled, as `taskgate serve` would


def test_probes_ask_readiness_of_what_the_pod_serves() -> None:
    gateway = next(d for d in documents(MANIFESTS[0]) if d["kind"] == "Deployment")
    container = gateway["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    sidecar = next(d for d in documents(MANIFESTS[1]) if d["kind"] == "ConfigMap")
    assert "host: 127.0.0.1" in sidecar["data"]["config.yaml"]  # the agent beside it only
