"""ten-ball: no question is asked whose every answer rules the same (``tests.e2e.needless``).

The default suite plays ``QUICK`` matches; ``--soak`` all ``MATCHES``."""

import pytest

from tests.e2e.needless import (
    MATCHES,
    QUICK,
    check_no_question_is_asked_whose_every_answer_rules_the_same,
)

pytestmark = pytest.mark.untraced  # a long random run, as the property runs (tests/conftest.py)


def test_no_tenball_question_is_asked_whose_every_answer_rules_the_same() -> None:
    check_no_question_is_asked_whose_every_answer_rules_the_same("ten-ball", (2,), QUICK)


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_soak_no_tenball_question_is_asked_whose_every_answer_rules_the_same() -> None:
    check_no_question_is_asked_whose_every_answer_rules_the_same("ten-ball", (2,), MATCHES)
