// Croupier's reference table: a lobby to create a game of any of the five games, and the
// table of one seat, drawn from that seat's redacted view. It talks to the server only through
// the generated TypeScript client (../src/web.ts), over the Connect protocol, at the page's own
// origin (the web gateway serves this page). A seat's credential lives in the URL fragment
// (#game=…&seat=…&cred=…), which browsers never send to a server. See docs/browser.md.

import { Code } from "@connectrpc/connect";
import { connectWeb, CroupierError, gameOptions, type Croupier } from "../src/web.js";
import type { Event, GameSummary, GameView, Move } from "../src/gen/croupier/v1/game_service_pb.js";
import { card, h, row } from "./dom.js";
import { describe, type Part } from "./events.js";
import { centre, GAMES, gameInfo, hand, moveKeys, moveLabel, rawPlay, scoreSheet, seatDetails, seatName, usesAll, type OptionSpec } from "./games.js";
import { lang, setLang, t, tr, type Key, type Lang } from "./i18n.js";
import "./table.css";

const croupier: Croupier = connectWeb(location.origin, "connect", { retry: { maxAttempts: 2 } });
const app = document.getElementById("app")!;

// ---- language ----

function initLang(): void {
  const saved = localStorage.getItem("croupier.lang");
  setLang(saved === "ko" ? "ko" : saved === "en" ? "en" : navigator.language.startsWith("ko") ? "ko" : "en");
  document.documentElement.lang = lang();
}

function header(extra?: HTMLElement): HTMLElement {
  const toggle = h("button", { type: "button", id: "lang", class: "ghost", "data-key": "lang" }, t("lang"));
  toggle.addEventListener("click", () => {
    const next: Lang = lang() === "en" ? "ko" : "en";
    localStorage.setItem("croupier.lang", next);
    setLang(next);
    document.documentElement.lang = next;
    rerender();
  });
  // The pace at which other seats' moves are shown, kept in localStorage (the page only).
  const paceSelect = h("select", { id: "pace", "data-key": "pace", "aria-label": t("pace") },
    ([[0, t("paceInstant")], [400, t("paceFast")], [800, t("paceNormal")], [1600, t("paceSlow")]] as const).map(([ms, label]) =>
      h("option", { value: ms, selected: ms === pace }, label))) as HTMLSelectElement;
  paceSelect.addEventListener("change", () => {
    pace = Number(paceSelect.value);
    localStorage.setItem("croupier.pace", String(pace));
  });
  // A tone when it becomes your turn: off unless chosen (kept in localStorage).
  const sound = h("button", { type: "button", id: "sound", class: "ghost", "data-key": "sound", "aria-pressed": soundOn() ? "true" : "false", title: t("sound") },
    soundOn() ? t("soundOn") : t("soundOff"));
  sound.addEventListener("click", () => {
    localStorage.setItem("croupier.sound", soundOn() ? "off" : "on");
    sound.textContent = soundOn() ? t("soundOn") : t("soundOff");
    sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    if (soundOn()) beep();
  });
  return h("header", {}, h("a", { href: "#", class: "brand" }, "♠ ", t("title")), extra ?? null,
    extra ? h("label", { class: "pace" }, t("pace"), " ", paceSelect) : null, extra ? sound : null, toggle);
}

// ---- messages: every failure is shown on the page ----

function explain(error: unknown): string {
  const e = CroupierError.from(error);
  // By reason first: PERMISSION_DENIED is also a server that lets only its operator create
  // games, or a game of bots only (which needs that key too).
  if (e.reason === "OPERATOR_KEY_MISSING" || e.reason === "OPERATOR_KEY_REJECTED") return t("operatorOnly");
  if (e.reason === "ALL_SEATS_BOTS") return t("allBots");
  if (e.reason === "CREDENTIAL_REJECTED" || e.code === Code.PermissionDenied || e.code === Code.Unauthenticated) return t("badCredential");
  if (e.code === Code.NotFound || e.reason === "INVALID_NAME") return t("noGame");
  if (e.code === Code.Unavailable || e.code === Code.Unknown || e.code === Code.DeadlineExceeded) return t("serverDown");
  return `${t("unexpected")}: ${e.codeName} ${e.reason} ${e.rawMessage}`;
}

function fatal(message: string): void {
  app.replaceChildren(header(), h("main", {}, h("div", { class: "alert", role: "alert", "data-testid": "error" }, message),
    h("p", {}, h("a", { href: "#", class: "button" }, t("newGame")))));
}

window.addEventListener("error", (e) => fatal(`${t("unexpected")}: ${e.message}`));
window.addEventListener("unhandledrejection", (e) => fatal(explain(e.reason)));

// ---- the lobby ----

let lobbyGame = "vampire_queen";
let lobbyBotLevel = "strong";
let lobbyLinks: HTMLElement | null = null;
let lobbyOpen = false; // people's seats other than yours: open (joined) rather than links
let lobbyPublic = true;
let lobbyTables: GameSummary[] | null = null;
let lobbyTimer: ReturnType<typeof setInterval> | undefined;

/** The name this browser plays under (kept in localStorage), and a player id of its own: an
 * open table's creator keeps seat 0 by its id (open seats are those without one). */
function myName(): string {
  return (localStorage.getItem("croupier.name") ?? "").slice(0, 64);
}

function myPlayerId(): string {
  let id = localStorage.getItem("croupier.player");
  if (!id) { id = `p-${crypto.randomUUID()}`; localStorage.setItem("croupier.player", id); }
  return id;
}

// The lobby's list comes in pages of ListGames: the first when the lobby opens, one more for
// each click on "More tables", up to a cap (past it, tables are found by their join link).
const TABLES_PAGE = 50;
const TABLES_MAX_PAGES = 20;
let lobbyPages = 1;
let lobbyMore = false; // the server has tables past the pages read

/** The public tables with open seats (ListGames without the operator key: the lobby), page
 * after page up to `lobbyPages`, each with its clock read once from its public view (a summary
 * has none; a table's clock never changes). */
async function loadTables(): Promise<void> {
  try {
    const listed: GameSummary[] = [];
    const seen = new Set<string>();
    let token = "";
    for (let page = 0; page < lobbyPages; page++) {
      const answer = await croupier.listGames({ pageSize: TABLES_PAGE, pageToken: token });
      // Newest first: a table created meanwhile moves the rest down a place, so the next page
      // may repeat the last one of this page.
      for (const g of answer.games) if (!seen.has(g.name)) { seen.add(g.name); listed.push(g); }
      token = answer.nextPageToken;
      if (!token) break;
    }
    lobbyMore = token !== "";
    const unknown = listed.filter((g) => !tableClocks.has(g.name));
    const clocks = await Promise.all(unknown.map((g) => croupier.get(g.name).then((v) => [v.clockSeconds, Math.round(Number(v.timeBankMs[0] ?? 0n) / 1000)] as const, () => [0, 0] as const)));
    unknown.forEach((g, i) => { tableClocks.set(g.name, clocks[i]!); });
    lobbyTables = listed;
  } catch {
    lobbyTables = [];
  }
  if (session === null) drawTables();
}
const tableClocks = new Map<string, readonly [number, number]>();
const tablesBox = h("section", { class: "open-tables", "aria-label": "tables", "data-testid": "open-tables" });

function drawTables(): void {
  const list = lobbyTables;
  const refresh = h("button", { type: "button", class: "ghost", "data-key": "refresh" }, t("refresh"));
  refresh.addEventListener("click", () => void loadTables());
  const more = h("button", { type: "button", class: "ghost", "data-key": "more-tables", "data-testid": "more-tables" }, t("moreTables"));
  more.addEventListener("click", () => { more.setAttribute("disabled", ""); lobbyPages += 1; void loadTables(); });
  const past = !lobbyMore ? null : lobbyPages < TABLES_MAX_PAGES ? more : h("p", { class: "note" }, t("tablesCapped"));
  tablesBox.replaceChildren(h("h2", {}, t("openTables"), " ", refresh),
    list === null ? h("p", { class: "note" }, "…")
      : list.length === 0 ? h("p", { class: "note", "data-testid": "no-tables" }, t("noTables"))
      : h("ul", {}, list.map((g) => {
        const info = gameInfo(g.gameType);
        const taken = g.seats - g.openSeats.length;
        const names = g.displayNames.filter(Boolean).join(", ");
        const [secs, bank] = tableClocks.get(g.name) ?? [0, 0];
        const clock = secs ? `${t("clock")} ${secs} s${bank ? ` + ${bank} s` : ""}` : t("noClock");
        const join = h("button", { type: "button", class: "primary", "data-testid": "join", "data-game": g.name }, t("join"));
        join.addEventListener("click", () => void joinTable(g.name, "", join));
        return h("li", { "data-testid": "open-table", "data-game": g.name },
          h("b", {}, tr(info.en, info.ko)), ` · ${taken}/${g.seats} ${t("seatsTaken")}`, names ? ` · ${names}` : "", ` · ${clock} `, join);
      })), ...(list?.length && past ? [past] : []));
}

/** Take a seat: JoinGame (a public table without its code, a private one with it), then the
 * seat's own link, which the page keeps in its address. */
async function joinTable(name: string, code: string, button: HTMLElement): Promise<void> {
  button.setAttribute("disabled", "");
  try {
    const joined = await croupier.join(name, code, { displayName: myName(), requestId: crypto.randomUUID() });
    location.hash = fragment({ game: name, seat: String(joined.seat), cred: joined.seatCredential });
  } catch (error) {
    button.removeAttribute("disabled");
    const status = document.getElementById("lobby-status");
    status?.replaceChildren(h("div", { class: "alert", role: "alert", "data-testid": "error" }, explain(error)));
  }
}

function optionInput(spec: OptionSpec, gameType: string): HTMLElement {
  const id = `opt-${spec.key.replace(".", "-")}`;
  const label = tr(spec.en, spec.ko);
  if (spec.kind === "bool") return h("label", { class: "check" }, h("input", { type: "checkbox", id, "data-key": id }), " ", label);
  if (spec.kind === "rows") {
    return h("label", {}, label, " ", h("select", { id, "data-key": id },
      h("option", { value: "" }, tr("default (J, Q, K)", "기본 (J, Q, K)")), h("option", { value: "1,2,3" }, "J, Q, K"),
      h("option", { value: "3,1,2" }, "K, J, Q"), h("option", { value: "2,3,1" }, "Q, K, J")));
  }
  const attrs = { id, "data-key": id, inputmode: "numeric", min: spec.min, max: spec.max };
  if (spec.kind === "seatlist") return h("label", {}, label, " ", h("input", { type: "text", ...attrs, pattern: "[0-9, ]*", "data-game": gameType }));
  return h("label", {}, label, " ", h("input", { type: "number", ...attrs, placeholder: spec.kind === "optint" ? "—" : "0" }));
}

function readOptions(gameType: string): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const spec of gameInfo(gameType).options) {
    const input = document.getElementById(`opt-${spec.key.replace(".", "-")}`) as HTMLInputElement | HTMLSelectElement | null;
    if (input === null) continue;
    let value: unknown;
    if (spec.kind === "bool") value = (input as HTMLInputElement).checked || undefined;
    else if (spec.kind === "seatlist" || spec.kind === "rows") {
      const list = input.value.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
      value = list.length ? list : undefined;
    } else if (input.value !== "") value = Number(input.value);
    if (value === undefined) continue;
    const [head, tail] = spec.key.split(".") as [string, string | undefined];
    if (tail === undefined) init[head] = value;
    else init[head] = { ...(init[head] as Record<string, unknown> | undefined), [tail]: value };
  }
  return init;
}

function lobby(): void {
  const info = gameInfo(lobbyGame);
  const select = h("select", { id: "game", "data-key": "game" }, GAMES.map((g) =>
    h("option", { value: g.id, selected: g.id === lobbyGame }, `${tr(g.en, g.ko)} — ${g.ko === tr(g.en, g.ko) ? g.en : g.ko}`)));
  select.addEventListener("change", () => { lobbyGame = (select as HTMLSelectElement).value; lobbyLinks = null; lobby(); });
  const seats = h("input", { type: "number", id: "seats", "data-key": "seats", min: info.minSeats, max: info.maxSeats, value: info.minSeats }) as HTMLInputElement;
  const botBox = h("div", { class: "bots", id: "bots" });
  const drawBots = (): void => {
    const n = Math.min(Math.max(Number(seats.value) || info.minSeats, info.minSeats), info.maxSeats);
    botBox.replaceChildren(...Array.from({ length: n }, (_, i) => h("label", { class: "check" },
      h("input", { type: "checkbox", class: "bot-seat", "data-seat": i, "data-key": `bot-${i}`, checked: i > 0 }), ` ${t("seat")} ${i}: ${t("bot")}`)));
  };
  // The server plays the bot seats itself (CreateGame's bot_levels, docs/bots.md).
  const level = h("select", { id: "bot-level", "data-key": "bot-level" },
    h("option", { value: "strong", selected: lobbyBotLevel === "strong" }, t("botStrong")),
    h("option", { value: "random", selected: lobbyBotLevel === "random" }, t("botRandom"))) as HTMLSelectElement;
  level.addEventListener("change", () => { lobbyBotLevel = level.value; });
  seats.addEventListener("input", drawBots);
  drawBots();
  // One click, one game: once created the button stays disabled (a second click would make a
  // second game and silently replace the links); "Create another game" starts afresh.
  const create = h("button", { type: "button", id: "create", class: "primary", "data-key": "create", disabled: lobbyLinks !== null },
    lobbyLinks !== null ? t("created") : t("create"));
  const another = lobbyLinks !== null ? h("button", { type: "button", id: "another", class: "ghost", "data-key": "another" }, t("another")) : null;
  another?.addEventListener("click", () => { lobbyLinks = null; lobby(); });
  const status = h("div", { id: "lobby-status", role: "status" });
  create.addEventListener("click", () => void (async () => {
    if (create.hasAttribute("disabled")) return;
    const n = Number(seats.value);
    const bots = [...botBox.querySelectorAll<HTMLInputElement>(".bot-seat")].filter((b) => b.checked).map((b) => Number(b.dataset["seat"]));
    if (bots.length >= n) { // a game of bots only needs the operator key: say so before asking
      status.replaceChildren(h("div", { class: "alert", role: "alert", "data-testid": "error" }, t("allBots")));
      return;
    }
    create.setAttribute("disabled", "");
    try {
      const botLevels = Array.from({ length: n }, (_, i) => (bots.includes(i) ? level.value : ""));
      const secs = Number(clockSecs.value) || 0;
      const clock = secs > 0 ? { secondsPerDecision: secs, timeBankSeconds: Number(clockBank.value) || 0 } : undefined;
      const displayNames = myName() ? [myName(), ...Array.from({ length: n - 1 }, () => "")] : [];
      // Open seats: seat 0 is yours (kept by your player id), the other people's seats are
      // claimed with JoinGame: from the lobby's list when public, else with the join link.
      const open = lobbyOpen ? { openSeats: true, public: lobbyPublic, playerIds: [myPlayerId(), ...Array.from({ length: n - 1 }, () => "")] } : {};
      const game = await croupier.create(gameOptions(lobbyGame, readOptions(lobbyGame)), n,
        { requestId: crypto.randomUUID(), botLevels, displayNames, ...open, ...(clock ? { clock } : {}) });
      if (lobbyOpen) {
        location.hash = fragment({ game: game.name, seat: "0", cred: game.seatCredentials[0] ?? "", code: game.joinCode });
        return;
      }
      lobbyLinks = links(game.name, game.seatCredentials);
      lobby();
    } catch (error) {
      status.replaceChildren(h("div", { class: "alert", role: "alert", "data-testid": "error" }, explain(error)));
      create.removeAttribute("disabled");
    }
  })());
  const nameInput = h("input", { type: "text", id: "name", "data-key": "name", maxlength: 64, value: myName(), autocomplete: "nickname" }) as HTMLInputElement;
  nameInput.addEventListener("input", () => localStorage.setItem("croupier.name", nameInput.value.trim().slice(0, 64)));
  const clockSecs = h("input", { type: "number", id: "clock", "data-key": "clock", min: 0, max: 86400, placeholder: "—" }) as HTMLInputElement;
  const clockBank = h("input", { type: "number", id: "bank", "data-key": "bank", min: 0, max: 86400, placeholder: "0" }) as HTMLInputElement;
  const openBox = h("input", { type: "checkbox", id: "open-seats", "data-key": "open-seats", checked: lobbyOpen }) as HTMLInputElement;
  const publicBox = h("input", { type: "checkbox", id: "public", "data-key": "public", checked: lobbyPublic, disabled: !lobbyOpen }) as HTMLInputElement;
  openBox.addEventListener("change", () => { lobbyOpen = openBox.checked; publicBox.disabled = !lobbyOpen; });
  publicBox.addEventListener("change", () => { lobbyPublic = publicBox.checked; });
  const code = h("input", { type: "text", id: "join-code", "data-key": "join-code", placeholder: t("joinPlaceholder") }) as HTMLInputElement;
  const joinByCode = h("button", { type: "button", id: "join-by-code", "data-key": "join-by-code" }, t("join"));
  joinByCode.addEventListener("click", () => {
    // A join link (…#join=games/…&code=jc_…) or "games/… jc_…".
    const text = code.value.trim();
    const params = new URLSearchParams(text.includes("#") ? text.split("#")[1] : "");
    const [name, joinCode] = params.get("join") ? [params.get("join")!, params.get("code") ?? ""] : text.split(/\s+/);
    if (name && joinCode) void joinTable(name, joinCode, joinByCode);
  });
  if (lobbyTables === null) void loadTables();
  drawTables();
  if (lobbyTimer === undefined) lobbyTimer = setInterval(() => { if (session === null) void loadTables(); }, 5000);
  app.replaceChildren(header(), h("main", { class: "lobby" },
    h("label", { class: "name" }, t("yourName"), " ", nameInput),
    tablesBox,
    h("section", { class: "join-code" }, h("h2", {}, t("joinByCode")), row("create-row", code, joinByCode)),
    h("h1", {}, t("lobby")),
    h("div", { class: "form" },
      h("label", {}, t("game"), " ", select),
      h("label", {}, `${t("seats")} (${info.minSeats}–${info.maxSeats})`, " ", seats),
      h("fieldset", {}, h("legend", {}, t("options")), info.options.map((o) => optionInput(o, info.id))),
      h("fieldset", {}, h("legend", {}, t("bots")), botBox, h("label", {}, t("botLevel"), " ", level), h("p", { class: "note" }, t("botsNote"))),
      h("fieldset", {}, h("legend", {}, t("people")),
        h("label", { class: "check" }, openBox, " ", t("openSeats")), h("label", { class: "check" }, publicBox, " ", t("public")),
        h("p", { class: "note" }, t("openNote"))),
      h("fieldset", {}, h("legend", {}, t("clock")),
        h("label", {}, t("clockSecs"), " ", clockSecs), h("label", {}, t("clockBank"), " ", clockBank)),
      row("create-row", create, another), status),
    lobbyLinks));
}

function fragment(params: Record<string, string>): string {
  return `#${new URLSearchParams(params).toString()}`;
}

function links(name: string, credentials: string[]): HTMLElement {
  // A bot seat has no credential (the server plays it): one link per human seat.
  const humans = credentials.map((_, i) => i).filter((i) => credentials[i]);
  const items = humans.map((seat) => {
    const href = `${location.origin}${location.pathname}${fragment({ game: name, seat: String(seat), cred: credentials[seat] ?? "" })}`;
    const copy = h("button", { type: "button", class: "ghost", "data-key": `copy-${seat}` }, t("copy"));
    const said = h("span", { class: "copied", role: "status", "data-testid": `copied-${seat}` });
    copy.addEventListener("click", () => {
      const done = (ok: boolean): void => {
        said.textContent = ok ? `✓ ${t("copied")}` : t("copyFailed");
        copy.textContent = ok ? t("copied") : t("copy");
      };
      if (navigator.clipboard === undefined) { done(false); return; }
      navigator.clipboard.writeText(href).then(() => done(true), () => done(false));
    });
    return h("li", {}, h("a", { href, "data-seat": seat, "data-testid": `link-${seat}` }, `${t("seat")} ${seat} — ${t("playHere")}`), " ", copy, " ", said);
  });
  return h("section", { class: "links" }, h("h2", {}, t("links")), h("p", { class: "note" }, t("linksNote")), h("ul", {}, items));
}

// ---- the table ----

// `code`: the join code, kept in the creator's own link while seats are open, to invite.
interface Session { name: string; seat: number; cred: string; code?: string }

let session: Session | null = null;
let view: GameView | undefined;
// The seat's legal moves: those of the view shown, which lists them (none while the seat may
// not act, none once the game is over), so they are never an older view's.
let moves: Move[] = [];
let selected: number[] = []; // indexes into the hand
let refusal: string | null = null;
let notice: string | null = null;
// The log: every event the seat saw, newest first, described when drawn (so in the language
// of the moment); `fresh` for those of the last shown update, when another seat moved.
let log: { event: Event; fresh: boolean }[] = [];
let movedSeat: number | undefined;
let loggedMoves = 0n;
// The updates not shown yet, in the game's order: the watch's, and this seat's own move from
// ApplyMove's answer. Other seats' moves are shown one at a time, `pace` milliseconds apart
// (the server's bots answer at once), in the page only: the server is never slowed. The view
// and the log advance together, a move's events logged when its view is shown; only the
// history replayed on arrival (views older than the one shown) goes to the log at once.
let pending: { view: GameView; events: Event[] }[] = [];
let pacing: ReturnType<typeof setTimeout> | undefined;
let pace = Number(localStorage.getItem("croupier.pace") ?? "800") || 0;
// The last play of another seat, kept on the table until the next one.
let lastPlay: Event[] = [];
let busy = false;
// A move sent whose answer has not come (the server stopped, the network went away): it is
// sent again with the same request id until the server answers, so it is applied once.
let sending = false;
let watching: AbortController | null = null;

function parseFragment(): Session | null | "bad" {
  const params = new URLSearchParams(location.hash.slice(1));
  if (![...params.keys()].length) return null;
  const name = params.get("game");
  const seat = Number(params.get("seat"));
  const cred = params.get("cred");
  if (!name || !cred || !Number.isInteger(seat) || seat < 0) return "bad";
  return { name, seat, cred, code: params.get("code") ?? undefined };
}

async function openTable(s: Session): Promise<void> {
  watching?.abort();
  session = s; view = undefined; moves = []; selected = []; refusal = null; notice = null; log = []; loggedMoves = 0n;
  wasMyTurn = false; resultShown = false;
  pending = []; lastPlay = []; movedSeat = undefined;
  if (pacing !== undefined) clearTimeout(pacing);
  pacing = undefined;
  busy = false; sending = false; // a move still being sent for another table stops (play)
  app.replaceChildren(header(), h("main", { class: "loading", "aria-busy": "true" }, "…"));
  try {
    view = await croupier.get(s.name, s.cred);
  } catch (error) {
    fatal(explain(error));
    return;
  }
  moves = view.legalMoves;
  if (view.result !== undefined) void awaitRematch(s);
  render();
  // The log from the game's history: the watch resumed from the game's first etag replays
  // every move since (up to the server's 4096) exactly as the live stream sent them to this
  // seat, with its own redaction, then goes on live; a finished game's ends after the replay.
  void watch(s, "1");
}

async function watch(s: Session, since: string): Promise<void> {
  const control = new AbortController();
  watching = control;
  let sinceEtag = since;
  let ended = false; // the stream brought the result: it ends there
  while (!control.signal.aborted && session === s && !ended) {
    try {
      for await (const update of croupier.watch(s.name, s.cred, { signal: control.signal, sinceEtag })) {
        if (update.view === undefined) continue;
        sinceEtag = update.view.etag;
        ended ||= update.view.result !== undefined;
        if (notice !== null) { notice = null; render(); }
        receive(update.view, update.events);
      }
      ended ||= view?.result !== undefined;
    } catch (error) {
      if (control.signal.aborted) return;
      const e = CroupierError.from(error);
      if (e.code === Code.NotFound || e.code === Code.PermissionDenied) { fatal(explain(e)); return; }
      // RESUME_OUT_OF_RANGE: more moves were missed than the server replays (or the history
      // asked for on arrival is longer); resuming from the same etag would be refused forever,
      // so start again from the current view.
      if (e.code === Code.OutOfRange) { sinceEtag = ""; if (view?.result !== undefined) return; continue; }
      notice = t("reconnecting");
      render();
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** The seat an event is about (who moved), if any. */
function eventSeat(e: Event): number | undefined {
  const value = (e.game.value as { kind?: { value?: Record<string, unknown> } } | undefined)?.kind?.value;
  const seat = value?.["seat"] ?? value?.["giver"] ?? value?.["catcher"];
  return typeof seat === "number" ? seat : undefined;
}

/** An update of the watch: shown now, or after the other seats' moves before it, at the pace. */
function receive(next: GameView, events: Event[]): void {
  pending.push({ view: next, events });
  if (pacing === undefined) pump();
  else render(); // the moves shown are now an older view's: drawn unplayable until it comes
}

/** This seat's own move, from ApplyMove's answer, which usually comes before the watch's copy
 * of it (then the copy is passed over when it comes; when the copy came first, the answer is).
 * The seat moved from the view shown, so its move is the next to show, and is shown at once:
 * the pause after another seat's move ends (the player has seen that move), and the move's view
 * and events are shown together. */
function ownMove(next: GameView, events: Event[]): void {
  if (view !== undefined && next.moveCount <= view.moveCount) { render(); return; }
  if (!pending.some((p) => p.view.moveCount >= next.moveCount)) pending.push({ view: next, events });
  if (pacing !== undefined) clearTimeout(pacing);
  pump();
}

function pump(): void {
  pacing = undefined;
  while (pending.length) {
    const item = pending.shift()!;
    const advances = view !== undefined && item.view.moveCount > view.moveCount;
    onView(item.view, item.events);
    const others = item.events.some((e) => { const seat = eventSeat(e); return seat !== undefined && seat !== session?.seat; });
    if (advances && others && pace > 0) { // the next update waits, even one not come yet
      pacing = setTimeout(() => { pacing = undefined; if (pending.length) pump(); }, pace);
      break;
    }
  }
  render();
}

function onView(next: GameView, events: Event[]): void {
  // A move's events are logged once (the watch sends one message per move, in order; this
  // seat's own move comes from ApplyMove's answer too, and whichever comes first is logged).
  if (events.length && next.moveCount > loggedMoves) {
    loggedMoves = next.moveCount;
    for (const entry of log) entry.fresh = false;
    const past = view !== undefined && next.moveCount <= view.moveCount; // the history
    log = [...events.slice().reverse().map((event) => ({ event, fresh: !past && eventSeat(event) !== session?.seat })), ...log];
    const theirs = events.filter((e) => { const seat = eventSeat(e); return seat !== undefined && seat !== session?.seat; });
    if (theirs.length) lastPlay = theirs;
    movedSeat = past ? undefined : theirs.map(eventSeat).find((seat) => seat !== undefined);
  }
  // An older view (the history replayed on arrival): logged, nothing new to show.
  if (view !== undefined && next.moveCount < view.moveCount) return;
  const changed = view === undefined || next.etag !== view.etag;
  if (next.result !== undefined && view?.result === undefined && session !== null) void awaitRematch(session);
  view = next;
  if (changed) {
    selected = [];
    moves = next.legalMoves;
  }
}

// Whether a call ended without the service's answer: the server stopped or is unreachable
// (the browser's fetch fails, which Connect reports as UNKNOWN), it asked to be called again
// (UNAVAILABLE), or the answer did not come in time. A move so ended may have been applied.
function unanswered(e: CroupierError): boolean {
  return e.code === Code.Unavailable || e.code === Code.Unknown || e.code === Code.DeadlineExceeded;
}

async function play(move: Move | Move["game"]): Promise<void> {
  if (session === null || busy || view === undefined) return;
  const s = session;
  const etag = view.etag; // the view whose moves were shown
  // One id for every sending: one that was applied before its answer was lost is answered
  // the second time with its first response, never applied twice (ApplyMove's request ids).
  const requestId = crypto.randomUUID();
  busy = true;
  refusal = null;
  const init = (move as Move).$typeName === "croupier.v1.Move" ? (move as Move) : { game: move as Move["game"] };
  for (;;) {
    try {
      const response = await croupier.apply(s.name, s.cred, init, { etag, requestId });
      if (session !== s) return;
      busy = false;
      sending = false;
      if (response.view) ownMove(response.view, response.events);
      else render();
      return;
    } catch (error) {
      if (session !== s) return;
      const e = CroupierError.from(error);
      if (unanswered(e)) {
        // Sent again until the server answers, rather than refused: the player chose it for
        // this view, and a view that changed meanwhile makes its etag refuse it then.
        sending = true;
        render();
        await new Promise((r) => setTimeout(r, 1000));
        if (session !== s) return;
        continue;
      }
      busy = false;
      sending = false;
      // The view stays the one shown: a newer one (a move that raced this one) comes through
      // the watch with its events, at the pace, so the view never runs ahead of the log.
      refusal = refusalText(e);
      selected = [];
      render();
      return;
    }
  }
}

/** "1 move", "2 moves" (수 in Korean, which has no plural). */
function moveCountText(n: bigint): string {
  return lang() === "ko" ? `${n}${t("moveCount")}` : `${n} ${n === 1n ? t("moveOne") : t("moveCount")}`;
}

/** A refusal in the page's language, made from what the server's answer carries for
 * programs, its reason and rule id: the server's message is English, and begins with the rule
 * id itself, so it is shown (without that id) only in English. */
function refusalText(e: CroupierError): string {
  if (e.reason === "ETAG_MISMATCH") return t("raced");
  const rule = e.ruleId ? ` [${e.ruleId}]` : "";
  if (lang() === "ko") {
    const why = e.ruleId ? `이 수는 게임 규칙 ${e.ruleId}에 맞지 않습니다.` : "서버가 이 수를 받아들이지 않았습니다.";
    return `${t("refused")}: ${e.reason}${rule} — ${why}`;
  }
  const message = e.ruleId && e.rawMessage.startsWith(`${e.ruleId}:`) ? e.rawMessage.slice(e.ruleId.length + 1).trim() : e.rawMessage;
  return `${t("refused")}: ${e.reason}${rule} — ${message}`;
}

const LOG_LINES = 400;

/** While seats are open: which, and for the creator the join link to hand out. */
function waitingBanner(v: GameView, s: Session): HTMLElement | null {
  if (v.openSeats.length === 0 || v.result !== undefined) return null;
  const invite = s.code ? `${location.origin}${location.pathname}${fragment({ join: s.name, code: s.code })}` : "";
  const copy = h("button", { type: "button", class: "ghost", "data-key": "copy-invite" }, t("copy"));
  copy.addEventListener("click", () => {
    void navigator.clipboard?.writeText(invite).then(() => { copy.textContent = t("copied"); }, () => { copy.textContent = t("copyFailed"); });
  });
  return h("div", { class: "alert soft", role: "status", "data-testid": "waiting" },
    `${t("waiting")} ${v.openSeats.map((seat) => seatName(v, seat)).join(", ")}.`,
    invite ? h("div", {}, `${t("invite")}: `, h("a", { href: invite, "data-testid": "invite" }, invite), " ", copy) : null);
}

/** A sentence's words as text, its cards drawn as small cards. */
function sentence(parts: Part[]): (string | HTMLElement)[] {
  return parts.map((p) => (typeof p === "string" ? p : card(p ?? undefined, { class: `card mini ${p?.tone ?? "back"}` })));
}

/** The result: who won, and why, written by the page from the result's fields and the game's
 * module, in either language (the server's summary is English). */
function resultSection(v: GameView, me: number): HTMLElement {
  const r = v.result!;
  const won = (seat: number): boolean => r.winners.includes(seat);
  const names = (seats: number[]): string => seats.map((seat) => seatName(v, seat)).join(", ");
  const game = gameInfo(v.gameType);
  // A cooperative game (Trinity): every seat wins or loses together; no places.
  const team = game.team === true;
  const headline = team ? (r.winners.length ? tr("The team won!", "팀 승리!") : tr("The team lost.", "팀 패배."))
    : won(me) ? tr("You won!", "이겼습니다!") : r.winners.length ? tr(`You lost. Won: ${names(r.winners)}.`, `졌습니다. 승리: ${names(r.winners)}.`)
    : tr("Nobody won.", "아무도 이기지 못했습니다.");
  const summary = game.summary(v);
  const rows = [...r.seats].sort((a, b) => a.placement - b.placement || a.seat - b.seat).map((s) =>
    h("tr", { class: won(s.seat) ? "winner" : "", "data-testid": `result-${s.seat}` },
      h("td", {}, seatName(v, s.seat), s.seat === me ? ` (${t("you")})` : ""),
      h("td", {}, won(s.seat) ? `★ ${t("won")}` : t("lost")),
      team ? null : h("td", {}, String(s.score)),
      team ? null : h("td", {}, String(s.placement))));
  const again = h("button", { type: "button", class: "primary", id: "rematch", "data-key": "rematch" }, t("rematch"));
  again.addEventListener("click", () => void rematch(again));
  return h("section", { class: "result", "data-testid": "result", role: "status" }, h("h2", {}, t("result")),
    h("p", { class: "headline", "data-testid": "headline" }, headline), h("p", {}, summary),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, t("seat")), h("th", {}, t("outcome")), team ? null : h("th", {}, t("score")), team ? null : h("th", {}, t("place")))),
      h("tbody", {}, rows)),
    row("create-row", again, h("a", { href: "#", class: "button" }, t("newGame"))));
}

/** The score sheet of a game scored over rounds, races or games: a row for each one finished
 * (so a total that jumps shows where from), the totals last, the winners' marked at the end. */
function scoreSheetSection(v: GameView): HTMLElement | null {
  const sheet = scoreSheet(v);
  if (sheet === undefined) return null;
  const winners = v.result?.winners ?? [];
  return h("section", { class: "score-sheet", "aria-label": t("scoreSheet"), "data-testid": "score-sheet" },
    h("h2", {}, t("scoreSheet"), " ", h("small", {}, `(${sheet.heading})`)),
    h("div", { class: "sheet" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, ""), sheet.columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, sheet.rows.length
        ? sheet.rows.map((r) => h("tr", { "data-testid": "sheet-row" }, h("th", { scope: "row" }, r.label), r.cells.map((c) => h("td", {}, c))))
        : h("tr", {}, h("td", { colspan: sheet.columns.length + 1, class: "none" }, t("noneScored")))),
      h("tfoot", {}, h("tr", { "data-testid": "sheet-total" }, h("th", { scope: "row" }, sheet.total.label),
        sheet.total.cells.map((c, i) => h("td", { class: winners.includes(i) ? "winner" : undefined }, c)))))));
}

/** Every seat to the rematch: CreateGame with rematch_of is made once (later calls name the
 * same game), and each seat keeps its credential, so the link only changes its game. */
async function rematch(button: HTMLElement): Promise<void> {
  if (session === null) return;
  const s = session;
  button.setAttribute("disabled", "");
  try {
    const again = await croupier.rematch(s.name, s.cred);
    if (session === s) goToRematch(again.name);
  } catch (error) {
    refusal = explain(error);
    button.removeAttribute("disabled");
    render();
  }
}

function goToRematch(name: string): void {
  if (session === null) return;
  location.hash = fragment({ game: name, seat: String(session.seat), cred: session.cred });
}

/** After the end: the other seats' pages learn of a rematch from the finished game's view
 * (its `rematch`), read every two seconds, and go to it too. */
async function awaitRematch(s: Session): Promise<void> {
  while (session === s) {
    try {
      const now = await croupier.get(s.name, s.cred);
      if (session !== s) return;
      if (now.rematch) { goToRematch(now.rematch); return; }
    } catch { /* the game expired, or the server is away: try again */ }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

function rerender(): void {
  if (session !== null && view !== undefined) render();
  else if (session === null) lobby();
}

function render(): void {
  if (session === null || view === undefined) return;
  const v = view;
  const me = session.seat;
  const focused = (document.activeElement as HTMLElement | null)?.dataset["key"];
  const info = gameInfo(v.gameType);
  const title = h("span", { class: "game-title" }, h("b", {}, tr(info.en, info.ko)), " ", h("small", {}, lang() === "ko" ? info.en : info.ko),
    " · ", moveCountText(v.moveCount));

  const seats = h("section", { class: "seats", "aria-label": t("seats") }, Array.from({ length: v.seats }, (_, seat) => {
    const active = v.result === undefined && v.activeSeats.includes(seat); // none to act after the end
    return h("div", { class: `seat${seat === me ? " me" : ""}${active ? " active" : ""}${seat === movedSeat ? " moved" : ""}`, "data-testid": `seat-${seat}` },
      h("div", { class: "seat-name" }, seatName(v, seat), seat === me ? ` (${t("you")})` : "", v.botLevels[seat] ? ` · ${t("bot")}` : "",
        active ? h("span", { class: "badge turn" }, t("turn")) : null,
        // A seat that walked away (the clock's abandon_after): the server plays it until it moves.
        v.away[seat] ? h("span", { class: "badge away", "data-testid": `away-${seat}` }, t("away")) : null),
      seatDetails(v, seat));
  }));

  const myHand = hand(v);
  const selectedKeys = selected.map((i) => myHand[i]?.key ?? "");
  const handEl = h("section", { class: "hand", "aria-label": t("hand"), "data-testid": "hand" }, h("h2", {}, t("hand"), ` (${myHand.length})`),
    row("cards", myHand.length === 0 ? h("span", { class: "none" }, "—") : myHand.map((c, i) => {
      const usable = moves.some((m) => moveKeys(m, v).includes(c.key));
      const el = card(c.face, { class: `card ${c.face.tone}${usable ? " usable" : ""}${selected.includes(i) ? " selected" : ""}`, "aria-pressed": selected.includes(i) ? "true" : "false", "data-key": `hand-${i}`, "data-card": c.key }, true);
      el.addEventListener("click", () => {
        selected = selected.includes(i) ? selected.filter((x) => x !== i) : [...selected, i];
        refusal = null;
        render();
      });
      return el;
    })));

  const sameCards = (m: Move): boolean => {
    const keys = moveKeys(m, v).slice().sort();
    const want = selectedKeys.slice().sort();
    return keys.length === want.length && keys.every((k, i) => k === want[i]);
  };
  // Two equal cards selected keep only the moves that use both (a multiset, not a set).
  const shown = selected.length ? moves.filter((m) => usesAll(m, v, selectedKeys)) : moves;
  const moveButtons = shown.map((m) => {
    const index = moves.indexOf(m);
    // While newer updates wait to be shown (the pace), these moves are an older view's.
    const stale = pending.length > 0;
    const b = h("button", { type: "button", class: "move", "data-key": `move-${index}`, "data-testid": "move", disabled: busy, "aria-disabled": stale ? "true" : undefined }, moveLabel(m, v));
    b.addEventListener("click", () => { if (pending.length === 0) void play(m); });
    return b;
  });
  const selectionBar: HTMLElement[] = [];
  if (selected.length) {
    const match = moves.find(sameCards);
    const raw = match === undefined ? rawPlay(v, selectedKeys) : undefined;
    const playSel = h("button", { type: "button", class: "primary", id: "play-selected", "data-key": "play-selected", disabled: match === undefined && raw === undefined }, t("playSelected"));
    playSel.addEventListener("click", () => void play(match ?? raw!));
    const clear = h("button", { type: "button", class: "ghost", "data-key": "clear" }, t("clearSelection"));
    clear.addEventListener("click", () => { selected = []; render(); });
    selectionBar.push(row("selection", playSel, clear, match === undefined ? h("small", {}, t("noMatch")) : null));
  }
  // A sticky action bar: the moves stay at the bottom of the screen while the table scrolls.
  const movesEl = h("section", { class: `moves${moves.length ? " mine" : ""}`, "aria-label": t("moves"), "data-testid": "moves" }, h("h2", {}, t("moves")),
    refusal ? h("div", { class: "alert", role: "alert", "data-testid": "refusal" }, refusal) : null,
    sending ? h("div", { class: "alert soft", role: "status", "data-testid": "sending" }, t("moveSending")) : null,
    selectionBar,
    moves.length ? row("move-list", moveButtons) : h("p", { class: "note" }, v.result ? "" : t("noMoves")));

  const result = v.result ? resultSection(v, me) : null;

  // The log: the newest first, at most LOG_LINES of them drawn.
  const logEl = h("section", { class: "log", "aria-label": t("log") }, h("h2", {}, t("log")),
    h("ol", { "aria-live": "polite", "data-testid": "log" }, log.slice(0, LOG_LINES).map((l) => {
      const line = describe(l.event, v);
      return line ? h("li", { class: l.fresh ? "fresh" : "", "data-kind": line.kind, "data-seat": line.seat }, sentence(line.parts)) : null;
    })));
  const last = lastPlay.map((e) => describe(e, v)).filter((l) => l !== null);
  const lastEl = last.length && !v.result ? h("section", { class: "last-play", "data-testid": "last-play", "aria-label": t("lastPlay") },
    h("span", { class: "lbl" }, t("lastPlay")), last.map((l) => h("div", {}, sentence(l.parts)))) : null;

  app.replaceChildren(header(title), h("main", { class: `table g-${v.gameType}`, "data-etag": v.etag, "data-seat": me },
    notice ? h("div", { class: "alert soft", role: "status", "data-testid": "notice" }, notice) : null,
    waitingBanner(v, session),
    result, seats, centre(v), lastEl, handEl, v.result ? null : movesEl, scoreSheetSection(v), logEl)); // at the end: no moves to list
  if (focused) {
    const again = app.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`) ?? app.querySelector<HTMLElement>("[data-key^=move-]");
    again?.focus({ preventScroll: true });
  }
  // Your turn: the tab's title says so (seen from another tab), and a short tone if chosen.
  const myTurn = moves.length > 0 && v.result === undefined;
  document.title = `${myTurn ? `● ${t("yourTurn")} · ` : ""}${tr(info.en, info.ko)} · ${t("title")}`;
  if (myTurn && !wasMyTurn && soundOn()) beep();
  wasMyTurn = myTurn;
  // The result, once: scrolled into view (on a phone the screen was at the moves, below).
  if (v.result !== undefined && !resultShown) {
    resultShown = true;
    app.querySelector("[data-testid=result]")?.scrollIntoView({ block: "start" });
  }
}

let wasMyTurn = false;
let resultShown = false;

function soundOn(): boolean {
  return localStorage.getItem("croupier.sound") === "on";
}

let audio: AudioContext | undefined;
function beep(): void {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch { /* no audio here: the title says it */ }
}

// ---- start ----

function route(): void {
  // A join link: claim a seat, then the seat's own link replaces it.
  const params = new URLSearchParams(location.hash.slice(1));
  const joining = params.get("join");
  if (joining) {
    watching?.abort(); session = null; lobby();
    void joinTable(joining, params.get("code") ?? "", document.getElementById("join-by-code") ?? h("span"));
    return;
  }
  const s = parseFragment();
  if (s === "bad") { session = null; fatal(t("badLink" as Key)); return; }
  if (s === null) { watching?.abort(); session = null; lobby(); return; }
  void openTable(s);
}

initLang();
window.addEventListener("hashchange", route);
route();
