"""The ``example`` extension's entry point: its settings, and the plugins of its features.

Registered by pytest-probability as ``probability.example`` from the
``pytest_probability.extensions`` entry point; ``-p no:probability.example`` disables it.
Each feature acts only in a session that asks for it, and only then is its plugin registered:

* ``--example-names`` (ini ``example_names``) registers :mod:`.names`, which adds the interval
  method ``jeffreys`` and the metric ``majority``; they are then chosen like the bundled ones
  (``--prob-method=jeffreys``, ``--prob-metric=majority``);
* ``--example-max-errors=N`` (ini ``example_max_errors``) registers :mod:`.gate`, which gates
  every case on its errored runs;
* ``--example-summary`` (ini ``example_summary``) adds the ``probability: example`` section
  and the JSON key ``example`` (from this module's ``pytest_prob_build_report``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pytest_probability.api import option_value, parse_bool, parse_nonnegative_int

from .settings import MAX_ERRORS, NAMES, SUMMARY

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry, ReportBuilder, Results

#: after the bundled sections
SECTION_ORDER = 5_100


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the switch ``--example-names`` and its ini key ``example_names``.

    A plain pytest option rather than a ``pytest_prob_addoption`` setting, because it is
    read before pytest-probability has validated its settings (see :func:`pytest_configure`).
    Called once per process: pytest replays its historic hook when pytest-probability
    registers this module. Returns nothing.
    """
    group = parser.getgroup("probability", "pytest-probability")
    group.addoption(
        "--example-names",
        action="store_true",
        dest=NAMES,
        help="add the interval method jeffreys and the metric majority",
    )
    parser.addini(NAMES, help="default for --example-names: true or false")


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--example-summary`` / ini ``example_summary`` (default off) and
    ``--example-max-errors=N`` / ini ``example_max_errors`` (default: no gate).

    Called historically while pytest registers options, in every process (the only one, the
    xdist controller and each worker); pytest-probability validates the values at
    ``pytest_configure`` and reports a bad one as a usage error naming it. Returns nothing.
    """
    options.add(
        SUMMARY,
        parse=parse_bool,
        default=False,
        cli="--example-summary",
        ini=SUMMARY,
        flag_value=True,
        help="add the probability: example section and a JSON key",
        ini_help="add the probability: example section (default false)",
        owner="example",
    )
    options.add(
        MAX_ERRORS,
        parse=parse_nonnegative_int,
        default=None,
        cli="--example-max-errors",
        ini=MAX_ERRORS,
        metavar="N",
        help="gate every case on its errored runs: FAIL above N",
        owner="example",
    )


def names_on(config: pytest.Config) -> bool:
    """Whether the session asked for ``jeffreys`` and ``majority``: ``--example-names``,
    else ini ``example_names`` (a value that is not a boolean is a usage error)."""
    if config.getoption(NAMES):
        return True
    raw = config.getini(NAMES)
    if not raw:
        return False
    try:
        return parse_bool(raw)
    except ValueError as exc:
        raise pytest.UsageError(f"ini option {NAMES}={raw}: {exc}") from None


# (registered after the kernel: of two tryfirst implementations the later one runs first)
@pytest.hookimpl(tryfirst=True)  # before the kernel's own, which validates the settings
def pytest_configure(config: pytest.Config) -> None:
    """Register :mod:`.names` when the session asked for the names.

    It must be registered before pytest-probability validates its settings: parsing
    ``--prob-method=jeffreys`` or ``--prob-metric=majority`` fills those registries, so our
    names must be there first. Called once per process (the only one, the xdist controller
    and each worker). Returns nothing.
    """
    if names_on(config):
        from . import names

        config.pluginmanager.register(names, "probability.example.names")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Register :mod:`.gate` when the session sets ``--example-max-errors``.

    Called once per process (the only one, the xdist controller and each worker), after
    ``pytest_configure`` (the limit is validated by then) and before anything is collected,
    so before the gates extension first needs its gate kinds (had it needed them already, it
    replays its historic hook for a plugin registered later). Returns nothing.
    """
    if option_value(session.config, MAX_ERRORS) is not None:
        from . import gate

        session.config.pluginmanager.register(gate, "probability.example.gate")


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Add the ``probability: example`` section, the JSON key ``example`` and each row's
    ``example`` field, when ``--example-summary`` (or its ini key) is on.

    Called once per session in the aggregating process (the only process, or the xdist
    controller, which has every run's record), before the terminal summary is printed and
    the JSON report is written. Returns nothing.
    """
    if not option_value(config, SUMMARY):
        return
    from .majority import is_majority
    from .summary import render, summarize

    rows = results.rows()
    summary = summarize((case.passes, case.total, case.errors) for case in rows)
    report.add_section("example", render(summary), order=SECTION_ORDER)
    report.set_json("example", summary.to_json())
    for case in rows:
        majority = is_majority(case.passes, case.total)
        report.add_row_json(case.key, {"example": {"majority": majority}})
