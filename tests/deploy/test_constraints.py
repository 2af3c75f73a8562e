"""deploy/constraints.txt pins every package the project installs, and `make install` and the
image's builder install those versions: a release published after the suite passed changes
nothing until `make lock` takes it."""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.deploy import DEPLOY, REPO

CONSTRAINTS = DEPLOY / "constraints.txt"
# The project's own distributions, installed from the tree (editable), not pinned.
OWN = {"croupier", "croupier-client"}
# What installs the rest: `make install` upgrades the virtualenv's pip to the pinned one.
INSTALLER = {"pip"}


def pins() -> dict[str, str]:
    """Each pinned distribution (canonical name) and its version."""
    pinned: dict[str, str] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line.strip())
        assert match, f"not a name==version pin: {line!r}"
        name = canonicalize_name(match.group(1))
        assert name not in pinned, f"pinned twice: {name}"
        pinned[name] = match.group(2)
    return pinned


def required(root: str, extras: frozenset[str]) -> set[str]:
    """Every distribution `root` (with `extras`) needs, transitively, as installed here."""
    found: set[str] = set()
    pending = [(canonicalize_name(root), extras)]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        name, wanted = pending.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        found.add(name)
        for text in metadata.distribution(name).requires or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({"extra": extra}) for extra in (wanted or {""})
            ):
                continue
            pending.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return found


def test_every_package_installed_is_pinned_at_its_installed_version() -> None:
    pinned = pins()
    needed = (required("croupier", frozenset({"dev"})) - OWN) | INSTALLER
    assert "redis" in needed and "grpcio" in needed and "pytest" in needed
    assert not needed - pinned.keys(), f"not pinned: {sorted(needed - pinned.keys())}"
    installed = {name: metadata.version(name) for name in needed}
    differing = {
        name: (installed[name], pinned[name]) for name in needed if installed[name] != pinned[name]
    }
    assert not differing, f"installed, pinned: {differing}"


def test_the_pins_hold_no_package_the_project_does_not_need() -> None:
    """A package dropped from pyproject.toml leaves the file with the next `make lock`; one
    pinned by hand that nothing needs is a mistake."""
    needed = required("croupier", frozenset({"dev"})) | INSTALLER
    assert not pins().keys() - needed, sorted(pins().keys() - needed)


def test_make_install_and_the_image_install_the_pinned_versions() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert "CONSTRAINTS := deploy/constraints.txt" in makefile
    install = [
        line
        for line in makefile.splitlines()
        if "pip install" in line and (".[dev]" in line or line.endswith(" pip"))
    ]
    assert len(install) >= 3, "no install lines in the Makefile"
    assert all("-c $(CONSTRAINTS)" in line for line in install if "LOCK_VENV" not in line)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "deploy/constraints.txt ./" in dockerfile
    assert "pip wheel --constraint constraints.txt" in dockerfile
