"""Hooks of the ``cost`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import CaseResult, TokenUsage

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_prob_normalize_usage(obj: Any) -> TokenUsage | Any | None:
    """Read a usage value handed to ``record_usage`` (or found in a step's ``usage``).

    Called in the executing process, inside the bench run, once for every usage value that
    is not given as keywords or as a :class:`~pytest_probability.TokenUsage`; the first
    non-``None`` result wins.

    :param obj: what the bench passed: an SDK's usage object, a dict, anything.
    :return: a :class:`~pytest_probability.TokenUsage`, or any dict or object with its field
        names (``model``, ``input_tokens``, ``output_tokens``, ``cached_input_tokens``,
        ``cost``), or ``None`` when the implementation does not know the shape.
        A ``ValueError`` raised here becomes the run's error, so name the field.

    The bundled implementation (``trylast``) reads our field names and the OpenAI and
    Anthropic shapes; implement this hook to add another SDK's shape.
    """


@hookspec(firstresult=True)
def pytest_prob_price_usage(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    config: pytest.Config,
) -> float | None:
    """Price usage that was recorded without a ``cost``.

    Called in the executing process, inside the bench run, once per usage entry whose
    ``cost`` is ``None`` (only when some plugin implements it); the first non-``None``
    result wins.

    The arguments are the entry's model name and token counts, and the pytest config (for
    your own settings).

    :return: the cost (a finite number ≥ 0, in the unit of every other recorded cost), or
        ``None`` to leave the entry unpriced. Anything else is a warning and the entry stays
        unpriced.

    No bundled implementation: the plugin never guesses prices.
    ``contrib/pytest-probability-price-table`` prices from a TOML table through it.
    """


@hookspec(firstresult=True)
def pytest_prob_case_cost(case: CaseResult, config: pytest.Config) -> float | None:
    """Give what a case's runs cost, for another extension that reports about spend.

    Called in the aggregating process (the only process, or the pytest-xdist controller)
    while the report is built: by the ``intervals`` extension for each case of a
    function-level or ``Overall`` line (its ``each +$`` figure), and by the ``stopping``
    extension for each case ``--prob-stop`` stopped early (the ``not spent`` estimate of its
    ``Stopped:`` line).

    :param case: the :class:`~pytest_probability.report.results.CaseResult`, with its run records.
    :return: the sum of the cost recorded by the case's runs (skipped runs included: they may
        have spent), in the unit of the recorded costs; ``None`` when none recorded a cost
        (not the same as ``0``), or to let the next implementation answer. The first
        non-``None`` answer wins. Without the ``cost`` extension no run records a cost.
    """


@hookspec
def pytest_prob_record_usage(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    cost: float | None,
    config: pytest.Config,
) -> None:
    """A model call made for the current bench run by another extension: record its token
    usage (and cost) on the run, as ``record_usage`` in the bench body would.

    Called in the executing process (an xdist worker, or the only process), inside the bench
    run, once per finished call that reported its usage: by the ``texts`` extension after
    each call of its judge (``texts_expect_*`` and ``texts_agg_*``).

    The arguments are the model the call was answered by, its token counts and its cost
    (``None`` when not known: a ``pytest_prob_price_usage`` plugin may then price it). An
    invalid value raises as ``record_usage`` does (the run is then an error naming it).
    Without the ``cost`` extension nothing implements it and the usage is not recorded.
    """
