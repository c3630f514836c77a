"""Match history from the venue record (``controller.record``): the finished matches of every
table in pages, filtered by table, player and date; each match with every shot told in words,
its JSON and CSV exports; a player's page (headless Chromium). And what a table's own server
keeps of its recordings: the match being played there, for a page opened mid-match.

The record is filled with what the pipeline publishes replaying simulated matches
(``controller.sim.simulator``), as the recorder stores it; what each match should say is
counted here from the same messages, not from the record's own code.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.pipeline.replay import replay
from controller.record import stats
from controller.record.queries import csv_text, match
from controller.record.store import Progress, Store, Stored
from controller.record.web import RecordSite
from controller.sim.demo import HAND_FUSION
from controller.sim.simulator import simulate_lines
from controller.web import WebConfig, WebServer
from controller.web.history import History
from controller.words import catalogue
from tests.tracekit import TraceBuilder
from tests.web.harness import WebThread, http_get

TIMEOUT = 8000


def _write(directory: Path, name: str, lines: list[dict[str, Any]]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                  encoding="utf-8")


def _published(lines: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    replay([json.dumps(x, ensure_ascii=False) for x in lines],
           lambda m: out.append((m.topic, m.payload)), lambda bad: None)
    return out


def _told(published: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """What the pipeline published about a match, counted here."""
    events = [p for topic, p in published if topic == "event"]
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
    started = next(e["data"] for e in events if e["type"] == "match_started")
    return {"over": over, "fouls": fouls, "points": points, "shots": len(shots),
            "match_id": started["match_id"]}


def _match(game: str, seed: int, players: list[str], day: str, shots: int = 400) -> list[dict[str, Any]]:
    """A simulated match's trace with these players' names, recorded on ``day``."""
    lines = simulate_lines(game, shots, seed)
    lines[0] = {**lines[0], "recorded": f"{day}T12:00:00Z"}
    assert lines[1]["request"] == "new_match"
    lines[1] = {**lines[1], "payload": {**lines[1]["payload"], "players": players}}
    return lines


def _keep(store: Store, table: str, published: list[tuple[str, dict[str, Any]]], first_seq: int,
          last_came: datetime) -> int:
    """Stores ``published`` as the recorder does (seqs from ``first_seq``), the last message
    arriving at ``last_came``; returns the next seq."""
    items = [Stored("club", table, first_seq + i, topic, {**payload, "seq": first_seq + i})
             for i, (topic, payload) in enumerate(published)]
    last = items[-1].seq
    store.add(items, progress={("club", table, ""): Progress(last, last)}, received=last_came.timestamp())
    return last + 1


def _at(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The venue record of three tables: t2 a Siberian Ten match (Борис, Пётр) ending at
    18:40 UTC on 3 December; t1 a pyramid match (Анна, Борис) ending at 19:45, then a
    Ten-ball match still being played; t3 a pyramid match (Анна Петрова, Пётр) ending at
    02:00 UTC on 4 December."""
    root = tmp_path_factory.mktemp("record")
    store = Store(f"sqlite:///{root / 'record.sqlite3'}")
    pyramid = _published(_match("pyramid", 5, ["Анна", "Борис"], "2026-12-03"))
    siberian = _published(_match("siberian-ten", 3, ["Борис", "Пётр"], "2026-12-03"))
    other = _published(_match("pyramid", 7, ["Анна Петрова", "Пётр"], "2026-12-04"))
    playing = _published(_match("ten-ball", 2, ["Анна", "Пётр"], "2026-12-03", shots=6))
    _keep(store, "t2", siberian, 1, _at("2026-12-03 18:40"))
    following = _keep(store, "t1", pyramid, 1, _at("2026-12-03 19:45"))
    _keep(store, "t1", [(t, p) for t, p in playing if t == "event"], following, _at("2026-12-03 19:50"))
    _keep(store, "t3", other, 1, _at("2026-12-04 02:00"))
    assert stats.summarize_finished(store) == 3
    told = {"t1": _told(pyramid), "t2": _told(siberian), "t3": _told(other)}
    for t in told.values():
        assert t["over"], "the simulated match was played to its end"
    return {"root": root, "store": store, "told": told}


def _id(recordings: dict[str, Any], table: str) -> str:
    return f"club~{table}~~{recordings['told'][table]['match_id']}"  # epoch "": no journal epoch


async def test_the_record_answers_each_finished_match_once_newest_first_with_its_shots(
        recordings: dict[str, Any]) -> None:
    told = recordings["told"]
    async with WebServer(WebConfig(), record=RecordSite(recordings["store"])) as server:
        async def get(target: str) -> tuple[int, dict[str, str], bytes]:
            return await http_get(server, target)

        status, _, body = await get("/config.json")
        assert json.loads(body)["record"] is True and json.loads(body)["history"] is True
        status, _, body = await get("/record/history.json")
        listed = json.loads(body)
        assert status == 200 and [m["table"] for m in listed["matches"]] == ["t3", "t1", "t2"]
        assert listed["total"] == 3  # the Ten-ball match t1 is playing is not finished
        for row in listed["matches"]:
            over = told[row["table"]]["over"][0]
            assert (row["winner"], row["games"]) == (over["winner"], over["games"])
            assert "shots" not in row and row["id"] == _id(recordings, row["table"])
            status, headers, body = await get(f"/record/match/{row['id']}.json")
            one = json.loads(body)
            assert status == 200 and "Content-Disposition" not in headers
            assert len(one["shots"]) == told[row["table"]]["shots"]
            assert [p["fouls"] for p in one["summary"]] == [told[row["table"]]["fouls"][i] for i in range(2)]
            assert [p["games"] for p in one["summary"]] == over["games"]
            if one["game"] == "pyramid":
                points = told[row["table"]]["points"]
                assert [p["points"] for p in one["summary"]] == [points[i] for i in range(2)]
                # each shot's points are its shooter's: they add up to the summary's
                assert [sum(s["points"] for s in one["shots"] if s["player"] == i) for i in range(2)] == [
                    p["points"] for p in one["summary"]]
            assert one["racks"][0]["breaker"] == 0 and one["seconds"] > 0
        t1 = listed["matches"][1]
        # the table's clock set to the wall's: it ended when its last message came
        assert datetime.fromtimestamp(t1["ended"], UTC).strftime("%Y-%m-%d %H:%M") == "2026-12-03 19:45"
        ident = t1["id"]
        status, headers, body = await get(f"/record/match/{ident}.csv")
        assert status == 200 and headers["Content-Type"].startswith("text/csv")
        file = ident.replace("~", "-")
        assert file.startswith("club-t1-")
        assert headers["Content-Disposition"] == f'attachment; filename="{file}.csv"'
        rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
        assert len(rows) == told["t1"]["shots"] and {r["player"] for r in rows} <= {"Анна", "Борис"}
        status, headers, _ = await get(f"/record/match/{ident}.json?download")
        assert headers["Content-Disposition"] == f'attachment; filename="{file}.json"'
        assert (await get("/record/match/club~t1~m-nothing.json"))[0] == 404
        assert (await get("/record/match/t1~" + t1["match_id"] + ".json"))[0] == 404  # no venue
        assert (await get(f"/record/match/hall~t1~{t1['match_id']}.json"))[0] == 404
        # the table's own history of finished matches is gone: one record
        assert (await get("/history.json"))[0] == 404
        # the Ten-ball match t1 is playing: its start and first rack, for a page opened meanwhile
        status, _, body = await get("/history/live/t1.json")
        playing = json.loads(body)
        assert status == 200 and (playing["game"], playing["players"]) == ("ten-ball", ["Анна", "Пётр"])
        assert playing["started"].startswith("2026-12-03T19:") and playing["racks"][0]["breaker"] == 0
        assert (await get("/history/live/t2.json"))[0] == 404  # its last match is over
        assert (await get("/history/live/t9.json"))[0] == 404
    async with WebServer(WebConfig()) as bare:  # no record behind it: the pages say so
        assert json.loads((await http_get(bare, "/config.json"))[2])["record"] is False
        assert (await http_get(bare, "/record/history.json"))[0] == 404


async def test_the_list_is_paged_and_filtered_by_table_player_and_date(recordings: dict[str, Any]) -> None:
    async with WebServer(WebConfig(), record=RecordSite(recordings["store"])) as server:
        async def listed(query: str) -> list[str]:
            status, _, body = await http_get(server, "/record/history.json?" + query)
            assert status == 200, body
            return [m["table"] for m in json.loads(body)["matches"]]

        status, _, body = await http_get(server, "/record/history.json?per_page=1&page=2")
        second = json.loads(body)
        assert (second["total"], second["pages"], second["page"]) == (3, 3, 2)
        assert [m["table"] for m in second["matches"]] == ["t1"]
        assert await listed("per_page=2&page=9") == ["t2"]  # past the end: the last page
        assert await listed("table=t2") == ["t2"]
        assert await listed("player=%D0%B0%D0%BD%D0%BD") == ["t3", "t1"]  # «анн», any case
        assert await listed("name=%D0%90%D0%BD%D0%BD%D0%B0") == ["t1"]  # «Анна», not «Анна Петрова»
        assert await listed("since=2026-12-04") == ["t3"]
        assert await listed("since=2026-12-03&until=2026-12-03") == ["t1", "t2"]
        # a day is the page's own: at UTC−3, t3's start (before 2 a.m. UTC on the 4th) was on the 3rd
        assert await listed("since=2026-12-03&until=2026-12-03&tz=-180") == ["t3", "t1", "t2"]
        for bad in ("page=0", "page=x", "per_page=501", "since=yesterday", "tz=2000"):
            assert (await http_get(server, "/record/history.json?" + bad))[0] == 400, bad


# ------------------------------------------------- a table's own server: its match in progress
def test_a_match_in_progress_is_followed_as_its_recording_grows(tmp_path: Path) -> None:
    """A look takes what was appended since the last one (a line being written waits), and
    says what a fresh read of the files says; a finished match is no longer in progress."""
    lines = simulate_lines("pyramid", 400, 5)
    traces = tmp_path / "t1" / "traces"
    cut = len(lines) * 2 // 3
    _write(traces, "trace-000001.jsonl", [{**lines[0], "recorded": "2026-12-03T21:00:00Z"}, *lines[1:cut]])
    history = History({"t1": tmp_path / "t1"})
    live = history.live("t1")
    assert live is not None and live["game"] == "pyramid" and live["winner"] is None
    assert live["started"].startswith("2026-12-03T21:00") and live["racks"][0]["breaker"] == 0
    assert "shots" not in live and history.live("t9") is None
    with (traces / "trace-000001.jsonl").open("a", encoding="utf-8") as f:
        rest = "".join(json.dumps(x) + "\n" for x in lines[cut:])
        f.write(rest[:-7])  # all but the end of the last line
        f.flush()
        assert history.live("t1") is not None
        f.write(rest[-7:])
    assert history.live("t1") is None
    assert History({"t1": tmp_path / "t1"}).live("t1") is None


async def test_a_server_beside_a_table_reads_its_match_in_progress_in_a_process_of_its_own(
        tmp_path: Path) -> None:
    lines = simulate_lines("ten-ball", 6, 2)
    _write(tmp_path / "t1" / "traces", "trace-000001.jsonl", lines)
    history = History({"t1": tmp_path / "t1"})
    async with WebServer(WebConfig(), history=history, history_process=True) as server:
        # the dashboard and the console ask for it where config.json says "history"
        shown = json.loads((await http_get(server, "/config.json"))[2])
        assert (shown["history"], shown["record"]) == (True, False)
        status, _, body = await http_get(server, "/history/live/t1.json")
        assert status == 200 and json.loads(body) == history.live("t1")
        assert server.live_site._pool is not None  # the answer came from the worker process
        assert (await http_get(server, "/history/live/t2.json"))[0] == 404
        assert (await http_get(server, "/history/../etc.json"))[0] == 404
    assert server.live_site._pool is None  # closed with the server


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

SIZES = (((1024, 768), "tablet"), ((390, 844), "phone"))


def _sized(tab: Page, width: int, height: int) -> Page:
    """Returns ``tab`` (one browser tab for the module, each page loaded afresh in it) sized
    ``width``×``height`` for the page it loads next."""
    tab.set_viewport_size({"width": width, "height": height})
    return tab


def test_the_history_page_lists_the_matches_and_shares_each_one(
        browser: Browser, tab: Page, errors: list[str], recordings: dict[str, Any],
        artifacts: Path) -> None:
    server = WebThread(WebConfig(), record=RecordSite(recordings["store"])).start()
    try:
        page = _sized(tab, 1024, 768)
        page.goto(server.url + "history.html?lang=ru")
        rows = page.locator("#history tbody tr")
        expect(rows).to_have_count(3, timeout=TIMEOUT)
        expect(rows.nth(1)).to_contain_text("Пирамида")
        expect(rows.nth(2)).to_contain_text("Сибирская десятка")
        page.locator(f'#history a[data-match="{_id(recordings, "t1")}"]').click()
        expect(page).to_have_url(re.compile(r"history\.html\?match=club~t1~"))
        expect(page.locator('[data-field="summary"] tbody tr')).to_have_count(2, timeout=TIMEOUT)
        expect(page.locator('[data-field="shots"] tbody tr')).to_have_count(recordings["told"]["t1"]["shots"])
        expect(page.locator('[data-field="racks"] tbody tr').first).to_contain_text("Анна")
        expect(page.locator(".exports a")).to_have_count(2)
        page.screenshot(path=str(artifacts / "history-match-ru.png"), full_page=False)
        # Siberian Ten credits balls nobody identified: named so, not by the code "object"
        page.goto(server.url + f"history.html?lang=ru&match={_id(recordings, 't2')}")
        shots = page.locator('[data-field="shots"]')
        expect(shots).to_contain_text("неопознанный", timeout=TIMEOUT)
        assert "object" not in shots.inner_text()
        page.go_back()
        shared = page.url  # the same address opens the same match in another browser tab
        other = browser.new_page(viewport={"width": 390, "height": 844})
        other.goto(shared.replace("lang=ru&", "").replace("?lang=ru", ""))
        expect(other.locator("h3").first).to_have_text("Per player", timeout=TIMEOUT)
        assert other.evaluate("document.scrollingElement.scrollWidth") <= 390
        # the shot list fits a phone: what happened is in sight, not behind a sideways scroll
        told = other.locator('[data-field="shots"] .wrap')
        expect(other.locator('[data-field="shots"] th:visible')).to_have_text(
            ["Shot", "Player", "Points", "What happened"])
        assert told.evaluate("e => e.scrollWidth <= e.clientWidth")
        other.screenshot(path=str(artifacts / "history-match-phone.png"), full_page=False)
        assert errors == []
        other.close()
    finally:
        server.stop()


def test_a_players_name_opens_their_page_with_their_figures_and_matches(
        tab: Page, errors: list[str], recordings: dict[str, Any], artifacts: Path) -> None:
    """Борис played t1 (pyramid) and t2 (Siberian Ten): one record across tables; «Анна»
    is not «Анна Петрова»."""
    told = recordings["told"]
    won = {g: int(told[t]["over"][0]["winner"] == i) for t, g, i in (("t1", "pyramid", 1),
                                                                      ("t2", "siberian-ten", 0))}
    server = WebThread(WebConfig(), record=RecordSite(recordings["store"])).start()
    try:
        for (width, height), name in SIZES:
            page = _sized(tab, width, height)
            page.goto(server.url + "history.html?lang=ru")
            page.locator('#history tbody tr >> nth=1').locator('a[data-player="Борис"]').click()
            expect(page.locator("#player-title")).to_have_text("Борис: статистика", timeout=TIMEOUT)
            figures = page.locator('[data-field="figures"]')
            expect(figures.locator("thead th")).to_have_text(
                ["Показатели", "Все игры", "Пирамида", "Сибирская десятка"])
            matches_row = figures.locator("tbody tr").first
            expect(matches_row.locator("td")).to_have_text(["Матчи", "2", "1", "1"])
            expect(figures.locator("tbody tr").nth(1).locator("td")).to_have_text(
                ["Выиграно матчей", str(sum(won.values())), str(won["pyramid"]), str(won["siberian-ten"])])
            expect(page.locator('[data-field="matches"] tbody tr')).to_have_count(2)
            expect(page.locator('[data-field="matches"] tbody tr').first).to_contain_text("Стол 1")
            assert page.evaluate(MID_WORD, "#history th, #history td") == [], name
            assert page.evaluate("document.scrollingElement.scrollWidth") <= width, name
            page.screenshot(path=str(artifacts / f"history-player-ru-{name}.png"), full_page=True)
            assert errors == [], name
        page = _sized(tab, 1024, 768)
        page.goto(server.url + "history.html?lang=ru&name=" + "%D0%90%D0%BD%D0%BD%D0%B0")  # Анна
        expect(page.locator('[data-field="matches"] tbody tr')).to_have_count(1, timeout=TIMEOUT)
        expect(page.locator('[data-field="figures"] tbody tr').first.locator("td")).to_have_text(
            ["Матчи", "1", "1"])
        page.goto(server.url + "history.html?lang=en&name=Bob")  # English, and a name never seen
        expect(page.locator("#player-title")).to_have_text("Bob: statistics", timeout=TIMEOUT)
        expect(page.locator('[data-field="figures"] tbody tr').first.locator("td")).to_have_text(
            ["Matches", "0"])
    finally:
        server.stop()


def test_results_are_worded_for_people_and_each_shot_says_what_happened(
        tab: Page, recordings: dict[str, Any], artifacts: Path) -> None:
    """Before: «Bob 0:1» when the second player won; «Что было» only said who shot next."""
    store = recordings["store"]
    server = WebThread(WebConfig(), record=RecordSite(store)).start()
    try:
        listed = [match(store, _id(recordings, t)) for t in ("t3", "t1", "t2")]
        for (width, height), name in (((1920, 1080), "tv"), *SIZES):
            page = _sized(tab, width, height)
            page.goto(server.url + "history.html?lang=ru")
            rows = page.locator("#history tbody tr")
            expect(rows).to_have_count(3, timeout=TIMEOUT)
            for row, m in zip(rows.all(), listed, strict=True):
                assert m is not None
                w = m["winner"]
                others = [g for i, g in enumerate(m["games"]) if i != w]
                score = ":".join(str(g) for g in [m["games"][w], *others])
                expect(row).to_contain_text(f"{m['players'][w]}: победа {score}")
            expect(page.locator('[data-field="page"]')).to_have_text("страница 1 из 1 · матчей: 3")
            # each row's result opens its match, in sight without scrolling sideways
            for link in rows.locator("a[data-match]").all():
                box = link.bounding_box()
                assert box is not None and box["x"] + box["width"] <= width, (name, box)
            expect(page.get_by_role("link", name="Сеансы столов (CSV)")).to_have_attribute(
                "href", re.compile(r"^record/sessions\.csv\?lang=ru&tz=-?\d+$"))
            assert page.evaluate(MID_WORD, "#history th, #history td") == [], name
            assert page.evaluate("document.scrollingElement.scrollWidth") <= width, name
            page.screenshot(path=str(artifacts / f"history-list-ru-{name}.png"), full_page=True)
        page = _sized(tab, 1920, 1080)
        one = listed[1]
        assert one is not None
        page.goto(server.url + f"history.html?lang=ru&match={one['id']}")
        shots = page.locator('[data-field="shots"] tbody tr')
        expect(shots.first).to_be_visible(timeout=TIMEOUT)
        potted = next(i for i, s in enumerate(one["shots"]) if s["balls"])
        expect(shots.nth(potted)).to_contain_text("забиты: ")
        csv_link = page.get_by_role("link", name="Скачать CSV")
        expect(csv_link).to_have_attribute("href", re.compile(r"\.csv\?lang=ru$"))
    finally:
        server.stop()


def test_a_penalty_ball_is_told_as_taken_not_potted_and_no_shot_says_a_bare_next(
        tab: Page, recordings: dict[str, Any], artifacts: Path) -> None:
    """Issue 41: «забиты: 6; нет касания шара» for a penalty ball, and «бьёт —» where the
    ruling named nobody to shoot next (the match's last shot)."""
    store = recordings["store"]
    server = WebThread(WebConfig(), record=RecordSite(store)).start()
    try:
        siberian = match(store, _id(recordings, "t2"))
        assert siberian is not None
        taken = [i for i, s in enumerate(siberian["shots"]) if s["taken"]]
        assert taken, "the simulated Siberian Ten match has a penalty ball"
        page = _sized(tab, 1920, 1080)
        page.goto(server.url + f"history.html?lang=ru&match={siberian['id']}")
        shots = page.locator('[data-field="shots"] tbody tr')
        expect(shots.first).to_be_visible(timeout=TIMEOUT)
        names = siberian["players"]
        for i in taken:
            s = siberian["shots"][i]
            for t in s["taken"]:
                expect(shots.nth(i)).to_contain_text(
                    f"шар {t['ball']} снят в зачёт игроку {names[t['player']]}")
            if not s["balls"]:
                expect(shots.nth(i)).to_contain_text("ничего не забито")
        assert "бьёт —" not in page.locator('[data-field="shots"]').inner_text()
        page.screenshot(path=str(artifacts / "history-match-siberian-ru.png"), full_page=True)
    finally:
        server.stop()


def test_a_handicap_ball_is_told_with_fora_and_its_receiver(
        tab: Page, tmp_path: Path) -> None:
    """Issue 41: «фора» was nowhere in the history's shot text; the ball the handicap gave
    Борис was told as potted, with nothing said of whose it was (ST-19)."""
    trace = (TraceBuilder(fusion=HAND_FUSION)
             .new_match("siberian-ten", players=("Анна", "Борис"),
                        options={"handicap": 1, "handicap_giver": 0})
             .request("declare", {"pocketed": [{"ball": 1, "pocket": "fl"}], "shot": 1})
             .request("shot_end").request("end_match"))
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    _keep(store, "t4", _published([json.loads(x) for x in trace.text().splitlines()]), 1,
          _at("2026-12-03 20:00"))
    assert stats.summarize_finished(store) == 1
    server = WebThread(WebConfig(), record=RecordSite(store)).start()
    try:
        page = _sized(tab, 1280, 800)
        page.goto(server.url + "history.html?lang=ru")
        page.locator("#history a[data-match]").first.click()
        shots = page.locator('[data-field="shots"] tbody tr')
        expect(shots.first).to_contain_text("забиты: 1; фора: шар 1 засчитан игроку Борис",
                                            timeout=TIMEOUT)
    finally:
        server.stop()
        store.close()


def test_a_server_without_the_record_says_where_the_history_is(tab: Page) -> None:
    server = WebThread(WebConfig()).start()
    try:
        page = _sized(tab, 390, 844)
        page.goto(server.url + "history.html?lang=ru")
        expect(page.locator("#history")).to_contain_text("регистратор клуба", timeout=TIMEOUT)
    finally:
        server.stop()


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
    found = [match(recordings["store"], _id(recordings, t)) for t in ("t1", "t2", "t3")]
    one = next(m for m in found if m and any(s["fouls"] for s in m["shots"]))
    body = csv_text(one, "ru")
    assert body.startswith("\ufeff")
    path = tmp_path / "match.csv"
    path.write_bytes(body.encode("utf-8"))
    cells = _libreoffice_cells(path)
    assert cells[0][:5] == ["Матч", "Стол", "Партия", "Удар", "Игрок"], cells[0]
    assert all(len(row) == 10 for row in cells)
    assert len(cells) == len(one["shots"]) + 1
    fouled = next(s for s in one["shots"] if s["fouls"])
    row = cells[one["shots"].index(fouled) + 1]
    assert row[4] == one["players"][fouled["player"]]
    ru = catalogue.words("ru").pages
    assert row[7] == ", ".join(ru[f"foul.{f}"] for f in fouled["fouls"])
    assert re.search("[а-яё]", row[7]) and "_" not in row[7]
