// Pig Mau Mau (docs/games/pig_mau_mau.md) at the table: the track with its four pigs, the
// piles and the colour to follow, the steps left, the bet row, and the races' points.

import type { GameView } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { list, seatName, sortedBy, stat, type Part, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

const COLOURS = ["", "t-pink", "t-brown", "t-black", "t-beige"];
// The English names also name the track's lanes for the tests (lane-pink).
const COLOUR_EN = ["", "pink", "brown", "black", "beige"];
const COLOUR_KO = ["", "분홍", "갈색", "검정", "베이지"];

interface PigCard { code: number; kind: number; color: number; number: number }

/** A colour's name in the page's language. */
function colour(c: number): string {
  return tr(COLOUR_EN[c] ?? "", COLOUR_KO[c] ?? "");
}

function face(c: PigCard): Face {
  const kinds: Record<number, [string, string]> = {
    1: [String(c.number), String(c.number)], 2: ["⊘", tr("skip", "건너뛰기")], 3: ["+2", tr("plus two", "+2")],
    4: ["Zz", tr("tired pig", "지친 돼지")], 5: ["F", tr("farmer", "농부")],
  };
  const [rank, name] = kinds[c.kind] ?? ["?", "card"];
  return { rank, tone: COLOURS[c.color] ?? "t-plain", label: `${colour(c.color)} ${name}`.trim() };
}

function state(view: GameView) {
  return view.game.case === "pigMauMau" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "pig_mau_mau",
  en: "Pig Mau Mau",
  ko: "돼지 마우 마우",
  minSeats: 2,
  maxSeats: 5,
  options: [
    { key: "finishDistance", en: "finish distance (0 = by seats)", ko: "결승 거리 (0 = 인원에 따라)", kind: "int", min: 0, max: 60 },
    { key: "startSeat", en: "start seat (empty: by lot)", ko: "시작 자리 (비우면 추첨)", kind: "optint", min: 0, max: 4 },
    { key: "mau", en: "calling Mau is required (PM-7)", ko: "마우 외치기 필수 (PM-7)", kind: "bool" },
  ],

  summary() {
    return tr("The most points after the races wins; ties share the win.", "경주가 끝난 뒤 점수가 가장 높은 자리가 이깁니다. 같으면 함께 이깁니다.");
  },

  // By colour, then kind and number; a key is the card's code, so equal cards sit side by side.
  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c.color * 10000 + c.kind * 100 + c.number).map((c) => ({ key: `p${c.code}`, face: face(c) }));
  },

  moveKeys(move) {
    const g = move.game;
    return g.case === "pigMauMau" && g.value.kind.case === "play" ? [`p${g.value.kind.value.card}`] : [];
  },

  moveLabel(move, _view, cards) {
    const g = move.game;
    if (g.case !== "pigMauMau") return "?";
    const k = g.value.kind;
    if (k.case === "play") {
      let label = `${tr("Play", "내기")} ${cards}`;
      if (k.value.pig) label += `, ${tr("pig", "돼지")} ${colour(k.value.pig)}`;
      if (k.value.color) label += ` → ${colour(k.value.color)}`;
      if (k.value.call === 1) label += ", Mau!";
      if (k.value.call === 2) label += ", Mau Mau!";
      return label;
    }
    if (k.case === "draw") return tr("Draw", "뽑기");
    if (k.case === "stepBack") return `${tr("Step back the", "뒤로 한 칸:")} ${colour(k.value.pig)} ${tr("pig", "돼지")}`;
    if (k.case === "endSteps") return tr("End steps", "걸음 끝내기");
    if (k.case === "placeBet") return `${tr("Bet on", "걸기:")} ${colour(k.value.color)}`;
    if (k.case === "declineBet") return tr("No bet", "걸지 않기");
    return "?";
  },

  seatDetails(view, seat) {
    const v = state(view);
    if (v === undefined) return [];
    const out = [stat(t("cards"), v.handSizes[seat] ?? 0), stat(t("total"), v.totals[seat] ?? 0)];
    const bet = v.betRow.findIndex((b) => b.seat === seat);
    if (bet >= 0) out.push(h("span", { class: "badge" }, `${tr("bet slot", "베팅 칸")} ${bet + 1}`));
    return out;
  },

  centre(view) {
    const v = state(view)!;
    const lanes = [1, 2, 3, 4].map((color) => {
      const at = v.pigs[color - 1] ?? 0;
      const cells = Array.from({ length: v.finish + 1 }, (_, i) =>
        h("span", { class: `cell${i === v.finish ? " finish" : ""}${i === 0 ? " start" : ""}` }, i === at ? h("span", { class: `pig-token ${COLOURS[color]}`, role: "img", "aria-label": `${colour(color)} ${tr("pig at", "돼지, 칸")} ${at}` }, String(at)) : ""));
      return h("div", { class: "lane", "data-testid": `lane-${COLOUR_EN[color]}` }, h("span", { class: `lane-name ${COLOURS[color]}` }, colour(color)), h("div", { class: "cells" }, cells));
    });
    const phases = ["", tr("play", "내기"), tr("steps", "걸음"), tr("bet", "베팅"), tr("over", "끝")];
    return h("section", { class: "centre pig", "aria-label": tr("track", "트랙") },
      h("div", { class: "track", "data-testid": "track" }, lanes),
      row("piles",
        h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.drawSize}` }), h("span", {}, `${t("drawPile")} ${v.drawSize}`)),
        h("div", { class: "pile" }, v.topCard ? card(face(v.topCard), { "data-testid": "top-card" }) : card(undefined), h("span", {}, `${t("discard")} ${v.discardSize}`)),
        v.requiredColor ? h("div", { class: `swatch ${COLOURS[v.requiredColor]}`, "aria-label": `${tr("colour", "색")}: ${colour(v.requiredColor)}` }, colour(v.requiredColor)) : null,
      ),
      row("stats", stat(t("race"), `${v.race}/${v.races}`), stat(t("phase"), phases[v.phase] ?? "?"),
        v.pendingDraw ? stat(tr("to draw", "뽑을 장수"), v.pendingDraw) : null,
        v.stepsLeft ? stat(tr("steps left", "남은 걸음"), v.stepsLeft) : null,
        v.myBet ? stat(tr("my bet", "내 베팅"), colour(v.myBet)) : null,
        v.betRow.length ? stat(tr("bets", "베팅"), v.betRow.map((b) => `${seatName(view, b.seat)}${b.color ? `:${colour(b.color)}` : ""}`).join(", ")) : null),
    );
  },

  describe(kind, e, { A, who, line, s, n }) {
    const c = (x: unknown): Part => (x ? face(x as PigCard) : null);
    const cs = (xs: unknown[]): Part[] => xs.map(c);
    const pig = (x: unknown): string => s(`the ${colour(n(x))} pig`, `${colour(n(x))} 돼지`);
    const call = (x: unknown): string => (n(x) === 2 ? "Mau Mau" : "Mau");
    switch (kind) {
      case "startSeatChosen": return line(s(`${A} starts.`, `${A}: 먼저 시작합니다.`));
      // About the race, not the seat that starts it.
      case "raceStarted": return { seat: undefined, kind, parts: [s(`Race ${e["race"]} begins (finish at ${e["finish"]}); ${who(n(e["startSeat"]))} starts; the first card: `, `${e["race"]}번째 경주 시작 (결승 ${e["finish"]}), ${who(n(e["startSeat"]))} 먼저, 첫 카드: `), c(e["firstCard"]), "."] };
      case "cardPlayed": return line(s(`${A} plays `, `${A}: 냅니다 `), c(e["card"]), n(e["namedColor"]) ? s(` and names ${colour(n(e["namedColor"]))}`, `, 색은 ${colour(n(e["namedColor"]))}`) : "", n(e["call"]) ? `, ${call(e["call"])}!` : "", s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
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
      default: return null;
    }
  },

  scoreSheet(view) {
    const v = state(view);
    if (v === undefined || v.races <= 1) return undefined;
    const seats = Array.from({ length: view.seats }, (_, seat) => seatName(view, seat));
    const nums = (xs: number[]): string[] => seats.map((_, seat) => String(xs[seat] ?? 0));
    return {
      heading: tr("points per race: a pig home, an emptied hand, the bets; the most points win", "경주별 점수: 결승에 든 돼지, 비운 손패, 베팅, 합계가 가장 높으면 승리"),
      columns: seats,
      rows: v.raceScores.map((r) => ({ label: tr(`Race ${r.race}`, `${r.race}번째 경주`), cells: nums(r.points) })),
      total: { label: tr("Total", "합계"), cells: nums(v.totals) },
    };
  },
};

export default game;
