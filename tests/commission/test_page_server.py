"""The commissioning page on the house's one HTTP server: what is not a proper request is
refused with its status and does nothing (before, a hand-read ``Content-Length`` of ``lots``
raised out of the handler and a body over the limit was dropped without an answer)."""

from __future__ import annotations

import asyncio
import json

import pytest

from controller.commission.steps import Step, StepKind
from controller.commission.web import MAX_BODY, Board, CommissionPage, WebInstaller


async def _say(page: CommissionPage, raw: bytes) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", page.server.port)
    writer.write(raw)
    await writer.drain()
    async with asyncio.timeout(10):
        answer = await reader.read()
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _post(target: str, body: bytes, *, length: str | None = None) -> bytes:
    size = str(len(body)) if length is None else length
    return (f"POST {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Content-Length: {size}\r\n\r\n").encode() + body


async def _nothing() -> str:
    raise AssertionError("nothing may be written")


@pytest.mark.parametrize(("length", "body", "status"), [
    ("lots", b"", 400),
    ("-5", b"", 400),
    (None, b'{"action": "close", "pad": "' + b"x" * MAX_BODY + b'"}', 413),
    (None, b"not json", 400),
])
async def test_a_malformed_action_is_refused_and_changes_nothing(
        length: str | None, body: bytes, status: int) -> None:
    board = Board([Step("break", StepKind.BREAK)])
    board.current = 0
    installer = WebInstaller(board)
    async with CommissionPage(board, installer, "127.0.0.1", 0, _nothing) as page:
        key = page.key
        got, _ = await _say(page, _post(f"/action?key={key}", body, length=length))
        assert got == status
        assert not installer.said_done.is_set() and not page.closed.is_set() and not board.closed
        # and the page serves on: the state, then a proper action
        got, state = await _say(page, b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert got == 200 and json.loads(state)["current"] == 0
        got, _ = await _say(page, _post(f"/action?key={key}", b'{"action": "done"}'))
        assert got == 200 and installer.said_done.is_set()


async def test_an_action_without_the_key_is_forbidden() -> None:
    board = Board([])
    installer = WebInstaller(board)
    async with CommissionPage(board, installer, "127.0.0.1", 0, _nothing) as page:
        got, _ = await _say(page, _post("/action?key=wrong", b'{"action": "close"}'))
        assert got == 403 and not page.closed.is_set()
