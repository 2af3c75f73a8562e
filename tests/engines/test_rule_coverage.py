"""Every rule of every game has a test, and every rule id the code names is a rule.

The rules are the "Rules" sections of docs/games/<game>.md (and the shared C-x rules of
docs/games/README.md), one `- **ID**` bullet per rule. A test cites a rule by its id anywhere in
its file (`OC-3.1` in a docstring, a comment or the rule id a refusal must name) or in a test
name (`def test_oc_3_1_...`). A game's rules are looked up in tests/engines/<game>/; the shared
rules in every test of the repository.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from croupier.engines.registry import GAMES
from tests.engines.helpers import games_index

ROOT = Path(__file__).resolve().parents[2]
GAME_DOCS = ROOT / "docs" / "games"
# Each game's rule-id prefix, from the games index (docs/games/README.md).
PREFIX = {game_id: row.prefix for game_id, row in games_index().items()}
RULE_ID = r"\b(?:C|" + "|".join(sorted(PREFIX.values())) + r")-\d+(?:\.\d+)?"


def rules_of(page: Path) -> list[str]:
    """The rule ids of a page's "Rules" section (the whole page for the README), in order."""
    text = page.read_text()
    if page.name != "README.md":
        match = re.search(r"^## Rules\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        assert match, f"{page} has no '## Rules' section"
        text = match.group(1)
    return re.findall(r"^- \*\*([A-Z]{1,2}-\d+(?:\.\d+)?)\*\*", text, re.M)


@cache
def text_of_tests(folder: Path) -> str:
    return "\n".join(path.read_text() for path in sorted(folder.rglob("test_*.py")))


def cited(rule_id: str, text: str) -> bool:
    """Whether `text` names the rule: its id not followed by a deeper number (`TR-3` is not cited
    by `TR-3.1`), or a test name `test_tr_3_...` (`test_tr_3_1_...` for TR-3.1)."""
    if re.search(re.escape(rule_id) + r"(?!\.?\d)", text):
        return True
    prefix, number = rule_id.split("-")
    name = f"def test_{prefix.lower()}_{number.replace('.', '_')}"
    return re.search(re.escape(name) + r"(?!_?\d)", text) is not None


def uncovered(rule_ids: list[str], folder: Path) -> list[str]:
    text = text_of_tests(folder)
    return [rule_id for rule_id in rule_ids if not cited(rule_id, text)]


def test_every_game_has_a_rules_page() -> None:
    assert sorted(PREFIX) == sorted(GAMES)
    for game_id in GAMES:
        ids = rules_of(GAME_DOCS / f"{game_id}.md")
        assert len(ids) >= 20, f"{game_id}: only {ids}"
        assert len(ids) == len(set(ids)), f"{game_id}: a rule id is stated twice"
        assert all(i.startswith(PREFIX[game_id] + "-") for i in ids), ids


@pytest.mark.parametrize("game_id", sorted(PREFIX))
def test_every_rule_has_a_test(game_id: str) -> None:
    ids = rules_of(GAME_DOCS / f"{game_id}.md")
    missing = uncovered(ids, ROOT / "tests" / "engines" / game_id)
    assert not missing, f"{game_id}: rules without a test: {missing}"


def test_every_shared_rule_has_a_test() -> None:
    ids = rules_of(GAME_DOCS / "README.md")
    assert ids == [f"C-{n}" for n in range(1, 8)]
    assert not uncovered(ids, ROOT / "tests"), "shared rules without a test"


def test_every_rule_id_the_code_names_is_a_rule() -> None:
    """A refusal, a comment or a message field that names a rule points at a stated rule."""
    stated = {i for page in GAME_DOCS.glob("*.md") for i in rules_of(page)}
    # ... or a section of rules (`### PM-4 +2 and the consolation`).
    stated |= {
        i
        for page in GAME_DOCS.glob("*.md")
        for i in re.findall(r"^### ([A-Z]+-\d+) ", page.read_text(), re.M)
    }
    named: dict[str, set[str]] = {}
    for folder in ("engines", "protos", "service", "clients/python"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".proto") and not path.name.endswith(("_pb2.py", ".pyi")):
                for rule_id in re.findall(RULE_ID, path.read_text()):
                    named.setdefault(rule_id, set()).add(str(path.relative_to(ROOT)))
    unknown = {i: sorted(paths) for i, paths in named.items() if i not in stated}
    assert not unknown, f"rule ids that are no rule: {unknown}"
