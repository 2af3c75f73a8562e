// The page's labels in English and Korean (a toggle in the header; the choice is kept in
// localStorage). Game content (display names, rule ids) is shown as the server sends it.

export type Lang = "en" | "ko";

const EN = {
  title: "Croupier table",
  lobby: "New game",
  game: "Game",
  seats: "Seats",
  options: "Options",
  bot: "bot",
  away: "away: the server's bot plays",
  bots: "Bots",
  botsNote: "The server plays the bot seats itself, as soon as they may act; they get no link.",
  botLevel: "Bots play",
  botStrong: "well (the strong bot)",
  botRandom: "at random",
  allBots: "At least one seat must be a person's: a game of bots only needs the server's operator key.",
  operatorOnly: "This server lets only its operator create games (it was started with --operator-key).",
  create: "Create game",
  links: "One link per seat",
  linksNote: "Each link holds that seat's secret in the part after #: give each player their own.",
  playHere: "Play here",
  copy: "Copy",
  you: "you",
  seat: "Seat",
  turn: "to act",
  hand: "Your hand",
  moves: "Your moves",
  noMoves: "Waiting for the other seats…",
  playSelected: "Play selected cards",
  clearSelection: "Clear",
  noMatch: "No legal move uses exactly these cards; the server will say why.",
  refused: "Refused",
  log: "What happened",
  result: "Result",
  winners: "Winners",
  score: "score",
  place: "place",
  newGame: "New game",
  moveCount: "moves",
  moveOne: "move",
  raced: "The table changed before your move arrived: here it is again.",
  created: "Game created",
  another: "Create another game",
  copied: "Copied",
  copyFailed: "Copy this link by hand (the browser refused the clipboard)",
  badCredential:
    "This link's seat credential is not accepted for this game. Ask for a fresh link (or check that the whole link was copied).",
  noGame: "This game does not exist on this server: it has expired or the link is wrong.",
  serverDown: "The Croupier server cannot be reached. Is it running? The page retries on reload.",
  badLink: "This link is incomplete: it needs the game, the seat and its credential after #.",
  reconnecting: "Connection lost; reconnecting…",
  moveSending: "Your move has not reached the server yet: it is sent again as soon as the server is back.",
  unexpected: "Something went wrong",
  cards: "cards",
  pile: "pile",
  drawPile: "draw pile",
  discard: "discard pile",
  stage: "stage",
  hidden: "hidden card",
  played: "played",
  acquired: "taken",
  total: "total",
  round: "round",
  race: "race",
  phase: "phase",
  faceDown: "face-down card",
  empty: "empty",
  lang: "한국어",
} as const;

export type Key = keyof typeof EN;

const KO: Record<Key, string> = {
  title: "크루피어 테이블",
  lobby: "새 게임",
  game: "게임",
  seats: "인원",
  options: "옵션",
  bot: "봇",
  away: "자리 비움: 서버의 봇이 둡니다",
  bots: "봇 자리",
  botsNote: "봇 자리는 서버가 직접, 둘 수 있게 되는 즉시 둡니다. 봇 자리에는 링크가 없습니다.",
  botLevel: "봇의 실력",
  botStrong: "잘 둠 (강한 봇)",
  botRandom: "무작위",
  allBots: "적어도 한 자리는 사람이어야 합니다. 봇만 있는 게임은 서버 운영자 키가 필요합니다.",
  operatorOnly: "이 서버에서는 운영자만 게임을 만들 수 있습니다 (--operator-key로 시작됨).",
  create: "게임 만들기",
  links: "자리마다 링크 하나",
  linksNote: "각 링크의 # 뒤에 그 자리의 비밀 값이 있습니다: 사람마다 자기 링크만 주세요.",
  playHere: "여기서 하기",
  copy: "복사",
  you: "나",
  seat: "자리",
  turn: "차례",
  hand: "내 손패",
  moves: "둘 수 있는 수",
  noMoves: "다른 자리를 기다리는 중…",
  playSelected: "고른 카드 내기",
  clearSelection: "지우기",
  noMatch: "이 카드들만 쓰는 수는 없습니다. 서버가 이유를 알려 줍니다.",
  refused: "거절됨",
  log: "진행",
  result: "결과",
  winners: "승자",
  score: "점수",
  place: "순위",
  newGame: "새 게임",
  moveCount: "수",
  moveOne: "수",
  raced: "내 수가 도착하기 전에 테이블이 바뀌었습니다. 다시 보여 줍니다.",
  created: "게임을 만들었습니다",
  another: "다른 게임 만들기",
  copied: "복사됨",
  copyFailed: "이 링크를 직접 복사하세요 (브라우저가 클립보드를 허용하지 않음)",
  badCredential:
    "이 링크의 자리 인증 값이 이 게임에서 받아들여지지 않습니다. 새 링크를 받거나 링크 전체를 복사했는지 확인하세요.",
  noGame: "이 서버에 이 게임이 없습니다: 만료되었거나 링크가 잘못되었습니다.",
  serverDown: "크루피어 서버에 연결할 수 없습니다. 서버가 실행 중인가요? 새로 고침하면 다시 시도합니다.",
  badLink: "링크가 불완전합니다: # 뒤에 게임, 자리, 인증 값이 있어야 합니다.",
  reconnecting: "연결이 끊겼습니다. 다시 연결하는 중…",
  moveSending: "내 수가 아직 서버에 닿지 않았습니다. 서버가 돌아오는 대로 다시 보냅니다.",
  unexpected: "문제가 생겼습니다",
  cards: "장",
  pile: "더미",
  drawPile: "뽑는 더미",
  discard: "버린 더미",
  stage: "무대",
  hidden: "숨긴 카드",
  played: "낸 카드",
  acquired: "가져간 카드",
  total: "합계",
  round: "라운드",
  race: "경주",
  phase: "단계",
  faceDown: "뒷면 카드",
  empty: "빈 칸",
  lang: "English",
};

let current: Lang = "en";

export function setLang(lang: Lang): void {
  current = lang;
}

export function lang(): Lang {
  return current;
}

export function t(key: Key): string {
  return current === "ko" ? KO[key] : EN[key];
}

/** English or Korean, for the few labels that live beside their data (games, options). */
export function tr(en: string, ko: string): string {
  return current === "ko" ? ko : en;
}
