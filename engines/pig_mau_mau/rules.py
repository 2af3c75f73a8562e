"""Which moves are legal: one check (`violation`) that `legal_moves` filters candidates with and
`apply` raises with (STYLE), plus the form check that tells a malformed move apart.

Messages never name a card, pig or bet the acting seat may not see (C-4): a seat that may not
act is refused with C-5 before anything else is looked at."""

from __future__ import annotations

from dataclasses import dataclass

from croupier.v1.pig_mau_mau_pb2 import MauCall, PigColor, PigMauMauMove, PigMauMauState
from engines.core.errors import MalformedMove
from engines.pig_mau_mau.cards import (
    COLOUR_NAMES,
    COLOURS,
    DECK_SIZE,
    FARMER,
    GREEN,
    KIND,
    PLUS_TWO,
    TIRED_PIG,
    card_name,
    colour_index,
    matches,
    pig_color,
)
from engines.pig_mau_mau.race import BET, PLAY, STEPS
from engines.pig_mau_mau.turns import required_call

Move = PigMauMauMove
_COLOURS = frozenset(range(1, COLOURS + 1))
_CALLS = frozenset(MauCall.values())
_NO_CALL = MauCall.MAU_CALL_UNSPECIFIED
_NO_COLOUR = PigColor.PIG_COLOR_UNSPECIFIED
_ALL_COLOURS = [pig_color(c) for c in range(COLOURS)]


@dataclass(frozen=True, slots=True)
class Violation:
    rule_id: str
    message: str


def check_form(move: Move) -> str:
    """The move's variant, or MalformedMove when it cannot be a move of this game."""
    kind = move.WhichOneof("kind")
    if kind is None:
        raise MalformedMove("kind", "the move has no variant set")
    if kind == "play":
        play = move.play
        if not 0 <= play.card < DECK_SIZE:
            raise MalformedMove("play.card", f"no card has the code {play.card}")
        if play.pig and play.pig not in _COLOURS:
            raise MalformedMove("play.pig", f"no pig has the colour {play.pig}")
        if play.color and play.color not in _COLOURS:
            raise MalformedMove("play.color", f"no colour {play.color}")
        if play.call not in _CALLS:
            raise MalformedMove("play.call", f"no call {play.call}")
    elif kind == "step_back":
        if move.step_back.pig not in _COLOURS:
            raise MalformedMove("step_back.pig", "name one of the four pigs")
    elif kind == "place_bet" and move.place_bet.color not in _COLOURS:
        raise MalformedMove("place_bet.color", "name one of the four pigs")
    return kind


_WRONG_PHASE = {
    PLAY: Violation("PM-3.1", "it is your turn to play a card"),
    STEPS: Violation("PM-4.2", "move pigs back one space at a time, or end your steps"),
    BET: Violation("PM-5.1", "place or change a bet, or decline"),
}


def violation(state: PigMauMauState, seat: int, move: Move, kind: str) -> Violation | None:
    """The rule the well-formed `move` (of variant `kind`) breaks now, or None if legal."""
    if state.phase not in _WRONG_PHASE or seat != state.turn:
        return Violation("C-5", f"seat {seat} may not act now")
    if kind == "play" or kind == "draw":
        if state.phase != PLAY:
            return _WRONG_PHASE[state.phase]
        if kind == "draw":
            if not state.pending_draw:
                return Violation(
                    "PM-3.2",
                    "drawing is allowed only when no card can be played, and then it is done"
                    " for you; Draw takes a pending +2 total",
                )
            return None
        return _play_violation(state, seat, move.play)
    if kind in ("step_back", "end_steps"):
        if state.phase != STEPS:
            return _WRONG_PHASE[state.phase]
        if kind == "step_back" and state.pigs[colour_index(move.step_back.pig)] == 0:
            return Violation("PM-4.2", "a pig never moves back behind START")
        return None
    if state.phase != BET:
        return _WRONG_PHASE[state.phase]
    if kind == "place_bet":
        own = next((bet.color for bet in state.bet_row if bet.seat == seat), None)
        if own == move.place_bet.color:
            name = COLOUR_NAMES[colour_index(own)]
            return Violation("PM-5.2", f"your bet is already on the {name} pig")
    return None


def card_fits(state: PigMauMauState, card: int) -> bool:
    """The test behind `card_refused`, without building a message."""
    if state.pending_draw:
        return KIND[card] == PLUS_TWO
    return matches(card, state.discard_pile[-1], int(state.required_color) - 1)


def card_refused(state: PigMauMauState, card: int) -> Violation | None:
    """Whether a card may go on the discard pile now: a +2 on a pending +2 (PM-4.1), else a
    match by colour, number or symbol, or a green card (PM-3.1), the demanded colour after a
    green card (PM-3.4)."""
    if state.pending_draw:
        if KIND[card] != PLUS_TWO:
            return Violation("PM-4.1", f"facing +{state.pending_draw}: play a +2 or draw the total")
        return None
    top = state.discard_pile[-1]
    if matches(card, top, colour_index(state.required_color)):
        return None
    if GREEN[top] and state.required_color:
        name = COLOUR_NAMES[colour_index(state.required_color)]
        return Violation("PM-3.4", f"the next card must be {name} or green")
    return Violation(
        "PM-3.1", f"{card_name(card)} matches the top card by neither colour, number nor symbol"
    )


def _play_violation(
    state: PigMauMauState, seat: int, play: PigMauMauMove.PlayCard
) -> Violation | None:
    card = play.card
    hand = state.hands[seat].cards
    if card not in hand:
        return Violation("PM-3.1", f"{card_name(card)} is not in your hand")
    kind = KIND[card]
    refused = card_refused(state, card)
    if refused is not None:
        return refused
    if kind == TIRED_PIG:
        if not play.pig:
            return Violation("PM-1.2", "a Tired Pig moves the rearmost pig: name it")
        pigs = state.pigs
        if pigs[colour_index(play.pig)] != min(pigs):
            return Violation("PM-1.2", "a Tired Pig moves a pig in last place")
    elif play.pig:
        return Violation("PM-1.2", "only a Tired Pig names a pig to move")
    if kind == FARMER:
        if not play.color:
            return Violation("PM-1.2", "a Farmer names the next colour")
    elif play.color:
        return Violation("PM-1.2", "only a Farmer names a colour")
    if play.call:
        if not state.options.mau:
            return Violation("PM-7.1", "calls are made only with the mau option")
        if play.call != required_call(len(hand) - 1):
            return Violation("PM-7.1", "that call does not fit the cards this play leaves you")
    return None


def candidates(state: PigMauMauState, seat: int) -> list[Move]:
    """Every move worth checking for `seat`; `legal_moves` keeps those with no violation."""
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == PLAY:
        return _play_candidates(state, seat)
    if phase == STEPS:
        moves = [
            Move(step_back=Move.StepBack(pig=pig_color(c)))
            for c in range(COLOURS)
            if state.pigs[c] > 0
        ]
        moves.append(Move(end_steps=Move.EndSteps()))
        return moves
    if phase == BET:
        moves = [Move(place_bet=Move.PlaceBet(color=pig_color(c))) for c in range(COLOURS)]
        moves.append(Move(decline_bet=Move.DeclineBet()))
        return moves
    return []


def _play_candidates(state: PigMauMauState, seat: int) -> list[Move]:
    hand = state.hands[seat].cards
    calls: list[MauCall.ValueType] = [_NO_CALL]
    if state.options.mau:
        needed = required_call(len(hand) - 1)
        if needed:
            calls.append(needed)
    pigs = state.pigs
    rear = min(pigs)
    rearmost = [_ALL_COLOURS[c] for c in range(COLOURS) if pigs[c] == rear]
    none = _NO_COLOUR
    moves: list[Move] = []
    for card in sorted(hand):
        if not card_fits(state, card):
            continue  # no variant of this card can be legal; spare building them
        kind = KIND[card]
        pig_choices = rearmost if kind == TIRED_PIG else [none]
        colour_choices = _ALL_COLOURS if kind == FARMER else [none]
        for pig in pig_choices:
            for colour in colour_choices:
                for call in calls:
                    # field by field: several times faster than nested constructors
                    move = Move()
                    chosen = move.play
                    chosen.card = card
                    if pig:
                        chosen.pig = pig
                    if colour:
                        chosen.color = colour
                    if call:
                        chosen.call = call
                    moves.append(move)
    if state.pending_draw:
        moves.append(Move(draw=Move.Draw()))
    return moves
