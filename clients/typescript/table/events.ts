// Every event of every game as a sentence, in English or Korean: who did what, with the cards
// drawn as cards. The log, the last play kept on the table, and the tests read these. The
// sentences are the game's module's (games/); this file reads what every event shares.

import type { Event, GameView } from "../src/gen/croupier/v1/game_service_pb.js";
import type { Fields, Line, Part, Say } from "./game.js";
import { gameInfo, seatName } from "./games.js";
import { tr } from "./i18n.js";

export type { Line, Part } from "./game.js";

/** The sentence of one event, seen by `view`'s seat (names and the page's language). */
export function describe(event: Event, view: GameView): Line | null {
  const game = event.game;
  const inner = (game.value as Fields | undefined)?.["kind"] as { case: string | undefined; value: Fields } | undefined;
  if (game.case === undefined || inner?.case === undefined) return null;
  const kind = inner.case;
  const e = inner.value;
  // What's Your Name?'s virtual player (two seats) has the seat after the last.
  const who = (seat: number): string => (seat >= view.seats ? tr("the virtual player", "가상 플레이어") : seatName(view, seat));
  const seat = typeof e["seat"] === "number" ? (e["seat"] as number) : typeof e["giver"] === "number" ? (e["giver"] as number) : typeof e["catcher"] === "number" ? (e["catcher"] as number) : undefined;
  const A = seat === undefined ? "" : who(seat);
  const line = (...parts: (Part | Part[])[]): Line => {
    const flat = parts.flat();
    if (typeof flat[0] === "string") flat[0] = flat[0].charAt(0).toUpperCase() + flat[0].slice(1); // "The virtual player…"
    return { seat, kind, parts: flat };
  };
  const say: Say = { view, A, who, line, s: tr, n: (x) => Number(x ?? 0) };
  // A kind this page does not know yet (a newer server): its name, never nothing.
  return gameInfo(view.gameType).describe(kind, e, say) ?? line(`${A ? `${A}: ` : ""}${kind.replace(/([A-Z])/g, " $1").toLowerCase()}`);
}
