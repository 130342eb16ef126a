"""pytest-probability-price-table: price recorded token usage from a TOML price table.

A third-party pytest-probability extension, loaded from the ``pytest_probability.extensions``
entry-point group as ``probability.price-table``. ``--prob-price-table=PATH`` (or ini
``prob_price_table``) names a TOML file of per-model prices; usage recorded with
``record_usage(...)`` without a ``cost`` is priced from it through the cost extension's
``pytest_prob_price_usage`` hook.
"""

from __future__ import annotations

__version__ = "0.1.0"
