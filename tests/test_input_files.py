"""Files a user names are read bounded and without blocking (issue 35 §1): only a regular
file of at most ``INPUT_LIMIT`` bytes is read; a device, a pipe with no writer, a link loop or
an oversized file is one clear error naming the option, before anything runs."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from pytest_probability.api import INPUT_LIMIT, UnreadableInput, read_input
from pytest_probability.report.reading import size_text

BENCH = "def bench_a():\n    pass\n"


def reason(path: str | Path, limit: int = INPUT_LIMIT) -> str:
    """The refusal of ``read_input``, read in a thread so that a blocking open fails the test
    instead of hanging it."""
    found: list[str] = []

    def read() -> None:
        try:
            read_input(path, limit=limit)
        except UnreadableInput as exc:
            found.append(str(exc))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), f"reading {path} blocked"
    assert len(found) == 1, f"{path} was read"
    return found[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def link_loop(tmp_path: Path) -> Path:
    (tmp_path / "one").symlink_to(tmp_path / "two")
    (tmp_path / "two").symlink_to(tmp_path / "one")
    return tmp_path / "one"


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b'{"a": 1}')
    assert read_input(path) == b'{"a": 1}'
    assert read_input(str(path), limit=8) == b'{"a": 1}'  # exactly at the cap


def test_what_is_not_read(tmp_path: Path, fifo: Path, link_loop: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1025)
    assert reason(big, limit=1024) == "is larger than 1 KiB"
    assert reason("/dev/zero") == "is not a regular file (a character device)"
    assert reason(fifo) == "is not a regular file (a named pipe)"
    assert reason(tmp_path) == "is a directory"
    assert reason(tmp_path / "missing") == "no such file"
    assert reason(link_loop) == "cannot read: too many levels of symbolic links (a link loop?)"
    assert reason(big / "below") == "cannot read: a part of its path is not a directory"


def test_sizes_are_written_in_whole_binary_units() -> None:
    assert [size_text(n) for n in (INPUT_LIMIT, 16 << 20, 1024, 1000, 1536)] == [
        "256 MiB",
        "16 MiB",
        "1 KiB",
        "1,000 bytes",
        "1,536 bytes",
    ]


@pytest.mark.parametrize(
    ("option", "given", "expected"),
    [
        ("--prob-baseline", "/dev/zero", "is not a regular file (a character device)"),
        ("--prob-baseline", "pipe", "is not a regular file (a named pipe)"),
        ("--prob-baseline", "one", "cannot read: too many levels of symbolic links (a link loop?)"),
        ("--prob-plan-report", "/dev/zero", "is not a regular file (a character device)"),
    ],
    ids=["baseline-device", "baseline-fifo", "baseline-link-loop", "plan-report-device"],
)
def test_an_option_naming_what_cannot_be_read_is_a_usage_error(
    pytester: pytest.Pytester, option: str, given: str, expected: str
) -> None:
    os.mkfifo(pytester.path / "pipe")
    (pytester.path / "one").symlink_to(pytester.path / "two")
    (pytester.path / "two").symlink_to(pytester.path / "one")
    pytester.makepyfile(bench_a=BENCH)
    plan = ["--prob-plan"] if option == "--prob-plan-report" else []
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=2", *plan, f"{option}={given}", timeout=60
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == f"ERROR: {option}={given}: {expected}"
    assert "Traceback" not in result.stderr.str()
    assert "bench_a" not in result.stdout.str()  # nothing ran


def test_the_html_command_refuses_a_pipe(pytester: pytest.Pytester, fifo: Path) -> None:
    result = pytester.run(
        sys.executable, "-m", "pytest_probability", "html", str(fifo), "-o", "x.html", timeout=60
    )
    assert result.ret == 2
    assert result.errlines[-1] == (
        f"python -m pytest_probability: error: {fifo}: is not a regular file (a named pipe)"
    )
    assert not (pytester.path / "x.html").exists()


def test_a_price_file_that_cannot_be_read_names_the_setting(tmp_path: Path, fifo: Path) -> None:
    from pytest_probability.api import TextsConfigError
    from pytest_probability.extensions.texts.session import PRICES_LIMIT, _prices

    assert PRICES_LIMIT == 16 << 20
    for given, reason in [
        ("/dev/zero", "is not a regular file (a character device)"),
        (str(fifo), "is not a regular file (a named pipe)"),
    ]:
        with pytest.raises(TextsConfigError) as info:
            _prices(given)
        assert str(info.value) == f"texts_prices={given!r}: {reason}"
