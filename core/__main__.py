"""``python -m pytest_probability``: tools that work on saved reports, outside pytest.

.. code-block:: console

   $ python -m pytest_probability --version
   $ python -m pytest_probability html report.json -o report.html
   $ python -m pytest_probability history history/ -o history.html --markdown history.md

Exit status: 0 on success (``history --fail-on-worse``: 1 when a gated case got worse for
real), 2 when a file cannot be read or written or the arguments are
wrong (one ``error:`` line on stderr, never a traceback).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .execution.user_values import describe
from .report.writing import Claims, UnwritablePath, resolve

PROG = "python -m pytest_probability"


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _html(arguments: argparse.Namespace) -> int:
    """Render a saved ``--prob-json`` report as the HTML page ``--prob-html`` writes."""
    from .extensions.html.render import ReportError, load_report, render_report, write_page

    source = Path(arguments.report)
    target = Path(arguments.output) if arguments.output else source.with_suffix(".html")
    if os.path.realpath(target) == os.path.realpath(source):  # (never raises on a link loop)
        return _fail(f"the output {str(target)!r} would replace the report; give -o PATH")
    try:
        document = load_report(source)
    except ReportError as exc:
        return _fail(str(exc))
    shown = arguments.output or str(target)  # (as given: Path() drops a trailing "/")
    try:  # (the same checks as a session's writers: the path, and no Python source file)
        Claims().claim("-o", resolve("-o", shown, "the page"), "the page")
    except UnwritablePath as exc:
        return _fail(f"cannot write {shown}: {exc.problem}")
    try:
        page = render_report(document)
    except Exception as exc:  # sections fail soft; this is a last resort, never a traceback
        return _fail(f"could not render {source}: {type(exc).__name__}: {exc}")
    try:
        write_page(target, page)
    except Exception as exc:  # one line naming the file, never a traceback
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else describe(exc)
        return _fail(f"could not write {target}: {reason}")
    print(f"wrote {target} ({len(page.encode('utf-8')) / 1024:,.0f} KiB)")
    return 0


def _history(arguments: argparse.Namespace) -> int:
    """Read a history of reports and write its page, Markdown and JSON summary (the logic is
    the ``history`` extension's; the output paths get the same checks as every writer's)."""
    from .extensions.history.command import run

    claims = Claims()

    def check(option: str, path: str, what: str) -> None:
        claims.claim(option, resolve(option, path, what), what)

    return run(arguments, check=check)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (``--version`` and one subcommand per tool); returns the exit
    status."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="pytest-probability tools for saved reports (the plugin itself runs "
        "inside pytest).",
    )
    parser.add_argument("--version", action="version", version=f"pytest-probability {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    html = commands.add_parser(
        "html",
        help="render a --prob-json report as one self-contained HTML page",
        description="Render a JSON report written by --prob-json (this session's or an "
        "earlier one) as the HTML page --prob-html writes.",
    )
    html.add_argument("report", metavar="REPORT.json", help="the JSON report to render")
    html.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="where to write the page (default: REPORT with the suffix .html)",
    )
    html.set_defaults(handler=_html)
    from .extensions.history.command import add_arguments as history_arguments

    history = commands.add_parser(
        "history",
        help="read a history of JSON reports: which cases moved for real, as a page, "
        "Markdown and JSON",
        description="Read the JSON reports of many sessions (a --prob-history directory, or "
        "any reports) and say, for each case of the latest session, whether its pass rate "
        "moved for real since the session before and since the window before it.",
    )
    history_arguments(history)
    history.set_defaults(handler=_history)
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_usage(sys.stderr)
        return _fail("choose a command (html, history), or --version")
    return int(arguments.handler(arguments))


if __name__ == "__main__":
    sys.exit(main())
