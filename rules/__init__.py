"""The referee core: shot records in, decisions and events out.

Pure and deterministic: no I/O, no clock, no logging, and nothing else of ours is imported.
"""
