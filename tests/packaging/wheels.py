"""Wheels of the project's two distributions, built from the tree as pip builds them."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path


def build_wheel(source: Path, wheels: Path, *, compile_engines: bool = False) -> zipfile.ZipFile:
    """The wheel of the project at `source`, built as pip builds it (setuptools' backend); the
    server's engines are compiled (setup.py) only when asked, as that takes a minute or two,
    and then without the C compiler's optimizations (the same modules, in half the time).

    setuptools builds in the source folder (its `build/`), so two builds of one folder at once
    (a module fixture set up by two test workers) trip over each other's files: one at a time,
    under a lock in that folder."""
    (source / "build").mkdir(exist_ok=True)
    with (source / "build" / ".croupier-wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_wheel(source, wheels, compile_engines=compile_engines)


def _build_wheel(source: Path, wheels: Path, *, compile_engines: bool) -> zipfile.ZipFile:
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
