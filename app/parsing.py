"""Request parsing for the JSON API: :class:`ClientError` and the checks of a body and its questions."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from kgqa.planner.pipeline import Pipeline
from kgqa.types import InputError


class ClientError(Exception):
    """A request the API refuses, with its HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a ClientError: 415 wrong type, 400 bad UTF-8 / JSON / shape."""
    if request.mimetype != "application/json":
        raise ClientError("Content-Type must be application/json", 415)
    raw = request.get_data(cache=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ClientError("request body is not valid UTF-8") from None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as err:
        raise ClientError(f"request body is not valid JSON ({err.msg} at line {err.lineno} "
                          f"column {err.colno})") from None
    except (ValueError, RecursionError) as err:  # a 5000-digit number, nesting deeper than the parser goes
        raise ClientError(f"request body is not valid JSON ({type(err).__name__})") from None
    if not isinstance(body, dict):
        raise ClientError("request body must be a JSON object")
    return body


def parse_question(pipeline: Pipeline, item: Any, where: str) -> tuple[str, str | None]:
    """Validate one question (and optional domain) -> (question, domain)."""
    if isinstance(item, dict):
        question, domain = item.get("question"), item.get("domain")
    else:
        question, domain = item, None
    if question is None:
        raise ClientError(f"{where}: 'question' is required")
    if not isinstance(question, str):
        raise ClientError(f"{where}: 'question' must be a string, not {json_type(question)}")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" in JSON decodes to a lone surrogate, which is not text
        raise ClientError(f"{where}: 'question' is not valid Unicode text") from None
    if domain is not None and not isinstance(domain, str):
        raise ClientError(f"{where}: 'domain' must be a string, not {json_type(domain)}")
    limit = pipeline.settings.max_question_chars
    if len(question) > limit:
        raise ClientError(f"{where}: question is longer than {limit} characters", 413)
    if domain in ("", "auto"):
        domain = None
    try:
        pipeline.validate(question, domain)
    except InputError as err:
        raise ClientError(f"{where}: {err}") from None
    return question, domain


def json_type(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", list: "array", dict: "object",
            type(None): "null"}.get(type(value), type(value).__name__)

