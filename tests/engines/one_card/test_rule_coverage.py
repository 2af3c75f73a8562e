"""Every rule id of the spec is cited by a test of this folder (function name or docstring)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SPEC = HERE.parents[2].parent / "shared" / "rules" / "one_card.md"


def test_every_rule_id_has_a_test() -> None:
    if not SPEC.exists():
        pytest.skip(f"spec not found at {SPEC}")
    ids = set(re.findall(r"\bOC-\d+(?:\.\d+)?", SPEC.read_text()))
    assert "OC-4.7" in ids and "OC-1" in ids
    text = "\n".join(p.read_text() for p in HERE.glob("test_*.py") if p.name != Path(__file__).name)
    cited = set(re.findall(r"\bOC-\d+(?:\.\d+)?", text))
    cited |= {"OC-" + m.replace("_", ".") for m in re.findall(r"def test_oc_(\d+(?:_\d+)?)", text)}
    missing = sorted(ids - cited)
    assert not missing, f"rule ids without a test: {missing}"
