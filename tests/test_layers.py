"""The direction of imports between the project's packages, read from the source (every import
statement, those under `if TYPE_CHECKING:` and inside functions included).

- The engines import only themselves and the generated messages: no I/O, no service.
- The client (the croupier-client distribution) never imports the server's packages.
- The service's layers import downwards only: transport → application → observability →
  store; `croupier.service.main` wires them together.
- The benchmark uses the service through its API (the client and the generated stubs, over a
  socket), with two named exceptions below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("transport", "application", "observability", "store")  # top to bottom
SERVER_PACKAGES = ("croupier.engines", "croupier.service", "croupier.bench")
# What the benchmark reads beside the API: the Redis key layout, to report the bytes a game
# occupies in Redis, and the embedded Redis, to start the cluster nodes it measures against.
BENCH_MAY_IMPORT = {"croupier.service.store.keys", "croupier.service.store.embedded_redis"}


def modules(folder: Path) -> Iterator[tuple[str, Path]]:
    """Every module under `folder`, a portion of the croupier namespace, by its dotted name."""
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        yield ".".join(parts).removesuffix(".__init__"), path


def imports(path: Path) -> set[str]:
    """The modules `path` imports (for `from package import name`, package.name as well, as the
    name may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 2 and parts[:2] == ["croupier", "service"] and parts[2] in LAYERS:
        return parts[2]
    return None


ENGINES = list(modules(ROOT / "engines"))
SERVICE = [(m, p) for m, p in modules(ROOT / "service") if within(m, "croupier.service")]
BENCH = [(m, p) for m, p in modules(ROOT / "service") if within(m, "croupier.bench")]
CLIENT = [
    (m, p)
    for m, p in modules(ROOT / "clients/python")
    if within(m, "croupier") and not within(m, "croupier.v1")
]


def test_the_folders_hold_what_the_layers_name() -> None:
    assert len(ENGINES) > 30 and len(SERVICE) > 30 and len(BENCH) > 10 and len(CLIENT) > 10
    layers = {layer_of(m) for m, _ in SERVICE}
    assert layers == {*LAYERS, None}
    roots = {m for m, _ in SERVICE if layer_of(m) is None}
    assert roots == {"croupier.service", "croupier.service.main"}


@pytest.mark.parametrize(("module", "path"), ENGINES, ids=[m for m, _ in ENGINES])
def test_the_engines_import_only_themselves_and_the_messages(module: str, path: Path) -> None:
    outside = {
        name
        for name in imports(path)
        if within(name, "croupier")
        and not within(name, "croupier.engines")
        and not within(name, "croupier.v1")
    }
    assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize(("module", "path"), CLIENT, ids=[m for m, _ in CLIENT])
def test_the_client_never_imports_the_server(module: str, path: Path) -> None:
    server = {n for n in imports(path) if any(within(n, p) for p in SERVER_PACKAGES)}
    assert not server, f"{module} imports {sorted(server)}"


@pytest.mark.parametrize(("module", "path"), SERVICE, ids=[m for m, _ in SERVICE])
def test_the_service_layers_import_downwards(module: str, path: Path) -> None:
    layer = layer_of(module)
    names = imports(path)
    assert not {n for n in names if within(n, "croupier.bench")}, f"{module} imports the bench"
    if layer is None:
        return  # the package roots and main, which wires the layers together
    upward = {
        name
        for name in names
        if within(name, "croupier.service")
        and (layer_of(name) is None or LAYERS.index(layer_of(name) or "") < LAYERS.index(layer))
        and name != "croupier.service"
    }
    assert not upward, f"{module} ({layer}) imports {sorted(upward)}"


@pytest.mark.parametrize(("module", "path"), BENCH, ids=[m for m, _ in BENCH])
def test_the_bench_uses_the_service_through_its_api(module: str, path: Path) -> None:
    service = {
        name
        for name in imports(path)
        if within(name, "croupier.service")
        and not any(within(name, allowed) for allowed in BENCH_MAY_IMPORT)
        and not any(within(allowed, name) for allowed in BENCH_MAY_IMPORT)
    }
    assert not service, f"{module} imports {sorted(service)}"
