"""The Python client's sessions (Croupier.session) against the real servers: whole games of
every game played by sessions alone, each seat's updates in order and complete; a refused move
raised as ApplyMove's refusal is, rule id included, with the session going on; a request id
sent again; a resumed session that misses nothing; and `croupier-play`, which plays through
sessions, printing the transcript it prints through unary calls."""

from __future__ import annotations

import io
import random
import uuid

import grpc
import pytest

from croupier.client import Croupier, MoveResult, Session
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.play import options_for, play, set_option
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.vampire_queen_pb2 import VampireQueenMove, VampireQueenOptions

TIMEOUT = 30.0
PASS = pb.Move(vampire_queen=VampireQueenMove(pass_turn=VampireQueenMove.Pass()))


class Seat:
    """A seat's session and every update read from it."""

    def __init__(self, client: Croupier, name: str, credential: str) -> None:
        self.session = client.session(name, credential)
        # Its first view read before anyone moves: the session has started on the game as it
        # is now (a start the server took after a move would begin at that move's view).
        first = self.session.next_update(TIMEOUT)
        assert first is not None
        self.updates: list[pb.GameUpdate] = [first]

    @property
    def view(self) -> pb.GameView:
        assert self.session.view is not None
        return self.session.view

    def read_to(self, move_count: int) -> pb.GameView:
        """Read up to the view after `move_count` moves (nobody else moves meanwhile)."""
        while self.session.view is None or self.session.view.move_count < move_count:
            update = self.session.next_update(TIMEOUT)
            assert update is not None, f"the session ended before move {move_count}"
            self.updates.append(update)
        assert self.view.move_count == move_count
        return self.view

    def read_to_end(self) -> None:
        """Read what is left: the session ends after the update that finishes the game."""
        while (update := self.session.next_update(TIMEOUT)) is not None:
            self.updates.append(update)
        assert self.session.next_update(TIMEOUT) is None, "an ended session stays ended"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_is_played_to_the_end_through_sessions_alone(
    game: str, client: Croupier
) -> None:
    """A session per seat and nothing else: each move chosen among the legal moves of the
    moving seat's view, its outcome with the update it made; every seat reads every move once,
    in order, and its session ends with the game."""
    seats = GAMES[game].max_seats if game == "trinity" else min(4, GAMES[game].max_seats)
    created = client.create(options_for(game), seats, seed=21)
    players = [Seat(client, created.name, credential) for credential in created.seat_credentials]
    rng = random.Random(21)
    moves = 0
    while True:
        views = [player.read_to(moves) for player in players]
        if views[0].HasField("result"):
            break
        assert all(view.etag == views[0].etag for view in views)
        assert all(
            not view.legal_moves for view in views if view.viewer_seat not in view.active_seats
        )
        seat = rng.choice(list(views[0].active_seats))
        assert views[seat].legal_moves, f"active seat {seat} has no legal move in its view"
        moved = players[seat].session.move(rng.choice(list(views[seat].legal_moves)))
        moves += 1
        # Nobody else moves: the update of the move comes with its outcome.
        assert moved.update is not None
        assert moved.update.view.etag == moved.etag
        assert moved.update.view.move_count == moves
        assert moves < 20_000
    for player in players:
        player.read_to_end()
        counts = [update.view.move_count for update in player.updates]
        assert counts == list(range(moves + 1)), "a seat missed or repeated an update"
        assert player.view.HasField("result") and not player.view.legal_moves
        player.session.close()
    assert client.get(created.name).move_count == moves


def _leading_table(client: Croupier) -> tuple[pb.CreateGameResponse, Session]:
    """Vampire Queen with seat 0 leading (Hunter 20 goes to the seat after first_hunter_seat),
    and seat 0's session at its first view."""
    created = client.create(VampireQueenOptions(rounds=1, first_hunter_seat=2), 3, seed=5)
    session = client.session(created.name, created.seat_credentials[0])
    first = session.next_update(TIMEOUT)
    assert first is not None and first.view.active_seats == [0]
    return created, session


def test_a_refused_move_raises_with_its_rule_and_the_session_goes_on(client: Croupier) -> None:
    """A pass by the leader is refused (VQ-3.1) with what ApplyMove raises for it: the same code,
    reason, rule id and message. The refusal sends no update; the next move is applied."""
    created, session = _leading_table(client)
    with session:
        with pytest.raises(CroupierError) as refused:
            session.move(PASS)
        assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.reason == "ILLEGAL_MOVE"
        assert refused.value.rule_id == "VQ-3.1"
        with pytest.raises(CroupierError) as applied:
            client.apply(created.name, created.seat_credentials[0], PASS)
        assert (applied.value.code, applied.value.reason, applied.value.rule_id) == (
            refused.value.code,
            refused.value.reason,
            refused.value.rule_id,
        )
        assert applied.value.message == refused.value.message
        # The future of a move sent without waiting raises the same.
        with pytest.raises(CroupierError) as sent:
            session.send(PASS).result(TIMEOUT)
        assert sent.value.rule_id == "VQ-3.1"
        # A stale etag: ABORTED, as ApplyMove answers it.
        assert session.view is not None
        lead = session.view.legal_moves[0]
        with pytest.raises(CroupierError) as stale:
            session.move(lead, etag="1" + session.view.etag)
        assert (stale.value.code, stale.value.reason) == (
            grpc.StatusCode.ABORTED,
            "ETAG_MISMATCH",
        )
        assert session.pending == 0
        moved = session.move(lead, etag=session.view.etag)
        assert moved.update is not None and moved.update.view.move_count == 1
        assert session.next_update(TIMEOUT) == moved.update


def test_a_request_id_sent_again_is_applied_once(client: Croupier) -> None:
    """The same move sent again with its request id, on the same session and on another one of
    the seat: the first outcome again, no second move, and no update of its own."""
    created, session = _leading_table(client)
    assert session.view is not None
    lead = session.view.legal_moves[0]
    request_id = str(uuid.uuid4())
    with session:
        first = session.move(lead, request_id=request_id)
        again = session.move(lead, request_id=request_id)
        assert again == MoveResult(first.etag, request_id, None)
        with client.session(created.name, created.seat_credentials[0]) as other:
            assert other.move(lead, request_id=request_id).etag == first.etag
        assert client.get(created.name).move_count == 1
        assert session.next_update(TIMEOUT) == first.update
        assert session.pending == 0


def test_a_resumed_session_misses_nothing(client: Croupier) -> None:
    """A session closed in the middle of a game and opened again with the etag of the last
    view it read brings every update since, each the one a session that stayed open read, and
    then goes on live to the end of the game."""
    created = client.create(options_for("one_card"), 3, seed=8)
    credentials = list(created.seat_credentials)
    stayed = Seat(client, created.name, credentials[0])
    rng = random.Random(8)
    moves = 0
    left = client.session(created.name, credentials[0])

    def play_one() -> None:
        nonlocal moves
        view = client.get(created.name)
        seat = rng.choice(list(view.active_seats))
        client.apply(
            created.name,
            credentials[seat],
            rng.choice(client.legal_moves(created.name, credentials[seat])),
        )
        moves += 1

    for _ in range(10):
        play_one()
    while left.view is None or left.view.move_count < 10:
        assert left.next_update(TIMEOUT) is not None
    since = left.view.etag
    left.close()
    for _ in range(15):
        play_one()
    with client.session(created.name, credentials[0], since_etag=since) as resumed:
        stayed.read_to(moves)
        replayed = [resumed.next_update(TIMEOUT) for _ in range(15)]
        assert replayed == stayed.updates[11:]
        while not client.get(created.name).HasField("result"):
            play_one()
        live = list(resumed)  # to the end of the game
    stayed.read_to_end()
    assert live == stayed.updates[26:]
    assert [u.view.move_count for u in stayed.updates] == list(range(moves + 1))
    assert stayed.view.HasField("result")
    stayed.session.close()


def test_a_session_of_a_game_that_does_not_exist_raises_at_its_first_read(
    client: Croupier,
) -> None:
    created = client.create(options_for("one_card"), 2, seed=3)
    missing = "games/" + "0" * 24
    with client.session(missing, created.seat_credentials[0]) as session:
        with pytest.raises(CroupierError) as raised:
            session.next_update(TIMEOUT)
        assert raised.value.code == grpc.StatusCode.NOT_FOUND
        with pytest.raises(CroupierError):
            session.move(PASS)
    other = client.create(options_for("one_card"), 2, seed=4)
    with client.session(other.name, created.seat_credentials[0]) as session:
        with pytest.raises(CroupierError) as raised:
            list(session)
        assert raised.value.code == grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize("game", sorted(GAMES))
def test_croupier_play_prints_the_same_transcript_through_sessions_and_calls(
    game: str, client: Croupier
) -> None:
    """The same seed prints the same game whether the bots play through sessions (the
    default) or through ListLegalMoves and ApplyMove."""
    options = options_for(game)
    if game == "vampire_queen":
        set_option(options, "rounds=1")
    transcripts = []
    for unary in (False, True):
        out = io.StringIO()
        play(client, game, 3, 14, out, options=options, unary=unary)
        transcripts.append(out.getvalue())
    assert transcripts[0] == transcripts[1]
    assert "Final standings" in transcripts[0]
