"""Plain-language readings of function-level and Overall lines (for ``--prob-explain``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from pytest_probability.api import Reading, ReportBuilder, reading_percent

#: ρ below which runs vary enough that more runs help most, and above which inputs do
LOW_RHO, HIGH_RHO = 0.3, 0.6


def count(report: ReportBuilder) -> int:
    """How many notable readings :func:`readings` gives (lines below 100%), without
    building them."""
    return sum(1 for line in report.json.get("aggregates", []) if line["estimate"] < 1.0)


def readings(report: ReportBuilder) -> list[Reading]:
    """A reading per function-level (and Overall) line."""
    found = []
    for line in report.json.get("aggregates", []):
        ci = line["ci"]
        text = (
            f"The mean pass fraction over its {line['inputs']} inputs is "
            f"{reading_percent(line['estimate'], 1)}"
        )
        if line.get("hidden"):
            text += f"; its interval is hidden because {line['hidden']}."
        elif ci["low"] == ci["high"]:
            text += (
                ": every input passed (or failed) every run, so the bootstrap has nothing to vary."
            )
        else:
            text += (
                f", with a {reading_percent(ci['level'])} interval of "
                f"{reading_percent(ci['low'], 1)} to {reading_percent(ci['high'], 1)} "
                "from a bootstrap over inputs (it treats these "
                "inputs as a sample of the ones you care about)."
            )
        rho = line.get("icc")
        runs_x2 = line["width_factor"]["runs_x2"]
        if rho is not None and runs_x2 is not None and not line.get("hidden"):
            runs = reading_percent(-runs_x2)
            inputs = reading_percent(-line["width_factor"]["inputs_x2"])
            if rho >= HIGH_RHO:
                advice = (
                    "each input is mostly right or mostly wrong every time, so add inputs, not "
                    f"runs (doubling the runs would narrow the interval by {runs}, doubling "
                    f"the inputs by {inputs})"
                )
            elif rho <= LOW_RHO:
                advice = (
                    "outputs vary from run to run, so more runs help (doubling them narrows "
                    f"the interval by {runs}; doubling the inputs by {inputs})"
                )
            else:
                advice = (
                    f"both help (doubling the runs narrows the interval by {runs}, doubling "
                    f"the inputs by {inputs})"
                )
            text += f" ρ = {rho:.2f}: {advice}."
        terms = ("interval", "bootstrap") + (("ρ (rho)",) if rho is not None else ())
        found.append(
            Reading(line["label"], text, terms, line, order=200, notable=line["estimate"] < 1.0)
        )
    return found
