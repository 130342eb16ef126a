"""Collection: bench files, node ids, case ids, pytest's own parametrize ids, fixtures, marks."""

from __future__ import annotations

import textwrap

import pytest
from helpers import section

pytestmark = pytest.mark.usefixtures("kernel_only")


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(" ")]


def test_node_ids_parametrized_and_plain(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_x="""
        import pytest

        @pytest.mark.parametrize("text", ["a"], ids=["identify_pii"])
        def bench_classify(text):
            pass

        def bench_smoke():
            pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q", "--prob-runs=3")
    assert collected(result) == [
        "bench_x.py::bench_classify::identify_pii[run1]",
        "bench_x.py::bench_classify::identify_pii[run2]",
        "bench_x.py::bench_classify::identify_pii[run3]",
        "bench_x.py::bench_smoke[run1]",
        "bench_x.py::bench_smoke[run2]",
        "bench_x.py::bench_smoke[run3]",
    ]


def test_one_run_drops_the_run_suffix(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_x="""
        import pytest

        @pytest.mark.parametrize("text", ["a"], ids=["identify_pii"])
        def bench_classify(text):
            pass

        def bench_smoke():
            pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    assert collected(result) == [
        "bench_x.py::bench_classify::identify_pii",
        "bench_x.py::bench_smoke",
    ]
    result = pytester.runpytest()
    assert section(result.outlines) == [
        "  classify::identify_pii  1/1",
        "  smoke                   1/1",
        "",
        "  Overall: 2/2 passed (100%)",
    ]


def test_pytest_id_generation_is_pytests(pytester: pytest.Pytester) -> None:
    """Stacked decorators, ids=, pytest.param ids, non-ASCII escaping, duplicates, objects."""
    pytester.makepyfile(
        bench_ids="""
        import pytest

        @pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
        @pytest.mark.parametrize("text", [pytest.param("x", id="refund"), "plain"])
        def bench_triage(text, style):
            pass

        @pytest.mark.parametrize("v", ["dup", "dup", "ünï"], ids=["dup", "dup", "ünï"])
        def bench_dups(v):
            pass

        @pytest.mark.parametrize("n,obj", [(1, object()), (2.5, None)])
        def bench_auto(n, obj):
            pass
        """
    )
    result = pytester.runpytest("--collect-only", "-q")
    assert collected(result) == [
        "bench_ids.py::bench_triage::refund-terse",
        "bench_ids.py::bench_triage::refund-chain_of_thought",
        "bench_ids.py::bench_triage::plain-terse",
        "bench_ids.py::bench_triage::plain-chain_of_thought",
        "bench_ids.py::bench_dups::dup0",
        "bench_ids.py::bench_dups::dup1",
        "bench_ids.py::bench_dups::\\xfcn\\xef",
        "bench_ids.py::bench_auto::1-obj0",
        "bench_ids.py::bench_auto::2.5-None",
    ]


def test_ids_match_what_pytest_gives_test_functions(pytester: pytest.Pytester) -> None:
    params = (
        '@pytest.mark.parametrize("a", [1, "x y", None, pytest.param(3, id="three")])\n'
        '@pytest.mark.parametrize("b", ["é", "é", (1, 2)])\n'
        "def {name}(a, b):\n"
        "    pass\n"
    )
    pytester.makepyfile(
        bench_same="import pytest\n" + params.format(name="bench_f"),
        test_same="import pytest\n" + params.format(name="test_f"),
    )
    result = pytester.runpytest("--collect-only", "-q")
    ids = collected(result)
    bench = [i.split("::", 2)[2] for i in ids if i.startswith("bench_same")]
    plain = [i.split("[", 1)[1][:-1] for i in ids if i.startswith("test_same")]
    assert bench == plain and len(bench) == 12


def test_empty_parameter_set_is_skipped_like_pytest(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_empty="""
        import pytest

        @pytest.mark.parametrize("x", [])
        def bench_nothing(x):
            pass

        def bench_ok():
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    assert section(result.outlines) == ["  ok  2/2", "", "  Overall: 2/2 passed (100%)"]


def test_bench_file_on_command_line_collects_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_cli="""
        IMPORTS = []
        IMPORTS.append(1)
        assert len(IMPORTS) == 1

        def bench_a():
            pass

        def test_helper():
            pass
        """
    )
    result = pytester.runpytest("bench_cli.py", "--prob-runs=2")
    result.assert_outcomes(passed=3)


def test_custom_pattern_and_sibling_import(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nprob_pattern = eval_*.py\n")
    pytester.makepyfile(
        # not "helpers": the suite's own helpers module is already imported in this process
        shared="def answer():\n    return 42\n",
        eval_x="""
        from shared import answer

        def bench_answer():
            assert answer() == 42
        """,
        bench_ignored="def bench_not_collected():\n    pass\n",
    )
    result = pytester.runpytest("--prob-runs=2")
    assert section(result.outlines) == ["  answer  2/2", "", "  Overall: 2/2 passed (100%)"]


def test_assertion_rewriting_in_bench_files(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_rw="""
        def bench_pii():
            answer = "other"
            assert answer == "pii"
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*AssertionError: assert 'other' == 'pii'*"])


def test_fixtures_scopes_and_usefixtures(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        CALLS = {"session": 0, "module": 0, "function": 0, "used": 0}

        @pytest.fixture(scope="session")
        def session_fx():
            CALLS["session"] += 1
            return CALLS

        @pytest.fixture(scope="module")
        def module_fx():
            CALLS["module"] += 1

        @pytest.fixture
        def function_fx():
            CALLS["function"] += 1

        @pytest.fixture
        def used():
            CALLS["used"] += 1
        """
    )
    pytester.makepyfile(
        bench_fx="""
        import pytest

        @pytest.mark.usefixtures("used")
        @pytest.mark.parametrize("x", [1, 2])
        def bench_fx(x, session_fx, module_fx, function_fx):
            pass

        def bench_check(session_fx):
            # 2 cases x 3 runs ran before: function-scoped fixtures are set up per run
            assert session_fx == {"session": 1, "module": 1, "function": 6, "used": 6}
        """
    )
    result = pytester.runpytest("--prob-runs=3", "-p", "no:randomly")
    result.assert_outcomes(passed=9)


def test_fixture_error_is_an_error_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_fxerr="""
        import pytest

        @pytest.fixture
        def broken():
            raise ConnectionError("endpoint down")

        def bench_uses(broken):
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2")
    result.assert_outcomes(errors=2)
    assert section(result.outlines) == ["  uses  0/2  ERROR", "", "  Overall: 0/2 passed (0%)"]


def test_marks_select_cases(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_marks="""
        import pytest

        @pytest.mark.parametrize("x", [
            pytest.param(1, id="a", marks=pytest.mark.fast),
            pytest.param(2, id="b", marks=[pytest.mark.fast, pytest.mark.eu]),
            pytest.param(3, id="c"),
        ])
        def bench_m(x):
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "-m", "fast and not eu")
    result.assert_outcomes(passed=2, deselected=4)
    assert section(result.outlines)[0] == "  m::a  2/2"


def test_skip_skipif_and_xfail(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_skip="""
        import sys
        import pytest
        from pytest_probability import current_run

        @pytest.mark.skip(reason="not today")
        def bench_skipped():
            pass

        @pytest.mark.skipif(sys.platform != "nope", reason="platform")
        def bench_skipif():
            pass

        @pytest.mark.xfail(reason="known bad")
        def bench_xfail():
            assert False

        def bench_inner_skip():
            if current_run().run == 2:
                pytest.skip("quota")
        """
    )
    result = pytester.runpytest("--prob-runs=3")
    result.assert_outcomes(passed=2, skipped=7, xfailed=3)
    assert result.ret == pytest.ExitCode.OK
    assert section(result.outlines) == [
        "  xfail       0/3  FAIL (xfail)",
        "  inner_skip  2/2",
        "",
        "  Overall: 2/5 passed (40%)",
    ]


def test_module_setup_and_teardown_once_per_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_setup="""
        import pytest
        LOG = []

        def setup():
            LOG.append("setup")

        def teardown():
            LOG.append("teardown")

        @pytest.mark.parametrize("x", [1, 2])
        def bench_a(x):
            assert LOG == ["setup"]
        """,
        test_after="""
        import bench_setup

        def test_log():
            assert bench_setup.LOG == ["setup", "teardown"]
        """,
    )
    result = pytester.runpytest("--prob-runs=2", "-p", "no:randomly")
    result.assert_outcomes(passed=5)


def test_failing_module_setup_shows_error_rows(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_badsetup="""
        import pytest

        def setup():
            raise RuntimeError("no credentials")

        @pytest.mark.parametrize("x", [1, 2], ids=["one", "two"])
        def bench_a(x):
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2")
    result.assert_outcomes(errors=4)
    assert section(result.outlines) == [
        "  a::one  0/2  ERROR",
        "  a::two  0/2  ERROR",
        "",
        "  Overall: 0/4 passed (0%)",
    ]


def test_import_error_is_a_collection_error_naming_the_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_broken="import not_a_module_anywhere\n\ndef bench_a():\n    pass\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*ERROR collecting bench_broken.py*", "*not_a_module_anywhere*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_test_functions_in_bench_files_run_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_mixed="""
        def bench_a():
            pass

        def test_b():
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "--collect-only", "-q")
    assert collected(result) == [
        "bench_mixed.py::bench_a[run1]",
        "bench_mixed.py::bench_a[run2]",
        "bench_mixed.py::test_b",
    ]


def test_every_run_gets_its_arguments_from_pytests_fixture_machinery(
    pytester: pytest.Pytester,
) -> None:
    """Direct parameters, derived and indirect fixtures and ``request`` reach every run as
    they reach a ``test_*`` function."""
    pytester.makeconftest(
        """
        import pytest

        def pytest_runtest_call(item):
            if hasattr(item, "case"):
                shown = sorted((k, v) for k, v in item.funcargs.items() if k != "request")
                print(f"\\nARGS {item.case.case_id} {shown}")
        """
    )
    pytester.makepyfile(
        bench_args="""
        import pytest

        @pytest.fixture
        def doubled(n):
            return 2 * n

        @pytest.fixture
        def base(request):
            return request.param * 10

        @pytest.mark.parametrize("n", [1, 2])
        @pytest.mark.parametrize("word", ["a"], scope="module")
        def bench_plain(n, word):
            assert n in (1, 2) and word == "a"

        @pytest.mark.parametrize("n", [3])
        def bench_derived(n, doubled):
            assert doubled == 2 * n

        @pytest.mark.parametrize("base", [4], indirect=True)
        def bench_indirect(base):
            assert base == 40

        @pytest.mark.parametrize("n", [5])
        def bench_request(n, request):
            assert request.node.funcargs["n"] == 5
        """
    )
    result = pytester.runpytest("-s", "--prob-runs=2")
    assert result.ret == 0
    shown = sorted({line for line in result.outlines if line.startswith("ARGS ")})
    assert shown == [
        "ARGS derived::3 [('doubled', 6), ('n', 3)]",
        "ARGS indirect::4 [('base', 40)]",
        "ARGS plain::a-1 [('n', 1), ('word', 'a')]",
        "ARGS plain::a-2 [('n', 2), ('word', 'a')]",
        "ARGS request::5 [('n', 5)]",
    ]


def test_autouse_fixture_keeps_the_fixture_manager(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        CALLS = []

        @pytest.fixture(autouse=True)
        def counted():
            CALLS.append(1)

        def pytest_sessionfinish(session):
            print(f"\\nAUTOUSE {len(CALLS)}")
        """
    )
    pytester.makepyfile(
        bench_auto="""
        import pytest

        @pytest.mark.parametrize("n", [1, 2])
        def bench_n(n):
            assert n
        """
    )
    result = pytester.runpytest("-s", "--prob-runs=3")
    assert result.ret == 0
    assert "AUTOUSE 6" in result.outlines


def test_run_locations_are_what_pytest_would_compute(pytester: pytest.Pytester) -> None:
    """A run's ``location`` is filled at collection from its case (file and line looked up
    once per case); it equals pytest's own ``Item.location`` for every run, decorated and
    nested functions included, and failure headlines read like node ids."""
    pytester.makeconftest(
        """
        from _pytest.nodes import Item

        def pytest_collection_modifyitems(items):
            for item in items:
                if hasattr(item, "run"):
                    expected = Item.location.func(item)
                    assert item.location == expected, (item.location, expected)
                    print(f"\\nLOC {item.location}")
        """
    )
    pytester.mkpydir("sub")
    pytester.path.joinpath("sub", "bench_deep.py").write_text(
        textwrap.dedent(
            """
            import functools
            import pytest


            def decorated(function):
                @functools.wraps(function)
                def wrapper(*args, **kwargs):
                    return function(*args, **kwargs)
                return wrapper


            @pytest.mark.parametrize("n", [1, 2])
            @decorated
            def bench_wrapped(n):
                assert n == 1


            def bench_plain():
                pass
            """
        ),
        encoding="utf-8",
    )
    result = pytester.runpytest("-s", "--prob-runs=2", "--tb=short")
    assert result.ret == 1
    shown = [line for line in result.outlines if line.startswith("LOC ")]
    assert shown == [
        "LOC ('sub/bench_deep.py', 12, 'bench_wrapped::1[run1]')",
        "LOC ('sub/bench_deep.py', 12, 'bench_wrapped::1[run2]')",
        "LOC ('sub/bench_deep.py', 12, 'bench_wrapped::2[run1]')",
        "LOC ('sub/bench_deep.py', 12, 'bench_wrapped::2[run2]')",
        "LOC ('sub/bench_deep.py', 18, 'bench_plain[run1]')",
        "LOC ('sub/bench_deep.py', 18, 'bench_plain[run2]')",
    ]
    result.stdout.fnmatch_lines(["*_ bench_wrapped::2[[]run1[]] _*"])


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
