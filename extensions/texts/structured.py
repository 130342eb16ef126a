"""Structured output: the exact shape of each judge reply, and how strongly to ask for it.

Three levels, best first (``texts_json_mode``):

``schema``
    ``"response_format": {"type": "json_schema", "json_schema": {..., "strict": true}}``:
    the server constrains the reply to the shape (OpenAI, Azure OpenAI, llama.cpp, vLLM and
    Ollama do). A small model then cannot answer in prose or give four answers to five
    questions.
``object``
    ``"response_format": {"type": "json_object"}``: any JSON object.
``text``
    no ``response_format``; the reply is read tolerantly (code fences, prose around it).

A server that refuses a level (HTTP 400 or 422 while it was asked for) is asked again one
level down, and the client remembers the level that worked for the rest of the
session. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LEVELS = ("schema", "object", "text")
#: ``texts_json_mode`` words for each level (booleans: true is the best level)
_WORDS = {
    **dict.fromkeys(("schema", "json_schema", "true", "yes", "on", "1"), "schema"),
    **dict.fromkeys(("object", "json_object"), "object"),
    **dict.fromkeys(("text", "off", "false", "no", "0"), "text"),
}
GRADES = (0, 0.25, 0.5, 0.75, 1)
#: the most questions a question set's schema allows, and the fewest it caps at
MOST_QUESTIONS = 50
FEWEST_CAP = 5


def level_of(value: object) -> str | None:
    """The level a ``texts_json_mode`` value names (``True`` → schema, ``False`` → text),
    or ``None`` when it names none."""
    if isinstance(value, bool):
        return "schema" if value else "text"
    return _WORDS.get(str(value).strip().lower())


@dataclass(frozen=True)
class Shape:
    """What one judge call's reply must look like: a JSON schema (for ``json_schema``) and
    a one-line example (for the prompt's reminder on a retry)."""

    name: str
    schema: dict[str, Any]
    example: str

    def response_format(self, level: str) -> dict[str, Any] | None:
        """The request's ``response_format`` at ``level`` (``None`` for text)."""
        if level == "schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": self.name, "strict": True, "schema": self.schema},
            }
        if level == "object":
            return {"type": "json_object"}
        return None


def _closed(**properties: Any) -> dict[str, Any]:
    """A JSON object schema with exactly ``properties``, all required (as strict mode wants)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _array(items: dict[str, Any], least: int, most: int) -> dict[str, Any]:
    return {"type": "array", "items": items, "minItems": least, "maxItems": most}


def questions_shape(text: str) -> Shape:
    """``{"questions": [str, ...]}``: at least one question, and at most about one per three
    words of ``text`` (5 to 50), so a model that repeats itself is stopped by the schema."""
    most = min(MOST_QUESTIONS, max(FEWEST_CAP, len(text.split()) // 3))
    schema = _closed(questions=_array({"type": "string"}, 1, most))
    return Shape("questions", schema, '{"questions": ["Does the text ...?", ...]}')


def answers_shape(count: int) -> Shape:
    """``{"answers": [{"question": i, "score": s}, ...]}`` with exactly ``count`` answers,
    each score one of 0, 0.25, 0.5, 0.75, 1."""
    answer = _closed(question={"type": "integer"}, score={"type": "number", "enum": list(GRADES)})
    schema = _closed(answers=_array(answer, count, count))
    example = (
        f'{{"answers": [{{"question": 1, "score": 1}}, ...]}} with exactly {count} '
        f"answer{'s' if count != 1 else ''}, each score one of 0, 0.25, 0.5, 0.75, 1"
    )
    return Shape("answers", schema, example)
