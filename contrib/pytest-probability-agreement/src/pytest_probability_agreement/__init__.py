"""pytest-probability-agreement: how often a case's runs agree with each other.

A third-party pytest-probability extension, loaded from the ``pytest_probability.extensions``
entry-point group as ``probability.agreement``. It registers the metric ``agreement`` and the
family ``agree@K`` with the bundled ``metrics`` extension, so ``--prob-metric=agreement``
reports them per function and Overall like ``pass^K``.
"""

from __future__ import annotations

__version__ = "0.1.0"
