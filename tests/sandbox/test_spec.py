"""The trimmed OpenAPI description: standalone, exactly the served operations, and how it was made."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from gauntlet.sandbox import shapes

ROOT = Path(__file__).resolve().parents[2]


def load_trim() -> ModuleType:
    """``scripts/openapi/trim.py`` as a module."""
    spec = importlib.util.spec_from_file_location("trim_openapi", ROOT / "scripts" / "openapi" / "trim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def refs(node: Any) -> set[str]:
    """Every ``$ref`` under ``node``."""
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(refs(v) for v in node))
    return set()


def test_every_ref_resolves_inside_the_file() -> None:
    document = shapes.spec()
    for ref in refs(document):
        assert ref.startswith("#/components/")
        _, _, kind, name = ref.split("/", 3)
        assert name in document["components"][kind], ref


def test_the_file_holds_exactly_the_operations_the_script_lists() -> None:
    trim = load_trim()
    listed = {tuple(op.split(" ", 1)) for op in trim.OPERATIONS}
    present = {(m.upper(), t) for t, item in shapes.spec()["paths"].items() for m in item}
    assert present == listed
    assert f"{trim.PACKAGE}@{trim.VERSION}" in shapes.spec()["x-source"]


def test_trim_keeps_reachable_components_and_drops_examples() -> None:
    trim = load_trim()
    user = {"type": "object", "properties": {"description": {"type": "string"}}, "example": {"x": 1}}
    response = {
        "summary": "s",
        "responses": {
            "200": {
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/user"}, "examples": {"a": {}}}
                }
            }
        },
    }
    paths: dict[str, dict[str, Any]] = {}
    for operation in trim.OPERATIONS:
        method, template = operation.split(" ", 1)
        paths.setdefault(template, {})[method.lower()] = response
    description = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": paths,
        "components": {"schemas": {"user": user, "unused": {"type": "string"}}},
    }
    out = trim.trim(json.loads(json.dumps(description)))
    assert set(out["components"]["schemas"]) == {"user"}
    assert out["components"]["schemas"]["user"] == {"type": "object", "properties": {"description": {"type": "string"}}}
    first = next(iter(out["paths"].values()))
    assert "examples" not in json.dumps(first) and "summary" not in next(iter(first.values()))


def test_required_fields_come_from_the_schema() -> None:
    schema = shapes.response_schema("GET", "/repos/{owner}/{repo}/issues/{issue_number}", 200)
    assert schema is not None
    filled = shapes.complete("GET", "/repos/{owner}/{repo}/issues/{issue_number}", 200, {"number": 7}, "http://h:1")
    required = shapes.resolve(schema)["required"]
    assert set(required) <= set(filled) and filled["number"] == 7
    assert filled["url"].startswith("http://h:1")
