"""``record_cost`` and ``record_usage``: what a bench body calls to report spend, kept in a
:class:`Ledger` in the current run's context until the run is reported. Never imports
pytest: hooks are reached through the config the run context carries.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

from pytest_probability.api import (
    BIG_COUNT,
    CostWarning,
    RunContext,
    TokenUsage,
    call_first,
    check_cost,
    current_run,
    current_run_or_none,
    step_field,
    usage_entry,
)

from .usage import COUNTS, add_counts, read_usage, total_cost, usage_from_fields

LEDGER = "cost"
OWN_PLUGIN = "probability.cost"
_INF = math.inf
#: model names that passed :func:`~.usage.check_model` unchanged (a fast-path check)
_PLAIN_MODELS: set[str] = set()


class Ledger:
    """What one run recorded: ``amounts``, the sum of the ``record_cost`` amounts (``None``
    until one is recorded); ``entries``, the ``record_usage`` entries (priced where a plugin
    could) and ``usage``, the same merged per model (what the record carries); ``sealed``
    once the run's record was built (later calls are not counted); ``step_spends``, the
    steps' spend once checked after the body (``None`` where a step was invalid, or for all
    when the body raised first). Sums are plain float sums in call order. Slotted, with a
    plain ``__init__``: one is made per run that records anything."""

    __slots__ = ("amounts", "entries", "sealed", "step_spends", "usage")

    def __init__(self, amounts: float | None = None, *, sealed: bool = False) -> None:
        self.amounts = amounts
        self.entries: list[dict[str, Any]] = []
        self.usage: dict[str, dict[str, Any]] = {}
        self.sealed = sealed
        self.step_spends: list[tuple[float | None, list[dict[str, Any]]] | None] | None = None

    def add_usage(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)
        self.merge(entry)

    def merge(self, entry: dict[str, Any]) -> None:
        """Add ``entry`` to its model's totals (:func:`~.usage.add_counts`: a count kept as
        text is never summed as a string)."""
        cost = entry["cost"]
        totals = self.usage.get(entry["model"])
        if totals is None:
            self.usage[entry["model"]] = {name: entry[name] for name in (*COUNTS, "cost")}
            return
        for name in COUNTS:
            totals[name] = add_counts(totals[name], entry[name])
        if cost is not None:
            totals["cost"] = cost if totals["cost"] is None else totals["cost"] + cost

    def cost(self) -> float | None:
        """The run's cost: the ``record_cost`` amounts, then each model's usage cost
        (``None`` when nothing had a cost)."""
        total = self.amounts
        for totals in self.usage.values():
            cost = totals["cost"]
            if cost is not None:
                total = cost if total is None else total + cost
        return total


#: what ``RunContext.data[LEDGER]`` holds for a run reported without recording anything:
#: later calls see a sealed ledger, are warned about and are not counted
SEALED = Ledger(sealed=True)


def ledger_of(context: RunContext) -> Ledger:
    """The run's ledger (created on first use)."""
    return context.data.get(LEDGER) or context.data.setdefault(LEDGER, Ledger())


def _open_ledger(what: str, stacklevel: int = 3) -> tuple[RunContext, Ledger | None]:
    """The current run's context and ledger (``None`` once the run was reported: warned
    about at ``stacklevel``, counted from this function); ``RuntimeError`` outside a run."""
    __tracebackhide__ = True  # (a misuse shows the user's line, not ours)
    context = current_run_or_none() or current_run(what)
    ledger = ledger_of(context)
    if ledger.sealed:
        warnings.warn(
            CostWarning(
                f"{what} called after run {context.run} of {context.case_id} was reported "
                "(from a fixture's teardown?): it is not counted; record inside the bench body"
            ),
            stacklevel=stacklevel,
        )
        return context, None
    return context, ledger


def record_cost(amount: Any) -> None:
    """Add ``amount`` (a finite number ≥ 0, in your unit) to the current run's cost.

    Raises ``RuntimeError`` outside a bench run and ``ValueError`` for a negative, NaN,
    infinite or non-numeric amount (the run is then an error naming the value).
    """
    __tracebackhide__ = True
    context = current_run_or_none()
    if context is not None and type(amount) is float and 0.0 <= amount < _INF:
        # the common case, fast: a plain float inside a run (ints take the checked path; so
        # does a call after the run was reported, to be warned about)
        ledger = context.data.get(LEDGER)
        if ledger is None:
            context.data[LEDGER] = Ledger(amounts=amount)
            return
        if not ledger.sealed:
            ledger.amounts = amount if ledger.amounts is None else ledger.amounts + amount
            return
    _, ledger = _open_ledger("record_cost()")
    try:
        checked = check_cost(amount, "amount")
    except ValueError as exc:
        raise ValueError(f"record_cost(): {exc}") from None
    if ledger is not None:
        ledger.amounts = checked if ledger.amounts is None else ledger.amounts + checked


def record_usage(
    usage: Any = None,
    /,
    *,
    model: Any = None,
    input_tokens: Any = None,
    output_tokens: Any = None,
    cached_input_tokens: Any = None,
    cost: Any = None,
) -> None:
    """Record one model call's token usage (and cost) for the current run.

    Pass the fields as keywords, or a :class:`TokenUsage`, a dict or any object with those
    names (OpenAI- and Anthropic-style usage objects work as they are; a plugin can add other
    shapes through ``pytest_prob_normalize_usage``). Keywords given alongside ``usage``
    override its fields (``record_usage(response.usage, model=response.model)``). Usage
    without a cost is priced by a ``pytest_prob_price_usage`` plugin if one is installed.

    Raises ``RuntimeError`` outside a bench run, ``ValueError`` naming the field and value
    for negative, fractional or non-numeric token counts and invalid costs, and ``TypeError``
    for a value it cannot read.
    """
    __tracebackhide__ = True
    context = current_run_or_none()
    ledger = None if context is None else context.data.get(LEDGER)
    if ledger is None and context is not None:
        ledger = context.data[LEDGER] = Ledger()
    if (  # the common case, fast: keywords with plain values, a model name seen before
        ledger is not None
        and usage is None
        and type(cost) is float
        and 0.0 <= cost < _INF
        and type(input_tokens) is int
        and type(output_tokens) is int
        and type(cached_input_tokens) is int
        and 0 <= input_tokens < BIG_COUNT
        and 0 <= output_tokens < BIG_COUNT
        and 0 <= cached_input_tokens < BIG_COUNT
        and type(model) is str
        and model in _PLAIN_MODELS
        and not ledger.sealed
    ):
        # Ledger.add_usage inlined (a tenth of the call's time); the test comparing the two
        # paths on random call sequences keeps them equal
        entry = {
            "model": model,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cached_input_tokens": cached_input_tokens,
            "cost": cost,
        }
        ledger.entries.append(entry)
        totals = ledger.usage.get(model)
        if totals is None:
            totals = ledger.usage[model] = entry.copy()
            del totals["model"]
        elif (
            type(totals["input_tokens"])
            is type(totals["output_tokens"])
            is type(totals["cached_input_tokens"])
            is int
        ):
            totals["input_tokens"] += input_tokens
            totals["output_tokens"] += output_tokens
            totals["cached_input_tokens"] += cached_input_tokens
            known = totals["cost"]
            totals["cost"] = cost if known is None else known + cost
        else:  # a total kept as text (a count too long for decimal text): summed as text
            ledger.merge(entry)
        return
    _record_usage(usage, (model, input_tokens, output_tokens, cached_input_tokens, cost))


def _record_usage(usage: Any, given: tuple[Any, ...]) -> None:
    """:func:`record_usage` for everything but its fast path (``given``: its keywords):
    checks each field, reads usage objects, prices, warns after the run was reported,
    raises outside a run."""
    __tracebackhide__ = True
    context, ledger = _open_ledger("record_usage()", stacklevel=4)
    try:
        if usage is None:
            entry = usage_entry(*given)
        else:
            entry = normalize(usage, context.config).to_json()
            overrides = zip(("model", *COUNTS, "cost"), given, strict=True)
            if any(value is not None for value in given):
                entry.update({name: value for name, value in overrides if value is not None})
                entry = usage_entry(**entry)
    except ValueError as exc:
        raise ValueError(f"record_usage(): {exc}") from None
    if entry["cost"] is None:
        entry = price(entry, context.config, stacklevel=4)
    if ledger is not None:
        ledger.add_usage(entry)
        if type(entry["model"]) is str:  # checked: later calls with it take the fast path
            _PLAIN_MODELS.add(entry["model"])


def normalize(value: Any, config: Any) -> TokenUsage:
    """``value`` as a :class:`TokenUsage`, through ``pytest_prob_normalize_usage`` (the
    bundled reader called directly when no other plugin implements it)."""
    if isinstance(value, TokenUsage):
        return value
    hook = getattr(getattr(config, "hook", None), "pytest_prob_normalize_usage", None)
    impls = hook.get_hookimpls() if hook is not None else []
    if any(impl.plugin_name != OWN_PLUGIN for impl in impls):
        # (through the extension boundary: one that fails is named and the next one reads
        # it; a ValueError is the hook's documented signal, the run's error)
        found = call_first(
            config,
            "pytest_prob_normalize_usage",
            check=_not_usage,
            passing=(ValueError,),
            obj=dict(value) if isinstance(value, dict) else value,  # (the user's, unchanged)
        )
    else:
        found = read_usage(value)
    if found is None:
        noun = type(value).__name__
        article = "an" if noun[:1].lower() in "aeiou" else "a"
        raise TypeError(
            f"cannot read usage from {article} {noun}: pass keywords (model=, "
            "input_tokens=, output_tokens=, cached_input_tokens=, cost=), a TokenUsage, or a "
            "dict or object with those names (OpenAI- and Anthropic-style usage objects work "
            "too; a plugin can add other shapes through pytest_prob_normalize_usage)"
        )
    return usage_from_fields(found)


def price(entry: dict[str, Any], config: Any, stacklevel: int = 2) -> dict[str, Any]:
    """``entry`` (a usage entry without cost) priced by ``pytest_prob_price_usage`` when a
    plugin knows its price. A pricing plugin that raises or answers something other than a
    finite amount ≥ 0 is named in a warning (the extension boundary's, once per extension
    and process; ``stacklevel`` is no longer used) and the next one prices the entry, or it
    stays unpriced. So does an entry with a count
    kept as text (:func:`~pytest_probability.api.check_tokens`): no number is left to price,
    and a plugin summing such counts with ``+`` would join the texts."""
    hook = getattr(getattr(config, "hook", None), "pytest_prob_price_usage", None)
    if hook is None or not hook.get_hookimpls() or any(type(entry[n]) is str for n in COUNTS):
        return entry
    found = call_first(  # (a pricing plugin's bug must not turn paid runs into errors)
        config,
        "pytest_prob_price_usage",
        check=_not_a_price,
        **{name: entry[name] for name in ("model", *COUNTS)},
        config=config,
    )
    if found is None:
        return entry
    amount = check_cost(found, "price")
    return {**entry, "cost": amount}


def _not_usage(answer: Any) -> str | None:
    if isinstance(answer, (TokenUsage, Mapping)) or any(
        hasattr(answer, name) for name in ("model", *COUNTS, "cost")
    ):
        return None
    return f"answered {answer!r:.200}, not a usage (a TokenUsage, a dict or an object)"


def _not_a_price(answer: Any) -> str | None:
    try:
        check_cost(answer, "price")
    except (ValueError, TypeError) as exc:
        return str(exc)
    return None


def step_spend(step: Any, config: Any) -> tuple[float | None, list[dict[str, Any]]]:
    """A step's own cost and usage entries (its ``cost`` field, its ``usage``: one value or
    a list). The step's cost is its ``cost`` field when given, else the sum of its priced
    usage. Raises ``ValueError`` naming the step and the field for invalid values."""
    label = step_field(step, "label")
    raw_cost = step_field(step, "cost")
    raw_usage = step_field(step, "usage")
    try:
        cost = None if raw_cost is None else check_cost(raw_cost, "cost")
        values = [] if raw_usage is None else raw_usage
        if not isinstance(values, (list, tuple)):
            values = [values]
        entries = [normalize(value, config).to_json() for value in values]
    except (ValueError, TypeError) as exc:
        raise ValueError(f"step {label!r}: {exc}") from None
    entries = [entry if entry["cost"] is not None else price(entry, config) for entry in entries]
    if cost is None:
        cost = total_cost(entry["cost"] for entry in entries)
    return cost, entries
