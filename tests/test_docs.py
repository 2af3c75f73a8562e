"""The docs stay true to the code."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from croupier.service.application.config import parse
from croupier.service.application.errors import Reason

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
        value = {"--log-format": "json", "--cpu-policy": "batch"}.get(flag, "1")  # choices
        if flag in ("--tls-cert", "--tls-key"):
            continue  # they go together and need files
        switches = ("--benchmark-service", "--feed-moves", "--pin-workers", "--ephemeral")
        if flag in switches:  # no value
            parse([flag])
            continue
        parse([flag, value] if flag not in ("--redis-url", "--operator-key") else [flag, "x"])


# Built from parts so that this file does not match itself.
OUTSIDE_REFERENCES = re.compile(
    r"\.\./" + "shared|" + r"\bshared" + r"/(?:rules|seeds)\b|\bST" + r"YLE\b"
)


def tracked_files() -> list[Path]:
    """The repository's files: git's list in a checkout, else every file but the installed
    and generated trees."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
        # Links aside: clients/python/croupier/{engines,service} name folders listed here too.
        paths = (ROOT / name for name in listing.split("\0") if name)
        return [path for path in paths if not path.is_symlink()]
    except (OSError, subprocess.CalledProcessError):
        skipped = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
        return [
            path
            for path in ROOT.rglob("*")
            if path.is_file()
            and not path.is_symlink()
            and not skipped & set(path.relative_to(ROOT).parts)
        ]


def test_nothing_refers_to_a_path_outside_the_repository() -> None:
    """The repository stands alone: the rules are docs/games/, not a folder next to it, and no
    file cites a style guide it does not contain."""
    found = []
    for path in tracked_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary, or deleted in the work tree
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE_REFERENCES.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "references outside the repository:\n" + "\n".join(found)


def test_every_metric_is_in_docs_deployment() -> None:
    """docs/deployment.md, "Metrics and logs", names every series the server exports."""
    from prometheus_client.metrics import MetricWrapperBase

    from croupier.service.observability import metrics

    names = {
        family.name
        for value in vars(metrics).values()
        if isinstance(value, MetricWrapperBase)
        for family in value.describe()
    }
    assert len(names) >= 10, names
    documented = (ROOT / "docs" / "deployment.md").read_text()
    missing = {name for name in names if name not in documented}
    assert not missing, f"series not in docs/deployment.md: {sorted(missing)}"
