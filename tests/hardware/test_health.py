"""Sensor health, fed scripted event streams under an injected clock."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware import BackendStats, LinkChanged, SensorEvent
from hardware.health import (
    DEFAULT_LIMITS,
    EventsLost,
    Health,
    HealthConfig,
    HealthMonitor,
    HealthRecord,
    Limits,
    LinkTrouble,
    Reason,
    SensorFaulted,
    SensorRecovered,
)
from vocabulary import Kind

CHANNELS = ("beam.fl", "beam.fr", "beam.sl", "cushion.lf", "cushion.h", "ball_id", "strike")


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


def monitor(config: HealthConfig | None = None, channels: tuple[str, ...] = CHANNELS) -> tuple[
    HealthMonitor, Clock
]:
    clock = Clock()
    return HealthMonitor(channels, clock=clock, config=config), clock


def at(clock: Clock, mon: HealthMonitor, t: float, ch: str, v: int = 1) -> list[HealthRecord]:
    clock.now = t
    return mon.feed(SensorEvent(t=t, ch=ch, v=v))


def shot(mon: HealthMonitor, clock: Clock, *fired: str) -> list[HealthRecord]:
    """Plays one shot in which each of ``fired`` sends a 10 ms pulse; returns its records."""
    out = mon.shot_started()
    for ch in fired:
        out += at(clock, mon, clock.now + 0.1, ch, 1)
        out += at(clock, mon, clock.now + 0.01, ch, 0)
    clock.now += 1.0
    return out + mon.shot_ended()


# --- stuck -------------------------------------------------------------------------------


def test_a_beam_blocked_longer_than_any_ball_could_is_stuck_then_recovers_when_clear() -> None:
    mon, clock = monitor()
    assert at(clock, mon, 10.0, "beam.fl", 1) == []
    clock.now = 11.99
    assert mon.tick() == []
    assert mon.is_usable("beam.fl")
    clock.now = 12.01
    [fault] = mon.tick()
    assert fault == SensorFaulted(t=12.01, channel="beam.fl", state=Health.STUCK,
                                  reason=Reason.ON_TOO_LONG, detail=fault.detail)
    assert not mon.is_usable("beam.fl")
    assert mon.is_usable("beam.fr")
    clock.now = 30.0
    assert mon.tick() == []  # reported once, not on every tick
    assert at(clock, mon, 31.0, "beam.fl", 0) == [
        SensorRecovered(t=31.0, channel="beam.fl", was=Health.STUCK, reason=Reason.RELEASED)
    ]
    assert mon.is_usable("beam.fl")


def test_a_slow_ball_blocking_a_beam_for_230_ms_is_not_stuck() -> None:
    mon, clock = monitor()
    records = at(clock, mon, 5.0, "beam.fl", 1)
    clock.now = 5.23
    records += mon.tick()
    records += at(clock, mon, 5.23, "beam.fl", 0)
    clock.now = 60.0
    records += mon.tick()
    assert records == []
    assert mon.state("beam.fl") is Health.OK


def test_a_vibration_sensor_on_for_too_long_is_stuck() -> None:
    mon, clock = monitor()
    at(clock, mon, 1.0, "cushion.lf", 1)
    clock.now = 3.5
    assert [(r.channel, r.state) for r in mon.tick()] == [("cushion.lf", Health.STUCK)]


def test_the_stuck_limit_is_configurable_per_channel() -> None:
    config = HealthConfig(channels={"beam.fl": Limits(stuck_after=0.5, silent_after=40)})
    mon, clock = monitor(config)
    at(clock, mon, 0.0, "beam.fl", 1)
    at(clock, mon, 0.0, "beam.fr", 1)
    clock.now = 0.6
    assert [r.channel for r in mon.tick()] == ["beam.fl"]


def test_a_reader_channel_is_never_stuck() -> None:
    mon, clock = monitor()
    at(clock, mon, 0.0, "ball_id", 1)
    clock.now = 100.0
    assert mon.tick() == []


# --- silent ------------------------------------------------------------------------------


def test_a_beam_quiet_while_other_beams_see_play_goes_silent_and_recovers_when_it_fires() -> None:
    config = HealthConfig(limits={**DEFAULT_LIMITS, Kind.BEAM: Limits(silent_after=3)})
    mon, clock = monitor(config)
    assert shot(mon, clock, "beam.fr", "cushion.lf", "cushion.h", "ball_id", "strike") == []
    assert shot(mon, clock, "beam.sl", "cushion.lf", "cushion.h", "ball_id", "strike") == []
    records = shot(mon, clock, "beam.fr", "cushion.lf", "cushion.h", "ball_id", "strike")
    assert [(r.channel, r.state, r.reason) for r in records] == [
        ("beam.fl", Health.SILENT, Reason.QUIET_WHILE_OTHERS_PLAYED)
    ]
    assert not mon.is_usable("beam.fl")
    assert mon.snapshot()["faults"] == {"beam.fl": "silent"}
    records = shot(mon, clock, "beam.fl")
    assert [(r.channel, r.state, r.reason) for r in records] == [
        ("beam.fl", Health.OK, Reason.FIRED)
    ]
    assert mon.is_usable("beam.fl")


def test_shots_in_which_no_peer_played_do_not_count_towards_silent() -> None:
    mon, clock = monitor()
    for _ in range(100):  # cushions and strikes only: no ball reached any pocket
        assert shot(mon, clock, "cushion.lf", "cushion.h", "strike") == []
    assert all(mon.is_usable(ch) for ch in CHANNELS)
    channels = mon.snapshot()["channels"]
    assert isinstance(channels, dict)
    assert channels["beam.fl"]["quiet_shots"] == 0
    assert channels["ball_id"]["quiet_shots"] == 0


def test_a_cushion_that_never_fires_while_the_others_do_goes_silent_after_ten_shots() -> None:
    mon, clock = monitor()
    records: list[HealthRecord] = []
    for i in range(10):
        records += shot(mon, clock, "cushion.h", "strike")
        assert bool(records) == (i == 9)
    assert [(r.channel, r.state) for r in records] == [("cushion.lf", Health.SILENT)]


def test_firing_once_resets_the_count_of_quiet_shots() -> None:
    mon, clock = monitor()
    for _ in range(9):
        shot(mon, clock, "cushion.h")
    shot(mon, clock, "cushion.h", "cushion.lf")
    for _ in range(9):
        assert shot(mon, clock, "cushion.h") == []
    assert mon.is_usable("cushion.lf")


# --- chattering --------------------------------------------------------------------------


def test_edges_far_faster_than_balls_are_chattering_and_recover_after_calm() -> None:
    mon, clock = monitor()
    records: list[HealthRecord] = []
    for i in range(22):  # 11 blocks in 0.42 s on one beam: the 21st edge within a second
        records += at(clock, mon, 1.0 + 0.02 * i, "beam.sl", (i + 1) % 2)
    assert [(r.channel, r.state, r.reason) for r in records] == [
        ("beam.sl", Health.CHATTERING, Reason.TOO_MANY_EDGES)
    ]
    assert records[0].t == pytest.approx(1.4)
    assert not mon.is_usable("beam.sl")
    clock.now = 1.42 + 4.99  # still within calm_after of the last time it was over
    assert mon.tick() == []
    clock.now = 1.42 + 5.0
    assert mon.tick() == [
        SensorRecovered(t=clock.now, channel="beam.sl", was=Health.CHATTERING,
                        reason=Reason.CALMED)
    ]
    assert mon.is_usable("beam.sl")


def test_two_balls_in_one_pocket_close_together_do_not_chatter() -> None:
    mon, clock = monitor()
    script = [(0.0, 1), (0.015, 0), (0.040, 1), (0.058, 0)]
    assert [r for t, v in script for r in at(clock, mon, t, "beam.fl", v)] == []


def test_a_break_shaking_a_rail_does_not_make_its_cushion_chatter() -> None:
    mon, clock = monitor()
    records: list[HealthRecord] = []
    for hit in range(8):  # eight hits in a second, each a train of five pulses
        for pulse in range(5):
            t = hit * 0.12 + pulse * 0.004
            records += at(clock, mon, t, "cushion.h", 1)
            records += at(clock, mon, t + 0.002, "cushion.h", 0)
    assert records == []


# --- disconnected, priority, overflow ----------------------------------------------------


def test_a_link_going_down_disconnects_its_channels_until_it_comes_back() -> None:
    mon, clock = monitor()
    carried = ("beam.fl", "cushion.lf")
    clock.now = 5.0
    down = mon.feed(LinkChanged(t=5.0, source="board-a", up=False, reason="unplugged",
                                channels=carried))
    assert [(r.channel, r.state, r.reason) for r in down] == [
        ("beam.fl", Health.DISCONNECTED, Reason.LINK_DOWN),
        ("cushion.lf", Health.DISCONNECTED, Reason.LINK_DOWN),
    ]
    assert not mon.is_usable("beam.fl") and mon.is_usable("beam.fr")
    snap = mon.snapshot()
    assert snap["ok"] is False
    no_trouble = dict.fromkeys(("bad_frames", "sequence_gaps", "resends", "protocol_errors",
                                "blind_spells", "reconnects"), 0)
    assert snap["links"] == {"board-a": {"up": False, "since": 5.0, "reason": "unplugged",
                                         "channels": list(carried), "events": 0, "overflows": 0,
                                         **no_trouble}}
    clock.now = 9.0
    up = mon.feed(LinkChanged(t=9.0, source="board-a", up=True, channels=carried))
    assert up == [
        SensorRecovered(t=9.0, channel=ch, was=Health.DISCONNECTED, reason=Reason.LINK_UP)
        for ch in carried
    ]
    assert mon.snapshot()["ok"] is True


def test_a_disconnected_beam_is_not_judged_stuck_by_its_last_level() -> None:
    mon, clock = monitor()
    at(clock, mon, 0.0, "beam.fl", 1)
    mon.feed(LinkChanged(t=0.5, source="gpio", up=False, channels=("beam.fl",)))
    clock.now = 10.0
    assert mon.tick() == []
    assert mon.state("beam.fl") is Health.DISCONNECTED


def test_shots_played_while_a_channel_is_disconnected_do_not_make_it_silent() -> None:
    mon, clock = monitor()
    mon.feed(LinkChanged(t=0.0, source="board-a", up=False, channels=("cushion.lf",)))
    for _ in range(12):
        shot(mon, clock, "cushion.h")
    assert mon.feed(LinkChanged(t=clock.now, source="board-a", up=True,
                                channels=("cushion.lf",)))[0].state is Health.OK
    assert mon.is_usable("cushion.lf")


def test_the_most_serious_fault_shows_and_the_change_names_what_it_was() -> None:
    mon, clock = monitor()
    records: list[HealthRecord] = []
    for i in range(21):
        records += at(clock, mon, 0.01 * i, "beam.fl", (i + 1) % 2)  # ends at 1: blocked
    clock.now = 2.5
    records += mon.tick()
    assert [(r.state, r.was) for r in records] == [
        (Health.CHATTERING, Health.OK), (Health.STUCK, Health.CHATTERING)
    ]


def test_overflow_in_a_backend_is_reported_in_health() -> None:
    mon, clock = monitor()
    clock.now = 3.0
    stats = BackendStats(events=50, overflows=3, links={"gpio": True})
    assert mon.note_stats("gpio", stats) == [EventsLost(t=3.0, source="gpio", lost=3, total=3)]
    assert mon.note_stats("gpio", stats) == []
    links = mon.snapshot()["links"]
    assert isinstance(links, dict)
    assert (links["gpio"]["events"], links["gpio"]["overflows"]) == (50, 3)


def test_edges_a_board_lost_are_named_by_channel_in_the_warning_and_the_snapshot() -> None:
    """Issue 32 §3: health showed only ``events_lost 1510``, no channel named."""
    mon, clock = monitor()
    clock.now = 3.0
    stats = BackendStats(events=50, overflows=40, links={"e661": True},
                         lost_by_channel={"cushion.h": 40})
    [lost] = mon.note_stats("serial", stats)
    assert isinstance(lost, EventsLost) and lost.to_json()["channels"] == {"cushion.h": 40}
    stats = BackendStats(events=60, overflows=45, links={"e661": True},
                         lost_by_channel={"cushion.h": 40, "cushion.f": 5})
    [lost] = mon.note_stats("serial", stats)
    assert lost.lost == 5 and lost.channels == (("cushion.f", 5),)  # the one that lost more
    links = mon.snapshot()["links"]
    assert isinstance(links, dict)
    assert links["serial"]["lost_by_channel"] == {"cushion.h": 40, "cushion.f": 5}


def test_a_serial_links_trouble_counters_are_in_the_health_snapshot() -> None:
    mon, clock = monitor()
    stats = BackendStats(events=9, bad_frames=2, sequence_gaps=1, reconnects=1, resends=3,
                         protocol_errors=1, blind_spells=1, links={"e661": True})
    [warning] = mon.note_stats("serial", stats)
    assert isinstance(warning, LinkTrouble) and warning.to_json()["reason"] == (
        "bad_frames +2, sequence_gaps +1, resends +3, protocol_errors +1, blind_spells +1")
    assert mon.note_stats("serial", stats) == []  # nothing new
    links = mon.snapshot()["links"]
    assert isinstance(links, dict)
    got = {k: links["serial"][k] for k in ("bad_frames", "sequence_gaps", "resends",
                                           "protocol_errors", "blind_spells", "reconnects")}
    assert got == {"bad_frames": 2, "sequence_gaps": 1, "resends": 3, "protocol_errors": 1,
                   "blind_spells": 1, "reconnects": 1}


def test_an_unknown_channel_is_not_usable_and_a_new_one_is_learnt_from_events() -> None:
    mon, clock = monitor()
    assert not mon.is_usable("click")
    at(clock, mon, 1.0, "click", 1)
    assert mon.is_usable("click")


# --- the B/health payload ----------------------------------------------------------------


def test_the_snapshot_is_the_documented_json_for_b_health() -> None:
    mon, clock = monitor()
    mon.feed(LinkChanged(t=0.0, source="gpio", up=True, channels=CHANNELS))
    at(clock, mon, 1.0, "beam.fl", 1)
    clock.now = 4.0
    mon.tick()
    snap = json.loads(json.dumps(mon.snapshot()))
    assert set(snap) == {"t", "ok", "faults", "shots", "channels", "links"}
    assert snap["faults"] == {"beam.fl": "stuck"}
    assert snap["channels"]["beam.fl"] == {
        "state": "stuck", "reason": "on_too_long", "since": 4.0, "level": 1, "last": 1.0,
        "edges": 1, "quiet_shots": 0,
    }
    assert snap["channels"]["cushion.h"]["reason"] is None
    assert snap["links"]["gpio"]["channels"] == list(CHANNELS)
    assert mon.summary() == {"ok": False, "faults": {"beam.fl": "stuck"}}


def test_fault_records_serialise_as_sensor_fault_and_sensor_recovered_events() -> None:
    fault = SensorFaulted(t=1.5, channel="beam.fl", state=Health.STUCK,
                          reason=Reason.ON_TOO_LONG, detail="at 1 for 2.100 s")
    back = SensorRecovered(t=2.0, channel="beam.fl", was=Health.STUCK, reason=Reason.RELEASED)
    assert (fault.event_type, back.event_type) == ("sensor_fault", "sensor_recovered")
    assert json.loads(json.dumps(fault.to_json())) == {
        "channel": "beam.fl", "state": "stuck", "reason": "on_too_long", "was": "ok", "t": 1.5,
        "detail": "at 1 for 2.100 s",
    }
    assert back.to_json()["state"] == "ok"


# --- invariants over any stream ----------------------------------------------------------

steps = st.lists(
    st.one_of(
        st.tuples(st.just("event"), st.sampled_from(CHANNELS), st.integers(0, 1),
                  st.floats(0.0, 0.5)),
        st.tuples(st.just("tick"), st.just(""), st.just(0), st.floats(0.0, 3.0)),
        st.tuples(st.just("shot"), st.just(""), st.just(0), st.floats(0.0, 1.0)),
        st.tuples(st.sampled_from(["down", "up"]), st.just(""), st.just(0), st.floats(0, 1)),
    ),
    max_size=120,
)


def run(script: list[tuple[str, str, int, float]]) -> tuple[list[HealthRecord], HealthMonitor]:
    config = HealthConfig(limits={k: Limits(stuck_after=1.0, chatter_edges=6, silent_after=2)
                                  for k in HealthConfig().limits})
    mon, clock = monitor(config)
    out: list[HealthRecord] = []
    for op, ch, v, dt in script:
        clock.now += dt
        if op == "event":
            out += mon.feed(SensorEvent(t=clock.now, ch=ch, v=v))
        elif op == "tick":
            out += mon.tick()
        elif op == "shot":
            out += mon.shot_started() + mon.shot_ended()
        else:
            out += mon.feed(LinkChanged(t=clock.now, source="gpio", up=op == "up",
                                        channels=CHANNELS[:3]))
    return out, mon


@settings(max_examples=150, deadline=None)
@given(steps)
def test_any_stream_gives_consistent_deterministic_transitions(
    script: list[tuple[str, str, int, float]],
) -> None:
    records, mon = run(script)
    assert run(script)[0] == records  # the same stream and clock, the same transitions
    state = dict.fromkeys(CHANNELS, Health.OK)
    for r in records:
        assert isinstance(r, SensorFaulted | SensorRecovered)
        assert r.was is state[r.channel] and r.state is not r.was
        state[r.channel] = r.state
    for ch in CHANNELS:
        assert mon.state(ch) is state[ch]
        assert mon.is_usable(ch) == (state[ch] is Health.OK)
