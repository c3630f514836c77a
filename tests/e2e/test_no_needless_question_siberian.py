"""siberian-ten: no question is asked whose every answer rules the same (``tests.e2e.needless``)."""

from tests.e2e.needless import check_no_question_is_asked_whose_every_answer_rules_the_same


def test_no_siberian_question_is_asked_whose_every_answer_rules_the_same() -> None:
    check_no_question_is_asked_whose_every_answer_rules_the_same("siberian-ten", (2,))
