"""The names of the extension's settings, shared by its modules.

Every name is prefixed ``example_``: settings, ini keys and flags share one namespace with
pytest, pytest-probability and every other extension.
"""

from __future__ import annotations

#: the switch that adds ``jeffreys`` and ``majority`` to the shared registries (a plain
#: pytest option: ``--example-names``, ini ``example_names``)
NAMES = "example_names"
#: the section and the JSON key (``--example-summary``, ini ``example_summary``)
SUMMARY = "example_summary"
#: the gate's limit (``--example-max-errors=N``, ini ``example_max_errors``; unset: no gate)
MAX_ERRORS = "example_max_errors"
