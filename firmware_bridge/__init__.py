"""The serial sensor-board protocol (a sans-I/O codec), the host link, and the firmware."""
