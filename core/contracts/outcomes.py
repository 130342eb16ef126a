"""The outcome and verdict words, defined once.

A run's outcome is one of ``pass``, ``fail``, ``error`` (or ``skip``, which is not a sample);
a verdict (a gate, a comparison, a stopping rule) is ``pass``, ``fail`` or ``undecided``. The
words are the JSON report's values, so they never change. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

#: a run that returned cleanly; a verdict that passed
PASS = "pass"
#: a run that raised ``AssertionError`` (or called ``pytest.fail``); a verdict that failed
FAIL = "fail"
#: a run that raised any other exception
ERROR = "error"
#: a run skipped by ``pytest.skip`` or a stopping rule (not a sample)
SKIP = "skip"
#: a verdict the runs so far cannot settle
UNDECIDED = "undecided"

#: the judged outcomes a run can have (skips are not samples)
RUN_OUTCOMES = (PASS, FAIL, ERROR)
#: the verdicts a gate, a comparison or a stopping rule can give
VERDICTS = (PASS, FAIL, UNDECIDED)
