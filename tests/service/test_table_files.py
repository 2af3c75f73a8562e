"""The web gateway's file serving for the table page
(service/croupier/service/transport/web_gateway.py StaticFiles), called as the ASGI app it is: only
the plain files of its folder, by exact name."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from croupier.service.transport.web_gateway import TABLE_FOLDER, StaticFiles


async def _rpc_app(scope: Mapping[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"rpc"})


def _get(
    app: StaticFiles, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    sent: list[Mapping[str, Any]] = []

    async def receive() -> Mapping[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "method": method, "path": path,
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
    }  # fmt: skip
    asyncio.run(app(scope, receive, send))
    start = sent[0]
    found = {k.decode(): v.decode() for k, v in start.get("headers", ())}
    return start["status"], found, b"".join(m.get("body", b"") for m in sent[1:])


def test_only_the_plain_files_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "table.js").write_text("export {}")
    (tmp_path / "notes.txt").write_text("not a page file")  # an extension not served
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.js").write_text("x")
    secret = tmp_path.parent / "secret.css"
    secret.write_text("secret")
    (tmp_path / "link.css").symlink_to(secret)
    app = StaticFiles(_rpc_app, tmp_path)
    assert app.paths == {"/", "/index.html", "/table.js"}
    status, headers, body = _get(app, "/")
    assert (status, body) == (200, b"<!doctype html>")
    assert headers["content-type"] == "text/html; charset=utf-8"
    for path in ("/notes.txt", "/sub/x.js", "/link.css", "/../secret.css", "/sub", "/table.js/"):
        assert _get(app, path)[0] == 404, path
    status, headers, body = _get(app, "/table.js", headers={"Accept-Encoding": "gzip, br"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == b"export {}"
    assert _get(app, "/table.js", headers={"If-None-Match": headers["etag"]})[0] == 304
    assert _get(app, "/table.js", "HEAD")[2] == b""
    # Not a GET, or an RPC path: the RPC application's.
    assert _get(app, "/", "POST")[0] == 299
    assert _get(app, "/croupier.v1.GameService/GetGame")[0] == 299


def test_the_table_is_in_the_package() -> None:
    app = StaticFiles(_rpc_app, TABLE_FOLDER)
    assert {"/", "/table.js", "/table.css"} <= app.paths
