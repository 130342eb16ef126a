"""The JSON summary of a history (``history --json``): what was read, and each case's move,
as strict JSON for dashboards and scripts. Pure: never imports pytest.

The document is versioned (``"schema": "pytest-probability-history"``, ``"version"``): a
field's meaning never changes within a version, and a new field may be added to it. Rates
are fractions (0 to 1, not percents), changes the latest fraction less the earlier one
(``-0.55``: 55 points worse). No ``NaN`` or infinity is ever written (``allow_nan=False``):
what is unknown is ``null``. ``docs`` ("The JSON summary") lists every field.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from typing import Any

from pytest_probability.api import clopper_pearson_interval, escape_surrogates

from .moves import METHOD, Assessment, CaseMove, Comparison
from .sessions import History, Session

SCHEMA = "pytest-probability-history"
VERSION = 1
#: Lone surrogates (a case id read from ``"\\udcff"``) are written as the text of their
#: escape, as the session's JSON report writes them (two backslashes in the JSON text).
_JSON_ESCAPE = "\\\\u"


def summary(history: History, assessment: Assessment, *, level: float) -> dict[str, Any]:
    """The JSON summary's document (field by field in the docs); ``level`` is the two-sided
    level of the latest rates' Clopper–Pearson intervals."""
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "alpha": assessment.alpha,
        "window": assessment.window,
        "level": level,
        "method": METHOD,
        "tests": assessment.tests,
        "sessions": [_session(session) for session in history.sessions],
        "skipped": [{"file": skip.source, "reason": skip.reason} for skip in history.skipped],
        "headline": assessment.headline(),
        "moves": [_move(move, level) for move in assessment.moves],
        "gone": list(assessment.gone),
    }


def dumps(document: dict[str, Any]) -> str:
    """``document`` as strict JSON text: one top-level field a line, each session and move
    on a line of its own (diffable), ``NaN`` refused, lone surrogates escaped as text."""
    parts = []
    for key, value in document.items():
        name = json.dumps(key, ensure_ascii=False)
        if isinstance(value, list) and value:
            inner = ",\n    ".join(_json(item) for item in value)
            parts.append(f"  {name}: [\n    {inner}\n  ]")
        else:
            parts.append(f"  {name}: {_json(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def read_line(history: History, assessment: Assessment) -> str:
    """The one line saying what was read: ``read 50 sessions (2026-10-01 … 2026-11-19),
    200 cases, 400 tests at α = 0.05``. (Cases: every case id of the history.)"""
    sessions = history.sessions
    count = len(sessions)
    days = [session.created[:10] or "?" for session in (sessions[:1] + sessions[-1:])]
    span = days[0] if len(set(days)) == 1 else f"{days[0]} … {days[-1]}"
    cases = sum(len(ids) for ids in history.functions().values())
    return (
        f"read {count:,} session{'' if count == 1 else 's'} ({span}), "
        f"{cases:,} case{'' if cases == 1 else 's'}, "
        f"{assessment.tests:,} test{'' if assessment.tests == 1 else 's'} "
        f"at α = {assessment.alpha:g}"
    )


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return escape_surrogates(text, _JSON_ESCAPE)


def _session(session: Session) -> dict[str, Any]:
    return {
        "file": session.source,
        "created": session.created,
        "commit": session.commit,
        "runs": session.runs,
        "exit_status": session.exit_status,
        "cases": len(session.cases),
        "passes": session.passes,
        "total": session.total,
        "cost": session.cost,
    }


def _move(move: CaseMove, level: float) -> dict[str, Any]:
    point = move.latest
    interval = clopper_pearson_interval(point.passes, point.total, level)
    return {
        "case": move.case,
        "function": move.function,
        "status": move.status,
        "gated": move.gated,
        "latest": {
            "passes": point.passes,
            "total": point.total,
            "rate": point.rate,
            "low": interval.low,
            "high": interval.high,
            "cost": point.cost,
            "latency": point.latency,
            "latency_quantile": point.latency_quantile,
            "gate": point.gate,
        },
        "previous": _comparison(move.previous),
        "window": _comparison(move.window),
    }


def _comparison(comparison: Comparison | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    since = comparison.since
    return {
        "sessions": comparison.sessions,
        "since": {"file": since.source, "created": since.created, "commit": since.commit},
        "passes": comparison.base_passes,
        "total": comparison.base_total,
        "rate": comparison.base_rate,
        "change": comparison.change,
        "p_value": comparison.p_value,
        "p_adjusted": comparison.p_adjusted,
        "real": comparison.real,
    }
