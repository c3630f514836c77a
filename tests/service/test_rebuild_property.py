"""Property: cut the journal at any input, rebuild, go on — the same table as never cut."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.service.corekit import FakeClock, Stepper, core_config
from tests.tracekit import TraceBuilder

POCKETS = ["hl", "hr", "sl", "sr", "fl", "fr"]


def match(seed: int, shots: list[list[str]]) -> list[dict]:
    tb = TraceBuilder(seed=seed).new_match("ten-ball", race_to=2, transaction="nm")
    for n, drops in enumerate(shots):
        tb.call(n % 10 + 1, "fl", transaction=f"c{n}").shot(drops=drops, cushions=["f", "lh"])
        if drops:
            tb.request("answer", {"answer": [1] if len(drops) == 1 else [1, 2], "transaction": f"a{n}"})
    return tb.lines


def state(stepper: Stepper) -> tuple:
    table = stepper.core.table
    return (table.referee.snapshot(), table.match_id, table.seq, table.next_deadline,
            sorted(table.transactions()))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 1000),
       shots=st.lists(st.lists(st.sampled_from(POCKETS), max_size=2), min_size=1, max_size=4),
       cut=st.floats(0, 1))
def test_a_table_rebuilt_from_its_journal_at_any_point_goes_on_as_the_original(seed, shots, cut):
    lines = match(seed, shots)
    k = int(cut * len(lines))
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        original, cut_short = Stepper(core_config(Path(a))), Stepper(core_config(Path(b)))
        for line in lines[:k]:
            original.step(line)
            cut_short.step(line)
        cut_short.commit()  # what the live loop writes at the end of its turn
        cut_short.core.journal.close()  # the service was killed here (no clean stop)
        rebuilt = Stepper(core_config(Path(b)), clock=FakeClock(cut_short.clock.t))
        assert state(rebuilt) == state(original)  # seq too: it continues from the journal's
        for line in lines[k:]:
            original.step(line)
            rebuilt.step(line)
        end = lines[-1]["t"] + 60
        original.settle(end)
        rebuilt.settle(end)
        assert state(rebuilt) == state(original)
        assert original.core.table.referee.state.shot >= 1
        original.close()
        rebuilt.close()
