"""What a legal act does to the state (OC-3 a turn, OC-4 special cards, OC-5 the call, OC-6 the
end), and the automatic steps after it (C-6).

The caller has checked the act with `rules.violation`. Effects:
- a discard: its special effect (attack, Jump, U-turn, colour naming, Quatran demand), the
  "One Card" window when it leaves one card without a call, or the win on the last card;
- a draw: one card, the accumulated attack, or two cards for an unanswered Quatran;
- a call or a catch closes the window (a catch costs the caught seat two cards).
Any move by the seat whose turn it is also closes the window (OC-5.2: "until the next player's
move"). Afterwards, while no window is open, a current seat that cannot discard draws at once
(C-6: a forced draw is not asked for).
"""

from __future__ import annotations

from croupier.engines.core.cards import refill_from_discard
from croupier.engines.core.engine import Emitted
from croupier.engines.core.scoring import placements
from croupier.engines.core.seats import left
from croupier.engines.one_card import cards as c
from croupier.engines.one_card import rules
from croupier.engines.one_card.rules import CALL, CATCH, PLAY, Act
from croupier.engines.one_card.setup import deal_game, wins_to_match
from croupier.v1.one_card_pb2 import OneCardEvent, OneCardGameRecord, OneCardState

# Enum values are read as Event.DRAW_REASON_* (plain class attributes): Event.DrawReason.X would
# go through a Python-level __getattr__ on every draw.
Event = OneCardEvent
Events = list[Emitted[Event]]


def apply_act(state: OneCardState, seat: int, act: Act) -> Events:
    events: Events = []
    if act.kind == CATCH:
        state.ClearField("catchable_seat")
        events.append(Emitted(Event(caught=Event.Caught(catcher=seat, caught=act.target))))
        events += draw_cards(state, act.target, 2, Event.DRAW_REASON_CAUGHT, automatic=True)
    elif act.kind == CALL:
        state.ClearField("catchable_seat")
        events.append(Emitted(Event(called_one_card=Event.CalledOneCard(seat=seat))))
    elif act.kind == PLAY:
        state.ClearField("catchable_seat")
        events += _discard(state, seat, act)
    else:
        state.ClearField("catchable_seat")
        events += _take_turn_draw(state, seat, automatic=False)
    events += automatic_steps(state)
    return events


def automatic_steps(state: OneCardState) -> Events:
    """C-6: the current seat draws by itself while it has nothing else it could do.

    Not while a "One Card" window is open: the window stays open until the current seat moves,
    so that seat is asked (it may also catch). Terminates: with both piles exhausted every card
    but one is in a hand, so a Rainbow/Quatran holder (setup guarantees two in the deck) gets a
    turn within one round and must discard (OC-3.5).
    """
    events: Events = []
    while (
        not state.over
        and not state.HasField("catchable_seat")
        and not rules.can_discard(state, state.current_seat)
    ):
        events += _take_turn_draw(state, state.current_seat, automatic=True)
    return events


def _take_turn_draw(state: OneCardState, seat: int, *, automatic: bool) -> Events:
    """The current seat draws instead of discarding (OC-3.2, OC-4.3, OC-4.7); its turn ends."""
    if state.pending_attack:
        owed, reason = state.pending_attack, Event.DRAW_REASON_ATTACK
    elif state.quatran_pending:
        owed, reason = 2, Event.DRAW_REASON_QUATRAN
    elif not automatic and rules.can_discard(state, seat):
        # (only a chosen draw needs the look: `automatic_steps` draws for a seat because it
        # cannot discard)
        owed, reason = 1, Event.DRAW_REASON_CHOSEN
    else:
        owed, reason = 1, Event.DRAW_REASON_NO_PLAY
    state.pending_attack = 0
    state.quatran_pending = False
    events = draw_cards(state, seat, owed, reason, automatic=automatic)
    state.current_seat = rules.next_seat(state, seat)
    return events


def draw_cards(
    state: OneCardState, seat: int, owed: int, reason: int, *, automatic: bool
) -> Events:
    """Draw `owed` cards, reshuffling the discard pile when the draw pile runs out (OC-3.3)."""
    events: Events = []
    got: list[int] = []
    pile = state.draw_pile
    while len(got) < owed:
        if not pile:
            moved = refill_from_discard(pile, state.discard_pile, state.rng)
            if not moved:
                break  # OC-3.3: nothing left to draw; the rest is skipped
            events.append(Emitted(Event(reshuffled=Event.Reshuffled(draw_pile_size=moved))))
        got.append(pile.pop())
    hand = state.hands[seat].cards
    hand.extend(got)
    # Built field by field: quicker than keyword arguments and copying sub-messages in.
    public = Event()
    drew = public.drew
    drew.seat = seat
    drew.owed = owed
    drew.count = len(got)
    drew.reason = reason  # type: ignore[assignment]
    drew.automatic = automatic
    drew.cards_left = len(hand)
    private = Event()
    private.CopyFrom(public)
    c.add_messages(private.drew.cards, got)
    events.append(Emitted(public, {seat: private}))
    return events


def _discard(state: OneCardState, seat: int, act: Act) -> Events:
    """A legal discard and its effect (OC-3.1, OC-4, OC-5.1, OC-6.1)."""
    discard = state.discard_pile
    previous_top = discard[-1]
    facing_attack = state.pending_attack
    answering_quatran = state.quatran_pending
    hand = state.hands[seat].cards
    for code in act.cards:
        hand.remove(code)
    discard.extend(act.cards)
    state.named_color = act.color  # type: ignore[assignment]
    state.quatran_pending = False
    event = Event()
    played = event.played  # filled in place, as in `draw_cards`
    played.seat = seat
    c.add_messages(played.cards, act.cards)
    played.named_color = act.color  # type: ignore[assignment]
    played.called_one_card = act.call
    played.cards_left = len(hand)
    played.quatran_answer = answering_quatran
    if not hand:
        # OC-6.1: the last card wins at once; its effect is not applied.
        state.pending_attack = 0
        return [Emitted(event), *_game_won(state, seat)]
    if len(hand) == 1 and not act.call:
        state.catchable_seat = seat  # OC-5.2: may be caught until the next player's move
    code = act.cards[-1]
    card_type = c.TYPE[code]
    after: Events = []
    following = rules.next_seat
    if card_type in c.ATTACK_VALUE:
        if facing_attack:
            same_colour = c.COLOR[code] == c.COLOR[previous_top]
            played.defence = Event.DEFENCE_SAME_COLOR if same_colour else Event.DEFENCE_SAME_EFFECT
        total = facing_attack + c.ATTACK_VALUE[card_type]
        state.pending_attack = total
        played.attack_total = total
        state.current_seat = following(state, seat)
    elif card_type == c.JUMP:
        skipped = following(state, seat)
        after.append(Emitted(Event(skipped=Event.Skipped(seat=skipped))))
        state.current_seat = following(state, skipped)
    elif card_type == c.U_TURN:
        state.counter_clockwise = not state.counter_clockwise
        after.append(
            Emitted(
                Event(
                    direction_changed=Event.DirectionChanged(clockwise=not state.counter_clockwise)
                )
            )
        )
        state.current_seat = following(state, seat)
    else:
        state.quatran_pending = card_type == c.QUATRAN
        state.current_seat = following(state, seat)
    played.next_seat = state.current_seat
    return [Emitted(event), *after]


def _game_won(state: OneCardState, winner: int) -> Events:
    """OC-6.1..OC-6.3: record the game; end the match or deal the next game."""
    cards_left = [len(hand.cards) for hand in state.hands[:]]
    state.wins[winner] += 1
    state.history.append(OneCardGameRecord(winner=winner, cards_left=cards_left))
    match_over = state.wins[winner] >= wins_to_match(state.options)
    events: Events = [
        Emitted(
            Event(
                game_won=Event.GameWon(
                    game_number=state.game_number,
                    winner=winner,
                    cards_left=cards_left,
                    placements=placements(cards_left),
                    wins=state.wins[:],
                    match_over=match_over,
                )
            )
        )
    ]
    if match_over:
        state.over = True
        state.quatran_pending = False
        state.ClearField("catchable_seat")
        return events
    return events + deal_game(state, left(state.dealer, state.seats))
