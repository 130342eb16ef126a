"""The JSON report: assembling the document and serialising it. Pure module.

The document is RFC 8259 JSON: non-finite floats become ``null`` and every key is a string.
Nothing a run produced can stop it being written: a lone surrogate in any text (a file name
that is not valid UTF-8) is written as its escape, the text ``\\udcff``; an integer too
long for decimal text (``10**5000``) is written as text in scientific notation, with a
warning; a structure nested deeper than :data:`MAX_DEPTH` (a cycle) is cut there, its rest
given as a short ``repr``. The kernel writes it with :func:`.writing.write_atomic`.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..execution.user_values import escape_surrogates, int_text, is_huge_int, safe_str, short_repr
from ..formatting.terminal_text import ProbabilityWarning

if TYPE_CHECKING:
    from .written import WrittenFile
from .builder import ReportBuilder
from .results import Results

SCHEMA_VERSION = 1
#: How deep :func:`jsonable` and the encoder's fallback follow nested containers.
MAX_DEPTH = 64
#: A lone surrogate (which UTF-8 cannot hold) is written as the JSON for the text ``\\udcff``
#: (an escaped backslash, then the code point): in JSON text surrogates only ever appear
#: inside strings, after a complete escape or character.
_JSON_ESCAPE = "\\\\u"
#: Record keys that are internal bookkeeping and stay out of the report.
_INTERNAL_RECORD_KEYS = frozenset({"key", "order", "runs", "module", "function", "mark"})


def pass_rate(passes: int, total: int) -> float | None:
    """Pass rate in percent (``70.0``), ``None`` without judged runs."""
    return None if total == 0 else 100.0 * passes / total


def build_document(
    *,
    results: Results,
    builder: ReportBuilder,
    runs: int,
    exit_status: int,
    created: datetime | None = None,
) -> dict[str, Any]:
    """The report document: kernel fields first, then each extension's keys."""
    totals = results.totals()
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "created": (created or datetime.now()).isoformat(timespec="seconds"),
        "runs": runs,
        "exit_status": int(exit_status),
        "totals": {
            **vars(totals),  # passes, fails, errors, skipped
            "count": totals.count,
            "pass_rate": pass_rate(totals.passes, totals.count),
            **builder.totals_json,
        },
        "rows": [_row(case, builder) for case in results.cases()],
        "records": Records(results, tuple(builder.record_finishers)),
    }
    if builder.warnings:
        document["warnings"] = list(builder.warnings)
    document.update({key: v for key, v in builder.json.items() if key not in document})
    return document


@dataclass
class Records:
    """The report's ``records``, made one at a time while the report is written (a copy of
    100,000 records would double the memory the session needs at its end), each passed
    through the extensions' record finishers
    (:meth:`~pytest_probability.report.builder.ReportBuilder.add_record_finisher`)."""

    results: Results
    finishers: tuple[Callable[[dict[str, Any]], None], ...] = ()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for case in self.results.cases():
            for record in case.ordered_records():
                yield self._finished(record, case.display)

    def _finished(self, record: dict[str, Any], display: str) -> dict[str, Any]:
        # ``case`` is the row's displayed id, so that records join rows
        shown = {k: v for k, v in record.items() if k not in _INTERNAL_RECORD_KEYS}
        shown["case"] = display
        for finish in self.finishers:
            try:
                finish(shown)
            except Exception as exc:  # an extension's bug must not lose the report
                self.finishers = tuple(f for f in self.finishers if f is not finish)
                module = getattr(finish, "__module__", "?")
                name = f"{module}.{getattr(finish, '__qualname__', finish)}"
                warnings.warn(
                    f"the record finisher {name} failed ({type(exc).__name__}: {exc}): the "
                    "report's records are written without it",
                    RuntimeWarning,
                    stacklevel=2,
                )
                return self._finished(record, display)
        return shown

    def __len__(self) -> int:
        return sum(len(case.records) for case in self.results.cases())


def _row(case: Any, builder: ReportBuilder) -> dict[str, Any]:
    counts = ("passes", "fails", "errors", "skipped", "total", "planned")
    return {
        "case": case.display,
        "label": case.label,
        "nodeid": case.key,
        **{name: getattr(case, name) for name in counts},
        "pass_rate": pass_rate(case.passes, case.total),
        "xfail": case.xfail,
        **builder.row_json.get(case.key, {}),
    }


def _key(key: Any) -> str:
    return key if isinstance(key, str) else safe_str(key)


_SCALARS = frozenset({str, int, float, bool, type(None)})
#: Integers from here on are checked for being too long for decimal text.
_BIG = 1 << 2000


def _plain(value: Any, depth: int, seen: set[int]) -> bool:
    """True when ``value`` holds only str keys, scalars, dicts and lists (nothing to
    convert), no deeper than :data:`MAX_DEPTH`, each container once (a container met again,
    shared or in a cycle, is left to :class:`_Walk`)."""
    kind = type(value)
    if kind in _SCALARS:
        return kind is not int or -_BIG < value < _BIG or not is_huge_int(value)
    if depth >= MAX_DEPTH or (kind is not dict and kind is not list):
        return False
    if id(value) in seen:
        return False
    seen.add(id(value))
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1, seen) for k, v in value.items())
    return all(_plain(v, depth + 1, seen) for v in value)


@dataclass
class _Walk:
    """One conversion of a value into JSON values, bounded whatever the value holds (as the
    module's docstring says); a container shared by two paths is converted once, an object
    whose ``str()`` raises becomes a short description. With ``finite``, non-finite floats
    become ``None``; ``huge`` notes the bit length of each integer written as text."""

    finite: bool = False
    huge: list[int] | None = None
    active: set[int] = field(default_factory=set)
    done: dict[int, Any] = field(default_factory=dict)

    def convert(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind in _SCALARS:
            return self._scalar(value)
        if isinstance(value, (dict, list, tuple)):
            ident = id(value)
            if ident in self.done:
                return self.done[ident]
            if ident in self.active or depth >= MAX_DEPTH:
                return short_repr(value)
            self.active.add(ident)
            try:
                if isinstance(value, dict):
                    result: Any = {_key(k): self.convert(v, depth + 1) for k, v in value.items()}
                else:
                    result = [self.convert(v, depth + 1) for v in value]
            finally:
                self.active.discard(ident)
            self.done[ident] = result
            return result
        for kind in (bool, int, float, str):  # subclasses of the scalars (enums, numpy scalars)
            if isinstance(value, kind):
                return self._scalar(kind(value))
        return safe_str(value)

    def _scalar(self, value: Any) -> Any:
        if type(value) is float:
            return value if math.isfinite(value) or not self.finite else None
        if type(value) is int and is_huge_int(value):  # (it could not even be sent)
            if self.huge is not None:
                self.huge.append(value.bit_length())
            return int_text(value)
        return value


def jsonable(value: Any) -> Any:
    """``value`` with anything JSON cannot hold turned into text (keys too, cycles cut: see
    :class:`_Walk`), so it crosses process boundaries under xdist; non-finite floats are kept
    until the report is dumped. A value that is plain already (almost every record) is
    returned as it is, without a copy."""
    if _plain(value, 0, set()):
        return value
    return _Walk().convert(value, 0)


def _dump_value(value: Any, huge: list[int] | None = None) -> str:
    """One value as strict compact JSON (C encoder); sanitised (:class:`_Walk`) only when
    it must be, with lone surrogates escaped."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError, RecursionError):
        value = _Walk(finite=True, huge=huge).convert(value, 0)
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    return escape_surrogates(text, _JSON_ESCAPE)


def iter_dumps(document: dict[str, Any], where: str | None = None) -> Iterator[str]:
    """Serialise as strict JSON (``NaN``/``Infinity`` become ``null``), in pieces: each
    top-level key and each list item (rows, records) on a line of its own, so the file is
    diffable, written at C speed and never held whole in memory. Integers too long for
    decimal text are written as text, with one :class:`ReportWarning` naming ``where``."""
    huge: list[int] = []
    yield "{\n"
    for index, (key, value) in enumerate(document.items()):
        name = escape_surrogates(json.dumps(_key(key), ensure_ascii=False), _JSON_ESCAPE)
        comma = ",\n" if index else ""
        if isinstance(value, (list, Records)) and len(value):
            yield f"{comma}  {name}: [\n    "
            for position, item in enumerate(value):
                yield (",\n    " if position else "") + _dump_value(item, huge)
            yield "\n  ]"
        else:
            if isinstance(value, Records):
                value = []
            yield f"{comma}  {name}: {_dump_value(value, huge)}"
    yield "\n}\n"
    if huge:
        digits = int(max(huge) * math.log10(2)) + 1
        place = f"{where}: " if where else ""
        warnings.warn(
            ReportWarning(
                f"{place}{len(huge)} integer(s) too long to write as a number (up to about "
                f"{digits:,} digits) written as text in scientific notation"
            ),
            stacklevel=2,
        )


class ReportWarning(ProbabilityWarning):
    """Something in the report could not be written as it was (and was written as text)."""


def dumps(document: dict[str, Any]) -> str:
    """:func:`iter_dumps` joined into one string."""
    return "".join(iter_dumps(document))


def write_report(
    shown: os.PathLike[str] | str, path: os.PathLike[str] | str, document: Callable[[], Any]
) -> WrittenFile | str:
    """Write the ``--prob-json`` report made by ``document()`` to ``path`` (``shown``: as
    the user gave it) with the one writer; returns the file written, or the one line saying
    why it could not be (any exception, from making the document or writing it)."""
    from .writing import failure, write_atomic
    from .written import written

    try:
        write_atomic(path, iter_dumps(document(), where=str(shown)))
    except Exception as exc:  # any failure is one error line naming the file
        return failure("the JSON report", str(shown), exc)
    return written("JSON report", str(shown), path)
