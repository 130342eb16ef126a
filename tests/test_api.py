"""The public API (``pytest_probability.api``) changes only on purpose.

``tests/api_snapshot.txt`` holds every public name with its kind and signature (a class with
its public methods and properties). A change to the surface fails here until the snapshot is
written again with ``python tests/test_api.py`` and the change is recorded in docs/api.rst
(the version a name appeared in) and CHANGELOG.md. A name is removed only after a minor
release in which reading it warns (``api.DEPRECATED``).
"""

from __future__ import annotations

import inspect
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from pytest_probability import api

SNAPSHOT = Path(__file__).with_name("api_snapshot.txt")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "api.rst"


def _signature(value: Any) -> str:
    try:
        text = str(inspect.signature(value))
    except (TypeError, ValueError):
        return "(...)"
    return re.sub(r" at 0x[0-9a-f]+", "", text)  # (a default that is a function)


def _members(cls: type) -> list[str]:
    lines = []
    for name, member in sorted(vars(cls).items()):
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(member, property):
            lines.append(f"    .{name}: property")
        elif isinstance(member, (staticmethod, classmethod)):
            lines.append(f"    .{name}{_signature(member.__func__)}")
        elif inspect.isfunction(member):
            lines.append(f"    .{name}{_signature(member)}")
    return lines


def describe(name: str, value: Any) -> list[str]:
    """One entry of the snapshot: ``name: kind signature`` (and a class's members)."""
    if inspect.isclass(value) and issubclass(value, pytest.Item):
        # pytest makes items (``from_parent``) and owns their methods: the class is the API
        return [f"{name}: pytest item class({value.__bases__[0].__name__})"]
    if inspect.isclass(value):
        bases = ", ".join(base.__name__ for base in value.__bases__)
        return [f"{name}: class({bases}){_signature(value)}", *_members(value)]
    if callable(value):
        return [f"{name}: function{_signature(value)}"]
    if isinstance(value, (str, int, float, tuple, frozenset)):
        return [f"{name}: constant {value!r}"]
    return [f"{name}: {type(value).__name__}"]


def snapshot() -> str:
    lines: list[str] = []
    for name in sorted(api.__all__):
        lines.extend(describe(name, getattr(api, name)))
    return "\n".join(lines) + "\n"


def test_the_public_names_and_signatures_match_the_snapshot() -> None:
    assert snapshot() == SNAPSHOT.read_text(encoding="utf-8"), (
        "the public API changed: if on purpose, run `python tests/test_api.py`, "
        "and document the change in docs/api.rst and CHANGELOG.md"
    )


def test_all_lists_exactly_the_public_table() -> None:
    assert set(api.__all__) == set(api.PUBLIC) == set(api.ADDED_IN)
    assert len(api.__all__) == len(set(api.__all__))


def test_every_name_resolves() -> None:
    for name in api.__all__:
        getattr(api, name)
    assert set(dir(api)) >= set(api.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'kernel_of'"):
        api.kernel_of  # noqa: B018  # (the kernel object is not part of the API)


def test_a_deprecated_name_warns_and_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(api.DEPRECATED, "format_money", ("money", "0.2.0"))
    with pytest.warns(api.ProbabilityDeprecationWarning) as caught:
        found = api.format_money
    assert found is api.money
    assert str(caught[0].message) == (
        "pytest_probability.api.format_money is deprecated since 0.2.0 and will be removed; "
        "use pytest_probability.api.money"
    )
    assert caught[0].filename == __file__  # (points at the user's line)


def test_reading_a_name_keeps_nothing_in_the_module() -> None:
    """Names are looked up on each read (pytester's in-process runs drop modules and import
    them again; a kept reference would be a second copy of their state)."""
    api.percent  # noqa: B018
    assert "percent" not in vars(api)


def test_the_api_page_documents_every_name_with_its_version() -> None:
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.split(r"^\.\. auto\w+:: pytest_probability\.api\.", text, flags=re.M)[1:]
    documented = {re.match(r"\w+", block).group(): block for block in blocks}  # type: ignore[union-attr]
    assert sorted(set(api.__all__) - set(documented)) == [], "docs/api.rst misses these"
    assert sorted(set(documented) - set(api.__all__)) == [], "docs/api.rst has extra names"
    for name, block in documented.items():
        assert f".. versionadded:: {api.ADDED_IN[name]}" in block, name


def test_the_snapshot_ignores_warnings_while_reading() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        snapshot()


if __name__ == "__main__":
    SNAPSHOT.write_text(snapshot(), encoding="utf-8")
    print(f"wrote {SNAPSHOT} ({len(api.__all__)} names)", file=sys.stderr)
