"""Sensor streams from real physics: an independent billiards engine (pooltool) as the
oracle for fusion and the rules (issue 19). Ten-ball (seed 001) and Siberian Ten (seed 000,
a 9 ft pool table, ten object balls, the shoot-out) so far; Point pyramid (a 12 ft Russian
table, 68 mm balls) is still to come.

- ``engine``: pooltool, the tables as the seeds play them, one shot into ``Happening``
  records (the one module that imports pooltool; ``./dev physics-install`` adds it);
- ``player``: a simulated player (makeable shots, realistic misses);
- ``sensors``: the sensor events the happenings cause (``hardware.physics`` timing);
- ``truth``: the facts of a shot and the rulings over perfect facts, apart from ``rules/``
  (Ten-ball); ``truth_siberian``: Siberian Ten's;
- ``rack``: one rack played: its trace, truth and expected rulings (Ten-ball's);
  ``siberian``: Siberian Ten's rack, player and referee;
- ``check``: a corpus rack replayed through the pipeline, disagreements listed (no pooltool);
- ``python -m controller.physics``: writes a corpus.
"""
