"""The field descriptors of the messages a process uses, kept alive for as long as it runs.

Why: the object Python gets for a repeated field of a message (`state.hands`, `hand.cards`)
holds that field's descriptor as a Python object, which upb makes when the first such object
of the field is made and frees when the last one goes. Rules read the repeated fields of one
state at a time, each read making its container anew, so without a lasting reference every read
made and freed a descriptor, a large part of reading a short hand, and dozens of times per
ApplyMove. Kept here, each is made once. Nothing else changes: the descriptors are the same
objects every caller would get.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.descriptor import Descriptor, FileDescriptor

# Every field descriptor of the files given to `keep`; only ever grows, bounded by the protos.
_KEPT: dict[str, tuple[Any, ...]] = {}


def keep(files: Iterable[FileDescriptor]) -> None:
    """Hold the field descriptors of every message (nested ones included) of `files` and of
    the files they import."""
    for file in files:
        if file.name not in _KEPT:
            fields: list[Any] = []
            for message in file.message_types_by_name.values():
                _collect(message, fields)
            _KEPT[file.name] = tuple(fields)
            keep(file.dependencies)


def kept() -> list[Any]:
    """Every field descriptor held."""
    return [field for fields in _KEPT.values() for field in fields]


def _collect(message: Descriptor, fields: list[Any]) -> None:
    fields += message.fields
    for nested in message.nested_types:
        _collect(nested, fields)
