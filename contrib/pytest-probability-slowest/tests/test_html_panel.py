"""The slowest extension adds a panel to the --prob-html page."""

from __future__ import annotations

import pytest

BENCH = """
import time
import pytest

@pytest.mark.parametrize("pause", [0.02, 0.0])
def bench_nap(pause):
    time.sleep(pause)
"""


def test_panel_in_the_html_page(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_nap=BENCH)
    result = pytester.runpytest("--prob-runs=3", "--prob-slowest=2", "--prob-html=r.html")
    assert result.ret == 0
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "Slowest cases" in page
    assert "<caption>by median run time</caption>" in page
    panel = page[page.rindex("Slowest cases") : page.index("</section>", page.rindex("Slowest"))]
    assert panel.index("<td>nap::0.02</td>") < panel.index("<td>nap::0.0</td>")  # slowest first
    assert panel.count("<td>3</td>") == 2  # runs per case


def test_no_panel_without_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_nap=BENCH)
    pytester.runpytest("--prob-runs=2", "--prob-html=r.html")
    assert "Slowest cases" not in (pytester.path / "r.html").read_text(encoding="utf-8")
