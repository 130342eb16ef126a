"""The JSON report: assembling the document and serialising it. Pure module.

The document is RFC 8259 JSON: non-finite floats become ``null`` and every key is a string.
The kernel writes it with :func:`pytest_probability.writing.write_atomic` (a temporary file
in the target directory, flushed to disk, then renamed over the target, so a reader never
sees a half-written report), as every other writer does.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from .report import ReportBuilder
from .results import Results

SCHEMA_VERSION = 1
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
            "passes": totals.passes,
            "fails": totals.fails,
            "errors": totals.errors,
            "skipped": totals.skipped,
            "count": totals.count,
            "pass_rate": pass_rate(totals.passes, totals.count),
            **builder.totals_json,
        },
        "rows": [_row(case, builder) for case in results.cases()],
        "records": Records(results, builder.record_finishers),
    }
    if builder.warnings:
        document["warnings"] = list(builder.warnings)
    for key, value in builder.json.items():
        if key not in document:
            document[key] = value
    return document


class Records:
    """The report's ``records``, made one at a time while the report is written (a copy of
    100,000 records would double the memory the session needs at its end), each passed
    through the extensions' record finishers
    (:meth:`~pytest_probability.report.ReportBuilder.add_record_finisher`)."""

    def __init__(
        self,
        results: Results,
        finishers: Sequence[Callable[[dict[str, Any]], None]] = (),
    ) -> None:
        self.results = results
        self.finishers = tuple(finishers)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for case in self.results.cases():
            for record in case.ordered_records():
                yield self._finished(record, case.display)

    def _finished(self, record: dict[str, Any], display: str) -> dict[str, Any]:
        shown = _record(record, display)
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
    row = {
        "case": case.display,
        "label": case.label,
        "nodeid": case.key,
        "passes": case.passes,
        "fails": case.fails,
        "errors": case.errors,
        "skipped": case.skipped,
        "total": case.total,
        "planned": case.planned,
        "pass_rate": pass_rate(case.passes, case.total),
        "xfail": case.xfail,
    }
    row.update(builder.row_json.get(case.key, {}))
    return row


def _record(record: dict[str, Any], display: str) -> dict[str, Any]:
    """A record as reported: ``case`` is the row's displayed id, so records join rows."""
    shown = {k: v for k, v in record.items() if k not in _INTERNAL_RECORD_KEYS}
    shown["case"] = display
    return shown


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """True when ``value`` holds only str keys, scalars, dicts and lists (nothing to convert)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return False


def jsonable(value: Any) -> Any:
    """``value`` with anything JSON cannot hold turned into text (keys too), so it crosses
    process boundaries under xdist; non-finite floats are kept until the report is dumped.

    Containers that already hold only JSON values are returned as they are (no copy): this
    runs once per run, on records that are almost always plain already.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        if _plain(value):
            return value
        return {k if isinstance(k, str) else str(k): jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        items = [jsonable(v) for v in value]
        return (
            value
            if kind is list and all(a is b for a, b in zip(items, value, strict=True))
            else items
        )
    if isinstance(value, bool):  # subclasses of the scalars (enums, numpy scalars) → plain
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return str(value)


def _dump_value(value: Any) -> str:
    """One value as strict compact JSON (C encoder); sanitised only when it must be."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return json.dumps(
            _finite(value), ensure_ascii=False, allow_nan=False, separators=(", ", ": ")
        )


def iter_dumps(document: dict[str, Any]) -> Iterator[str]:
    """Serialise as strict JSON (``NaN``/``Infinity`` become ``null``), in pieces.

    Top-level keys go one per line and list items (rows, records, ...) one per line: the
    file stays readable and diffable, large reports are written at C speed, and no copy of
    the whole text is ever held in memory.
    """
    yield "{\n"
    for index, (key, value) in enumerate(document.items()):
        name = json.dumps(str(key), ensure_ascii=False)
        comma = ",\n" if index else ""
        if isinstance(value, (list, Records)) and len(value):
            yield f"{comma}  {name}: [\n    "
            for position, item in enumerate(value):
                yield (",\n    " if position else "") + _dump_value(item)
            yield "\n  ]"
        else:
            if isinstance(value, Records):
                value = []
            yield f"{comma}  {name}: {_dump_value(value)}"
    yield "\n}\n"


def dumps(document: dict[str, Any]) -> str:
    """:func:`iter_dumps` joined into one string."""
    return "".join(iter_dumps(document))
