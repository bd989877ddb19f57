"""Response shapes from GitHub's own OpenAPI description.

Handlers write the fields that carry meaning (numbers, shas, states, URLs); ``complete`` then adds every other
field the operation's response schema requires, with a neutral value of the right type (``null`` where the schema
allows it). So a response always has the shape real clients (githubkit's pydantic models, PyGithub) expect, and the
schema, not a copied example, decides it (the description's examples are not all schema-valid).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

SPEC_RESOURCE = "api.github.com.trimmed.json"
_NEUTRAL_DATE = "1970-01-01T00:00:00Z"


@cache
def spec() -> dict[str, Any]:
    """The trimmed OpenAPI description shipped with the sandbox."""
    text = resources.files("gauntlet.sandbox.openapi").joinpath(SPEC_RESOURCE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow ``$ref`` (always local, ``#/components/...``) until a concrete node."""
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def response_schema(method: str, template: str, status: int) -> dict[str, Any] | None:
    """The JSON schema of an operation's response for ``status``, or ``None`` when it has none."""
    operation = spec()["paths"].get(template, {}).get(method.lower())
    if operation is None:
        return None
    response = operation["responses"].get(str(status))
    if response is None:
        return None
    response = resolve(response)
    for media, content in response.get("content", {}).items():
        if "json" in media and "schema" in content:
            schema: dict[str, Any] = content["schema"]
            return schema
    return None


def complete(method: str, template: str, status: int, body: Any, base: str) -> Any:
    """Add the required fields the response schema asks for and the handler left out.

    :param base: the sandbox's own ``scheme://host:port``, used for required URLs nobody set.
    """
    schema = response_schema(method, template, status)
    if schema is None:
        return body
    return fill(schema, body, base)


def fill(schema: dict[str, Any], value: Any, base: str) -> Any:
    """Complete ``value`` against ``schema`` (recursively through objects, arrays and compositions)."""
    schema = resolve(schema)
    if "allOf" in schema:
        for part in schema["allOf"]:
            value = fill(part, value, base)
        return value
    for key in ("oneOf", "anyOf"):
        if key in schema:
            if value is None and schema.get("nullable"):
                return None
            return fill(_pick_branch(schema[key], value), value, base)
    if value is None:
        return None
    kind = schema.get("type")
    if kind == "array" and isinstance(value, list) and "items" in schema:
        return [fill(schema["items"], item, base) for item in value]
    if kind == "object" or "properties" in schema:
        if not isinstance(value, dict):
            return value
        properties: dict[str, Any] = schema.get("properties", {})
        result = dict(value)
        for name in schema.get("required", []):
            if name not in result and name in properties:
                result[name] = neutral(properties[name], base, name)
        for name, sub in properties.items():
            if name in result and isinstance(result[name], dict | list):
                result[name] = fill(sub, result[name], base)
        return result
    return value


def neutral(schema: dict[str, Any], base: str, name: str = "") -> Any:
    """A valid, meaningless value for a required field nobody set."""
    schema = resolve(schema)
    if schema.get("nullable"):
        return None
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = neutral(part, base, name)
            if isinstance(value, dict):
                merged.update(value)
        return fill(schema, merged, base)
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return neutral(schema[key][0], base, name)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return fill(schema, {}, base)
    if kind == "array":
        return []
    if kind in {"integer", "number"}:
        return 0
    if kind == "boolean":
        return False
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "date-time":
            return _NEUTRAL_DATE
        if fmt == "uri" or name.endswith("url") or name == "href":
            return f"{base}/"
        if fmt == "email":
            return "noreply@example.com"
        return ""
    return None


def _pick_branch(branches: list[dict[str, Any]], value: Any) -> dict[str, Any]:
    """The composition branch that fits ``value`` best: right JSON type, then most required keys present."""

    def score(branch: dict[str, Any]) -> tuple[int, int]:
        node = resolve(branch)
        kind = node.get("type")
        if isinstance(value, list):
            return (1 if kind == "array" else 0, 0)
        if isinstance(value, dict):
            if kind not in (None, "object"):
                return (0, 0)
            required = node.get("required", [])
            props = node.get("properties", {})
            enum_ok = all(value[k] in resolve(p).get("enum", [value[k]]) for k, p in props.items() if k in value)
            present = sum(1 for k in required if k in value)
            return (2 if enum_ok else 1, present * 1000 - len(required))
        return (1 if kind not in ("object", "array") else 0, 0)

    return max(branches, key=score)
