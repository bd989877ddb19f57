"""Checking request bodies against the operation's ``requestBody`` schema before any handler runs.

GitHub refuses a badly typed body with 422 "Invalid request. For 'properties/labels', 5 is not an array." before
it acts; so does the sandbox, from the same description. Only JSON types, ``nullable`` and ``enum`` are checked
(missing fields are each handler's business, with GitHub's own messages).
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox import shapes

_MAX_DEPTH = 6
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def request_schema(method: str, template: str) -> dict[str, Any] | None:
    """The JSON schema of an operation's request body, or ``None``."""
    operation = shapes.spec()["paths"].get(template, {}).get(method.lower())
    if operation is None or "requestBody" not in operation:
        return None
    content = shapes.resolve(operation["requestBody"]).get("content", {})
    for media, entry in content.items():
        if "json" in media and "schema" in entry:
            schema: dict[str, Any] = entry["schema"]
            return schema
    return None


def problem(method: str, template: str, body: Any) -> str | None:
    """Why ``body`` does not fit the operation's request schema (GitHub's wording), or ``None`` when it does.

    A top-level list is let through: GitHub takes a bare list of labels although the description says object.
    """
    schema = request_schema(method, template)
    if schema is None or isinstance(body, list):
        return None
    return _check(schema, body, "", 0)


def _check(schema: dict[str, Any], value: Any, where: str, depth: int) -> str | None:
    schema = shapes.resolve(schema)
    if depth > _MAX_DEPTH:
        return None
    if value is None:
        return (
            None
            if schema.get("nullable") or not schema.get("type")
            else f"For '{where or 'body'}', nil is not a {schema['type']}."
        )
    for key in ("oneOf", "anyOf"):
        if key in schema:
            if any(_check(branch, value, where, depth + 1) is None for branch in schema[key]):
                return None
            return f"For '{where or 'body'}', {value!r} is not a valid value."
    for part in schema.get("allOf", []):
        found = _check(part, value, where, depth + 1)
        if found:
            return found
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        wrong_bool = isinstance(value, bool) and kind in ("integer", "number")
        if not isinstance(value, _TYPES[kind]) or wrong_bool:
            return f"For '{where or 'body'}', {value!r} is not {'an' if kind[0] in 'aeiou' else 'a'} {kind}."
    if "enum" in schema and value not in schema["enum"]:
        return f"For '{where or 'body'}', {value!r} is not a possible value."
    if isinstance(value, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                found = _check(sub, value[name], f"{where}/{name}".lstrip("/"), depth + 1)
                if found:
                    return found
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found = _check(schema["items"], item, f"{where}/{index}", depth + 1)
            if found:
                return found
    return None
