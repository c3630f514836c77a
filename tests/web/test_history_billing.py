"""The history page in Russian (headless Chromium, a real record in SQLite): tables named as
the catalogue names them («Стол 6»), the list ordered by the start it shows, dates in the
page's locale and time zone, and the billing CSV link asking for the page's language and
time zone (issue 41, item 10)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.record import stats
from controller.record.store import Progress, Store, Stored
from controller.record.web import RecordSite
from controller.web import WebConfig
from tests.web.harness import WebThread

TIMEOUT = 8000


def at(hour: int) -> float:
    return datetime(2026, 12, 6, hour, tzinfo=UTC).timestamp()


def played(store: Store, table: str, start: float, end: float) -> None:
    """A match on ``table`` from ``start`` to ``end`` (the table's clock the wall's)."""
    body = [("match_started", {"match_id": "m-1", "game": "ten-ball", "players": ["Анна", "Борис"]},
             start), ("match_over", {"winner": 0}, end)]
    store.add([Stored("club", table, n, "event", {"v": 1, "seq": n, "ts": ts, "type": kind,
                                                  "data": data})
               for n, (kind, data, ts) in enumerate(body, start=1)],
              progress={("club", table, ""): Progress(2, 2)}, received=end)


def test_the_russian_history_names_tables_orders_by_start_and_links_billing_in_its_zone(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    # ended 16:00, 14:00, 15:00 UTC: by the end, table 6 would come first
    played(store, "t6", at(12), at(16))
    played(store, "t2", at(13), at(14))
    played(store, "t10", at(11), at(15))
    assert stats.summarize_finished(store) == 3
    server = WebThread(WebConfig(), record=RecordSite(store)).start()
    context = browser.new_context(viewport={"width": 1280, "height": 720},
                                  timezone_id="Asia/Yekaterinburg")  # UTC+5, no summer time
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "history.html?lang=ru")
        rows = page.locator("#history tbody tr")
        expect(rows).to_have_count(3, timeout=TIMEOUT)
        firsts = [[cell.strip() for cell in row.split("\t")][:2]
                  for row in rows.all_inner_texts()]
        assert firsts == [["6 дек. 2026 г., 18:00", "Стол 2"],
                          ["6 дек. 2026 г., 17:00", "Стол 6"],
                          ["6 дек. 2026 г., 16:00", "Стол 10"]]
        link = page.locator(".exports a")
        expect(link).to_have_attribute("href", "record/sessions.csv?lang=ru&tz=300")
        page.screenshot(path=str(artifacts / "history-list-ru.png"))
        got = page.request.get(server.url + str(link.get_attribute("href")))
        text = got.body().decode("utf-8")
        assert got.status == 200 and text.startswith("\ufeff")
        assert "Стол 6;" in text and "18:00" in text  # table 2's start, in the page's zone
        page.goto(server.url + "history.html?lang=ru&match=club~t6~~m-1")
        expect(page.locator('[data-field="match"]')).to_contain_text(
            "Стол 6 · Десятка", timeout=TIMEOUT)
        assert errors == []
    finally:
        context.close()
        server.stop()
        store.close()
