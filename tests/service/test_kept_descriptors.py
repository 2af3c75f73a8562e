"""A server process makes the descriptor of each field of its messages once and keeps it
(engines/croupier/engines/core/descriptors.py), so that reading a repeated field of a fresh message,
as every move does, finds it instead of making it again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from croupier.engines.core import descriptors
from croupier.engines.registry import GAMES
from croupier.service.application import config
from croupier.service.store.memory_store import MemoryStore
from croupier.service.transport.servicer import GameService
from croupier.v1 import game_service_pb2, storage_pb2


def fields_of(message: Any) -> Iterator[Any]:
    yield from message.fields
    for nested in message.nested_types:
        yield from fields_of(nested)


def test_a_server_keeps_every_field_descriptor_of_its_messages() -> None:
    GameService(MemoryStore(), config.parse([], {}))
    # Kept objects are alive, so no descriptor made afresh can share an id with one of them.
    kept = {id(field) for field in descriptors.kept()}
    files = [
        game_service_pb2.DESCRIPTOR,
        storage_pb2.DESCRIPTOR,
        *(engine.state_type.DESCRIPTOR.file for engine in GAMES.values()),
    ]
    checked = 0
    for file in files:
        for message in file.message_types_by_name.values():
            for field in fields_of(message):
                assert id(field) in kept, field.full_name
                checked += 1
    assert checked > 500
