"""The judge's prompts (versioned) and the tolerant reading of its JSON replies.

Recall asks questions written from the expected text and answered from the given one;
precision swaps the texts. Answers are graded 0, 0.25, 0.5, 0.75 or 1. The version goes into
the cache key and the report, so a prompt change never reuses old judgements. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

#: bump on any change to the wording below
PROMPT_VERSION = "1"
GRADES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: the most questions one question set may hold: more is a runaway reply (the schema asks for
#: at most ``structured.MOST_QUESTIONS``), refused before an answer pass would send them all
MAX_QUESTIONS = 200

_QUESTIONS_SYSTEM = (
    "You turn a text into yes/no questions that check its facts. You answer with JSON only."
)
_QUESTIONS_USER = """\
Write yes/no questions that together cover every fact the text below states: one question \
per fact, each answerable from the text alone, each starting with "Does the text" (for \
example "Does the text say that the refund takes five days?"). Do not ask about anything the \
text does not state.

Reply with a JSON object and nothing else: {{"questions": ["Does the text ...?", ...]}}

Text:
<<<
{text}
>>>"""

_ANSWERS_SYSTEM = (
    "You check whether a text supports statements, using that text alone. "
    "You answer with JSON only."
)
_ANSWERS_USER = """\
Answer each question below from the text alone, with a score: 1 (yes, the text states it), \
0.75 (mostly), 0.5 (partly), 0.25 (barely), 0 (no: absent or contradicted).

Reply with a JSON object and nothing else, one answer per question in the same order: \
{{"answers": [{{"question": 1, "score": 1}}, ...]}}

Text:
<<<
{text}
>>>

Questions:
{questions}"""


class ReplyError(ValueError):
    """The judge's reply could not be read (not JSON, wrong shape, invalid scores)."""


def _chat(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def question_messages(text: str) -> list[dict[str, str]]:
    """The chat messages that ask for the questions covering ``text``'s facts."""
    return _chat(_QUESTIONS_SYSTEM, _QUESTIONS_USER.format(text=text))


def answer_messages(text: str, questions: Sequence[str]) -> list[dict[str, str]]:
    """The chat messages that ask for ``questions`` to be answered from ``text``."""
    numbered = "\n".join(f"{i}. {q}" for i, q in enumerate(questions, start=1))
    return _chat(_ANSWERS_SYSTEM, _ANSWERS_USER.format(text=text, questions=numbered))


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json(reply: str) -> Any:
    """The JSON value in a reply: as it is, inside a code fence, or the outermost ``{…}`` /
    ``[…]`` within surrounding prose. :class:`ReplyError` when there is none."""
    text = reply.strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for opening, closing in (("{", "}"), ("[", "]")):
        start, end = text.find(opening), text.rfind(closing)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):  # (deep nesting raises the latter)
            continue
    excerpt = text[:120] + ("…" if len(text) > 120 else "")
    raise ReplyError(f"the judge's reply is not JSON: {excerpt!r}")


def read_questions(reply: str) -> list[str]:
    """The questions of a question-writing reply (``{"questions": [...]}`` or a bare list),
    each once."""
    found = extract_json(reply)
    if isinstance(found, dict):
        found = found.get("questions")
    if not isinstance(found, list):
        raise ReplyError('expected {"questions": [...]} from the judge')
    if len(found) > MAX_QUESTIONS:
        raise ReplyError(f"{len(found):,} questions, more than the limit of {MAX_QUESTIONS}")
    questions = [q.strip() for q in found if isinstance(q, str) and q.strip()]
    if len(questions) != len(found):
        raise ReplyError("every question must be a non-empty string")
    # each once (compared by their words, ignoring case, spacing and punctuation), the first
    # kept: a question asked twice would count twice in the score
    first: dict[str, str] = {}
    for question in questions:
        first.setdefault(" ".join(re.findall(r"\w+", question.casefold())), question)
    return list(first.values())


def read_answers(reply: str, count: int) -> list[float]:
    """The graded answers of an answering reply, in the questions' order: exactly ``count``
    scores, each one of 0, 0.25, 0.5, 0.75, 1 (``{"answers": [{"question": i, "score": s},
    ...]}``, a list of numbers, or a list of such objects). Answer objects must number the
    questions asked, each once: an answer to a question never asked is not a score."""
    found = extract_json(reply)
    if isinstance(found, dict):
        found = found.get("answers", found.get("scores"))
    if not isinstance(found, list):
        raise ReplyError('expected {"answers": [...]} from the judge')
    scores = [_grade(item.get("score") if isinstance(item, dict) else item) for item in found]
    if len(scores) != count:
        raise ReplyError(f"expected {count} answers (one per question), got {len(scores)}")
    if not any(isinstance(item, dict) for item in found):
        return scores  # bare grades: in the questions' order
    numbers = _numbers(found, count)
    return [score for _, score in sorted(zip(numbers, scores, strict=True))]


def _grade(value: Any) -> float:
    """One answer's score as a grade; :class:`ReplyError` for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReplyError(f"an answer's score must be a number, got {value!r}")
    # compared, not subtracted: an integer too large for a float must not overflow
    grade = next((g for g in GRADES if g - 1e-9 < value < g + 1e-9), None)
    if grade is None:
        raise ReplyError(f"an answer's score must be one of 0, 0.25, 0.5, 0.75, 1, got {value!r}")
    return grade


def _numbers(found: list[Any], count: int) -> list[int]:
    """Each answer's question number: a whole number from 1 to ``count``, each once."""
    numbers: list[int] = []
    for item in found:
        number = item.get("question") if isinstance(item, dict) else None
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
            raise ReplyError(
                f"an answer's question must be the number of a question asked, 1 to {count}, "
                f"got {number!r}"
            )
        if number in numbers:
            raise ReplyError(f"question {number} is answered twice")
        numbers.append(number)
    return numbers
