// What the table knows of each game: names, seat counts, the lobby's options (every option of
// docs/games/*.md), how a card is drawn, which hand cards a move uses, a move's label, and the
// middle of the table. Everything is read from the seat's redacted GameView.

import type { GameView, Move } from "../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "./dom.js";
import { t, tr } from "./i18n.js";

export interface OptionSpec {
  /** The field's path in the options message's init shape (`deck.numberCopies`). */
  key: string;
  en: string;
  ko: string;
  kind: "bool" | "int" | "optint" | "seatlist" | "rows";
  min?: number;
  max?: number;
}

export interface GameInfo {
  id: string;
  en: string;
  ko: string;
  minSeats: number;
  maxSeats: number;
  options: OptionSpec[];
}

export const GAMES: GameInfo[] = [
  { id: "whats_your_name", en: "What's Your Name?", ko: "이름이 뭐에요?", minSeats: 2, maxSeats: 6, options: [
    { key: "hiddenCard", en: "hidden card (WN-5)", ko: "숨긴 카드 (WN-5)", kind: "bool" },
    { key: "match", en: "match of several games", ko: "여러 판 경기", kind: "bool" },
    { key: "youngestSeat", en: "youngest seats, youngest first (e.g. 2,0)", ko: "어린 순서 자리 (예: 2,0)", kind: "seatlist" },
  ] },
  { id: "one_card", en: "Tobot One Card", ko: "또봇 원카드", minSeats: 2, maxSeats: 10, options: [
    { key: "winsToMatch", en: "wins to the match (0 = 1)", ko: "경기 승리 수 (0 = 1)", kind: "int", min: 0, max: 5 },
    { key: "dealerSeat", en: "first dealer seat (empty: by lot)", ko: "첫 딜러 자리 (비우면 추첨)", kind: "optint", min: 0, max: 9 },
    { key: "deck.numberCopies", en: "deck: copies of each number", ko: "덱: 숫자 카드 장수", kind: "optint", min: 0, max: 4 },
    { key: "deck.plusTwoPerColor", en: "deck: +2 per colour", ko: "덱: 색마다 +2", kind: "optint", min: 0, max: 4 },
    { key: "deck.plusThreePerColor", en: "deck: +3 per colour", ko: "덱: 색마다 +3", kind: "optint", min: 0, max: 4 },
    { key: "deck.jumpPerColor", en: "deck: jumps per colour", ko: "덱: 색마다 점프", kind: "optint", min: 0, max: 4 },
    { key: "deck.uTurnPerColor", en: "deck: U-turns per colour", ko: "덱: 색마다 유턴", kind: "optint", min: 0, max: 4 },
    { key: "deck.rainbows", en: "deck: rainbows", ko: "덱: 무지개", kind: "optint", min: 0, max: 8 },
    { key: "deck.quatrans", en: "deck: quatrans", ko: "덱: 쿼트란", kind: "optint", min: 0, max: 8 },
  ] },
  { id: "pig_mau_mau", en: "Pig Mau Mau", ko: "돼지 마우 마우", minSeats: 2, maxSeats: 5, options: [
    { key: "finishDistance", en: "finish distance (0 = by seats)", ko: "결승 거리 (0 = 인원에 따라)", kind: "int", min: 0, max: 60 },
    { key: "startSeat", en: "start seat (empty: by lot)", ko: "시작 자리 (비우면 추첨)", kind: "optint", min: 0, max: 4 },
    { key: "mau", en: "calling Mau is required (PM-7)", ko: "마우 외치기 필수 (PM-7)", kind: "bool" },
  ] },
  { id: "vampire_queen", en: "Vampire Queen", ko: "뱀파이어 퀸", minSeats: 3, maxSeats: 12, options: [
    { key: "rounds", en: "rounds (0 = 5)", ko: "라운드 (0 = 5)", kind: "int", min: 0, max: 20 },
    { key: "dealAll", en: "deal all cards", ko: "카드 모두 나누기", kind: "bool" },
    { key: "firstHunterSeat", en: "Hunter 15 seat (empty: by lot)", ko: "헌터 15 자리 (비우면 추첨)", kind: "optint", min: 0, max: 11 },
  ] },
  { id: "trinity", en: "Trinity", ko: "삼위일체", minSeats: 3, maxSeats: 3, options: [
    { key: "rows", en: "rows of seats 0, 1, 2", ko: "자리 0, 1, 2의 줄", kind: "rows" },
    { key: "advanced", en: "advanced rules (TR-5.3)", ko: "고급 규칙 (TR-5.3)", kind: "bool" },
    { key: "stopWhenUnwinnable", en: "stop when unwinnable (TR-5.4)", ko: "이길 수 없으면 끝내기 (TR-5.4)", kind: "bool" },
  ] },
];

export function gameInfo(id: string): GameInfo {
  return GAMES.find((g) => g.id === id) ?? GAMES[0]!;
}

export function seatName(view: GameView, seat: number): string {
  const name = view.displayNames[seat];
  return name ? name : `${t("seat")} ${seat}`;
}

// ---- cards ----

const WYN_TONES = ["t-red", "t-blue", "t-green", "t-yellow", "t-purple", "t-orange"];
const ONE_COLORS = ["", "t-red", "t-yellow", "t-green", "t-blue"];
const ONE_COLOR_NAMES = ["", "red", "yellow", "green", "blue"];
const ONE_COLOR_KO = ["", "빨강", "노랑", "초록", "파랑"];
const PIG_COLORS = ["", "t-pink", "t-brown", "t-black", "t-beige"];
export const PIG_COLOR_NAMES = ["", "pink", "brown", "black", "beige"];
const PIG_COLOR_KO = ["", "분홍", "갈색", "검정", "베이지"];

/** A colour's name in the page's language (the English ones also name test ids and classes). */
export function oneColour(c: number): string {
  return tr(ONE_COLOR_NAMES[c] ?? "", ONE_COLOR_KO[c] ?? "");
}

export function pigColour(c: number): string {
  return tr(PIG_COLOR_NAMES[c] ?? "", PIG_COLOR_KO[c] ?? "");
}
const TRINITY_SUITS = ["♠", "♥", "♦", "♣"];
const RANKS: Record<number, string> = { 11: "J", 12: "Q", 13: "K", 14: "A" };
export const TRINITY_ROWS = ["", "J", "Q", "K"];

interface WynCard { rank: number; colour: number }
interface OneCard { type: number; color: number; number: number }
interface PigCard { code: number; kind: number; color: number; number: number }

export function wynFace(c: WynCard): Face {
  return { rank: String(c.rank), tone: WYN_TONES[c.colour % WYN_TONES.length]!, label: `${c.rank}` };
}

export function oneFace(c: OneCard): Face {
  const color = oneColour(c.color);
  const kinds: Record<number, [string, string]> = {
    1: [String(c.number), String(c.number)], 2: ["+2", tr("plus two", "+2")], 3: ["+3", tr("plus three", "+3")],
    4: ["⤼", tr("jump", "점프")], 5: ["↺", tr("U-turn", "유턴")], 6: ["★", tr("rainbow", "무지개")], 7: ["✦", tr("quatran", "쿼트란")],
  };
  const [rank, name] = kinds[c.type] ?? ["?", "card"];
  const tone = c.type === 6 ? "t-rainbow" : c.type === 7 ? "t-quatran" : (ONE_COLORS[c.color] ?? "");
  return { rank, tone, label: `${color} ${name}`.trim() };
}

export function pigFace(c: PigCard): Face {
  const color = pigColour(c.color);
  const kinds: Record<number, [string, string]> = {
    1: [String(c.number), String(c.number)], 2: ["⊘", tr("skip", "건너뛰기")], 3: ["+2", tr("plus two", "+2")],
    4: ["Zz", tr("tired pig", "지친 돼지")], 5: ["F", tr("farmer", "농부")],
  };
  const [rank, name] = kinds[c.kind] ?? ["?", "card"];
  return { rank, tone: PIG_COLORS[c.color] ?? "t-plain", label: `${color} ${name}`.trim() };
}

export function vqFace(c: number): Face {
  if (c === 14) return { rank: "Q", suit: "♛", tone: "t-queen", label: tr("Vampire Queen", "뱀파이어 퀸") };
  if (c === 15 || c === 20) return { rank: `H${c}`, suit: "✝", tone: "t-hunter", label: `${tr("Hunter", "헌터")} ${c}` };
  return { rank: String(c), tone: "t-vampire", label: `${tr("vampire", "뱀파이어")} ${c}` };
}

export function trinityFace(code: number): Face | undefined {
  if (code === 53) return { rank: "★", tone: "t-rainbow", label: tr("colour joker", "컬러 조커") };
  if (code === 54) return { rank: "★", tone: "t-black", label: tr("black-and-white joker", "흑백 조커") };
  if (code <= 0) return undefined;
  const rank = ((code - 1) % 13) + 2;
  const suit = TRINITY_SUITS[Math.floor((code - 1) / 13)] ?? "?";
  const name = `${RANKS[rank] ?? rank}`;
  const tone = suit === "♥" || suit === "♦" ? "t-red" : "t-black";
  return { rank: name, suit, tone, label: `${name}${suit}` };
}

// ---- the hand and what a move uses of it ----

/** The seat's hand as faces, each with a key (equal cards have equal keys), sorted as a
 * player sorts a hand: by rank (What's Your Name?, Vampire Queen), by colour then kind and
 * number (One Card, Pig Mau Mau), by suit then rank (Trinity's codes are in that order). */
export function hand(view: GameView): { key: string; face: Face }[] {
  const g = view.game;
  const by = <T>(list: T[], order: (c: T) => number): T[] => list.slice().sort((a, b) => order(a) - order(b));
  switch (g.case) {
    case "whatsYourName": return by(g.value.hand, (c) => c.rank).map((c) => ({ key: `r${c.rank}`, face: wynFace(c) }));
    case "oneCard": return by(g.value.hand, (c) => c.color * 10000 + c.type * 100 + c.number).map((c) => ({ key: `${c.type}.${c.color}.${c.number}`, face: oneFace(c) }));
    case "pigMauMau": return by(g.value.hand, (c) => c.color * 10000 + c.kind * 100 + c.number).map((c) => ({ key: `p${c.code}`, face: pigFace(c) }));
    case "vampireQueen": return by(g.value.hand, (c) => c).map((c) => ({ key: `v${c}`, face: vqFace(c) }));
    case "trinity": return by(g.value.hand, (c) => c).map((c) => ({ key: `t${c}`, face: trinityFace(c) ?? { rank: "?", tone: "", label: "?" } }));
    default: return [];
  }
}

/** Whether the move uses every selected card, as many times as it is selected. */
export function usesAll(move: Move, selectedKeys: string[]): boolean {
  const left = moveKeys(move).slice();
  for (const k of selectedKeys) {
    const at = left.indexOf(k);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

/** The keys of the hand cards a move uses (equal keys repeat for several equal cards). */
export function moveKeys(move: Move): string[] {
  const g = move.game;
  switch (g.case) {
    case "whatsYourName": {
      const k = g.value.kind;
      return k.case === undefined ? [] : [`r${k.value.rank}`];
    }
    case "oneCard":
      return g.value.kind.case === "play" ? g.value.kind.value.cards.map((c) => `${c.type}.${c.color}.${c.number}`) : [];
    case "pigMauMau":
      return g.value.kind.case === "play" ? [`p${g.value.kind.value.card}`] : [];
    case "vampireQueen":
      return g.value.kind.case === "play" ? g.value.kind.value.cards.map((c) => `v${c}`) : [];
    case "trinity": {
      const k = g.value.kind;
      switch (k.case) {
        case "place": case "use": case "discardTwo": case "reveal": case "discard": case "give":
          return [`t${k.value.card}`];
        default: return [];
      }
    }
    default: return [];
  }
}

/** A move of the selected cards that no legal move matches, for games whose play is a set of
 * cards: sent as is, so the server says which rule it breaks. */
export function rawPlay(view: GameView, keys: string[]): Move["game"] | undefined {
  if (view.game.case === "vampireQueen") {
    const cards = keys.map((k) => Number(k.slice(1)));
    return { case: "vampireQueen", value: { kind: { case: "play", value: { cards } } } } as unknown as Move["game"];
  }
  if (view.game.case === "oneCard") {
    const cards = keys.map((k) => {
      const [type, color, number] = k.split(".").map(Number);
      return { type, color, number };
    });
    return { case: "oneCard", value: { kind: { case: "play", value: { cards } } } } as unknown as Move["game"];
  }
  return undefined;
}

function faces(keys: string[], view: GameView): string {
  const byKey = new Map(hand(view).map((c) => [c.key, c.face.label]));
  return keys.map((k) => byKey.get(k) ?? k).join(" + ");
}

/** A move in words, in the page's language. */
export function moveLabel(move: Move, view: GameView): string {
  const g = move.game;
  const cards = faces(moveKeys(move), view);
  switch (g.case) {
    case "whatsYourName": {
      const k = g.value.kind;
      const verbs: Record<string, [string, string]> = {
        play: ["Play", "내기"], take: ["Take", "가져가기"], hide: ["Hide", "숨기기"], useMirror: ["Use the mirror on", "거울 쓰기"],
      };
      const [en, ko] = verbs[k.case ?? ""] ?? ["?", "?"];
      return `${tr(en, ko)} ${k.value?.rank ?? ""}`;
    }
    case "oneCard": {
      const k = g.value.kind;
      if (k.case === "play") {
        let label = `${tr("Play", "내기")} ${cards}`;
        if (k.value.color) label += ` → ${oneColour(k.value.color)}`;
        if (k.value.callOneCard) label += tr(", call One Card!", ", 원카드!");
        return label;
      }
      if (k.case === "draw") return tr("Draw", "뽑기");
      if (k.case === "callOneCard") return tr("Call One Card!", "원카드 외치기!");
      if (k.case === "catch") return `${tr("Catch", "잡기")} ${seatName(view, k.value.seat)}`;
      return "?";
    }
    case "pigMauMau": {
      const k = g.value.kind;
      if (k.case === "play") {
        let label = `${tr("Play", "내기")} ${cards}`;
        if (k.value.pig) label += `, ${tr("pig", "돼지")} ${pigColour(k.value.pig)}`;
        if (k.value.color) label += ` → ${pigColour(k.value.color)}`;
        if (k.value.call === 1) label += ", Mau!";
        if (k.value.call === 2) label += ", Mau Mau!";
        return label;
      }
      if (k.case === "draw") return tr("Draw", "뽑기");
      if (k.case === "stepBack") return `${tr("Step back the", "뒤로 한 칸:")} ${pigColour(k.value.pig)} ${tr("pig", "돼지")}`;
      if (k.case === "endSteps") return tr("End steps", "걸음 끝내기");
      if (k.case === "placeBet") return `${tr("Bet on", "걸기:")} ${pigColour(k.value.color)}`;
      if (k.case === "declineBet") return tr("No bet", "걸지 않기");
      return "?";
    }
    case "vampireQueen":
      return g.value.kind.case === "play" ? `${tr("Play", "내기")} ${cards}` : tr("Pass", "패스");
    case "trinity": {
      const k = g.value.kind;
      const verbs: Record<string, [string, string]> = {
        place: ["Place", "놓기"], use: ["Use", "쓰기"], discardTwo: ["Discard two, starting with", "두 장 버리기:"],
        reveal: ["Reveal", "공개"], discard: ["Discard", "버리기"], give: ["Give", "주기"],
      };
      if (k.case === "targetSlot") return `${tr("Target slot", "칸 고르기")} ${k.value.slot}`;
      if (k.case === "skip") return tr("Skip", "건너뛰기");
      if (k.case === "swap") return `${tr("Swap slot", "맞바꾸기")} ${k.value.ownSlot} ↔ ${TRINITY_ROWS[k.value.otherRow]}${k.value.otherSlot}`;
      const [en, ko] = verbs[k.case ?? ""] ?? ["?", "?"];
      return `${tr(en, ko)} ${cards}`;
    }
    default: return "?";
  }
}

// ---- the middle of the table ----

function stat(label: string, value: string | number, testid?: string): HTMLElement {
  return h("span", { class: "stat", "data-testid": testid }, h("span", { class: "stat-label" }, label), " ", h("b", {}, value));
}

function cards(list: (Face | undefined)[], cls = "cards"): HTMLElement {
  return row(cls, list.length === 0 ? h("span", { class: "none" }, "—") : list.map((f) => card(f)));
}

/** Per seat: what that seat shows (hand size, played cards, ...), beside its name. */
export function seatDetails(view: GameView, seat: number): HTMLElement[] {
  const g = view.game;
  const out: HTMLElement[] = [];
  switch (g.case) {
    case "whatsYourName": {
      const p = g.value.players.find((pl) => pl.seat === seat);
      if (p === undefined) break;
      out.push(stat(t("pile"), p.pileSize), stat(t("cards"), p.handSize), stat(t("total"), p.total));
      const shown: HTMLElement[] = [];
      if (p.played) shown.push(h("span", { class: "lbl" }, t("played")), card(wynFace(p.played), { "data-testid": `played-${seat}` }));
      else if (p.hasChosen) shown.push(h("span", { class: "lbl" }, t("played")), card(undefined, { "aria-label": t("faceDown") }));
      if (p.revealedHiddenCard) shown.push(h("span", { class: "lbl" }, t("hidden")), card(wynFace(p.revealedHiddenCard)));
      else if (p.hasHiddenCard && seat !== view.viewerSeat) shown.push(h("span", { class: "lbl" }, t("hidden")), card(undefined, { "aria-label": `${t("hidden")}: ${t("faceDown")}`, "data-testid": `hidden-${seat}` }));
      if (shown.length) out.push(row("cards small", shown));
      if (p.acquired.length) out.push(row("cards small", h("span", { class: "lbl" }, t("acquired")), p.acquired.map((c) => card(wynFace(c)))));
      break;
    }
    case "oneCard": {
      const v = g.value;
      out.push(stat(t("cards"), v.handSizes[seat] ?? 0), stat(tr("wins", "승"), v.wins[seat] ?? 0));
      if (v.catchableSeat === seat) out.push(h("span", { class: "badge warn" }, tr("catchable!", "잡을 수 있음!")));
      if (v.dealer === seat) out.push(h("span", { class: "badge" }, tr("dealer", "딜러")));
      break;
    }
    case "pigMauMau": {
      const v = g.value;
      out.push(stat(t("cards"), v.handSizes[seat] ?? 0), stat(t("total"), v.totals[seat] ?? 0));
      const bet = v.betRow.findIndex((b) => b.seat === seat);
      if (bet >= 0) out.push(h("span", { class: "badge" }, `${tr("bet slot", "베팅 칸")} ${bet + 1}`));
      break;
    }
    case "vampireQueen": {
      const v = g.value;
      out.push(stat(t("cards"), v.handSizes[seat] ?? 0), stat(tr("penalty", "벌점"), v.totals[seat] ?? 0));
      if (v.hunter15Holder === seat) out.push(h("span", { class: "badge" }, "✝ H15"));
      if (v.hunter20Holder === seat) out.push(h("span", { class: "badge" }, "✝ H20"));
      break;
    }
    case "trinity": {
      const s = g.value.seats.find((x) => x.seat === seat);
      if (s === undefined) break;
      out.push(stat(tr("row", "줄"), TRINITY_ROWS[s.row] ?? "?"), stat(t("cards"), s.handSize));
      if (s.revealed.length) out.push(row("cards small", h("span", { class: "lbl" }, tr("revealed", "공개")), s.revealed.map((c) => card(trinityFace(c)))));
      break;
    }
    default: break;
  }
  return out;
}

export function centre(view: GameView): HTMLElement {
  const g = view.game;
  switch (g.case) {
    case "whatsYourName": {
      const v = g.value;
      const phases = ["", tr("hide a card", "카드 숨기기"), tr("play", "내기"), tr("draft", "가져가기"), tr("final round", "마지막 라운드"), tr("over", "끝")];
      return h("section", { class: "centre wyn", "aria-label": t("stage") },
        row("stats", stat(t("phase"), phases[v.phase] ?? "?"), stat(t("game"), `${v.gameNumber}/${v.games}`), stat(t("round"), v.round),
          stat(tr("priority", "우선권"), seatName(view, v.prioritySeat)),
          v.mirrorSeat !== undefined ? stat(tr("mirror", "거울"), seatName(view, v.mirrorSeat)) : null),
        h("h3", {}, t("stage")), cards(v.stage.map(wynFace), "cards stage"),
        v.players.filter((p) => p.virtual).map((p) => row("cards small", h("span", { class: "lbl" }, tr("virtual player", "가상 플레이어")),
          p.played ? card(wynFace(p.played)) : null, p.acquired.map((c) => card(wynFace(c))), stat(t("total"), p.total))),
        v.hiddenCard ? row("cards mine", h("span", { class: "lbl" }, `${t("hidden")} (${t("you")})`), card(wynFace(v.hiddenCard), { "data-testid": "my-hidden" })) : null,
        v.chosenCard ? row("cards mine", h("span", { class: "lbl" }, `${t("played")} (${t("you")})`), card(wynFace(v.chosenCard))) : null,
        v.discarded.length ? row("cards small", h("span", { class: "lbl" }, t("discard")), v.discarded.map((c) => card(wynFace(c)))) : null,
      );
    }
    case "oneCard": {
      const v = g.value;
      return h("section", { class: "centre one", "aria-label": t("discard") },
        row("piles",
          h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.drawPileSize}` }), h("span", {}, `${t("drawPile")} ${v.drawPileSize}`)),
          h("div", { class: "pile" }, v.topCard ? card(oneFace(v.topCard), { "data-testid": "top-card" }) : card(undefined), h("span", {}, `${t("discard")} ${v.discardPileSize}`)),
          h("div", { class: `swatch ${ONE_COLORS[v.activeColor] ?? ""}`, "aria-label": `${tr("colour", "색")}: ${oneColour(v.activeColor)}` }, oneColour(v.activeColor)),
        ),
        row("stats", stat(tr("direction", "방향"), v.clockwise ? "↻" : "↺"), view.result ? null : stat(t("turn"), seatName(view, v.currentSeat)),
          v.pendingAttack ? stat(tr("attack", "공격"), `+${v.pendingAttack}`) : null,
          v.quatranColor ? stat(tr("quatran colour", "쿼트란 색"), oneColour(v.quatranColor)) : null,
          stat(t("game"), v.gameNumber), stat(tr("wins to match", "경기 승리 수"), v.winsToMatch)),
      );
    }
    case "pigMauMau": {
      const v = g.value;
      const lanes = [1, 2, 3, 4].map((color) => {
        const at = v.pigs[color - 1] ?? 0;
        const cells = Array.from({ length: v.finish + 1 }, (_, i) =>
          h("span", { class: `cell${i === v.finish ? " finish" : ""}${i === 0 ? " start" : ""}` }, i === at ? h("span", { class: `pig-token ${PIG_COLORS[color]}`, role: "img", "aria-label": `${pigColour(color)} ${tr("pig at", "돼지, 칸")} ${at}` }, String(at)) : ""));
        return h("div", { class: "lane", "data-testid": `lane-${PIG_COLOR_NAMES[color]}` }, h("span", { class: `lane-name ${PIG_COLORS[color]}` }, pigColour(color)), h("div", { class: "cells" }, cells));
      });
      const phases = ["", tr("play", "내기"), tr("steps", "걸음"), tr("bet", "베팅"), tr("over", "끝")];
      return h("section", { class: "centre pig", "aria-label": tr("track", "트랙") },
        h("div", { class: "track", "data-testid": "track" }, lanes),
        row("piles",
          h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.drawSize}` }), h("span", {}, `${t("drawPile")} ${v.drawSize}`)),
          h("div", { class: "pile" }, v.topCard ? card(pigFace(v.topCard), { "data-testid": "top-card" }) : card(undefined), h("span", {}, `${t("discard")} ${v.discardSize}`)),
          v.requiredColor ? h("div", { class: `swatch ${PIG_COLORS[v.requiredColor]}`, "aria-label": `${tr("colour", "색")}: ${pigColour(v.requiredColor)}` }, pigColour(v.requiredColor)) : null,
        ),
        row("stats", stat(t("race"), `${v.race}/${v.races}`), stat(t("phase"), phases[v.phase] ?? "?"),
          v.pendingDraw ? stat(tr("to draw", "뽑을 장수"), v.pendingDraw) : null,
          v.stepsLeft ? stat(tr("steps left", "남은 걸음"), v.stepsLeft) : null,
          v.myBet ? stat(tr("my bet", "내 베팅"), pigColour(v.myBet)) : null,
          v.betRow.length ? stat(tr("bets", "베팅"), v.betRow.map((b) => `${seatName(view, b.seat)}${b.color ? `:${pigColour(b.color)}` : ""}`).join(", ")) : null),
      );
    }
    case "vampireQueen": {
      const v = g.value;
      const phase = v.phase;
      const drawPlays = (list: NonNullable<typeof phase>["plays"]): HTMLElement[] => list.map((p) => h("div", { class: "play" }, h("span", { class: "lbl" }, seatName(view, p.seat)),
        p.cards.length ? p.cards.map((c) => card(vqFace(c))) : h("span", { class: "none" }, p.forced ? tr("forced pass", "강제 패스") : tr("pass", "패스"))));
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
    }
    case "trinity": {
      const v = g.value;
      const steps = ["", tr("action", "행동"), tr("suit effect", "무늬 효과"), tr("swap", "맞바꾸기"), tr("discard", "버리기"), tr("gift", "선물"), tr("gift discard", "선물 버리기")];
      const outcomes = ["", tr("won!", "승리!"), tr("lost: hands empty", "패배: 손패 없음"), tr("lost: a face card was discarded", "패배: 그림 카드를 버림")];
      const board = v.board.map((r) => h("div", { class: "board-row", "data-testid": `row-${TRINITY_ROWS[r.row]}` },
        h("span", { class: "row-name" }, `${TRINITY_ROWS[r.row]} · ${seatName(view, r.seat)}`),
        h("div", { class: "slots" }, r.slots.map((c, i) => h("div", { class: "slot" }, h("small", {}, `${TRINITY_ROWS[r.row]}${i + 1}`), trinityFace(c) ? card(trinityFace(c)) : h("span", { class: "card empty", role: "img", "aria-label": t("empty") }))))));
      const top = v.discardPile[v.discardPile.length - 1];
      return h("section", { class: "centre trinity", "aria-label": tr("board", "보드") },
        h("div", { class: "board", "data-testid": "board" }, board),
        row("piles",
          h("div", { class: "pile" }, card(undefined, { "aria-label": `${t("drawPile")}: ${v.deckSize}` }), h("span", {}, `${t("drawPile")} ${v.deckSize}`)),
          h("div", { class: "pile" }, top ? card(trinityFace(top)) : h("span", { class: "card empty", role: "img", "aria-label": `${t("discard")}: ${t("empty")}` }), h("span", {}, `${t("discard")} ${v.discardPile.length}`))),
        row("stats", view.result ? null : stat(t("turn"), seatName(view, v.turn)), view.result ? null : stat(tr("step", "단계"), steps[v.step] ?? "?"),
          v.usingCard ? stat(tr("using", "사용 중"), trinityFace(v.usingCard)?.label ?? "") : null,
          v.giftReceiver !== undefined ? stat(tr("gift to", "선물 받는 자리"), seatName(view, v.giftReceiver)) : null,
          v.outcome ? stat(tr("outcome", "결과"), outcomes[v.outcome] ?? "") : null),
      );
    }
    default:
      return h("section", { class: "centre" }, view.gameType);
  }
}

// ---- the score sheet ----

/** The score sheet of a game scored over several rounds, races or games: one row for each
 * one finished, then the totals. Read from the view, which keeps every finished one. */
export interface ScoreSheet {
  /** What a cell counts and how the totals win. */
  heading: string;
  /** One column per seat (and What's Your Name?'s virtual player). */
  columns: string[];
  rows: { label: string; cells: string[] }[];
  total: { label: string; cells: string[] };
}

/** The game's score sheet; none for a game played in one round (its result says it all) or
 * scored as a team (Trinity). */
export function scoreSheet(view: GameView): ScoreSheet | undefined {
  const g = view.game;
  const seats = Array.from({ length: view.seats }, (_, seat) => seatName(view, seat));
  const nums = (list: number[]): string[] => seats.map((_, seat) => String(list[seat] ?? 0));
  const total = tr("Total", "합계");
  switch (g.case) {
    case "vampireQueen": {
      const v = g.value;
      if (v.rounds <= 1) return undefined;
      return {
        heading: tr("penalty points per round: the cards left in hand; the lowest total wins", "라운드별 벌점: 손에 남은 카드, 합계가 가장 낮으면 승리"),
        columns: seats,
        rows: v.roundPenalties.map((r, i) => ({ label: tr(`Round ${i + 1}`, `${i + 1}라운드`), cells: nums(r.penalties) })),
        total: { label: total, cells: nums(v.totals) },
      };
    }
    case "pigMauMau": {
      const v = g.value;
      if (v.races <= 1) return undefined;
      return {
        heading: tr("points per race: a pig home, an emptied hand, the bets; the most points win", "경주별 점수: 결승에 든 돼지, 비운 손패, 베팅, 합계가 가장 높으면 승리"),
        columns: seats,
        rows: v.raceScores.map((r) => ({ label: tr(`Race ${r.race}`, `${r.race}번째 경주`), cells: nums(r.points) })),
        total: { label: total, cells: nums(v.totals) },
      };
    }
    case "oneCard": {
      const v = g.value;
      if (v.winsToMatch <= 1) return undefined;
      return {
        heading: tr(`games of the match: ★ the game's winner, else the cards left; ${v.winsToMatch} wins take the match`, `경기의 판: ★ 그 판의 승자, 나머지는 남은 카드, ${v.winsToMatch}승이면 경기 승리`),
        columns: seats,
        rows: v.history.map((r, i) => ({ label: tr(`Game ${i + 1}`, `${i + 1}번째 판`),
          cells: seats.map((_, seat) => (seat === r.winner ? "★" : String(r.cardsLeft[seat] ?? 0))) })),
        total: { label: tr("Games won", "이긴 판"), cells: nums(v.wins) },
      };
    }
    case "whatsYourName": {
      const v = g.value;
      if (v.games <= 1) return undefined;
      const players = v.players.slice().sort((a, b) => a.seat - b.seat);
      const played = Math.max(0, ...players.map((p) => p.recordedTotals.length));
      return {
        heading: tr("each game's total; the lowest sum wins", "판마다 기록된 합계, 합이 가장 낮으면 승리"),
        columns: players.map((p) => (p.virtual ? tr("virtual player", "가상 플레이어") : seatName(view, p.seat))),
        rows: Array.from({ length: played }, (_, i) => ({ label: tr(`Game ${i + 1}`, `${i + 1}번째 판`),
          cells: players.map((p) => String(p.recordedTotals[i] ?? "—")) })),
        total: { label: total, cells: players.map((p) => String(p.recordedTotals.reduce((a, b) => a + b, 0))) },
      };
    }
    default: return undefined;
  }
}
