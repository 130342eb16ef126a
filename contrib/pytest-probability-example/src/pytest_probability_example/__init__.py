"""pytest-probability-example: a third-party pytest-probability extension, written as a tutorial.

Loaded from the ``pytest_probability.extensions`` entry-point group as
``probability.example``. It adds, using only :mod:`pytest_probability.api` and the hooks:

* the interval method ``jeffreys`` and the metric ``majority`` (with ``--example-names``);
* the gate kind ``max_errors`` (``--example-max-errors=N``);
* the ``probability: example`` report section and the JSON key ``example``
  (``--example-summary``).

The walk-through is ``docs/extending.rst`` in the pytest-probability repository.
"""

from __future__ import annotations

__version__ = "0.1.0"
