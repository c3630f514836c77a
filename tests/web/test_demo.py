"""``python -m controller demo`` serves the pages: its URL shows the simulated tables playing,
and a table left to a person (``--hand t2``) is played from its console while t1 plays on."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_prints_a_dashboard_url_that_shows_its_tables_live(browser: Browser,
                                                                    artifacts: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "demo.out"  # a file, not a pipe: the demo keeps printing scores
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "demo", "--seconds", "40",
                                 "--speed", "20", "--tables", "2", "--hand", "t2"], cwd=ROOT, stdout=sink,
                                stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "console:" not in out.read_text():
            assert proc.poll() is None, out.read_text()
            time.sleep(0.05)
        lines = out.read_text().splitlines()
        urls = [x.split()[1] for x in lines if x.startswith("dashboard:")]
        assert urls, lines
        url = urls[0]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        assert any(x.startswith("console:   " + url + "console.html?table=t1") for x in lines)
        assert "by hand:   " + url + "console.html?table=t2" in lines

        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        t1 = page.locator('[data-table="t1"]')
        expect(t1.locator(".player .name")).to_have_count(2, timeout=10000)
        expect(t1.locator('[data-field="online"]')).to_have_text("online")
        shot = t1.locator(".meta")
        first = shot.inner_text()
        expect(shot).not_to_have_text(first, timeout=10000)  # the match goes on, live
        t2 = page.locator('[data-table="t2"]')  # nobody plays it but its referee
        expect(t2.locator('[data-field="status"]')).to_have_text("No match")

        console = browser.new_page(viewport={"width": 1180, "height": 820})
        console.goto(url + "console.html?table=t2")
        result = console.locator("#result")
        console.fill('[data-player-name="0"]', "Ирина")
        console.fill('[data-player-name="1"]', "Пётр")
        console.click("#new-match button[type=submit]")
        expect(result).to_have_text(re.compile(r"^New match: done"), timeout=10000)
        console.check('input[name=tap][value=call]')  # step by step (one go: test_console_budget)
        console.click('#pool [data-ball="1"]')
        console.click('#pool [data-pocket="fl"]')
        console.click("#send-call")
        expect(result).to_have_text("Call: done", timeout=10000)
        console.click("#shot-end")
        expect(result).to_have_text("Shot end: done", timeout=10000)
        console.check('input[name=tap][value=pocketed]')
        console.click('#pool [data-ball="1"]')
        console.click('#pool [data-pocket="fl"]')
        console.click("#send-declare")
        expect(result).to_have_text("Declaration: done", timeout=10000)
        # the drawing is back to its everyday mode, not left on «declare pocketed» (issue 29)
        expect(console.locator('input[name=tap][value=pot]')).to_be_checked()
        expect(t2.locator(".player .name")).to_have_text(["Ирина", "Пётр"], timeout=10000)
        expect(t2.locator('[data-field="on_table"] .ball')).to_have_count(9, timeout=10000)
        expect(t2.locator('.player[data-player="0"]')).to_have_class(re.compile("shooting"))
        page.screenshot(path=str(artifacts / "demo-dashboard.png"), full_page=True)
        # the TV wall opened in the middle of t1's match: its clock and racks from the recording
        wall = browser.new_page(viewport={"width": 1920, "height": 1080})
        wall.goto(url + "?tv=1")
        card = wall.locator('[data-table="t1"]')
        clock = card.locator('[data-field="clock"]')
        expect(clock).to_have_text(re.compile(r"^( · )?match \d+:\d\d$"), timeout=10000)
        expect(card.locator('[data-field="racks"] [data-rack="1"]')).to_contain_text("break: ")
        # one QR code a wall (issue 30): the dashboard, where a phone picks its table's console
        expect(wall.locator('.top [data-field="qr"] svg')).to_have_attribute(
            "aria-label", re.compile(r"/index\.html$"))
        wall.screenshot(path=str(artifacts / "demo-tv.png"))
        wall.close()
        console.screenshot(path=str(artifacts / "demo-console.png"), full_page=True)
        page.close()
        console.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out.read_text()


def test_the_demo_refuses_to_leave_a_table_it_does_not_have_to_a_person() -> None:
    done = subprocess.run([sys.executable, "-m", "controller", "demo", "--tables", "2", "--hand", "t3",
                           "--seconds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "error: --hand t3: the demo's tables are t1, t2" in done.stdout


def test_the_demos_history_fills_up_from_the_venue_record_as_matches_end(
        browser: Browser, artifacts: Path, tmp_path: Path) -> None:
    """``demo --tables 2`` runs the venue recorder: a match a table finishes is in the
    record's history (``/record/history.json``) and on the history page, in Russian."""
    out = tmp_path / "demo.out"
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "demo", "--seconds", "150",
                                 "--speed", "40", "--tables", "2", "--language", "ru"], cwd=ROOT,
                                stdout=sink, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "history:" not in out.read_text():
            assert proc.poll() is None, out.read_text()
            time.sleep(0.05)
        urls = [x.split()[1] for x in out.read_text().splitlines() if x.startswith("history:")]
        assert urls, out.read_text()
        page_url = urls[0]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/history\.html", page_url)
        base = page_url.removesuffix("history.html")
        listed: dict[str, Any] = {"matches": []}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not listed["matches"]:  # until a match has ended
            assert proc.poll() is None, out.read_text()
            with urllib.request.urlopen(base + "record/history.json", timeout=10) as r:
                listed = json.loads(r.read())
            time.sleep(0.5)
        assert listed["matches"], "no match finished in 120 s:\n" + out.read_text()[-2000:]
        first = listed["matches"][0]
        assert first["table"] in ("t1", "t2") and first["ended"] >= first["started"]
        # the players the terminal shows at that table
        shown = [x for x in out.read_text().splitlines() if x.strip().startswith(first["table"] + " ")]
        assert all(any(name in x for x in shown) for name in first["players"]), (first, shown[-3:])
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(page_url)
        rows = page.locator("#history tbody tr")
        expect(rows.first).to_be_visible(timeout=10000)
        assert rows.count() >= 1
        expect(page.locator(f'#history a[data-match="{first["id"]}"]')).to_have_count(1)
        page.locator(f'#history a[data-match="{first["id"]}"]').click()
        expect(page.locator('[data-field="shots"] tbody tr').first).to_be_visible(timeout=10000)
        expect(page.locator("h3").first).to_have_text("По игрокам")
        page.screenshot(path=str(artifacts / "demo-history-match.png"), full_page=False)
        page.goto(page_url)
        expect(rows.first).to_be_visible(timeout=10000)
        page.screenshot(path=str(artifacts / "demo-history.png"), full_page=True)
        page.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out.read_text()
