"""Baselines for regression checks: reading one, and writing the compact TOML form.

:func:`read_baseline` reads an earlier ``--prob-json`` report or a baseline saved by
:func:`write_baseline_toml`, told apart by content, never by file name: a first non-blank
``{`` means a JSON report, anything else is read as TOML. Cases are keyed by node id (the
report's ``rows[].nodeid``); a report row without one (from another tool or an earlier
version) is keyed by its case id, and its ``label`` may be left out (the case id's part
before ``::``). Anything wrong with the file is one :class:`BaselineError` naming the file
and the first bad field in document order (row indices are 0-based). The TOML form lists
``format``, ``version``, ``[settings]``, then one ``[cases."<node id>"]`` table per case
sorted by node id, so it diffs well when committed. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pytest_probability.api as api
import tomli_w
from pytest_probability.api import SCHEMA_VERSION as REPORT_SCHEMA_VERSION
from pytest_probability.api import UnreadableInput, escape_surrogates, read_input

#: The ``format`` value that marks a TOML file as a baseline.
BASELINE_FORMAT = "pytest-probability baseline"
#: The TOML baseline layout this module writes and the newest it reads.
BASELINE_VERSION = 1

_COUNTS = ("passes", "fails", "errors", "total")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class BaselineError(ValueError):
    """``"{path}: {field}: {problem}"`` (``field`` the path of the first bad field, such as
    ``rows[3].passes``), or ``"{path}: {problem}"`` when the file as a whole is at fault."""

    def __init__(self, path: str, field: str | None, problem: str) -> None:
        self.path = path
        self.field = field
        self.problem = problem
        where = f"{path}: {field}" if field else path
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class BaselineCase:
    """One case of a baseline: ``key`` is its node id, or its case id when ``keyed_by`` is
    ``"case"`` (a report row without a node id; :attr:`module` is then unknown); ``cost`` is
    ``None`` when no known cost was recorded. Inconsistent values raise :class:`ValueError`."""

    key: str
    case: str
    label: str
    passes: int
    fails: int
    errors: int
    total: int
    cost: float | None = None
    keyed_by: Literal["nodeid", "case"] = "nodeid"

    def __post_init__(self) -> None:
        checks = [(f, _CHECKS[f](getattr(self, f))) for f in ("key", "case", "label", *_COUNTS)]
        checks.append(("total", _total_problem(self.passes, self.fails, self.errors, self.total)))
        checks.append(("cost", _cost(self.cost, nullable=True)))
        if self.keyed_by not in ("nodeid", "case"):
            checks.append(("keyed_by", f'expected "nodeid" or "case", got {_show(self.keyed_by)}'))
        elif self.keyed_by == "case" and self.key != self.case:
            checks.append(("key", f"expected the case id {_show(self.case)}"))
        for field, problem in checks:
            if problem:
                raise ValueError(f"baseline case {self.key!r}: {field}: {problem}")

    @property
    def module(self) -> str | None:
        """The bench file of a case keyed by node id (``bench_x.py``)."""
        return self.key.split("::", 1)[0] if self.keyed_by == "nodeid" else None


@dataclass(frozen=True)
class Baseline:
    """A baseline read from ``path`` (``format`` ``"json"``: a ``--prob-json`` report):
    ``cases`` by key in the file's order, and ``settings``, what the file recorded about how it
    was made (a report's ``schema_version``, ``created``, ``runs``, ``exit_status``, and from
    its ``aggregates`` ``confidence``, ``seed``, ``resamples``; a TOML baseline's
    ``[settings]``)."""

    path: str
    format: Literal["json", "toml"]
    cases: dict[str, BaselineCase]
    settings: dict[str, Any]

    def by_case_id(self) -> dict[str, BaselineCase]:
        """The cases by displayed case id (a read baseline never has two with the same id)."""
        return {case.case: case for case in self.cases.values()}


def _show(value: Any) -> str:
    """A value as a message shows it: JSON spelling for scalars, a word for containers."""
    if isinstance(value, (dict, list, tuple)):
        return "an object" if isinstance(value, dict) else "an array"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:56] + '..."'
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value) if value is None or isinstance(value, (bool, int)) else str(value)


def _whole(value: Any, minimum: int = 0) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
        return None
    return f"expected a whole number >= {minimum}, got {_show(value)}"


def _text(value: Any, empty: bool = True) -> str | None:
    if isinstance(value, str) and (empty or value):
        return None
    return f"expected a {'' if empty else 'non-empty '}string, got {_show(value)}"


_name = functools.partial(_text, empty=False)
_positive = functools.partial(_whole, minimum=1)


def _cost(value: Any, nullable: bool) -> str | None:
    if value is None and nullable:
        return None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and math.isfinite(value) and value >= 0:
        return None
    return f"expected a finite number >= 0{' or null' if nullable else ''}, got {_show(value)}"


def _total_problem(passes: int, fails: int, errors: int, total: int) -> str | None:
    expected = passes + fails + errors
    if total == expected:
        return None
    return f"expected passes + fails + errors = {expected}, got {total}"


_CHECKS = {"key": _name, "case": _name, "label": _text, **dict.fromkeys(_COUNTS, _whole)}


def read_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Raises :class:`BaselineError` naming the file and the first bad field."""
    name = os.fspath(path)
    text = _read_text(name)
    start = text.lstrip()
    if not start:
        raise BaselineError(name, None, "empty file")
    if start[0] == "{":
        return _from_report(name, _parse_json(name, text))
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        try:  # a JSON array, string or number: say what it is rather than how TOML failed
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise BaselineError(name, None, f"invalid TOML: {exc}") from None
        raise BaselineError(
            name, "top level", f"expected an object (a --prob-json report), got {_show(value)}"
        ) from None
    return _from_toml(name, document)


def _read_text(name: str) -> str:
    try:
        data = read_input(name)
    except UnreadableInput as exc:
        reason = str(exc)
        if reason == "is a directory":
            reason = "is a directory, not a baseline file"
        raise BaselineError(name, None, reason) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise BaselineError(name, None, problem) from None
    return text.removeprefix("\ufeff")


def _parse_json(name: str, text: str) -> Any:
    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard number {token}")

    try:
        return json.loads(text, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        raise BaselineError(name, None, problem) from None
    except ValueError as exc:
        raise BaselineError(name, None, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise BaselineError(name, None, "invalid JSON: nested too deeply") from None


def _check(name: str, field: str, problem: str | None) -> None:
    if problem:
        raise BaselineError(name, field, problem)


def _from_report(name: str, document: dict[str, Any]) -> Baseline:
    settings: dict[str, Any] = {}
    for field, check in (
        ("schema_version", _positive),
        ("created", _text),
        ("runs", _positive),
        ("exit_status", _whole),
    ):
        if field in document:
            _check(name, field, check(document[field]))
            settings[field] = document[field]
    if settings.get("schema_version", 1) > REPORT_SCHEMA_VERSION:
        problem = f"report schema {settings['schema_version']} is newer than this plugin reads"
        raise BaselineError(name, "schema_version", f"{problem} ({REPORT_SCHEMA_VERSION})")
    settings.update(_aggregate_settings(document.get("aggregates")))
    rows = _field(name, "", document, "rows", _kind(list, "an array of rows"), "--prob-json report")
    found = [(f"rows[{index}]", None, row) for index, row in enumerate(rows)]
    return Baseline(name, "json", _cases(name, found, nullable=True), settings)


def _aggregate_settings(aggregates: Any) -> dict[str, Any]:
    """Read leniently: ``aggregates`` belongs to the ``intervals`` extension."""
    lines = [x for x in aggregates if isinstance(x, dict)] if isinstance(aggregates, list) else []
    if not lines:
        return {}
    ci, found = lines[0].get("ci"), {}
    level = ci.get("level") if isinstance(ci, dict) else None
    if isinstance(level, float) and 0 < level < 1:
        found["confidence"] = level
    found.update((f, lines[0][f]) for f in ("seed", "resamples") if not _whole(lines[0].get(f)))
    return found


def _from_toml(name: str, document: dict[str, Any]) -> Baseline:
    found = _field(name, "", document, "format", lambda _: None, "pytest-probability baseline")
    if found != BASELINE_FORMAT:
        raise BaselineError(name, "format", f'expected "{BASELINE_FORMAT}", got {_show(found)}')
    version = _field(name, "", document, "version", _positive)
    if version > BASELINE_VERSION:
        problem = f"baseline version {version} is newer than this plugin reads"
        raise BaselineError(name, "version", f"{problem} ({BASELINE_VERSION})")
    settings = document.get("settings", {})
    _check(name, "settings", _kind(dict, "a table")(settings))
    table = _field(name, "", document, "cases", _kind(dict, "a table of cases"))
    found = [(f"cases.{_toml_key(key)}", key, raw) for key, raw in table.items()]
    return Baseline(name, "toml", _cases(name, found, nullable=False), dict(settings))


def _toml_key(key: str) -> str:
    """``key`` as a TOML table header spells it: bare when it can be, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _cases(
    name: str, found: list[tuple[str, str | None, Any]], *, nullable: bool
) -> dict[str, BaselineCase]:
    """Check and convert each ``(where, key, raw)`` entry in order: ``key`` is the TOML table
    name, or ``None`` for a report row (keyed by its ``nodeid``, else by its ``case`` id).
    ``nullable``: JSON's ``cost`` may be ``null``; TOML has no null."""
    cases: dict[str, BaselineCase] = {}
    first: dict[tuple[str, str], str] = {}  # ("key" | "id", value) -> where it was first seen
    kind = "an object" if nullable else "a table"
    for where, key, raw in found:
        if not isinstance(raw, dict):
            raise BaselineError(name, where, f"expected {kind}, got {_show(raw)}")
        row = key is None
        keyed_by = "case" if row and raw.get("nodeid") is None else "nodeid"
        if row and keyed_by == "nodeid":
            key = _field(name, where, raw, "nodeid", _name)
        if key is not None:
            _check(name, where, None if key else "empty case key")
        values: dict[str, Any] = {"case": _field(name, where, raw, "case", _name)}
        key = values["case"] if keyed_by == "case" else key  # (a case id is never empty)
        if row and "label" not in raw:  # a report from elsewhere: the case id's function part
            values["label"] = values["case"].split("::", 1)[0]
        else:
            values["label"] = _field(name, where, raw, "label", _text)
        for field in _COUNTS:
            if field not in _DERIVED or field in raw:
                values[field] = _field(name, where, raw, field, _CHECKS[field])
        _derive_other_runs(name, where, values)
        _check(name, f"{where}.total", _total_problem(*(values[f] for f in _COUNTS)))
        cost = raw.get("cost")
        _check(name, f"{where}.cost", _cost(cost, nullable) if "cost" in raw else None)
        values["cost"] = None if cost is None else float(cost)
        unique = [("nodeid", "key", key), ("case", "id", values["case"])]
        if keyed_by == "case":  # its key is its case id: say "duplicate case id" first
            unique = [("case", "id", key), ("case", "key", key)]
        for field, what, value in unique:
            if (what, value) in first:  # (a TOML file cannot repeat a key)
                problem = f"duplicate case {what} {_show(value)} (first in {first[what, value]})"
                raise BaselineError(name, f"{where}.{field}", problem)
            first[what, value] = where
        cases[key] = BaselineCase(key=key, keyed_by=keyed_by, **values)
    return cases


#: The counts a comparison does not read: a row may leave them out (a report of the spec's
#: format, or an older one, has only ``case``, ``passes`` and ``total``).
_DERIVED = ("fails", "errors")


def _derive_other_runs(name: str, where: str, values: dict[str, Any]) -> None:
    """Fill in a missing ``fails`` or ``errors`` from the other counts: the runs that did
    not pass are errors when only ``fails`` is given, else fails (``errors`` 0 when both are
    missing). A count that would come out negative is the file's error, named."""
    given = ["passes", *(field for field in _DERIVED if field in values)]
    missing = [field for field in _DERIVED if field not in values]
    if not missing:
        return
    known = sum(values[field] for field in given)
    if known > values["total"]:
        problem = f"expected total ≥ {' + '.join(given)} = {known}, got {values['total']}"
        raise BaselineError(name, f"{where}.total", problem)
    values[missing[0]] = values["total"] - known
    if len(missing) == 2:
        values["errors"] = 0


def _field(
    name: str, where: str, raw: dict[str, Any], field: str, check: Any, what: str = ""
) -> Any:
    """``raw[field]`` once ``check`` accepts it; ``what`` names the file kind it proves."""
    path = f"{where}.{field}" if where else field
    if field not in raw:
        raise BaselineError(name, path, f"missing, not a {what}" if what else "missing")
    _check(name, path, check(raw[field]))
    return raw[field]


def _kind(kind: type, expected: str) -> Any:
    return lambda value: (
        None if isinstance(value, kind) else f"expected {expected}, got {_show(value)}"
    )


def baseline_toml(cases: Iterable[BaselineCase], settings: Mapping[str, Any]) -> str:
    """The TOML text of a baseline: settings sorted (``None`` left out: TOML has no null),
    cases sorted by node id. Raises :class:`ValueError` for a repeated node id or case id,
    :class:`TypeError` for a setting TOML cannot hold."""
    table: dict[str, dict[str, Any]] = {}
    ids: set[str] = set()
    for case in sorted(cases, key=lambda case: case.key):
        if case.key in table or case.case in ids:
            raise ValueError(f"duplicate case key or id: {case.key!r}, {case.case!r}")
        ids.add(case.case)
        # (a lone surrogate, from a file name that is not UTF-8, is written as its escape)
        entry: dict[str, Any] = {
            "case": escape_surrogates(case.case),
            "label": escape_surrogates(case.label),
        }
        entry.update((field, getattr(case, field)) for field in _COUNTS)
        if case.cost is not None:
            entry["cost"] = float(case.cost)
        table[escape_surrogates(case.key)] = entry
    head = {"format": BASELINE_FORMAT, "version": BASELINE_VERSION}
    return tomli_w.dumps({**head, "settings": _tomlable(settings), "cases": table})


def _tomlable(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {
        str(key): _tomlable(value) if isinstance(value, Mapping) else value
        for key, value in sorted(settings.items(), key=lambda item: str(item[0]))
        if value is not None
    }


def write_baseline_toml(
    path: str | os.PathLike[str], cases: Iterable[BaselineCase], settings: Mapping[str, Any]
) -> None:
    """Write :func:`baseline_toml` atomically (:func:`pytest_probability.api.write_atomic`:
    an existing baseline is only ever replaced by a complete one). Raises :class:`OSError`
    naming ``path``."""
    name = os.fspath(path)
    text = baseline_toml(cases, settings)
    try:
        api.write_atomic(name, text)  # (read at each write: a test may replace the writer)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OSError(f"could not write the baseline to {name}: {reason}") from exc
