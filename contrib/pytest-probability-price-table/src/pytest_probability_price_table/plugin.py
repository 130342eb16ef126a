"""The ``price-table`` extension's pytest hooks.

Registered by pytest-probability as ``probability.price-table`` from the
``pytest_probability.extensions`` entry point; ``-p no:probability.price-table`` disables it.
The table is loaded once per process, when pytest-probability validates its settings at
``pytest_configure``; the loaded :class:`~.table.PriceTable` *is* the setting's value
(``pytest_probability.api.option_value(config, "price_table")``).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import UNKNOWN_MODEL, option_value, options_of

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry

    from .table import PriceTable

SETTING = "price_table"
#: Models already warned about in this process (one warning per model and session).
WARNED_KEY = pytest.StashKey[set[str]]()
#: Frames of these modules are skipped when pointing a warning at the code that recorded usage.
INTERNAL_MODULES = ("pytest_probability", "pluggy")


class PriceTableWarning(pytest.PytestWarning):
    """Recorded usage of a model the price table has no price for (it stays unpriced)."""


def parse_price_table(value: Any, config: pytest.Config) -> PriceTable:
    """Load the price table ``value`` names (the setting's parser).

    A relative path given on the command line is relative to the directory pytest was
    invoked from; one from the ini key is relative to the configuration file's directory
    (the rootdir when there is none). Raises ``ValueError`` naming the file, the model and
    what is valid; pytest-probability turns it into a usage error naming the option.
    """
    if not isinstance(value, (str, Path)) or not str(value).strip():
        raise ValueError(f"expected the path of a TOML price table, got {value!r}")
    path = Path(str(value).strip()).expanduser()
    if not path.is_absolute():
        path = _base_directory(config) / path
    # (the TOML reader loads only when a table is given: every other pytest start skips it)
    from .table import load_table

    return load_table(path)


def _base_directory(config: pytest.Config) -> Path:
    """Where a relative path of the setting's current value is resolved from."""
    dest = options_of(config).specs[SETTING].dest
    if config.getoption(dest, None) is not None:  # the command line wins over the ini key
        return Path(config.invocation_params.dir)
    if config.inipath is not None:
        return Path(config.inipath).parent
    return Path(config.rootpath)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-price-table=PATH`` and ini ``prob_price_table`` (default: none).

    Called historically while pytest registers options, in every process (the only one, the
    xdist controller and each worker). Returns nothing.
    """
    options.add(
        SETTING,
        parse=parse_price_table,
        with_config=True,
        default=None,
        cli="--prob-price-table",
        ini="prob_price_table",
        metavar="PATH",
        help="price usage recorded without a cost from a TOML table",
        owner="price-table",
    )


def pytest_prob_price_usage(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    config: pytest.Config,
) -> float | None:
    """Price one usage entry from the table.

    Called by the cost extension in the executing process (the only process, or an xdist
    worker), inside the bench run, once for every usage entry recorded without a ``cost``;
    entries that carry a cost never reach this hook.

    Returns ``(input_tokens × input + output_tokens × output + cached_input_tokens ×
    cached_input) / per`` from the entry for ``model`` (an exact name, else the first
    matching pattern), or ``None`` — the entry stays unpriced — when no table is configured
    or the table has no price for the model; the latter warns once per model and session
    with :class:`PriceTableWarning`.
    """
    table: PriceTable | None = option_value(config, SETTING)
    if table is None:
        return None
    entry = table.lookup(model)
    if entry is None:
        _warn_unpriced(config, table, model)
        return None
    return table.cost(entry, input_tokens, output_tokens, cached_input_tokens)


def _warn_unpriced(config: pytest.Config, table: PriceTable, model: str) -> None:
    warned = config.stash.setdefault(WARNED_KEY, set())
    if model in warned:
        return
    warned.add(model)
    what = (
        "usage recorded without a model name (model 'unknown')"
        if model == UNKNOWN_MODEL
        else f"model {model!r}"
    )
    warnings.warn(
        PriceTableWarning(
            f"{what} is not in the price table {table.path}: its usage stays unpriced (add a"
            f' [models."{model}"] table or a pattern that matches it)'
        ),
        stacklevel=_caller_stacklevel(),
    )


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning issued by our caller at the code that recorded
    the usage: the first frame outside pytest-probability (this package included) and pluggy.

    Falls back to our caller itself when that frame belongs to pytest (usage that a step
    carried is priced from pytest's hooks, not from the bench body).
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and _module(frame).startswith(INTERNAL_MODULES):
        frame = frame.f_back
        level += 1
    if frame is None or _module(frame).startswith("_pytest"):
        return 1
    return level


def _module(frame: FrameType) -> str:
    name = frame.f_globals.get("__name__")
    return name if isinstance(name, str) else ""
