"""The engines as the suite runs them: compiled by mypyc when this machine has a C compiler
(setup.py; docs/decisions.md, "Compiled engines"), so that every engine test, bot test and
pinned playout digest (tests/bench/test_engine_tools.py) checks the compiled form that the
server imports; and never older than their sources (tests/conftest.py)."""

from __future__ import annotations

import importlib
import os
import shutil
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import ENGINES, stale_compiled_engines

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
# The engines' base classes, which mypyc cannot compile, and the package's docstring (setup.py).
INTERPRETED = {"croupier.engines.core.engine", "croupier.engines"}


def engine_modules() -> list[str]:
    names = []
    for source in sorted(ENGINES.rglob("*.py")):
        parts = source.relative_to(ENGINES).with_suffix("").parts
        names.append(".".join(("croupier", "engines", *parts)).removesuffix(".__init__"))
    return names


@pytest.mark.skipif(
    shutil.which("cc") is None or os.environ.get("CROUPIER_PURE_ENGINES", "") not in ("", "0"),
    reason="no C compiler, or CROUPIER_PURE_ENGINES: the engines are installed as Python",
)
def test_every_engine_module_runs_compiled() -> None:
    modules = engine_modules()
    assert len(modules) > 40
    for name in modules:
        location = importlib.import_module(name).__file__ or ""
        if name in INTERPRETED:
            assert location.endswith(".py"), name
        else:
            assert location.endswith(SUFFIX), f"{name} is not compiled: run `make install`"


def test_a_source_changed_after_its_compilation_is_found(tmp_path: Path) -> None:
    game = tmp_path / "a_game"
    game.mkdir()
    for name in ("rules", "flow"):
        (game / f"{name}.py").write_text("")
        (game / f"{name}{SUFFIX}").write_bytes(b"")
    (game / "views.py").write_text("")  # never compiled: nothing to be stale
    os.utime(game / "rules.py", (2_000_000_000, 2_000_000_000))
    os.utime(game / f"rules{SUFFIX}", (1_000_000_000, 1_000_000_000))
    os.utime(game / "flow.py", (1_000_000_000, 1_000_000_000))
    os.utime(game / f"flow{SUFFIX}", (2_000_000_000, 2_000_000_000))
    assert stale_compiled_engines(tmp_path) == ["a_game/rules.py"]
