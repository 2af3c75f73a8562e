// Vampire Queen (docs/games/vampire_queen.md) at the table: the trick or hunt in play (and the
// last one while a new one is empty), the count and rank to beat, the Hunters and their locks,
// and the penalties of every round.

import type { GameView, Move } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { list, seatName, sortedBy, stat, type Part, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

function face(c: number): Face {
  if (c === 14) return { rank: "Q", suit: "♛", tone: "t-queen", label: tr("Vampire Queen", "뱀파이어 퀸") };
  if (c === 15 || c === 20) return { rank: `H${c}`, suit: "✝", tone: "t-hunter", label: `${tr("Hunter", "헌터")} ${c}` };
  return { rank: String(c), tone: "t-vampire", label: `${tr("vampire", "뱀파이어")} ${c}` };
}

function state(view: GameView) {
  return view.game.case === "vampireQueen" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "vampire_queen",
  en: "Vampire Queen",
  ko: "뱀파이어 퀸",
  minSeats: 3,
  maxSeats: 12,
  options: [
    { key: "rounds", en: "rounds (0 = 5)", ko: "라운드 (0 = 5)", kind: "int", min: 0, max: 20 },
    { key: "dealAll", en: "deal all cards", ko: "카드 모두 나누기", kind: "bool" },
    { key: "firstHunterSeat", en: "Hunter 15 seat (empty: by lot)", ko: "헌터 15 자리 (비우면 추첨)", kind: "optint", min: 0, max: 11 },
  ],

  summary() {
    return tr("The lowest total penalty wins; ties share the win.", "벌점 합계가 가장 낮은 자리가 이깁니다. 같으면 함께 이깁니다.");
  },

  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c).map((c) => ({ key: `v${c}`, face: face(c) }));
  },

  moveKeys(move) {
    const g = move.game;
    return g.case === "vampireQueen" && g.value.kind.case === "play" ? g.value.kind.value.cards.map((c) => `v${c}`) : [];
  },

  moveLabel(move, _view, cards) {
    const g = move.game;
    return g.case === "vampireQueen" && g.value.kind.case === "play" ? `${tr("Play", "내기")} ${cards}` : tr("Pass", "패스");
  },

  rawPlay(_view, keys) {
    const cards = keys.map((k) => Number(k.slice(1)));
    return { case: "vampireQueen", value: { kind: { case: "play", value: { cards } } } } as unknown as Move["game"];
  },

  seatDetails(view, seat) {
    const v = state(view);
    if (v === undefined) return [];
    const out = [stat(t("cards"), v.handSizes[seat] ?? 0), stat(tr("penalty", "벌점"), v.totals[seat] ?? 0)];
    if (v.hunter15Holder === seat) out.push(h("span", { class: "badge" }, "✝ H15"));
    if (v.hunter20Holder === seat) out.push(h("span", { class: "badge" }, "✝ H20"));
    return out;
  },

  centre(view) {
    const v = state(view)!;
    const phase = v.phase;
    const drawPlays = (plays: NonNullable<typeof phase>["plays"]): HTMLElement[] => plays.map((p) => h("div", { class: "play" }, h("span", { class: "lbl" }, seatName(view, p.seat)),
      p.cards.length ? p.cards.map((c) => card(face(c))) : h("span", { class: "none" }, p.forced ? tr("forced pass", "강제 패스") : tr("pass", "패스"))));
    const plays = drawPlays(phase?.plays ?? []);
    // The server's bots answer at once, so a trick is often over before a person sees it:
    // while the new one is empty, the last one stays on the table (the view's history).
    const last = plays.length ? undefined : v.history[v.history.length - 1];
    return h("section", { class: "centre vq", "aria-label": tr("trick", "트릭") },
      row("stats", stat(t("round"), `${v.round}/${v.rounds}`),
        phase ? stat(tr("leader", "선"), seatName(view, phase.leader)) : null,
        phase?.hunt ? h("span", { class: "badge warn", "data-testid": "hunt" }, tr("the hunt!", "사냥!")) : null,
        v.countToPlay ? stat(tr("cards to play", "낼 장수"), v.countToPlay) : null,
        v.rankToBeat ? stat(tr("rank to beat", "이길 숫자"), v.rankToBeat) : null,
        stat(tr("set aside", "제외"), v.setAsideCount)),
      h("h3", {}, phase?.hunt ? tr("The hunt", "사냥") : tr("The trick", "트릭")),
      h("div", { class: "trick", "data-testid": "trick" }, plays.length ? plays : h("span", { class: "none" }, "—")),
      last ? h("h3", {}, last.hunt ? `${tr("The last hunt · taken by", "지난 사냥 · 가져간 자리:")} ${seatName(view, last.winner)}` : `${tr("The last trick · won by", "지난 트릭 · 이긴 자리:")} ${seatName(view, last.winner)}`) : null,
      last ? h("div", { class: "trick last", "data-testid": "last-trick" }, drawPlays(last.plays)) : null,
      v.locks.length ? row("stats", v.locks.map((l) => stat(`✝ H${l.hunter}`, `${tr("locked by", "잠금:")} ${seatName(view, l.seat)}`))) : null,
    );
  },

  describe(kind, e, { A, who, line, s, n }) {
    const cs = (xs: unknown[]): Part[] => xs.map((x) => face(n(x)));
    switch (kind) {
      case "huntersDealt": return line(s(`Hunter 15 goes to ${who(n(e["hunter15Seat"]))}, Hunter 20 to ${who(n(e["hunter20Seat"]))}.`, `헌터 15: ${who(n(e["hunter15Seat"]))}, 헌터 20: ${who(n(e["hunter20Seat"]))}.`));
      case "roundStarted": return line(s(`Round ${e["round"]} of ${e["rounds"]} begins.`, `${e["rounds"]}라운드 중 ${e["round"]}라운드를 시작합니다.`));
      case "phaseStarted": return { seat: undefined, kind, parts: [s(`${who(n(e["leader"]))} leads.`, `${who(n(e["leader"]))}: 선입니다.`)] };
      case "cardsPlayed": return line(e["hunt"] ? s(`${A} plays to the hunt `, `${A}: 사냥에 냅니다 `) : s(`${A} plays `, `${A}: 냅니다 `), cs(e["cards"] as unknown[]), s(`; ${e["cardsLeft"]} left.`, `; ${e["cardsLeft"]}장 남음.`));
      case "passed": return line(e["forced"] ? s(`${A} cannot beat it and passes.`, `${A}: 이길 수 없어 패스합니다.`) : s(`${A} passes.`, `${A}: 패스합니다.`));
      case "phaseWon": return line(s(`${A} wins the trick `, `${A}: 트릭을 이깁니다 `), cs(e["cards"] as unknown[]), ".");
      case "huntTaken": return line(s(`${A} takes the hunt `, `${A}: 사냥감을 가져갑니다 `), cs(e["cards"] as unknown[]), n(e["lockedHunter"]) ? [s(", locking ", ", 잠금 "), face(n(e["lockedHunter"]))] : "", ".");
      case "roundScored": return line(s(`Round ${e["round"]} scored: `, `${e["round"]}라운드 점수: `),
        list((e["penalties"] as number[]).map((p, i) => { const total = (e["totals"] as number[])[i] ?? 0; return `${who(i)} +${p} (${total - p} → ${total})`; })), ".");
      case "gameOver": return line(s("Game over: ", "게임 끝: "), list((e["winners"] as number[]).map(who)), s(" won with the lowest penalty.", " 벌점이 가장 낮아 승리."));
      default: return null;
    }
  },

  scoreSheet(view) {
    const v = state(view);
    if (v === undefined || v.rounds <= 1) return undefined;
    const seats = Array.from({ length: view.seats }, (_, seat) => seatName(view, seat));
    const nums = (xs: number[]): string[] => seats.map((_, seat) => String(xs[seat] ?? 0));
    return {
      heading: tr("penalty points per round: the cards left in hand; the lowest total wins", "라운드별 벌점: 손에 남은 카드, 합계가 가장 낮으면 승리"),
      columns: seats,
      rows: v.roundPenalties.map((r, i) => ({ label: tr(`Round ${i + 1}`, `${i + 1}라운드`), cells: nums(r.penalties) })),
      total: { label: tr("Total", "합계"), cells: nums(v.totals) },
    };
  },
};

export default game;
