"""Readable transcript lines for Tobot One Card: discards with the named colours, attack chains
with their running totals, Jumps and U-turns, draws, "One Card" calls and catches, each game's
result and the match score; for the terminal table, one line per legal move and the viewer's own
part of the view."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.render.names import seat_name
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.one_card_pb2 import (
    OneCardCard,
    OneCardCardType,
    OneCardColor,
    OneCardEvent,
    OneCardMove,
)

Event = OneCardEvent

_COLOR = {
    OneCardColor.ONE_CARD_COLOR_RED: "red",
    OneCardColor.ONE_CARD_COLOR_YELLOW: "yellow",
    OneCardColor.ONE_CARD_COLOR_GREEN: "green",
    OneCardColor.ONE_CARD_COLOR_BLUE: "blue",
}
_TYPE = {
    OneCardCardType.ONE_CARD_CARD_TYPE_PLUS_TWO: "+2",
    OneCardCardType.ONE_CARD_CARD_TYPE_PLUS_THREE: "+3",
    OneCardCardType.ONE_CARD_CARD_TYPE_JUMP: "Jump",
    OneCardCardType.ONE_CARD_CARD_TYPE_U_TURN: "U-turn",
    OneCardCardType.ONE_CARD_CARD_TYPE_RAINBOW: "Rainbow",
    OneCardCardType.ONE_CARD_CARD_TYPE_QUATRAN: "Quatran",
}
# How a draw reads, by reason and by whether the engine drew for the seat (C-6).
_REASON = {
    (Event.DRAW_REASON_CHOSEN, False): "chooses to draw",
    (Event.DRAW_REASON_NO_PLAY, False): "cannot discard and draws",
    (Event.DRAW_REASON_NO_PLAY, True): "cannot discard and draws",
    (Event.DRAW_REASON_ATTACK, False): "takes the attack and draws",
    (Event.DRAW_REASON_ATTACK, True): "cannot defend and draws",
    (Event.DRAW_REASON_QUATRAN, False): "does not answer the Quatran and draws",
    (Event.DRAW_REASON_QUATRAN, True): "cannot answer the Quatran and draws",
    (Event.DRAW_REASON_CAUGHT, True): "is caught and draws",
}


def card_name(card: OneCardCard) -> str:
    """A card for people: red 5, blue +2, green Jump, Rainbow."""
    if card.type == OneCardCardType.ONE_CARD_CARD_TYPE_NUMBER:
        return f"{_COLOR.get(card.color, '?')} {card.number}"
    kind = _TYPE.get(card.type, "?")
    if card.color:
        return f"{_COLOR.get(card.color, '?')} {kind}"
    return kind


def _cards(cards: Sequence[OneCardCard]) -> str:
    return ", ".join(card_name(card) for card in cards) or "nothing"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def describe_event(event: OneCardEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")
    if kind == "game_started":
        e = event.game_started
        how = " (drawn by lot)" if e.dealer_drawn_by_lot else ""
        return [
            f"=== Game {e.game_number}: {seat_name(names, e.dealer)} deals{how};"
            f" {seat_name(names, e.first_seat)} starts ==="
        ]
    if kind == "dealt":
        dealt = event.dealt
        if dealt.cards:
            return [f"{seat_name(names, dealt.seat)} is dealt {_cards(dealt.cards)}"]
        return []  # everyone is dealt seven: nothing worth a line per seat
    if kind == "start_card":
        s = event.start_card
        under = f" (turned up first and put under: {_cards(s.put_under)})" if s.put_under else ""
        return [f"Start card: {card_name(s.card)}{under}"]
    if kind == "played":
        return _played(event.played, names)
    if kind == "skipped":
        return [f"  Jump: {seat_name(names, event.skipped.seat)} is skipped"]
    if kind == "direction_changed":
        way = "clockwise" if event.direction_changed.clockwise else "counter-clockwise"
        return [f"  U-turn: play now goes {way}"]
    if kind == "drew":
        d = event.drew
        who = seat_name(names, d.seat)
        what = f": {_cards(d.cards)}" if d.cards else ""
        short = f" (only {d.count} left to draw)" if d.count < d.owed else ""
        return [
            f"{who} {_REASON.get((d.reason, d.automatic), 'draws')} {_count(d.owed)}{short}{what}"
            f" -> {_count(d.cards_left)} in hand"
        ]
    if kind == "reshuffled":
        size = event.reshuffled.draw_pile_size
        return [f"  The discard pile is shuffled into a new draw pile of {_count(size)}"]
    if kind == "called_one_card":
        return [f'{seat_name(names, event.called_one_card.seat)}: "One Card!"']
    if kind == "caught":
        c = event.caught
        return [
            f"{seat_name(names, c.catcher)} catches {seat_name(names, c.caught)},"
            ' who did not call "One Card"!'
        ]
    if kind == "game_won":
        return _game_won(event.game_won, names)
    return []


def _played(p: OneCardEvent.Played, names: Sequence[str]) -> list[str]:
    who = seat_name(names, p.seat)
    if p.quatran_answer:
        line = f"{who} answers the Quatran with {_cards(p.cards)}"
    elif p.defence:
        how = "same colour" if p.defence == Event.DEFENCE_SAME_COLOR else "same effect"
        line = f"{who} defends with {_cards(p.cards)} ({how})"
    else:
        line = f"{who} plays {_cards(p.cards)}"
    if p.named_color:
        line += f" and names {_COLOR.get(p.named_color, '?')}"
    if p.called_one_card:
        line += ' - "One Card!"'
    line += f" [{_count(p.cards_left)} left]"
    lines = [line]
    if not p.HasField("next_seat"):
        return lines
    nxt = seat_name(names, p.next_seat)
    if p.attack_total:
        lines.append(f"  Attack chain: {nxt} faces +{p.attack_total}")
    elif p.cards and p.cards[-1].type == OneCardCardType.ONE_CARD_CARD_TYPE_QUATRAN:
        colour = _COLOR.get(p.named_color, "?")
        lines.append(f"  Quatran: {nxt} must discard two {colour} numbers or draw 2")
    return lines


def _game_won(g: OneCardEvent.GameWon, names: Sequence[str]) -> list[str]:
    winner = seat_name(names, g.winner)
    lines = [f"*** {winner} discards their last card and wins game {g.game_number} ***"]
    order = sorted(range(len(g.placements)), key=lambda seat: (g.placements[seat], seat))
    for seat in order:
        lines.append(
            f"  {g.placements[seat]}. {seat_name(names, seat)}: {_count(g.cards_left[seat])} left,"
            f" {g.wins[seat]} won"
        )
    if g.match_over:
        lines.append(f"*** {seat_name(names, g.winner)} wins the match ***")
    return lines


def describe_table(view: GameView) -> str | None:
    """One line of the public table after each move: top card, active colour, pending attack or
    Quatran, direction, whose turn, hand sizes, pile sizes and who may be caught."""
    if view.WhichOneof("game") != "one_card":
        return None
    v = view.one_card
    names = list(view.display_names)
    if v.over:
        return None
    parts = [f"top {card_name(v.top_card)}"]
    if v.top_card.type in (
        OneCardCardType.ONE_CARD_CARD_TYPE_RAINBOW,
        OneCardCardType.ONE_CARD_CARD_TYPE_QUATRAN,
    ):
        parts[0] += f" (colour {_COLOR.get(v.active_color, '?')})"
    if v.pending_attack:
        parts.append(f"ATTACK +{v.pending_attack}")
    if v.quatran_color:
        parts.append(f"QUATRAN {_COLOR.get(v.quatran_color, '?')}")
    parts.append("clockwise" if v.clockwise else "counter-clockwise")
    parts.append(f"turn: {seat_name(names, v.current_seat)}")
    hands = " ".join(f"{seat_name(names, seat)}={size}" for seat, size in enumerate(v.hand_sizes))
    parts.append(f"hands {hands}")
    parts.append(f"draw {v.draw_pile_size}, discard {v.discard_pile_size}")
    if v.HasField("catchable_seat"):
        parts.append(f"{seat_name(names, v.catchable_seat)} has not called One Card!")
    return "  [" + " | ".join(parts) + "]"


def describe_move(move: OneCardMove, names: Sequence[str]) -> str:
    """One line for a legal move: `play red 5`, `play Rainbow naming blue and call "One Card"`,
    `play green 3, then green 7` (a Quatran answer), `draw`, `call "One Card"`, `catch P2`."""
    kind = move.WhichOneof("kind")
    if kind == "play":
        p = move.play
        text = "play " + ", then ".join(card_name(card) for card in p.cards)
        if p.color:
            text += f" naming {_COLOR.get(p.color, '?')}"
        if p.call_one_card:
            text += ' and call "One Card"'
        return text
    if kind == "draw":
        return "draw"
    if kind == "call_one_card":
        return 'call "One Card"'
    if kind == "catch":
        return f"catch {seat_name(names, move.catch.seat)}"
    return "(no move)"


def describe_seat(view: GameView) -> str:
    """The viewer's own part and what a decision needs: an attack or a Quatran the viewer
    faces, a missed "One Card" call that can be caught, the match score, and the hand."""
    v = view.one_card
    names = list(view.display_names)
    me = view.viewer_seat if view.HasField("viewer_seat") else None
    lines = []
    if v.wins_to_match > 1:
        wins = ", ".join(f"{seat_name(names, seat)} {won}" for seat, won in enumerate(v.wins))
        lines.append(f"Game {v.game_number}; games won: {wins} (the match needs {v.wins_to_match})")
    if not v.over and me == v.current_seat:
        if v.pending_attack:
            lines.append(
                f"You face an attack of +{v.pending_attack}: defend with an attack card, or draw"
                f" {_count(v.pending_attack)}"
            )
        elif v.quatran_color:
            lines.append(
                f"Quatran: discard two {_COLOR.get(v.quatran_color, '?')} numbers, or draw 2"
            )
    if v.HasField("catchable_seat"):
        if v.catchable_seat == me:
            lines.append('You have one card and have not called "One Card": call before a catch!')
        else:
            lines.append(
                f'{seat_name(names, v.catchable_seat)} has one card and has not called "One Card":'
                " any other player may catch them (they draw 2)"
            )
    if me is not None:
        lines.append(f"Your hand: {_cards(v.hand)}")
    return "\n".join(lines)
