"""One catalogue of words per language (issue 26): the referee's questions, the displays' words
with their short forms and the pages' words live in ``controller/words/catalogue/<code>.json``,
and adding a language is adding that one file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.words import catalogue

ROOT = Path(__file__).resolve().parents[2]


def _fields(text: str) -> set[str]:
    return set(re.findall(r"\{\w+\}", text))


@pytest.mark.parametrize("code", catalogue.languages())
def test_every_catalogue_has_every_word_of_english_with_the_same_fields(code: str) -> None:
    en, words = catalogue.words("en"), catalogue.words(code)
    assert words.name and words.code == code
    assert words.questions.keys() == en.questions.keys()
    assert words.displays.keys() == en.displays.keys()
    for key, variants in words.displays.items():
        assert variants and all(_fields(v) == _fields(en.displays[key][0]) for v in variants), key
    for key, text in words.questions.items():
        assert text.strip() and _fields(text) <= _fields(en.questions[key]) | {"{player}"}, key
    # the pages' words: what options do is written per language (English has the rules' own)
    assert {k for k in words.pages if not k.startswith("optdoc.")} == en.pages.keys()


def test_words_live_in_the_catalogue_only() -> None:
    """No second copy: the pages' lang/ files are the catalogue's, served by the web server."""
    assert not (ROOT / "controller" / "web" / "static" / "lang").exists()
    for module in ("controller/words/texts.py", "controller/pipeline/scoreboard.py"):
        source = (ROOT / module).read_text(encoding="utf-8")
        assert "ЖДЁМ СУДЬЮ" not in source and "какой шар упал" not in source, module


def test_a_missing_language_is_refused_with_the_ones_there_are() -> None:
    with pytest.raises(catalogue.CatalogueError, match="no words for language 'xx'; there are en, ru"):
        catalogue.words("xx")


ADD_A_LANGUAGE = r"""
import json, asyncio
from controller.words import catalogue, texts
from controller.pipeline import scoreboard
from controller.web import WebConfig, WebServer
server = WebServer(WebConfig(broker="ws://x", venue="v"))
status, body, _ = server.resolve("/lang/xx.json")
_, index, _ = server.resolve("/lang/index.json")
from controller.service.config import validate
question = {"topic": "contact", "player": 0, "about": {}}
from controller.adapters.config import HomeAssistantConfig
from controller.adapters.homeassistant import HomeAssistantAdapter
ha = HomeAssistantAdapter(HomeAssistantConfig(), "billiards/v/t1")
ha.on_state({"language": "xx", "status": "idle", "players": []})
from controller.sim.simulator import player_names
print(json.dumps({
    "ha": {t.split("/")[-2]: c["name"] for t, c in ha.configs()},
    "ha_device": ha.device["name"],
    "sim_players": list(player_names("xx")),
    "config": validate({"language": "xx"}).language,
    "languages": list(catalogue.languages()),
    "prompt": texts.prompt(question, ["A", "B"], "xx"),
    "free": scoreboard.say("free", "xx"),
    "foul": scoreboard.foul_name("miss", "xx"),
    "page": [status, json.loads(body)["c.miss"]],
    "index": json.loads(index),
}))
"""


def test_adding_a_language_is_adding_one_file(tmp_path: Path) -> None:
    for code in catalogue.languages():
        (tmp_path / f"{code}.json").write_text(
            (catalogue.CATALOGUE / f"{code}.json").read_text(encoding="utf-8"), encoding="utf-8")
    xx = json.loads((catalogue.CATALOGUE / "en.json").read_text(encoding="utf-8"))
    xx["language"] = "Xish"
    xx["questions"]["contact"] = "xx contact?"
    xx["displays"]["free"] = ["XX FREE"]
    xx["pages"]["foul.miss"] = "xx miss"
    xx["pages"]["c.miss"] = "Xx-miss"
    xx["pages"]["ha.game"] = "Xx game"
    xx["pages"]["ha.device"] = "Xx table {table}"
    xx["pages"]["sim.players"] = "Xa|Xb|Xc|Xd"
    (tmp_path / "xx.json").write_text(json.dumps(xx), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", ADD_A_LANGUAGE], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "BILLIARDS_WORDS": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["languages"] == ["en", "ru", "xx"]
    assert got["config"] == "xx"  # a table may speak it
    assert got["prompt"] == "xx contact?"
    assert (got["free"], got["foul"]) == ("XX FREE", "xx miss")
    assert got["page"] == [200, "Xx-miss"]
    # the adapters speak it too: Home Assistant's entity names, from the table's language
    assert got["ha"]["game"] == "Xx game" and got["ha_device"] == "Xx table t1"
    assert got["sim_players"] == ["Xa", "Xb", "Xc", "Xd"]
    assert got["index"] == {"en": "English", "ru": "Русский", "xx": "Xish"}
    demo = subprocess.run([sys.executable, "-m", "controller", "demo", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "BILLIARDS_WORDS": str(tmp_path)})
    assert "--language {en,ru,xx}" in demo.stdout


def test_the_pages_words_can_be_written_for_a_web_server_of_the_venues_own(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "controller.words", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for code in catalogue.languages():
        written = json.loads((tmp_path / "lang" / f"{code}.json").read_text(encoding="utf-8"))
        assert written == catalogue.words(code).pages
    index = json.loads((tmp_path / "lang" / "index.json").read_text(encoding="utf-8"))
    assert index == {"en": "English", "ru": "Русский"}
    bad = subprocess.run([sys.executable, "-m", "controller.words"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "usage: python -m controller.words DIR" in bad.stderr


@pytest.mark.parametrize("code", catalogue.languages())
def test_a_catalogue_names_each_word_once(code: str) -> None:
    """A key written twice keeps only its last text in JSON: a merge that added a word beside its
    old wording would leave the old text unseen in the file and a reader unsure which holds."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in items]
        twice.extend(sorted({k for k in keys if keys.count(k) > 1}))
        return dict(items)

    path = ROOT / "controller" / "words" / "catalogue" / f"{code}.json"
    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)
    assert twice == []
