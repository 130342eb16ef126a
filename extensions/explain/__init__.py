"""The ``explain`` extension: ``--prob-explain`` reads the results in plain words (what the
numbers say, what they assume, what to do next) with a glossary of the terms used. Every
extension, bundled or not, contributes its readings through ``pytest_prob_explain``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_probability.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_probability.api import Reading

#: where each public name lives, imported on first use: a session that builds no report need
#: not import the readings and their glossary
__getattr__, __dir__ = lazy_exports(__name__, {"Reading": "pytest_probability.readings"})

__all__ = ["Reading"]
