"""The ``html`` extension's pytest hooks: ``--prob-html=PATH``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    call_hook,
    claim_output,
    dump_report,
    is_active,
    note_written,
    option_value,
    options_of,
    parse_text,
    recorded_runs,
    report_document,
    report_of,
    visible,
    write_failure,
)

from . import hookspecs
from .markup import HtmlPanel
from .render import failed_panel, render_report
from .render import write_page as write_file

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_probability.api import OptionRegistry

HOOK = "pytest_prob_html_panels"
#: Per-config state: the path as given and as resolved, and a write error to print.
STATE_KEY = pytest.StashKey[dict[str, Any]]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add ``pytest_prob_html_panels`` unless the loader already did (it adds every bundled
    extension's hooks; this covers ``-p pytest_probability.extensions.html.plugin``).
    Called once when this module registers, in every process."""
    caller = getattr(pluginmanager.hook, HOOK, None)
    if caller is None or getattr(caller, "spec", None) is None:
        pluginmanager.add_hookspecs(hookspecs)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-html`` / ``prob_html``. Called by the kernel's historic hook."""
    options.add(
        "html",
        parse=parse_text,
        cli="--prob-html",
        ini="prob_html",
        metavar="PATH",
        help="write the report as one self-contained HTML page to PATH",
        owner="html",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check that the ``--prob-html`` path can take the page, before anything runs.

    Called once per process after the kernel resolved the settings; raises
    :class:`pytest.UsageError` (exit 4) for a path that cannot take the page in the
    aggregating process (a missing directory is created when the page is written).
    """
    active = is_active(config) and not hasattr(config, "workerinput")
    path = option_value(config, "html") if active else None
    if path is None:
        return
    target = claim_output(config, "--prob-html", path)
    config.stash[STATE_KEY] = {"shown": target.shown, "path": target.path, "error": None}


def collect_panels(report: dict[str, Any], config: pytest.Config) -> list[HtmlPanel]:
    """Every implementation's panels, in hook order, each called through the extension
    boundary; one that fails (raises, also ``SystemExit``, or answers something other than
    panels) becomes a marked panel naming the extension and the error, in its place."""
    panels: list[HtmlPanel] = []

    def taken(answer: Any) -> str | None:  # (checked and kept in hook order, failures too)
        found = [answer] if isinstance(answer, HtmlPanel) else answer
        if not isinstance(found, (list, tuple)):
            return f"expected HtmlPanel objects, got {type(answer).__name__}"
        bad = [item for item in found if not isinstance(item, HtmlPanel)]
        if bad:
            return f"expected HtmlPanel objects, got {type(bad[0]).__name__}"
        panels.extend(found)
        return None

    def failed(name: str, exc: BaseException) -> None:
        panels.append(failed_panel(f"extension {name!r}", exc))

    call_hook(config, HOOK, check=taken, failed=failed, report=report, config=config)
    return panels


def _latency_asked(options: OptionRegistry) -> bool:
    """Whether the session asked for every case's latency (``--prob-latency``, ``prob_latency``).
    The report document records it too (``"latency": {"every_case": true}``); the page is
    told directly as well, so that a session without the ``latency`` extension's JSON field
    (``-p no:probability.latency`` leaves the option out as well) is drawn the same way."""
    return "latency" in options.specs and bool(options.session_value("latency"))


def write_page(config: pytest.Config, exit_status: int) -> str | None:
    """Build the report document as ``--prob-json`` does, render and write the page.

    Returns an error line when writing failed, else ``None``.
    """
    state = config.stash.get(STATE_KEY, None)
    report = report_of(config) if state is not None and is_active(config) else None
    if report is None:
        return None  # no --prob-html, or nothing was collected: no report
    if not recorded_runs(config) and "plan" not in report.json:
        return None  # nothing ran (--collect-only): no page, as the JSON docs promise
    try:
        document = report_document(config, exit_status)
        # the same strict JSON the report file holds, so a page rendered from it matches
        document = json.loads(dump_report(document))
        page = render_report(
            document, collect_panels(document, config), latency=_latency_asked(options_of(config))
        )
    except Exception as exc:  # a bug here must not hide the session's results
        return f"could not build the HTML report: {type(exc).__name__}: {exc}"
    try:
        write_file(state["path"], page)
    except Exception as exc:  # any failure is one error line naming the file
        return write_failure("the HTML report", state["shown"], exc)
    note_written(config, "HTML report", state["shown"], state["path"])
    return None


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
    """Write the HTML page once the kernel built the report (aggregating process only).

    Wraps ``pytest_sessionfinish`` so that it runs after the kernel's implementation, and
    before the terminal summary is printed. A failed write becomes one ``ERROR`` line in
    the terminal summary and turns a passing session's exit status into 1.
    """
    result = yield
    config = session.config
    if not hasattr(config, "workerinput") and STATE_KEY in config.stash:
        error = write_page(config, int(session.exitstatus))
        config.stash[STATE_KEY]["error"] = error
        if error and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    return result


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the error line of a failed HTML write after the report. Called once in the
    aggregating process at the end of the terminal summary."""
    state = terminalreporter.config.stash.get(STATE_KEY, None)
    if state and state["error"]:
        terminalreporter.write_line(f"ERROR: {visible(state['error'])}", red=True, bold=True)
