// What's Your Name? (docs/games/whats_your_name.md) at the table: the stage, the priority and
// the mirror, each seat's pile, played and hidden cards, and the virtual player of two seats.

import type { GameView } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { cards, list, seatName, sortedBy, stat, type Part, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

const TONES = ["t-red", "t-blue", "t-green", "t-yellow", "t-purple", "t-orange"];

interface WynCard { rank: number; colour: number }

function face(c: WynCard): Face {
  return { rank: String(c.rank), tone: TONES[c.colour % TONES.length]!, label: `${c.rank}` };
}

function state(view: GameView) {
  return view.game.case === "whatsYourName" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "whats_your_name",
  en: "What's Your Name?",
  ko: "이름이 뭐에요?",
  minSeats: 2,
  maxSeats: 6,
  options: [
    { key: "hiddenCard", en: "hidden card (WN-5)", ko: "숨긴 카드 (WN-5)", kind: "bool" },
    { key: "match", en: "match of several games", ko: "여러 판 경기", kind: "bool" },
    { key: "youngestSeat", en: "youngest seats, youngest first (e.g. 2,0)", ko: "어린 순서 자리 (예: 2,0)", kind: "seatlist" },
  ],

  summary(view) {
    const scoring = tr("The lowest total wins; ties go to the priority holder.", "합계가 가장 낮은 자리가 이깁니다. 같으면 우선권을 가진 자리가 이깁니다.");
    return view.result?.winners.length === 0
      ? scoring + tr(" The virtual player has the lowest total.", " 가상 플레이어의 합계가 가장 낮습니다.")
      : scoring;
  },

  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c.rank).map((c) => ({ key: `r${c.rank}`, face: face(c) }));
  },

  moveKeys(move) {
    const g = move.game;
    if (g.case !== "whatsYourName" || g.value.kind.case === undefined) return [];
    return [`r${g.value.kind.value.rank}`];
  },

  moveLabel(move) {
    const g = move.game;
    if (g.case !== "whatsYourName") return "?";
    const k = g.value.kind;
    const verbs: Record<string, [string, string]> = {
      play: ["Play", "내기"], take: ["Take", "가져가기"], hide: ["Hide", "숨기기"], useMirror: ["Use the mirror on", "거울 쓰기"],
    };
    const [en, ko] = verbs[k.case ?? ""] ?? ["?", "?"];
    return `${tr(en, ko)} ${k.value?.rank ?? ""}`;
  },

  seatDetails(view, seat) {
    const p = state(view)?.players.find((pl) => pl.seat === seat);
    if (p === undefined) return [];
    const out = [stat(t("pile"), p.pileSize), stat(t("cards"), p.handSize), stat(t("total"), p.total)];
    const shown: HTMLElement[] = [];
    if (p.played) shown.push(h("span", { class: "lbl" }, t("played")), card(face(p.played), { "data-testid": `played-${seat}` }));
    else if (p.hasChosen) shown.push(h("span", { class: "lbl" }, t("played")), card(undefined, { "aria-label": t("faceDown") }));
    if (p.revealedHiddenCard) shown.push(h("span", { class: "lbl" }, t("hidden")), card(face(p.revealedHiddenCard)));
    else if (p.hasHiddenCard && seat !== view.viewerSeat) shown.push(h("span", { class: "lbl" }, t("hidden")), card(undefined, { "aria-label": `${t("hidden")}: ${t("faceDown")}`, "data-testid": `hidden-${seat}` }));
    if (shown.length) out.push(row("cards small", shown));
    if (p.acquired.length) out.push(row("cards small", h("span", { class: "lbl" }, t("acquired")), p.acquired.map((c) => card(face(c)))));
    return out;
  },

  centre(view) {
    const v = state(view)!;
    const phases = ["", tr("hide a card", "카드 숨기기"), tr("play", "내기"), tr("draft", "가져가기"), tr("final round", "마지막 라운드"), tr("over", "끝")];
    return h("section", { class: "centre wyn", "aria-label": t("stage") },
      row("stats", stat(t("phase"), phases[v.phase] ?? "?"), stat(t("game"), `${v.gameNumber}/${v.games}`), stat(t("round"), v.round),
        stat(tr("priority", "우선권"), seatName(view, v.prioritySeat)),
        v.mirrorSeat !== undefined ? stat(tr("mirror", "거울"), seatName(view, v.mirrorSeat)) : null),
      h("h3", {}, t("stage")), cards(v.stage.map(face), "cards stage"),
      v.players.filter((p) => p.virtual).map((p) => row("cards small", h("span", { class: "lbl" }, tr("virtual player", "가상 플레이어")),
        p.played ? card(face(p.played)) : null, p.acquired.map((c) => card(face(c))), stat(t("total"), p.total))),
      v.hiddenCard ? row("cards mine", h("span", { class: "lbl" }, `${t("hidden")} (${t("you")})`), card(face(v.hiddenCard), { "data-testid": "my-hidden" })) : null,
      v.chosenCard ? row("cards mine", h("span", { class: "lbl" }, `${t("played")} (${t("you")})`), card(face(v.chosenCard))) : null,
      v.discarded.length ? row("cards small", h("span", { class: "lbl" }, t("discard")), v.discarded.map((c) => card(face(c)))) : null,
    );
  },

  describe(kind, e, { A, who, line, s, n }) {
    const c = (x: unknown): Part => (x ? face(x as WynCard) : null);
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
      case "playsRevealed": return line(s("The plays are revealed: ", "낸 카드 공개: "), (e["plays"] as Record<string, unknown>[]).flatMap((p, i) => [i ? ", " : "", `${who(n(p["seat"]))} `, c(p["card"])]), ".");
      case "stageSwept": return line(s(`${A} sweeps the stage: `, `${A}: 무대를 쓸어 갑니다: `), cs(e["cards"] as unknown[]), ".");
      case "cardTaken": return line(s(`${A} takes `, `${A}: 가져갑니다 `), c(e["card"]), e["automatic"] ? s(" (automatically).", " (자동).") : ".");
      case "pairDiscarded": return line(s(`${A} discards the pair `, `${A}: 짝을 버립니다 `), cs(e["cards"] as unknown[]), ".");
      case "hiddenCardMatched": return line(s(`${A} matches the hidden card `, `${A}: 숨긴 카드 `), c(e["hiddenCard"]), s(" with ", "와(과) 짝: "), c(e["card"]), ".");
      case "mirrorUsed": return line(s(`${A} uses the mirror on `, `${A}: 거울을 씁니다 `), c(e["card"]), ".");
      case "mirrorDiscarded": return line(s(`${A} discards the mirror.`, `${A}: 거울을 버립니다.`));
      case "virtualRevealed": return line(s("The virtual player plays ", "가상 플레이어가 냅니다 "), c(e["card"]), ".");
      case "playsToStage": return line(s("To the stage: ", "무대로: "), cs(e["cards"] as unknown[]), ".");
      case "gameEnded": return line(s(`Game ${e["gameNumber"]} ends: `, `${e["gameNumber"]}번째 판 끝: `), list((e["totals"] as Record<string, unknown>[]).map((x) => `${who(n(x["seat"]))} ${x["total"]}`)), ".");
      default: return null;
    }
  },

  scoreSheet(view) {
    const v = state(view);
    if (v === undefined || v.games <= 1) return undefined;
    const players = sortedBy(v.players, (p) => p.seat);
    const played = Math.max(0, ...players.map((p) => p.recordedTotals.length));
    return {
      heading: tr("each game's total; the lowest sum wins", "판마다 기록된 합계, 합이 가장 낮으면 승리"),
      columns: players.map((p) => (p.virtual ? tr("virtual player", "가상 플레이어") : seatName(view, p.seat))),
      rows: Array.from({ length: played }, (_, i) => ({ label: tr(`Game ${i + 1}`, `${i + 1}번째 판`),
        cells: players.map((p) => String(p.recordedTotals[i] ?? "—")) })),
      total: { label: tr("Total", "합계"), cells: players.map((p) => String(p.recordedTotals.reduce((a, b) => a + b, 0))) },
    };
  },
};

export default game;
