// Every event of every game as a sentence, in English or Korean: who did what, with the cards
// drawn as cards. The log, the last play kept on the table, and the tests read these.

import type { Event, GameView } from "../src/gen/croupier/v1/game_service_pb.js";
import type { Face } from "./dom.js";
import { oneColour, oneFace, pigColour, pigFace, seatName, TRINITY_ROWS, trinityFace, vqFace, wynFace } from "./games.js";
import { tr } from "./i18n.js";

/** A piece of a sentence: words, a card face up, or a card face down (null). */
export type Part = string | Face | null;

export interface Line {
  /** The seat the event is about (who moved), if any. */
  seat: number | undefined;
  /** The event's kind (its oneof case), for the tests and the highlight. */
  kind: string;
  parts: Part[];
}

// Events read by field name: their shapes are the protos' (clients/typescript/src/gen).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fields = Record<string, any>;

function list(names: string[]): string {
  return names.join(", ");
}

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
  const s = (en: string, ko: string): string => tr(en, ko);
  const n = (x: unknown): number => Number(x ?? 0);
  switch (game.case) {
    case "whatsYourName": {
      const c = (x: unknown): Part => (x ? wynFace(x as { rank: number; colour: number }) : null);
      const cs = (xs: unknown[]): Part[] => xs.map(c);
      switch (kind) {
        case "gameStarted": return line(s(`Game ${e["gameNumber"]} of ${e["games"]} begins.`, `${e["games"]}판 중 ${e["gameNumber"]}번째 판을 시작합니다.`));
        case "mirrorGiven": return line(s(`${A} gets the mirror (total ${e["recordedTotal"]}).`, `${A}: 거울을 받습니다 (합계 ${e["recordedTotal"]}).`));
        case "setupRevealed": return line(s(`${A} reveals `, `${A}: 준비 카드 공개 `), c(e["card"]), n(e["thirteensReturned"]) ? s(`, returning ${e["thirteensReturned"]} thirteen(s).`, `, 13을 ${e["thirteensReturned"]}장 돌려놓습니다.`) : ".");
        case "priorityTaken": return line(s(`${A} takes the priority.`, `${A}: 우선권을 가집니다.`));
        case "cardsDrawn": return line(s(`${A} draws ${e["count"]} card(s)`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).length ? ": " : ".", cs(e["cards"] as unknown[]));
        case "hiddenCardSet": return line(s(`${A} hides a card`, `${A}: 카드를 숨깁니다`), e["card"] ? [": ", c(e["card"])] : ".");
        case "roundStarted": return line(e["final"] ? s("The final round begins.", "마지막 라운드를 시작합니다.") : s(`Round ${e["round"]} begins.`, `${e["round"]}라운드를 시작합니다.`));
        case "cardChosen": return line(s(`${A} chooses a card`, `${A}: 카드를 고릅니다`), e["card"] ? [": ", c(e["card"])] : "", e["automatic"] ? s(" (automatically).", " (자동).") : ".");
        case "playsRevealed": return line(s("The plays are revealed: ", "낸 카드 공개: "), (e["plays"] as Fields[]).flatMap((p, i) => [i ? ", " : "", `${who(n(p["seat"]))} `, c(p["card"])]), ".");
        case "stageSwept": return line(s(`${A} sweeps the stage: `, `${A}: 무대를 쓸어 갑니다: `), cs(e["cards"] as unknown[]), ".");
        case "cardTaken": return line(s(`${A} takes `, `${A}: 가져갑니다 `), c(e["card"]), e["automatic"] ? s(" (automatically).", " (자동).") : ".");
        case "pairDiscarded": return line(s(`${A} discards the pair `, `${A}: 짝을 버립니다 `), cs(e["cards"] as unknown[]), ".");
        case "hiddenCardMatched": return line(s(`${A} matches the hidden card `, `${A}: 숨긴 카드 `), c(e["hiddenCard"]), s(" with ", "와(과) 짝: "), c(e["card"]), ".");
        case "mirrorUsed": return line(s(`${A} uses the mirror on `, `${A}: 거울을 씁니다 `), c(e["card"]), ".");
        case "mirrorDiscarded": return line(s(`${A} discards the mirror.`, `${A}: 거울을 버립니다.`));
        case "virtualRevealed": return line(s("The virtual player plays ", "가상 플레이어가 냅니다 "), c(e["card"]), ".");
        case "playsToStage": return line(s("To the stage: ", "무대로: "), cs(e["cards"] as unknown[]), ".");
        case "gameEnded": return line(s(`Game ${e["gameNumber"]} ends: `, `${e["gameNumber"]}번째 판 끝: `), list((e["totals"] as Fields[]).map((t) => `${who(n(t["seat"]))} ${t["total"]}`)), ".");
        default: break;
      }
      break;
    }
    case "oneCard": {
      const c = (x: unknown): Part => (x ? oneFace(x as { type: number; color: number; number: number }) : null);
      const cs = (xs: unknown[]): Part[] => xs.map(c);
      switch (kind) {
        case "gameStarted": return line(s(`Game ${e["gameNumber"]}: ${who(n(e["dealer"]))} deals${e["dealerDrawnByLot"] ? " (drawn by lot)" : ""}; ${who(n(e["firstSeat"]))} starts.`, `${e["gameNumber"]}번째 판: ${who(n(e["dealer"]))} 딜러${e["dealerDrawnByLot"] ? " (추첨)" : ""}, ${who(n(e["firstSeat"]))} 먼저.`));
        case "dealt": return line(s(`${A} is dealt ${e["count"]} cards`, `${A}: ${e["count"]}장을 받습니다`), (e["cards"] as unknown[]).length ? ": " : ".", cs(e["cards"] as unknown[]));
        case "startCard": return line(s("The start card: ", "시작 카드: "), c(e["card"]), ".");
        case "played": return line(s(`${A} plays `, `${A}: 냅니다 `), cs(e["cards"] as unknown[]),
          n(e["namedColor"]) ? s(` and names ${oneColour(n(e["namedColor"]))}`, `, 색은 ${oneColour(n(e["namedColor"]))}`) : "",
          n(e["attackTotal"]) ? s(` (attack +${e["attackTotal"]})`, ` (공격 +${e["attackTotal"]})`) : "",
          e["calledOneCard"] ? s(", calling One Card!", ", 원카드!") : "", s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
        case "skipped": return line(s(`${A} is skipped.`, `${A}: 건너뜁니다.`));
        case "directionChanged": return line(e["clockwise"] ? s("Play goes clockwise.", "방향: 시계 방향.") : s("Play goes counter-clockwise.", "방향: 반시계 방향."));
        case "drew": return line(s(`${A} draws ${e["count"]}`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).length ? ": " : "", cs(e["cards"] as unknown[]), e["automatic"] ? s(" (automatically)", " (자동)") : "", s(`; ${e["cardsLeft"]} in hand.`, `; 손패 ${e["cardsLeft"]}장.`));
        case "reshuffled": return line(s(`The discard pile is shuffled into the draw pile (${e["drawPileSize"]} cards).`, `버린 더미를 섞어 뽑는 더미로 (${e["drawPileSize"]}장).`));
        case "calledOneCard": return line(s(`${A} calls One Card!`, `${A}: 원카드!`));
        case "caught": return line(s(`${A} catches ${who(n(e["caught"]))}!`, `${A}: ${who(n(e["caught"]))} 잡았다!`));
        case "gameWon": return { seat: n(e["winner"]), kind, parts: [e["matchOver"]
          ? s(`${who(n(e["winner"]))} wins game ${e["gameNumber"]} and the match.`, `${who(n(e["winner"]))}: ${e["gameNumber"]}번째 판과 경기 승리.`)
          : s(`${who(n(e["winner"]))} wins game ${e["gameNumber"]}.`, `${who(n(e["winner"]))}: ${e["gameNumber"]}번째 판 승리.`)] };
        default: break;
      }
      break;
    }
    case "pigMauMau": {
      const c = (x: unknown): Part => (x ? pigFace(x as { code: number; kind: number; color: number; number: number }) : null);
      const cs = (xs: unknown[]): Part[] => xs.map(c);
      const pig = (x: unknown): string => s(`the ${pigColour(n(x))} pig`, `${pigColour(n(x))} 돼지`);
      const call = (x: unknown): string => (n(x) === 2 ? "Mau Mau" : "Mau");
      switch (kind) {
        case "startSeatChosen": return line(s(`${A} starts.`, `${A}: 먼저 시작합니다.`));
        case "raceStarted": return { seat: undefined, kind, parts: [s(`Race ${e["race"]} begins (finish at ${e["finish"]}); ${who(n(e["startSeat"]))} starts; the first card: `, `${e["race"]}번째 경주 시작 (결승 ${e["finish"]}), ${who(n(e["startSeat"]))} 먼저, 첫 카드: `), c(e["firstCard"]), "."] };
        case "cardPlayed": return line(s(`${A} plays `, `${A}: 냅니다 `), c(e["card"]), n(e["namedColor"]) ? s(` and names ${pigColour(n(e["namedColor"]))}`, `, 색은 ${pigColour(n(e["namedColor"]))}`) : "", n(e["call"]) ? `, ${call(e["call"])}!` : "", s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
        case "pigMoved": return line(n(e["after"]) >= n(e["before"])
          ? s(`${A} moves ${pig(e["pig"])} forward, ${e["before"]} → ${e["after"]}.`, `${A}: ${pig(e["pig"])} 앞으로, ${e["before"]} → ${e["after"]}.`)
          : s(`${A} moves ${pig(e["pig"])} back, ${e["before"]} → ${e["after"]}.`, `${A}: ${pig(e["pig"])} 뒤로, ${e["before"]} → ${e["after"]}.`));
        case "seatSkipped": return line(s(`${A} is skipped.`, `${A}: 건너뜁니다.`));
        case "drawPending": return line(s(`${A} must draw ${e["total"]}.`, `${A}: ${e["total"]}장을 뽑아야 합니다.`));
        case "mauForgotten": return line(s(`${A} forgot to call ${call(e["required"])}.`, `${A}: ${call(e["required"])}를 외치지 않았습니다.`));
        case "cardsDrawn": return line(s(`${A} draws ${e["count"]}`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).length ? ": " : ".", cs(e["cards"] as unknown[]));
        case "pileReshuffled": return line(s(`The discard pile is shuffled into the draw pile (${e["drawSize"]} cards).`, `버린 더미를 섞어 뽑는 더미로 (${e["drawSize"]}장).`));
        case "turnPassed": return line(s(`${A} passes.`, `${A}: 차례를 넘깁니다.`));
        case "stepsGranted": return line(s(`${A} may move the pigs ${e["steps"]} step(s).`, `${A}: 돼지를 ${e["steps"]}걸음 움직일 수 있습니다.`));
        case "stepsEnded": return line(s(`${A} ends the steps (${e["unused"]} unused).`, `${A}: 걸음을 끝냅니다 (${e["unused"]} 남김).`));
        case "betPlaced": return line(n(e["color"])
          ? s(`${A} bets on ${pig(e["color"])} (slot ${n(e["slot"]) + 1}).`, `${A}: ${pig(e["color"])}에 겁니다 (${n(e["slot"]) + 1}번 칸).`)
          : s(`${A} places a bet face down (slot ${n(e["slot"]) + 1}).`, `${A}: 뒷면으로 겁니다 (${n(e["slot"]) + 1}번 칸).`));
        case "betDeclined": return line(s(`${A} does not bet.`, `${A}: 걸지 않습니다.`));
        case "raceEnded": return line(s(`Race ${e["race"]} ends: `, `${e["race"]}번째 경주 끝: `), list((e["winners"] as number[]).map((p) => pig(p))), s(" won; points ", " 승리; 점수 "),
          list((e["points"] as number[]).map((p, i) => `${who(i)} +${p} (${(e["totals"] as number[])[i] ?? 0})`)), ".");
        case "gameEnded": return line(s("Game over: ", "게임 끝: "), list((e["winners"] as number[]).map(who)), s(" won.", " 승리."));
        default: break;
      }
      break;
    }
    case "vampireQueen": {
      const cs = (xs: unknown[]): Part[] => xs.map((x) => vqFace(n(x)));
      switch (kind) {
        case "huntersDealt": return line(s(`Hunter 15 goes to ${who(n(e["hunter15Seat"]))}, Hunter 20 to ${who(n(e["hunter20Seat"]))}.`, `헌터 15: ${who(n(e["hunter15Seat"]))}, 헌터 20: ${who(n(e["hunter20Seat"]))}.`));
        case "roundStarted": return line(s(`Round ${e["round"]} of ${e["rounds"]} begins.`, `${e["rounds"]}라운드 중 ${e["round"]}라운드를 시작합니다.`));
        case "phaseStarted": return { seat: undefined, kind, parts: [s(`${who(n(e["leader"]))} leads.`, `${who(n(e["leader"]))}: 선입니다.`)] };
        case "cardsPlayed": return line(e["hunt"] ? s(`${A} plays to the hunt `, `${A}: 사냥에 냅니다 `) : s(`${A} plays `, `${A}: 냅니다 `), cs(e["cards"] as unknown[]), s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
        case "passed": return line(e["forced"] ? s(`${A} cannot beat it and passes.`, `${A}: 이길 수 없어 패스합니다.`) : s(`${A} passes.`, `${A}: 패스합니다.`));
        case "phaseWon": return line(s(`${A} wins the trick `, `${A}: 트릭을 이깁니다 `), cs(e["cards"] as unknown[]), ".");
        case "huntTaken": return line(s(`${A} takes the hunt `, `${A}: 사냥감을 가져갑니다 `), cs(e["cards"] as unknown[]), n(e["lockedHunter"]) ? [s(", locking ", ", 잠금 "), vqFace(n(e["lockedHunter"]))] : "", ".");
        case "roundScored": return line(s(`Round ${e["round"]} scored: `, `${e["round"]}라운드 점수: `),
          list((e["penalties"] as number[]).map((p, i) => { const total = (e["totals"] as number[])[i] ?? 0; return `${who(i)} +${p} (${total - p} → ${total})`; })), ".");
        case "gameOver": return line(s("Game over: ", "게임 끝: "), list((e["winners"] as number[]).map(who)), s(" won with the lowest penalty.", " 벌점이 가장 낮아 승리."));
        default: break;
      }
      break;
    }
    case "trinity": {
      const c = (x: unknown): Part => trinityFace(n(x)) ?? null;
      const cs = (xs: unknown[]): Part[] => xs.map(c);
      const row = (x: unknown): string => TRINITY_ROWS[n(x)] ?? "?";
      switch (kind) {
        case "dealt": return line(s(`${A} is dealt ${e["count"]} cards`, `${A}: ${e["count"]}장을 받습니다`), (e["cards"] as unknown[]).some(Boolean) ? [": ", ...cs(e["cards"] as unknown[])] : ".");
        case "turnBegan": return line(s(`${A}'s turn.`, `${A}의 차례.`));
        case "turnSkipped": return line(s(`${A}'s turn is skipped.`, `${A}: 차례를 건너뜁니다.`));
        case "placed": return line(s(`${A} places `, `${A}: 놓습니다 `), c(e["card"]), s(` in row ${row(e["row"])}`, ` → ${row(e["row"])} 줄`), n(e["pushedOff"]) ? [s(", pushing off ", ", 밀려남: "), c(e["pushedOff"])] : "", ".");
        case "used": return line(s(`${A} uses `, `${A}: 씁니다 `), c(e["card"]), ".");
        case "moved": return line(s(`${A} moves `, `${A}: 옮깁니다 `), c(e["card"]), ` ${row(e["row"])}${n(e["fromSlot"]) + 1} → ${row(e["row"])}${n(e["toSlot"]) + 1}.`);
        case "rowCardDiscarded": return line(s(`${A} discards `, `${A}: 버립니다 `), c(e["card"]), s(` from ${row(e["row"])}${n(e["slot"]) + 1}.`, ` (${row(e["row"])}${n(e["slot"]) + 1}).`));
        case "revealed": return line(s(`${A} reveals `, `${A}: 공개합니다 `), c(e["card"]), ".");
        case "swapped": return line(s(`${A} swaps `, `${A}: 맞바꿉니다 `), c(e["ownCard"]), ` (${row(e["ownRow"])}${n(e["ownSlot"]) + 1}) ↔ `, c(e["otherCard"]), ` (${row(e["otherRow"])}${n(e["otherSlot"]) + 1}).`);
        case "skipped": return line(s(`${A} skips a step.`, `${A}: 단계를 건너뜁니다.`));
        case "discarded": return line(s(`${A} discards `, `${A}: 버립니다 `), c(e["card"]), ".");
        case "gave": return line(s(`${A} gives `, `${A}: 줍니다 `), c(e["card"]), s(` to ${who(n(e["receiver"]))}.`, ` → ${who(n(e["receiver"]))}.`));
        case "drew": return line(s(`${A} draws ${e["count"]}`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).some(Boolean) ? [": ", ...cs(e["cards"] as unknown[])] : ".");
        case "gameEnded": return line(n(e["outcome"]) === 1
          ? s("The board is complete: the team wins!", "보드 완성: 팀 승리!")
          : n(e["outcome"]) === 3 ? s("A face card was discarded: the team loses.", "그림 카드를 버림: 팀 패배.") : s("Every hand is empty and the board is not complete: the team loses.", "손패가 모두 비었고 보드가 미완성: 팀 패배."));
        default: break;
      }
      break;
    }
    default: break;
  }
  // A kind this page does not know yet (a newer server): its name, never nothing.
  return line(`${A ? `${A}: ` : ""}${kind.replace(/([A-Z])/g, " $1").toLowerCase()}`);
}
