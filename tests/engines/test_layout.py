"""Every game's package has the same files with the same roles (engines/README.md), so that a
rule is found from its id in one step: the files, the docstrings naming the rule sections they
carry out, and engines/README.md's table of sections by file are kept true here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from croupier.engines.registry import GAMES
from tests.engines.helpers import games_index

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "engines" / "croupier" / "engines"
COMMON = {"__init__", "cards", "setup", "rules", "flow", "views", "engine", "bot"}
# Files that carry out no rule: the interface, the package's front page, and the strong bot
# (a player choosing among the legal moves, engines/croupier/engines/core/bots.py).
WIRING = {"__init__", "engine", "bot"}


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def sections_of(game_id: str) -> dict[str, str]:
    """The rule sections of the game's page (`### VQ-4 End of a round and scoring`)."""
    prefix = games_index()[game_id].prefix
    page = (ROOT / "docs" / "games" / f"{game_id}.md").read_text()
    return dict(re.findall(rf"^### ({prefix}-\d+) (.+)$", page, re.M))


def named_sections(text: str, prefix: str) -> set[str]:
    return set(re.findall(rf"\b({prefix}-\d+)(?:\.\d+)?\b", text))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_the_common_files(game_id: str) -> None:
    package = ENGINES / game_id
    files = {path.stem for path in package.glob("*.py")}
    assert files >= COMMON, f"{game_id} lacks {sorted(COMMON - files)}"
    front = docstring(package / "__init__.py")
    assert f"docs/games/{game_id}.md" in front
    assert "engines/README.md" in front
    for extra in sorted(files - COMMON):
        assert f"`{extra}.py`" in front, f"{game_id}/__init__.py does not say why {extra}.py is"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_rule_section_is_named_by_the_files_that_carry_it_out(game_id: str) -> None:
    prefix = games_index()[game_id].prefix
    named: set[str] = set()
    for path in sorted((ENGINES / game_id).glob("*.py")):
        if path.stem in WIRING:
            continue
        sections = named_sections(docstring(path), prefix)
        assert sections, f"{path.relative_to(ROOT)}'s docstring names no rule of {prefix}"
        named |= sections
    missing = sorted(set(sections_of(game_id)) - named)
    assert not missing, f"{game_id}: no module's docstring names {missing}"


def test_the_readme_table_of_sections_is_true() -> None:
    """Each row's files name the section in their docstrings, and a game in the table has
    every section of its page there (a game the table does not list is found by the
    docstrings alone)."""
    text = (ROOT / "engines" / "README.md").read_text()
    rows = re.findall(r"^\| (\w+) \| ([A-Z]+-\d+) (.+?) \| (.+) \|$", text, re.M)
    assert rows
    listed: dict[str, set[str]] = {}
    for game_id, section, title, files in rows:
        assert game_id in GAMES, game_id
        assert sections_of(game_id).get(section) == title, (game_id, section, title)
        prefix = games_index()[game_id].prefix
        for name in re.findall(r"`(\w+\.py)`", files):
            path = ENGINES / game_id / name
            assert path.exists(), path
            assert section in named_sections(docstring(path), prefix), (game_id, section, name)
        listed.setdefault(game_id, set()).add(section)
    for game_id, sections in listed.items():
        assert sections == set(sections_of(game_id)), game_id


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_engine_class_only_wires(game_id: str) -> None:
    """engine.py holds the Engine subclass and nothing else: no module-level function, no rule
    id (each rule lives in the file of its kind)."""
    tree = ast.parse((ENGINES / game_id / "engine.py").read_text())
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert not functions, f"{game_id}/engine.py defines {functions}"
    prefix = games_index()[game_id].prefix
    assert not named_sections((ENGINES / game_id / "engine.py").read_text(), prefix)
