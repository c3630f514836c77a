"""Sensor streams from real physics: an independent billiards engine (pooltool) as the
oracle for fusion and the rules (issue 19). Ten-ball so far; Siberian Ten (an American
pool table, seed 000) and Point pyramid (a 12 ft Russian table, 68 mm balls) are still to
come: their tables, players and rulings over perfect facts are not written yet.

- ``engine``: pooltool, the tables as the seeds play them, one shot into ``Happening``
  records (the one module that imports pooltool; ``./dev physics-install`` adds it);
- ``player``: a simulated player (makeable shots, realistic misses);
- ``sensors``: the sensor events the happenings cause (``hardware.physics`` timing);
- ``truth``: the facts of a shot and the rulings over perfect facts, apart from ``rules/``;
- ``rack``: one rack played: its trace, truth and expected rulings;
- ``check``: a corpus rack replayed through the pipeline, disagreements listed (no pooltool);
- ``python -m controller.physics``: writes a corpus.
"""
