"""The transcript renderers are found by game type (croupier.render): each registered game has its
own module, and a game without one is still shown, by the generic renderer."""

from __future__ import annotations

from pathlib import Path

import pytest

import croupier.render
from croupier.engines.registry import GAMES
from croupier.messages import GAME_TYPES
from croupier.render import describe_move, generic, renderer
from croupier.v1.game_service_pb2 import GameView, Move
from croupier.v1.vampire_queen_pb2 import VampireQueenEvent, VampireQueenMove, VampireQueenView

RENDER = Path(croupier.render.__file__).parent


def test_the_client_knows_the_registered_games_from_the_protos() -> None:
    assert sorted(GAME_TYPES) == sorted(GAMES)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_game_is_shown_by_its_own_renderer_else_the_generic_one(game_id: str) -> None:
    own = RENDER / f"{game_id}.py"
    module = renderer(game_id)
    if own.exists():
        assert module.__name__ == f"croupier.render.{game_id}"
    else:
        assert module is generic


def test_only_game_ids_name_renderers() -> None:
    with pytest.raises(KeyError):
        renderer("names")


def test_the_generic_renderer_shows_any_game() -> None:
    play = VampireQueenMove(play=VampireQueenMove.PlayCards(cards=[3, 3]))  # type: ignore[list-item]
    assert generic.describe_move(play, []) == (
        "play cards: VAMPIRE_QUEEN_CARD_VAMPIRE_3 cards: VAMPIRE_QUEEN_CARD_VAMPIRE_3"
    )
    event = VampireQueenEvent(passed=VampireQueenEvent.Passed(seat=2))
    assert generic.describe_event(event, []) == ["passed: seat: 2"]
    view = GameView(vampire_queen=VampireQueenView(turn=1), viewer_seat=1)
    assert generic.describe_table(view) == "turn: 1"
    assert generic.describe_seat(view) == "You are seat 1."
    assert describe_move("vampire_queen", Move(), []) == "(no move)"
