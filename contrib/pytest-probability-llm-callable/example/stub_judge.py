"""A stand-in judge for the example: no model, just keywords.

It asks one yes/no question per keyword a text mentions ("refund", "days", "call") and
answers one with 1 when the other text mentions that keyword too, else 0. Replace it with a
function that calls a real model (see the README).
"""

from __future__ import annotations

import json
from typing import Any

KEYWORDS = ("refund", "days", "call")


def ask(messages: list[dict[str, str]], json_mode: bool) -> dict[str, Any]:
    """Answer one judge call: a question set or an answer pass, as JSON."""
    prompt = messages[-1]["content"]
    text = prompt.split("<<<")[1].split(">>>")[0].lower()
    if "Questions:" in prompt:
        questions = [q for q in prompt.split("Questions:")[1].splitlines() if q.strip()]
        scores = [1 if q.rsplit(" ", 1)[-1].rstrip("?") in text else 0 for q in questions]
        reply = {"answers": [{"question": i + 1, "score": s} for i, s in enumerate(scores)]}
    else:
        words = [word for word in KEYWORDS if word in text] or ["nothing"]
        reply = {"questions": [f"Does the text mention {word}?" for word in words]}
    return {
        "text": json.dumps(reply),
        "model": "stub-judge",
        "input_tokens": 250,
        "output_tokens": 30,
    }
