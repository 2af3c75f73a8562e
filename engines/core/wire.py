"""Protobuf's wire format, for messages put together from serialized parts instead of built
and serialized whole: varints, tags, length-delimited fields, where fields start in a
serialized message, and a view spliced from the part every audience shares and an audience's
own fields. The service builds every watch update this way (service/games.py); here, with
the engines, the code is compiled by mypyc, for the splice runs once per seat and move
(docs/decisions.md, "Compiled engines").

Protobuf writes the fields of these messages in the order of their numbers and a message
field as its tag, its size and its bytes, so a message joined from such parts is byte for
byte the message serialized whole (tests/service/test_watch_updates.py checks every game)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

# The varints of one byte, made once: several are written for every update.
_ONE_BYTE: Final = tuple(bytes((value,)) for value in range(0x80))

LENGTH_DELIMITED: Final = 2
VARINT: Final = 0


def varint(value: int) -> bytes:
    """`value` (not negative) as a protobuf varint."""
    if value < 0x80:  # most: a tag, a seat, the size of a small field
        return _ONE_BYTE[value]
    if value < 0x4000:  # the size of a view or an update
        return bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    """A field's tag: its number, then its wire type (LENGTH_DELIMITED or VARINT here)."""
    return varint((number << 3) | wire_type)


def field(tag_bytes: bytes, value: bytes) -> bytes:
    """A length-delimited field: its tag, its size, `value`."""
    return tag_bytes + varint(len(value)) + value


def read_varint(data: bytes, position: int) -> tuple[int, int]:
    """The varint at `position` in `data`, and the position after it."""
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def field_positions(data: bytes, numbers: Sequence[int]) -> tuple[int, ...]:
    """For each of `numbers` (ascending), where the first field numbered that or more starts in
    the serialized message `data` (its fields in order of number), in one pass."""
    found: list[int] = []
    position, end, wanted = 0, len(data), len(numbers)
    while position < end and len(found) < wanted:
        # Tags and sizes of one byte are read in place: a call per varint cost most of the pass
        # when this was interpreted (docs/performance.md, "A watch update counted").
        key = data[position]
        after = position + 1
        if key >= 0x80:
            key, after = read_varint(data, position)
        while len(found) < wanted and key >> 3 >= numbers[len(found)]:
            found.append(position)
        wire_type = key & 7
        if wire_type == VARINT:
            while data[after] >= 0x80:  # a varint value, skipped to its last byte
                after += 1
            after += 1
        elif wire_type == LENGTH_DELIMITED:
            size = data[after]
            if size < 0x80:
                after += 1 + size
            else:
                size, after = read_varint(data, after)
                after += size
        elif wire_type == 1:
            after += 8
        elif wire_type == 5:
            after += 4
        else:
            raise ValueError(f"unexpected wire type {wire_type}")
        position = after
    while len(found) < wanted:
        found.append(end)
    return tuple(found)


def put_in(shared: bytes, positions: Sequence[int], own: Sequence[bytes]) -> bytes:
    """The serialized message `shared` with `own` (an audience's own fields, one per position,
    each serialized) put in at `positions` (`field_positions` of their numbers)."""
    if len(own) != len(positions):
        raise ValueError(f"{len(own)} own fields for {len(positions)} places")
    pieces: list[bytes] = []
    start = 0
    for index in range(len(positions)):
        position = positions[index]
        pieces.append(shared[start:position])
        pieces.append(own[index])
        start = position
    pieces.append(shared[start:])
    return b"".join(pieces)


def nested_update(
    update_tag: bytes,
    leading: Sequence[bytes],
    view_tag: bytes,
    shared: bytes,
    positions: Sequence[int],
    own: Sequence[bytes],
    after: bytes,
) -> bytes:
    """A message whose first field (`update_tag`) is a message of the serialized fields
    `leading` and a last field (`view_tag`) holding `shared` with `own` put in at `positions`
    (`put_in`), then `after`: the bytes of `field(update_tag, b"".join(leading) +
    field(view_tag, put_in(shared, positions, own))) + after`, with the sizes added up and
    everything joined once."""
    if len(own) != len(positions):
        raise ValueError(f"{len(own)} own fields for {len(positions)} places")
    inner_size = len(shared)
    for part in own:
        inner_size += len(part)
    inner_size_field = varint(inner_size)
    outer_size = len(view_tag) + len(inner_size_field) + inner_size
    for part in leading:
        outer_size += len(part)
    pieces = [update_tag, varint(outer_size)]
    pieces.extend(leading)
    pieces.append(view_tag)
    pieces.append(inner_size_field)
    start = 0
    for index in range(len(positions)):
        position = positions[index]
        pieces.append(shared[start:position])
        pieces.append(own[index])
        start = position
    pieces.append(shared[start:])
    pieces.append(after)
    return b"".join(pieces)
