"""``commission --web`` on a tablet: the steps done from the page in Chromium, the report and
the suggested change shown, written only when confirmed; actions need the session's key."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.commission.test_cli import ROOT, _config


def _post(url: str, action: str) -> int:
    req = urllib.request.Request(url, json.dumps({"action": action}).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_the_page_walks_the_steps_and_writes_the_fix_when_confirmed(
        tmp_path: Path, browser: Any, artifacts: Path) -> None:
    config = _config(tmp_path)
    text = config.read_text().replace("port = 8080", "port = 0")
    config.write_text(text)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "commission", "--config", str(config), "--web",
         "--simulate", "--swap", "beam.hl,beam.hr", "--out", str(tmp_path / "s")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"commissioning page: (http://\S+)", line)
        assert m, line + (proc.stderr.read() if proc.poll() is not None else "")  # type: ignore[union-attr]
        url = m.group(1)
        base = url.split("?")[0]
        assert _post(base + "action", "done") == 403  # without the key nobody acts

        page = browser.new_page(viewport={"width": 1180, "height": 820})
        page.goto(url)
        page.wait_for_function("document.getElementById('step-no').textContent !== ''")
        done = page.get_by_role("button", name="Done")
        assert page.locator("#steps li").count() >= 14
        clicks = 0
        while not (shown := page.locator("#step-no").text_content() or "").startswith("All"):
            done.click()  # the simulated table does the step the installer says is done
            clicks += 1
            page.wait_for_function("t => document.getElementById('step-no').textContent !== t",
                                   arg=shown)
        assert clicks == page.locator("#steps li").count() - 1  # all but keeping still
        page.get_by_text("All steps done.").wait_for()
        findings = page.locator("#findings").inner_text()
        assert "beam.hl: swapped" in findings and "beam.hr: swapped" in findings
        assert '+"beam.hl" = 6' in page.locator("#diff").inner_text()
        page.screenshot(path=str(artifacts / "commission-tablet.png"), full_page=True)
        page.set_viewport_size({"width": 820, "height": 1180})  # the tablet held upright
        found, steps = (page.locator(sel).bounding_box() for sel in ("#findings", "#steps"))
        assert found is not None and steps is not None and found["y"] < steps["y"]
        page.screenshot(path=str(artifacts / "commission-tablet-portrait.png"))
        page.set_viewport_size({"width": 1180, "height": 820})
        assert config.read_text() == text  # nothing written yet

        page.once("dialog", lambda d: d.accept())
        page.get_by_role("button", name="Write it").click()
        page.get_by_text("Written; the former file").wait_for()
        assert '"beam.hl" = 6' in config.read_text()
        assert (tmp_path / "controller.toml.bak").read_text() == text
        page.get_by_role("button", name="Finish").click()
        assert proc.wait(timeout=10) == 0
        page.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
