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


#: Latin words the page may show in Russian: the table's channel ids and configuration keys
#: (with a dot or an underscore: beam.hl, gpio.pins, noise_s), the table-wide channels, and
#: GPIO, the pin numbering's name. Anything else is English left untranslated.
_ALLOWED = {"cue", "click", "strike", "GPIO"}
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)*")

#: Elements whose text may be cut or overflow the page (none may).
_CUT = """() => [...document.querySelectorAll('h1, h2, p, li, button, #step-no, pre, div')]
  .filter((el) => el.offsetParent !== null
    && (el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().right > innerWidth + 1))
  .map((el) => `${el.tagName}#${el.id}: ${el.textContent.slice(0, 60)}`)"""
#: The visible text but the language picker (each language's name is its own) and the diff
#: (the configuration file's TOML as it will be written).
_TEXT = """() => {
  const copy = document.querySelector('main').cloneNode(true);
  copy.querySelectorAll('#lang, #diff, [hidden]').forEach((el) => el.remove());
  document.body.append(copy);
  const text = copy.innerText;
  copy.remove();
  return text;
}"""


def _english_left(text: str) -> list[str]:
    """Returns the Latin words of ``text`` that are neither ids nor keys (a key of the
    catalogue shown as itself, ``commission.page.x``, is a word missing)."""
    return sorted({w for w in _LATIN.findall(text) if w.startswith("commission.") or (
        w not in _ALLOWED and "." not in w and "_" not in w)})


def test_the_page_in_russian_on_a_tablet_and_a_phone_has_no_english_and_nothing_cut(
        tmp_path: Path, browser: Any, artifacts: Path) -> None:
    config = _config(tmp_path)
    text = config.read_text().replace("port = 8080", "port = 0")
    config.write_text(text)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "commission", "--config", str(config), "--web",
         "--simulate", "--swap", "beam.hl,beam.hr", "--dead", "beam.fr", "--invert", "beam.sl",
         "--chatter", "beam.fl", "--out", str(tmp_path / "s")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        m = re.search(r"commissioning page: (http://\S+)", proc.stdout.readline())
        assert m
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(m.group(1) + "&lang=ru")
        page.wait_for_function("document.getElementById('step-no').textContent !== ''")
        assert page.evaluate("document.documentElement.lang") == "ru"
        done = page.get_by_role("button", name="Готово")
        seen = 0
        while not (shown := page.locator("#step-no").text_content() or "").startswith("Все"):
            assert re.fullmatch(r"Шаг \d+ из \d+", shown), shown
            if seen in (1, 3):  # a pocket's step, with what it heard, on a tablet and a phone
                for size in ({"width": 1024, "height": 768}, {"width": 390, "height": 844}):
                    page.set_viewport_size(size)
                    assert page.evaluate(_CUT) == [], size
                    assert _english_left(page.evaluate(_TEXT)) == []
                    page.screenshot(path=str(artifacts / f"commission-ru-step-{size['width']}.png"),
                                    full_page=True)
                page.set_viewport_size({"width": 1024, "height": 768})
            done.click()
            seen += 1
            page.wait_for_function("t => document.getElementById('step-no').textContent !== t",
                                   arg=shown)
        page.get_by_text("Все шаги пройдены.").wait_for()
        assert "✓ beam.sr ответил" in page.locator("#steps").inner_text()
        findings = page.locator("#findings").inner_text()
        assert "beam.hl: перепутан — на его шаг ответил beam.hr" in findings, findings
        assert "beam.fr: молчит" in findings and "beam.sl: инвертирован" in findings
        assert "beam.fl: срабатывает сам" in findings
        assert "Карта каналов:" in page.locator("#report").inner_text()
        for size in ({"width": 1024, "height": 768}, {"width": 390, "height": 844}):
            page.set_viewport_size(size)
            assert page.evaluate(_CUT) == [], size
            assert _english_left(page.evaluate(_TEXT)) == []
            page.screenshot(path=str(artifacts / f"commission-ru-report-{size['width']}.png"),
                            full_page=True)
            # what was found and the buttons come first, the full report last
            found, steps, write, report = (page.locator(sel).bounding_box()
                                           for sel in ("#findings", "#steps", "#apply", "#report"))
            assert found and steps and write and report
            assert found["y"] < write["y"] < steps["y"] < report["y"], size
        page.once("dialog", lambda d: (d.message.startswith("Записать"), d.accept()))
        page.get_by_role("button", name="Записать").click()
        page.get_by_text("Записано; прежний файл").wait_for()
        page.get_by_role("button", name="Завершить").click()
        assert proc.wait(timeout=10) == 0
        page.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
