"""Which moves are legal (PM-3 a turn, PM-4 +2 and the steps back, PM-5 betting, PM-7 the calls
of the `mau` option, C-5): one check that `legal_moves` filters candidates with and `apply` raises
with, plus the form check that tells a malformed move apart, and the move a timeout stands for
where the rules name one (PM-5.3). `violation` checks one move; the phase checks it ends in
(`play_violation`, `step_violation`, `bet_violation`) take the facts they need (hand, playable
cards, pigs, own bet) and the move's fields as plain values, so that `legal_moves` reads those
facts from the state once for all its candidates.

Messages never name a card, pig or bet the acting seat may not see (C-4): a seat that may not
act is refused with C-5 before anything else is looked at."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from croupier.engines.core.errors import MalformedMove, Violation
from croupier.engines.pig_mau_mau.cards import (
    COLOUR_NAMES,
    COLOURS,
    DECK_SIZE,
    FARMER,
    GREEN,
    KIND,
    PLAYABLE,
    PLUS_TWOS,
    TIRED_PIG,
    card_name,
    colour_index,
    pig_color,
)
from croupier.engines.pig_mau_mau.flow import BET, PLAY, STEPS, required_call
from croupier.v1.pig_mau_mau_pb2 import MauCall, PigColor, PigMauMauMove, PigMauMauState

Move = PigMauMauMove
_COLOURS: Final = frozenset(range(1, COLOURS + 1))
_CALLS: Final = frozenset(MauCall.values())
_NO_CALL: Final = MauCall.MAU_CALL_UNSPECIFIED
_NO_COLOUR: Final = PigColor.PIG_COLOR_UNSPECIFIED
_ALL_COLOURS: Final = [pig_color(c) for c in range(COLOURS)]
_NONE_ONLY: Final = [_NO_COLOUR]


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


_WRONG_PHASE: Final = {
    PLAY: Violation("PM-3.1", "it is your turn to play a card"),
    STEPS: Violation("PM-4.2", "move pigs back one space at a time, or end your steps"),
    BET: Violation("PM-5.1", "place or change a bet, or decline"),
}
# The refusals that name nothing, built once.
_DRAW_REFUSED: Final = Violation(
    "PM-3.2",
    "drawing is allowed only when no card can be played, and then it is done for you; Draw takes"
    " a pending +2 total",
)
_BEHIND_START: Final = Violation("PM-4.2", "a pig never moves back behind START")
_NAME_THE_PIG: Final = Violation("PM-1.2", "a Tired Pig moves the rearmost pig: name it")
_NOT_LAST: Final = Violation("PM-1.2", "a Tired Pig moves a pig in last place")
_PIG_NOT_ASKED: Final = Violation("PM-1.2", "only a Tired Pig names a pig to move")
_NAME_THE_COLOUR: Final = Violation("PM-1.2", "a Farmer names the next colour")
_COLOUR_NOT_ASKED: Final = Violation("PM-1.2", "only a Farmer names a colour")
_NO_MAU: Final = Violation("PM-7.1", "calls are made only with the mau option")
_WRONG_CALL: Final = Violation("PM-7.1", "that call does not fit the cards this play leaves you")


def violation(state: PigMauMauState, seat: int, move: Move, kind: str) -> Violation | None:
    """The rule the well-formed `move` (of variant `kind`) breaks now, or None if legal."""
    phase = state.phase
    if phase not in _WRONG_PHASE or seat != state.turn:
        return Violation("C-5", f"seat {seat} may not act now")
    if kind == "play" or kind == "draw":
        if phase != PLAY:
            return _WRONG_PHASE[phase]
        if kind == "draw":
            return None if state.pending_draw else _DRAW_REFUSED
        play = move.play
        return play_violation(
            state,
            state.hands[seat].cards,
            playable_now(state),
            play.card,
            play.pig,
            play.color,
            play.call,
        )
    if kind in ("step_back", "end_steps"):
        if phase != STEPS:
            return _WRONG_PHASE[phase]
        if kind == "step_back":
            return step_violation(state.pigs, move.step_back.pig)
        return None
    if phase != BET:
        return _WRONG_PHASE[phase]
    if kind == "place_bet":
        return bet_violation(own_bet(state, seat), move.place_bet.color)
    return None


def own_bet(state: PigMauMauState, seat: int) -> PigColor.ValueType | None:
    """The colour of `seat`'s bet in the row, None when it has none."""
    for bet in state.bet_row[:]:
        if bet.seat == seat:
            return bet.color
    return None


def step_violation(pigs: Sequence[int], pig: PigColor.ValueType) -> Violation | None:
    """PM-4.2: stepping `pig` back one space."""
    return _BEHIND_START if pigs[pig - 1] == 0 else None


def bet_violation(own: PigColor.ValueType | None, color: PigColor.ValueType) -> Violation | None:
    """PM-5.2: a bet on `color` by a seat whose bet is `own`."""
    if own == color:
        name = COLOUR_NAMES[colour_index(color)]
        return Violation("PM-5.2", f"your bet is already on the {name} pig")
    return None


def playable_now(state: PigMauMauState) -> frozenset[int]:
    """The cards that may go on the discard pile now, whoever holds them: a +2 on a pending +2
    (PM-4.1), else the matches of the top card (PM-3.1, PM-3.4)."""
    if state.pending_draw:
        return PLUS_TWOS
    return PLAYABLE[state.discard_pile[-1]][state.required_color]


def card_refused(state: PigMauMauState, card: int) -> Violation:
    """Why a card outside `playable_now` may not go on the discard pile: a +2 on a pending +2
    (PM-4.1), else a match by colour, number or symbol, or a green card (PM-3.1), the demanded
    colour after a green card (PM-3.4)."""
    if state.pending_draw:
        return Violation("PM-4.1", f"facing +{state.pending_draw}: play a +2 or draw the total")
    if GREEN[state.discard_pile[-1]] and state.required_color:
        name = COLOUR_NAMES[colour_index(state.required_color)]
        return Violation("PM-3.4", f"the next card must be {name} or green")
    return Violation(
        "PM-3.1", f"{card_name(card)} matches the top card by neither colour, number nor symbol"
    )


def play_violation(
    state: PigMauMauState,
    hand: Sequence[int],
    playable: frozenset[int],
    card: int,
    pig: PigColor.ValueType,
    color: PigColor.ValueType,
    call: MauCall.ValueType,
) -> Violation | None:
    """The rule a play of `card` (naming `pig`, `color`, `call`) from `hand` breaks, `playable`
    being `playable_now(state)`."""
    if card not in hand:
        return Violation("PM-3.1", f"{card_name(card)} is not in your hand")
    if card not in playable:
        return card_refused(state, card)
    kind = KIND[card]
    if kind == TIRED_PIG:
        if not pig:
            return _NAME_THE_PIG
        pigs = state.pigs
        if pigs[pig - 1] != min(pigs[:]):
            return _NOT_LAST
    elif pig:
        return _PIG_NOT_ASKED
    if kind == FARMER:
        if not color:
            return _NAME_THE_COLOUR
    elif color:
        return _COLOUR_NOT_ASKED
    if call:
        if not state.options.mau:
            return _NO_MAU
        if call != required_call(len(hand) - 1):
            return _WRONG_CALL
    return None


def _play_bytes(
    card: int, pig: PigColor.ValueType, colour: PigColor.ValueType, call: MauCall.ValueType
) -> bytes:
    return Move(play=Move.PlayCard(card=card, pig=pig, color=colour, call=call)).SerializeToString()


# Listed moves are parsed from bytes serialized here (a fresh message each, and quicker than
# setting fields): every play that can be legal by (card, pig, colour, call), and the others.
_PLAY_BYTES: Final = {
    (card, pig, colour, call): _play_bytes(card, pig, colour, call)
    for card in range(DECK_SIZE)
    for pig in (_ALL_COLOURS if KIND[card] == TIRED_PIG else _NONE_ONLY)
    for colour in (_ALL_COLOURS if KIND[card] == FARMER else _NONE_ONLY)
    for call in MauCall.values()
}
_STEP_BYTES: Final = [
    Move(step_back=Move.StepBack(pig=pig)).SerializeToString() for pig in _ALL_COLOURS
]
_BET_BYTES: Final = [
    Move(place_bet=Move.PlaceBet(color=pig)).SerializeToString() for pig in _ALL_COLOURS
]
_DRAW_BYTES: Final = Move(draw=Move.Draw()).SerializeToString()
_END_STEPS_BYTES: Final = Move(end_steps=Move.EndSteps()).SerializeToString()
_DECLINE_BYTES: Final = Move(decline_bet=Move.DeclineBet()).SerializeToString()
_parse = Move.FromString


def legal_moves(state: PigMauMauState, seat: int) -> list[Move]:
    """Every move of `seat` that `violation` accepts, in the order of the candidates: plays by
    card code, then pig, colour and call, then Draw; steps back by pig, then End steps; bets by
    colour, then Decline. Each candidate goes through the phase's check, against facts read
    from the state once."""
    if seat != state.turn:
        return []  # C-5: only the seat whose turn it is may act (none once the game is over)
    phase = state.phase
    if phase == PLAY:
        return _legal_plays(state, seat)
    if phase == STEPS:
        pigs = state.pigs[:]
        moves = [
            _parse(_STEP_BYTES[c])
            for c in range(COLOURS)
            if step_violation(pigs, _ALL_COLOURS[c]) is None
        ]
        moves.append(_parse(_END_STEPS_BYTES))
        return moves
    if phase == BET:
        own = own_bet(state, seat)
        moves = [
            _parse(_BET_BYTES[c])
            for c in range(COLOURS)
            if bet_violation(own, _ALL_COLOURS[c]) is None
        ]
        moves.append(_parse(_DECLINE_BYTES))
        return moves
    return []


def timeout_move(state: PigMauMauState, seat: int) -> Move | None:
    """PM-5.3: a seat whose turn clock runs out while it decides on a bet has declined; the
    rules say nothing of a timeout anywhere else."""
    if seat == state.turn and state.phase == BET:
        return _parse(_DECLINE_BYTES)
    return None


def _legal_plays(state: PigMauMauState, seat: int) -> list[Move]:
    hand = state.hands[seat].cards[:]  # a plain list: quicker to search than the repeated field
    calls: list[MauCall.ValueType] = [_NO_CALL]
    if state.options.mau:
        needed = required_call(len(hand) - 1)
        if needed:
            calls.append(needed)
    playable = playable_now(state)
    rearmost: list[PigColor.ValueType] | None = None  # found at the first Tired Pig, if any
    moves: list[Move] = []
    for card in sorted(hand):
        if card not in playable:
            continue  # no variant of this card can be legal; spare building them
        kind = KIND[card]
        pig_choices = _NONE_ONLY
        if kind == TIRED_PIG:
            if rearmost is None:
                pigs = state.pigs[:]
                rear = min(pigs)
                rearmost = [_ALL_COLOURS[c] for c in range(COLOURS) if pigs[c] == rear]
            pig_choices = rearmost
        colour_choices = _ALL_COLOURS if kind == FARMER else _NONE_ONLY
        for pig in pig_choices:
            for colour in colour_choices:
                for call in calls:
                    if play_violation(state, hand, playable, card, pig, colour, call) is None:
                        moves.append(_parse(_PLAY_BYTES[card, pig, colour, call]))
    if state.pending_draw:
        moves.append(_parse(_DRAW_BYTES))  # the draw rule: Draw only takes a pending +2 total
    return moves
