"""``python -m pytest_probability history PATH…``: read a history of reports, say which
moves are real, and write the page, the Markdown and the JSON summary. Never imports pytest.

The command line (:mod:`pytest_probability.__main__`) adds the options with
:func:`add_arguments` and runs :func:`run`, handing it the check that an output path may be
written (the checks every writer of the plugin makes), so that this module needs nothing
past the public API.

What it prints: the headline lines and one line saying what was read on stdout (on stderr
when ``--markdown -`` or ``--json -`` puts a document on stdout, so that stdout holds only
that document), each skipped file once on stderr (``skipped PATH: reason``), and a ``wrote
PATH (N KiB)`` line per file written.

Exit status: 0; 1 with ``--fail-on-worse`` when a case gated in the latest session got
worse for real (each named); 2 for an error, with one ``python -m pytest_probability:
error: …`` line on stderr and never a traceback: no readable session, a bad ``--alpha``,
``--window`` or ``--level``, an output that cannot be written or that would replace one of
the reports read.

The same report given twice (a directory and a file in it, two links to one file, or a
copy: the same ``created`` time, commit and counts) is read once, with one ``skipped``
line for each other copy: a copy of the latest session would otherwise be compared with
itself and hide every move.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .moves import Assessment, CaseMove
    from .sessions import History, Session

PROG = "python -m pytest_probability"
STDOUT = "-"
#: How many cases the ``--fail-on-worse`` line names (the rest are counted).
NAMED = 10
#: The check that an output may be written: ``check(option, path, what)`` returns when it
#: may, and raises ``ValueError`` whose text is the whole message when it may not.
OutputCheck = Callable[[str, str, str], None]


class CommandError(Exception):
    """An error the command reports with one ``error:`` line and exit status 2."""


@dataclass(frozen=True)
class Output:
    """One file to write: the option naming it, the path as given, and what it holds."""

    option: str
    path: str
    what: str

    @property
    def to_stdout(self) -> bool:
        return self.path == STDOUT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``history`` command's arguments to its subparser."""
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help="a directory of JSON reports (its *.json files; --prob-history writes one) "
        "or a report file; give several in any mix",
    )
    parser.add_argument(
        "-o", "--output", metavar="HTML", help="write the history page (one offline HTML file)"
    )
    parser.add_argument(
        "--markdown",
        metavar="PATH",
        help="write the Markdown summary, for a pull-request comment or GITHUB_STEP_SUMMARY "
        "('-': stdout)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the JSON summary ('-': stdout)")
    parser.add_argument(
        "--alpha",
        default="0.05",
        metavar="A",
        help="the false discovery rate over all cases' tests (default 0.05)",
    )
    parser.add_argument(
        "--window",
        default="5",
        metavar="N",
        help="how many sessions before the latest are pooled for the window test (default 5)",
    )
    parser.add_argument(
        "--level",
        default="0.95",
        metavar="L",
        help="the level of the pass-rate intervals shown (default 0.95)",
    )
    parser.add_argument(
        "--fail-on-worse",
        action="store_true",
        help="exit with status 1 when a case gated in the latest session got worse for real",
    )
    parser.add_argument("--title", help="the page's and the Markdown's title")


def run(
    arguments: argparse.Namespace,
    *,
    check: OutputCheck,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command with its parsed ``arguments``; returns the exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        return _run(arguments, check, out, err)
    except CommandError as exc:
        say(err, f"{PROG}: error: {exc}")
        return 2


def _run(arguments: argparse.Namespace, check: OutputCheck, out: TextIO, err: TextIO) -> int:
    alpha = probability("--alpha", arguments.alpha, "0.05")
    level = probability("--level", arguments.level, "0.95")
    window = sessions_count("--window", arguments.window)
    outputs = _outputs(arguments)
    inputs = input_files(arguments.paths)
    for output in outputs:
        _check_output(output, inputs, arguments.paths, check)
    notes = err if any(output.to_stdout for output in outputs) else out

    from .moves import assess

    try:  # (reading never raises; a bug is one line, never a traceback)
        history = read(arguments.paths)
    except Exception as exc:
        raise CommandError(f"could not read the history: {type(exc).__name__}: {exc}") from None
    for line in dict.fromkeys(skip.line for skip in history.skipped):
        say(err, line)
    if not history.sessions:
        paths = arguments.paths
        given = ", ".join(paths) if len(paths) <= 3 else f"{len(paths):,} paths"
        raise CommandError(f"no readable session in {given} (every file was skipped)")
    try:
        assessment = assess(history, alpha=alpha, window=window)
    except Exception as exc:
        raise CommandError(f"could not assess the history: {type(exc).__name__}: {exc}") from None
    from .summary import read_line

    for line in assessment.headline():
        say(notes, line)
    say(notes, read_line(history, assessment))
    title = arguments.title
    texts = [(output, _render(output, history, assessment, level, title)) for output in outputs]
    for output, text in texts:
        _write(output, text, out, notes)
    failing = assessment.gated_worse
    if arguments.fail_on_worse and failing:
        named = ", ".join(_change_text(move) for move in failing[:NAMED])
        if len(failing) > NAMED:
            named += f", and {len(failing) - NAMED} more"
        cases = "case" if len(failing) == 1 else "cases"
        say(notes, f"--fail-on-worse: {len(failing)} gated {cases} got worse for real: {named}")
        return 1
    return 0


# -- the arguments ------------------------------------------------------------------------
def probability(option: str, value: str, example: str) -> float:
    """``value`` as a number strictly between 0 and 1; raises :class:`CommandError` naming
    ``option``, the value and what is valid."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and 0.0 < number < 1.0):
        raise CommandError(
            f"{option}={value}: must be a number strictly between 0 and 1 (such as {example})"
        )
    return number


def sessions_count(option: str, value: str) -> int:
    """``value`` as a whole number of sessions, at least 1; raises :class:`CommandError`."""
    try:
        number = int(value.strip())
    except ValueError:
        number = 0
    if number < 1:
        raise CommandError(f"{option}={value}: must be a whole number of sessions, 1 or more")
    return number


def _outputs(arguments: argparse.Namespace) -> list[Output]:
    outputs = [
        Output(option, path, what)
        for option, path, what in (
            ("-o", arguments.output, "the page"),
            ("--markdown", arguments.markdown, "the Markdown summary"),
            ("--json", arguments.json, "the JSON summary"),
        )
        if path is not None
    ]
    if arguments.output == STDOUT:
        raise CommandError("-o=-: the page is written to a file; give a path")
    if len([output for output in outputs if output.to_stdout]) > 1:
        raise CommandError("--markdown=- and --json=-: only one of them may go to stdout")
    return outputs


def input_files(paths: Sequence[str]) -> list[str]:
    """The files the command may read: each path that is not a directory, and each
    directory's ``*.json`` entries (as :func:`.sessions.read_history` finds them)."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            try:
                names = os.listdir(path)
            except OSError:
                continue
            files += [os.path.join(path, n) for n in names if n.endswith(".json") and n[0] != "."]
        else:
            files.append(path)
    return files


def _check_output(
    output: Output, inputs: list[str], paths: Sequence[str], check: OutputCheck
) -> None:
    if output.to_stdout:
        return
    shown = f"{output.option}={output.path}"
    if not output.path:
        raise CommandError(f"{shown}: cannot write {output.what}: give a path")
    for source in inputs:
        if _same_file(output.path, source):
            raise CommandError(
                f"{shown}: cannot write {output.what}: it would replace the report "
                f"{source!r} that the command reads; give another path"
            )
    if output.path.endswith(".json"):
        folder = os.path.dirname(os.path.abspath(output.path))
        for path in paths:
            if os.path.isdir(path) and _same_file(folder, path):
                raise CommandError(
                    f"{shown}: cannot write {output.what} into {path!r}, a directory of "
                    "reports the command reads (the next reading would take it for a "
                    "report); give a path outside it"
                )
    try:
        check(output.option, output.path, output.what)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _same_file(first: str, second: str) -> bool:
    try:
        if os.path.realpath(first) == os.path.realpath(second):
            return True
        return os.path.exists(first) and os.path.exists(second) and os.path.samefile(first, second)
    except (OSError, ValueError):
        return False


# -- reading ------------------------------------------------------------------------------
def read(paths: Sequence[str]) -> History:
    """The history in ``paths`` (:func:`.sessions.read_history`), each report read once: a
    path given twice, a file reached twice (through a directory and by name, or through two
    links) and a copy of a session (the same ``created``, commit and counts) are skipped
    with one line each, the first in the history's order kept."""
    from .sessions import History, Skipped, read_history

    given: dict[str, str] = {}
    skipped: list[Skipped] = []
    for path in paths:
        key = _real(path)
        if key in given:
            skipped.append(Skipped(path, f"given twice (as {given[key]!r}): read once"))
        else:
            given[key] = path
    history = read_history(list(given.values()))
    kept: list[Session] = []
    files: dict[tuple[int, int] | str, str] = {}
    contents: dict[tuple[object, ...], str] = {}
    for session in history.sessions:
        identity = _identity(session.source)
        content = (session.created, session.commit, tuple(session.cases.values()))
        if identity in files:
            first = files[identity]
            same = "given twice" if first == session.source else f"the same file as {first!r}"
            skipped.append(Skipped(session.source, f"{same}: read once"))
        elif content in contents:
            reason = (
                f"the same session as {contents[content]!r} (the same time, commit and "
                "counts): read once"
            )
            skipped.append(Skipped(session.source, reason))
        else:
            files[identity] = contents[content] = session.source
            kept.append(session)
    return History(sessions=kept, skipped=history.skipped + skipped)


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _identity(path: str) -> tuple[int, int] | str:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return _real(path)
    return (info.st_dev, info.st_ino)


# -- writing ------------------------------------------------------------------------------
def _render(
    output: Output, history: History, assessment: Assessment, level: float, title: str | None
) -> str:
    try:
        if output.option == "--json":
            from .summary import dumps, summary

            return dumps(summary(history, assessment, level=level))
        if output.option == "--markdown":
            from .markdown import TITLE, render_markdown

            return render_markdown(history, assessment, title=title or TITLE)
        from .page import render_page

        if title:
            return render_page(history, assessment, level=level, title=title)
        return render_page(history, assessment, level=level)
    except Exception as exc:  # a last resort: one line, never a traceback
        raise CommandError(f"could not make {output.what}: {type(exc).__name__}: {exc}") from None


def _write(output: Output, text: str, out: TextIO, notes: TextIO) -> None:
    from pytest_probability.api import write_atomic, write_failure

    if output.to_stdout:
        say(out, text, end="")
        return
    try:
        write_atomic(output.path, text)
    except Exception as exc:  # one line naming the file, never a traceback
        raise CommandError(write_failure(output.what, output.path, exc)) from None
    say(
        notes,
        f"wrote {output.path} ({len(text.encode('utf-8', 'backslashreplace')) / 1024:,.0f} KiB)",
    )


def say(stream: TextIO, text: str, end: str = "\n") -> None:
    """Write ``text`` to ``stream`` whatever it holds: lone surrogates (from a file name that
    is not UTF-8) and what the stream's encoding cannot hold are written as escapes."""
    from pytest_probability.api import escape_surrogates

    line = escape_surrogates(text) + end
    try:
        stream.write(line)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(line.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()


def _change_text(move: CaseMove) -> str:
    """``classify::input-010 (95% → 50%)``, as the headline names a move."""
    comparison = move.real
    if comparison is None:
        return move.case
    base = f"{comparison.base_rate:.0%}"
    if comparison.against == "window":
        base += f" over {comparison.sessions} sessions"
    return f"{move.case} ({base} → {comparison.latest_rate:.0%})"
