"""The engines compiled to C extensions by mypyc, when this machine can (docs/decisions.md,
"Compiled engines").

The engines are plain, typed Python (`mypy --strict`); mypyc turns each module into a C
extension that Python imports in place of the `.py` file, with the same behaviour: the tests
and the pinned playout digests (tests/bench/test_engine_tools.py) run against whichever form is
installed. The extensions are optional: without a C compiler, or with CROUPIER_PURE_ENGINES=1,
the install keeps the pure-Python engines. Everything else about the package is in
pyproject.toml.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import Extension, setup

# The engines' portion of the croupier namespace package: mypyc names each module as it is
# imported, croupier.engines.<game>.<module>, from pyproject.toml's mypy settings (mypy_path and
# explicit_package_bases).
ENGINES = Path("engines/croupier/engines")
# mypyc cannot compile a generic frozen dataclass (Setup): the engines' base classes stay
# interpreted, which costs little, as the rules, flows and views are the engines' work.
# The package's own __init__ holds only its docstring, and an editable install's import hook
# loads a package's __init__.py whatever lies beside it.
INTERPRETED = {ENGINES / "core" / "engine.py", ENGINES / "__init__.py"}
# The C compiler's optimization level: 3 for every install and image; a build that is only
# checked for what it holds (tests/packaging/wheels.py) asks for 0, which compiles in half the time.
OPT_LEVEL = os.environ.get("CROUPIER_ENGINES_OPT_LEVEL", "3")


def engine_extensions() -> list[Extension]:
    if os.environ.get("CROUPIER_PURE_ENGINES", "") not in ("", "0"):
        return []
    from mypyc.build import mypycify

    # One shared library per game and one for the rest (core/, the registry), so that the C
    # compiler builds them side by side, sooner on several cores, for barely more instructions
    # per move: docs/decisions.md, "Compiled engines".
    groups: dict[str, list[str]] = {}
    for path in sorted(ENGINES.rglob("*.py")):
        if path not in INTERPRETED:
            folder = path.relative_to(ENGINES).parts[0]
            group = folder if (ENGINES / folder).is_dir() else "core"
            groups.setdefault(group, []).append(str(path))
    extensions = mypycify(
        [source for sources in groups.values() for source in sources],
        opt_level=OPT_LEVEL,
        # croupier.engines.<group>__mypyc, beside the packages it serves.
        separate=[(sources, f"croupier.engines.{group}") for group, sources in groups.items()],
    )
    for extension in extensions:
        extension.optional = True  # no compiler: a warning, and the pure-Python engines
    return extensions


setup(
    ext_modules=engine_extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
