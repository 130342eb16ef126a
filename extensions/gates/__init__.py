"""The ``gates`` extension: hold a case to a pass rate (``min_rate``) or a pass count
(``min_passes``) instead of to every run; PASS / FAIL / UNDECIDED verdicts, ``[gate]`` items,
the ``Gates:`` line and the ``probability: gates`` section. Other extensions add gate kinds
through ``pytest_prob_register_gates`` (a kind's judge returns the API's ``GateResult``).

PYTEST_DONT_REWRITE
"""
