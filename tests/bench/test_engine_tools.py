"""The engine tools of docs/performance.md, "Probes": the playout digest, which shows
that a change to an engine's inner workings leaves its behaviour byte-identical, and the
benchmark's loop with a playout count, which callgrind counts instructions of."""

from __future__ import annotations

import subprocess
import sys

import pytest

from croupier.bench.engine_digest import game_digest
from croupier.bench.engine_loop import run

# Two playouts per game at its smallest and largest seat count: every event with its private
# versions, every listed move, the state and every view after every move, and the result.
# A change that should leave the engines' behaviour as it is must leave these as they are; a
# change of the rules changes them, and its commit says which rule and why.
DIGESTS = [
    ("one_card", 2, 2451, "90e245df1840b33114549e6a5e6901acae472259affb00a9f75be3e7a57859ac"),
    ("one_card", 10, 1957, "20f7104c30d1d9ab57c9c895ee180cff4c40b4239745e39dc32d23670fc1527a"),
    ("pig_mau_mau", 2, 115, "d138d1adda26d7678cd9e5314a8e692c1a9950b03bb2271e7d7b363258e0a91d"),
    ("pig_mau_mau", 5, 216, "d725d87c62b5bb55bc1741eb460750d8c7c624139357a12586b387cbd554c5cf"),
    ("trinity", 3, 110, "c8f700dba5fbd0ce0eadfb461d3855969959699082b0439c0c4320d6ff44a75b"),
    ("vampire_queen", 3, 476, "39db9dc78180b74146ecc040dbead1ab8fe3cda4a5f1d5602e6c1e5fa049fefd"),
    ("vampire_queen", 12, 2340, "6f6142235b525fd018f5c9f7f74d9509157aee2752ab737fe2074903b9fa2331"),
    ("whats_your_name", 2, 86, "bd1698085582f3bdd91888b6d7a7598510e947fc2544158c41bd49ecb0001984"),
    ("whats_your_name", 6, 209, "71af61ec8066387e480cb324a472537e7635882769687f25b3ff42d5e502f7b6"),
]


@pytest.mark.parametrize(("game", "seats", "moves", "digest"), DIGESTS)
def test_the_engines_play_as_they_did(game: str, seats: int, moves: int, digest: str) -> None:
    assert game_digest(game, seats, 2) == (digest, moves)


def test_the_loop_counts_the_moves_it_plays() -> None:
    assert run("one_card", 2, 0) == 0
    assert run("one_card", 2, 1) > 0


def test_the_loop_prints_its_rate_in_cpu_time() -> None:
    command = [sys.executable, "-m", "croupier.bench.engine_loop", "pig_mau_mau", "2"]
    printed = subprocess.run(
        [*command, "1", "cpu"], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    moves, seconds, rate = int(printed[0]), float(printed[1]), int(printed[2])
    assert moves > 0 and seconds > 0 and rate > 0
