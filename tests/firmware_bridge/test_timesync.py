"""Tick unwrapping and the NTP-style clock fit, on synthetic exchanges with known truth."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.timesync import ClockFit, TickUnwrapper, sample

PERIOD = 1 << 30


@given(st.integers(0, PERIOD - 1), st.lists(st.integers(0, PERIOD // 2 - 1), max_size=200))
def test_unwrapping_wrapped_ticks_gives_back_the_true_count(start: int, steps: list[int]) -> None:
    unwrap = TickUnwrapper(30)
    true = start
    assert unwrap.unwrap(true % PERIOD) == start
    for step in steps:
        true += step
        assert unwrap.unwrap(true % PERIOD) == true


def test_a_tick_just_before_the_newest_unwraps_to_the_past_across_the_wrap() -> None:
    unwrap = TickUnwrapper(30)
    unwrap.unwrap(PERIOD - 10)
    assert unwrap.unwrap(5) == PERIOD + 5  # wrapped forwards
    assert unwrap.unwrap(PERIOD - 20) == PERIOD - 20  # an edge that waited in the buffer
    assert unwrap.unwrap(6) == PERIOD + 6  # and the newest did not move back


def exchanges(
    n: int, *, offset: float, drift_ppm: float, every: float, seed: int = 1
) -> tuple[list[tuple[float, float, int, int]], float]:
    """Returns n exchanges (t1, t4, k2, k3) against a board clock with known error, and the
    host time of the last one. Most exchanges are clean; a third wait in a queue on one leg
    (asymmetric delay, which biases their midpoints)."""
    rnd = random.Random(seed)
    rate = 1e6 * (1 + drift_ppm * 1e-6)
    out = []
    t = 100.0
    for _ in range(n):
        up = 150e-6 + rnd.uniform(0, 30e-6)
        down = 150e-6 + rnd.uniform(0, 30e-6)
        if rnd.random() < 0.35:
            up += rnd.uniform(1e-3, 8e-3)  # stuck behind other traffic one way only
        t1 = t
        k2 = int((t1 + up - offset) * rate)
        k3 = k2 + 40
        t4 = t1 + up + 40e-6 / (1 + drift_ppm * 1e-6) + down
        out.append((t1, t4, k2, k3))
        t += every
    return out, t


def board_tick(host_t: float, offset: float, drift_ppm: float) -> float:
    return (host_t - offset) * 1e6 * (1 + drift_ppm * 1e-6)


def test_offset_and_drift_are_fitted_so_a_tick_maps_within_50_us_five_seconds_later() -> None:
    # 100 ppm over 5 s is 500 µs: only a fitted drift keeps the error far below that.
    offset, drift = 12.345678, 100.0
    fit = ClockFit()
    data, last = exchanges(60, offset=offset, drift_ppm=drift, every=0.5)
    for t1, t4, k2, k3 in data:
        fit.add(sample(t1, t4, k2, k3))
    assert fit.fitted_drift
    assert fit.drift_ppm == pytest.approx(drift, abs=5)
    for later in (0.0, 2.0, 5.0):
        host = last + later
        assert abs(fit.to_host(board_tick(host, offset, drift)) - host) < 50e-6


def test_only_the_lowest_round_trip_samples_are_trusted() -> None:
    # A third of the exchanges carry up to 8 ms one-way queueing: averaging them in would
    # put the midpoint off by up to 4 ms.
    offset = -3.0
    fit = ClockFit()
    data, last = exchanges(10, offset=offset, drift_ppm=0, every=0.01, seed=7)
    for t1, t4, k2, k3 in data:
        fit.add(sample(t1, t4, k2, k3))
    # The newest exchange waited 5 ms on its way to the board.
    k2 = int(board_tick(last + 5e-3, offset, 0))
    fit.add(sample(last, last + 5.3e-3, k2, k2 + 40))
    assert not fit.fitted_drift  # 0.1 s is too short to see drift
    assert abs(fit.to_host(board_tick(last, offset, 0)) - last) < 30e-6


def test_before_any_sample_mapping_a_tick_raises_lookup_error() -> None:
    with pytest.raises(LookupError):
        ClockFit().to_host(0)


def test_reset_forgets_the_old_clock() -> None:
    fit = ClockFit()
    data, _ = exchanges(60, offset=1.0, drift_ppm=300, every=0.5)
    for t1, t4, k2, k3 in data:
        fit.add(sample(t1, t4, k2, k3))
    fit.reset()
    assert not fit.ready and not fit.fitted_drift and fit.drift_ppm == 0
