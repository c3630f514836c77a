"""Errors of the referee core.

RulesError
 └─ InvalidInput (also ValueError) — an input the core cannot take as it is: a ball that is not
    on the table, an answer to no open question, a shot while a question is open. The state is
    unchanged; the message says what a person can do about it.

Fouls are never exceptions: they are decisions (``FoulCalled``).
"""


class RulesError(Exception):
    """Root of the referee core's errors."""


class InvalidInput(RulesError, ValueError):
    """An input the core refuses; nothing changed."""
