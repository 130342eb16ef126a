"""A toy, offline "language model" classifier for the demo suite.

It behaves like a model behind an API: the same input does not always get the same answer,
some inputs are hard, and now and then a call times out. Nothing here touches the network;
the randomness comes from the ``seed`` the caller passes, so a run can be replayed exactly.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass

LABELS = ("question", "pii", "billing", "account", "other")

#: Chance of the right answer per input and prompt style. Inputs not listed are easy (1.0).
_RELIABILITY = {
    ("my ssn is 078-05-1120", "terse"): 0.7,
    ("my card was charged twice", "terse"): 0.75,
    ("my card was charged twice", "chain_of_thought"): 0.995,
    ("i forgot my password and the reset link expired", "terse"): 0.8,
    ("i forgot my password and the reset link expired", "chain_of_thought"): 0.995,
}
#: Inputs long enough that the call sometimes times out.
_TIMEOUT_RATE = {"please summarise the attached 80-page contract": 0.3}


@dataclass
class Response:
    """What the toy model returns: its label and which model answered."""

    answer: str
    model: str


def classify(text: str, *, seed: str, style: str = "terse") -> Response:
    """Label ``text`` as one of :data:`LABELS`.

    ``seed`` fixes the randomness of this call (same seed, same answer); ``style`` is the
    prompt: ``"terse"`` answers straight away, ``"chain_of_thought"`` reasons first, which is
    slower (and runs on the larger model) but more reliable on hard inputs.
    """
    if style not in ("terse", "chain_of_thought"):
        raise ValueError(f"unknown prompt style {style!r}")
    rng = random.Random(seed)  # a str seed hashes the same in every process and version
    thinking = style == "chain_of_thought"
    time.sleep(rng.uniform(0.0005, 0.002) * (3 if thinking else 1))  # "network" latency
    if rng.random() < _TIMEOUT_RATE.get(text, 0.0):
        raise TimeoutError("model did not answer within 30s")
    right = rng.random() < _RELIABILITY.get((text, style), 1.0)
    answer = _true_label(text) if right else "other"
    return Response(answer=answer, model="toy-large" if thinking else "toy-small")


def _true_label(text: str) -> str:
    """What a perfect model would say — except for phone numbers, which the toy never
    recognises as personal data (a systematic blind spot, not bad luck)."""
    if re.search(r"\b\d{3}-\d{2}-\d{4}\b", text):
        return "pii"
    if "charged" in text or "refund" in text:
        return "billing"
    if "password" in text or "log in" in text:
        return "account"
    if text.rstrip().endswith("?"):
        return "question"
    return "other"
