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

texts_expect_f1_range = HELPERS["texts_expect_f1_range"]
texts_expect_f1_equal = HELPERS["texts_expect_f1_equal"]
texts_expect_precision_range = HELPERS["texts_expect_precision_range"]
texts_expect_precision_equal = HELPERS["texts_expect_precision_equal"]
texts_expect_recall_range = HELPERS["texts_expect_recall_range"]
texts_expect_recall_equal = HELPERS["texts_expect_recall_equal"]
texts_expect_completeness_range = HELPERS["texts_expect_completeness_range"]
texts_expect_completeness_equal = HELPERS["texts_expect_completeness_equal"]
texts_expect_correctness_range = HELPERS["texts_expect_correctness_range"]
texts_expect_correctness_equal = HELPERS["texts_expect_correctness_equal"]
texts_agg_f1_min = HELPERS["texts_agg_f1_min"]
texts_agg_f1_max = HELPERS["texts_agg_f1_max"]
texts_agg_f1_median = HELPERS["texts_agg_f1_median"]
texts_agg_f1_mean = HELPERS["texts_agg_f1_mean"]
texts_agg_f1_average = HELPERS["texts_agg_f1_average"]
texts_agg_precision_min = HELPERS["texts_agg_precision_min"]
texts_agg_precision_max = HELPERS["texts_agg_precision_max"]
texts_agg_precision_median = HELPERS["texts_agg_precision_median"]
texts_agg_precision_mean = HELPERS["texts_agg_precision_mean"]
texts_agg_precision_average = HELPERS["texts_agg_precision_average"]
texts_agg_recall_min = HELPERS["texts_agg_recall_min"]
texts_agg_recall_max = HELPERS["texts_agg_recall_max"]
texts_agg_recall_median = HELPERS["texts_agg_recall_median"]
texts_agg_recall_mean = HELPERS["texts_agg_recall_mean"]
texts_agg_recall_average = HELPERS["texts_agg_recall_average"]
texts_agg_completeness_min = HELPERS["texts_agg_completeness_min"]
texts_agg_completeness_max = HELPERS["texts_agg_completeness_max"]
texts_agg_completeness_median = HELPERS["texts_agg_completeness_median"]
texts_agg_completeness_mean = HELPERS["texts_agg_completeness_mean"]
texts_agg_completeness_average = HELPERS["texts_agg_completeness_average"]
texts_agg_correctness_min = HELPERS["texts_agg_correctness_min"]
texts_agg_correctness_max = HELPERS["texts_agg_correctness_max"]
texts_agg_correctness_median = HELPERS["texts_agg_correctness_median"]
texts_agg_correctness_mean = HELPERS["texts_agg_correctness_mean"]
texts_agg_correctness_average = HELPERS["texts_agg_correctness_average"]

__all__ = [
    "BackendError",
    "JudgeReplyError",
    "TextsConfigError",
    "TextsUsageError",
    "TextsWarning",
    *sorted(HELPERS),
]
