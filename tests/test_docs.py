"""The docs stay true to the code."""

from __future__ import annotations

import re
from pathlib import Path

from service.config import parse
from service.errors import Reason

ROOT = Path(__file__).resolve().parent.parent


def test_every_error_reason_is_in_docs_api() -> None:
    documented = set(re.findall(r"`([A-Z][A-Z_]+)`", (ROOT / "docs" / "api.md").read_text()))
    missing = {reason.value for reason in Reason} - documented
    assert not missing, f"reasons not in docs/api.md: {sorted(missing)}"


def test_readme_settings_exist() -> None:
    """Every flag the README names is a real croupier-server flag."""
    readme = (ROOT / "README.md").read_text()
    flags = set(re.findall(r"`(--[a-z-]+)`", readme))
    parse([])  # the defaults parse
    for flag in flags - {"--target", "--game", "--players", "--bots", "--seed", "--human"}:
        value = "1" if flag not in ("--log-format",) else "json"
        if flag in ("--tls-cert", "--tls-key"):
            continue  # they go together and need files
        if flag in ("--benchmark-service", "--feed-moves"):  # a switch: no value
            parse([flag])
            continue
        parse([flag, value] if flag not in ("--redis-url", "--operator-key") else [flag, "x"])
