"""Bad input at the table: fuzzed request payloads get a clear error and change nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.requests import MAX_PAYLOAD, REQUESTS
from controller.table import Message, Table

NAMES = sorted(REQUESTS) + ["teleport", "", "call/../x"]


def table_in_play() -> tuple[Table, list[Message]]:
    out: list[Message] = []
    table = Table(out.append)
    table.start(0.0)
    table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]}, 1.0)
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
                            "first_contact", "centre_line", "amend", "bogus"])
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.dictionaries(keys, json_values, max_size=5),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), payload=payloads())
def test_fuzzed_requests_never_crash_and_errors_change_nothing(name: str, payload: Any) -> None:
    table, out = table_in_play()
    before = table.referee.snapshot()
    response = table.request(name, payload, 2.0)
    assert response["status"] in ("ok", "error")
    if response["status"] == "error":
        assert isinstance(response["error"], str) and response["error"]
        assert table.referee.snapshot() == before
    published = out[-1]
    assert published.topic == f"response/{name}" and published.payload["status"] == response["status"]


def test_a_huge_payload_is_refused_with_its_size() -> None:
    table, _ = table_in_play()
    response = table.request("call", b"{" + b" " * (MAX_PAYLOAD + 10) + b"}", 2.0)
    assert response["status"] == "error" and "too large" in response["error"]


def test_player_names_with_topic_characters_and_any_unicode_are_just_names() -> None:
    out: list[Message] = []
    table = Table(out.append)
    table.start(0.0)
    names = ["a/b#+", "Ёжик 🎱"]
    response = table.request("new_match", {"game": "ten-ball", "players": names}, 1.0)
    assert response["status"] == "ok"
    assert [p["name"] for p in table.referee.snapshot()["players"]] == names
    assert all("/" not in m.topic.replace("response/", "") for m in out)


def test_the_error_names_the_field_and_what_was_wrong() -> None:
    table, _ = table_in_play()
    r = table.request("undo", {"shots": "two"}, 2.0)
    assert r["status"] == "error" and "shots" in r["error"]
    r = table.request("call", {"calls": [{"ball": 3}]}, 2.0)
    assert "pocket" in r["error"] and "required" in r["error"]
    r = table.request("answer", {"answer": "shoot", "transaction": "t-9"}, 2.0)
    assert r["transaction"] == "t-9" and "no open question" in r["error"]
    r = table.request("call", b'{"calls": [], "transaction": "t-10", "x": 1}', 2.0)
    assert r["transaction"] == "t-10" and "unknown field 'x'" in r["error"]
