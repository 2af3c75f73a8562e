"""Generate the Python code of the API from `protos/` into `clients/python/`.

Usage: python protos/generate.py [--out DIR]

The generated files are committed; `tests/test_generated_code.py` regenerates them into a
temporary folder and fails when the committed ones differ.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grpc_tools import protoc  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
DEFAULT_OUT = ROOT / "clients" / "python"


def proto_files() -> list[Path]:
    return sorted((PROTO_ROOT / "croupier").rglob("*.proto"))


def generate(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # The mypy plugins (protoc-gen-mypy, protoc-gen-mypy_grpc) live beside this interpreter.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    include = Path(protoc.__file__).resolve().parent / "_proto"
    files = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out}",
        f"--mypy_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_grpc_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for package in {p.parent for p in (out / "croupier").rglob("*_pb2.py")}:
        init = package / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated from protos/; do not edit."""\n')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    generate(parser.parse_args(argv).out)


if __name__ == "__main__":
    main(sys.argv[1:])
