"""The OpenAPI 3.1 description of the kgqa service, with the limits of the running settings.

``tests/test_server.py`` checks that every route of the Flask app is documented here and vice versa.
"""

from __future__ import annotations

from typing import Any

from kgqa.settings import Settings


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _ok(description: str, ref: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


def _json_body(ref: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


def openapi_spec(settings: Settings | None = None, domains: list[str] | None = None) -> dict[str, Any]:
    """Returns the OpenAPI document; ``settings`` fills in the question and batch limits, ``domains`` the
    registered domains as examples."""
    s = settings or Settings()
    bad_input = ("Bad input: missing, empty or non-string question, non-string or unknown domain, "
                 "body that is not UTF-8, not JSON, or not a JSON object")
    post_errors = {
        "400": _error(bad_input),
        "413": _error(f"Question over {s.max_question_chars} characters, or request body too large"),
        "415": _error("Content-Type is not application/json"),
        "500": _error("Internal error (generic message, no details)"),
    }
    busy = _error(f"Server busy: a heavy request (a batch, a question of {s.compute_heavy_chars}+ characters) "
                  "found no compute slot in time; retry after the Retry-After header's seconds")
    question_obj = {
        "type": "object", "required": ["question"], "additionalProperties": True,
        "properties": {
            "question": {"type": "string", "minLength": 1, "maxLength": s.max_question_chars,
                         "example": "Who directed The Matrix?"},
            "domain": {"type": ["string", "null"], "description": "a loaded domain; omit, null, '' or 'auto' "
                       "to let the router choose", "examples": list(domains or [])},
        },
    }
    result = {
        "type": "object",
        "description": "kgqa.types.Result: the answer with its evidence, timings and cache flags",
        "required": ["question", "status", "answer", "cache", "timings_ms"],
        "properties": {
            "question": {"type": "string"},
            "domain": {"type": ["string", "null"]},
            "status": {"type": "string", "enum": ["answered", "dont_know", "error", "refused"]},
            "answer": {"type": "string"},
            "cypher": {"type": ["string", "null"], "description": "the executed query, parameters inlined "
                                                                  "(runs as is, same rows)"},
            "cypher_run": {"type": ["string", "null"], "description": "the query text exactly as executed"},
            "params": {"type": "object", "description": "the parameters bound to cypher_run"},
            "columns": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": {"type": "array", "items": {}}},
            "isr": {"type": ["object", "null"], "description": "intermediate semantic representation"},
            "candidates": {"type": "array", "items": {"type": "object"}, "description": "linked entities"},
            "attempts": {"type": "array", "items": {"type": "object"}},
            "subgraph": {"type": ["object", "null"], "properties": {
                "nodes": {"type": "object", "additionalProperties": {"type": "object"}},
                "edges": {"type": "array", "items": {"type": "object"}}}},
            "evidence": {"type": "string", "enum": ["rows", "subgraph", "vector-memory", "none"]},
            "operators": {"type": "array", "items": {"type": "string"}},
            "timings_ms": {"type": "object", "additionalProperties": {"type": "number"},
                           "description": "milliseconds per pipeline stage"},
            "cache": {"type": "object", "properties": {
                "answer_hit": {"type": "boolean"}, "plan_hit": {"type": "boolean"},
                "llm_calls": {"type": "integer"},
                "exemplar_rels": {"type": "array", "items": {"type": "string"},
                                  "description": "relationship types voted by the plan cache's MMR exemplars"},
                "rows_pruned": {"type": "boolean",
                                "description": "answer-cache hit whose rows were cut to the cache's first N"},
                "semantic_hit": {"type": "boolean",
                                 "description": "answer-cache hit on a similar (not identical) question"}}},
            "error": {"type": ["string", "null"]},
            "kg_version": {"type": ["string", "null"]},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "kgqa", "version": "1.0.0",
                 "description": "Question answering over knowledge graphs (CacheRAG on Kuzu). All errors are "
                                "JSON objects {\"error\": \"...\"}."},
        "paths": {
            "/": {"get": {"summary": "Web chat page", "operationId": "index",
                          "responses": {"200": {"description": "HTML page",
                                                "content": {"text/html": {"schema": {"type": "string"}}}}}}},
            "/static/{filename}": {"get": {
                "summary": "Static assets of the chat page (JS, CSS)", "operationId": "static",
                "parameters": [{"name": "filename", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the file"}, "404": _error("No such file")}}},
            "/ask": {"post": {
                "summary": "Answer one question", "operationId": "ask",
                "requestBody": _json_body("Question"),
                "responses": {"200": _ok("The result (also for dont_know, refused and error statuses)", "Result"),
                              **post_errors, "503": busy}}},
            "/ask/batch": {"post": {
                "summary": f"Answer up to {s.max_batch} questions in order", "operationId": "askBatch",
                "requestBody": _json_body("Batch"),
                "responses": {"200": _ok("One result per question, in order", "BatchResults"),
                              **post_errors,
                              "400": _error(bad_input + "; 'questions' missing, not an array or empty; the "
                                            "message names the offending item as questions[i]"),
                              "413": _error(f"More than {s.max_batch} questions, a question over "
                                            f"{s.max_question_chars} characters, or body too large"),
                              "503": busy}}},
            "/feedback": {"post": {
                "summary": "Thumbs up or down on an answer the service gave; touches only the caches",
                "description": "The answer is looked up in the answer cache (question, domain, KG version), "
                               "never taken from the client. up: its Cypher is stored in the plan cache as a "
                               "verified plan with provenance 'user'. down: the plans that produced it are "
                               "demoted (never reused as templates or exemplars) and the answer is forgotten. "
                               "Without the operator's token (Authorization: Bearer) a thumbs down is only recorded "
                               "(202) until enough distinct clients agree, and a thumbs up never revives a demoted "
                               "plan.",
                "operationId": "feedback",
                "requestBody": _json_body("Feedback"),
                "responses": {"200": _ok("What the vote did", "FeedbackResult"),
                              "202": {"description": "The vote is recorded and applies to no one else yet: "
                                                     "{vote, action: 'recorded', applied: false, clients, quorum, "
                                                     "message}"},
                              **post_errors,
                              "400": _error(bad_input + "; 'vote' missing or not 'up'/'down'; 'cypher' not a "
                                            "string"),
                              "404": _error("The service holds no answer to this question (never asked, evicted, "
                                            "or made on an older graph): ask it first"),
                              "409": _error("The vote does not apply: the answer's Cypher differs from the "
                                            "'cypher' sent, or (up) the answer was not computed by a query"),
                              "429": _error("More votes from this client than the rate limit allows (Retry-After)")}}},
            "/health": {"get": {"summary": "Liveness and loaded graphs", "operationId": "health",
                                "responses": {"200": _ok("Service status", "Health")}}},
            "/domains": {"get": {"summary": "Registered knowledge graphs with a schema summary (the registry is "
                                            "re-read first)",
                                 "operationId": "domains", "responses": {"200": _ok("Domains", "Domains")}}},
            "/domains/reload": {"post": {"summary": "Re-read the domain registry: open graphs loaded since, re-open "
                                                   "rebuilt ones, close removed ones (also on SIGHUP)",
                                         "operationId": "reloadDomains",
                                         "responses": {"200": {"description": "{added, updated, removed}"},
                                                       "401": _error("No or a wrong operator token (Authorization: "
                                                                     "Bearer)"),
                                                       "403": _error("Off: the server has no KGQA_ADMIN_TOKEN")}}},
            "/cache/stats": {"get": {"summary": "Plan cache and answer cache statistics",
                                     "operationId": "cacheStats",
                                     "responses": {"200": _ok("Cache statistics", "CacheStats")}}},
            "/metrics": {"get": {"summary": "Prometheus metrics (text format 0.0.4)", "operationId": "metrics",
                                 "responses": {"200": {"description": "Prometheus exposition text",
                                                       "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "operationId": "openapi",
                                      "responses": {"200": {"description": "OpenAPI 3.1 document",
                                                            "content": {"application/json": {
                                                                "schema": {"type": "object"}}}}}}},
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
            "Question": question_obj,
            "Batch": {"type": "object", "required": ["questions"], "properties": {"questions": {
                "type": "array", "minItems": 1, "maxItems": s.max_batch,
                "items": {"oneOf": [{"type": "string", "minLength": 1, "maxLength": s.max_question_chars},
                                    {"$ref": "#/components/schemas/Question"}]}}}},
            "Result": result,
            "Feedback": {
                "type": "object", "required": ["question", "vote"], "additionalProperties": True,
                "properties": {
                    **question_obj["properties"],
                    "domain": {"type": ["string", "null"], "description": "the domain that answered (the "
                               "result's 'domain'); omit to look in every domain", "examples": list(domains or [])},
                    "vote": {"type": "string", "enum": ["up", "down"]},
                    "cypher": {"type": "string", "description": "optional: the Cypher shown with the answer; "
                               "only compared with the stored answer's (409 when it differs), never run"},
                }},
            "FeedbackResult": {"type": "object", "required": ["vote", "action", "plans", "message"], "properties": {
                "vote": {"type": "string", "enum": ["up", "down"]},
                "question": {"type": "string"}, "domain": {"type": "string"}, "kg_version": {"type": "string"},
                "action": {"type": "string", "enum": ["verified", "demoted"]},
                "cypher": {"type": ["string", "null"], "description": "the answer's Cypher the vote applied to"},
                "plans": {"type": "array", "description": "plan-cache entries stored (up) or demoted (down)",
                          "items": {"type": "object", "properties": {
                              "id": {"type": "integer"}, "question": {"type": "string"},
                              "provenance": {"type": "string", "enum": ["prewarm", "online", "user"]},
                              "demoted": {"type": "boolean"}}}},
                "answer_forgotten": {"type": "boolean", "description": "down: the cached answer was dropped"},
                "message": {"type": "string"}}},
            "BatchResults": {"type": "object", "required": ["results"], "properties": {
                "results": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}}}},
            "Health": {"type": "object", "required": ["status", "domains"], "properties": {
                "status": {"type": "string", "enum": ["ok"]},
                "uptime_s": {"type": "number"},
                "llm_loaded": {"type": "boolean"},
                "domains": {"type": "object", "additionalProperties": {
                    "type": "object", "properties": {"kg_version": {"type": "string"}}}}}},
            "Domains": {"type": "object", "required": ["domains"], "properties": {"domains": {
                "type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "description": {"type": "string"},
                    "kg_version": {"type": "string"},
                    "nodes": {"type": "array", "items": {"type": "object", "properties": {
                        "label": {"type": "string"}, "key": {"type": ["string", "null"]},
                        "display": {"type": ["string", "null"]},
                        "properties": {"type": "object", "additionalProperties": {"type": "string"}}}}},
                    "relationships": {"type": "array", "items": {"type": "object", "properties": {
                        "type": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"}}}},
                }}}}},
            "CacheStats": {"type": "object", "properties": {
                "plan_cache": {"type": ["object", "null"]}, "answer_cache": {"type": ["object", "null"]}}},
        }},
    }
