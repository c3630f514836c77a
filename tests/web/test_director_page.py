"""The tournament director's tablet (headless Chromium, in Russian): after the director's login
(HTTP Basic: the browser asks), a match put on a table, a walkover, a result corrected with the
later matches it changed named, the CSV export; each checked in the venue record, not on the
page alone. Without the login, or with no password configured, the page says why nothing was
done, and nothing was."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

import tournament as core
from controller.record import tournaments
from controller.record.director import DirectorSite
from controller.record.store import Store
from controller.web import WebConfig
from tests.web.harness import WebThread
from tests.web.test_tournament_page import known

TIMEOUT = 15000
PASSWORD = "пароль директора"


def test_a_director_assigns_gives_a_walkover_and_corrects(browser: Browser, tmp_path: Path,
                                                          artifacts: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    ids = known(store, 8)  # Вера, Глеб, Анна, Борис, Дарья, Егор, Жанна, Зиновий
    tid = tournaments.create(store, "club", "Кубок", tournaments.Setup(
        core.Format.SINGLE, tuple(ids), race=5, levels={"p1": 2}))
    for match, winner, score in [("W1-1", "p1", (5, 3)), ("W1-2", "p4", (5, 1))]:
        tournaments.act(store, "club", tid, lambda t, m=match, w=winner, s=score: t.record(m, w, s))
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store, PASSWORD)).start()
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, http_credentials={
        "username": "director", "password": PASSWORD})  # what the director types when asked
    try:
        page = context.new_page()
        page.goto(server.url + f"director.html?lang=ru&id={tid}")
        page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)
        said = page.locator("#said")
        page.fill("[data-table='W1-3']", "2")
        page.locator("tr[data-match='W1-3'] button", has_text="На стол").click()
        expect(said).to_have_text("Готово. Следующие матчи не изменились.", timeout=TIMEOUT)
        # a score half-typed in one row while another row's action is answered: the answer
        # redraws the rows, and what was typed stays (it once went, and «3:5» was never sent)
        page.fill("[data-score='W1-1']", "3:5")
        page.locator("tr[data-match='W1-4'] [data-walkover='p6']").click()  # Егор did not come
        expect(said).to_have_text("Готово. Следующие матчи не изменились.", timeout=TIMEOUT)
        expect(page.locator("tr[data-match='W1-4']")).to_contain_text("Анна (неявка)")
        expect(page.locator("[data-score='W1-1']")).to_have_value("3:5")
        semi = page.locator("tr[data-match='W2-1']")
        expect(semi).to_contain_text("Вера — Борис")
        expect(semi).to_contain_text("Борис +2")  # «фора» by the levels: the weaker starts ahead
        page.locator("[data-correct='W1-1']").click()  # Зиновий won W1-1 after all
        expect(said).to_have_text("Готово. Изменились следующие матчи: W2-1", timeout=TIMEOUT)
        expect(semi).to_contain_text("Зиновий — Борис")
        expect(page.locator("tr[data-match='W1-1']")).to_contain_text("Зиновий 5:3")
        page.locator("tr[data-match='W1-3'] button", has_text="На стол").wait_for()
        page.fill("[data-table='W2-1']", "2")
        page.locator("tr[data-match='W2-1'] button", has_text="На стол").click()
        expect(said).to_have_text("Не сделано: на этом столе уже есть матч, или игрок этого матча за "
                                  "другим столом", timeout=TIMEOUT)
        page.screenshot(path=str(artifacts / "tournament-director.png"), full_page=True)
        with page.expect_download() as download:
            page.get_by_text("Выгрузить (CSV)").click()
        sheet = Path(download.value.path()).read_text(encoding="utf-8-sig")
    finally:
        context.close()
        server.stop()
    kept = tournaments.load(store, "club", tid)
    assert dict(kept.tables) == {"W1-3": "2"}
    assert (kept.results["W1-4"].winner, kept.results["W1-4"].walkover) == ("p3", True)
    assert (kept.results["W1-1"].winner, kept.results["W1-1"].score) == ("p8", (3, 5))
    assert "W1-1;W1;Вера;Зиновий;Зиновий;3:5;;;played" in sheet.splitlines()


@pytest.mark.parametrize(("password", "language", "said"), [
    (PASSWORD, "en", "Not done: the director's login is needed (user director and the "
                     "director's password)"),
    (None, "ru", "Не сделано: у записи клуба не задан пароль директора, поэтому турнир менять "
                 "нельзя (--director-password-file у записи клуба)")],
    ids=["wrong-login-en", "no-password-ru"])
def test_without_the_login_the_tablet_says_why_nothing_was_done(
        browser: Browser, tmp_path: Path, password: str | None, language: str, said: str) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    tid = tournaments.create(store, "club", "Кубок", tournaments.Setup(
        core.Format.SINGLE, tuple(known(store, 8)), race=5))
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store, password)).start()
    # a wrong password typed when the browser asks: the page gets the 401
    page = browser.new_page(http_credentials={"username": "director", "password": "угадай"})
    try:
        page.goto(server.url + f"director.html?lang={language}&id={tid}")
        page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)  # the bracket is open
        page.locator("tr[data-match='W1-1'] [data-walkover='p8']").click()
        expect(page.locator("#said")).to_have_text(said, timeout=TIMEOUT)
    finally:
        page.close()
        server.stop()
    assert tournaments.load(store, "club", tid).results == {}


def test_with_no_answer_from_the_record_the_tablet_says_it_is_not_known(
        browser: Browser, tmp_path: Path) -> None:
    """The record's server gone between the page's load and the director's tap: neither
    «Готово» nor «Не сделано» (the record might have done it), and what was typed stays."""
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    tid = tournaments.create(store, "club", "Кубок", tournaments.Setup(
        core.Format.SINGLE, tuple(known(store, 8)), race=5))
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store, PASSWORD)).start()
    page = browser.new_page(http_credentials={"username": "director", "password": PASSWORD})
    try:
        page.goto(server.url + f"director.html?lang=ru&id={tid}")
        page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)
        server.stop()
        page.fill("[data-table='W1-1']", "3")
        page.locator("tr[data-match='W1-1'] button", has_text="На стол").click()
        expect(page.locator("#said")).to_have_text(
            "Нет ответа от записи клуба: сделано ли — неизвестно. Обновите страницу и проверьте.",
            timeout=TIMEOUT)
        expect(page.locator("[data-table='W1-1']")).to_have_value("3")
    finally:
        page.close()
    assert dict(tournaments.load(store, "club", tid).tables) == {}
