"""Wheels of the project's two distributions, built from the tree as pip builds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path


def build_wheel(source: Path, wheels: Path) -> zipfile.ZipFile:
    """The wheel of the project at `source`, built as pip builds it (setuptools' backend)."""
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta;"
            " print(build_meta.build_wheel(sys.argv[1]))",
            str(wheels),
        ],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return zipfile.ZipFile(wheels / built.stdout.strip().splitlines()[-1])
