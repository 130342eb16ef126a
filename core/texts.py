"""LLM-judged assertions on meaning: ``from pytest_probability.texts import
texts_expect_f1_range`` (and the rest).

Each helper asks a judge model to write yes/no questions covering the facts of one text and
to answer them from the other: recall (alias *correctness*) checks how much of the expected
text the given text contains, precision (alias *completeness*) the reverse, F1 combines them.
``texts_expect_*`` make one evaluation; ``texts_agg_*`` make ``full_runs ×
each_question_runs`` and compare their min, max, median or mean. See :doc:`/texts`.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from .extensions.texts.api import HELPERS, TextsUsageError, TextsWarning
from .extensions.texts.errors import BackendError
from .extensions.texts.judge import JudgeReplyError
from .extensions.texts.settings import TextsConfigError

#: every helper, ``texts_expect_*`` and ``texts_agg_*``, under its own name
globals().update(HELPERS)

__all__ = [
    "BackendError",
    "JudgeReplyError",
    "TextsConfigError",
    "TextsUsageError",
    "TextsWarning",
    *sorted(HELPERS),
]
