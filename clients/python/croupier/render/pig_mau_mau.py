"""Readable transcript lines for Pig Mau Mau: one or more lines per event, and after each move a
picture of the race track (pigs and finish), the discard pile, the hands' sizes, the bet row
(face-down bets as `?`) and the scores; for the terminal table, one line per legal move and the
viewer's own part of the view."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.render.names import seat_name
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.pig_mau_mau_pb2 import (
    MauCall,
    PigColor,
    PigMauMauCard,
    PigMauMauCardKind,
    PigMauMauEvent,
    PigMauMauMove,
    PigMauMauPhase,
    PigMauMauView,
)

_COLOURS = {
    PigColor.PIG_COLOR_PINK: "pink",
    PigColor.PIG_COLOR_BROWN: "brown",
    PigColor.PIG_COLOR_BLACK: "black",
    PigColor.PIG_COLOR_BEIGE: "beige",
}
_PIG_ORDER = ("pink", "brown", "black", "beige")
_CALLS = {MauCall.MAU_CALL_MAU: "Mau", MauCall.MAU_CALL_MAU_MAU: "Mau Mau"}


def colour(color: int) -> str:
    return _COLOURS.get(PigColor.ValueType(color), "?")


def card(c: PigMauMauCard) -> str:
    """'pink 5', 'brown X', 'black +2', 'Tired Pig (beige)', 'Farmer'."""
    kind = c.kind
    if kind == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_NUMBER:
        return f"{colour(c.color)} {c.number}"
    if kind == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_SKIP:
        return f"{colour(c.color)} X"
    if kind == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_PLUS_TWO:
        return f"{colour(c.color)} +2"
    if kind == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_TIRED_PIG:
        return f"Tired Pig ({colour(c.color)})"
    if kind == PigMauMauCardKind.PIG_MAU_MAU_CARD_KIND_FARMER:
        return "Farmer"
    return "?"


def _per_seat(values: Sequence[int], names: Sequence[str]) -> str:
    return ", ".join(f"{seat_name(names, s)} {v}" for s, v in enumerate(values))


def describe_event(event: PigMauMauEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")
    if kind is None:
        return []
    n = names
    if kind == "start_seat_chosen":
        e0 = event.start_seat_chosen
        how = "by option" if e0.by_option else "by lot (best oinker)"
        return [f"{seat_name(n, e0.seat)} starts race 1 ({how})."]
    if kind == "race_started":
        e1 = event.race_started
        lines = [
            f"=== Race {e1.race}/4: finish at {e1.finish}; {seat_name(n, e1.start_seat)} starts;"
            f" first card {card(e1.first_card)} ==="
        ]
        if e1.hand:
            lines.append("Your hand: " + ", ".join(card(c) for c in e1.hand))
        return lines
    if kind == "card_played":
        e2 = event.card_played
        text = f"{seat_name(n, e2.seat)} plays {card(e2.card)}"
        if e2.named_color:
            text += f" and names {colour(e2.named_color)}"
        if e2.call in _CALLS:
            text += f', calling "{_CALLS[e2.call]}"'
        return [f"{text} ({e2.cards_left} left)."]
    if kind == "pig_moved":
        e3 = event.pig_moved
        way = "forward" if e3.after > e3.before else "back"
        return [f"  The {colour(e3.pig)} pig moves {way}: {e3.before} -> {e3.after}."]
    if kind == "seat_skipped":
        return [f"  {seat_name(n, event.seat_skipped.seat)} is skipped."]
    if kind == "draw_pending":
        e4 = event.draw_pending
        return [f"  {seat_name(n, e4.seat)} faces +{e4.total}."]
    if kind == "mau_forgotten":
        e5 = event.mau_forgotten
        return [
            f"{seat_name(n, e5.seat)} plays {card(e5.card)} without calling"
            f' "{_CALLS.get(e5.required, "?")}": takes it back, no action.'
        ]
    if kind == "cards_drawn":
        e6 = event.cards_drawn
        why = f" (taking +{e6.pending_total})" if e6.pending_total else " (cannot play)"
        text = f"{seat_name(n, e6.seat)} draws {e6.count} card{'s' if e6.count != 1 else ''}{why}"
        if e6.cards:
            text += ": " + ", ".join(card(c) for c in e6.cards)
        return [text + "."]
    if kind == "pile_reshuffled":
        size = event.pile_reshuffled.draw_size
        return [f"  The discard pile is shuffled into a new draw pile ({size} cards)."]
    if kind == "turn_passed":
        return [f"{seat_name(n, event.turn_passed.seat)} can neither play nor draw; turn passes."]
    if kind == "steps_granted":
        e7 = event.steps_granted
        return [f"  {seat_name(n, e7.seat)} may move pigs back {e7.steps} space(s) in all."]
    if kind == "steps_ended":
        e8 = event.steps_ended
        lost = f" ({e8.unused} unused)" if e8.unused else ""
        return [f"  {seat_name(n, e8.seat)} is done moving pigs back{lost}."]
    if kind == "bet_placed":
        e9 = event.bet_placed
        what = f"on {colour(e9.color)}" if e9.color else "face down"
        if e9.changed:
            return [
                f"{seat_name(n, e9.seat)} takes back the bet in slot {e9.previous_slot + 1}"
                f" (the row closes up) and bets {what} in slot {e9.slot + 1}."
            ]
        return [f"{seat_name(n, e9.seat)} bets {what} in slot {e9.slot + 1}."]
    if kind == "bet_declined":
        return [f"{seat_name(n, event.bet_declined.seat)} does not bet."]
    if kind == "race_ended":
        return _race_ended(event.race_ended, n)
    if kind == "game_ended":
        e10 = event.game_ended
        winners = " and ".join(seat_name(n, s) for s in e10.winners)
        return [f"=== Game over: {_per_seat(e10.totals, n)}. Winner: {winners}. ==="]
    return [str(event).strip()]


def _race_ended(e: PigMauMauEvent.RaceEnded, n: Sequence[str]) -> list[str]:
    pigs = " and ".join(colour(c) for c in e.winners)
    verb = "pigs win" if len(e.winners) > 1 else "pig wins"
    lines = [f"=== Race {e.race} ends: {pigs} {verb}. ==="]
    if e.HasField("finisher_seat"):
        lines.append(f"  {seat_name(n, e.finisher_seat)} moved a pig to the finish: +3.")
    if e.HasField("emptied_seat"):
        lines.append(f"  {seat_name(n, e.emptied_seat)} played their last card: +5.")
    if e.bets:
        lines.append("  Bets revealed:")
        for slot, b in enumerate(e.bets, 1):
            outcome = f"+{b.points}" if b.points else "returned"
            lines.append(f"    {slot}. {seat_name(n, b.seat)}: {colour(b.color)} {outcome}")
    else:
        lines.append("  No bets.")
    track = ", ".join(f"{name} {pos}" for name, pos in zip(_PIG_ORDER, e.pigs, strict=False))
    lines.append(f"  Final track: {track}.")
    lines.append(f"  Race points: {_per_seat(e.points, n)}.")
    lines.append(f"  Totals: {_per_seat(e.totals, n)}.")
    return lines


def _track(v: PigMauMauView) -> list[str]:
    finish = v.finish
    ruler = "".join("S" if i == 0 else ("F" if i == finish else " ") for i in range(finish + 1))
    lines = [f"        {ruler}"]
    for index, name in enumerate(_PIG_ORDER):
        pos = v.pigs[index] if index < len(v.pigs) else 0
        cells = ["|" if i == finish else "." for i in range(finish + 1)]
        cells[min(pos, finish)] = "@"
        lines.append(f"  {name:<6}{''.join(cells)}  {pos}")
    return lines


def describe_table(view: GameView) -> str | None:
    """The track (pigs and finish), the piles, hands, bet row and scores after each move."""
    if view.WhichOneof("game") != "pig_mau_mau":
        return None
    v = view.pig_mau_mau
    names = list(view.display_names)
    seats = view.seats or len(v.hand_sizes)
    lines = [f"Race {v.race}/{v.races}, finish at {v.finish}:", *_track(v)]
    top = f"Top: {card(v.top_card)}"
    if v.required_color:
        top += f" (next: {colour(v.required_color)} or green)"
    if v.pending_draw:
        top += f", +{v.pending_draw} pending"
    top += f" | draw pile {v.draw_size}, discard {v.discard_size}"
    lines.append(top)
    lines.append("Hands: " + _per_seat(list(v.hand_sizes), names[:seats] or []))
    if v.bet_row:
        slots = [
            f"{i}. {seat_name(names, b.seat)} [{colour(b.color) if b.color else '?'}]"
            for i, b in enumerate(v.bet_row, 1)
        ]
        lines.append("Bets: " + "  ".join(slots))
    else:
        lines.append("Bets: (none)")
    if v.race_scores:
        lines.append("Scores: " + _per_seat(list(v.totals), names))
    if v.HasField("turn"):
        doing = {2: "moves pigs back", 3: "may bet"}.get(int(v.phase), "to play")
        extra = f" ({v.steps_left} step(s) left)" if v.steps_left else ""
        lines.append(f"Next: {seat_name(names, v.turn)} {doing}{extra}")
    return "\n".join(lines)


def card_of_code(code: int) -> PigMauMauCard:
    """Decode a card code (as in moves) by the encoding at the top of pig_mau_mau.proto."""
    kinds = PigMauMauCardKind
    if 0 <= code <= 23:
        return PigMauMauCard(
            code=code,
            kind=kinds.PIG_MAU_MAU_CARD_KIND_NUMBER,
            color=PigColor.ValueType(code // 6 + 1),
            number=code % 6 + 1,
        )
    for first, kind in (
        (24, kinds.PIG_MAU_MAU_CARD_KIND_SKIP),
        (28, kinds.PIG_MAU_MAU_CARD_KIND_PLUS_TWO),
        (32, kinds.PIG_MAU_MAU_CARD_KIND_TIRED_PIG),
    ):
        if first <= code < first + 4:
            return PigMauMauCard(code=code, kind=kind, color=PigColor.ValueType(code - first + 1))
    if 36 <= code <= 38:
        return PigMauMauCard(code=code, kind=kinds.PIG_MAU_MAU_CARD_KIND_FARMER)
    return PigMauMauCard(code=code)


def describe_move(move: PigMauMauMove, names: Sequence[str]) -> str:
    """One line for a legal move: `play pink 5`, `play Tired Pig (beige), moving the brown pig
    forward 3`, `play Farmer naming black, calling "Mau"`, `draw the pending +2 total`,
    `step pink back`, `stop moving pigs back`, `bet on brown`, `do not bet`."""
    kind = move.WhichOneof("kind")
    if kind == "play":
        p = move.play
        text = f"play {card(card_of_code(p.card))}"
        if p.pig:
            text += f", moving the {colour(p.pig)} pig forward 3"
        if p.color:
            text += f" naming {colour(p.color)}"
        if p.call in _CALLS:
            text += f', calling "{_CALLS[p.call]}"'
        return text
    if kind == "draw":
        return "draw the pending +2 total"
    if kind == "step_back":
        return f"step {colour(move.step_back.pig)} back"
    if kind == "end_steps":
        return "stop moving pigs back"
    if kind == "place_bet":
        return f"bet on {colour(move.place_bet.color)}"
    if kind == "decline_bet":
        return "do not bet"
    return "(no move)"


def describe_seat(view: GameView) -> str:
    """The viewer's own part and what a decision needs: a +2 total the viewer faces, the steps
    back left, the betting step, the `mau` calls, the viewer's bet and hand."""
    v = view.pig_mau_mau
    me = view.viewer_seat if view.HasField("viewer_seat") else None
    lines = []
    mine = me is not None and v.HasField("turn") and v.turn == me
    if mine and v.phase == PigMauMauPhase.PIG_MAU_MAU_PHASE_PLAY and v.pending_draw:
        lines.append(f"You face +{v.pending_draw}: stack a +2 on it, or draw {v.pending_draw}")
    elif mine and v.phase == PigMauMauPhase.PIG_MAU_MAU_PHASE_STEPS:
        lines.append(f"You may move pigs back one space at a time: {v.steps_left} step(s) left")
    elif mine and v.phase == PigMauMauPhase.PIG_MAU_MAU_PHASE_BET:
        lines.append(
            "You drew: you may bet on a pig (or change your bet: it moves to the end of the"
            " row), or not bet"
        )
    if v.mau:
        lines.append('Calls are required: "Mau" leaving one card, "Mau Mau" playing the last')
    if me is not None:
        if v.my_bet:
            slot = next((i for i, b in enumerate(v.bet_row, 1) if b.seat == me), 0)
            where = f" (slot {slot} of the row)" if slot else ""
            lines.append(f"Your bet: {colour(v.my_bet)}{where}")
        else:
            lines.append("Your bet: none")
        lines.append("Your hand: " + (", ".join(card(c) for c in v.hand) or "empty"))
    return "\n".join(lines)
