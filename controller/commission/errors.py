"""Commissioning's errors: one root, each also a builtin.

    CommissionError                       root
    └── BoardNotConnected(RuntimeError)   a sensor board the configuration names did not come up
"""

from __future__ import annotations


class CommissionError(Exception):
    """Root of commissioning's errors."""


class BoardNotConnected(CommissionError, RuntimeError):
    """A sensor board the configuration names did not come up (absent, busy, not permitted)."""
