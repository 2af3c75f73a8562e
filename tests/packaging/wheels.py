"""Wheels of the project's two distributions, built from the tree as pip builds them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path


def build_wheel(source: Path, wheels: Path, *, compile_engines: bool = False) -> zipfile.ZipFile:
    """The wheel of the project at `source`, built as pip builds it (setuptools' backend); the
    server's engines are compiled (setup.py) only when asked, as that takes a minute or two,
    and then without the C compiler's optimizations (the same modules, in half the time)."""
    environment = {
        **os.environ,
        "CROUPIER_PURE_ENGINES": "" if compile_engines else "1",
        "CROUPIER_ENGINES_OPT_LEVEL": "0",
    }
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta;"
            " print(build_meta.build_wheel(sys.argv[1]))",
            str(wheels),
        ],
        cwd=source,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900 if compile_engines else 120,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return zipfile.ZipFile(wheels / built.stdout.strip().splitlines()[-1])
