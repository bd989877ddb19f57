"""Checking sandbox responses against GitHub's OpenAPI description (used by the contract tests).

Every JSON response the sandbox gives is validated against its operation's response schema with
``openapi-schema-validator``'s ``OAS30Validator`` (which understands ``nullable``). Needs the ``dev`` extra.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gauntlet.sandbox import shapes
from gauntlet.sandbox.http import GRAPHQL_PATH


@dataclass(frozen=True, kw_only=True)
class Mismatch:
    """A response that does not match the description."""

    method: str
    template: str
    status: int
    errors: tuple[str, ...]


@dataclass
class ContractRecorder:
    """An app observer that validates each JSON response and keeps mismatches and the operations seen."""

    mismatches: list[Mismatch] = field(default_factory=list)
    seen: set[tuple[str, str, int]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, method: str, template: str, status: int, body: Any) -> None:
        """Validate one response (the ``Observer`` signature); GraphQL has no OpenAPI operation to check against."""
        if template == GRAPHQL_PATH:
            return
        errors = validate(method, template, status, body)
        with self._lock:
            self.seen.add((method, template, status))
            if errors:
                self.mismatches.append(Mismatch(method=method, template=template, status=status, errors=errors))


def _null_aware(node: Any) -> Any:
    """Spell out what ``nullable: true`` means where the validator would miss it.

    GitHub's description marks fields like ``issue.state_reason`` (an ``enum``) and ``commit.author`` (a
    ``oneOf``) ``nullable`` and real GitHub sends ``null`` for them, but a validator checks ``enum`` and
    ``oneOf`` on their own and rejects the ``null``. So ``null`` is added to such enums and offered as its own
    branch of such compositions.
    """
    if isinstance(node, list):
        return [_null_aware(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _null_aware(value) for key, value in node.items()}
    if "oneOf" in out:
        # The description uses oneOf for branches that overlap (an error body is both a basic-error and a
        # rule-violation error; a directory listing matches the untyped file schemas too) and leaves the choice
        # to a discriminator the validator does not implement: "valid under at least one" is what it means.
        out["anyOf"] = out.pop("oneOf")
        # The validator's discriminator support cannot map a list (GitHub maps directory listings as "array").
        out.pop("discriminator", None)
    if out.get("nullable") is True:
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "anyOf" in out:
            out["anyOf"] = [{"enum": [None]}, *out["anyOf"]]
        if "allOf" in out:
            out = {"anyOf": [{"enum": [None]}, {k: v for k, v in out.items() if k != "nullable"}]}
    return out


@cache
def _components() -> dict[str, Any]:
    components: dict[str, Any] = _null_aware(shapes.spec()["components"])
    return components


def _inline(node: Any, stack: tuple[str, ...]) -> Any:
    """``node`` with every ``$ref`` replaced by its (null-aware) target, except refs back into ``stack``."""
    if isinstance(node, list):
        return [_inline(item, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in stack:
            return node
        target: Any = {"components": _components()}
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        return _inline(target, (*stack, ref))
    return {key: _inline(value, stack) for key, value in node.items()}


_validators: dict[tuple[str, str, int], Any] = {}
_validators_lock = threading.Lock()


def _validator(method: str, template: str, status: int) -> Any:
    from openapi_schema_validator import OAS30Validator, oas30_format_checker

    key = (method, template, status)
    with _validators_lock:
        if key not in _validators:
            schema = shapes.response_schema(method, template, status)
            if schema is None:
                _validators[key] = None
            else:
                # Local "#/components/..." refs resolve against the root document, so carry the components along.
                # Refs are inlined up front (the validator resolving each one on every response is what made
                # validation slow); a recursive ref stays a ref and resolves against the carried components.
                rooted = {"allOf": [_inline(_null_aware(schema), ())], "components": _components()}
                _validators[key] = OAS30Validator(rooted, format_checker=oas30_format_checker)
        return _validators[key]


def documented(method: str, template: str, status: int) -> bool:
    """True when the description lists ``status`` for the operation."""
    operation = shapes.spec()["paths"].get(template, {}).get(method.lower(), {})
    return str(status) in operation.get("responses", {})


def validate(method: str, template: str, status: int, body: Any) -> tuple[str, ...]:
    """Schema errors of one response (empty when it conforms).

    A success status the description does not list is itself an error; undocumented error statuses (injected
    faults, for instance) are not checked. A bodiless 304 answers any ``GET`` that carried a matching
    ``If-None-Match`` (HTTP's conditional request, RFC 9110 §13.1.2), listed by the description or not: GitHub
    answers it on its list endpoints too.
    """
    if template not in shapes.spec()["paths"]:
        return (f"{method} {template} is not in the trimmed description",)
    if status == 304 and method == "GET":
        return () if body is None else ("status 304 has a body",)
    if not documented(method, template, status):
        return (f"status {status} is not documented",) if status < 400 else ()
    validator = _validator(method, template, status)
    if validator is None:
        # Some documented errors have no schema although GitHub sends its usual error body with them.
        return () if body is None or status >= 400 else (f"status {status} has no body in the description",)
    if body is None:
        return (f"status {status} needs a JSON body",)
    return tuple(_describe(error) for error in validator.iter_errors(body))


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "<root>"
    if error.context:
        # For oneOf/anyOf the useful words are in the branches' own errors.
        inner = "; ".join(f"{'/'.join(str(p) for p in c.absolute_path)}: {c.message[:160]}" for c in error.context[:6])
        return f"{where}: {error.validator} failed ({inner})"
    if error.validator in ("oneOf", "anyOf"):
        return f"{where}: {error.validator} failed: valid under more than one branch or a discriminator"
    return f"{where}: {error.message[:300]}"
