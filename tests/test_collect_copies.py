"""The runs of a case after the first are copies of it (``collect.RunCopier``), not new builds.

A copy must be indistinguishable from the item pytest would build: same attributes, same
keywords, markers and ids, and nothing mutable shared with its siblings. Checked here
attribute by attribute against an item built with ``from_parent`` on every supported pytest
(this file runs in both suite legs), and by behaviour: a marker, a user property or a
fixture value given to one run never reaches another.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.collect import BenchRun

pytestmark = pytest.mark.usefixtures("kernel_only")

MARKED = """
import pytest

pytestmark = pytest.mark.module_level

@pytest.fixture
def model():
    return "toy"

@pytest.mark.function_level
@pytest.mark.parametrize(
    "text",
    ["a", pytest.param("b", marks=pytest.mark.param_level, id="second")],
)
def bench_classify(text, model):
    pass

@pytest.mark.parametrize("n", [1, 2])
def bench_direct(n):
    pass

def bench_plain():
    pass
"""


def built_like(item: BenchRun) -> BenchRun:
    """The item pytest would build for ``item``'s run, through ``from_parent``."""
    return BenchRun.from_parent(
        item.parent,
        name=item.name,
        callspec=getattr(item, "callspec", None),
        callobj=item.obj,
        fixtureinfo=item._fixtureinfo,
        originalname=item.case.function,
        case=item.case,
        run=item.run,
        place=item.location[:2],
        hooks=item.ihook,
        direct_arguments=item._direct_arguments,
    )


def comparable(item: BenchRun) -> dict[str, Any]:
    """What a user, a plugin or pytest itself can read off an item."""
    return {
        "type": type(item),
        "attributes": sorted(vars(item)),
        "name": item.name,
        "nodeid": item.nodeid,
        "location": item.location,
        "keywords": dict(item.keywords),
        "extra_keywords": item.listextrakeywords(),
        "own_markers": item.own_markers,
        "markers": [mark.name for mark in item.iter_markers()],
        "fixturenames": item.fixturenames,
        "originalname": item.originalname,
        "params": getattr(getattr(item, "callspec", None), "params", None),
        "run": item.run,
        "case": item.case.key,
        "funcargs": item.funcargs,
        "user_properties": item.user_properties,
        "report_sections": item._report_sections,
    }


def test_a_copied_run_equals_a_built_one(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nprob_runs = 3\nmarkers =\n    module_level\n    function_level\n    param_level"
    )
    items = pytester.getitems(pytester.makepyfile(bench_copies=MARKED))
    runs = [item for item in items if isinstance(item, BenchRun)]
    assert len(runs) == 5 * 3
    copies = [item for item in runs if item.run > 1]
    assert copies
    for item in copies:
        reference = built_like(item)
        assert comparable(item) == comparable(reference), item.nodeid
    by_case: dict[str, list[BenchRun]] = {}
    for item in runs:
        by_case.setdefault(item.case.key, []).append(item)
    for siblings in by_case.values():
        first = siblings[0]
        for item in siblings[1:]:
            for attribute in (
                "keywords",
                "own_markers",
                "extra_keyword_matches",
                "stash",
                "user_properties",
                "_report_sections",
                "funcargs",
                "_request",
            ):
                assert getattr(item, attribute) is not getattr(first, attribute), attribute
            assert item._request._pyfuncitem is item
            if hasattr(first, "_store"):
                assert item._store is item.stash
            assert item.obj is first.obj
            assert item._fixtureinfo is first._fixtureinfo


def test_one_item_is_built_per_case(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    original = BenchRun.__init__

    def counting(self: BenchRun, **kwargs: Any) -> None:
        built.append(kwargs["name"])
        original(self, **kwargs)

    monkeypatch.setattr(BenchRun, "__init__", counting)
    pytester.makeini(
        "[pytest]\nprob_runs = 3\nmarkers =\n    module_level\n    function_level\n    param_level"
    )
    items = pytester.getitems(pytester.makepyfile(bench_copies=MARKED))
    assert len(items) == 5 * 3
    assert sorted(built) == ["1[run1]", "2[run1]", "a[run1]", "bench_plain[run1]", "second[run1]"]


def test_what_one_run_is_given_stays_with_it(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        SEEN = []

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_setup(item):
            if getattr(item, "run", None) == 2:
                item.add_marker(pytest.mark.second_run)
            item.stash.setdefault(KEY, []).append(item.run)

        KEY = pytest.StashKey[list]()

        def pytest_runtest_logreport(report):
            if report.when == "call":
                SEEN.append((report.nodeid.rsplit("[", 1)[1], report.user_properties,
                             [m for m in report.keywords if m == "second_run"]))

        def pytest_terminal_summary(terminalreporter):
            for line in SEEN:
                terminalreporter.write_line(f"SEEN {line}")
        """
    )
    pytester.makepyfile(
        bench_given="""
        import pytest
        from pytest_probability import current_run

        @pytest.fixture
        def counter():
            return []

        def bench_given(request, record_property, counter):
            counter.append(current_run().run)
            assert counter == [current_run().run]
            record_property("run", current_run().run)
            assert request.node.stash[KEY] == [current_run().run]

        from conftest import KEY
        """
    )
    result = pytester.runpytest("--prob-runs=3", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    assert [line for line in result.outlines if line.startswith("SEEN")] == [
        "SEEN ('run1]', [('run', 1)], [])",
        "SEEN ('run2]', [('run', 2)], ['second_run'])",
        "SEEN ('run3]', [('run', 3)], [])",
    ]
