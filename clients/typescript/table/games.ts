// The table's games: each game's module from the registry (registry.ts), found by the view's
// game type, and what the page asks of a game, answered by that module. A game with no module
// (a server newer than the page) is drawn plainly: its moves and events by their names and
// fields, with nothing of its middle.

import type { GameView, Move } from "../src/gen/croupier/v1/game_service_pb.js";
import { h } from "./dom.js";
import type { HandCard, ScoreSheet, TableGame } from "./game.js";
import * as registry from "./registry.js";

export { seatName, type OptionSpec, type ScoreSheet } from "./game.js";

/** Every registered game, in the lobby's order (by English name). */
export const GAMES: TableGame[] = (Object.values(registry) as TableGame[]).slice().sort((a, b) => a.en.localeCompare(b.en));

const BY_ID = new Map(GAMES.map((g) => [g.id, g]));

/** A move's or a view's own message, as plain fields (without protobuf-es's type names). */
function fields(value: unknown): string {
  return JSON.stringify(value, (k, v: unknown) => (k === "$typeName" ? undefined : typeof v === "bigint" ? String(v) : v));
}

/** A game this page has no module for, drawn from its messages alone. */
function plain(id: string): TableGame {
  const kindOf = (message: { game: { value?: unknown } }): { case?: string; value?: unknown } =>
    ((message.game.value as { kind?: { case?: string; value?: unknown } } | undefined)?.kind ?? {});
  return {
    id, en: id, ko: id, minSeats: 1, maxSeats: 12, options: [],
    summary: () => "",
    hand: () => [],
    moveKeys: () => [],
    moveLabel: (move) => { const k = kindOf(move); return `${k.case ?? "?"} ${fields(k.value ?? {})}`; },
    seatDetails: () => [],
    centre: (view) => h("section", { class: "centre" }, h("code", {}, fields(view.game.value ?? {}))),
    describe: () => null,
  };
}

/** The game's module (or the plain one for a game this page does not know). */
export function gameInfo(id: string): TableGame {
  return BY_ID.get(id) ?? plain(id);
}

/** The seat's hand as the game's module draws it: sorted as a player holds it, each card with
 * a key that equal cards share. */
export function hand(view: GameView): HandCard[] {
  return gameInfo(view.gameType).hand(view);
}

/** The keys of the hand cards a move uses (equal keys repeat for several equal cards). */
export function moveKeys(move: Move, view: GameView): string[] {
  return gameInfo(view.gameType).moveKeys(move);
}

/** Whether the move uses every selected card, as many times as it is selected. */
export function usesAll(move: Move, view: GameView, selectedKeys: string[]): boolean {
  const left = moveKeys(move, view).slice();
  for (const k of selectedKeys) {
    const at = left.indexOf(k);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

/** A play of the selected cards that no legal move matches, for games whose play is a set of
 * cards: sent as is, so the server says which rule it breaks. */
export function rawPlay(view: GameView, keys: string[]): Move["game"] | undefined {
  return gameInfo(view.gameType).rawPlay?.(view, keys);
}

/** A move in words, in the page's language. */
export function moveLabel(move: Move, view: GameView): string {
  const byKey = new Map(hand(view).map((c) => [c.key, c.face.label]));
  const cards = moveKeys(move, view).map((k) => byKey.get(k) ?? k).join(" + ");
  return gameInfo(view.gameType).moveLabel(move, view, cards);
}

/** Per seat: what that seat shows (hand size, played cards, ...), beside its name. */
export function seatDetails(view: GameView, seat: number): HTMLElement[] {
  return gameInfo(view.gameType).seatDetails(view, seat);
}

/** The middle of the table. */
export function centre(view: GameView): HTMLElement {
  return gameInfo(view.gameType).centre(view);
}

/** The score sheet of a game scored over rounds, races or games; none for a game played in one
 * round (its result says it all) or scored as a team. */
export function scoreSheet(view: GameView): ScoreSheet | undefined {
  return gameInfo(view.gameType).scoreSheet?.(view);
}
