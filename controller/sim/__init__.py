"""Tables that are not there: the simulator and its sensor timing (``pulses``), the simulated
backend, the embedded broker, the demo, and the physics oracle (``physics``, pooltool)."""
