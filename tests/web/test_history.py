"""Match history: finished matches read back from the tables' recordings, their per-player
summary, the JSON and CSV exports, and the shareable match page (headless Chromium).

The recordings are simulated matches (``controller.sim.simulator``) written as a table writes
its traces; what each match should say is counted here from the same trace replayed through
the pipeline (``controller.pipeline.replay``), not from the history's own code.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from controller.pipeline.replay import replay
from controller.sim.simulator import simulate_lines
from controller.web import WebConfig, WebServer
from controller.web.history import History, csv_text
from controller.words import catalogue
from tests.web.harness import WebThread, http_get

TIMEOUT = 8000


def _write(directory: Path, name: str, lines: list[dict[str, Any]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                  encoding="utf-8")


def _told(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """What the pipeline publishes about a trace's match, counted here."""
    events: list[dict[str, Any]] = []
    replay([json.dumps(x) for x in lines],
           lambda m: events.append(m.payload) if m.topic == "event" else None, lambda bad: None)
    fouls: Counter[int] = Counter()
    points: Counter[int] = Counter()
    for e in events:
        if e["type"] == "foul":
            fouls[e["data"]["player"]] += len(e["data"]["fouls"])
        if e["type"] == "shot_result" and not e["data"]["corrected"]:
            for d in e["data"]["decisions"]:
                if d["decision"] == "BallCredited":
                    points[d["player"]] += d["points"]
    over = [e["data"] for e in events if e["type"] == "match_over"]
    shots = {e["data"]["shot"] for e in events if e["type"] == "shot_result"}
    return {"over": over, "fouls": fouls, "points": points, "shots": len(shots)}


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """t1: a pyramid match, then (a restart) the same match resumed in a second session and
    a ten-ball match left unfinished; t2: a Siberian Ten match."""
    root = tmp_path_factory.mktemp("data")
    pyramid = simulate_lines("pyramid", 400, 5)
    siberian = simulate_lines("siberian-ten", 400, 3)
    tenball = simulate_lines("ten-ball", 6, 2)
    cut = len(pyramid) // 2
    first = {**pyramid[0], "recorded": "2026-12-03T19:00:00Z"}
    _write(root / "t1" / "traces", "trace-000001.jsonl", [first, *pyramid[1:cut]])
    # the service restarted mid-match: its next session starts with the match's inputs again
    again = {**pyramid[0], "recorded": "2026-12-03T19:30:00Z", "resumed": cut - 1}
    _write(root / "t1" / "traces", "trace-000002.jsonl", [again, *pyramid[1:]])
    later = pyramid[-1]["t"] + 60
    _write(root / "t1" / "traces", "trace-000003.jsonl",
           [{**tenball[0], "recorded": "2026-12-03T21:00:00Z"},
            *[{**x, "t": x["t"] + later} for x in tenball[1:]]])
    _write(root / "t2" / "traces", "trace-000001.jsonl",
           [{**siberian[0], "recorded": "2026-12-03T18:00:00Z"}, *siberian[1:]])
    return {"root": root, "pyramid": _told(pyramid), "siberian": _told(siberian),
            "history": History({"t1": root / "t1", "t2": root / "t2"})}


def test_the_finished_matches_each_once_newest_first_with_their_summary(recordings: dict[str, Any]) -> None:
    history: History = recordings["history"]
    listed = history.matches()
    assert [(m["table"], m["game"]) for m in listed] == [("t1", "pyramid"), ("t2", "siberian-ten")]
    for row, told in zip(listed, (recordings["pyramid"], recordings["siberian"]), strict=True):
        assert told["over"], "the simulated match was played to its end"
        assert row["winner"] == told["over"][0]["winner"] and row["games"] == told["over"][0]["games"]
        assert "shots" not in row
        match = history.match(row["id"])
        assert match is not None and len(match["shots"]) == told["shots"]
        assert [p["fouls"] for p in match["summary"]] == [told["fouls"][i] for i in range(2)]
        assert [p["games"] for p in match["summary"]] == told["over"][0]["games"]
        if match["game"] == "pyramid":
            assert [p["points"] for p in match["summary"]] == [told["points"][i] for i in range(2)]
        assert match["racks"][0]["breaker"] == 0 and match["seconds"] > 0
        assert all(p["best_run"] <= p["balls"] for p in match["summary"])
    # the resumed match is the later session's; it started when the first session did
    assert listed[0]["started"].startswith("2026-12-03T19:")
    assert history.match("t1-0000000000") is None
    # the ten-ball match t1 is playing: its start and first rack, for a page opened meanwhile
    live = history.live("t1")
    assert live is not None and live["game"] == "ten-ball" and live["winner"] is None
    assert live["started"].startswith("2026-12-03T21:00") and live["racks"][0]["breaker"] == 0
    assert "shots" not in live and history.live("t2") is None and history.live("t9") is None


async def test_the_server_answers_the_list_a_match_and_its_csv(recordings: dict[str, Any]) -> None:
    async with WebServer(WebConfig(), history=recordings["history"]) as server:
        def get(target: str) -> Any:
            return http_get(server, target)

        status, _, body = await get("/config.json")
        assert json.loads(body)["history"] is True
        status, _, body = await get("/history.json")
        listed = json.loads(body)["matches"]
        assert status == 200 and len(listed) == 2
        ident = listed[0]["id"]
        status, headers, body = await get(f"/history/{ident}.json")
        match = json.loads(body)
        assert status == 200 and match["id"] == ident and "Content-Disposition" not in headers
        status, headers, body = await get(f"/history/{ident}.csv")
        assert status == 200 and headers["Content-Type"].startswith("text/csv")
        assert headers["Content-Disposition"] == f'attachment; filename="{ident}.csv"'
        rows = list(csv.DictReader(io.StringIO(body.decode())))
        assert len(rows) == len(match["shots"])
        assert {r["player"] for r in rows} <= set(match["players"])
        status, headers, _ = await get(f"/history/{ident}.json?download")
        assert headers["Content-Disposition"] == f'attachment; filename="{ident}.json"'
        assert (await get("/history/nothing-here.json"))[0] == 404
        status, _, body = await get("/history/live/t1.json")
        assert status == 200 and json.loads(body)["game"] == "ten-ball"
        assert (await get("/history/live/t2.json"))[0] == 404
        assert (await get("/history/../etc.json"))[0] == 404
    async with WebServer(WebConfig()) as bare:  # no data directories: an empty history
        assert bare.resolve_history("/history.json") == (200, b'{"matches": []}', "application/json")


async def test_a_server_beside_a_table_reads_the_history_in_a_process_of_its_own(
        recordings: dict[str, Any]) -> None:
    history: History = recordings["history"]
    async with WebServer(WebConfig(), history=history, history_process=True) as server:
        status, _, body = await http_get(server, "/history.json")
        assert status == 200 and json.loads(body)["matches"] == history.matches()
        assert server.history_site._pool is not None  # the answer came from the worker process
        ident = history.matches()[0]["id"]
        status, _, body = await http_get(server, f"/history/{ident}.csv")
        assert status == 200 and body.decode() == csv_text(history.match(ident) or {})
    assert server.history_site._pool is None  # closed with the server


def test_the_history_page_lists_the_matches_and_shares_each_one(
        browser: Browser, recordings: dict[str, Any], artifacts: Path) -> None:
    server = WebThread(WebConfig(), history=recordings["history"]).start()
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "history.html?lang=ru")
        rows = page.locator("#history tbody tr")
        expect(rows).to_have_count(2, timeout=TIMEOUT)
        expect(rows.first).to_contain_text("Пирамида")
        expect(rows.nth(1)).to_contain_text("Сибирская десятка")
        page.click("#history a[data-match]:first-of-type >> nth=0")
        expect(page).to_have_url(re.compile(r"history\.html\?match=t1-"))
        expect(page.locator('[data-field="summary"] tbody tr')).to_have_count(2, timeout=TIMEOUT)
        expect(page.locator('[data-field="shots"] tbody tr')).to_have_count(recordings["pyramid"]["shots"])
        expect(page.locator('[data-field="racks"] tbody tr').first).to_contain_text("Ann")
        expect(page.locator(".exports a")).to_have_count(2)
        page.screenshot(path=str(artifacts / "history-match-ru.png"), full_page=False)
        # Siberian Ten credits balls nobody identified: named so, not by the code "object"
        siberian = next(m["id"] for m in recordings["history"].matches() if m["game"] == "siberian-ten")
        page.goto(server.url + f"history.html?lang=ru&match={siberian}")
        shots = page.locator('[data-field="shots"]')
        expect(shots).to_contain_text("неопознанный", timeout=TIMEOUT)
        assert "object" not in shots.inner_text()
        page.go_back()
        shared = page.url  # the same address opens the same match in another browser tab
        other = browser.new_page(viewport={"width": 390, "height": 844})
        other.goto(shared.replace("lang=ru&", "").replace("?lang=ru", ""))
        expect(other.locator("h3").first).to_have_text("Per player", timeout=TIMEOUT)
        assert other.evaluate("document.scrollingElement.scrollWidth") <= 390
        other.screenshot(path=str(artifacts / "history-match-phone.png"), full_page=False)
        assert errors == []
        page.close()
        other.close()
    finally:
        server.stop()


def test_the_list_is_paged_and_filtered_by_table_player_and_date(recordings: dict[str, Any]) -> None:
    import urllib.error
    import urllib.parse
    import urllib.request

    server = WebThread(WebConfig(), history=recordings["history"]).start()

    def get(query: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(server.url + "history.json?" + query, timeout=10) as r:
                return int(r.status), r.read()
        except urllib.error.HTTPError as exc:
            return int(exc.code), exc.read()

    def listed(query: str) -> dict[str, Any]:
        status, body = get(query)
        assert status == 200, body
        return dict(json.loads(body))

    try:
        first = listed("per_page=1")
        assert (first["total"], first["pages"], first["page"]) == (2, 2, 1)
        second = listed("per_page=1&page=2")
        assert [m["game"] for m in first["matches"] + second["matches"]] == ["pyramid", "siberian-ten"]
        assert [m["table"] for m in listed("table=t2")["matches"]] == ["t2"]
        players = first["matches"][0]["players"]
        by_player = listed("player=" + urllib.parse.quote(players[0][:3].upper()))
        assert players[0] in by_player["matches"][0]["players"]
        assert listed("since=2026-12-04")["total"] == 0
        assert listed("since=2026-12-03&until=2026-12-03")["total"] == 2
        for bad in ("page=0", "page=x", "per_page=501", "since=yesterday"):
            assert get(bad)[0] == 400, bad
    finally:
        server.stop()


def test_a_session_is_followed_as_it_grows(tmp_path: Path) -> None:
    """The index is kept as matches finish: a look takes what was appended since the last
    one (a line being written waits), and says what a fresh read of the files says."""
    lines = simulate_lines("pyramid", 400, 5)
    traces = tmp_path / "t1" / "traces"
    cut = len(lines) * 2 // 3
    _write(traces, "trace-000001.jsonl", lines[:cut])
    history = History({"t1": tmp_path / "t1"})
    assert history.matches() == [] and history.live("t1") is not None
    with (traces / "trace-000001.jsonl").open("a", encoding="utf-8") as f:
        rest = "".join(json.dumps(x) + "\n" for x in lines[cut:])
        f.write(rest[:-7])  # all but the end of the last line
        f.flush()
        assert history.matches() == []
        f.write(rest[-7:])
    assert [m["game"] for m in history.matches()] == ["pyramid"]
    assert history.matches() == History({"t1": tmp_path / "t1"}).matches()


def _libreoffice_cells(csv_file: Path) -> list[list[str]]:
    """The cells LibreOffice (headless, a UTF-8 system) reads from a CSV with the options of
    its import dialog as a Russian user finds them: fields split at ``;`` (what Excel on a
    Russian Windows splits at too), the character set the system's. (The byte-order mark,
    which Excel needs to read UTF-8, is checked on the bytes.)"""
    import shutil
    import subprocess

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    assert soffice, "the CSV test opens the file in LibreOffice: apt-get install libreoffice-calc-nogui"
    out = csv_file.parent / "opened"
    subprocess.run([soffice, "--headless", "--infilter=CSV:59,34,,1",
                    "--convert-to", "csv:Text - txt - csv (StarCalc):9,34,76", "--outdir", str(out),
                    str(csv_file)], check=True, capture_output=True, timeout=120,
                   env={"HOME": str(csv_file.parent), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    text = (out / csv_file.name).read_text(encoding="utf-8")
    return [row.split("\t") for row in text.splitlines()]


def test_the_russian_csv_opens_in_libreoffice_as_is_in_columns_and_in_russian(
        recordings: dict[str, Any], tmp_path: Path) -> None:
    """Before: UTF-8 without a byte-order mark, commas, English headers and codes
    (``two_cushion``): one column of «ÐÐ½Ð½Ð°…» in a Russian spreadsheet."""
    history: History = recordings["history"]
    match = next(m for m in map(history.match, (r["id"] for r in history.matches()))
                 if m and any(s["fouls"] for s in m["shots"]))
    body = csv_text(match, "ru")
    assert body.startswith("\ufeff")
    path = tmp_path / f"{match['id']}.csv"
    path.write_bytes(body.encode("utf-8"))
    cells = _libreoffice_cells(path)
    assert cells[0][:5] == ["Матч", "Стол", "Партия", "Удар", "Игрок"], cells[0]
    assert all(len(row) == 10 for row in cells)
    assert len(cells) == len(match["shots"]) + 1
    fouled = next(s for s in match["shots"] if s["fouls"])
    row = cells[match["shots"].index(fouled) + 1]
    assert row[4] == match["players"][fouled["player"]]
    ru = catalogue.words("ru").pages
    assert row[7] == ", ".join(ru[f"foul.{f}"] for f in fouled["fouls"])
    assert re.search("[а-яё]", row[7]) and "_" not in row[7]


#: Words (between spaces and hyphens) of the elements ``selector`` finds that the browser
#: broke over two lines.
MID_WORD = """(selector) => {
  const broken = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s-]+/g)) {  // after a hyphen is between words
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


def test_results_are_worded_for_people_and_each_shot_says_what_happened(
        browser: Browser, recordings: dict[str, Any], artifacts: Path) -> None:
    """Before: «Bob 0:1» when the second player won; «Что было» only said who shot next."""
    history: History = recordings["history"]
    server = WebThread(WebConfig(), history=history).start()
    try:
        for size, name in (((1920, 1080), "tv"), ((390, 844), "phone")):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(server.url + "history.html?lang=ru")
            rows = page.locator("#history tbody tr")
            expect(rows).to_have_count(2, timeout=TIMEOUT)
            for row, m in zip(rows.all(), history.matches(), strict=True):
                w = m["winner"]
                others = [g for i, g in enumerate(m["games"]) if i != w]
                score = ":".join(str(g) for g in [m["games"][w], *others])
                expect(row).to_contain_text(f"{m['players'][w]}: победа {score}")
            expect(page.locator('[data-field="page"]')).to_have_text("страница 1 из 1 · матчей: 2")
            assert page.evaluate(MID_WORD, "#history th, #history td") == [], name
            page.screenshot(path=str(artifacts / f"history-list-ru-{name}.png"), full_page=True)
            page.close()
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        ident = history.matches()[0]["id"]
        page.goto(server.url + f"history.html?lang=ru&match={ident}")
        shots = page.locator('[data-field="shots"] tbody tr')
        expect(shots.first).to_be_visible(timeout=TIMEOUT)
        match = history.match(ident)
        assert match is not None
        potted = next(i for i, s in enumerate(match["shots"]) if s["balls"])
        expect(shots.nth(potted)).to_contain_text("забиты: ")
        csv_link = page.get_by_role("link", name="Скачать CSV")
        expect(csv_link).to_have_attribute("href", re.compile(r"\.csv\?lang=ru$"))
        page.close()
    finally:
        server.stop()
