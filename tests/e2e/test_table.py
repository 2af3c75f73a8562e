"""The table page (clients/typescript/table/, served by the web gateway at `/`) in a real
browser: Debian's chromium driven by Playwright for Python, against real croupier-server and
redis-server processes. Each of the five games is played to its result by clicking (one game by
keyboard only); two seats in two browser contexts never see each other's hidden cards, in the
DOM or in any response their page received; a refused move shows its rule id; a reload resumes
the seat; a seat that walked away (turn clock) carries its badge; a bad link or a stopped server
shows a clear message. The tests write the screenshots of docs/screenshots/ and print the
bundle's gzipped size and the first paint."""

from __future__ import annotations

import contextlib
import gzip
import http.client
import itertools
import random
import re
import shutil
import struct
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from playwright.sync_api import (
    Browser,
    BrowserContext,
    BrowserType,
    Page,
    Playwright,
    Response,
    Route,
    ViewportSize,
    expect,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from croupier.client import Croupier
from croupier.errors import CroupierError
from croupier.local import LocalServer
from croupier.play import options_for
from croupier.service.store.embedded_redis import EmbeddedRedis, free_port
from croupier.service.transport.web_gateway import TABLE_FOLDER
from croupier.v1 import game_service_pb2 as pb
from tests.e2e.helpers import ROOT, TS, run_node
from tests.packaging.wheels import build_wheel

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = ROOT / "docs" / "screenshots"
BUNDLE_LIMIT = 300 * 1024  # the budget for the whole page, gzipped
DESKTOP: ViewportSize = {"width": 1100, "height": 820}
PHONE: ViewportSize = {"width": 375, "height": 740}
# How long a page may take to reach a state the test waits for, and a game to reach its end:
# generous, for a machine whose cores are busy with other work (the tests wait for states,
# and this is only how long before they give up).
PATIENCE_MS = 60_000
GAME_LIMIT_S = 240.0
# Short games: the options of docs/games/*.md that end a game soonest.
GAMES: dict[str, tuple[int, dict[str, str]]] = {
    "whats_your_name": (2, {}),
    "one_card": (2, {"deck-numberCopies": "1"}),
    "pig_mau_mau": (2, {"finishDistance": "5"}),
    "vampire_queen": (3, {"rounds": "1"}),
    "trinity": (3, {}),
}
# What each game's table must draw (the Pig Mau Mau track and pigs, the Trinity board and rows,
# the What's Your Name? stage and hidden card, the Vampire Queen trick and hunt, and One Card's
# piles), by selector.
PARTS: dict[str, tuple[str, ...]] = {
    "whats_your_name": (".centre.wyn", "[data-testid^=played-], [data-testid=my-hidden], .stage"),
    "one_card": ("[data-testid=top-card]", ".centre.one .card.back"),
    "pig_mau_mau": ("[data-testid=track]", "[data-testid=lane-pink] .pig-token",
                    "[data-testid=lane-beige] .pig-token", "[data-testid=top-card]"),
    "vampire_queen": ("[data-testid=trick]",),
    "trinity": ("[data-testid=row-J]", "[data-testid=row-Q]", "[data-testid=row-K]"),
}  # fmt: skip
# The order of a hand on the table, from its cards' data-card keys: by rank (What's Your Name?,
# Vampire Queen), by colour then kind and number (One Card's "type.colour.number"), by suit then
# rank (Trinity's codes). A Pig Mau Mau key is the card's code alone: equal cards side by side.
HAND_ORDER: dict[str, Callable[[str], tuple[int, ...]]] = {
    "whats_your_name": lambda k: (int(k[1:]),),
    "vampire_queen": lambda k: (int(k[1:]),),
    "trinity": lambda k: (int(k[1:]),),
    "one_card": lambda k: tuple(int(k.split(".")[i]) for i in (1, 0, 2)),  # colour, type, number
}
RESPONSES: dict[str, type[Message]] = {
    "CreateGame": pb.CreateGameResponse,
    "GetGame": pb.GetGameResponse,
    "ListGames": pb.ListGamesResponse,
    "JoinGame": pb.JoinGameResponse,
    "ListLegalMoves": pb.ListLegalMovesResponse,
    "ApplyMove": pb.ApplyMoveResponse,
    "WatchGame": pb.WatchGameResponse,
}

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
)


# ---- fixtures: the server with its web port, and pytest-playwright's browser ----


class WebServer(LocalServer):
    """A real croupier-server process with its web gateway (and so the table page) on
    `web_url`, with no rate limits: the tests call faster than people."""

    def __init__(
        self, redis_url: str, log: Path | None = None, extra: tuple[str, ...] = ()
    ) -> None:
        web_port = free_port()
        limits = ("--rate-limit", "0", "--anonymous-rate-limit", "0", *extra)
        # With `log`: every request's log line (level info) goes there, to be read for secrets.
        self._log = None if log is None else log.open("wb")
        super().__init__(
            redis_url,
            extra_args=("--web-port", str(web_port), *limits),
            log_level="warning" if log is None else "info",
            stderr=subprocess.DEVNULL if self._log is None else self._log.fileno(),
        )
        self.web_url = f"http://127.0.0.1:{web_port}"

    def stop(self, timeout: float = 15.0) -> int | None:
        code = super().stop(timeout)
        if self._log is not None:
            self._log.close()
        return code

    def start(self, timeout: float = 60.0) -> WebServer:
        super().start(timeout)
        deadline = time.monotonic() + timeout
        while True:  # the gateway listens once the gRPC port serves; wait for the page
            try:
                with urllib.request.urlopen(self.web_url + "/", timeout=2) as answer:
                    assert answer.status == 200
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise
                time.sleep(0.1)


@pytest.fixture(scope="module")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("table") / "server.log"


@pytest.fixture(scope="module")
def table(redis_server: EmbeddedRedis, server_log: Path) -> Iterator[WebServer]:
    server = WebServer(redis_server.url, server_log).start()
    try:
        yield server
    finally:
        server.stop()


def web(server: WebServer) -> str:
    return server.web_url


# pytest-playwright's fixtures, scoped to this module: its session-wide Playwright keeps an
# event loop running in the main thread, and every later test calling asyncio.run() would fail.
# One browser serves the whole module.


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    driver = sync_playwright().start()
    yield driver
    driver.stop()


@pytest.fixture(scope="module")
def browser_type(playwright: Playwright) -> BrowserType:
    return playwright.chromium


@pytest.fixture(scope="module")
def browser_type_launch_args() -> dict[str, Any]:
    # Debian's chromium (Playwright's own browsers cannot be downloaded here); root needs
    # --no-sandbox.
    return {"executable_path": CHROMIUM, "headless": True, "args": ["--no-sandbox"]}


@pytest.fixture(scope="module")
def launch_browser(
    browser_type_launch_args: dict[str, Any], browser_type: BrowserType
) -> Callable[..., Browser]:
    def launch(**kwargs: Any) -> Browser:
        return browser_type.launch(**{**browser_type_launch_args, **kwargs})

    return launch


@pytest.fixture(scope="module")
def browser(launch_browser: Callable[..., Browser]) -> Iterator[Browser]:
    launched = launch_browser()
    yield launched
    launched.close()


@pytest.fixture(scope="module")
def browser_context_args() -> dict[str, Any]:
    return {"viewport": DESKTOP, "locale": "en-US"}


@pytest.fixture
def context(new_context: Callable[..., BrowserContext]) -> BrowserContext:
    """pytest-playwright's context, its pages' waits and actions as patient as the tests."""
    return patient(new_context())


def patient(context: BrowserContext) -> BrowserContext:
    context.set_default_timeout(PATIENCE_MS)
    return context


def at_once(context: BrowserContext) -> BrowserContext:
    """The context's pages show other seats' moves at once (the pace "at once", set before the
    page's script reads it): where the pace is not under test, a game at the default pace
    waits 0.8 s after every other seat's move."""
    context.add_init_script(
        "try { localStorage.setItem('croupier.pace', '0') } catch { /* about:blank */ }"
    )
    return context


expect.set_options(timeout=PATIENCE_MS)


# ---- helpers ----


class Watched:
    """Whatever a page shows on the screen that is not on the page itself: its console errors
    and uncaught exceptions, the bodies of every GameService response it received, and the
    path of every request it made."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        self.responses: list[Response] = []
        self.paths: list[str] = []
        page.on("request", lambda r: self.paths.append(urllib.parse.urlsplit(r.url).path))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on(
            "response",
            lambda r: self.responses.append(r) if "/croupier.v1.GameService/" in r.url else None,
        )


def create_in_lobby(page: Page, url: str, game: str, seats: int, options: dict[str, str],
                    humans: tuple[int, ...] = (0,)) -> dict[int, str]:  # fmt: skip
    """Create a game in the lobby; the seat links it shows, by seat."""
    page.goto(url + "/")
    page.select_option("#game", game)
    page.fill("#seats", str(seats))
    page.dispatch_event("#seats", "input")
    for key, value in options.items():
        if value == "on":
            page.check(f"#opt-{key}")
        else:
            page.fill(f"#opt-{key}", value)
    for seat in range(seats):
        page.set_checked(f".bot-seat[data-seat='{seat}']", seat not in humans)
    page.click("#create")
    page.wait_for_selector("[data-testid^=link-]")
    links = {}
    for seat in humans:
        href = page.get_attribute(f"[data-testid=link-{seat}]", "href")
        assert href is not None and "?" not in href, href  # the credential only after #
        links[seat] = href
    # A bot seat has no link: the server plays it (CreateGame's bot_levels), not a page.
    shown = {e.get_attribute("data-seat") for e in page.query_selector_all("[data-testid^=link-]")}
    assert shown == {str(seat) for seat in humans}
    return links


def first_paint_ms(page: Page) -> float:
    value: float = page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
    )
    return value


# A move the page lets this seat play now: not while one is on its way (disabled), nor while the
# moves shown are an older view's (aria-disabled: the new view's are being listed).
PLAYABLE = "[data-testid=move]:not([disabled]):not([aria-disabled=true])"


def click_a_move(page: Page) -> bool:
    """Click the first legal move shown, if any; False when there is none to click now."""
    button = page.query_selector(PLAYABLE)
    if button is None:
        return False
    try:
        button.click(timeout=10_000)
    except Exception:  # re-rendered under the pointer (another seat moved): try again
        return False
    return True


def finished(page: Page) -> bool:
    return page.query_selector("[data-testid=result]") is not None


def play_until_result(page: Page, mover: Callable[[Page], bool], limit_s: float = GAME_LIMIT_S,
                      at_move: Callable[[int], None] | None = None) -> int:  # fmt: skip
    """Let `mover` make this seat's moves until the page shows the result; the moves made.
    `at_move(made)` runs whenever the seat may act, before its move."""
    made = 0
    deadline = time.monotonic() + limit_s
    while not finished(page):
        assert time.monotonic() < deadline, "the game did not reach its result in time"
        if at_move is not None and page.query_selector("[data-testid=move]") is not None:
            at_move(made)  # this seat to act: its moves are on the screen
        if mover(page):
            made += 1
        else:
            page.wait_for_timeout(60)
    return made


def fits_the_width(page: Page) -> bool:
    overflow: bool = page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
    )
    return overflow


def frames(body: bytes) -> Iterator[bytes]:
    """The messages of a Connect streaming body (flags byte, 4-byte length, message), without
    the end-of-stream frame."""
    at = 0
    while at + 5 <= len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        if not flags & 0x02:
            yield body[at + 5 : at + 5 + size]
        at += 5 + size


def received(watched: Watched) -> list[tuple[str, Message]]:
    """Every GameService response message the page received, decoded, with its method."""
    out: list[tuple[str, Message]] = []
    for response in watched.responses:
        method = response.url.rsplit("/", 1)[1]
        if response.status != 200:
            continue
        body = response.body()  # a watch stream's body is complete once the game is over
        kind = RESPONSES[method]
        parts = list(frames(body)) if method == "WatchGame" else [body]
        # The page speaks the Connect protocol with its JSON encoding.
        assert "json" in response.headers["content-type"], response.headers["content-type"]
        out += [(method, json_format.Parse(part, kind())) for part in parts]
    return out


# ---- the page's files ----


def test_the_gateway_serves_the_page_and_nothing_else(table: WebServer) -> None:
    host, port = web(table).removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)

    def get(
        path: str, headers: dict[str, str] | None = None, method: str = "GET"
    ) -> http.client.HTTPResponse:
        connection.request(method, path, headers=headers or {})
        answer = connection.getresponse()
        answer.read()
        return answer

    page = get("/")
    assert page.status == 200
    assert page.getheader("content-type") == "text/html; charset=utf-8"
    assert page.getheader("cache-control") == "no-cache"
    assert "connect-src 'self'" in (page.getheader("content-security-policy") or "")
    etag = page.getheader("etag") or ""
    assert get("/", {"If-None-Match": etag}).status == 304
    assert get("/table.js").getheader("content-type") == "text/javascript; charset=utf-8"
    assert get("/table.css").getheader("content-type") == "text/css; charset=utf-8"
    assert get("/table.js", {"Accept-Encoding": "gzip"}).getheader("content-encoding") == "gzip"
    assert get("/", method="HEAD").status == 200
    outside = ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/..%2fweb_gateway.py",
               "/static/table.js", "//etc/passwd", "/web_gateway.py", "/index.html/")  # fmt: skip
    for path in outside:
        assert get(path).status == 404, path
    # The RPC paths are still the gateway's: a GET of one is not a file.
    assert get("/croupier.v1.GameService/GetGame").status != 200
    connection.close()


def test_the_committed_bundle_is_built_from_the_sources(typescript: Path, tmp_path: Path) -> None:
    """service/croupier/service/static/ is what `npm run build:table` makes of
    clients/typescript/table/ and the generated client: a change to either without a rebuild
    fails here."""
    script = __import__("json").loads((TS / "package.json").read_text())["scripts"]["build:table"]
    out = str(tmp_path) + "/"
    run_node("sh", "-c", script.replace("../../service/croupier/service/static/", out))
    for name in ("index.html", "table.js", "table.css"):
        assert (tmp_path / name).read_bytes() == (TABLE_FOLDER / name).read_bytes(), (
            f"service/croupier/service/static/{name} is stale:"
            " run `cd clients/typescript && npm run build:table`"
        )


def test_the_server_wheel_carries_the_page(tmp_path: Path) -> None:
    """The table works on a machine without Node.js: the server's own wheel holds
    the built page, byte for byte the committed files that the gateway serves."""
    wheel = build_wheel(ROOT, tmp_path)
    with wheel:
        for name in ("index.html", "table.js", "table.css"):
            packed = wheel.read(f"croupier/service/static/{name}")
            assert packed == (TABLE_FOLDER / name).read_bytes(), name


def test_the_bundle_is_small(table: WebServer) -> None:
    total = 0
    for name in ("/", "/table.js", "/table.css"):
        request = urllib.request.Request(web(table) + name, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            body = answer.read()
            assert answer.headers["content-encoding"] == "gzip"
            assert gzip.decompress(body)
            total += len(body)
    print(f"\ntable bundle: {total / 1024:.1f} KiB gzipped (index.html, table.js, table.css)")
    assert total < BUNDLE_LIMIT


def option_ids(message: Descriptor, prefix: str = "opt-") -> set[str]:
    """The lobby's input id of each option of an options message: its field's JSON name,
    a nested message's fields after a dash (`opt-deck-numberCopies`)."""
    ids: set[str] = set()
    for field in message.fields:
        nested = field.message_type
        if nested is not None:
            ids |= option_ids(nested, f"{prefix}{field.json_name}-")
        else:
            ids.add(prefix + field.json_name)
    return ids


def test_the_lobby_offers_every_option_of_every_game(table: WebServer, page: Page) -> None:
    """The lobby: pick a game, seat count, options (every option documented in
    docs/games/*.md): for each game, one input per field of its options message (the
    protos that docs/games/*.md describe), and the game's Korean name beside its English one."""
    page.goto(web(table) + "/")
    oneof = pb.CreateGameRequest.DESCRIPTOR.oneofs_by_name["options"]
    assert len(oneof.fields) == 5
    for field in oneof.fields:
        page.select_option("#game", field.name)
        shown = set(page.eval_on_selector_all("[id^=opt-]", "els => els.map(e => e.id)"))
        assert field.message_type is not None
        assert shown == option_ids(field.message_type), field.name
        label = page.eval_on_selector("#game", "s => s.selectedOptions[0].textContent")
        assert re.search("[가-힣]", label), label


# ---- whole games ----


def keyboard_move(page: Page) -> bool:
    """One move with the keyboard only: Tab to a move (the page keeps focus on the moves
    between turns), then Enter."""
    if page.query_selector(PLAYABLE) is None:
        return False
    for _ in range(80):
        # The table redraws when another seat moves: this seat's moves may be gone (its turn
        # passed, or a move is on its way) before Tab reaches them; the caller tries again.
        if page.query_selector(PLAYABLE) is None:
            return False
        # The focused element and its outline read in one evaluation: between two, a redraw
        # may take this seat's moves away and leave the focus on the page's body.
        focused, outline = page.evaluate(
            "(() => { const e = document.activeElement;"
            " if (e?.getAttribute('aria-disabled') === 'true') return ['stale', ''];"
            " return [e?.dataset?.testid ?? '', e ? getComputedStyle(e).outlineStyle : '']; })()"
        )
        if focused == "stale":  # listed for an older view: the new view's moves come next
            return False
        if focused == "move":
            # Visible focus: the focused move is outlined (the page's :focus-visible style).
            assert outline not in ("none", ""), outline
            page.keyboard.press("Enter")
            return True
        page.keyboard.press("Tab")
    raise AssertionError("no move reachable with Tab")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_in_the_browser(game: str, table: WebServer, page: Page) -> None:
    """Seat 0 plays by clicking (Pig Mau Mau: by keyboard) until the result; the server's bots
    play the other seats ("the rest bots, played by the server if that exists"): nothing
    but the server moves them once the lobby made the game. Screenshots of the table,
    desktop and phone width."""
    seats, options = GAMES[game]
    watched = Watched(page)
    links = create_in_lobby(page, web(table), game, seats, options)
    page.set_viewport_size(PHONE)  # the lobby, its links shown, fits a phone too
    assert fits_the_width(page), "the lobby is wider than a phone"
    page.set_viewport_size(DESKTOP)
    if game == "vampire_queen":
        page.screenshot(path=SCREENSHOTS / "lobby.png", full_page=True)
    paint = first_paint_ms(page)
    print(f"\n{game}: first contentful paint of the lobby {paint:.0f} ms")
    assert 0 <= paint < PATIENCE_MS  # painted at all: the figure is the printed one
    # The bots' moves shown at once: a whole game at the default pace takes minutes (the pace
    # has its own test).
    page.evaluate("localStorage.setItem('croupier.pace', '0')")
    page.goto("about:blank")  # a new document: the link's own first paint
    page.goto(links[0])
    page.wait_for_selector("[data-testid=hand]")
    print(f"{game}: first contentful paint of the table {first_paint_ms(page):.0f} ms")
    assert "bot" in page.inner_text("[data-testid=seat-1] .seat-name")  # the view's bot_levels
    if game == "trinity":  # the Korean labels: this table is played (and shown) in Korean
        page.click("#lang")
        assert page.inner_text("[data-testid=hand] h2").startswith("내 손패")
        assert "삼위일체" in page.inner_text("header")
        page.reload()  # the choice is kept (localStorage), and the seat resumed
        page.wait_for_selector("[data-testid=hand]")
        assert page.inner_text("[data-testid=hand] h2").startswith("내 손패")
    shot: dict[str, bool] = {}
    seen = {"checks": 0, "cards_played": False}
    # Other seats' moves arrive live, with a highlight: the seat that moved flashes and the new
    # lines of the log too. Looked for after every change of the page, not only at this seat's
    # turns: a deal may give this seat its turns right after its own moves.
    page.evaluate(
        "window.highlights = 0; new MutationObserver(() => {"
        " if (document.querySelector('.seat.moved, .log li.fresh')) window.highlights++; })"
        ".observe(document.body, {subtree: true, childList: true, attributes: true})"
    )

    def at_move(made: int) -> None:
        # Every card drawn has a text alternative (face-down ones and empty slots too).
        unlabelled = page.evaluate(
            "[...document.querySelectorAll('.card')]"
            ".filter(c => !(c.getAttribute('aria-label') ?? '').trim()).map(c => c.outerHTML)"
        )
        assert unlabelled == [], unlabelled
        seen["checks"] += 1
        keys = dom_hand(page)  # sorted as a player holds them
        if game in HAND_ORDER:
            assert keys == sorted(keys, key=HAND_ORDER[game]), keys
        else:
            assert all(k not in keys[i + 2 :] or keys[i + 1] == k for i, k in enumerate(keys)), keys
        for part in PARTS[game]:
            assert page.query_selector(part) is not None, part
        if game == "vampire_queen":  # cards on the table: the trick in play, or while it is
            # empty the last one (the server's bots answer at once: it would flash by). From the
            # first card played on: a click counted in `made` may not have become a move.
            shown = "[data-testid=trick] .card, [data-testid=last-trick] .card"
            on_table = page.query_selector(shown) is not None
            assert on_table or not seen["cards_played"]
            seen["cards_played"] |= on_table
        if game == "trinity":  # the log of events is in Korean too
            for line in page.query_selector_all(".log li"):
                assert re.search("[가-힣]", line.inner_text()), line.inner_text()
        # A table in full swing: a few moves in, this seat to act, the pointer off the cards.
        if made >= 3 and not shot:
            page.mouse.move(0, 0)
            # The card under the pointer eases back (a CSS transition) before the picture.
            # (A function: the page's Content-Security-Policy refuses an evaluated string.)
            page.wait_for_function(
                "() => document.getAnimations().every(a => !(a instanceof CSSTransition)"
                " || a.playState === 'finished')"
            )
            assert page.query_selector(".log li") is not None  # the moves so far, live
            page.screenshot(path=SCREENSHOTS / f"{game}.png")
            page.set_viewport_size(PHONE)
            assert fits_the_width(page), "the table is wider than a phone"
            # ...and nothing in it hides part of itself behind a scroll (the Pig Mau Mau track
            # and its finish are seen whole).
            hidden = page.evaluate(
                "[...document.querySelectorAll('main *')]"
                ".filter(e => e.scrollWidth > e.clientWidth + 1)"
                ".filter(e => getComputedStyle(e).overflowX !== 'visible')"
                ".map(e => e.className)"
            )
            assert hidden == [], hidden
            if game == "vampire_queen":
                page.screenshot(path=SCREENSHOTS / f"{game}-phone.png", full_page=True)
            page.set_viewport_size(DESKTOP)
            shot["done"] = True

    mover = keyboard_move if game == "pig_mau_mau" else click_a_move
    made = play_until_result(page, mover, at_move=at_move)
    assert made > 0 and seen["checks"] > 0
    assert page.evaluate("window.highlights") > 0, "no other seat's move was highlighted"
    check_the_result(page, game)
    name, credential = link_parts(links[0])
    if game == "pig_mau_mau":  # four races: the score sheet, as the seat's view keeps them
        check_the_score_sheet(page, table, name, credential)
    # The log holds a sentence for every event the seat saw, in order; a reload fills it again
    # from the game's history (the watch resumed from the game's first etag).
    check_the_log(page, table, name, credential)
    page.reload()
    page.wait_for_selector("[data-testid=result]")
    check_the_log(page, table, name, credential)
    if not shot:
        page.screenshot(path=SCREENSHOTS / f"{game}.png")
    if game == "vampire_queen":
        page.mouse.move(0, 0)
        page.screenshot(path=SCREENSHOTS / "result.png")
    assert watched.errors == []
    assert all("cred" not in r.url and "?" not in r.url for r in watched.responses)
    # The page talks to the server only through the generated client (GameService calls at its
    # own origin), besides loading its own three files.
    files = {"/", "/table.js", "/table.css"}
    others = [p for p in watched.paths if p not in files]
    assert others and all(p.startswith("/croupier.v1.GameService/") for p in others), others


def link_parts(link: str) -> tuple[str, str]:
    """The game's name and the seat's credential of a seat link."""
    fragment = urllib.parse.parse_qs(link.split("#", 1)[1])
    return fragment["game"][0], fragment["cred"][0]


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


def seat_events(target: str, name: str, credential: str) -> list[tuple[str, int | None]]:
    """Every event of every move the seat's watch replays from the game's first etag, in
    order: (its kind as the page's data-kind, the seat it is about when it names one)."""
    events: list[tuple[str, int | None]] = []
    with Croupier(target) as croupier:
        for update in croupier.watch(name, credential, since_etag="1"):
            for event in update.events:
                game = getattr(event, event.WhichOneof("game") or "")
                kind = game.WhichOneof("kind")
                inner = getattr(game, kind)
                seat = next((getattr(inner, f) for f in ("seat", "giver", "catcher", "winner")
                             if f in inner.DESCRIPTOR.fields_by_name), None)  # fmt: skip
                events.append((camel(kind), seat))
            if update.view.HasField("result"):
                break
    return events


def check_the_log(page: Page, server: WebServer, name: str, credential: str) -> None:
    """The page's log against the events: one sentence per event, in order (newest first on
    the page), each naming the seat it is about, none a raw event name."""
    events = seat_events(server.target, name, credential)
    expect(page.locator("[data-testid=log] li")).to_have_count(min(len(events), 400))
    lines = page.eval_on_selector_all(
        "[data-testid=log] li",
        "els => els.map(e => [e.dataset.kind, e.dataset.seat ?? null, e.innerText,"
        " e.closest('main').querySelector(`[data-testid=seat-${e.dataset.seat}] .seat-name`)"
        "?.firstChild?.textContent ?? ''])",
    )
    lines.reverse()
    assert [kind for kind, *_ in lines] == [kind for kind, _ in events[-len(lines) :]]
    for (kind, seat, text, seat_name), (_, event_seat) in zip(
        lines, events[-len(lines) :], strict=True
    ):
        assert not re.search(r"[a-z][A-Z]", text), text  # a sentence, not "pigMoved"
        if seat is not None:
            assert int(seat) == event_seat, (kind, text)
            assert (seat_name or "virtual") in text, (seat_name, text)  # no panel: virtual


def check_the_result(page: Page, game: str) -> None:
    """A clear result for each seat: won or lost, nobody left to act; Trinity's is the team's,
    without places (all three seats placed first said nothing)."""
    outcomes = page.eval_on_selector_all(
        "[data-testid^=result-] td:nth-child(2)", "els => els.map(e => e.innerText)"
    )
    seats = GAMES[game][0]
    assert len(outcomes) == seats, outcomes
    assert all(re.search("won|lost|승리|패배", o) for o in outcomes), outcomes
    assert page.query_selector(".badge.turn") is None  # no "to act" after the end
    headline = page.inner_text("[data-testid=headline]")
    if game == "trinity":
        assert "팀" in headline, headline  # played in Korean: "팀 승리!" or "팀 패배."
        assert len(set(outcomes)) == 1, outcomes  # the team wins or loses together
        header = page.inner_text("[data-testid=result] thead")
        assert "순위" not in header and "place" not in header, header
        assert "차례" not in page.inner_text(".centre")
    else:
        assert re.search("won|lost|Nobody", headline), headline


# ---- the score sheet ----


def sheet_of(view: pb.GameView) -> tuple[list[list[str]], list[str]] | None:
    """What a seat's score sheet must say, from its view (what the server keeps of every
    finished round, race or game): the rows' cells, and the totals; None for a game played in
    one round or scored as a team."""
    game = view.WhichOneof("game")
    if game == "vampire_queen" and view.vampire_queen.rounds > 1:
        vq = view.vampire_queen
        return [[str(p) for p in r.penalties] for r in vq.round_penalties], [
            str(t) for t in vq.totals
        ]
    if game == "pig_mau_mau" and view.pig_mau_mau.races > 1:
        pig = view.pig_mau_mau
        return [[str(p) for p in r.points] for r in pig.race_scores], [str(t) for t in pig.totals]
    if game == "one_card" and view.one_card.wins_to_match > 1:
        one = view.one_card
        rows = [
            ["★" if seat == r.winner else str(left) for seat, left in enumerate(r.cards_left)]
            for r in one.history
        ]
        return rows, [str(w) for w in one.wins]
    if game == "whats_your_name" and view.whats_your_name.games > 1:
        players = sorted(view.whats_your_name.players, key=lambda p: p.seat)
        games = max(len(p.recorded_totals) for p in players)
        rows = [
            [str(p.recorded_totals[i]) if i < len(p.recorded_totals) else "—" for p in players]
            for i in range(games)
        ]
        return rows, [str(sum(p.recorded_totals)) for p in players]
    return None


def shown_sheet(page: Page) -> tuple[list[list[str]], list[str]] | None:
    """The page's score sheet: each row's cells and the totals (None: no sheet)."""
    if page.query_selector("[data-testid=score-sheet]") is None:
        return None
    rows: list[list[str]] = page.eval_on_selector_all(
        "[data-testid=sheet-row]",
        "rows => rows.map(r => [...r.cells].slice(1).map(c => c.innerText))",
    )
    total: list[str] = page.eval_on_selector(
        "[data-testid=sheet-total]", "r => [...r.cells].slice(1).map(c => c.innerText)"
    )
    return rows, total


def check_the_score_sheet(page: Page, server: WebServer, name: str, credential: str) -> None:
    """The page's score sheet says what the seat's view keeps of every round, race or game."""
    with Croupier(server.target) as croupier:
        view = croupier.get(name, credential)
    page.wait_for_selector(f"main[data-etag='{view.etag}']")
    assert shown_sheet(page) == sheet_of(view)


# Games scored over rounds, races or games, as short as their options make them.
SCORED: dict[str, tuple[int, dict[str, Any]]] = {
    "vampire_queen": (3, {"rounds": 2}),
    "pig_mau_mau": (2, {"finishDistance": 5}),
    "one_card": (2, {"winsToMatch": 2, "deck": {"numberCopies": 1}}),
    "whats_your_name": (2, {"match": True}),
}


def play_seat(croupier: Croupier, name: str, credential: str, choose: random.Random,
              until: Callable[[pb.GameView], bool]) -> pb.GameView:  # fmt: skip
    """Play one seat through the API (the server's bots play the others) until `until` holds
    of its view or the game is over; that view."""
    deadline = time.monotonic() + GAME_LIMIT_S
    while True:
        assert time.monotonic() < deadline, "the game did not get there in time"
        view = croupier.get(name, credential)
        if until(view) or view.HasField("result"):
            return view
        if not view.legal_moves:
            time.sleep(0.01)
            continue
        # A card played rather than drawn when there is one: the game ends sooner.
        moves = list(view.legal_moves)
        plays = [m for m in moves if getattr(m, m.WhichOneof("game") or "").HasField("play")]
        with contextlib.suppress(CroupierError):  # a move that raced a bot's (simultaneous)
            croupier.apply(name, credential, choose.choice(plays or moves))


@pytest.mark.parametrize("game", sorted(SCORED))
def test_the_score_sheet_shows_every_round(game: str, table: WebServer, page: Page) -> None:
    """A game scored over rounds (Vampire Queen), races (Pig Mau Mau) or the games of a match
    (One Card, What's Your Name?) has a score sheet: a row for each one finished, its points
    per seat, and the totals, so a total that jumps (56 → 166) shows where from. It grows live
    as rounds end, and says it in English and in Korean. (Seat 0 is played through the API
    here, quickly; the whole games in the browser check the sheet of Pig Mau Mau too.)"""
    seats, fields = SCORED[game]
    options = json_format.ParseDict(fields, options_for(game))
    choose = random.Random(3)
    bots = ["", *["random"] * (seats - 1)]
    with Croupier(table.target) as croupier:
        created = croupier.create(options, seats, bot_levels=bots, seed=7)
        credential = created.seat_credentials[0]
        page.goto(web(table) + "/")
        page.evaluate("localStorage.setItem('croupier.pace', '0')")  # the moves at once
        page.goto("about:blank")
        page.goto(seat_link(table, created.name, credential))
        page.wait_for_selector("[data-testid=score-sheet]")
        assert shown_sheet(page) == ([], sheet_of(created.view)[1])  # type: ignore[index]
        expect(page.locator("[data-testid=score-sheet]")).to_contain_text("Nothing scored yet")
        # One round scored: its row, and the totals so far.
        view = play_seat(croupier, created.name, credential, choose,
                         lambda v: len((sheet_of(v) or ([], []))[0]) >= 1)  # fmt: skip
        expect(page.locator("[data-testid=sheet-row]")).to_have_count(1)
        check_the_score_sheet(page, table, created.name, credential)
        # ...and every one, live, to the end.
        view = play_seat(croupier, created.name, credential, choose, lambda v: False)
    assert view.HasField("result")
    page.wait_for_selector("[data-testid=result]")
    check_the_score_sheet(page, table, created.name, credential)
    rows, total = sheet_of(view) or ([], [])
    assert len(rows) >= 2, rows
    # Each row adds up to the totals (What's Your Name?'s "—" is a game not played by a seat).
    if game in ("vampire_queen", "pig_mau_mau", "whats_your_name"):
        sums = [sum(int(c) for c in column if c != "—") for column in zip(*rows, strict=True)]
        assert [str(s) for s in sums] == total, (rows, total)
    # The winners' totals marked; the words in English, then in Korean.
    winners = page.eval_on_selector_all(
        "[data-testid=sheet-total] td.winner", "cells => cells.map(c => c.cellIndex - 1)"
    )
    assert winners == list(view.result.winners), winners
    label = {"vampire_queen": ("Round 1", "1라운드"), "pig_mau_mau": ("Race 1", "1번째 경주")}.get(
        game, ("Game 1", "1번째 판")
    )
    sheet = page.locator("[data-testid=score-sheet]")
    expect(sheet).to_contain_text("Score sheet")
    expect(sheet.locator("[data-testid=sheet-row] th").first).to_have_text(label[0])
    if game == "vampire_queen":
        sheet.screenshot(path=SCREENSHOTS / "score-sheet.png")
    page.click("#lang")
    expect(sheet).to_contain_text("점수표")
    expect(sheet.locator("[data-testid=sheet-row] th").first).to_have_text(label[1])
    assert shown_sheet(page) == sheet_of(view)
    page.click("#lang")


def test_a_game_in_one_round_or_of_a_team_has_no_score_sheet(table: WebServer, page: Page) -> None:
    """The result says it all for a game of one round; Trinity is won or lost by the team."""
    with Croupier(table.target) as croupier:
        for game, seats in (("trinity", 3), ("vampire_queen", 3)):
            options = options_for(game)
            if game == "vampire_queen":
                options.rounds = 1  # type: ignore[attr-defined]
            created = croupier.create(options, seats)
            page.goto("about:blank")
            page.goto(seat_link(table, created.name, created.seat_credentials[0]))
            page.wait_for_selector("[data-testid=hand]")
            assert page.query_selector("[data-testid=score-sheet]") is None, game


# ---- redaction: two seats, two contexts ----


class SeatViews:
    """Every view of one seat the server sends, by etag, read through the Python client's
    watch while the pages play: what each page may see at each moment."""

    def __init__(self, target: str, name: str, credential: str) -> None:
        self.views: dict[str, pb.GameView] = {}
        self._croupier = Croupier(target)
        self._thread = threading.Thread(target=self._run, args=(name, credential), daemon=True)
        self._thread.start()

    def _run(self, name: str, credential: str) -> None:
        for update in self._croupier.watch(name, credential):
            self.views[update.view.etag] = update.view
            if update.view.HasField("result"):
                return

    def join(self) -> None:
        self._thread.join(timeout=PATIENCE_MS / 1000)
        assert not self._thread.is_alive(), "the seat's watch did not reach the result"
        self._croupier.close()


def dom_hand(page: Page) -> list[str]:
    """The hand's cards' keys, in the order shown (read in one evaluation)."""
    keys: list[str] = page.eval_on_selector_all(
        "[data-testid=hand] [data-card]", "els => els.map(e => e.dataset.card)"
    )
    return keys


def test_two_seats_never_see_each_others_cards(table: WebServer, browser: Browser) -> None:
    contexts = [at_once(patient(browser.new_context(viewport=DESKTOP))) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    watched = [Watched(p) for p in pages]
    links = create_in_lobby(pages[0], web(table), "whats_your_name", 2, {"hiddenCard": "on"},
                            humans=(0, 1))  # fmt: skip
    fragment = dict(part.split("=", 1) for part in links[0].split("#", 1)[1].split("&"))
    name = urllib.parse.unquote(fragment["game"])
    credentials = {
        seat: urllib.parse.unquote(link.split("cred=", 1)[1].split("&")[0])
        for seat, link in links.items()
    }
    seats = [SeatViews(table.target, name, credentials[s]) for s in (0, 1)]
    for seat, page in enumerate(pages):
        page.goto(links[seat])
        page.wait_for_selector("[data-testid=hand]")
    checks = 0
    deadline = time.monotonic() + GAME_LIMIT_S
    while not all(finished(p) for p in pages):
        assert time.monotonic() < deadline
        for seat, page in enumerate(pages):
            etag = page.get_attribute("main", "data-etag")
            shown = dom_hand(page)
            view = seats[seat].views.get(etag or "")
            if view is not None and page.get_attribute("main", "data-etag") == etag:
                # The DOM holds this seat's hand, and only a face-down hidden card of the other.
                # (sorted by rank, as a player holds them)
                assert shown == [f"r{r}" for r in sorted(c.rank for c in view.whats_your_name.hand)]
                # Its own hidden card face up (WN-7.1: only they see it)...
                if view.whats_your_name.HasField("hidden_card"):
                    mine = page.get_attribute("[data-testid=my-hidden]", "aria-label")
                    assert mine == str(view.whats_your_name.hidden_card.rank)
                other = page.query_selector(f"[data-testid=hidden-{1 - seat}]")
                if other is not None:
                    assert "back" in (other.get_attribute("class") or "")
                    assert other.inner_text().strip() == ""
                checks += 1
            click_a_move(page)
        pages[0].wait_for_timeout(50)
    assert checks > 10
    for s in seats:
        s.join()
    # Every view each page received is exactly that seat's own view at that etag (the server's
    # redaction), never the other seat's; its legal moves are its own.
    for seat, w in enumerate(watched):
        views = 0
        assert "/croupier.v1.GameService/ListLegalMoves" not in w.paths  # the views list them
        for method, message in received(w):
            if method == "ListGames":  # the lobby's list: summaries, nothing secret
                continue
            view = message.view  # type: ignore[attr-defined]
            if method == "CreateGame" or (method == "GetGame" and not view.HasField("viewer_seat")):
                # The creator's public view; the lobby's public views of the listed tables.
                assert not view.HasField("viewer_seat") and not view.legal_moves
                continue
            assert view.viewer_seat == seat
            assert view == seats[seat].views[view.etag], f"{method} at {view.etag}"
            views += 1
        assert views > 10
        # Both seats may act at once (WN-3.1: the plays are secret and simultaneous): a move
        # that lost the race is answered 409 ETAG_MISMATCH, which Chromium logs ("Failed to
        # load resource") and the page shows. Nothing else may reach the console.
        assert [e for e in w.errors if "status of 409" not in e] == []
    for context in contexts:
        context.close()


# ---- a refused move, and a reload ----


def tab_to(page: Page, selector: str) -> None:
    """Press Tab until the element of `selector` has the focus (visible focus: the page's
    :focus-visible outline)."""
    for _ in range(120):
        if page.evaluate(f"document.activeElement?.matches({selector!r}) ?? false"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} is not reachable with Tab")


def shown_etag(page: Page) -> str:
    return page.get_attribute("main", "data-etag") or ""


def to_act(page: Page) -> tuple[str, list[str], list[str]]:
    """Once this seat may act (a move playable: its turn, and no move of its own on its way),
    the view shown (etag), the hand's cards and the moves' labels, read in one evaluation: a
    redraw between two reads would mix two views."""
    page.wait_for_selector(PLAYABLE)
    etag, hand, labels = page.evaluate(
        "(playable) => [document.querySelector('main')?.dataset.etag ?? '',"
        " [...document.querySelectorAll('[data-testid=hand] [data-card]')]"
        ".map(e => e.dataset.card),"
        " [...document.querySelectorAll(playable)].map(b => b.textContent)]",
        PLAYABLE,
    )
    return etag, hand, labels


def test_a_refused_move_shows_its_rule_and_a_reload_resumes(table: WebServer, page: Page) -> None:
    at_once(page.context)
    watched = Watched(page)
    links = create_in_lobby(page, web(table), "vampire_queen", 3, {"rounds": "1"})
    page.goto(links[0])
    # Seat 0 to act with a play possible, to select two cards of different ranks. Vampire Queen
    # is played one seat at a time: while seat 0 may act the bots wait, so the view read here
    # stays the one shown until seat 0 moves (reading it while seat 0's own move was on its way
    # raced the bots' answers).
    deadline = time.monotonic() + GAME_LIMIT_S
    while True:
        assert time.monotonic() < deadline
        etag, keys, labels = to_act(page)
        distinct = sorted(set(keys))
        if any(label.startswith("Play") for label in labels) and len(distinct) >= 2:
            break
        if click_a_move(page):  # a pass: wait for a lead, past this view
            page.wait_for_function(
                "(etag) => document.querySelector('main')?.dataset.etag !== etag", arg=etag
            )
    # The selection and the play by keyboard only ("keyboard play for every move"): Tab to
    # each card, Space selects it, Tab to "Play selected cards", Enter.
    for key in (distinct[0], distinct[-1]):
        tab_to(page, f"[data-testid=hand] [data-card='{key}']")
        page.keyboard.press("Space")
    tab_to(page, "#play-selected")
    page.keyboard.press("Enter")
    refusal = page.wait_for_selector("[data-testid=refusal]")
    assert refusal is not None
    text = refusal.inner_text()
    rule = re.search(r"\[(VQ-[0-9.]+)\]", text)
    assert rule, text
    assert text.count(rule.group(1)) == 1, text  # the rule id once, not "[VQ-3.1] — VQ-3.1: …"
    assert "ILLEGAL_MOVE" in text

    assert shown_etag(page) == etag  # refused: the game did not move
    page.reload()
    page.wait_for_selector("[data-testid=hand]")
    print(f"\nfirst contentful paint of a table, reloaded: {first_paint_ms(page):.0f} ms")
    assert page.get_attribute("main", "data-seat") == "0"
    # Still seat 0's turn, at the same view: a legal play built by selecting its cards
    # ("multi-card moves are built by selecting cards"), the one listed with the most cards, is
    # played as selected.
    now, hand, labels = to_act(page)
    assert (now, hand) == (etag, keys)
    chosen = max((m for m in labels if m.startswith("Play ")), key=lambda m: m.count(" + "))
    for name in chosen.removeprefix("Play ").split(" + "):
        key = "v14" if name == "Vampire Queen" else "v" + name.rsplit(" ", 1)[1]
        page.click(f"[data-testid=hand] [data-card='{key}'][aria-pressed=false] >> nth=0")
    selection = page.inner_text(".selection")
    assert "No legal move" not in selection, (chosen, dom_hand(page), selection)
    page.click("#play-selected")
    # The move made: a new view.
    page.wait_for_function(
        "(etag) => document.querySelector('main')?.dataset.etag !== etag", arg=now
    )
    assert page.query_selector("[data-testid=refusal]") is None
    print(f"played by selection: {chosen}")
    # The resumed seat plays on: its moves are listed again and the game goes on to its end.
    play_until_result(page, click_a_move)
    assert [e for e in watched.errors if "Failed to load" not in e] == []


def test_the_moves_shown_are_those_of_the_view_shown(table: WebServer, page: Page) -> None:
    """The view changes while this seat stays to act (What's Your Name?: every seat makes its
    secret choice at once, WN-7.1, WN-3.1): the new view comes with this seat's legal moves, and
    the page shows them with it, playable at once and accepted. It never asks ListLegalMoves, so
    it never shows moves of an older view."""
    watched = Watched(page)
    with Croupier(table.target) as croupier:
        created = croupier.create(options_for("whats_your_name"), 2)
        credentials = list(created.seat_credentials)
        page.goto(seat_link(table, created.name, credentials[0]))
        page.wait_for_selector(PLAYABLE)
        other = croupier.get(created.name, credentials[1]).legal_moves[0]
        moved = croupier.apply(created.name, credentials[1], other)  # seat 0 is still to act
        page.wait_for_selector(f"main[data-etag='{moved.etag}']")
        view = croupier.get(created.name, credentials[0])
        assert view.etag == moved.etag and view.legal_moves
        assert len(page.query_selector_all(PLAYABLE)) == len(view.legal_moves)
        with page.expect_response(lambda r: r.url.endswith("/ApplyMove")) as answer:
            page.click(PLAYABLE)
        assert answer.value.status == 200
    assert watched.paths.count("/croupier.v1.GameService/ApplyMove") == 1
    assert "/croupier.v1.GameService/ListLegalMoves" not in watched.paths
    assert watched.errors == []


def test_a_seat_that_walked_away_shows_its_badge(table: WebServer, page: Page) -> None:
    """A clocked game (made through the API) whose open seat lets its 1 s
    deadline pass once, with abandon_after 1: the seat is away and the page says so."""
    clock = pb.Clock(seconds_per_decision=1, abandon_after=1)
    with Croupier(table.target) as croupier:
        created = croupier.create(
            options_for("one_card"), 2, bot_levels=["strong", ""], clock=clock
        )
    fragment = urllib.parse.urlencode(
        {"game": created.name, "seat": "1", "cred": created.seat_credentials[1]}
    )
    page.goto(f"{web(table)}/#{fragment}")
    try:
        badge = page.wait_for_selector("[data-testid=away-1]")
    except PlaywrightTimeout:
        # Which half failed: the server (no timeout fired, the seat not away) or the page (it
        # never showed the view that says so)?
        with Croupier(table.target) as croupier:
            view = croupier.get(created.name, created.seat_credentials[1])
        pytest.fail(
            f"no away badge in {PATIENCE_MS // 1000} s; the server: {view.move_count} moves,"
            f" away {list(view.away)},"
            f" active {list(view.active_seats)}, result {view.HasField('result')}, deadlines"
            f" {[json_format.MessageToDict(d) for d in view.deadlines]} at {time.time():.3f};"
            f" the page: {page.inner_text('body')[:600]!r}"
        )
    assert badge is not None
    assert "away" in badge.inner_text()


def test_a_resume_refused_as_out_of_range_starts_again_from_the_current_view(
    table: WebServer, page: Page
) -> None:
    """A watch resumed from an etag more moves back than the server replays is refused
    (OUT_OF_RANGE, RESUME_OUT_OF_RANGE; docs/api.md, "Resuming"): the page must then watch from
    the current view, not resend the same etag forever. Here every WatchGame that carries a
    since_etag is answered so, and the page must still show a move made after it opened."""
    refused: list[str] = []

    def refuse_resumes(route: Route) -> None:
        if b'"sinceEtag"' not in (route.request.post_data_buffer or b""):
            route.continue_()
            return
        refused.append(route.request.url)
        end = b'{"error":{"code":"out_of_range","message":"resumed too far back"}}'
        route.fulfill(
            status=200,
            headers={"content-type": "application/connect+json"},
            body=struct.pack(">BI", 2, len(end)) + end,  # the end-of-stream envelope
        )

    with Croupier(table.target) as croupier:
        created = croupier.create(options_for("one_card"), 2)
        credentials = list(created.seat_credentials)
        page.route("**/croupier.v1.GameService/WatchGame", refuse_resumes)
        page.goto(seat_link(table, created.name, credentials[0]))
        page.wait_for_selector("[data-testid=seat-1]")
        seat = croupier.get(created.name).active_seats[0]
        move = croupier.legal_moves(created.name, credentials[seat])[0]
        croupier.apply(created.name, credentials[seat], move)
    page.locator(".game-title", has_text="· 1 ").wait_for()
    assert refused  # the page did resume from its etag first, and was refused
    title = page.inner_text(".game-title")
    assert title.endswith("1 move") and "moves" not in title, title  # not "1 moves"


# ---- bad links and a stopped server ----


def test_bad_links_and_a_stopped_server_say_so(
    table: WebServer, redis_server: EmbeddedRedis, page: Page
) -> None:
    """A link with a wrong or stale credential, a game that has expired, the server
    down: each shows a clear message on the page, never a blank page or a console-only error."""
    watched = Watched(page)
    links = create_in_lobby(page, web(table), "trinity", 3, {})
    wrong = re.sub(r"cred=[^&]+", "cred=cs_not-a-credential", links[0])
    page.goto(wrong)
    assert "credential is not accepted" in page.inner_text("[data-testid=error]")
    for name in ("games%2F" + "0" * 24, "games%2Fno-such-game"):  # never was, or malformed
        page.goto("about:blank")
        page.goto(re.sub(r"game=[^&]+", f"game={name}", links[0]))
        assert "does not exist" in page.inner_text("[data-testid=error]")
    page.goto("about:blank")
    page.goto(web(table) + "/#seat=0")
    assert "incomplete" in page.inner_text("[data-testid=error]")
    # A game of bots only is refused by the lobby itself, with the reason (ALL_SEATS_BOTS).
    page.goto("about:blank")
    page.goto(web(table) + "/")
    page.select_option("#game", "trinity")
    for seat in range(3):
        page.set_checked(f".bot-seat[data-seat='{seat}']", True)
    page.click("#create")
    assert "At least one seat" in page.inner_text("[data-testid=error]")
    # Chromium logs each refused call ("Failed to load resource"); the page itself threw nothing.
    assert [e for e in watched.errors if "Failed to load" not in e] == []

    # A server that stops under a loaded page: the lobby and the table both say so.
    other = WebServer(redis_server.url).start()
    page.goto(web(other) + "/")
    page.wait_for_selector("#create")
    other.stop()
    page.click("#create")
    assert "cannot be reached" in page.wait_for_selector("[data-testid=error]").inner_text()  # type: ignore[union-attr]
    page.evaluate(f"location.hash = {links[0].split('#', 1)[1]!r}")
    # The table's own message (the lobby's is gone with the lobby).
    assert "cannot be reached" in page.wait_for_selector("main > [data-testid=error]").inner_text()  # type: ignore[union-attr]


def test_a_server_restart_under_a_loaded_page_is_recovered_without_a_reload(
    redis_server: EmbeddedRedis, page: Page
) -> None:
    """The server stops and starts again (same ports, same store) under a table whose seat is
    to act: the page says it is reconnecting, and once the server is back the notice goes
    within seconds (the resumed watch sends the view now at once) with the seat's moves listed.
    A move clicked while the server is down is said to be waiting, sent again with its request
    id once the server is back and applied once; after the other seat's move, the seat's moves
    are listed again, all without a reload."""
    # A short grace: SIGTERM ends the page's watch after 1 s rather than after the default 10.
    server = WebServer(redis_server.url, extra=("--grace", "1")).start()
    try:
        with Croupier(server.target) as croupier:
            created = croupier.create(options_for("one_card"), 2)
            credentials = list(created.seat_credentials)
            me = created.view.active_seats[0]
            page.goto(seat_link(server, created.name, credentials[me], me))
            playable = page.locator(PLAYABLE)
            expect(playable.first).to_be_visible()
            listed = playable.count()
            notice = page.locator("[data-testid=notice]")

            def restart() -> float:
                """Start the server again; the seconds from its health check's SERVING (and
                its page served) until the page's notice is gone."""
                server.start()
                back = time.monotonic()
                expect(notice).to_be_hidden(timeout=15_000)
                return time.monotonic() - back

            # An outage with nothing missed: the page's watch resumes from the view it has.
            server.stop()
            expect(notice).to_be_visible()
            quiet = restart()
            expect(playable).to_have_count(listed)
            assert page.get_attribute("main", "data-etag") == created.view.etag

            # An outage with a click in it: the move waits, and is sent once the server is back.
            server.stop()
            expect(notice).to_be_visible()
            playable.first.click()
            sending = page.locator("[data-testid=sending]")
            expect(sending).to_be_visible()
            clicked = restart()
            expect(sending).to_be_hidden()
            after = croupier.get(created.name, credentials[me])
            assert after.move_count == 1  # applied, and once
            expect(page.locator(f"main[data-etag='{after.etag}']")).to_be_attached()
            assert page.query_selector("[data-testid=refusal]") is None

            # The other seat plays until this one is to act again (One Card: a card may keep
            # the turn): its moves are listed again, from the live watch.
            view = croupier.get(created.name, credentials[me])
            while not view.legal_moves and not view.HasField("result"):
                mover = credentials[view.active_seats[0]]
                croupier.apply(created.name, mover, croupier.legal_moves(created.name, mover)[0])
                view = croupier.get(created.name, credentials[me])
            expect(page.locator(f"main[data-etag='{view.etag}']")).to_be_attached()
            expect(playable).to_have_count(len(view.legal_moves))
        print(f"\nnotice gone {quiet:.1f} s after the restart; {clicked:.1f} s with a move waiting")
    finally:
        server.stop()


def seat_link(server: WebServer, name: str, credential: str, seat: int = 0) -> str:
    """A seat's link as the lobby makes it: the credential after #."""
    fragment = urllib.parse.urlencode({"game": name, "seat": str(seat), "cred": credential})
    return f"{web(server)}/#{fragment}"


def test_a_stale_credential_an_expired_game_and_an_operator_only_server_say_so(
    redis_server: EmbeddedRedis, page: Page
) -> None:
    """Bad input, for real: a credential that was reissued (the old link is stale),
    a game that expired (--game-ttl), and a lobby on a server where only the operator creates
    games (OPERATOR_KEY_MISSING): each shows its message on the page."""
    key = "operator-key-of-this-test"
    server = WebServer(redis_server.url, extra=("--operator-key", key, "--game-ttl", "2")).start()
    error = page.locator("[data-testid=error]")
    try:
        page.goto(web(server) + "/")
        page.click("#create")
        expect(error).to_contain_text("only its operator")
        with Croupier(server.target, operator_key=key) as croupier:
            stale = croupier.create(options_for("trinity"), 3)
            old = stale.seat_credentials[0]
            croupier.reissue(stale.name, 0)
            expiring = croupier.create(options_for("trinity"), 3)
            # Only the link's fragment changes: the lobby's message goes with the lobby.
            page.goto(seat_link(server, stale.name, old))
            expect(error).to_contain_text("credential is not accepted")
            # The game's TTL (2 s): once the server no longer finds it, nor does the page.
            deadline = time.monotonic() + PATIENCE_MS / 1000
            while gettable(croupier, expiring.name, expiring.seat_credentials[0]):
                assert time.monotonic() < deadline, "the game did not expire"
                time.sleep(0.1)
        page.goto("about:blank")
        page.goto(seat_link(server, expiring.name, expiring.seat_credentials[0]))
        expect(error).to_contain_text("expired")
    finally:
        server.stop()


def gettable(croupier: Croupier, name: str, credential: str) -> bool:
    """Whether GetGame finds the game (False: NOT_FOUND)."""
    try:
        croupier.get(name, credential)
    except CroupierError as refused:
        if refused.code != grpc.StatusCode.NOT_FOUND:
            raise
        return False
    return True


def test_no_credential_reaches_the_server_log(
    table: WebServer, server_log: Path, page: Page
) -> None:
    """The links carry credentials in the fragment, which browsers never send: after a table
    was opened and played here (and, in a whole run, every test above), the server's log of
    every request holds none of the game's credentials."""
    links = create_in_lobby(page, web(table), "vampire_queen", 3, {"rounds": "1"})
    page.goto(links[0])
    page.wait_for_selector("[data-testid=hand]")
    credentials = set(re.findall(r"cs_[A-Za-z0-9_-]+", urllib.parse.unquote(links[0])))
    assert len(credentials) == 1  # the seat's own: the server's bots have none
    deadline = time.monotonic() + GAME_LIMIT_S
    made = 0  # a few moves, this seat's own (an ApplyMove of its credential) and the bots'
    while made < 1 or len(page.query_selector_all(".log li")) < 4:
        assert time.monotonic() < deadline
        if click_a_move(page):
            made += 1
        else:
            page.wait_for_timeout(100)
    # A call's log line is written once it is answered: wait for this seat's move in the log.
    deadline = time.monotonic() + PATIENCE_MS / 1000
    while "ApplyMove" not in (log := server_log.read_text()):
        assert time.monotonic() < deadline, "no ApplyMove in the server's log"
        time.sleep(0.1)
    assert "GetGame" in log and "ApplyMove" in log  # the requests are logged...
    assert not any(credential in log for credential in credentials)  # ...with no credential,
    assert re.search(r"\bcs_[A-Za-z0-9_-]{16,}", log) is None  # of this game or any other


# ---- the bugs players met: each with its test ----


def test_one_click_makes_one_game_and_copy_says_so(table: WebServer, browser: Browser) -> None:
    """Once a game is created the button stays disabled (a second click would silently make
    another game and replace the links) until "Create another game"; "Copy" says it copied,
    and the clipboard holds the seat's link."""
    context = patient(browser.new_context(viewport=DESKTOP, locale="en-US"))
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web(table))
    page = context.new_page()
    watched = Watched(page)
    links = create_in_lobby(page, web(table), "trinity", 3, {})
    create = page.locator("#create")
    expect(create).to_be_disabled()
    expect(create).to_have_text("Game created")
    create.click(force=True)  # a second click does nothing
    page.wait_for_timeout(300)
    assert watched.paths.count("/croupier.v1.GameService/CreateGame") == 1
    assert page.get_attribute("[data-testid=link-0]", "href") == links[0]
    page.click("[data-key=copy-0]")
    expect(page.locator("[data-testid=copied-0]")).to_have_text("✓ Copied")
    assert page.evaluate("navigator.clipboard.readText()") == links[0]
    page.click("#another")  # starts afresh: the button works again
    expect(create).to_be_enabled()
    assert page.query_selector("[data-testid^=link-]") is None
    context.close()


def test_two_equal_cards_selected_offer_only_the_moves_of_both(
    table: WebServer, page: Page
) -> None:
    """Vampire Queen: with two 7s selected, "Play vampire 7" (one card) is no longer offered,
    only the moves that use both."""
    with Croupier(table.target) as croupier:
        for seed in range(1, 200):  # a deal whose leader holds a pair it may lead
            created = croupier.create(options_for("vampire_queen"), 3, seed=seed)
            seat = created.view.active_seats[0]
            credential = created.seat_credentials[seat]
            view = croupier.get(created.name, credential)
            pairs = [m.vampire_queen.play.cards for m in view.legal_moves
                     if len(m.vampire_queen.play.cards) == 2
                     and len(set(m.vampire_queen.play.cards)) == 1]  # fmt: skip
            if pairs:
                break
        else:
            pytest.fail("no deal of 200 gives its leader a pair")
    page.goto(seat_link(table, created.name, credential, seat))
    page.wait_for_selector(PLAYABLE)
    key = f"v{pairs[0][0]}"
    page.click(f"[data-testid=hand] [data-card='{key}'][aria-pressed=false] >> nth=0")
    single = len(page.query_selector_all(PLAYABLE))
    page.click(f"[data-testid=hand] [data-card='{key}'][aria-pressed=false] >> nth=0")
    labels = [b.inner_text() for b in page.query_selector_all(PLAYABLE)]
    assert labels and len(labels) < single, labels
    assert all(label.count(" + ") >= 1 for label in labels), labels  # two cards or more
    assert "No legal move" not in page.inner_text(".selection")


def test_revealed_trinity_cards_show_their_rank(table: WebServer, page: Page) -> None:
    """A Trinity hand card revealed by a Spade (TR-4.4) is drawn small in its seat's panel:
    its rank is seen there, not only its suit."""
    with Croupier(table.target) as croupier:
        found = None
        choose = random.Random(1)
        for seed in range(1, 60):
            created = croupier.create(options_for("trinity"), 3, seed=seed)
            credentials = list(created.seat_credentials)
            for _ in range(120):
                view = croupier.get(created.name)
                if view.HasField("result"):
                    break
                if any(s.revealed for s in view.trinity.seats):
                    found = (created.name, credentials, view)
                    break
                seat = view.active_seats[0]
                moves = croupier.legal_moves(created.name, credentials[seat])
                croupier.apply(created.name, credentials[seat], choose.choice(moves))
            if found is not None:
                break
        assert found is not None, "no Spade revealed a card in 60 games"
    name, credentials, view = found
    revealer = next(s.seat for s in view.trinity.seats if s.revealed)
    viewer = (revealer + 1) % 3
    page.goto(seat_link(table, name, credentials[viewer], viewer))
    small = page.locator(f"[data-testid=seat-{revealer}] .cards.small .card")
    expect(small.first).to_be_visible()
    for card in small.all():
        label = card.get_attribute("aria-label") or ""
        shown = card.inner_text().replace("\n", "")
        assert shown == label, (shown, label)  # rank and suit, as the label says


def test_other_seats_moves_are_shown_at_the_chosen_pace(table: WebServer, page: Page) -> None:
    """The server's bots answer at once; the page shows other seats' moves one at a time, at
    the pace chosen in the header (kept in localStorage), while the server is not slowed: it
    is already at this seat's turn while the page still shows the bots' moves."""
    with Croupier(table.target) as croupier:
        created = croupier.create(
            options_for("vampire_queen"), 3, bot_levels=["", "random", "random"]
        )
        credential = created.seat_credentials[0]
        page.goto(seat_link(table, created.name, credential))
        page.wait_for_selector("[data-testid=hand]")
        page.select_option("#pace", "1600")
        assert page.evaluate("localStorage.getItem('croupier.pace')") == "1600"
        page.evaluate(
            "window.shown = []; new MutationObserver(() => {"
            " const etag = document.querySelector('main')?.dataset.etag;"
            " if (etag && etag !== window.shown.at(-1)?.[0])"
            "  window.shown.push([etag, performance.now()]);"
            " }).observe(document.body, {subtree: true, childList: true, attributes: true})"
        )
        ahead = False
        for _ in range(2):  # two of this seat's moves, each followed by both bots'
            page.wait_for_selector(PLAYABLE)
            page.click(PLAYABLE)
            page.wait_for_timeout(300)
            server = croupier.get(created.name, credential)
            ahead |= server.move_count > int(page.get_attribute("main", "data-etag") or 0) - 1
        shown = page.evaluate("window.shown")
    gaps = [b[1] - a[1] for a, b in itertools.pairwise(shown)]
    assert any(gap >= 1400 for gap in gaps), gaps  # a bot's move waited for the pace
    assert ahead, "the server was never ahead of the page: nothing was paced"


def events_to(target: str, name: str, credential: str, last: str) -> dict[str, int]:
    """The seat's events counted from the game's start up to each etag, through etag `last`
    (the seat's watch replayed from the game's first etag)."""
    counted: dict[str, int] = {}
    total = 0
    with Croupier(target) as croupier:
        for update in croupier.watch(name, credential, since_etag="1"):
            total += len(update.events)
            counted[update.view.etag] = total
            if int(update.view.etag) >= int(last):
                return counted
    return counted


def test_the_log_and_the_view_advance_together(table: WebServer, page: Page) -> None:
    """Pig Mau Mau, two bots, at the fast pace: the seat's own moves (ApplyMove's answer) and
    the other seats' (the watch, at the pace) go through one queue, so at every change of the
    page the log holds exactly the events of the moves up to the view shown: never the seat's
    own move on the table while the log still waits for the bots' moves before it."""
    options = json_format.ParseDict({"finishDistance": 5}, options_for("pig_mau_mau"))
    with Croupier(table.target) as croupier:
        created = croupier.create(options, 3, bot_levels=["", "random", "random"], seed=5)
    credential = created.seat_credentials[0]
    page.goto(web(table) + "/")
    page.evaluate("localStorage.setItem('croupier.pace', '400')")
    page.goto("about:blank")
    page.goto(seat_link(table, created.name, credential))
    page.wait_for_selector("[data-testid=hand]")
    page.evaluate(
        "window.seen = []; new MutationObserver(() => {"
        " const etag = document.querySelector('main')?.dataset.etag;"
        " const lines = document.querySelectorAll('[data-testid=log] li').length;"
        " if (etag) window.seen.push([etag, lines]);"
        " }).observe(document.body, {subtree: true, childList: true, attributes: true})"
    )
    made = 0
    deadline = time.monotonic() + GAME_LIMIT_S
    while made < 12 and not finished(page):
        assert time.monotonic() < deadline
        if click_a_move(page):
            made += 1
        else:
            page.wait_for_timeout(30)
    seen: list[tuple[str, int]] = [tuple(s) for s in page.evaluate("window.seen")]
    last = max(seen, key=lambda s: int(s[0]))[0]
    counted = events_to(table.target, created.name, credential, last)
    # From the first moment the log has caught up with the history (on arrival the view comes
    # first, then the log from the game's first etag), log and view agree at every change.
    agree = [lines == min(counted[etag], 400) for etag, lines in seen]
    assert True in agree, seen
    first = agree.index(True)
    wrong = [(etag, lines, counted[etag]) for etag, lines in seen[first:] if lines != counted[etag]]
    assert all(agree[first:]), wrong[:10]
    assert len({etag for etag, _ in seen[first:]}) > made, "too few views shown to tell"


def test_the_lobby_pages_through_every_open_table(table: WebServer, page: Page) -> None:
    """More public tables with open seats than one page of ListGames holds (the lobby asks for
    50): the lobby shows the first page and "More tables", which reads the next, until every
    table is listed."""
    with Croupier(table.target) as croupier:
        made = [
            croupier.create(options_for("one_card"), 2, open_seats=True, public=True,
                            player_ids=["p-many-tables", ""]).name
            for _ in range(55)
        ]  # fmt: skip
        try:
            page.goto(web(table) + "/")
            listed = page.locator("[data-testid=open-table]")
            expect(listed.first).to_be_visible()
            first = set(listed.evaluate_all("els => els.map(e => e.dataset.game)"))
            assert len(first) <= 50 and not set(made) <= first, len(first)
            more = page.locator("[data-testid=more-tables]")
            for _ in range(10):  # a page may hold fewer than asked for: as often as offered
                if not more.is_visible():
                    break
                count = listed.count()
                more.click()
                expect(listed).not_to_have_count(count)
            names = listed.evaluate_all("els => els.map(e => e.dataset.game)")
            assert set(made) <= set(names), len(set(made) - set(names))
            assert len(names) == len(set(names))  # none twice
            expect(more).to_be_hidden()
        finally:  # the tables taken, so no other test's lobby lists them
            for name in made:
                with contextlib.suppress(CroupierError):
                    croupier.join(name, "")


def test_the_rematch_takes_every_seat_to_it(table: WebServer, browser: Browser) -> None:
    """At the end, Rematch on one seat's page makes the rematch (CreateGame with rematch_of)
    and takes that seat there; the other seat's page, open on the result, goes there too, each
    with its own credential (a rematch keeps them)."""
    choose = random.Random(2)
    with Croupier(table.target) as croupier:
        created = croupier.create(options_for("vampire_queen"), 3, bot_levels=["", "", "random"])
        credentials = list(created.seat_credentials)
        while not (view := croupier.get(created.name)).HasField("result"):
            if not view.active_seats:
                time.sleep(0.01)
                continue
            seat = view.active_seats[0]
            if seat == 2:  # the bot's turn: the server plays it
                time.sleep(0.01)
                continue
            moves = croupier.legal_moves(created.name, credentials[seat])
            if moves:  # (a move that raced the bot's is refused: the view is read again)
                with contextlib.suppress(CroupierError):
                    croupier.apply(created.name, credentials[seat], choose.choice(moves))
    contexts = [patient(browser.new_context(viewport=DESKTOP)) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    for seat, page in enumerate(pages):
        page.goto(seat_link(table, created.name, credentials[seat], seat))
        page.wait_for_selector("[data-testid=result]")
    pages[0].click("#rematch")
    for seat, page in enumerate(pages):
        page.wait_for_function(
            "(name) => !decodeURIComponent(location.hash).includes(name)", arg=created.name
        )
        expect(page.locator("[data-testid=hand]")).to_be_visible()
        assert page.query_selector("[data-testid=result]") is None
        name, credential = link_parts(page.url)
        assert credential == credentials[seat] and name != created.name
    assert link_parts(pages[0].url)[0] == link_parts(pages[1].url)[0]  # one rematch for all
    for context in contexts:
        context.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_two_people_and_a_bot_through_the_lobby_list(
    game: str, table: WebServer, browser: Browser
) -> None:
    """Ana names herself and opens a public table with a turn clock: her seat, one open seat,
    one bot. Bo, named, finds it under Open tables (game, seats taken, names, clock) and joins
    with one click (a public game's seat needs no join code); both play it to the end."""
    _, options = GAMES[game]
    contexts = [
        at_once(patient(browser.new_context(viewport=DESKTOP, locale="en-US"))) for _ in range(2)
    ]
    ana, bo = (context.new_page() for context in contexts)
    watched = [Watched(ana), Watched(bo)]
    ana.goto(web(table) + "/")
    ana.fill("#name", "Ana")
    ana.select_option("#game", game)
    ana.fill("#seats", "3")
    ana.dispatch_event("#seats", "input")
    for key, value in options.items():
        ana.fill(f"#opt-{key}", value)
    ana.set_checked(".bot-seat[data-seat='1']", False)
    ana.set_checked(".bot-seat[data-seat='2']", True)
    ana.check("#open-seats")
    expect(ana.locator("#public")).to_be_checked()
    ana.fill("#clock", "120")
    ana.fill("#bank", "60")
    ana.click("#create")
    expect(ana.locator("[data-testid=waiting]")).to_contain_text("open seats")
    assert ana.get_attribute("[data-testid=invite]", "href")  # the join link, to hand out
    name, _ = link_parts(ana.url)
    bo.goto(web(table) + "/")
    bo.fill("#name", "Bo")
    listed = bo.locator(f"[data-testid=open-table][data-game='{name}']")
    expect(listed).to_contain_text("Ana")
    expect(listed).to_contain_text("2/3 seats taken")
    expect(listed).to_contain_text("120 s + 60 s")
    listed.locator("[data-testid=join]").click()
    bo.wait_for_selector("[data-testid=hand]")
    assert link_parts(bo.url)[0] == name and "seat=1" in bo.url
    expect(bo.locator("[data-testid=seat-0] .seat-name")).to_contain_text("Ana")
    expect(bo.locator("[data-testid=seat-1] .seat-name")).to_contain_text("Bo")
    expect(ana.locator("[data-testid=waiting]")).to_have_count(0)  # the table is full
    deadline = time.monotonic() + GAME_LIMIT_S
    while not (finished(ana) and finished(bo)):
        assert time.monotonic() < deadline, "the game did not reach its result in time"
        if not (click_a_move(ana) | click_a_move(bo)):
            ana.wait_for_timeout(60)
    for page in (ana, bo):
        expect(page.locator("[data-testid=headline]")).to_be_visible()
    for w in watched:  # (a move that lost a race with the other person's is refused: 409)
        assert [e for e in w.errors if "status of 409" not in e] == []
    for context in contexts:
        context.close()


PHONE_SMALL: ViewportSize = {"width": 375, "height": 667}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_phone_keeps_the_moves_in_view_and_shows_the_result(
    lang: str, table: WebServer, browser: Browser
) -> None:
    """At 375 by 667 pixels, in Korean and in English: at every turn of the seat its moves
    are on the screen (the sticky action bar) and nothing is wider than it; the tab's title
    says it is the seat's turn; at the end the result is scrolled into view. Two rounds: the
    score sheet is on the phone too."""
    context = at_once(patient(browser.new_context(viewport=PHONE_SMALL, locale="en-US")))
    context.add_init_script(f"try {{ localStorage.setItem('croupier.lang', {lang!r}) }} catch {{}}")
    page = context.new_page()
    options = json_format.ParseDict({"rounds": 2}, options_for("vampire_queen"))
    with Croupier(table.target) as croupier:
        created = croupier.create(options, 3, bot_levels=["", "random", "random"])
    page.goto(seat_link(table, created.name, created.seat_credentials[0]))
    page.wait_for_selector("[data-testid=hand]")
    turn = "내 차례" if lang == "ko" else "Your turn"
    checks = 0

    def at_move(made: int) -> None:
        nonlocal checks
        if page.query_selector(PLAYABLE) is None:
            return
        assert fits_the_width(page), "the table is wider than the phone"
        # The action bar is on the screen, its first move too; a long list scrolls inside it.
        # (Read in one evaluation: the next view may take the moves away.)
        title, *boxes = page.evaluate(
            "(playable) => [document.title, ...[document.querySelector('[data-testid=moves]'),"
            " document.querySelector(playable)].map(e => { if (!e) return null;"
            " const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; })]",
            PLAYABLE,
        )
        if None in boxes:
            return  # the seat moved on meanwhile
        for top, bottom, left, right in boxes:
            assert top >= 0 and bottom <= 667 + 1 and left >= -8 and right <= 375 + 8, boxes
        assert title.startswith(f"● {turn}"), title
        if made == 2 and lang == "ko":
            page.screenshot(path=SCREENSHOTS / "phone-ko.png")
        checks += 1

    play_until_result(page, click_a_move, at_move=at_move)
    assert checks > 0
    expect(page.locator("[data-testid=sheet-row]")).to_have_count(2)
    assert fits_the_width(page), "the score sheet is wider than the phone"
    box = page.locator("[data-testid=result]").bounding_box()
    assert box is not None and box["y"] < 667 and box["y"] + 40 > 0, box  # in view
    assert turn not in page.title()
    context.close()


def test_a_refusal_and_the_result_in_korean(table: WebServer, page: Page) -> None:
    """The page writes the server's texts for people in the page's language, from what the
    answers carry for programs: a refusal from its reason and rule id (the server's message is
    English). (The result from its fields: the Korean Trinity game of the whole games.)"""
    with Croupier(table.target) as croupier:
        created = croupier.create(options_for("vampire_queen"), 3)
        seat = created.view.active_seats[0]  # the leader: any set of equal cards may lead
        credential = created.seat_credentials[seat]
        page.goto(web(table) + "/")
        page.evaluate("localStorage.setItem('croupier.lang', 'ko')")
        page.goto("about:blank")
        page.goto(seat_link(table, created.name, credential, seat))
        page.wait_for_selector(PLAYABLE)
        keys = sorted(set(dom_hand(page)))
        for key in (keys[0], keys[-1]):  # two ranks: VQ refuses a lead of mixed ranks
            page.click(f"[data-testid=hand] [data-card='{key}'] >> nth=0")
        page.click("#play-selected")
        text = page.inner_text("[data-testid=refusal]")
        assert text.startswith("거절됨: ILLEGAL_MOVE [VQ-"), text
        assert "규칙 VQ-" in text and not re.search("[a-z]{4,}", text.split("—", 1)[1]), text
