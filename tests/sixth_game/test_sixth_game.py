"""Adding a game is what docs/api.md's recipe ("Adding a game") says, and no more: in a copy of
the repository, the test game of files/ (High Card: its package, proto, rules page and tests,
all new files) is added with the recipe's edits to existing files, the code is generated as
`make proto` does, and then the generic tests, the service over gRPC and `croupier-play` take
the game up by themselves.

The edits to existing files are counted: the registry's tuple of ids, the oneofs of
game_service.proto and the games index (storage.proto holds the state in an Any: no edit).
Everything else (clients, service, the other tests, the README) derives from those.
"""

from __future__ import annotations

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
    "engines/registry.py",
    "protos/croupier/v1/game_service.proto",
    "docs/games/README.md",
}
GENERATED = "clients/python/croupier/v1/"


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
    registry = repo / "engines" / "registry.py"
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
        if source.is_symlink():  # clients/python/croupier/{engines,service}: links stay links
            target_file.parent.mkdir(parents=True, exist_ok=True)
            target_file.symlink_to(source.readlink())
            continue
        if not source.is_file() or name.startswith("tests/sixth_game/"):
            continue  # deleted in the work tree; or this test, which the copy does not need
        target_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target_file)
        contents[name] = source.read_bytes()
    return contents


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the sixth game added and its code generated."""
    copy = tmp_path_factory.mktemp("repository")
    before = copy_of_repository(copy)
    apply_recipe(copy)
    subprocess.run(
        [sys.executable, "protos/generate.py"], cwd=copy, check=True, capture_output=True
    )
    changed = {name for name, data in before.items() if (copy / name).read_bytes() != data}
    assert {name for name in changed if not name.startswith(GENERATED)} == EDITED
    return copy


def run(repo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """A command in the copy, importing the copy's packages (PYTHONPATH comes before the
    editable install of this repository)."""
    path = os.pathsep.join([str(repo), str(repo / "clients" / "python")])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(
        args, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_the_recipe_edits_three_existing_files(repo: Path) -> None:
    """The registry, game_service.proto's oneofs and the games index (checked by the fixture);
    the rest of the recipe is new files."""
    new = {str(p.relative_to(FILES)) for p in FILES.rglob("*") if p.is_file()}
    assert {f"engines/{GAME}/engine.py", f"protos/croupier/v1/{GAME}.proto"} <= new
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


@pytest.mark.slow
def test_lint_holds_for_the_new_game(repo: Path) -> None:
    """mypy --strict and buf lint over the copy (a minute: mypy without a cache)."""
    bin_dir = Path(sys.executable).parent
    for command in ([str(bin_dir / "mypy")], [str(bin_dir / "buf"), "lint", "protos"]):
        done = run(repo, *command, timeout=600)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
