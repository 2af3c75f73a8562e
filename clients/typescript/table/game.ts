// What a game's module gives the table, and the helpers the modules share. Each game has one
// module in games/ (games/vampire_queen.ts), listed by its game type in registry.ts; the page
// (main.ts, events.ts) knows no game itself and asks the game's module for everything it draws.
// Everything a module draws is read from the seat's redacted GameView and its events.

import type { GameView, Move } from "../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "./dom.js";
import { t } from "./i18n.js";

/** One option of the lobby's form: a field of the game's options message. */
export interface OptionSpec {
  /** The field's path in the options message's init shape (`deck.numberCopies`). */
  key: string;
  en: string;
  ko: string;
  kind: "bool" | "int" | "optint" | "seatlist" | "rows";
  min?: number;
  max?: number;
}

/** A card of the seat's hand: its face, and a key that equal cards share (what moves use). */
export interface HandCard {
  key: string;
  face: Face;
}

/** A piece of a sentence: words, a card face up, or a card face down (null). */
export type Part = string | Face | null;

/** One event as a sentence. */
export interface Line {
  /** The seat the event is about (who moved), if any. */
  seat: number | undefined;
  /** The event's kind (its oneof case), for the tests and the highlight. */
  kind: string;
  parts: Part[];
}

// Events are read by field name: their shapes are the protos' (clients/typescript/src/gen).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Fields = Record<string, any>;

/** What events.ts hands a module to write one event's sentence with. */
export interface Say {
  /** The view the sentence is written for (names, the seat reading it). */
  view: GameView;
  /** The name of the seat the event is about ("" when none). */
  A: string;
  /** A seat's name (What's Your Name?'s virtual player has the seat after the last). */
  who: (seat: number) => string;
  /** The sentence, about the event's seat, its first letter capitalised. */
  line: (...parts: (Part | Part[])[]) => Line;
  /** English or Korean, in the page's language. */
  s: (en: string, ko: string) => string;
  /** A field as a number (an unset field is 0). */
  n: (x: unknown) => number;
}

/** The score sheet of a game scored over several rounds, races or games: one row for each
 * one finished, then the totals. */
export interface ScoreSheet {
  /** What a cell counts and how the totals win. */
  heading: string;
  /** One column per seat (and What's Your Name?'s virtual player). */
  columns: string[];
  rows: { label: string; cells: string[] }[];
  total: { label: string; cells: string[] };
}

/** A game's module: registered in registry.ts under its game type. */
export interface TableGame {
  /** The game type (`vampire_queen`), as in engines/croupier/engines/registry.py. */
  id: string;
  /** Its name in English and in Korean. */
  en: string;
  ko: string;
  minSeats: number;
  maxSeats: number;
  /** The lobby's inputs: every field of the game's options message. */
  options: OptionSpec[];
  /** A cooperative game: the seats win or lose together (the result has no places). */
  team?: boolean;
  /** The result's explanation: how the game is won, or why the team won or lost. */
  summary(view: GameView): string;
  /** The seat's hand, sorted as a player holds it. */
  hand(view: GameView): HandCard[];
  /** The keys of the hand cards a move uses (equal keys repeat for several equal cards). */
  moveKeys(move: Move): string[];
  /** A move in words; `cards`: the names of the hand cards it uses. */
  moveLabel(move: Move, view: GameView, cards: string): string;
  /** For games whose play is a set of cards: a play of the selected cards that no legal move
   * matches, sent as is so that the server says which rule it breaks. */
  rawPlay?(view: GameView, keys: string[]): Move["game"] | undefined;
  /** What a seat shows beside its name (hand size, played cards, …). */
  seatDetails(view: GameView, seat: number): HTMLElement[];
  /** The middle of the table. */
  centre(view: GameView): HTMLElement;
  /** One event (its kind and fields) as a sentence; null for a kind this module does not know. */
  describe(kind: string, e: Fields, say: Say): Line | null;
  /** The score sheet, for a game scored over rounds, races or games. */
  scoreSheet?(view: GameView): ScoreSheet | undefined;
}

export function seatName(view: GameView, seat: number): string {
  const name = view.displayNames[seat];
  return name ? name : `${t("seat")} ${seat}`;
}

/** A labelled figure ("cards 5"). */
export function stat(label: string, value: string | number, testid?: string): HTMLElement {
  return h("span", { class: "stat", "data-testid": testid }, h("span", { class: "stat-label" }, label), " ", h("b", {}, value));
}

/** A row of cards (a dash when there are none). */
export function cards(list: (Face | undefined)[], cls = "cards"): HTMLElement {
  return row(cls, list.length === 0 ? h("span", { class: "none" }, "—") : list.map((f) => card(f)));
}

/** Names joined by commas. */
export function list(names: string[]): string {
  return names.join(", ");
}

/** Sorted by `order`, without changing `items`. */
export function sortedBy<T>(items: T[], order: (item: T) => number): T[] {
  return items.slice().sort((a, b) => order(a) - order(b));
}
