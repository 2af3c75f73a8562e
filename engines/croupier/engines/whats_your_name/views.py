"""What each seat sees (WN-8, C-4) and the final result (WN-5, WN-6.5, WN-7.2).

Views are built positively: public facts for everyone, and the viewer's own hand, hidden card
and secret play for that seat only. Another seat's play appears only once all are revealed.
"""

from __future__ import annotations

from typing import Final

from croupier.engines.core.cards import field_encodings
from croupier.engines.whats_your_name.cards import (
    COLOUR_SETS,
    RANKS,
    VIRTUAL,
    has_virtual,
    rank_of,
    table_size,
    to_card,
)
from croupier.engines.whats_your_name.flow import game_total, standing_key
from croupier.engines.whats_your_name.setup import games_in
from croupier.v1.common_pb2 import GameResult, SeatResult
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameState,
    WhatsYourNameView,
)

View = WhatsYourNameView
Player = WhatsYourNameView.Player


# By card code, the encoding of each card field: views merge the cards they show in one parse
# (croupier.engines.core.cards.field_encodings).
_CARDS: Final = [to_card(code) for code in range(COLOUR_SETS * RANKS)]
_STAGE: Final = field_encodings(_CARDS, lambda card: View(stage=[card]))
_DISCARDED: Final = field_encodings(_CARDS, lambda card: View(discarded=[card]))
_HAND: Final = field_encodings(_CARDS, lambda card: View(hand=[card]))
_HIDDEN_CARD: Final = field_encodings(_CARDS, lambda card: View(hidden_card=card))
_CHOSEN_CARD: Final = field_encodings(_CARDS, lambda card: View(chosen_card=card))
_ACQUIRED: Final = field_encodings(_CARDS, lambda card: Player(acquired=[card]))
_PLAYED: Final = field_encodings(_CARDS, lambda card: Player(played=card))
_REVEALED_HIDDEN_CARD: Final = field_encodings(
    _CARDS, lambda card: Player(revealed_hidden_card=card)
)
# The rank of every card code: summing looked-up ranks is quicker than computing each.
_RANK: Final = tuple(rank_of(card) for card in range(COLOUR_SETS * RANKS))


# The view's fields that differ between audiences: the viewer's own hand, hidden card and the
# card it chose to play.
OWN_FIELDS: Final[tuple[int, ...]] = (
    View.HAND_FIELD_NUMBER,
    View.HIDDEN_CARD_FIELD_NUMBER,
    View.CHOSEN_CARD_FIELD_NUMBER,
)


def build_view(state: WhatsYourNameState, seat: int | None) -> WhatsYourNameView:
    return shared_view(state, b"".join(own_view(state, seat)))


def own_view(state: WhatsYourNameState, seat: int | None) -> tuple[bytes, bytes, bytes]:
    """The encoded `hand`, `hidden_card` and `chosen_card` of `seat`'s view (nothing for a
    spectator)."""
    if seat is None or not 0 <= seat < state.seats:
        return b"", b"", b""
    own = state.positions[seat]
    hand = b"".join([_HAND[c] for c in own.hand[:]])
    hidden = _HIDDEN_CARD[own.hidden] if own.HasField("hidden") else b""
    chosen = (
        _CHOSEN_CARD[own.played]
        if state.phase == WHATS_YOUR_NAME_PHASE_PLAY and own.HasField("played")
        else b""
    )
    return hand, hidden, chosen


def shared_view(state: WhatsYourNameState, own: bytes = b"") -> WhatsYourNameView:
    """Every audience's view but its own fields, with `own` (an audience's encoded own fields)
    merged in the same parse as the table's cards."""
    # Every repeated or message field read from `state` makes a new wrapper object, so each is
    # read once; repeated ints that are iterated are sliced into a list first (quicker to
    # iterate than the container). Scalars go in as constructor keywords (set in C).
    phase = state.phase
    virtual = has_virtual(state)
    view = View(
        phase=phase,
        game_number=state.game_number,
        games=games_in(state),
        round=state.round,
        priority_seat=state.priority_seat,
        draft_order=state.draft_order,
        has_virtual_player=virtual,
        mirror_seat=state.mirror_seat if state.HasField("mirror_seat") else None,
    )
    over = phase == WHATS_YOUR_NAME_PHASE_OVER
    add_player = view.players.add
    positions = state.positions
    for p in range(table_size(state.seats)):
        pos = positions[p]
        acquired = pos.acquired[:]
        hidden = pos.HasField("hidden")
        played = pos.HasField("played")
        recorded = pos.totals
        player = add_player(
            seat=p,
            virtual=virtual and p == VIRTUAL,
            pile_size=len(pos.pile),
            hand_size=len(pos.hand),
            has_hidden_card=hidden,
            # whether this seat has chosen, never what (WN-8)
            has_chosen=(phase == WHATS_YOUR_NAME_PHASE_PLAY and played)
            or (phase == WHATS_YOUR_NAME_PHASE_HIDE and hidden),
            total=game_total(state, p) if over else sum([_RANK[c] for c in acquired]),
            # None leaves the field empty, and costs less than copying an empty container
            recorded_totals=recorded if recorded else None,
        )
        cards = [_ACQUIRED[c] for c in acquired]
        if phase == WHATS_YOUR_NAME_PHASE_DRAFT and played:
            cards.append(_PLAYED[pos.played])  # revealed (WN-3.1)
        if over and hidden:
            cards.append(_REVEALED_HIDDEN_CARD[pos.hidden])  # WN-7.1
        if cards:
            player.MergeFromString(b"".join(cards))
    cards = [_STAGE[c] for c in state.stage[:]]
    cards += [_DISCARDED[c] for c in state.discarded[:]]
    cards.append(own)
    view.MergeFromString(b"".join(cards))
    return view


def build_result(state: WhatsYourNameState) -> GameResult | None:
    """WN-5.1/5.2: lowest total first; ties go to the priority holder, then clockwise from it
    (so placements never tie). The virtual player (WN-6.5) is ranked too but is not a seat:
    `seats` lists the real seats with their placement among all table positions, and
    `winners` is empty when the virtual player came first. With `match` (WN-7.2) a score is
    the sum of the recorded totals, ties ordered by the last game's priority holder."""
    if state.phase != WHATS_YOUR_NAME_PHASE_OVER:
        return None
    positions = range(table_size(state.seats))
    scores = [sum(state.positions[p].totals[:]) for p in positions]
    ranking = sorted(positions, key=lambda p: standing_key(state, p, scores[p]))
    place = {p: i + 1 for i, p in enumerate(ranking)}
    best = ranking[0]
    virtual_won = has_virtual(state) and best == VIRTUAL
    what = "sum of the recorded totals" if state.options.match else "total"
    parts = [
        f"{'virtual player' if has_virtual(state) and p == VIRTUAL else f'seat {p}'} {scores[p]}"
        for p in ranking
    ]
    summary = (
        f"Lowest {what} wins; ties go to the priority holder, then clockwise from it."
        f" Standings: {', '.join(parts)}."
    )
    if virtual_won:
        summary += " The virtual player has the lowest total, so no player wins."
    return GameResult(
        seats=[SeatResult(seat=s, score=scores[s], placement=place[s]) for s in range(state.seats)],
        winners=[] if virtual_won else [best],
        summary=summary,
    )
