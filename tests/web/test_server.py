"""The pages' static server, the generated options file and the bundled MQTT.js."""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import json
import re
import tomllib
from pathlib import Path

import pytest

from controller.web import STATIC, Credentials, WebConfig, WebServer
from controller.web import options as web_options
from controller.web.__main__ import config_of, parser
from controller.web.http import HttpServer, Limits
from controller.web.server import LANGUAGES
from controller.words import catalogue
from hardware.health import Health, Reason
from rules import GAMES, Topic
from rules.facts import DECLARABLE_FOULS, Foul, ShotKind, Special
from tests.waiting import until
from tests.web.harness import http_get
from vocabulary import Kind, Rail

ROOT = Path(__file__).resolve().parents[2]


async def test_serves_the_pages_and_a_config_naming_the_broker_and_venue() -> None:
    config = WebConfig(broker="ws://{host}:9001", venue="club",
                       dashboard=Credentials("dashboard", "pw"))
    async with WebServer(config) as server:
        assert server.url == f"http://127.0.0.1:{server.port}/"
        status, headers, body = await http_get(server, "/")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert b"dashboard.js" in body
        status, headers, body = await http_get(server, "/console.html?table=t1")
        assert status == 200 and b"console.js" in body
        status, headers, body = await http_get(server, "/config.json")
        assert json.loads(body) == {"broker": "ws://{host}:9001", "venue": "club", "prefix": "billiards",
                                    "dashboard": {"username": "dashboard", "password": "pw"},
                                    "referee": None, "tables": [], "language": None,
                                    "request_ttl_s": 30.0, "public_url": None, "history": False,
                                    "record": False}
        status, headers, body = await http_get(server, "/vendor/mqtt.min.js")
        assert status == 200 and headers["Content-Type"].startswith("text/javascript")
        assert int(headers["Content-Length"]) == len(body) > 100_000


async def test_refuses_what_is_not_a_served_file() -> None:
    async with WebServer(WebConfig()) as server:
        assert (await http_get(server, "/../server.py"))[0] == 404
        assert (await http_get(server, "/%2e%2e/server.py"))[0] == 404
        assert (await http_get(server, "/nothing.html"))[0] == 404
        assert (await http_get(server, "/vendor"))[0] == 404
        assert (await http_get(server, "/index.html", "POST"))[0] == 405
        status, headers, body = await http_get(server, "/index.html", "HEAD")
        assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_the_command_line_describes_the_config() -> None:
    args = parser().parse_args(["--broker", "ws://10.0.0.2:9001", "--venue", "hall",
                                "--dashboard-user", "dashboard", "--dashboard-password", "d"])
    config = config_of(args)
    assert config.to_json()["broker"] == "ws://10.0.0.2:9001"
    assert config.venue == "hall" and config.dashboard == Credentials("dashboard", "d")
    assert config.referee is None


async def test_options_json_is_every_games_options_from_the_code(tmp_path: Path) -> None:
    async with WebServer(WebConfig()) as server:
        status, _, body = await http_get(server, "/options.json")
    assert status == 200 and json.loads(body) == web_options.options()
    ten = {o["key"]: o for o in json.loads(body)["ten-ball"]["options"]}
    assert ten["scratch_in_hand"]["default"] == "kitchen" and "anywhere" in ten["scratch_in_hand"]["choices"]
    assert web_options.main([str(tmp_path)]) == 0  # for a venue's own web server
    assert (tmp_path / "options.json").read_text(encoding="utf-8") == web_options.text()


async def test_games_json_describes_every_game_for_the_pages(tmp_path: Path) -> None:
    async with WebServer(WebConfig()) as server:
        status, _, body = await http_get(server, "/games.json")
    assert status == 200
    served = json.loads(body)
    games = {g["id"]: g for g in served["games"]}
    assert [g["id"] for g in served["games"]] == ["ten-ball", "siberian-ten", "pyramid"]
    assert served["default"] == "ten-ball"
    ten, siberian, pyramid = games["ten-ball"], games["siberian-ten"], games["pyramid"]
    assert (ten["ball_style"], siberian["ball_style"], pyramid["ball_style"]) == ("pool", "pool", "ivory")
    assert pyramid["balls"] == list(range(1, 16)) and ten["balls"] == list(range(1, 11))
    assert (ten["players"], pyramid["players"]) == ([2, 2], [2, 4])
    assert [g["score_field"] for g in (ten, siberian, pyramid)] == ["games", "score", "score"]
    assert ten["first_fouls"] == ["miss", "wrong_ball_first", "no_rail", "touched_ball", "double_hit",
                                  "push", "moving_balls", "bad_break", "feet_off_floor"]
    assert pyramid["first_fouls"] == ["miss", "touched_ball", "butt_or_side", "double_hit", "push",
                                      "moving_balls", "direct_hit_in_kitchen", "bad_placement",
                                      "feet_off_floor"]
    assert ten["declarable"] == ["balls_to_cushion", "unsportsmanlike"]
    assert siberian["declarable"] == ["centre_line", "cue_ball_call"] and siberian["max_calls"] == 2
    assert ten["shot_kinds"] == ["safety", "push_out"]
    assert ten["options"] == web_options.options()["ten-ball"]["options"]  # options.json's, one source
    assert web_options.main([str(tmp_path)]) == 0  # for a venue's own web server
    assert json.loads((tmp_path / "games.json").read_text(encoding="utf-8")) == served


@pytest.mark.parametrize(("folder", "stem", "licence"), [
    (STATIC / "vendor", "mqtt", "mqtt.LICENSE.md"),
    (STATIC / "vendor", "qrcode", None),  # MIT, in the file's own header
    (ROOT / "tests" / "web" / "vendor", "axe", "axe.LICENSE.txt"),
    (ROOT / "tests" / "web" / "vendor", "acorn", "acorn.LICENSE.txt"),
])
def test_each_bundled_library_is_the_locked_version(folder: Path, stem: str, licence: str | None) -> None:
    """Rebuild with ``cd web && npm ci && npm run build``."""
    meta = json.loads((folder / f"{stem}.json").read_text())
    bundle = (folder / meta["file"]).read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == meta["sha256"]
    lock = json.loads((ROOT / "web" / "package-lock.json").read_text())
    assert lock["packages"][f"node_modules/{meta['package']}"]["version"] == meta["version"]
    if licence:
        assert (folder / licence).exists()
    else:
        assert b"MIT license" in bundle[:1000]


def test_every_file_of_the_pages_is_packaged() -> None:
    """An installed service (a wheel) serves what the repository has: the words too."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["controller.web"]
    package = STATIC.parent
    files = [p.relative_to(package) for p in STATIC.rglob("*") if p.is_file()]
    assert files and [f for f in files if not any(
        fnmatch.fnmatch(str(f), g) and str(f).count("/") == g.count("/") for g in globs)] == []
    # and their words, one catalogue per language
    words = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["controller.words"]
    assert words == ["catalogue/*.json"] and catalogue.CATALOGUE.name == "catalogue"


def test_the_pages_offer_exactly_the_rules_codes_and_name_each_in_every_language() -> None:
    """The pages cannot import the rules: their copies of the codes are held equal here."""
    script = (STATIC / "common.js").read_text(encoding="utf-8")
    listed = re.search(r"const FOULS = \[(.*?)\];", script, re.S)
    assert listed and set(re.findall(r'"(\w+)"', listed.group(1))) == {str(f) for f in DECLARABLE_FOULS}
    page = (STATIC / "console.html").read_text(encoding="utf-8")
    def options(select: str) -> set[str]:
        found = re.search(rf'<select (?:name="\w+" )?id="{select}">(.*?)</select>', page, re.S)
        assert found, select
        return set(re.findall(r'<option value="([\w-]+)"', found.group(1)))
    assert options("special") == {str(s) for s in Special}
    assert options("kind") == {str(k) for k in ShotKind}
    assert options("game") == set()  # the games are games.json's (the fourth game's test draws one)
    option_keys = {o["key"] for game in web_options.options().values() for o in game["options"]}
    for code in LANGUAGES:
        words = catalogue.words(code).pages
        for prefix, codes in (("foul", Foul), ("special", Special), ("kind", ShotKind), ("game", GAMES),
                              ("q", Topic), ("opt", option_keys), ("health", Health),
                              ("fault", Reason), ("channel", Kind), ("rail", Rail)):
            named = {k.split(".", 1)[1] for k in words if k.startswith(prefix + ".")}
            missing = {str(c) for c in codes} - named
            assert not missing, (code, prefix, missing)


def test_every_language_has_every_word_with_the_same_placeholders() -> None:
    english = catalogue.words("en").pages
    assert set(LANGUAGES) >= {"en", "ru"}
    script = (STATIC / "i18n.js").read_text(encoding="utf-8")
    listed = re.search(r"const LANGUAGES = \{(.*?)\};", script)
    assert listed and set(re.findall(r"(\w+): \"", listed.group(1))) == set(LANGUAGES)
    for code in LANGUAGES:
        words = catalogue.words(code).pages
        # what options do: English from the rules' own docs (options.json), the others here
        explained = {k for k in words if k.startswith("optdoc.")}
        assert words.keys() - explained == english.keys(), code
        assert not explained or code != "en"
        for key, text in words.items():
            assert text.strip(), (code, key)
            if key not in explained:
                fields = set(re.findall(r"\{\w+\}", text))
                assert fields == set(re.findall(r"\{\w+\}", english[key])), (code, key)


def test_every_option_of_every_game_is_explained_and_its_choices_named_in_every_language() -> None:
    """``optdoc.<game>.<key>``, or ``optdoc.<key>`` for the games whose options of that name
    say the same in English; ``optchoice.<key>.<choice>`` for every choice that is not a
    number. An option added to a game without its Russian explanation fails here."""
    games = web_options.options()
    for code in LANGUAGES:
        words = catalogue.words(code).pages
        shared: dict[str, set[str]] = {}
        used = set()
        for game, spec in games.items():
            for o in spec["options"]:
                for c in o["choices"]:
                    if not isinstance(c, int) or f"optchoice.{o['key']}.0" in words:
                        assert f"optchoice.{o['key']}.{c}" in words, (code, game, o["key"], c)
                if code == "en":
                    continue
                own, common = f"optdoc.{game}.{o['key']}", f"optdoc.{o['key']}"
                assert own in words or common in words, (code, game, o["key"])
                if own in words:
                    used.add(own)
                else:
                    used.add(common)
                    shared.setdefault(o["key"], set()).add(o["doc"])
                if code == "ru":
                    assert re.search("[а-яё]", words[own if own in words else common]), o["key"]
        # one explanation for games whose English differs would tell one of them wrongly
        assert {k: docs for k, docs in shared.items() if len(docs) > 1} == {}, code
        # and none for an option that no longer exists
        assert {k for k in words if k.startswith("optdoc.")} == used, code
        named = {k for k in words if k.startswith("optchoice.")}
        offered = {f"optchoice.{o['key']}.{c}" for spec in games.values() for o in spec["options"]
                   for c in o["choices"]}
        assert named <= offered, (code, named - offered)


#: The English each language's option explanations were translated from (``tests/web/
#: translated_from.json``): written by the translator, with the translation.
TRANSLATED_FROM = Path(__file__).with_name("translated_from.json")


def test_every_option_explanation_translates_the_rules_english_as_it_is_now() -> None:
    """An option's English ``doc`` changed in ``rules/`` and its translation not looked at
    fails here: the translation may say what the option no longer does. Update the
    translation, then the English it was made from in ``translated_from.json``."""
    record = json.loads(TRANSLATED_FROM.read_text(encoding="utf-8"))
    games = web_options.options()
    assert set(record) == set(LANGUAGES) - {"en"}
    for code, made_from in record.items():
        words = catalogue.words(code).pages
        now: dict[str, str] = {}
        for game, spec in games.items():
            for o in spec["options"]:
                own = f"optdoc.{game}.{o['key']}"
                now[own if own in words else f"optdoc.{o['key']}"] = o["doc"]
        stale = {key: english for key, english in now.items() if made_from.get(key) != english}
        assert not stale, (f"{code}: the English of these options changed since they were "
                           f"translated (translate again, then record the English): {stale}")
        assert made_from.keys() == now.keys(), code


# ---------------------------------------------------------------- the one HTTP server (h11)
async def _exchange(server: WebServer | HttpServer, raw: bytes) -> bytes:
    """Sends ``raw`` on a fresh connection; returns everything the server says until it closes."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(raw)
    await writer.drain()
    async with asyncio.timeout(10):
        answer = await reader.read()
    writer.close()
    return answer


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


async def test_a_5_kb_path_gets_414_and_a_name_the_file_system_refuses_a_404() -> None:
    async with WebServer(WebConfig()) as server:
        answer = await _exchange(server, b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(answer) == 414
        # under the target's limit, but a file name longer than the file system's (ENAMETOOLONG)
        assert (await http_get(server, "/" + "b" * 1500 + ".html"))[0] == 404
        assert (await http_get(server, "/x%00y.html"))[0] == 404
        assert (await http_get(server, "/index.html"))[0] == 200  # and it serves on


@pytest.mark.parametrize(("raw", "status"), [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"y" * 20_000 + b"\r\n\r\n", 431),
    (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
    (b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
     + (b"8000\r\n" + b"z" * 0x8000 + b"\r\n") * 2 + b"1\r\nz\r\n0\r\n\r\n", 413),
])
async def test_what_is_not_a_request_the_server_takes_is_answered_and_closed(raw: bytes, status: int) -> None:
    async with WebServer(WebConfig()) as server:
        assert _status(await _exchange(server, raw)) == status
        assert (await http_get(server, "/"))[0] == 200


async def test_one_connection_carries_several_requests_and_an_idle_one_is_closed() -> None:
    async with WebServer(WebConfig(), limits=Limits(idle_s=0.5)) as server:
        reader, writer = await asyncio.open_connection(server.host, server.port)
        for target in (b"/config.json", b"/options.json"):
            writer.write(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            json.loads(await reader.readexactly(length))
        assert server.connections == 1
        async with asyncio.timeout(10):  # nothing more asked: closed after idle_s
            assert await reader.read() == b""
        await until(lambda: server.connections == 0, what="the idle connection to be let go")
        writer.close()


async def test_at_the_connection_limit_the_longest_idle_is_closed_and_it_is_said_once(
        caplog: pytest.LogCaptureFixture) -> None:
    async with WebServer(WebConfig(), limits=Limits(connections=8)) as server:
        idle = [await asyncio.open_connection(server.host, server.port) for _ in range(30)]
        await until(lambda: server.closed_at_limit >= 22, what="the oldest idle connections closed")
        assert (await http_get(server, "/"))[0] == 200
        async with asyncio.timeout(10):  # the first ones were closed, the last ones wait on
            assert await idle[0][0].read() == b""
        assert server.connections <= 8
        for _, writer in idle:
            writer.close()
        await until(lambda: server.connections == 0, what="the crowd to go")
    said = [r.getMessage() for r in caplog.records if r.name == "controller.web.http"]
    assert len(said) == 2 and "limit" in said[0] and "were closed at the limit" in said[1], said


def test_1100_idle_connections_leave_the_pages_available_and_write_two_log_lines() -> None:
    """As a venue's service runs (systemd's default soft limit of 1,024 open files): before,
    the 1,024th connection stopped ``accept`` and asyncio logged each failure, the page timed out."""
    import resource
    import subprocess
    import sys
    import urllib.request

    def files_as_under_systemd() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    proc = subprocess.Popen([sys.executable, "-m", "controller.web", "--host", "127.0.0.1",
                             "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=files_as_under_systemd)
    try:
        assert proc.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:(\d+)/)", proc.stdout.readline())
        assert found, proc.stderr.read() if proc.poll() is not None else ""  # type: ignore[union-attr]
        url, port = found.group(1), int(found.group(2))

        async def crowd() -> int:
            held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(1100)]
            try:
                with urllib.request.urlopen(url, timeout=5) as r:  # noqa: ASYNC210 (the one request)
                    return int(r.status)
            finally:
                for _, writer in held:
                    writer.close()

        assert asyncio.run(crowd()) == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    lines = err.splitlines()
    assert len(lines) <= 2 and "Too many open files" not in err, err[:2000]


def test_the_service_puts_its_web_server_together_in_one_place(tmp_path: Path) -> None:
    """``run`` and the demo both call ``web_server``: the configuration's [web] (the venue's
    public address for the QR codes included) is what config.json says."""
    from controller.service.config import ConfigError, validate
    from controller.service.shell import web_server

    config = validate({"venue": "hall", "table": "t3", "data": str(tmp_path), "language": "ru",
                       "web": {"port": 0, "public_url": "http://billiards.hall.lan:8080/",
                               "dashboard_username": "dashboard"}}, "test")
    server = web_server(config)
    shown = {**server.config.to_json(), "history": server.history is not None}
    assert shown["public_url"] == "http://billiards.hall.lan:8080/" and shown["tables"] == ["t3"]
    assert shown["language"] == "ru" and shown["venue"] == "hall" and shown["history"] is True
    assert web_server(config, {"t1": tmp_path, "t2": tmp_path}, language=None).config.tables == ("t1", "t2")
    with pytest.raises(ConfigError):
        validate({"web": {"public_url": "javascript:alert(1)"}}, "test")
