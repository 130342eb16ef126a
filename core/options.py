"""The option registrar: one declaration per setting, one precedence rule, early validation.

An extension declares a setting once, through ``pytest_prob_addoption(options)``; the
registry turns it into a ``--prob-*`` flag, a ``prob_*`` ini key and/or a
``probability(...)`` mark key. Values resolve as *mark > CLI > ini > default*:

* :meth:`OptionRegistry.session_value` — CLI > ini > default, validated once at
  ``pytest_configure`` (before collection), so a bad value is a usage error naming its source;
* :meth:`OptionRegistry.case_value` — the merged mark arguments of a case first, then the
  session value.

Mark arguments merge key by key, the mark closest to the case winning
(:meth:`OptionRegistry.merge_marks`), except for *alternatives*
(:meth:`OptionRegistry.alternatives`): keys such as ``min_rate`` and ``min_passes`` that
say the same thing two ways. A closer mark that sets one of them replaces every one of them
set farther out, and one mark setting two of them is an error.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from .parsers import (
    parse_bool,
    parse_concurrency,
    parse_delay,
    parse_patterns,
    parse_runs,
    parse_text,
)

Parser = Callable[[Any], Any]


class OptionError(ValueError):
    """A setting's value is invalid; the message names the source and what is valid."""


@dataclass(frozen=True)
class OptionSpec:
    """One declared setting.

    :ivar name: the setting's key (``runs``); the mark key unless ``mark`` says otherwise.
    :ivar parse: turns a raw value into the typed value or raises :class:`ValueError`.
    :ivar default: value when nothing sets it (not parsed).
    :ivar cli: the flag (``--prob-runs``), or ``None``.
    :ivar ini: the ini key (``prob_runs``), or ``None``.
    :ivar mark: the ``probability(...)`` key, or ``None`` when marks cannot set it.
    :ivar flag_value: for a flag without argument, the value its presence means.
    :ivar help: one line for ``pytest --help``: at most 56 characters (the width pytest
        wraps help at in 80 columns), with the choices' suffix below; the details belong in
        the docs. An ini key twin of a flag is listed as ``default for --prob-...``, and
        as ``default for --prob-...: true or false`` for a switch whose ``flag_value`` is
        ``True``.
    :ivar metavar: argument name in ``--help``; by default the choices (``{fail,pass}``).
    :ivar choices: valid values, shown in ``--help`` (as the metavar, or after the help as
        ``(one of: a, b)`` when a metavar that does not show them is given) and errors.
    :ivar owner: the extension that declared it (for error messages and docs).
    :ivar with_config: ``parse`` takes ``(raw, config)``, for values checked against
        something only known once pytest is configured (a registry of method names).
    :ivar ini_help: help for the ini key where ``default for --prob-...`` would read wrongly
        (``prob_intervals``, which says the opposite of ``--prob-no-intervals``); at most 56
        characters. An ini key without a flag shows ``help``.
    :ivar repeatable: the flag may be given several times; its values are joined with
        commas before parsing (``--prob-metric=pass^3 --prob-metric=pass@5``).
    """

    name: str
    parse: Parser
    default: Any = None
    cli: str | None = None
    ini: str | None = None
    mark: str | None = None
    flag_value: Any = None
    help: str = ""
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    owner: str = "kernel"
    with_config: bool = False
    ini_help: str | None = None
    repeatable: bool = False

    @property
    def dest(self) -> str:
        return f"prob_opt_{self.name}"


class OptionRegistry:
    """All settings of a session. Created by the kernel at ``pytest_addoption``."""

    def __init__(self, parser: pytest.Parser | None = None) -> None:
        self._parser = parser
        self._specs: dict[str, OptionSpec] = {}
        self._session: dict[str, Any] = {}
        self._resolved = False
        self._config: pytest.Config | None = None
        self._alternatives: list[tuple[str, ...]] = []
        #: settings declared from the catalog of an extension not registered yet: name ->
        #: extension (its own declaration replaces the placeholder when it registers)
        self._placeholders: dict[str, str] = {}
        #: the bundled extension of every setting declared from the catalog (kept after its
        #: extension's own declaration replaced the placeholder)
        self._catalog_owners: dict[str, str] = {}
        #: settings checked against a registry declared after :meth:`resolve`: resolved
        #: once their extension registered (:meth:`_resolve_late`)
        self._late: list[str] = []

    def add(
        self,
        name: str,
        *,
        parse: Parser,
        default: Any = None,
        cli: str | None = None,
        ini: str | None = None,
        mark: bool | str = False,
        flag_value: Any = None,
        help: str = "",
        metavar: str | None = None,
        choices: tuple[str, ...] | None = None,
        owner: str = "kernel",
        with_config: bool = False,
        ini_help: str | None = None,
        repeatable: bool = False,
    ) -> OptionSpec:
        """Declare one setting; returns its spec. ``mark=True`` uses ``name`` as mark key.

        A setting declared from the catalog (:meth:`_placeholder`) is replaced: its flag and
        ini key are in pytest's parser already, and once the options are resolved the new
        declaration is resolved at once (raises :class:`pytest.UsageError` on a bad value).
        """
        fields = dict(locals())  # (every parameter but self is a field of the spec)
        del fields["self"]
        fields["mark"] = name if mark is True else (mark or None)
        replaces = self._placeholders.pop(name, None) is not None
        if name in self._specs and not replaces:
            raise ValueError(f"setting {name!r} is declared twice")
        spec = self._specs[name] = OptionSpec(**fields)
        if not replaces:
            self._add_to_parser(spec)
        if self._resolved and self._config is not None:
            if spec.with_config:  # (its registry may not hold its extension's entries yet)
                self._session.setdefault(name, spec.default)
                self._late.append(name)
            else:
                self._session[name] = self._resolve_one(self._config, spec)
        return spec

    def _placeholder(self, *, extension: str, name: str, **fields: Any) -> OptionSpec:
        """Declare a setting of the bundled ``extension`` from the catalog, before the
        extension is registered: its flag and ini key go to pytest's parser, its value is
        its default until the extension's own declaration replaces it (:meth:`add`), and a
        value given for it asks for the extension (:meth:`_requested`)."""
        spec = OptionSpec(name=name, parse=_not_declared_yet, **fields)
        if name in self._specs:
            raise ValueError(f"setting {name!r} is declared twice")
        self._specs[name] = spec
        self._placeholders[name] = extension
        self._catalog_owners[name] = extension
        self._add_to_parser(spec)
        return spec

    def _requested(self, config: pytest.Config) -> list[str]:
        """The bundled extensions, in declaration order, one of whose settings is given on
        the command line or in the ini file (registered already or not: one registered early,
        because an installed plugin implements its hooks, still asks for the extensions that
        add to its registries)."""
        owners = self._catalog_owners.items()
        given = (ext for name, ext in owners if _raw(config, self._specs[name]) is not None)
        return list(dict.fromkeys(given))

    def _resolve_late(self) -> None:
        """Resolve the settings checked against a registry that were declared after
        :meth:`resolve` (an extension registered late), once their extension registered
        and its own entries are in. Raises :class:`pytest.UsageError` on a bad value."""
        late, self._late = self._late, []
        if self._config is not None:
            for name in late:
                self._session[name] = self._resolve_one(self._config, self._specs[name])

    def _add_to_parser(self, spec: OptionSpec) -> None:
        if self._parser is None:
            return  # (a registry made without pytest's parser, as the catalog makes one)
        group = self._parser.getgroup("probability", "pytest-probability")
        if spec.cli is not None:
            # (the choices as the argument's name, ``{fail,pass}``, unless a metavar is given;
            # a metavar that does not show them gets them after the help)
            shown = "{" + ",".join(spec.choices) + "}" if spec.choices else None
            metavar = spec.metavar or shown
            help_text = spec.help + (
                f" (one of: {', '.join(spec.choices)})" if spec.choices and metavar != shown else ""
            )
            if spec.flag_value is not None:
                how = {"action": "store_const", "const": spec.flag_value}
            else:
                how = {"metavar": metavar, "action": "append" if spec.repeatable else "store"}
            group.addoption(spec.cli, default=None, dest=spec.dest, help=help_text, **how)
        if spec.ini is not None:
            # (an ini key twin of a flag points at the flag, whose help says what it does; a
            # switch's key takes a boolean)
            twin = None
            if spec.cli is not None:
                takes = ": true or false" if spec.flag_value is True else ""
                twin = f"default for {spec.cli}{takes}"
            self._parser.addini(
                spec.ini, help=spec.ini_help or twin or spec.help or spec.name, default=None
            )

    def alternatives(self, *keys: str) -> None:
        """Declare mark keys that are alternatives to each other (``min_rate`` or
        ``min_passes``): the closest mark setting any of them decides which one applies, and
        one mark setting two of them is an error (:meth:`merge_marks`)."""
        if len(keys) < 2:
            raise ValueError(f"alternatives need at least two mark keys, got {keys!r}")
        self._alternatives.append(tuple(keys))

    @property
    def specs(self) -> Mapping[str, OptionSpec]:
        return self._specs

    def mark_keys(self) -> dict[str, OptionSpec]:
        return {s.mark: s for s in self._specs.values() if s.mark is not None}

    def resolve(self, config: pytest.Config) -> None:
        """Parse and validate every CLI and ini value (raises :class:`pytest.UsageError`)."""
        self._config = config
        self._session = {  # (a placeholder is resolved when its extension registers)
            name: spec.default if name in self._placeholders else self._resolve_one(config, spec)
            for name, spec in self._specs.items()
        }
        self._resolved = True

    def _resolve_one(self, config: pytest.Config, spec: OptionSpec) -> Any:
        given = _raw(config, spec)
        if given is None:
            return spec.default
        try:
            return self.parse_value(spec, given[0])
        except ValueError as exc:
            raise pytest.UsageError(f"{given[1]}: {exc}") from None

    def parse_value(self, spec: OptionSpec, raw: Any) -> Any:
        """Parse one raw value with its spec's parser (raises :class:`ValueError`)."""
        return spec.parse(raw, self._config) if spec.with_config else spec.parse(raw)

    def source(self, name: str) -> str | None:
        """Where the session value of a setting comes from, as its errors name it
        (``--prob-min-rate=0.9``, ``ini option prob_min_rate=0.9``), or ``None`` for its
        default (and for an unknown name)."""
        spec = self._specs.get(name)
        if spec is None or self._config is None:
            return None
        given = _raw(self._config, spec)
        return None if given is None else given[1]

    def session_value(self, name: str) -> Any:
        """The validated CLI > ini > default value of a setting."""
        if not self._resolved:
            raise RuntimeError("options are resolved at pytest_configure")
        return self._session[name]

    def case_value(self, name: str, mark_args: Mapping[str, Any]) -> Any:
        """The mark > CLI > ini > default value; ``mark_args`` must already be validated."""
        spec = self._specs[name]
        if spec.mark is not None and spec.mark in mark_args:
            return mark_args[spec.mark]
        return self.session_value(name)

    def merge_marks(self, levels: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        """Merge ``probability(...)`` mark arguments, closest first.

        :param levels: the keyword arguments of each mark, grouped by where the marks sit,
            closest to the case first: the case's ``pytest.param`` marks, then the
            function's, its class's, its module's. Within a level the first mark wins key by
            key, as between levels.
        :return: the merged arguments: each key from the closest level that sets it, except
            that a level setting any key of a group of :meth:`alternatives` hides every key
            of that group set farther out (a case's ``min_passes=15`` under its function's
            ``min_rate=0.6`` leaves a count gate only).
        :raises OptionError: when the marks of one level set two keys of a group.
        """
        merged: dict[str, Any] = {}
        decided: set[int] = set()  # the groups a closer level already chose from
        for level in levels:
            here: dict[str, Any] = {}
            for args in level:
                for key, value in args.items():
                    here.setdefault(key, value)
            for index, group in enumerate(self._alternatives):
                found = [key for key in group if key in here]
                if len(found) > 1:
                    given = " and ".join(f"{key}={here[key]!r}" for key in found)
                    rule = "not both" if len(group) == 2 else "only one of them"
                    raise OptionError(
                        f"probability mark sets {given}: a mark takes {' or '.join(group)}, {rule}"
                    )
                if index in decided:
                    for key in found:
                        del here[key]
                elif found:
                    decided.add(index)
            for key, value in here.items():
                merged.setdefault(key, value)
        return merged

    def validate_mark(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Parse merged mark arguments; raise :class:`OptionError` naming a bad key or value."""
        keys = self.mark_keys()
        parsed: dict[str, Any] = {}
        for key, raw in args.items():
            spec = keys.get(key)
            if spec is None:
                import difflib  # (only for a misspelt key's suggestion)

                close = difflib.get_close_matches(key, list(keys), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                valid = ", ".join(sorted(keys)) or "none"
                raise OptionError(
                    f"unknown probability mark argument {key}={raw!r}{hint}; valid: {valid}"
                )
            try:
                parsed[key] = self.parse_value(spec, raw)
                _check_mark_type(raw, parsed[key])
            except ValueError as exc:
                raise OptionError(f"probability mark argument {key}={raw!r}: {exc}") from None
        return parsed


def _check_mark_type(raw: Any, parsed: Any) -> None:
    """Refuse a mark value of the wrong Python type that the setting's parser (made for
    command-line text) would read anyway: text for a number (``margin="0.1"``), anything
    but ``True``/``False`` for a switch (``equivalence=1``). A mark is code: its values are
    written as what they are."""
    if isinstance(parsed, bool):
        if not isinstance(raw, bool):
            raise ValueError(f"expected True or False, got {raw!r}")
    elif isinstance(parsed, (int, float)) and isinstance(raw, str):
        raise ValueError(f"expected a number, not text: write {parsed!r} without quotes")


def _not_declared_yet(raw: Any) -> Any:
    """The parser of a placeholder (never called: a given value registers the extension,
    whose own declaration parses it)."""
    raise ValueError("this setting's extension is not registered")


def _raw(config: pytest.Config, spec: OptionSpec) -> tuple[Any, str] | None:
    """The raw value given for ``spec`` and where (``--prob-runs=3``, ``ini option
    prob_runs=3``): the command line first, then the ini file; ``None`` when neither."""
    if spec.cli is not None:
        raw = config.getoption(spec.dest, None)
        if isinstance(raw, list):  # a repeatable flag
            raw = ",".join(raw)
        if raw is not None:
            return raw, (spec.cli if spec.flag_value is not None else f"{spec.cli}={raw}")
    if spec.ini is not None:
        raw = _read_ini(config, spec.ini)
        if raw is not None:
            return raw, f"ini option {spec.ini}={raw}"
    return None


def _read_ini(config: pytest.Config, name: str) -> Any:
    """An ini value, or ``None`` when unset (pytest returns ``""`` or ``None`` for unset keys)."""
    try:
        raw = config.getini(name)
    except ValueError:
        return None
    if raw is None or raw == "" or raw == []:
        return None
    return " ".join(str(part) for part in raw) if isinstance(raw, list) else raw


def declare_kernel_settings(options: OptionRegistry) -> None:
    """The kernel's own settings: runs, the JSON report, the delay, the order, the pattern
    (declared by the kernel's ``pytest_prob_addoption``)."""
    options.add(
        "runs",
        parse=parse_runs,
        default=1,
        cli="--prob-runs",
        ini="prob_runs",
        mark=True,
        metavar="N",
        help="run every case N times (default: ini prob_runs or 1)",
    )
    options.add(
        "json",
        parse=parse_text,
        cli="--prob-json",
        metavar="PATH",
        help="write a JSON report to PATH",
    )
    options.add(
        "delay",
        parse=parse_delay,
        default=0.0,
        cli="--prob-delay",
        ini="prob_delay",
        metavar="SECONDS",
        help="seconds between runs, per xdist worker (default 0)",
    )
    options.add(
        "concurrency",
        parse=parse_concurrency,
        default=1,
        cli="--prob-concurrency",
        ini="prob_concurrency",
        mark=True,
        metavar="K",
        help="keep up to K runs in flight per process (default 1)",
    )
    options.add(
        "threads",
        parse=parse_bool,
        default=False,
        cli="--prob-threads",
        ini="prob_threads",
        mark=True,
        flag_value=True,
        help="--prob-concurrency for sync benches (thread-safe only)",
    )
    options.add(
        "transpose",
        parse=parse_bool,
        default=False,
        cli="--prob-transpose",
        ini="prob_transpose",
        flag_value=True,
        help="run-major order: run 1 of every case, then run 2, ...",
    )
    options.add(
        "pattern",
        parse=parse_patterns,
        default=("bench_*.py",),
        ini="prob_pattern",
        help="glob(s) for benchmark files (default bench_*.py)",
    )
