"""A table's refusals, as the console words them in Russian: the refusal text comes from the
real table (the replay of a trace), its words from the Russian catalogue the page loads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.tracekit import TraceBuilder
from tests.web.harness import WebThread

FOUR = ["f", "h", "lh", "rf"]


def _refusal(trace: TraceBuilder, name: str) -> str:
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    (response,) = [m.payload for m in out if m.topic == f"response/{name}"]
    assert response["status"] == "error"
    return str(response["error"])


def _worded(browser: Browser, web: WebThread, reason: str) -> Any:
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    try:
        page.goto(web.url + "console.html?table=t1&lang=ru")
        # the page's own modules (the same instances the console runs on)
        page.evaluate("async () => { window.i18n = await import('./i18n.js');"
                      " window.words = await import('./words.js'); }")
        # the Russian words loaded (English, the fallback, is there first)
        page.wait_for_function("() => i18n.LANG === 'ru' && i18n.STRINGS.ru !== undefined"
                               " && 'err.no_match' in i18n.STRINGS.ru")
        return page.evaluate(f"() => words.errorText({json.dumps(reason)}, "
                             "{state: null, questions: new Map()})")
    finally:
        page.close()


@pytest.mark.parametrize("back, last", [
    pytest.param(["undo"], 2, id="after-undo"),
    pytest.param(["undo", "redo"], 3, id="after-redo"),
])
def test_a_correction_refused_after_an_undo_is_worded_in_russian(browser, web, back, last):
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .shot(cushions=FOUR, gap=8.0).shot(cushions=FOUR, gap=8.0))
    for name in back:
        trace = trace.request(name)
    reason = _refusal(trace.request("declare", {"first_contact": None, "shot": last}, dt=1.0),
                      "declare")
    assert _worded(browser, web, reason).startswith(f"удар {last} вернулся отменой или возвратом")
