"""The pages on a broker that wants passwords, with the venue's own ACL (deploy/mosquitto):
the dashboard logs in as the read-only ``dashboard`` user, the console asks for the
``referee`` user, who may send requests; the dashboard's requests never reach the table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from controller.web import Credentials, WebConfig
from tests.broker import Broker, free_port, password_file
from tests.web.harness import LiveTable, WebThread

ROOT = Path(__file__).resolve().parents[2]
ACL = ROOT / "deploy" / "mosquitto" / "billiards.acl"
TIMEOUT = 8000


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Broker, WebThread, LiveTable]]:
    directory = tmp_path_factory.mktemp("venue")
    passwords = password_file(directory, {"club/t1": "tp", "dashboard": "dp", "referee": "rp"})
    ws_port = free_port()
    broker = Broker(directory / "broker", anonymous=False,
                    extra=f"password_file {passwords}\nacl_file {ACL}\n"
                          f"listener {ws_port} 127.0.0.1\nprotocol websockets")
    broker.start()
    table = LiveTable(broker.host, broker.port, "club", "t1", username="club/t1", password="tp").start()
    web = WebThread(WebConfig(broker=f"ws://{{host}}:{ws_port}", venue="club",
                              dashboard=Credentials("dashboard", "dp"))).start()
    try:
        yield broker, web, table
    finally:
        web.stop()
        table.stop()
        broker.stop()


def test_dashboard_reads_and_only_the_referee_user_reaches_the_table(
        browser: Browser, venue: tuple[Broker, WebThread, LiveTable], artifacts: Path) -> None:
    _, web, table = venue
    table.request("new_match", {"game": "siberian-ten", "players": ["Ann", "Bob"], "race_to": 2})
    dashboard = browser.new_page()
    dashboard.goto(web.url)
    card = dashboard.locator('[data-table="t1"]')
    expect(card.locator(".player .name")).to_have_text(["Ann", "Bob"], timeout=TIMEOUT)
    # the read-only user's request is dropped by the broker
    dashboard.evaluate("""() => window.billiards.client.publish('billiards/club/t1/request/end_match',
                          JSON.stringify({v: 1, transaction: 'from-the-dashboard'}), {qos: 1})""")

    console = browser.new_page()
    console.goto(web.url + "console.html?table=t1")
    login = console.locator("#login")
    expect(login).to_be_visible(timeout=TIMEOUT)
    console.fill("#login [name=password]", "wrong")
    console.click("#login button[type=submit]")
    expect(console.locator("#login-error")).to_contain_text("refused", timeout=TIMEOUT)
    console.fill("#login [name=password]", "rp")
    console.click("#login button[type=submit]")
    expect(console.locator("#connection")).to_have_text("connected", timeout=TIMEOUT)
    expect(console.locator('#card [data-table="t1"] .player .name')).to_have_text(["Ann", "Bob"],
                                                                                timeout=TIMEOUT)
    console.fill('[data-player-name="0"]', "Cleo")
    console.fill('[data-player-name="1"]', "Dan")
    console.on("dialog", lambda d: d.accept())  # "a match is in progress": yes
    console.click("#new-match button[type=submit]")
    expect(console.locator("#result")).to_have_text("New match: done (match m-2)", timeout=TIMEOUT)
    expect(card.locator(".player .name")).to_have_text(["Cleo", "Dan"], timeout=TIMEOUT)
    console.screenshot(path=str(artifacts / "console-login.png"))
    transactions = [payload.get("transaction") for _, payload in table.requests]
    assert "from-the-dashboard" not in transactions
    assert [name for name, _ in table.requests] == ["new_match"]
    assert json.dumps(transactions).count("web-") == 1
    dashboard.close()
    console.close()
