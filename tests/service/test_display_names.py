"""Display names are text people read, in any script (docs/api.md, "Display names"): CreateGame
and JoinGame accept emoji sequences, joiners, any space, and store the name as sent; they refuse
what breaks the text around a name (controls, line and paragraph separators, bidi embeddings,
overrides and isolates) and code points that are no characters. Real server processes."""

from __future__ import annotations

import grpc
import pytest

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.play import options_for

ACCEPTED = {
    "family": "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # emoji joined by ZWJ
    "rainbow flag": "\U0001f3f3\ufe0f\u200d\U0001f308",  # a variation selector and ZWJ
    "scotland": "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # tags
    "persian zwnj": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "leading no-break space": "\u00a0Bo",  # kept: nothing is trimmed
    "ideographic space": "\u5c71\u7530\u3000\u592a\u90ce",
    "trailing space": "Ann ",
    "right-to-left mark": "\u200f\u05e9\u05dc\u05d5\u05dd",  # a mark, not an override
    "combining marks": "Zoe\u0308",
    "private use": "\ue000",
    "64 emoji": "\U0001f0cf" * 64,  # the limit counts characters, not bytes
    "none": "",
}
REFUSED = {
    "line feed": "Ann\nBo",
    "tab": "Ann\tBo",
    "nul": "\x00",
    "next line (C1)": "Ann\x85",
    "line separator": "Ann\u2028Bo",
    "paragraph separator": "Ann\u2029",
    "right-to-left override": "evil\u202egnp.exe",
    "left-to-right embedding": "\u202aAnn",
    "pop directional formatting": "Ann\u202c",
    "first strong isolate": "\u2068Ann",
    "pop directional isolate": "Ann\u2069",
    "unassigned": "Ann\U000e0000",
    "noncharacter": "Ann\U0010ffff",
    "65 characters": "\U0001f0cf" * 65,
}


@pytest.mark.parametrize("name", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_create_and_join_keep_a_name_as_sent(client: Croupier, name: str) -> None:
    game = client.create(
        options_for("one_card"), 3, display_names=[name, "", ""], player_ids=["h", "", ""],
        open_seats=True,
    )  # fmt: skip
    assert list(game.view.display_names) == [name, "", ""]
    joined = client.join(game.name, game.join_code, display_name=name)
    assert joined.seat == 1
    assert list(joined.view.display_names) == [name, name, ""]
    assert list(client.get(game.name).display_names) == [name, name, ""]


@pytest.mark.parametrize("name", REFUSED.values(), ids=REFUSED.keys())
def test_create_and_join_refuse_a_name_that_breaks_the_text_around_it(
    client: Croupier, name: str
) -> None:
    with pytest.raises(CroupierError) as raised:
        client.create(options_for("one_card"), 2, display_names=["Ann", name])
    assert (raised.value.code, raised.value.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_DISPLAY_NAMES",
    )
    game = client.create(options_for("one_card"), 2, player_ids=["h", ""], open_seats=True)
    with pytest.raises(CroupierError) as raised:
        client.join(game.name, game.join_code, display_name=name)
    assert (raised.value.code, raised.value.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_DISPLAY_NAMES",
    )
    view = client.get(game.name)  # the refusal claimed no seat
    assert list(view.open_seats) == [1]
