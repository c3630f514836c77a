"""Bad input at the table: fuzzed request payloads get a clear error and change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.pipeline.requests import (
    MAX_PAYLOAD,
    REQUESTS,
    BadRequest,
    name_error,
    parse_request,
    transaction_of,
)
from controller.pipeline.table import Message, Table

NAMES = sorted(REQUESTS) + ["teleport", "", "call/../x"]


def table_in_play() -> tuple[Table, list[Message]]:
    table = Table()
    out = table.start(0.0)
    out += table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]}, 1.0).messages
    return table, out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def payloads() -> st.SearchStrategy[Any]:
    keys = st.sampled_from(["calls", "kind", "answer", "question", "shots", "game", "players",
                            "fouls", "off_table", "pocketed", "special", "v", "transaction",
                            "first_contact", "centre_line", "cushions_after_contact",
                            "balls_to_cushion", "unsportsmanlike", "amend",
                            "bogus"])
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.dictionaries(keys, json_values, max_size=5),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), payload=payloads())
def test_fuzzed_requests_never_crash_and_errors_change_nothing(name: str, payload: Any) -> None:
    table, _ = table_in_play()
    before = table.referee.snapshot()
    handled = table.request(name, payload, 2.0)
    response = handled.response
    assert response["status"] in ("ok", "error")
    if response["status"] == "error":
        assert isinstance(response["error"], str) and response["error"]
        assert table.referee.snapshot() == before
    published = handled.messages[-1]
    assert published.topic == f"response/{name}" and published.payload["status"] == response["status"]


def test_a_huge_payload_is_refused_with_its_size() -> None:
    table, _ = table_in_play()
    response = table.request("call", b"{" + b" " * (MAX_PAYLOAD + 10) + b"}", 2.0).response
    assert response["status"] == "error" and "too large" in response["error"]


def test_player_names_with_topic_characters_and_any_unicode_are_just_names() -> None:
    table = Table()
    out = table.start(0.0)
    names = ["a/b#+", "Ёжик 🎱"]
    handled = table.request("new_match", {"game": "ten-ball", "players": names}, 1.0)
    out += handled.messages
    assert handled.response["status"] == "ok"
    assert [p["name"] for p in table.referee.snapshot()["players"]] == names
    assert all("/" not in m.topic.replace("response/", "") for m in out)


def test_the_error_names_the_field_and_what_was_wrong() -> None:
    table, _ = table_in_play()
    r = table.request("undo", {"shots": "two"}, 2.0).response
    assert r["status"] == "error" and "shots" in r["error"]
    r = table.request("call", {"calls": [{"ball": 3}]}, 2.0).response
    assert "pocket" in r["error"] and "required" in r["error"]
    r = table.request("answer", {"answer": "shoot", "transaction": "t-9"}, 2.0).response
    assert r["transaction"] == "t-9" and "no open question" in r["error"]
    r = table.request("call", b'{"calls": [], "transaction": "t-10", "x": 1}', 2.0).response
    assert r["transaction"] == "t-10" and "unknown field 'x'" in r["error"]


# -- poison: text that cannot be written, numbers that cannot be read, names that are not text
def _placed(value: Any, where: int) -> dict[str, Any]:
    """A new_match payload with ``value`` at one of several depths."""
    return [{"game": "ten-ball", "players": ["A", "B"], "options": {"o": value}},
            {"game": "ten-ball", "players": ["A", "B"], "options": {"o": [1, value]}},
            {"game": value, "players": ["A", "B"]},
            {"game": "ten-ball", "players": ["A", "B"], "v": value}][where % 4]


@settings(max_examples=100, deadline=None)
@given(surrogate=st.integers(0xD800, 0xDFFF), where=st.integers(0, 3), prefix=st.text(max_size=5))
def test_a_lone_surrogate_anywhere_is_refused_naming_its_field(surrogate: int, where: int,
                                                               prefix: str) -> None:
    payload = {**_placed(prefix + chr(surrogate), where), "transaction": "t-1"}
    raw = json.dumps(payload).encode()  # as it travels: the JSON escape \udXXX
    with pytest.raises(BadRequest, match=f"U\\+{surrogate:04X}") as caught:
        parse_request("new_match", raw)
    assert str(caught.value).split(":")[0] in ("options.o", "options.o.1", "game", "v")
    assert transaction_of(raw) == "t-1"  # the error still goes to its sender
    assert transaction_of(json.dumps({"transaction": chr(surrogate)})) is None


@pytest.mark.parametrize(("raw", "reason"), [
    (b'{"shots": ' + b"1" * 4301 + b"}", "too large to read"),
    (b'{"shots": -' + b"1" * 5000 + b"}", "too large to read"),
    (b'{"shots": 9007199254740992}', "shots: a number of 16 digits"),
    (b'{"shots": NaN}', "NaN"),
    (b'{"shots": -Infinity}', "-Infinity"),
    (b'{"shots": 1e400}', "1e400"),
    (b"[" * 5000 + b"]" * 5000, "JSON"),
])
def test_numbers_python_cannot_read_or_jsons_readers_cannot_hold_are_refused(
        raw: bytes, reason: str) -> None:
    with pytest.raises(BadRequest, match=reason):
        parse_request("undo", raw)


@settings(max_examples=200, deadline=None)
@given(name=st.text(st.characters(categories=["L", "M", "N", "P", "S", "Zs"]), max_size=10),
       bad=st.characters(categories=["Cc", "Cf", "Zl", "Zp"], exclude_characters="\u200c\u200d"))
def test_a_name_with_a_control_or_formatting_character_is_refused(name: str, bad: str) -> None:
    players = ["A" + name[:5] + bad + name[5:] + "Z", "B"]
    with pytest.raises(BadRequest, match=rf"players\.0: .*U\+{ord(bad):04X}"):
        parse_request("new_match", {"game": "ten-ball", "players": players})


@pytest.mark.parametrize("name", ["Анна Каренина-Вронская", "Ёжик 🎱", "名前", "👨‍👩‍👧 club",
                                  "O'Brien", "José", "عمر"])
def test_names_in_any_script_and_emoji_sequences_are_taken(name: str) -> None:
    req = parse_request("new_match", {"game": "pyramid", "players": [name, "B"]})
    assert req.players[0] == name  # type: ignore[union-attr]


def test_a_request_name_is_answerable_only_if_it_fits_one_topic_level() -> None:
    assert name_error("call") is None and name_error("teleport") is None
    assert "65 characters" in str(name_error("x" * 65))
    assert name_error("a/b") == name_error("\ud800") == "a request name that is not a single topic level"


@pytest.mark.parametrize(("key", "bad"), [("cushions_after_contact", (5, -1, "two", 1.5, [2])),
                                        ("balls_to_cushion", (16, -1, "four", 4.5, [4]))])
def test_a_declared_count_out_of_range_is_refused_and_changes_nothing(key: str,
                                                                      bad: tuple[Any, ...]) -> None:
    table, _ = table_in_play()
    for value in bad:
        handled = table.request("declare", {key: value}, 2.0)
        r = handled.response
        assert r["status"] == "error" and key in r["error"]
        assert [m.topic for m in handled.messages] == ["response/declare"]
