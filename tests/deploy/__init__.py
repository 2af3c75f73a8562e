"""Tests of deploy/: the container image, the compose file, the Kubernetes manifests, and the
gRPC health probe the image's HEALTHCHECK runs."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
