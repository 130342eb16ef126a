"""Reading a TOML price table and pricing token usage from it. Pure module: never imports pytest.

The file holds prices per ``per`` tokens (default one million), currency-neutral::

    per = 1000000            # optional

    [models."m-small"]
    input = 0.50
    output = 1.50
    cached_input = 0.25      # optional; default: the input price

    [models."gpt-4o*"]       # a glob pattern (fnmatch, case-sensitive)
    input = 2.50
    output = 10.00

Prices are read as written (``0.15`` is exactly 15/100, not the nearest binary float) and a
cost is computed exactly, then rounded once to the nearest float.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from fnmatch import fnmatchcase
from fractions import Fraction
from pathlib import Path
from typing import Any

from pytest_probability.api import UnreadableInput, read_input

DEFAULT_PER = 1_000_000
#: The largest table read (a table is a few lines per model): a device or a stray dump named
#: by mistake is refused rather than read into memory.
TABLE_LIMIT = 16 * 1024 * 1024
TOP_LEVEL_KEYS = ("per", "models")
PRICE_KEYS = ("input", "output", "cached_input")
REQUIRED_PRICE_KEYS = ("input", "output")
#: A model name holding one of these is also a glob pattern.
GLOB_CHARACTERS = frozenset("*?[")
EXAMPLE = '[models."NAME"] with input and output prices'


class PriceTableError(ValueError):
    """The price table cannot be used; the message names the file, the model and what is
    valid."""


@dataclass(frozen=True)
class ModelPrice:
    """The prices of one ``[models."NAME"]`` table, per ``per`` tokens of the table.

    :ivar name: the table's name as written: a model name or a glob pattern.
    :ivar input: the price of input tokens.
    :ivar output: the price of output tokens.
    :ivar cached_input: the price of cached input tokens (the input price when not given).
    """

    name: str
    input: Fraction
    output: Fraction
    cached_input: Fraction

    @property
    def is_pattern(self) -> bool:
        """Whether the name is a glob pattern (holds ``*``, ``?`` or ``[``)."""
        return not GLOB_CHARACTERS.isdisjoint(self.name)


@dataclass(frozen=True)
class PriceTable:
    """A loaded price table.

    :ivar path: the file it was read from (absolute when the plugin loaded it).
    :ivar per: the number of tokens the prices refer to.
    :ivar models: every entry by its name as written, in file order.
    """

    path: Path
    per: Fraction
    models: Mapping[str, ModelPrice]

    def lookup(self, model: str) -> ModelPrice | None:
        """The entry pricing ``model``: an exact name first, else the first glob pattern (in
        file order) that matches it; ``None`` when nothing does."""
        exact = self.models.get(model)
        if exact is not None:
            return exact
        for entry in self.models.values():
            if entry.is_pattern and fnmatchcase(model, entry.name):
                return entry
        return None

    def cost(
        self, entry: ModelPrice, input_tokens: int, output_tokens: int, cached_input_tokens: int
    ) -> float:
        """``(input_tokens × input + output_tokens × output + cached_input_tokens ×
        cached_input) / per``, computed exactly and rounded once to a float."""
        total = (
            input_tokens * entry.input
            + output_tokens * entry.output
            + cached_input_tokens * entry.cached_input
        )
        return float(total / self.per)

    def price(
        self, model: str, input_tokens: int, output_tokens: int, cached_input_tokens: int
    ) -> float | None:
        """The cost of the usage, or ``None`` when the table has no price for ``model``."""
        entry = self.lookup(model)
        if entry is None:
            return None
        return self.cost(entry, input_tokens, output_tokens, cached_input_tokens)


def load_table(path: Path) -> PriceTable:
    """Read and check the price table at ``path``.

    Raises :class:`PriceTableError` (one line naming the file, and the model when one is at
    fault) for a file that cannot be read, invalid TOML, or a table that breaks the format.
    """
    try:
        text = read_input(path, limit=TABLE_LIMIT).decode("utf-8")
    except UnreadableInput as exc:
        raise PriceTableError(f"price table {path}: {exc}") from None
    except UnicodeDecodeError:
        raise PriceTableError(f"price table {path}: not valid TOML: not UTF-8 text") from None
    try:
        document = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PriceTableError(f"price table {path}: not valid TOML: {exc}") from None
    return table_from_document(document, path)


def table_from_document(document: Mapping[str, Any], path: Path) -> PriceTable:
    """A :class:`PriceTable` from parsed TOML (floats parsed as :class:`~decimal.Decimal`)."""
    where = f"price table {path}"
    for key in document:
        if key not in TOP_LEVEL_KEYS:
            raise PriceTableError(
                f"{where}: unknown top-level key {key!r}{_did_you_mean(key, TOP_LEVEL_KEYS)};"
                f" valid: {', '.join(TOP_LEVEL_KEYS)}"
            )
    per = _amount(document.get("per", DEFAULT_PER))
    if per is None or per <= 0:
        raise PriceTableError(
            f"{where}: per must be a positive number of tokens, got {_shown(document['per'])}"
        )
    models = document.get("models")
    if not isinstance(models, Mapping):
        got = "nothing" if models is None else _shown(models)
        raise PriceTableError(f"{where}: models must be tables such as {EXAMPLE}, got {got}")
    if not models:
        raise PriceTableError(f"{where}: no models; add a table such as {EXAMPLE}")
    entries = {name: _model_price(name, prices, where) for name, prices in models.items()}
    return PriceTable(path=path, per=per, models=entries)


def _model_price(name: str, prices: Any, where: str) -> ModelPrice:
    if not name or name != name.strip():
        raise PriceTableError(
            f"{where}: model {name!r}: a model name must be non-empty text without leading or"
            " trailing spaces (recorded model names never have them)"
        )
    if not isinstance(prices, Mapping):
        raise PriceTableError(
            f"{where}: model {name!r} must be a table with input and output prices, got "
            f"{_shown(prices)}"
        )
    for key in prices:
        if key not in PRICE_KEYS:
            raise PriceTableError(
                f"{where}: model {name!r}: unknown key {key!r}{_did_you_mean(key, PRICE_KEYS)};"
                f" valid: {', '.join(PRICE_KEYS)}"
            )
    for key in REQUIRED_PRICE_KEYS:
        if key not in prices:
            raise PriceTableError(
                f"{where}: model {name!r} has no {key!r} price (required: "
                f"{', '.join(REQUIRED_PRICE_KEYS)}; optional: cached_input)"
            )
    checked: dict[str, Fraction] = {}
    for key in PRICE_KEYS:
        if key not in prices:
            continue
        amount = _amount(prices[key])
        if amount is None or amount < 0:
            raise PriceTableError(
                f"{where}: model {name!r}: {key} must be a finite number >= 0, got "
                f"{_shown(prices[key])}"
            )
        checked[key] = amount
    return ModelPrice(
        name=name,
        input=checked["input"],
        output=checked["output"],
        cached_input=checked.get("cached_input", checked["input"]),
    )


def _amount(value: Any) -> Fraction | None:
    """A TOML integer or float as an exact fraction; ``None`` for anything else, NaN or
    infinity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal) and value.is_finite():
        return Fraction(value)
    return None


def _shown(value: Any) -> str:
    """A TOML value as the message shows it: numbers as written, other types named."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, Decimal):
        if value.is_nan():
            return "nan"
        if value.is_infinite():
            return "-inf" if value < 0 else "inf"
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, (datetime, date, time)):
        return f"{value.isoformat()} (a date or time)"
    return repr(value)


def _did_you_mean(key: str, valid: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, valid, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
