"""The wire-format helpers (engines/core/wire.py) write and read what protobuf does, and a
message joined from parts is the message serialized whole."""

from __future__ import annotations

import pytest
from google.protobuf.message import Message

from croupier.engines.core import wire
from croupier.v1.game_service_pb2 import (
    GAME_STATUS_ACTIVE,
    Event,
    GameView,
    WatchGameResponse,
)
from croupier.v1.one_card_pb2 import OneCardCard, OneCardView


def test_the_wire_format_helpers_read_and_write_as_protobuf_does() -> None:
    """The update's parts are cut from serialized messages where a field starts: found for
    tags of one and two bytes, lengths of one and two bytes and varint values of one to seven
    bytes, as protobuf lays them out (whole games seldom reach the longer forms)."""
    assert wire.varint(0) == b"\x00"  # (a field at its default is not written: no protobuf twin)
    for value in (1, 127, 128, 300, 16_383, 16_384, 2**31 - 1):
        assert wire.varint(value) == GameView(move_count=value).SerializeToString()[1:]
        assert wire.read_varint(b"\xff" + wire.varint(value), 1) == (
            value,
            len(wire.varint(value)) + 1,
        )
    view = GameView(
        name="games/" + "x" * 200,  # a length of two bytes
        seats=3,
        display_names=["a" * 128, "b"],  # a length of 0x80 0x01
        viewer_seat=1,
        move_count=2**42,  # a value of seven bytes: six of 0x80, then 0x01
        status=GAME_STATUS_ACTIVE,
        clock_seconds=300,  # field 16: a tag of two bytes
        time_bank_ms=[90_000, 1, 2**40],  # packed: a length, then varints of up to six bytes
        forfeited_seat=2,
    )
    view.one_card.hand_sizes.extend([7, 7, 7])
    data = view.SerializeToString()
    numbers = sorted(field.number for field in GameView.DESCRIPTOR.fields)
    for start in range(len(numbers)):
        wanted = numbers[start:]
        before: Message = GameView.FromString(data)  # (a Message: its fields cleared by name)
        for field in GameView.DESCRIPTOR.fields:
            if field.number >= wanted[0]:
                before.ClearField(field.name)
        expected = len(before.SerializeToString())  # where the first field of `wanted` starts
        assert wire.field_positions(data, wanted)[0] == expected
    positions = wire.field_positions(data, (6, 16, 22))
    assert positions == tuple(wire.field_positions(data, (n,))[0] for n in (6, 16, 22))
    assert wire.field_positions(data, (26,)) == (len(data),)  # beyond the last field: the end


@pytest.mark.parametrize("cards", [0, 1, 40, 5_000], ids=lambda n: f"{n} cards")
def test_a_view_joined_from_parts_is_the_message_serialized_whole(cards: int) -> None:
    """`nested_update` (and `put_in`) against protobuf, with sizes whose varints take one,
    two and three bytes: an update of a One Card view whose hand (its own field, number 1)
    goes in before the shared fields."""
    shared = OneCardView(discard_pile_size=3, draw_pile_size=40, hand_sizes=[cards, 2])
    own_view = OneCardView(hand=[OneCardCard(number=1 + n % 9) for n in range(cards)])
    own = (own_view.SerializeToString(),)
    data = shared.SerializeToString()
    positions = wire.field_positions(data, (1,))
    whole_view = OneCardView.FromString(data)
    whole_view.MergeFrom(own_view)
    assert wire.put_in(data, positions, own) == whole_view.SerializeToString()

    head = GameView(name="games/x", seats=2).SerializeToString()
    seat = GameView(viewer_seat=1).SerializeToString()
    game_tag = wire.tag(GameView.DESCRIPTOR.fields_by_name["one_card"].number, 2)
    events = WatchGameResponse(events=[Event()]).SerializeToString()
    update_tag = wire.tag(WatchGameResponse.VIEW_FIELD_NUMBER, 2)
    joined = wire.nested_update(
        update_tag, (head, seat, b""), game_tag, data, positions, own, events
    )
    expected = WatchGameResponse(
        view=GameView(name="games/x", seats=2, viewer_seat=1, one_card=whole_view)
    )
    expected.events.add()
    assert joined == expected.SerializeToString()


def test_own_fields_that_do_not_match_their_places_are_refused() -> None:
    with pytest.raises(ValueError, match="2 own fields for 1 places"):
        wire.put_in(b"", (0,), (b"", b""))
    with pytest.raises(ValueError, match="0 own fields for 1 places"):
        wire.nested_update(b"\x0a", (), b"\x12", b"", (0,), (), b"")
