"""The committed generated code must be what `make proto` produces from protos/ now."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "clients" / "python" / "croupier" / "v1"


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(
        [sys.executable, str(ROOT / "protos" / "generate.py"), "--out", str(tmp_path)],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    fresh = {
        p.name: p.read_bytes() for p in (tmp_path / "croupier" / "v1").iterdir() if p.is_file()
    }
    committed = {p.name: p.read_bytes() for p in COMMITTED.iterdir() if p.is_file()}
    stale = sorted(
        name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name)
    )
    assert not stale, f"generated code is stale, run `make proto`: {stale}"
