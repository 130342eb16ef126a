"""Outcome capture: pass / fail / error / skip, compact messages, steps, async bodies."""

from __future__ import annotations

import pytest
from helpers import RecordedClock, load_json, section

pytestmark = pytest.mark.usefixtures("kernel_only")


def test_three_outcome_classes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_classes="""
        import sys
        import pytest

        def bench_clean():
            return None

        def bench_assert():
            assert 1 == 2

        def bench_pytest_fail():
            pytest.fail("judge said no")

        def bench_value_error():
            raise ValueError("bad json")

        def bench_system_exit():
            sys.exit(3)
        """
    )
    result = pytester.runpytest("--prob-json=r.json")
    assert section(result.outlines)[:5] == [
        "  clean        1/1",
        "  assert       0/1  FAIL",
        "  pytest_fail  0/1  FAIL",
        "  value_error  0/1  ERROR",
        "  system_exit  0/1  ERROR",
    ]
    records = {r["case"]: r for r in load_json(pytester.path / "r.json")["records"]}
    assert records["clean"]["outcome"] == "pass"
    assert records["assert"]["outcome"] == "fail"
    assert records["assert"]["error"] is None
    assert records["assert"]["message"].startswith("assert 1 == 2")
    assert records["pytest_fail"]["message"] == "judge said no"
    assert records["value_error"]["outcome"] == "error"
    assert records["value_error"]["error"] == "ValueError"
    assert records["value_error"]["message"] == "ValueError: bad json"
    assert records["system_exit"]["error"] == "SystemExit"
    assert records["value_error"]["steps"] == [
        {
            "label": "value_error",
            "passed": False,
            "elapsed": records["value_error"]["elapsed"],
            "error": "ValueError",
            "message": "ValueError: bad json",
        }
    ]
    assert all(isinstance(r["elapsed"], float) and r["elapsed"] >= 0 for r in records.values())


def test_elapsed_times_the_body_only(
    pytester: pytest.Pytester, recorded_clock: RecordedClock
) -> None:
    pytester.makepyfile(
        bench_time="""
        import pytest
        from recorded_clock import clock

        @pytest.fixture
        def slow_fixture():
            clock.advance(0.3)
            yield
            clock.advance(0.7)

        def bench_timed(slow_fixture):
            clock.advance(0.05)
        """
    )
    pytester.runpytest("--prob-json=r.json")
    elapsed = load_json(pytester.path / "r.json")["records"][0]["elapsed"]
    assert elapsed == pytest.approx(0.05, abs=1e-12)  # neither the setup nor the teardown


STEPS_BENCH = """
import dataclasses
import pytest
from pytest_probability import Step


@dataclasses.dataclass
class OtherFrameworkStep:
    label: str
    passed: bool
    message: str = ""


def bench_returns_dataclasses():
    return [Step("retrieve", True, elapsed=0.5), OtherFrameworkStep("answer", True)]


def bench_returns_dicts():
    return [{"label": "a", "passed": True}, {"label": "b", "passed": False, "message": "wrong"}]


def bench_generator():
    yield Step("first", True)
    yield {"label": "second", "passed": True, "elapsed": 0.25}


CLOSED = []


def bench_generator_stops_at_failed_step():
    try:
        yield Step("first", False, message="bad")
        yield Step("never", True)
    finally:
        CLOSED.append(True)


def bench_step_error():
    return Step("call", False, error="TimeoutError", message="no answer")


def bench_returns_non_step():
    return {"some": "value"}


def bench_generator_raises_after_a_step():
    yield Step("first", True)
    raise ConnectionError("reset")
"""


def test_steps_are_duck_typed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_steps=STEPS_BENCH)
    result = pytester.runpytest("--prob-json=r.json")
    assert section(result.outlines)[:7] == [
        "  returns_dataclasses             1/1",
        "  returns_dicts                   0/1  FAIL",
        "  generator                       1/1",
        "  generator_stops_at_failed_step  0/1  FAIL",
        "  step_error                      0/1  ERROR",
        "  returns_non_step                1/1",
        "  generator_raises_after_a_step   0/1  ERROR",
    ]
    result.stdout.fnmatch_lines(
        ["*step 'b' failed: wrong", "*step 'call' errored: TimeoutError: no answer"]
    )
    # the plugin's own frames are not shown for a failed step
    assert not any(
        "core/steps.py" in line or "raise_for_failed_step" in line for line in result.outlines
    )
    records = {r["case"]: r for r in load_json(pytester.path / "r.json")["records"]}
    assert records["returns_dataclasses"]["steps"] == [
        {"label": "retrieve", "passed": True, "elapsed": 0.5, "error": None, "message": None},
        {"label": "answer", "passed": True, "elapsed": None, "error": None, "message": ""},
    ]
    assert [s["label"] for s in records["generator"]["steps"]] == ["first", "second"]
    assert records["generator"]["steps"][1]["elapsed"] == 0.25
    assert [s["label"] for s in records["generator_stops_at_failed_step"]["steps"]] == ["first"]
    assert records["step_error"]["outcome"] == "error"
    assert records["step_error"]["error"] == "TimeoutError"
    assert records["step_error"]["message"] == "step 'call' errored: TimeoutError: no answer"
    assert records["generator_raises_after_a_step"]["steps"] == [
        {"label": "first", "passed": True, "elapsed": None, "error": None, "message": None},
        {
            "label": "generator_raises_after_a_step",
            "passed": False,
            "elapsed": records["generator_raises_after_a_step"]["elapsed"],
            "error": "ConnectionError",
            "message": "ConnectionError: reset",
        },
    ]
    assert records["returns_dicts"]["outcome"] == "fail"
    assert records["returns_dicts"]["message"] == "step 'b' failed: wrong"


def test_async_bench_runs_to_completion_each_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_async="""
        import asyncio
        import pytest
        from pytest_probability import current_run

        LOOPS = []

        async def bench_async_answer():
            await asyncio.sleep(0)
            LOOPS.append(id(asyncio.get_running_loop()))
            assert current_run().run != 2

        async def bench_async_steps():
            yield {"label": "s", "passed": True}

        def bench_loops_were_fresh():
            assert len(LOOPS) == 3
        """
    )
    result = pytester.runpytest("--prob-runs=3", "-W", "error::RuntimeWarning")
    assert section(result.outlines)[:3] == [
        "  async_answer      2/3  FLAKY",
        "  async_steps       3/3",
        "  loops_were_fresh  3/3",
    ]


def test_current_run_outside_a_bench_raises(pytester: pytest.Pytester) -> None:
    from pytest_probability import current_run

    with pytest.raises(RuntimeError, match="only be called from inside a bench_"):
        current_run()


def test_teardown_error_turns_a_passing_run_into_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_td="""
        import pytest

        @pytest.fixture
        def leaky():
            yield
            raise OSError("cleanup failed")

        def bench_a(leaky):
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json")
    assert section(result.outlines)[0] == "  a  0/2  ERROR"
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["outcome"] == "error"
    assert record["phase"] == "teardown"
    assert "cleanup failed" in record["message"]


def test_keyboard_interrupt_writes_runs_done(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_ki="""
        from pytest_probability import current_run

        def bench_a():
            if current_run().run == 3:
                raise KeyboardInterrupt
        """
    )
    # in a subprocess: an in-process KeyboardInterrupt would also stop this session
    result = pytester.runpytest_subprocess("--prob-runs=5", "--prob-json=r.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    assert [r["run"] for r in report["records"]] == [1, 2]
    assert report["rows"][0]["subset"] == "stopped"
    assert section(result.outlines)[0] == "  a  2/2  of 5 planned, session stopped early"
