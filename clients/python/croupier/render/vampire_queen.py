"""Readable transcript lines for Vampire Queen: who led, who played what or passed, hunts and
who took their cards, who won each phase, round penalties and the final totals; and, for the
terminal table, one line per legal move and the viewer's own part of the view.

Cards are written by their number (1..13), `Queen`, `Hunter 15` and `Hunter 20`.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.render.names import seat_name
from croupier.v1.game_service_pb2 import GameView
from croupier.v1.vampire_queen_pb2 import VampireQueenEvent, VampireQueenMove, VampireQueenPhase

_QUEEN = 14
_CARD_NAMES = {_QUEEN: "Queen", 15: "Hunter 15", 20: "Hunter 20"}
_COUNT_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _card(card: int) -> str:
    return _CARD_NAMES.get(card, str(card))


def _cards(cards: Sequence[int]) -> str:
    return " ".join(_card(card) for card in cards)


def _amount(count: int, rank: int) -> str:
    """`three 11s`, `one 6`, `two 14s`."""
    word = _COUNT_WORDS[count] if count < len(_COUNT_WORDS) else str(count)
    return f"{word} {rank}" if count == 1 else f"{word} {rank}s"


def _scores(names: Sequence[str], points: Sequence[int]) -> str:
    return ", ".join(f"{seat_name(names, seat)} {value}" for seat, value in enumerate(points))


def describe_event(event: VampireQueenEvent, names: Sequence[str]) -> list[str]:
    """Transcript lines for one event; `names` are the seats' display names."""
    kind = event.WhichOneof("kind")
    if kind == "hunters_dealt":
        d = event.hunters_dealt
        how = "drawn by lot" if d.drawn else "chosen at creation"
        return [
            f"{seat_name(names, d.hunter_15_seat)} slept earliest ({how}) and takes Hunter 15;"
            f" {seat_name(names, d.hunter_20_seat)} takes Hunter 20 and leads."
        ]
    if kind == "round_started":
        r = event.round_started
        lines = [
            f"=== Round {r.round} of {r.rounds} === hands: {_scores(names, r.hand_sizes)};"
            f" {r.set_aside_count} card(s) set aside face down"
        ]
        if r.hand:
            lines.append(f"  your hand: {_cards(r.hand)}")
        return lines
    if kind == "phase_started":
        p = event.phase_started
        return [f"-- Round {p.round}, phase {p.phase}: {seat_name(names, p.leader)} leads"]
    if kind == "cards_played":
        return [_played(event.cards_played, names)]
    if kind == "passed":
        passed = event.passed
        who = seat_name(names, passed.seat)
        if passed.forced:
            return [f"{who} holds only a Hunter: forced to pass, and will take the hunted cards"]
        return [f"{who} passes"]
    if kind == "phase_won":
        w = event.phase_won
        rank = w.cards[-1] if w.cards[0] == _QUEEN else w.cards[0]
        return [
            f"{seat_name(names, w.seat)} wins the phase with {_amount(len(w.cards), rank)};"
            f" {w.cards_to_grave} card(s) go home to the grave"
        ]
    if kind == "hunt_taken":
        h = event.hunt_taken
        who = seat_name(names, h.seat)
        why = "as the forced passer" if h.forced else "with the strongest card"
        return [
            f"{who} takes the {len(h.cards)} hunted cards {why}: {_cards(h.cards)};"
            f" {who} leads next and may not lead {_card(h.locked_hunter)} yet"
        ]
    if kind == "round_scored":
        s = event.round_scored
        emptied = ", ".join(seat_name(names, seat) for seat in s.emptied)
        return [
            f"=== Round {s.round} over ({emptied} emptied their hand)."
            f" Penalties: {_scores(names, s.penalties)}",
            f"    Totals: {_scores(names, s.totals)}",
        ]
    if kind == "game_over":
        g = event.game_over
        winners = " and ".join(seat_name(names, seat) for seat in g.winners)
        return [f"=== Game over. Totals: {_scores(names, g.totals)}. Winner: {winners}"]
    return []


def _played(e: VampireQueenEvent.CardsPlayed, names: Sequence[str]) -> str:
    who = seat_name(names, e.seat)
    left = "no cards left!" if e.cards_left == 0 else f"{e.cards_left} left"
    if e.hunt and e.rank == 0:
        return f"{who} leads {_cards(e.cards)}: a HUNT! everyone must play one card ({left})"
    if e.hunt:
        return f"{who} plays {_cards(e.cards)} into the hunt (strength {e.rank}; {left})"
    return f"{who} plays {_cards(e.cards)} ({_amount(len(e.cards), e.rank)}; {left})"


def describe_table(view: GameView) -> str | None:
    """At the start of each phase: hand sizes and the Hunters' holders; otherwise None (the
    events already say what changed)."""
    table = view.vampire_queen
    if table.over or table.phase.plays:
        return None
    names = list(view.display_names)
    holders = []
    if table.HasField("hunter_15_holder"):
        holders.append(f"Hunter 15: {seat_name(names, table.hunter_15_holder)}")
    if table.HasField("hunter_20_holder"):
        holders.append(f"Hunter 20: {seat_name(names, table.hunter_20_holder)}")
    sizes = f"cards in hand: {_scores(names, table.hand_sizes)}"
    return f"   [{' | '.join([sizes, *holders])}]"


def describe_move(move: VampireQueenMove, names: Sequence[str]) -> str:
    """One line for a legal move: `play 11 11 Queen (three 11s)`, `play Queen Queen (two
    Queens)`, `play 7`, `play Hunter 20 (lead a hunt)`, `pass`."""
    kind = move.WhichOneof("kind")
    if kind == "pass_turn":
        return "pass"
    if kind != "play":
        return "(no move)"
    cards = sorted(int(card) for card in move.play.cards)
    if len(cards) == 1 and cards[0] in _CARD_NAMES and cards[0] != _QUEEN:
        return f"play {_card(cards[0])} (lead a hunt)"
    text = f"play {_cards(cards)}"
    if len(cards) > 1:
        if cards[0] == _QUEEN:
            text += f" ({_count_word(len(cards))} Queens)"
        else:
            text += f" ({_amount(len(cards), cards[0])})"
    return text


def _count_word(count: int) -> str:
    return _COUNT_WORDS[count] if count < len(_COUNT_WORDS) else str(count)


def _phase_plays(phase: VampireQueenPhase, names: Sequence[str]) -> str:
    parts = []
    for p in phase.plays:
        who = seat_name(names, p.seat)
        if p.cards:
            parts.append(f"{who} {_cards(p.cards)}")
        else:
            parts.append(f"{who} passed" + (" (forced)" if p.forced else ""))
    return "; ".join(parts)


def describe_seat(view: GameView) -> str:
    """The viewer's own part and what a decision needs: the round and the penalties so far,
    the phase played so far and what must be beaten, the hand sizes mid-phase (the table line
    gives them at its start), a Hunter the viewer may not lead yet, and the viewer's hand."""
    table = view.vampire_queen
    names = list(view.display_names)
    lines = [
        f"Round {table.round} of {table.rounds} | penalties so far: " + _scores(names, table.totals)
    ]
    if table.HasField("turn"):
        phase = table.phase
        leader = seat_name(names, phase.leader)
        if not phase.plays:
            lines.append(
                f"{leader} leads: cards of one rank (Queens join any rank, or go alone as 14),"
                " or a Hunter alone to start a hunt"
            )
        elif phase.hunt:
            lines.append(f"HUNT led by {leader}: {_phase_plays(phase, names)}")
            lines.append(
                "  everyone plays one card; the strongest (a vampire its rank, a Queen 1)"
                " takes them all"
            )
        else:
            lines.append(f"Phase led by {leader}: {_phase_plays(phase, names)}")
        if table.count_to_play:
            lines.append(
                f"  to beat: {_amount(table.count_to_play, table.rank_to_beat)}; play"
                f" {_count_word(table.count_to_play)}"
                f" {'card' if table.count_to_play == 1 else 'cards'} of a higher rank, or pass"
            )
        if phase.plays:
            lines.append(f"Cards in hand: {_scores(names, table.hand_sizes)}")
    if view.HasField("viewer_seat"):
        for lock in table.locks:
            if lock.seat == view.viewer_seat:
                lines.append(f"You may not lead {_card(lock.hunter)} in the next phase you lead")
        lines.append(f"Your hand: {_cards(table.hand) or 'empty'}")
    return "\n".join(lines)
