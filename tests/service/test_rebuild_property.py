"""Property: cut the journal at any input, rebuild, go on — the same table as never cut."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config import validate
from controller.service import Service, _Request
from hardware.events import SensorEvent
from tests.tracekit import TraceBuilder

POCKETS = ["hl", "hr", "sl", "sr", "fl", "fr"]


def match(seed: int, shots: list[list[str]]) -> list[dict]:
    tb = TraceBuilder(seed=seed).new_match("ten-ball", race_to=2, transaction="nm")
    for n, drops in enumerate(shots):
        tb.call(n % 10 + 1, "fl", transaction=f"c{n}").shot(drops=drops, cushions=["f", "lh"])
        if drops:
            tb.request("answer", {"answer": [1] if len(drops) == 1 else [1, 2], "transaction": f"a{n}"})
    return tb.lines


def service(data: Path) -> Service:
    config = validate({"data": str(data), "backend": "sim", "mqtt": {"url": "mqtt://127.0.0.1:9"},
                       "recording": {"enabled": False}, "journal": {"sync": "normal"}})
    svc = Service(config, clock=lambda: 0.0)
    svc._offset = 0.0  # the trace's times are the service's (no reboot between the two runs)
    return svc


def feed(svc: Service, line: dict) -> None:
    t = float(line["t"])
    svc._tick(svc._at(t))  # the clock runs up to each input, as the live loop does
    if "ch" in line:
        svc._handle(SensorEvent(t, line["ch"], line.get("v", 1), line.get("level"),
                                line.get("ball"), line.get("pocket")))
    else:
        svc._handle(_Request(line["request"], dict(line["payload"]), t))


def state(svc: Service) -> tuple:
    table = svc.table
    return (table.referee.snapshot(), table.match_id, table.seq, table.fusion.next_deadline,
            sorted(table.transactions()))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 1000),
       shots=st.lists(st.lists(st.sampled_from(POCKETS), max_size=2), min_size=1, max_size=4),
       cut=st.floats(0, 1))
def test_a_table_rebuilt_from_its_journal_at_any_point_goes_on_as_the_original(seed, shots, cut):
    lines = match(seed, shots)
    k = int(cut * len(lines))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        original, cut_short = service(Path(a)), service(Path(b))
        for line in lines[:k]:
            feed(original, line)
            feed(cut_short, line)
        cut_short._commit()  # what the live loop writes at the end of its turn
        cut_short.journal.close()
        rebuilt = service(Path(b))  # the power went out here
        assert state(rebuilt) == state(original)  # seq too: it continues from the journal's
        for line in lines[k:]:
            feed(original, line)
            feed(rebuilt, line)
        end = lines[-1]["t"] + 60
        for svc in (original, rebuilt):
            svc._tick(svc._at(end))
        assert state(rebuilt) == state(original)
        assert original.table.referee.state.shot >= 1
        original.journal.close()
        rebuilt.journal.close()
