"""Readable transcript lines for What's Your Name? (`whats_your_name`); for the terminal table,
one line per legal move and the viewer's own part of the view.

Cards are written by rank (`7`); colour never matters for play. In a two-player game table
position 2 is the virtual player.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from croupier.render.names import seat_name
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.whats_your_name_pb2 import (
    WHATS_YOUR_NAME_PHASE_DRAFT,
    WHATS_YOUR_NAME_PHASE_FINAL,
    WHATS_YOUR_NAME_PHASE_HIDE,
    WHATS_YOUR_NAME_PHASE_OVER,
    WHATS_YOUR_NAME_PHASE_PLAY,
    WHATS_YOUR_NAME_PRIORITY_REASON_LOT,
    WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST,
    WhatsYourNameCard,
    WhatsYourNameEvent,
    WhatsYourNameMove,
)

VIRTUAL_NAME = "Virtual player"


def _name(seat: int, names: Sequence[str]) -> str:
    """A seat's name; the position after the seats is the virtual player's (WN-6)."""
    return seat_name(names, seat) if 0 <= seat < len(names) else VIRTUAL_NAME


def _cards(cards: Iterable[WhatsYourNameCard]) -> str:
    return " ".join(str(c.rank) for c in cards) or "-"


def describe_event(event: WhatsYourNameEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")

    def n(seat: int) -> str:
        return _name(seat, names)

    if kind == "game_started":
        e = event.game_started
        return [f"=== Game {e.game_number} of {e.games} ==="]
    if kind == "mirror_given":
        e1 = event.mirror_given
        return [f"{n(e1.seat)} receives the mirror card (recorded total {e1.recorded_total})."]
    if kind == "setup_revealed":
        e2 = event.setup_revealed
        back = e2.thirteens_returned
        extra = f" (a 13 was shuffled back {back}x)" if back else ""
        return [f"{n(e2.seat)} reveals {e2.card.rank} onto the stage{extra}."]
    if kind == "priority_taken":
        e3 = event.priority_taken
        why = ""
        if e3.reason == WHATS_YOUR_NAME_PRIORITY_REASON_YOUNGEST:
            why = f" (tied with {', '.join(n(s) for s in e3.tied_seats)}; youngest)"
        elif e3.reason == WHATS_YOUR_NAME_PRIORITY_REASON_LOT:
            why = f" (tied with {', '.join(n(s) for s in e3.tied_seats)}; by lot)"
        return [f"{n(e3.seat)} takes the priority card{why}."]
    if kind == "cards_drawn":
        e4 = event.cards_drawn
        what = f": {_cards(e4.cards)}" if e4.cards else ""
        return [f"{n(e4.seat)} draws {e4.count} card(s){what} ({e4.pile_size} left in pile)."]
    if kind == "hidden_card_set":
        e5 = event.hidden_card_set
        what = f" ({e5.card.rank})" if e5.HasField("card") else ""
        return [f"{n(e5.seat)} sets a hidden card aside{what}."]
    if kind == "round_started":
        e6 = event.round_started
        if e6.final:
            order = ", ".join(n(s) for s in e6.order)
            return [f"--- Round {e6.round} (final): taking order {order} ---"]
        return [f"--- Round {e6.round} ---"]
    if kind == "card_chosen":
        e7 = event.card_chosen
        what = f" {e7.card.rank}" if e7.HasField("card") else " a card"
        how = " (forced)" if e7.automatic else ""
        return [f"{n(e7.seat)} chooses{what}{how}."]
    if kind == "plays_revealed":
        e8 = event.plays_revealed
        plays = ", ".join(f"{n(p.seat)} {p.card.rank}" for p in e8.plays)
        order = ", ".join(n(s) for s in e8.drafting_order)
        return [f"Reveal: {plays}.", f"Drafting order: {order}."]
    if kind == "stage_swept":
        e9 = event.stage_swept
        others = [s for s in e9.thirteen_seats if s != e9.seat]
        tie = f" (before {', '.join(n(s) for s in others)})" if others else ""
        return [f"{n(e9.seat)}'s 13 sweeps the stage{tie}: takes {_cards(e9.cards)}."]
    if kind == "card_taken":
        e10 = event.card_taken
        how = " (no choice)" if e10.automatic else ""
        return [f"{n(e10.seat)} takes {e10.card.rank}{how}."]
    if kind == "pair_discarded":
        e11 = event.pair_discarded
        return [f"{n(e11.seat)} discards a pair of {e11.cards[0].rank}s."]
    if kind == "hidden_card_matched":
        e12 = event.hidden_card_matched
        return [f"{n(e12.seat)}'s {e12.card.rank} matches their hidden card: both discarded."]
    if kind == "mirror_used":
        e13 = event.mirror_used
        return [f"{n(e13.seat)} uses the mirror and discards their {e13.card.rank}."]
    if kind == "mirror_discarded":
        return [f"{n(event.mirror_discarded.seat)}'s pile is empty: the unused mirror is gone."]
    if kind == "virtual_revealed":
        return [f"{VIRTUAL_NAME} reveals {event.virtual_revealed.card.rank} onto the stage."]
    if kind == "plays_to_stage":
        return [f"The plays move onto the stage: {_cards(event.plays_to_stage.cards)}."]
    if kind == "game_ended":
        e14 = event.game_ended
        lines = [f"=== Game {e14.game_number} over: totals ==="]
        for t in sorted(e14.totals, key=lambda t: t.placement):
            hidden = f" + hidden {t.hidden_card.rank}" if t.HasField("hidden_card") else ""
            match = f" (match total {t.match_total})" if t.match_total != t.total else ""
            lines.append(
                f"  {t.placement}. {n(t.seat)}: {t.total} [{_cards(t.acquired)}{hidden}]{match}"
            )
        return lines
    return []


def describe_table(view: GameView) -> str | None:
    """A picture of the public table at the start of each round and at the end, else None."""
    game = view.whats_your_name
    names = list(view.display_names)
    choosing = game.phase in (WHATS_YOUR_NAME_PHASE_PLAY, WHATS_YOUR_NAME_PHASE_HIDE)
    if choosing and any(p.has_chosen for p in game.players):
        return None  # mid-round: the events tell the story
    if not choosing and game.phase != WHATS_YOUR_NAME_PHASE_OVER:
        return None
    holder = _name(game.priority_seat, names)
    lines = [
        f"  stage: {_cards(game.stage)}   priority: {holder}"
        + (f"   mirror: {_name(game.mirror_seat, names)}" if game.HasField("mirror_seat") else "")
    ]
    width = max(len(_name(p.seat, names)) for p in game.players)
    for p in game.players:
        hidden = " +hidden" if p.has_hidden_card else ""
        lines.append(
            f"  {_name(p.seat, names):<{width}}  pile {p.pile_size:>2}  hand {p.hand_size}"
            f"  acquired {_cards(p.acquired)}{hidden}  (total {p.total})"
        )
    return "\n".join(lines)


def describe_move(move: WhatsYourNameMove, names: Sequence[str]) -> str:
    """One line for a legal move: `play 7`, `take 5 from the stage`, `hide 3 as your hidden
    card`, `use the mirror: discard it with your acquired 9`."""
    kind = move.WhichOneof("kind")
    if kind == "play":
        return f"play {move.play.rank}"
    if kind == "take":
        return f"take {move.take.rank} from the stage"
    if kind == "hide":
        return f"hide {move.hide.rank} as your hidden card"
    if kind == "use_mirror":
        return f"use the mirror: discard it with your acquired {move.use_mirror.rank}"
    return "(no move)"


def describe_seat(view: GameView) -> str:
    """The viewer's own part and what a decision needs: the stage, the revealed plays and the
    drafting order mid-round (the table shows the stage at the start of a round), the viewer's
    hand, hidden card, secret play, acquired cards and total, and the mirror."""
    game = view.whats_your_name
    names = list(view.display_names)
    lines = []
    if describe_table(view) is None:
        lines.append(f"  stage: {_cards(game.stage)}")
    phase = game.phase
    if phase == WHATS_YOUR_NAME_PHASE_HIDE:
        lines.append("Setup: everyone secretly sets one card aside as a hidden card (not a 13)")
    elif phase == WHATS_YOUR_NAME_PHASE_PLAY:
        waiting = [_name(p.seat, names) for p in game.players if not p.virtual and not p.has_chosen]
        lines.append(
            f"Round {game.round}: everyone secretly plays a card (waiting for:"
            f" {', '.join(waiting) or 'nobody'}); the lowest play takes a stage card first,"
            " a 13 takes the whole stage"
        )
    elif phase in (WHATS_YOUR_NAME_PHASE_DRAFT, WHATS_YOUR_NAME_PHASE_FINAL):
        played = [p for p in game.players if p.played.rank]
        if played:
            plays = ", ".join(f"{_name(p.seat, names)} {p.played.rank}" for p in played)
            lines.append(f"Round {game.round} plays: {plays}")
        order = ", ".join(_name(s, names) for s in game.draft_order)
        final = " (final round)" if phase == WHATS_YOUR_NAME_PHASE_FINAL else ""
        lines.append(f"Taking order{final}: {order or '-'}")
    if view.HasField("viewer_seat"):
        me = view.viewer_seat
        lines.append(f"Your hand: {_cards(sorted(game.hand, key=lambda c: c.rank))}")
        if game.HasField("hidden_card") and game.hidden_card.rank:
            lines.append(f"Your hidden card: {game.hidden_card.rank}")
        if game.HasField("chosen_card") and game.chosen_card.rank:
            lines.append(f"Your play this round: {game.chosen_card.rank} (secret until the reveal)")
        for p in game.players:
            if p.seat == me:
                lines.append(
                    f"Your acquired cards: {_cards(p.acquired)} (total {p.total}; a pair of one"
                    " rank is discarded; the lowest total wins)"
                )
        if game.HasField("mirror_seat") and game.mirror_seat == me:
            lines.append("You hold the mirror: use it at any time to discard an acquired card")
    return "\n".join(lines)
