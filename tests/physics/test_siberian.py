"""Siberian Ten on the physics oracle (seed 000, docs/rules.md ST-*): the rulings over perfect
facts, the facts a shot's happenings give, and the centre line. No pooltool needed."""

from __future__ import annotations

import pytest

from controller.physics.engine import crossings


@pytest.mark.parametrize(("track", "times"), [
    ([(0.0, 0.5), (1.0, 1.5)], [0.5]),  # straight across y = 1.0 (interpolated)
    ([(0.0, 0.5), (1.0, 0.9), (2.0, 0.6)], []),  # up to the line and back: not crossed
    ([(0.0, 0.5), (1.0, 1.5), (2.0, 0.5)], [0.5, 1.5]),  # across and back again
    ([(0.0, 0.5), (1.0, 1.0), (2.0, 1.0)], []),  # stopped on the line
    ([(0.0, 0.5), (1.0, 1.0), (3.0, 1.5)], [1.0]),  # over the line, on the other side later
    ([(0.0, 1.2)], []),
])
def test_a_ball_crosses_the_centre_line_where_its_track_changes_side(
        track: list[tuple[float, float]], times: list[float]) -> None:
    assert crossings(track, 1.0) == pytest.approx(times)
