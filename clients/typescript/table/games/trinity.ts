// Trinity (docs/games/trinity.md) at the table: the board of rows J, Q, K and their slots, the
// piles, the step of the turn, and each seat's revealed cards. Cooperative: the team wins or
// loses together.

import type { GameView } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { seatName, sortedBy, stat, type Part, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

const SUITS = ["♠", "♥", "♦", "♣"];
const RANKS: Record<number, string> = { 11: "J", 12: "Q", 13: "K", 14: "A" };
const ROWS = ["", "J", "Q", "K"];

// Card codes: 1-52 by suit, then rank from 2; 53 and 54 the jokers.
function face(code: number): Face | undefined {
  if (code === 53) return { rank: "★", tone: "t-rainbow", label: tr("colour joker", "컬러 조커") };
  if (code === 54) return { rank: "★", tone: "t-black", label: tr("black-and-white joker", "흑백 조커") };
  if (code <= 0) return undefined;
  const rank = ((code - 1) % 13) + 2;
  const suit = SUITS[Math.floor((code - 1) / 13)] ?? "?";
  const name = `${RANKS[rank] ?? rank}`;
  const tone = suit === "♥" || suit === "♦" ? "t-red" : "t-black";
  return { rank: name, suit, tone, label: `${name}${suit}` };
}

function state(view: GameView) {
  return view.game.case === "trinity" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "trinity",
  en: "Trinity",
  ko: "삼위일체",
  minSeats: 3,
  maxSeats: 3,
  options: [
    { key: "rows", en: "rows of seats 0, 1, 2", ko: "자리 0, 1, 2의 줄", kind: "rows" },
    { key: "advanced", en: "advanced rules (TR-5.3)", ko: "고급 규칙 (TR-5.3)", kind: "bool" },
    { key: "stopWhenUnwinnable", en: "stop when unwinnable (TR-5.4)", ko: "이길 수 없으면 끝내기 (TR-5.4)", kind: "bool" },
  ],
  team: true,

  summary(view) {
    const outcome = state(view)?.outcome ?? 0;
    return outcome === 1 ? tr("The board is complete.", "보드가 완성되었습니다.")
      : outcome === 3 ? tr("A Jack, Queen or King was discarded.", "J, Q, K 중 한 장을 버렸습니다.")
      : tr("Every hand is empty and the board is not complete.", "손패가 모두 비었고 보드가 완성되지 않았습니다.");
  },

  // By suit, then rank: the codes' order.
  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c).map((c) => ({ key: `t${c}`, face: face(c) ?? { rank: "?", tone: "", label: "?" } }));
  },

  moveKeys(move) {
    const g = move.game;
    if (g.case !== "trinity") return [];
    const k = g.value.kind;
    switch (k.case) {
      case "place": case "use": case "discardTwo": case "reveal": case "discard": case "give":
        return [`t${k.value.card}`];
      default: return [];
    }
  },

  moveLabel(move, _view, cards) {
    const g = move.game;
    if (g.case !== "trinity") return "?";
    const k = g.value.kind;
    const verbs: Record<string, [string, string]> = {
      place: ["Place", "놓기"], use: ["Use", "쓰기"], discardTwo: ["Discard two, starting with", "두 장 버리기:"],
      reveal: ["Reveal", "공개"], discard: ["Discard", "버리기"], give: ["Give", "주기"],
    };
    if (k.case === "targetSlot") return `${tr("Target slot", "칸 고르기")} ${k.value.slot}`;
    if (k.case === "skip") return tr("Skip", "건너뛰기");
    if (k.case === "swap") return `${tr("Swap slot", "맞바꾸기")} ${k.value.ownSlot} ↔ ${ROWS[k.value.otherRow]}${k.value.otherSlot}`;
    const [en, ko] = verbs[k.case ?? ""] ?? ["?", "?"];
    return `${tr(en, ko)} ${cards}`;
  },

  seatDetails(view, seat) {
    const s = state(view)?.seats.find((x) => x.seat === seat);
    if (s === undefined) return [];
    const out = [stat(tr("row", "줄"), ROWS[s.row] ?? "?"), stat(t("cards"), s.handSize)];
    if (s.revealed.length) out.push(row("cards small", h("span", { class: "lbl" }, tr("revealed", "공개")), s.revealed.map((c) => card(face(c)))));
    return out;
  },

  centre(view) {
    const v = state(view)!;
    const steps = ["", tr("action", "행동"), tr("suit effect", "무늬 효과"), tr("swap", "맞바꾸기"), tr("discard", "버리기"), tr("gift", "선물"), tr("gift discard", "선물 버리기")];
    const outcomes = ["", tr("won!", "승리!"), tr("lost: hands empty", "패배: 손패 없음"), tr("lost: a face card was discarded", "패배: 그림 카드를 버림")];
    const board = v.board.map((r) => h("div", { class: "board-row", "data-testid": `row-${ROWS[r.row]}` },
      h("span", { class: "row-name" }, `${ROWS[r.row]} · ${seatName(view, r.seat)}`),
      h("div", { class: "slots" }, r.slots.map((c, i) => h("div", { class: "slot" }, h("small", {}, `${ROWS[r.row]}${i + 1}`), face(c) ? card(face(c)) : h("span", { class: "card empty", role: "img", "aria-label": t("empty") }))))));
    const top = v.discardPile[v.discardPile.length - 1];
    return h("section", { class: "centre trinity", "aria-label": tr("board", "보드") },
      h("div", { class: "board", "data-testid": "board" }, board),
      row("piles",
        h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.deckSize}` }), h("span", {}, `${t("drawPile")} ${v.deckSize}`)),
        h("div", { class: "pile" }, top ? card(face(top)) : h("span", { class: "card empty", role: "img", "aria-label": `${t("discard")}: ${t("empty")}` }), h("span", {}, `${t("discard")} ${v.discardPile.length}`))),
      row("stats", view.result ? null : stat(t("turn"), seatName(view, v.turn)), view.result ? null : stat(tr("step", "단계"), steps[v.step] ?? "?"),
        v.usingCard ? stat(tr("using", "사용 중"), face(v.usingCard)?.label ?? "") : null,
        v.giftReceiver !== undefined ? stat(tr("gift to", "선물 받는 자리"), seatName(view, v.giftReceiver)) : null,
        v.outcome ? stat(tr("outcome", "결과"), outcomes[v.outcome] ?? "") : null),
    );
  },

  describe(kind, e, { A, who, line, s, n }) {
    const c = (x: unknown): Part => face(n(x)) ?? null;
    const cs = (xs: unknown[]): Part[] => xs.map(c);
    const rowOf = (x: unknown): string => ROWS[n(x)] ?? "?";
    switch (kind) {
      case "dealt": return line(s(`${A} is dealt ${e["count"]} cards`, `${A}: ${e["count"]}장을 받습니다`), (e["cards"] as unknown[]).some(Boolean) ? [": ", ...cs(e["cards"] as unknown[])] : ".");
      case "turnBegan": return line(s(`${A}'s turn.`, `${A}의 차례.`));
      case "turnSkipped": return line(s(`${A}'s turn is skipped.`, `${A}: 차례를 건너뜁니다.`));
      case "placed": return line(s(`${A} places `, `${A}: 놓습니다 `), c(e["card"]), s(` in row ${rowOf(e["row"])}`, ` → ${rowOf(e["row"])} 줄`), n(e["pushedOff"]) ? [s(", pushing off ", ", 밀려남: "), c(e["pushedOff"])] : "", ".");
      case "used": return line(s(`${A} uses `, `${A}: 씁니다 `), c(e["card"]), ".");
      case "moved": return line(s(`${A} moves `, `${A}: 옮깁니다 `), c(e["card"]), ` ${rowOf(e["row"])}${n(e["fromSlot"]) + 1} → ${rowOf(e["row"])}${n(e["toSlot"]) + 1}.`);
      case "rowCardDiscarded": return line(s(`${A} discards `, `${A}: 버립니다 `), c(e["card"]), s(` from ${rowOf(e["row"])}${n(e["slot"]) + 1}.`, ` (${rowOf(e["row"])}${n(e["slot"]) + 1}).`));
      case "revealed": return line(s(`${A} reveals `, `${A}: 공개합니다 `), c(e["card"]), ".");
      case "swapped": return line(s(`${A} swaps `, `${A}: 맞바꿉니다 `), c(e["ownCard"]), ` (${rowOf(e["ownRow"])}${n(e["ownSlot"]) + 1}) ↔ `, c(e["otherCard"]), ` (${rowOf(e["otherRow"])}${n(e["otherSlot"]) + 1}).`);
      case "skipped": return line(s(`${A} skips a step.`, `${A}: 단계를 건너뜁니다.`));
      case "discarded": return line(s(`${A} discards `, `${A}: 버립니다 `), c(e["card"]), ".");
      case "gave": return line(s(`${A} gives `, `${A}: 줍니다 `), c(e["card"]), s(` to ${who(n(e["receiver"]))}.`, ` → ${who(n(e["receiver"]))}.`));
      case "drew": return line(s(`${A} draws ${e["count"]}`, `${A}: ${e["count"]}장을 뽑습니다`), (e["cards"] as unknown[]).some(Boolean) ? [": ", ...cs(e["cards"] as unknown[])] : ".");
      case "gameEnded": return line(n(e["outcome"]) === 1
        ? s("The board is complete: the team wins!", "보드 완성: 팀 승리!")
        : n(e["outcome"]) === 3 ? s("A face card was discarded: the team loses.", "그림 카드를 버림: 팀 패배.") : s("Every hand is empty and the board is not complete: the team loses.", "손패가 모두 비었고 보드가 미완성: 팀 패배."));
      default: return null;
    }
  },
};

export default game;
