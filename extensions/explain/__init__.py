"""The ``explain`` extension: ``--prob-explain`` reads the results in plain words (what the
numbers say, what they assume, what to do next) with a glossary of the terms used. Every
extension, bundled or not, contributes its readings through ``pytest_prob_explain``.

PYTEST_DONT_REWRITE
"""

from pytest_probability.api import Reading

__all__ = ["Reading"]
