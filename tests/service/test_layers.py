"""The service's layers, top to bottom: a module imports from its own layer or the layers below,
never from one above, so that a call's path only goes down (docs/architecture.md, "Layers")."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[2] / "service"

LAYERS: dict[str, set[str]] = {
    # gRPC and HTTP: the servers, the servicer's contract, the call wrapper, the process.
    "transport": {
        "server",
        "servicer",
        "calls",
        "sessions",
        "web_gateway",
        "benchmark",
        "overload",
        "main",
    },
    # Games, moves, clocks, bots, the lobby (its RPCs past their checks); who is calling (a
    # seat's credential is checked on the game as read); the per-process budgets the writes
    # keep; the settings they read.
    "application": {
        "lobby_calls",
        "games",
        "moves",
        "writes",
        "clocks",
        "clock_sweep",
        "bots",
        "bot_seats",
        "lobby",
        "recent_states",
        "replay",
        "display_names",
        "errors",
        "auth",
        "callers",
        "limits",
        "config",
    },
    "observability": {"logs", "metrics"},
    "store": {
        "store",
        "redis_store",
        "memory_store",
        "redis_client",
        "resp",
        "resp_cluster",
        "keys",
        "durability",
        "embedded_redis",
        "fanout",
    },
}
ORDER = list(LAYERS)
LAYER_OF = {module: ORDER.index(layer) for layer, modules in LAYERS.items() for module in modules}


def _imported(path: Path) -> set[str]:
    """The service modules `path` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "croupier.service":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("croupier.service."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("croupier.service."):
                    found.add(alias.name.split(".")[2])
    return found


def _modules() -> list[Path]:
    return sorted(p for p in SERVICE.glob("*.py") if p.stem != "__init__")


def test_every_service_module_has_a_layer() -> None:
    assert sorted(p.stem for p in _modules() if p.stem not in LAYER_OF) == []


def test_imports_point_down() -> None:
    upward = [
        f"{path.stem} ({ORDER[LAYER_OF[path.stem]]}) imports {name} ({ORDER[LAYER_OF[name]]})"
        for path in _modules()
        for name in sorted(_imported(path))
        if name in LAYER_OF and LAYER_OF[name] < LAYER_OF[path.stem]
    ]
    assert upward == []
