// High Card (docs/games/high_card.md) at the table: the trick in play and the tricks won.

import type { GameView } from "../../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row, type Face } from "../dom.js";
import { cards, list, seatName, sortedBy, stat, type TableGame } from "../game.js";
import { t, tr } from "../i18n.js";

function face(c: number): Face {
  return { rank: String(c), tone: "t-plain", label: String(c) };
}

function state(view: GameView) {
  return view.game.case === "highCard" ? view.game.value : undefined;
}

const game: TableGame = {
  id: "high_card",
  en: "High Card",
  ko: "하이 카드",
  minSeats: 2,
  maxSeats: 4,
  options: [{ key: "handSize", en: "cards dealt (0 = 3)", ko: "나누는 카드 (0 = 3)", kind: "int", min: 0, max: 3 }],

  summary() {
    return tr("The most tricks win; ties share the win.", "트릭을 가장 많이 딴 자리가 이깁니다. 같으면 함께 이깁니다.");
  },

  hand(view) {
    return sortedBy(state(view)?.hand ?? [], (c) => c).map((c) => ({ key: `h${c}`, face: face(c) }));
  },

  moveKeys(move) {
    const g = move.game;
    return g.case === "highCard" && g.value.kind.case === "play" ? [`h${g.value.kind.value.card}`] : [];
  },

  moveLabel(_move, _view, cards) {
    return `${tr("Play", "내기")} ${cards}`;
  },

  seatDetails(view, seat) {
    const v = state(view);
    return v === undefined ? [] : [stat(t("cards"), v.handSizes[seat] ?? 0), stat(tr("tricks", "트릭"), v.points[seat] ?? 0)];
  },

  centre(view) {
    const v = state(view)!;
    return h("section", { class: "centre", "aria-label": tr("trick", "트릭") },
      row("stats", stat(tr("leader", "선"), seatName(view, v.leader))),
      h("div", { class: "trick", "data-testid": "trick" }, v.trick.length ? row("cards", v.trick.map((c) => card(face(c)))) : cards([])));
  },

  describe(kind, e, { A, line, s, n }) {
    switch (kind) {
      case "dealt": return line(s(`${A} is dealt ${e["count"]} cards`, `${A}: ${e["count"]}장을 받습니다`), (e["cards"] as unknown[]).length ? ": " : ".", (e["cards"] as unknown[]).map((c) => face(n(c))));
      case "played": return line(s(`${A} plays `, `${A}: 냅니다 `), face(n(e["card"])), ".");
      case "trickWon": return line(s(`${A} wins the trick with `, `${A}: 트릭을 이깁니다 `), face(n(e["card"])), ".");
      case "gameOver": return line(s("Game over; tricks: ", "게임 끝; 트릭: "), list((e["points"] as number[]).map(String)), ".");
      default: return null;
    }
  },
};

export default game;
