"""The table's pipeline, with no I/O of its own: sensor edges and requests in, messages out.

``fusion`` turns sensor edges into shot facts, ``table`` feeds them and the referee's requests
(``requests``) to the rules and words what they decide, ``scoreboard`` lays out the displays'
lines, ``trace`` is the recorded form of every input, and ``replay`` plays a trace back through
the same code."""
