"""The settings of baseline regression, declared without importing its machinery (so
loading the plugin stays cheap). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry

PLUGIN_NAME = "probability.comparisons.baseline"


def add_options(options: OptionRegistry, parse_margin: Any) -> None:
    """Declare ``--prob-baseline``, ``--prob-margin`` and ``--prob-save-baseline``."""
    owner = "comparisons"
    options.add(
        "baseline_report",
        parse=str,
        cli="--prob-baseline",
        metavar="PATH",
        help="compare every function with an earlier --prob-json report (or a saved "
        "baseline), pairing cases by id",
        owner=owner,
    )
    options.add(
        "baseline_margin",
        parse=parse_margin,
        cli="--prob-margin",
        metavar="MARGIN",
        help="with --prob-baseline: fail a function whose pass rate may have dropped by more "
        "than MARGIN",
        owner=owner,
    )
    options.add(
        "save_baseline",
        parse=str,
        cli="--prob-save-baseline",
        metavar="PATH",
        help="write a compact TOML baseline of this session (to commit and compare with)",
        owner=owner,
    )
