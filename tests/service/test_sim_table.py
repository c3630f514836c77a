"""A table the simulator plays asks what the simulated referee answers, so it plays on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broker import Broker
from tests.service.conftest import make_config, running
from tests.waiting import until


@pytest.mark.parametrize(("game", "seed"), [("siberian-ten", 1), ("pyramid", 1), ("ten-ball", 1)])
async def test_a_simulated_table_plays_on_past_the_first_shots(tmp_path: Path, broker: Broker,
                                                             game: str, seed: int) -> None:
    # siberian-ten 1 and pyramid 1 stopped at their first question: the table did not know
    # the simulator's cue-ball detector, asked "was it the cue ball?", and the simulated
    # referee's answers named questions it never asked
    config = make_config(tmp_path, broker, sim={"trace": None, "game": game, "seed": seed,
                                                "speed": 60.0, "shots": 30})
    async with running(config) as service:
        await until(lambda: service.table.referee.state.shot >= 6, 30,
                    f"{game} seed {seed} playing past shot 5")
