// Tobot One Card (docs/games/one_card.md) at the table: the draw and discard piles, the colour
// to follow, the direction, the attack to answer, and the games of a match.

import type { GameView, Move } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { seatName, sortedBy, stat, type Part, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

const COLOURS = ["", "t-red", "t-yellow", "t-green", "t-blue"];
const COLOUR_EN = ["", "red", "yellow", "green", "blue"];
const COLOUR_KO = ["", "빨강", "노랑", "초록", "파랑"];

interface OneCard { type: number; color: number; number: number }

/** A colour's name in the page's language. */
function colour(c: number): string {
  return tr(COLOUR_EN[c] ?? "", COLOUR_KO[c] ?? "");
}

function face(c: OneCard): Face {
  const kinds: Record<number, [string, string]> = {
    1: [String(c.number), String(c.number)], 2: ["+2", tr("plus two", "+2")], 3: ["+3", tr("plus three", "+3")],
    4: ["⤼", tr("jump", "점프")], 5: ["↺", tr("U-turn", "유턴")], 6: ["★", tr("rainbow", "무지개")], 7: ["✦", tr("quatran", "쿼트란")],
  };
  const [rank, name] = kinds[c.type] ?? ["?", "card"];
  const tone = c.type === 6 ? "t-rainbow" : c.type === 7 ? "t-quatran" : (COLOURS[c.color] ?? "");
  return { rank, tone, label: `${colour(c.color)} ${name}`.trim() };
}

const key = (c: OneCard): string => `${c.type}.${c.color}.${c.number}`;

function state(view: GameView) {
  return view.game.case === "oneCard" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "one_card",
  en: "Tobot One Card",
  ko: "또봇 원카드",
  minSeats: 2,
  maxSeats: 10,
  options: [
    { key: "winsToMatch", en: "wins to the match (0 = 1)", ko: "경기 승리 수 (0 = 1)", kind: "int", min: 0, max: 5 },
    { key: "dealerSeat", en: "first dealer seat (empty: by lot)", ko: "첫 딜러 자리 (비우면 추첨)", kind: "optint", min: 0, max: 9 },
    { key: "deck.numberCopies", en: "deck: copies of each number", ko: "덱: 숫자 카드 장수", kind: "optint", min: 0, max: 4 },
    { key: "deck.plusTwoPerColor", en: "deck: +2 per colour", ko: "덱: 색마다 +2", kind: "optint", min: 0, max: 4 },
    { key: "deck.plusThreePerColor", en: "deck: +3 per colour", ko: "덱: 색마다 +3", kind: "optint", min: 0, max: 4 },
    { key: "deck.jumpPerColor", en: "deck: jumps per colour", ko: "덱: 색마다 점프", kind: "optint", min: 0, max: 4 },
    { key: "deck.uTurnPerColor", en: "deck: U-turns per colour", ko: "덱: 색마다 유턴", kind: "optint", min: 0, max: 4 },
    { key: "deck.rainbows", en: "deck: rainbows", ko: "덱: 무지개", kind: "optint", min: 0, max: 8 },
    { key: "deck.quatrans", en: "deck: quatrans", ko: "덱: 쿼트란", kind: "optint", min: 0, max: 8 },
  ],

  summary() {
    return tr("The first to empty their hand wins; the others are placed by fewer cards left (in a match: by games won).", "손패를 먼저 비운 자리가 이깁니다. 나머지는 남은 카드가 적은 순서입니다 (경기에서는 이긴 판 수).");
  },

  // By colour, then kind and number.
  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c.color * 10000 + c.type * 100 + c.number).map((c) => ({ key: key(c), face: face(c) }));
  },

  moveKeys(move) {
    const g = move.game;
    return g.case === "oneCard" && g.value.kind.case === "play" ? g.value.kind.value.cards.map(key) : [];
  },

  moveLabel(move, view, cards) {
    const g = move.game;
    if (g.case !== "oneCard") return "?";
    const k = g.value.kind;
    if (k.case === "play") {
      let label = `${tr("Play", "내기")} ${cards}`;
      if (k.value.color) label += ` → ${colour(k.value.color)}`;
      if (k.value.callOneCard) label += tr(", call One Card!", ", 원카드!");
      return label;
    }
    if (k.case === "draw") return tr("Draw", "뽑기");
    if (k.case === "callOneCard") return tr("Call One Card!", "원카드 외치기!");
    if (k.case === "catch") return `${tr("Catch", "잡기")} ${seatName(view, k.value.seat)}`;
    return "?";
  },

  rawPlay(_view, keys) {
    const cards = keys.map((k) => {
      const [type, color, number] = k.split(".").map(Number);
      return { type, color, number };
    });
    return { case: "oneCard", value: { kind: { case: "play", value: { cards } } } } as unknown as Move["game"];
  },

  seatDetails(view, seat) {
    const v = state(view);
    if (v === undefined) return [];
    const out = [stat(t("cards"), v.handSizes[seat] ?? 0), stat(tr("wins", "승"), v.wins[seat] ?? 0)];
    if (v.catchableSeat === seat) out.push(h("span", { class: "badge warn" }, tr("catchable!", "잡을 수 있음!")));
    if (v.dealer === seat) out.push(h("span", { class: "badge" }, tr("dealer", "딜러")));
    return out;
  },

  centre(view) {
    const v = state(view)!;
    return h("section", { class: "centre one", "aria-label": t("discard") },
      row("piles",
        h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.drawPileSize}` }), h("span", {}, `${t("drawPile")} ${v.drawPileSize}`)),
        h("div", { class: "pile" }, v.topCard ? card(face(v.topCard), { "data-testid": "top-card" }) : card(undefined), h("span", {}, `${t("discard")} ${v.discardPileSize}`)),
        h("div", { class: `swatch ${COLOURS[v.activeColor] ?? ""}`, "aria-label": `${tr("colour", "색")}: ${colour(v.activeColor)}` }, colour(v.activeColor)),
      ),
      row("stats", stat(tr("direction", "방향"), v.clockwise ? "↻" : "↺"), view.result ? null : stat(t("turn"), seatName(view, v.currentSeat)),
        v.pendingAttack ? stat(tr("attack", "공격"), `+${v.pendingAttack}`) : null,
        v.quatranColor ? stat(tr("quatran colour", "쿼트란 색"), colour(v.quatranColor)) : null,
        stat(t("game"), v.gameNumber), stat(tr("wins to match", "경기 승리 수"), v.winsToMatch)),
    );
  },

  describe(kind, e, { A, who, line, s, n }) {
    const c = (x: unknown): Part => (x ? face(x as OneCard) : null);
    const cs = (xs: unknown[]): Part[] => xs.map(c);
    switch (kind) {
      case "gameStarted": return line(s(`Game ${e["gameNumber"]}: ${who(n(e["dealer"]))} deals${e["dealerDrawnByLot"] ? " (drawn by lot)" : ""}; ${who(n(e["firstSeat"]))} starts.`, `${e["gameNumber"]}번째 판: ${who(n(e["dealer"]))} 딜러${e["dealerDrawnByLot"] ? " (추첨)" : ""}, ${who(n(e["firstSeat"]))} 먼저.`));
      case "dealt": return line(s(`${A} is dealt ${e["count"]} cards`, `${A}: ${e["count"]}장을 받습니다`), (e["cards"] as unknown[]).length ? ": " : ".", cs(e["cards"] as unknown[]));
      case "startCard": return line(s("The start card: ", "시작 카드: "), c(e["card"]), ".");
      case "played": return line(s(`${A} plays `, `${A}: 냅니다 `), cs(e["cards"] as unknown[]),
        n(e["namedColor"]) ? s(` and names ${colour(n(e["namedColor"]))}`, `, 색은 ${colour(n(e["namedColor"]))}`) : "",
        n(e["attackTotal"]) ? s(` (attack +${e["attackTotal"]})`, ` (공격 +${e["attackTotal"]})`) : "",
        e["calledOneCard"] ? s(", calling One Card!", ", 원카드!") : "", s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
      case "skipped": return line(s(`${A} is skipped.`, `${A}: 건너뜁니다.`));
      case "directionChanged": return line(e["clockwise"] ? s("Play goes clockwise.", "방향: 시계 방향.") : s("Play goes counter-clockwise.", "방향: 반시계 방향."));
      case "drew": return line(s(`${A} draws ${e["count"]}`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).length ? ": " : "", cs(e["cards"] as unknown[]), e["automatic"] ? s(" (automatically)", " (자동)") : "", s(`; ${e["cardsLeft"]} in hand.`, `; 손패 ${e["cardsLeft"]}장.`));
      case "reshuffled": return line(s(`The discard pile is shuffled into the draw pile (${e["drawPileSize"]} cards).`, `버린 더미를 섞어 뽑는 더미로 (${e["drawPileSize"]}장).`));
      case "calledOneCard": return line(s(`${A} calls One Card!`, `${A}: 원카드!`));
      case "caught": return line(s(`${A} catches ${who(n(e["caught"]))}!`, `${A}: ${who(n(e["caught"]))} 잡았다!`));
      // About the winner, who did not move: the line names them as its seat.
      case "gameWon": return { seat: n(e["winner"]), kind, parts: [e["matchOver"]
        ? s(`${who(n(e["winner"]))} wins game ${e["gameNumber"]} and the match.`, `${who(n(e["winner"]))}: ${e["gameNumber"]}번째 판과 경기 승리.`)
        : s(`${who(n(e["winner"]))} wins game ${e["gameNumber"]}.`, `${who(n(e["winner"]))}: ${e["gameNumber"]}번째 판 승리.`)] };
      default: return null;
    }
  },

  scoreSheet(view) {
    const v = state(view);
    if (v === undefined || v.winsToMatch <= 1) return undefined;
    const seats = Array.from({ length: view.seats }, (_, seat) => seatName(view, seat));
    return {
      heading: tr(`games of the match: ★ the game's winner, else the cards left; ${v.winsToMatch} wins take the match`, `경기의 판: ★ 그 판의 승자, 나머지는 남은 카드, ${v.winsToMatch}승이면 경기 승리`),
      columns: seats,
      rows: v.history.map((r, i) => ({ label: tr(`Game ${i + 1}`, `${i + 1}번째 판`),
        cells: seats.map((_, seat) => (seat === r.winner ? "★" : String(r.cardsLeft[seat] ?? 0))) })),
      total: { label: tr("Games won", "이긴 판"), cells: seats.map((_, seat) => String(v.wins[seat] ?? 0)) },
    };
  },
};

export default game;
