"""Sensor streams from real physics: an independent billiards engine (pooltool) as the
oracle for fusion and the rules (issue 19): Ten-ball (a 9 ft pool table, seed 001),
Siberian Ten (an American pool table, seed 000) and Point pyramid (a 12 ft Russian table,
68 mm balls, seed 004).

- ``engine``: pooltool, the tables as the seeds play them, one shot into ``Happening``
  records (the one module that imports pooltool; ``./dev physics-install`` adds it);
- ``player``: a simulated player (makeable shots, realistic misses);
- ``sensors``: the sensor events the happenings cause (``controller.sim.pulses`` timing);
- ``truth``: the facts of a shot and Ten-ball's rulings over perfect facts, apart from ``rules/``;
- ``truth_siberian``, ``truth_pyramid``: Siberian Ten's and Point pyramid's rulings over
  perfect facts;
- ``rack``: one rack played: its trace, truth and expected rulings (what the games share,
  and Ten-ball's rack);
- ``siberian``, ``pyramid``: those games' tables, racks, players and referees;
- ``check``: a corpus rack replayed through the pipeline, disagreements listed (no pooltool);
- ``python -m controller.sim.physics``: writes a corpus.
"""
