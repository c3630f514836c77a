"""The board firmware (``main.py``), MicroPython for the RP2040, importable under CPython."""
