"""Adding a game is what docs/api.md's recipe ("Adding a game") says, and no more: in a copy of
the repository, the test game of files/ (High Card: its package, proto, rules page, tests and
browser table module, all new files) is added with the recipe's edits to existing files, the
code is generated as `make proto` and `npm run generate` do and the table is built, and then the
generic tests, the service over gRPC, `croupier-play` and the browser table take the game up by
themselves.

The edits to existing files are counted: the registry's tuple of ids, the oneofs of
game_service.proto, the games index (storage.proto holds the state in an Any: no edit) and the
table's registry of game modules. Everything else (clients, service, the other tests, the
README) derives from those.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = Path(__file__).resolve().parent / "files"
GAME = "high_card"
# The existing files the recipe edits, and nothing else (the generated code aside).
EDITED = {
    "engines/croupier/engines/registry.py",
    "protos/croupier/v1/game_service.proto",
    "docs/games/README.md",
    "clients/typescript/table/registry.ts",
}
GENERATED = "clients/python/croupier/v1/"
TS = "clients/typescript"
NODE_MODULES = ROOT / TS / "node_modules"


def add_member(proto: str, message: str, oneof: str, type_name: str, comment: str) -> str:
    """`proto` with a member `high_card` of type `type_name` at the end of `message`'s oneof,
    numbered as docs/api.md says: one above every number the message uses (its fields, the
    oneofs' members, reserved ones), so that no later game collides with a field."""
    whole = re.search(rf"^message {message} \{{\n(.*?)^\}}\n", proto, re.M | re.S)
    assert whole, message
    body = whole.group(1)
    block = re.search(rf"^  oneof {oneof} \{{\n(.*?)^  \}}\n", body, re.M | re.S)
    assert block, (message, oneof)
    code = re.sub(r"//.*", "", body)  # numbers in comments are not used ones
    used = re.findall(r"= (\d+);|reserved (\d+)|\bto (\d+)", code)
    number = max(int(n) for found in used for n in found if n) + 1
    end = whole.start(1) + block.end(1)
    member = f"    // {comment}\n    {type_name} {GAME} = {number};\n"
    return proto[:end] + member + proto[end:]


def add_import(proto: str) -> str:
    last = list(re.finditer(r'^import "croupier/v1/\w+\.proto";\n', proto, re.M))[-1]
    return proto[: last.end()] + f'import "croupier/v1/{GAME}.proto";\n' + proto[last.end() :]


def apply_recipe(repo: Path) -> None:
    """docs/api.md, "Adding a game": the game's own files, then the edits to existing ones."""
    for source in sorted(FILES.rglob("*")):
        if source.is_file() and "__pycache__" not in source.parts:
            target = repo / source.relative_to(FILES)
            assert not target.exists(), f"{target} is not a new file"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    registry = repo / "engines" / "croupier" / "engines" / "registry.py"
    text, count = re.subn(r"(GAME_TYPES = \(.*?)\)", rf'\1, "{GAME}")', registry.read_text())
    assert count == 1
    registry.write_text(text)
    service = repo / "protos" / "croupier" / "v1" / "game_service.proto"
    text = add_import(service.read_text())
    text = add_member(text, "CreateGameRequest", "options", "HighCardOptions", "High Card (2-4).")
    for message, suffix in (("GameView", "View"), ("Move", "Move"), ("Event", "Event")):
        text = add_member(text, message, "game", f"HighCard{suffix}", f"A High Card {suffix}.")
    service.write_text(text)
    index = repo / "docs" / "games" / "README.md"
    rows = list(re.finditer(r"^\| `\w+` \|.*\|\n", index.read_text(), re.M))
    row = f"| `{GAME}` | High Card | 2\N{EN DASH}4 | [{GAME}.md]({GAME}.md) | HC-x.y |\n"
    text = index.read_text()
    index.write_text(text[: rows[-1].end()] + row + text[rows[-1].end() :])
    table = repo / TS / "table" / "registry.ts"
    text = table.read_text()
    last = list(re.finditer(r"^export \{ default as \w+ \} from .*\n", text, re.M))[-1]
    line = f'export {{ default as {GAME} }} from "./games/{GAME}.js";\n'
    table.write_text(text[: last.end()] + line + text[last.end() :])


def table_output() -> str:
    """The folder `npm run build:table` writes the page to, relative to the repository."""
    script = json.loads((ROOT / TS / "package.json").read_text())["scripts"]["build:table"]
    outfile = re.search(r"--outfile=(\S+)", script)
    assert outfile, script
    return os.path.dirname(os.path.normpath(f"{TS}/{outfile.group(1)}")) + "/"


def node(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A command of the copy's TypeScript client, with this repository's installed packages."""
    bin_dir = repo / TS / "node_modules" / ".bin"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        args, cwd=repo / TS, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def build_table(repo: Path) -> bool:
    """`npm run generate` (the TypeScript client's code, from the copy's protos) and `npm run
    build:table`, as the recipe says; False where Node.js or the installed packages are missing
    (make node installs them)."""
    if shutil.which("node") is None or not (NODE_MODULES / ".bin").is_dir():
        return False
    # The installed packages, linked: only generate, tsc, tsx and esbuild run in the copy.
    (repo / TS / "node_modules").symlink_to(NODE_MODULES)
    for script in ("generate", "build:table"):
        done = node(repo, "npm", "run", "--silent", script)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return True


def copy_of_repository(target: Path) -> dict[str, bytes]:
    """The work tree's files (tracked, and new ones not ignored) copied to `target`; returns
    their contents by path."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    contents = {}
    for name in sorted(set(listing.split("\0")) - {""}):
        source = ROOT / name
        target_file = target / name
        if not source.is_file() or name.startswith("tests/sixth_game/"):
            continue  # deleted in the work tree; or this test, which the copy does not need
        target_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target_file)
        contents[name] = source.read_bytes()
    return contents


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the sixth game added, its code generated and (where
    Node.js is installed) its browser table built."""
    copy = tmp_path_factory.mktemp("repository")
    before = copy_of_repository(copy)
    apply_recipe(copy)
    subprocess.run(
        [sys.executable, "protos/generate.py"], cwd=copy, check=True, capture_output=True
    )
    built = build_table(copy)
    changed = {name for name, data in before.items() if (copy / name).read_bytes() != data}
    generated = (GENERATED, table_output())
    assert {name for name in changed if not name.startswith(generated)} == EDITED
    assert built == any(name.startswith(table_output()) for name in changed)  # the page rebuilt
    return copy


def run(repo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """A command in the copy, importing the copy's packages (PYTHONPATH comes before the
    editable install of this repository)."""
    portions = [repo / "clients" / "python", repo / "engines", repo / "service"]
    path = os.pathsep.join([str(repo), *map(str, portions)])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(
        args, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_the_recipe_edits_four_existing_files(repo: Path) -> None:
    """The registry, game_service.proto's oneofs, the games index and the table's registry
    (checked by the fixture); the rest of the recipe is new files."""
    new = {str(p.relative_to(FILES)) for p in FILES.rglob("*") if p.is_file()}
    assert {
        f"engines/croupier/engines/{GAME}/engine.py",
        f"protos/croupier/v1/{GAME}.proto",
        f"{TS}/table/games/{GAME}.ts",
    } <= new
    assert (repo / GENERATED / f"{GAME}_pb2.py").exists()


def test_the_generic_tests_take_the_game_up(repo: Path) -> None:
    """The registry, the protos and the index agree; the layout, the rule coverage, random play
    and the move space hold for the new game; its own tests pass; the generated code is fresh;
    the service plays it to the end over gRPC."""
    tests = [
        "tests/engines/test_every_game.py",
        "tests/engines/test_layout.py",
        "tests/engines/test_rule_coverage.py",
        "tests/engines/test_move_space.py",
        "tests/test_render.py",
        "tests/test_generated_code.py",
        "tests/service/test_play_over_grpc.py",
    ]
    selected = f"{GAME} or indexed or protos_hold or rules_page or rule_id or readme or generated"
    done = run(
        repo, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests, "-k", selected
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert GAME in done.stdout or "passed" in done.stdout
    own = run(
        repo,
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"tests/engines/{GAME}",
    )
    assert own.returncode == 0, own.stdout[-4000:] + own.stderr[-2000:]


def test_croupier_play_plays_it_with_the_generic_transcript(repo: Path) -> None:
    done = run(
        repo, sys.executable, "-m", "croupier.play", "--game", GAME, "--players", "3", "--seed", "5"
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "trick_won:" in done.stdout and "game_over:" in done.stdout


# What the page's own code makes of the game: its module found by the game type, a move and an
# event in its words (run with tsx: the modules draw nothing until asked, so no browser).
TABLE_CHECK = """
import type { Event, GameView, Move } from "./src/gen/croupier/v1/game_service_pb.js";
import { describe } from "./table/events.js";
import { GAMES, gameInfo, moveLabel } from "./table/games.js";
const view = { seats: 2, displayNames: ["Ana", ""], gameType: "high_card", viewerSeat: 0,
  game: { case: "highCard", value: { hand: [9, 3], handSizes: [2, 2], trick: [], leader: 0,
  turn: 0, points: [0, 0] } } } as unknown as GameView;
const won = { game: { case: "highCard", value: { kind: { case: "trickWon",
  value: { seat: 1, card: 12 } } } } } as unknown as Event;
const play = { game: { case: "highCard", value: { kind: { case: "play",
  value: { card: 9 } } } } } as unknown as Move;
const line = describe(won, view)!;
console.log(JSON.stringify({
  lobby: GAMES.map((g) => g.id), name: gameInfo("high_card").en, seat: line.seat,
  sentence: line.parts.map((p) => (typeof p === "string" ? p : (p?.label ?? "?"))).join(""),
  move: moveLabel(play, view),
}));
"""


def test_the_browser_table_draws_it(repo: Path) -> None:
    """The table's registry finds the game's module: the page type-checks against the client
    generated from the copy's protos, its bundle holds the module, and the page lists the game
    in the lobby and writes its moves and events in the module's words."""
    if not (repo / TS / "node_modules").exists():
        pytest.skip("Node.js and the TypeScript client's packages are needed (make node)")
    checked = node(repo, "tsc", "--noEmit", "-p", ".")
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-2000:]
    assert "High Card" in (repo / table_output() / "table.js").read_text()
    script = repo / TS / "sixth_game_table_check.ts"
    script.write_text(TABLE_CHECK)
    done = node(repo, "tsx", script.name)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert GAME in seen["lobby"] and len(seen["lobby"]) == 6, seen
    assert seen["name"] == "High Card"
    assert (seen["seat"], seen["sentence"]) == (1, "Seat 1 wins the trick with 12."), seen
    assert seen["move"] == "Play 9", seen


@pytest.mark.slow
def test_lint_holds_for_the_new_game(repo: Path) -> None:
    """mypy --strict and buf lint over the copy (a minute: mypy without a cache)."""
    bin_dir = Path(sys.executable).parent
    for command in ([str(bin_dir / "mypy")], [str(bin_dir / "buf"), "lint", "protos"]):
        done = run(repo, *command, timeout=600)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
