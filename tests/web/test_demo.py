"""``python -m controller demo`` serves the pages: its URL shows the simulated tables playing."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import Browser, expect

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_prints_a_dashboard_url_that_shows_its_tables_live(browser: Browser,
                                                                    artifacts: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "demo.out"  # a file, not a pipe: the demo keeps printing scores
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "demo", "--seconds", "40",
                                 "--speed", "20", "--tables", "2"], cwd=ROOT, stdout=sink,
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

        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        for table in ("t1", "t2"):
            card = page.locator(f'[data-table="{table}"]')
            expect(card.locator(".player .name")).to_have_count(2, timeout=10000)
            expect(card.locator('[data-field="online"]')).to_have_text("online")
        shot = page.locator('[data-table="t1"] .meta')
        first = shot.inner_text()
        expect(shot).not_to_have_text(first, timeout=10000)  # the match goes on, live
        page.screenshot(path=str(artifacts / "demo-dashboard.png"), full_page=True)
        console = browser.new_page(viewport={"width": 1280, "height": 900})
        console.goto(url + "console.html?table=t2")
        expect(console.locator('[data-table="t2"] .player .name')).to_have_count(2, timeout=10000)
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
