"""The online table: players and open seats, joining and leaving, finding games,
lost credentials, records, rematches. Two real server processes with an operator key share
each store (a single Redis and a three-master cluster); every race goes through both."""

from __future__ import annotations

import functools
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from croupier.client import Croupier
from croupier.engines.registry import GAMES
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import main as play_main
from croupier.play import options_for
from croupier.records import load_record, save_record
from croupier.service.application.replay import replay
from croupier.service.store import keys
from croupier.v1 import game_service_pb2 as pb
from croupier.v1.one_card_pb2 import OneCardMove
from tests.service.helpers import finish

OPERATOR_KEY = "op-lobby-key"
Status = pb.GameStatus


@dataclass
class Table:
    a: Croupier  # through server A, with the operator key
    b: Croupier  # through server B, with the operator key
    anon_a: Croupier  # through server A, without it
    anon_b: Croupier
    short: Croupier  # through a server whose games expire after 2 s
    target_a: str

    @property
    def both(self) -> list[Croupier]:
        return [self.a, self.b]


@pytest.fixture(scope="module")
def table(store_url: str) -> Iterator[Table]:
    env = {"CROUPIER_OPERATOR_KEY": OPERATOR_KEY}
    with (
        LocalServer(store_url, env=env) as server_a,
        LocalServer(store_url, env=env) as server_b,
        LocalServer(store_url, env=env, extra_args=("--game-ttl", "2")) as short,
        Croupier(server_a.target, operator_key=OPERATOR_KEY) as a,
        Croupier(server_b.target, operator_key=OPERATOR_KEY) as b,
        Croupier(server_a.target) as anon_a,
        Croupier(server_b.target) as anon_b,
        Croupier(short.target, operator_key=OPERATOR_KEY) as short_client,
    ):
        yield Table(a, b, anon_a, anon_b, short_client, server_a.target)


def refused(call: Callable[..., Any], *args: Any, **kwargs: Any) -> CroupierError:
    with pytest.raises(CroupierError) as caught:
        call(*args, **kwargs)
    return caught.value


def player() -> str:
    """A player id of this test alone (the store is shared by the whole session)."""
    return f"user-{uuid.uuid4().hex[:12]}"


def open_game(croupier: Croupier, seats: int = 2, **kwargs: Any) -> pb.CreateGameResponse:
    """A One Card game whose seat 0 is `host`'s (kwargs) and the rest open."""
    host = kwargs.pop("host", player())
    return croupier.create(
        options_for("one_card"),
        seats,
        player_ids=[host] + [""] * (seats - 1),
        open_seats=True,
        **kwargs,
    )


# --- players, open seats, joining ------------------------------------------------------------


def test_open_seats_wait_for_players_and_a_join_claims_one(table: Table) -> None:
    host = player()
    game = open_game(table.a, 3, host=host, display_names=["Host", "", ""])
    assert game.join_code.startswith("jc_")
    assert game.seat_credentials[0] and list(game.seat_credentials[1:]) == ["", ""]
    view = game.view
    assert (view.status, list(view.open_seats)) == (Status.GAME_STATUS_WAITING, [1, 2])
    assert list(view.player_ids) == [host, "", ""]
    assert list(view.active_seats) == []
    host_credential = game.seat_credentials[0]
    assert table.a.legal_moves(game.name, host_credential) == []
    move = pb.Move(one_card=OneCardMove())  # any move: refused before the rules look at it
    error = refused(table.a.apply, game.name, host_credential, move)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_WAITING")

    error = refused(table.anon_b.join, game.name, "jc_" + "x" * 32, player_id=player())
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "JOIN_CODE_REJECTED")
    error = refused(table.anon_b.join, game.name, game.join_code, player_id="x" * 129)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID")
    error = refused(table.anon_b.join, game.name, game.join_code, player_id=host)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_SEATED")
    missing = "games/" + "0" * 24
    error = refused(table.anon_b.join, missing, game.join_code)
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    assert table.a.get(game.name).etag == game.etag  # the refusals changed nothing

    guest = player()
    joined = table.anon_b.join(game.name, game.join_code, player_id=guest, display_name="Guest")
    assert joined.seat == 1 and joined.seat_credential.startswith("cs_")
    assert joined.view.viewer_seat == 1
    assert list(joined.view.player_ids) == [host, guest, ""]
    assert list(joined.view.display_names) == ["Host", "Guest", ""]
    last = table.anon_a.join(game.name, game.join_code)
    assert last.seat == 2
    view = table.a.get(game.name, last.seat_credential)
    assert (view.status, list(view.open_seats)) == (Status.GAME_STATUS_ACTIVE, [])
    assert view.active_seats
    error = refused(table.anon_a.join, game.name, game.join_code, player_id=player())
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL")
    # Each seat plays with its own credential, through either replica.
    credentials = [host_credential, joined.seat_credential, last.seat_credential]
    seat = view.active_seats[0]
    moves = table.b.legal_moves(game.name, credentials[seat])
    table.b.apply(game.name, credentials[seat], moves[0])


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at once, each in a thread; what each returned or raised (CroupierError)."""
    start = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        start.wait()
        try:
            outcomes[index] = calls[index]()
        except CroupierError as error:
            outcomes[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_two_joins_racing_for_the_last_seat_through_two_replicas_one_wins(
    table: Table,
) -> None:
    for _ in range(6):
        game = open_game(table.a, 2)
        outcomes = race(
            [
                functools.partial(c.join, game.name, game.join_code, player_id=player())
                for c in (table.anon_a, table.anon_b)
            ]
        )
        won = [o for o in outcomes if isinstance(o, pb.JoinGameResponse)]
        lost = [o for o in outcomes if isinstance(o, CroupierError)]
        assert len(won) == 1 and len(lost) == 1, outcomes
        assert (lost[0].code, lost[0].reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL")
        view = table.a.get(game.name, won[0].seat_credential)
        assert view.status == Status.GAME_STATUS_ACTIVE
        assert view.etag == "2"  # one join written, the other refused


def test_a_join_sent_again_with_its_request_id_claims_one_seat(
    table: Table, redis_client: redis.Redis
) -> None:
    """A JoinGame whose answer was lost, sent again with its request id (to the same replica or
    another), gets the first answer back, the same seat and credential, and writes nothing."""
    game = open_game(table.a, 4)
    game_id = game.name.removeprefix("games/")
    guest, request_id = player(), str(uuid.uuid4())
    first = table.anon_a.join(
        game.name, game.join_code, player_id=guest, display_name="Guest", request_id=request_id
    )
    assert first.seat == 1 and first.view.etag == "2"
    again = [
        c.join(
            game.name, game.join_code, player_id=guest, display_name="Guest", request_id=request_id
        )
        for c in (table.anon_a, table.anon_b, table.anon_b)
    ]
    assert all(a == first for a in again)  # the same seat, credential and view
    view = table.a.get(game.name)
    assert (view.etag, list(view.open_seats)) == ("2", [2, 3])  # nothing written again
    assert table.a.get(game.name, first.seat_credential).viewer_seat == 1
    # The record is the game's, beside its keys (one slot in a cluster), and no older than it.
    record_key = keys.request(game_id, f"join:{request_id}")
    assert redis_client.exists(record_key)
    assert 0 < redis_client.ttl(record_key) <= redis_client.ttl(keys.game(game_id))

    # The same id with another request is refused, and changes nothing; another id claims
    # another seat.
    for other in (
        {"player_id": player(), "display_name": "Guest"},
        {"player_id": guest, "display_name": "Someone else"},
    ):
        error = refused(
            table.anon_b.join, game.name, game.join_code, request_id=request_id, **other
        )
        assert (error.code, error.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED")
    # The record is answered only to a caller with the join code.
    error = refused(
        table.anon_b.join, game.name, "jc_" + "x" * 32, player_id=guest, request_id=request_id
    )
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "JOIN_CODE_REJECTED")
    error = refused(table.anon_b.join, game.name, game.join_code, request_id="not-a-uuid")
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST_ID")
    assert table.a.get(game.name).etag == "2"
    second = table.anon_b.join(game.name, game.join_code, player_id=player())
    assert second.seat == 2 and second.seat_credential != first.seat_credential


def test_one_join_sent_through_both_replicas_at_once_claims_one_seat(table: Table) -> None:
    """The record is written by the claim's own compare-and-set: the same request racing
    through two replicas claims one seat, and both answers are that seat's."""
    for _ in range(6):
        game = open_game(table.a, 3)
        request_id = str(uuid.uuid4())
        # No player id: nothing but the record tells the second call from another join.
        outcomes = race(
            [
                functools.partial(
                    c.join, game.name, game.join_code, display_name="Guest", request_id=request_id
                )
                for c in (table.anon_a, table.anon_b)
            ]
        )
        assert outcomes[0] == outcomes[1] and isinstance(outcomes[0], pb.JoinGameResponse)
        view = table.a.get(game.name)
        assert (view.etag, list(view.open_seats)) == ("2", [2])


def test_a_join_record_expires_with_its_game(table: Table, redis_client: redis.Redis) -> None:
    game = open_game(table.short, 3)  # kept 2 s without a write
    request_id = str(uuid.uuid4())
    first = table.short.join(game.name, game.join_code, request_id=request_id)
    record_key = keys.request(game.name.removeprefix("games/"), f"join:{request_id}")
    assert redis_client.exists(record_key)
    time.sleep(2.5)
    assert not redis_client.exists(record_key)
    error = refused(table.short.join, game.name, game.join_code, request_id=request_id)
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    assert first.seat == 1


def test_leave_frees_a_seat_before_the_first_move_only(table: Table) -> None:
    game = open_game(table.a, 2, public=True)
    joined = table.anon_b.join(game.name, game.join_code, player_id=player())
    view = table.b.leave(game.name, joined.seat_credential)
    assert (view.status, list(view.open_seats), view.player_ids[1]) == (
        Status.GAME_STATUS_WAITING,
        [1],
        "",
    )
    # The freed seat's credential is refused everywhere; the seat can be claimed again.
    for croupier in table.both:
        error = refused(croupier.get, game.name, joined.seat_credential)
        assert error.reason == "CREDENTIAL_REJECTED"
    again = table.anon_a.join(game.name, game.join_code, player_id=player())
    assert again.seat == 1
    credentials = [game.seat_credentials[0], again.seat_credential]
    view = table.a.get(game.name, credentials[0])
    seat = view.active_seats[0]
    table.a.apply(
        game.name, credentials[seat], table.a.legal_moves(game.name, credentials[seat])[0]
    )
    error = refused(table.b.leave, game.name, again.seat_credential)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_STARTED")
    closed = table.a.create(options_for("one_card"), 2)  # no open seats: no join code
    error = refused(table.a.leave, closed.name, closed.seat_credentials[1])
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_JOINABLE")


# --- lost credentials ------------------------------------------------------------------------


def test_a_reissued_credential_replaces_the_old_one_on_every_replica(
    table: Table, server_a: LocalServer
) -> None:
    game = table.a.create(options_for("one_card"), 3, seed=5)
    old = list(game.seat_credentials)
    view = table.a.get(game.name, old[0])
    seat = view.active_seats[0]
    # Server A remembers the game's state (this move), with the old credential hashes in it.
    table.a.apply(game.name, old[seat], table.a.legal_moves(game.name, old[seat])[0])
    view = table.a.get(game.name, old[0])
    seat = view.active_seats[0]
    watch = table.a.watch(game.name, old[seat])
    assert next(watch).view.viewer_seat == seat

    new = table.b.reissue(game.name, seat)
    assert new.startswith("cs_") and new != old[seat]
    move = table.a.legal_moves(game.name, new)[0]
    for croupier in table.both:
        for call in (croupier.get, croupier.legal_moves):
            assert refused(call, game.name, old[seat]).reason == "CREDENTIAL_REJECTED"
        error = refused(croupier.apply, game.name, old[seat], move)
        assert error.reason == "CREDENTIAL_REJECTED"
    # The old credential's open watch stream ends at the next change of the game.
    table.a.apply(game.name, new, move)
    with pytest.raises(CroupierError) as ended:
        for _ in watch:
            pass
    assert ended.value.reason == "CREDENTIAL_REJECTED"
    assert table.b.get(game.name, new).viewer_seat == seat

    error = refused(table.anon_a.reissue, game.name, 0)
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "OPERATOR_KEY_MISSING")
    error = refused(table.a.reissue, game.name, 3)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT")
    # A server without operator keys reissues for nobody.
    with Croupier(server_a.target, operator_key="anything") as no_keys:
        error = refused(no_keys.reissue, game.name, 0)
    assert (error.code, error.reason) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "OPERATOR_KEY_REJECTED",
    )


# --- finding games ---------------------------------------------------------------------------


def names_of(games: Any) -> list[str]:
    return [g.name for g in games]


def test_list_games_by_player_newest_first_with_stable_pages(table: Table) -> None:
    who = player()
    made = [
        table.both[i % 2].create(options_for("whats_your_name"), 2, player_ids=[who, ""])
        for i in range(7)
    ]
    listed = names_of(table.a.iter_games(filter=f'player_id = "{who}"'))
    assert listed == [g.name for g in reversed(made)]

    # Pages of 3 through alternating replicas, while games of the player are created and one
    # listed game is played to its end: every game there before the listing began is listed
    # once, in order; none twice.
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page = table.both[pages % 2].list_games(
            filter=f'player_id = "{who}"', page_size=3, page_token=token
        )
        seen += names_of(page.games)
        pages += 1
        table.a.create(options_for("whats_your_name"), 2, player_ids=[who, ""])
        if pages == 1:
            view, _ = finish(table.both, made[5].name, list(made[5].seat_credentials), seed=3)
            assert view.status == Status.GAME_STATUS_FINISHED
        token = page.next_page_token
        if not token:
            break
    assert seen == listed
    # The lobby lists none of them (not public), and reading them there drops no entry of the
    # player's index (the finished game's included).
    assert names_of(table.anon_b.iter_games(filter=f'player_id = "{who}"')) == []
    finished = names_of(table.b.iter_games(filter=f'player_id = "{who}" AND status = finished'))
    assert finished == [made[5].name]
    summary = next(
        iter(table.b.list_games(filter=f'player_id = "{who}" AND status = finished').games)
    )
    assert summary.result.seats and summary.move_count > 0
    assert summary.player_ids == [who, ""]


def test_the_operator_lists_every_game_newest_first_across_the_buckets(table: Table) -> None:
    """The index of every game is 16 buckets (slots of their own in a cluster), merged."""
    made = [table.both[i % 2].create(options_for("whats_your_name"), 2) for i in range(5)]
    page = table.a.list_games(page_size=5)
    assert names_of(page.games) == [g.name for g in reversed(made)]
    listed = list(page.games)
    for number in range(3):
        table.b.create(options_for("whats_your_name"), 2)  # newer: shifts no page
        if not page.next_page_token:
            break
        page = table.both[number % 2].list_games(page_size=5, page_token=page.next_page_token)
        listed += page.games
    assert len({g.name for g in listed}) == len(listed)
    times = [g.create_time.ToMilliseconds() for g in listed]
    assert times == sorted(times, reverse=True)


def test_the_lobby_lists_public_games_with_open_seats_only(table: Table) -> None:
    host = player()
    public = open_game(table.a, 2, host=host, public=True)
    private = open_game(table.a, 2, host=host)
    full = table.a.create(options_for("one_card"), 2, player_ids=[host, ""], public=True)
    lobby = names_of(table.anon_b.iter_games(filter=f'player_id = "{host}"'))
    assert lobby == [public.name]
    assert public.name in names_of(table.anon_a.iter_games(filter="status = waiting"))
    every = names_of(table.b.iter_games(filter=f'player_id = "{host}"'))
    assert every == [full.name, private.name, public.name]
    # A public game's seat is taken from the lobby, which cannot show the secret join code:
    # without one. A private game's is not.
    joined = table.anon_a.join(public.name, "", display_name="Bo")
    assert joined.seat == 1 and joined.seat_credential
    assert list(joined.view.display_names) == ["", "Bo"]
    error = refused(table.anon_a.join, private.name, "")
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_JOIN_CODE")
    assert names_of(table.anon_b.iter_games(filter=f'player_id = "{host}"')) == []
    assert public.name not in names_of(table.anon_a.iter_games())
    # Waiting, active: the operator's filter on the game's own status.
    waiting = names_of(table.a.iter_games(filter=f'player_id = "{host}" AND status = waiting'))
    assert waiting == [private.name]
    active = names_of(table.a.iter_games(filter=f'status = active AND player_id = "{host}"'))
    assert active == [full.name, public.name]
    none = table.a.list_games(filter=f'player_id = "{host}" AND game_type = trinity')
    assert list(none.games) == []


def test_page_tokens_are_bound_to_their_filter_and_tamper_evident(table: Table) -> None:
    who = player()
    for _ in range(3):
        table.a.create(options_for("one_card"), 2, player_ids=[who, ""])
    page = table.a.list_games(filter=f'player_id = "{who}"', page_size=1)
    token = page.next_page_token
    assert token
    # Accepted by the other replica (one secret per deployment).
    assert (
        len(table.b.list_games(filter=f'player_id = "{who}"', page_size=1, page_token=token).games)
        == 1
    )
    forged = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    for bad, other_filter in [
        (forged, f'player_id = "{who}"'),
        (token, f'player_id = "{who}" AND status = active'),
        (token, ""),
        ("not-a-token", f'player_id = "{who}"'),
    ]:
        error = refused(table.b.list_games, filter=other_filter, page_size=1, page_token=bad)
        assert (error.code, error.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PAGE_TOKEN",
        ), (bad, other_filter)
    # A token of the operator's listing is not one of the lobby's.
    error = refused(
        table.anon_a.list_games, filter=f'player_id = "{who}"', page_size=1, page_token=token
    )
    assert error.reason == "INVALID_PAGE_TOKEN"
    for bad_filter in ["player = x", "status = over", "game_type = chess", 'status = "a" OR x']:
        error = refused(table.a.list_games, filter=bad_filter)
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FILTER")
    error = refused(table.a.list_games, page_size=-1)
    assert error.reason == "INVALID_PAGE_SIZE"
    with Croupier(table.target_a, operator_key="wrong") as wrong:
        error = refused(wrong.list_games)
    assert (error.code, error.reason) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "OPERATOR_KEY_REJECTED",
    )


def test_a_page_token_is_bound_to_its_kind_of_caller_and_the_refusal_says_so(
    table: Table,
) -> None:
    """The operator pages through its own listing with the same filter, page after page, on
    either replica; a token of the lobby's listing sent with the operator key (or the other
    way round) is refused with the same filter too, and told so: not "another filter"."""
    for _ in range(3):
        open_game(table.a, public=True)
    for listing in ["", "status = waiting", "game_type = one_card AND status = waiting"]:
        first = table.a.list_games(filter=listing, page_size=1)
        second = table.b.list_games(filter=listing, page_size=1, page_token=first.next_page_token)
        third = table.a.list_games(filter=listing, page_size=1, page_token=second.next_page_token)
        names = [page.games[0].name for page in (first, second, third)]
        assert len(set(names)) == 3, listing  # three pages, three games, newest first

        lobby = table.anon_a.list_games(filter=listing, page_size=1)
        assert lobby.next_page_token
        error = refused(
            table.a.list_games, filter=listing, page_size=1, page_token=lobby.next_page_token
        )
        assert (error.code, error.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PAGE_TOKEN",
        )
        assert "made for the lobby" in error.message and "filter" not in error.message
        error = refused(
            table.anon_b.list_games, filter=listing, page_size=1, page_token=first.next_page_token
        )
        assert error.reason == "INVALID_PAGE_TOKEN"
        assert "operator's listing" in error.message and "filter" not in error.message
    # Another filter is still told as such.
    error = refused(
        table.a.list_games, filter="status = active", page_size=1, page_token=first.next_page_token
    )
    assert "another filter" in error.message


def test_expired_games_leave_the_listing_and_their_entries_are_dropped(
    table: Table, redis_client: redis.Redis
) -> None:
    who = player()
    kept = table.a.create(options_for("one_card"), 2, player_ids=[who, ""])
    expiring = table.short.create(options_for("one_card"), 2, player_ids=[who, ""])
    # An entry whose game is long gone (its score: an hour ago), as an expired game leaves.
    gone_id = uuid.uuid4().hex[:24]
    redis_client.zadd(keys.player_index(who), {gone_id: int(time.time() * 1000) - 3_600_000})
    assert names_of(table.a.iter_games(filter=f'player_id = "{who}"')) == [
        expiring.name,
        kept.name,
    ]
    time.sleep(2.5)
    assert names_of(table.b.iter_games(filter=f'player_id = "{who}"')) == [kept.name]
    assert redis_client.zscore(keys.player_index(who), gone_id) is None
    # A recent entry whose game is missing is skipped, not dropped (its game may be on its way).
    assert redis_client.zscore(keys.player_index(who), expiring.name.removeprefix("games/"))


# --- records, replay, rematch -----------------------------------------------------------------


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_the_record_of_a_finished_game_replays_to_its_result(
    table: Table, game_type: str, tmp_path: Path
) -> None:
    engine = GAMES[game_type]
    who = player()
    # Seed 5 plays each game to its end in at most a few hundred moves (One Card's two seats
    # can take thousands with other seeds); a record's checks do not depend on its length.
    game = table.a.create(
        options_for(game_type),
        engine.min_seats,
        seed=5,
        player_ids=[who] + [""] * (engine.min_seats - 1),
    )
    credentials = list(game.seat_credentials)
    error = refused(table.b.record, game.name, credentials[0])
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")
    view, moves = finish(table.both, game.name, credentials, seed=5)
    record = table.b.record(game.name, credentials[-1])
    assert record == table.a.record(game.name)  # the operator's
    assert (record.name, record.setup.seed, record.setup.seats) == (game.name, 5, engine.min_seats)
    assert record.setup.WhichOneof("options") == game_type
    assert record.setup.player_ids[0] == who
    assert len(record.moves) == moves and record.result == view.result
    assert replay(record) == view.result
    path = tmp_path / "record.json"
    save_record(record, path)
    assert load_record(path) == record
    play_main(["--replay", str(path)])  # croupier-play --replay FILE
    # A record altered by one move does not replay to its result.
    record.moves.pop()
    save_record(record, path)
    with pytest.raises(SystemExit) as failed:
        play_main(["--replay", str(path)])
    assert failed.value.code == 1
    stranger = table.a.create(options_for(game_type), engine.min_seats).seat_credentials[0]
    assert refused(table.b.record, game.name, stranger).reason == "CREDENTIAL_REJECTED"


def test_a_rematch_is_made_once_with_the_same_seats_and_a_new_seed(table: Table) -> None:
    who = [player(), player()]
    game = table.a.create(
        options_for("whats_your_name"), 2, player_ids=who, display_names=["A", "B"]
    )
    credentials = list(game.seat_credentials)
    error = refused(table.a.rematch, game.name, credentials[0])
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")
    finish(table.both, game.name, credentials, seed=8)
    made = race(
        [
            lambda: table.anon_a.rematch(game.name, credentials[0]),
            lambda: table.anon_b.rematch(game.name, credentials[1]),
        ]
    )
    assert all(isinstance(m, pb.CreateGameResponse) for m in made), made
    assert made[0].name == made[1].name
    rematch = made[0].name
    assert table.b.get(game.name, credentials[1]).rematch == rematch
    view = table.a.get(rematch, credentials[1])
    assert (view.viewer_seat, list(view.player_ids), list(view.display_names)) == (
        1,
        who,
        ["A", "B"],
    )
    assert view.status == Status.GAME_STATUS_ACTIVE and view.move_count == 0
    finish(table.both, rematch, credentials, seed=9)
    old, new = table.a.record(game.name), table.a.record(rematch)
    assert old.setup.seed != new.setup.seed
    assert (
        old.setup.whats_your_name == new.setup.whats_your_name
        and old.setup.seats == new.setup.seats
    )
    # The other listed games of the players include the rematch.
    assert rematch in names_of(table.a.iter_games(filter=f'player_id = "{who[0]}"'))


def test_croupier_play_opens_a_table_and_lists_the_lobby(
    table: Table, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROUPIER_OPERATOR_KEY", OPERATOR_KEY)
    host = player()
    args = ["--game", "one_card", "--players", "2", "--target", table.target_a]
    play_main([*args, "--open-seats", "--public", "--player-id", host])
    printed = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    name, code = printed["game"], printed["join"].removeprefix("code").strip()
    play_main(["--list", "--target", table.target_a])
    assert f"{name}  one_card  seats 0: {host}, 1: - (open)" in capsys.readouterr().out
    joined = table.anon_b.join(name, code, player_id=player())
    assert joined.seat == 1 and joined.view.status == Status.GAME_STATUS_ACTIVE


def test_croupier_play_saves_a_record_on_a_server_with_operator_keys(
    table: Table,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The README's steps: `croupier-play --save-record FILE` against a shared server, then
    `croupier-play --replay FILE`. A server with operator keys creates games only for them:
    croupier-play sends CROUPIER_OPERATOR_KEY on every play, not only with --open-seats (it
    sent none and failed with OPERATOR_KEY_MISSING)."""
    path = tmp_path / "game.json"
    args = ["--game", "whats_your_name", "--players", "2", "--seed", "5"]
    monkeypatch.delenv("CROUPIER_OPERATOR_KEY", raising=False)
    with pytest.raises(SystemExit):
        play_main([*args, "--target", table.target_a])
    assert "OPERATOR_KEY_MISSING" in capsys.readouterr().err
    monkeypatch.setenv("CROUPIER_OPERATOR_KEY", OPERATOR_KEY)
    play_main([*args, "--target", table.target_a, "--save-record", str(path)])
    assert f"record saved to {path}" in capsys.readouterr().out
    record = load_record(path)
    assert record.setup.seed == 5 and record.moves
    assert table.b.record(record.name) == record  # the operator's copy, through the other replica
    play_main(["--replay", str(path)])  # returns: the replay ends in the recorded result


def test_bad_input_gets_a_clear_error_and_changes_nothing(table: Table) -> None:
    """Bad input (unknown game, wrong join code, joining a full or finished game, a
    player id over the size limit, a page token from another filter, a forged page token) gets
    a clear error and changes nothing (the join code and page tokens: the tests above)."""
    host = player()
    game = open_game(table.a, 2, host=host)
    joined = table.anon_b.join(game.name, game.join_code, player_id=player())
    credentials = [game.seat_credentials[0], joined.seat_credential]
    finish(table.both, game.name, credentials, seed=4)
    finished = table.a.get(game.name)
    error = refused(table.anon_a.join, game.name, game.join_code, player_id=player())
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL")
    assert refused(table.anon_b.leave, game.name, credentials[1]).reason == "GAME_STARTED"

    missing = "games/" + "0" * 24
    calls: list[Callable[[], Any]] = [
        functools.partial(table.anon_a.leave, missing, credentials[0]),
        functools.partial(table.a.reissue, missing, 0),
        functools.partial(table.a.record, missing),
        functools.partial(table.a.rematch, missing),
    ]
    for call in calls:
        error = refused(call)
        assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"), call
    calls = [
        functools.partial(table.anon_a.join, "games/nope", game.join_code),
        functools.partial(table.a.record, "games/" + "0" * 24 + "\n"),
    ]
    for call in calls:
        error = refused(call)
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")

    for player_ids in [[player(), "x" * 129], [player(), "tab\there"], [player()]]:
        error = refused(
            table.a.create, options_for("one_card"), 2, player_ids=player_ids, open_seats=True
        )
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID")
        assert list(table.a.iter_games(filter=f'player_id = "{player_ids[0]}"')) == []
    for bad in [
        {"player_id": "x" * 129},
        {"display_name": "x" * 65},
        {"display_name": "new\nline"},
    ]:
        waiting = open_game(table.a, 2)
        error = refused(table.anon_b.join, waiting.name, waiting.join_code, **bad)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT, bad
        assert table.a.get(waiting.name).etag == waiting.etag
    error = refused(table.anon_b.join, waiting.name, "")  # a private game needs its code
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_JOIN_CODE")
    error = refused(table.a.list_games, filter=f'player_id = "{"x" * 129}"')
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID")
    # A seat's record without its credential; a stranger's rematch.
    error = refused(table.anon_a.record, game.name)
    assert error.code == grpc.StatusCode.UNAUTHENTICATED
    stranger = table.a.create(options_for("one_card"), 2).seat_credentials[0]
    assert refused(table.anon_a.rematch, game.name, stranger).reason == "CREDENTIAL_REJECTED"
    assert table.a.get(game.name) == finished  # the finished game did not change
    assert table.a.get(waiting.name).etag == waiting.etag


def test_a_left_seat_stops_the_turn_clock_until_the_table_is_full_again(table: Table) -> None:
    """LeaveGame "frees a seat before the first move": the game waits again, so its turn clock
    stops (no deadline in the view) and starts afresh when the last seat is claimed again; a
    deadline set by the first full table does not survive into the second (it had, and the
    sweep then played the seat at once)."""
    clock = pb.Clock(seconds_per_decision=3)
    game = open_game(table.a, 2, clock=clock)
    joined = table.anon_b.join(game.name, game.join_code, player_id=player())
    assert joined.view.deadlines  # the table is full: the clock runs
    left = table.b.leave(game.name, joined.seat_credential)
    assert left.status == Status.GAME_STATUS_WAITING and list(left.deadlines) == []
    time.sleep(3.5)  # past the deadline the first full table had
    before_ms = int(time.time() * 1000)
    again = table.anon_a.join(game.name, game.join_code, player_id=player())
    deadlines = [d.deadline.ToMilliseconds() for d in again.view.deadlines]
    assert deadlines and all(d >= before_ms + 2_000 for d in deadlines), (deadlines, before_ms)
    time.sleep(0.5)  # several sweeps of the due index (every 0.2 s): none plays a seat
    assert table.a.get(game.name).move_count == 0


def test_the_lobby_stays_exact_while_seats_are_joined_and_left_through_both_replicas(
    table: Table,
) -> None:
    """The indexes stay correct under races. Joins and leaves of public games race
    through both replicas while listings read the lobby: each page lists every game once, as
    its own hash says at that moment (waiting, public), and once the races end the lobby is
    exactly the games with an open seat (no entry a race removed, none left listing a full
    game)."""
    host = player()
    games = [open_game(table.a, 2, host=host, public=True) for _ in range(6)]
    stop = threading.Event()
    seen: list[list[pb.GameSummary]] = []

    failures: list[BaseException] = []

    def churn(number: int) -> None:
        try:
            rounds(number)
        except BaseException as error:  # surfaced below: a thread's exception is only printed
            failures.append(error)

    def rounds(number: int) -> None:
        game = games[number]
        for round_ in range(4):
            joiner = [table.anon_a, table.anon_b][(number + round_) % 2]
            joined = joiner.join(game.name, game.join_code, player_id=player())
            if number % 2 and round_ == 3:
                return  # odd games end full
            [table.anon_b, table.anon_a][(number + round_) % 2].leave(
                game.name, joined.seat_credential
            )

    def listing() -> None:
        while True:
            seen.append(list(table.anon_a.iter_games(filter=f'player_id = "{host}"')))
            if stop.wait(0.02):  # under the per-address rate of calls without a credential
                return

    lister = threading.Thread(target=listing)
    lister.start()
    workers = [threading.Thread(target=churn, args=(n,)) for n in range(len(games))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    stop.set()
    lister.join()
    assert not failures and seen
    for page in seen:
        assert len({g.name for g in page}) == len(page)
        assert all(g.status == Status.GAME_STATUS_WAITING and list(g.open_seats) for g in page)
    expected = [g.name for n, g in reversed(list(enumerate(games))) if n % 2 == 0]
    for lobby in (table.anon_a, table.anon_b):
        assert names_of(lobby.iter_games(filter=f'player_id = "{host}"')) == expected
