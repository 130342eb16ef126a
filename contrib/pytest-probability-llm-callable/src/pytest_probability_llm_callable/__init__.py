"""pytest-probability-llm-callable: a ``texts_*`` judge backend that calls your own function.

A third-party pytest-probability extension, loaded from the ``pytest_probability.extensions``
entry-point group as ``probability.llm-callable``. With the ini options ``texts_backend =
callable`` and ``texts_callable = package.module:function``, every judge call of the
``texts_*`` helpers goes to ``function(messages, json_mode)``, which returns the reply text
(a ``str``), a ``dict`` with ``"text"`` and optional usage, or an object with ``.text``.
"""

from __future__ import annotations

__version__ = "0.1.0"
