"""A finished game's record (GetGameRecord) as a file: the protobuf JSON of
`croupier.v1.GameRecord`, as `croupier-play --save-record FILE` writes it and `croupier-play
--replay FILE` reads it."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import json_format

from croupier.v1 import game_service_pb2 as pb


def load_record(path: Path) -> pb.GameRecord:
    return json_format.Parse(path.read_text(), pb.GameRecord())


def save_record(record: pb.GameRecord, path: Path) -> None:
    path.write_text(json_format.MessageToJson(record) + "\n")
