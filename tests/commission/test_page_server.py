"""The commissioning page on the house's one HTTP server: what is not a proper request is
refused with its status and does nothing (before, a hand-read ``Content-Length`` of ``lots``
raised out of the handler and a body over the limit was dropped without an answer)."""

from __future__ import annotations

import asyncio
import json

import pytest

from controller.commission.steps import Step, StepKind
from controller.commission.web import MAX_BODY, Board, CommissionPage, WebInstaller
from vocabulary import Pocket


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


async def test_the_page_gets_its_words_as_the_other_pages_do_and_the_session_in_its_language(
        ) -> None:
    from controller.commission.analysis import Finding, Problem, Report
    from controller.commission.words import Said

    board = Board([Step("beam.hl", StepKind.POCKET, Pocket.HEAD_LEFT)], current=0)
    installer = WebInstaller(board)
    async with CommissionPage(board, installer, "127.0.0.1", 0, _nothing, "ru") as page:
        def get(target: str) -> bytes:
            return f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()

        status, config = await _say(page, get("/config.json"))
        assert status == 200 and json.loads(config) == {"language": "ru"}
        status, words = await _say(page, get("/lang/ru.json"))
        assert status == 200 and json.loads(words)["commission.page.done"] == "Готово"
        status, script = await _say(page, get("/i18n.js"))
        assert status == 200 and b"function chooseLanguage" in script
        assert (await _say(page, get("/lang/xx.json")))[0] == 404
        # the table's language, unless the page asks for another
        _, state = await _say(page, get("/state"))
        assert json.loads(state)["steps"][0]["instruction"].startswith("Медленно закатите шар")
        _, state = await _say(page, get("/state?lang=en"))
        assert json.loads(state)["steps"][0]["instruction"].startswith("Roll a ball slowly")
        board.report = Report(channel_map={"beam.hl": None}, findings=[Finding(
            "beam.hl", Problem.DEAD, Said("f.dead"), Said("f.dead.fix_pin", {"pin": 5}))])
        _, state = await _say(page, get("/state?lang=ru"))
        assert json.loads(state)["findings"] == [{
            "channel": "beam.hl", "problem": "молчит", "detail": "на его шаг ничего не ответило",
            "fix": "проверьте питание датчика, его провод и разъём (GPIO 5)"}]
        status, answer = await _say(page, _post(f"/action?key={page.key}&lang=ru",
                                                b'{"action": "done"}'))
        assert status == 409 and json.loads(answer) == {"error": "ни один шаг не ждёт"}
