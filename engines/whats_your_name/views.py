"""What each seat sees (WN-8, C-4) and the final result (WN-5, WN-6.5, WN-7.2).

Views are built positively: public facts for everyone, and the viewer's own hand, hidden card
and secret play for that seat only. Another seat's play appears only once all are revealed.
"""

from __future__ import annotations

from croupier.v1.common_pb2 import GameResult, SeatResult
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WhatsYourNameState,
    WhatsYourNameView,
)
from engines.whats_your_name.cards import (
    RANKS,
    VIRTUAL,
    has_virtual,
    table_size,
    to_card,
    to_cards,
)
from engines.whats_your_name.rounds import game_total, standing_key
from engines.whats_your_name.setup import games_in

View = WhatsYourNameView


def build_view(state: WhatsYourNameState, seat: int | None) -> WhatsYourNameView:
    phase = state.phase
    view = View(
        phase=phase,
        game_number=state.game_number,
        games=games_in(state),
        round=state.round,
        priority_seat=state.priority_seat,
        stage=to_cards(state.stage),
        draft_order=state.draft_order,
        discarded=to_cards(state.discarded),
        has_virtual_player=has_virtual(state),
    )
    if state.HasField("mirror_seat"):
        view.mirror_seat = state.mirror_seat
    over = phase == WHATS_YOUR_NAME_PHASE_OVER
    for p in range(table_size(state.seats)):
        pos = state.positions[p]
        player = view.players.add(
            seat=p,
            virtual=has_virtual(state) and p == VIRTUAL,
            pile_size=len(pos.pile),
            hand_size=len(pos.hand),
            acquired=to_cards(pos.acquired),
            has_hidden_card=pos.HasField("hidden"),
            recorded_totals=pos.totals,
        )
        if phase == WHATS_YOUR_NAME_PHASE_PLAY:
            player.has_chosen = pos.HasField("played")  # never what (WN-8)
        elif phase == WHATS_YOUR_NAME_PHASE_HIDE:
            player.has_chosen = pos.HasField("hidden")
        elif phase == WHATS_YOUR_NAME_PHASE_DRAFT and pos.HasField("played"):
            player.played.CopyFrom(to_card(pos.played))  # revealed (WN-3.1)
        if over:
            if pos.HasField("hidden"):
                player.revealed_hidden_card.CopyFrom(to_card(pos.hidden))  # WN-7.1
            player.total = game_total(state, p)
        else:
            player.total = sum(card % RANKS + 1 for card in pos.acquired)
    if seat is not None and 0 <= seat < state.seats:
        own = state.positions[seat]
        view.hand.extend(to_cards(own.hand))
        if own.HasField("hidden"):
            view.hidden_card.CopyFrom(to_card(own.hidden))
        if phase == WHATS_YOUR_NAME_PHASE_PLAY and own.HasField("played"):
            view.chosen_card.CopyFrom(to_card(own.played))
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
    scores = [sum(state.positions[p].totals) for p in positions]
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
