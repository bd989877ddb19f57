"""SARIF 1.0.0 runs converted to the 2.1.0 shape that :mod:`gauntlet.ingest.sarif` reads.

The conversion covers what Gauntlet reads, as the SARIF SDK's 1.0.0 → 2.1.0
transformer maps it (https://docs.oasis-open.org/sarif/sarif/v2.1.0/ Appendix
"Changes from previous versions" lists the renames): ``tool.name`` becomes
``tool.driver.name``; the ``rules`` dictionary becomes ``driver.rules`` with
``defaultLevel`` as ``defaultConfiguration.level``; a result's string
``message`` (or its ``formattedRuleMessage`` with the rule's ``messageFormats``)
becomes ``message.text``; ``locations[].resultFile`` (else ``analysisTarget``)
becomes ``physicalLocation.artifactLocation`` + ``region``; the 1.0.0 levels
``pass`` and ``notApplicable`` become 2.1.0 kinds; ``suppressionStates`` become
``suppressions``. Anything else a 1.0.0 file holds is not read.
"""

from __future__ import annotations

from typing import Any

__all__ = ["convert_v1"]

_KIND_LEVELS = frozenset({"pass", "notApplicable"})


def convert_v1(run: dict[str, Any]) -> dict[str, Any]:
    """Return the 2.1.0-shaped equivalent of one SARIF 1.0.0 run."""
    tool = _dict(run.get("tool"))
    # 1.0.0's rules are a dictionary; a result names its entry by ruleKey (when two rules share an id,
    # as Roslyn writes them) or by ruleId. 2.1.0 names it by ruleIndex into driver.rules.
    keys = list(_dict(run.get("rules")))
    rules = [_rule(key, _dict(_dict(run.get("rules"))[key])) for key in keys]
    formats = {key: rule.pop("_formats") for key, rule in zip(keys, rules, strict=True)}
    index = {key: position for position, key in enumerate(keys)}
    bases = {
        key: {"uri": value} for key, value in _dict(run.get("originalUriBaseIds")).items() if isinstance(value, str)
    }
    return {
        "tool": {"driver": {"name": tool.get("name"), "rules": rules}},
        "originalUriBaseIds": bases,
        "results": [_result(_dict(r), formats, index) for r in _list(run.get("results"))],
    }


def _rule(key: str, rule: dict[str, Any]) -> dict[str, Any]:
    level = rule.get("defaultLevel") or _dict(rule.get("configuration")).get("defaultLevel")
    converted: dict[str, Any] = {"id": rule.get("id") if isinstance(rule.get("id"), str) else key}
    if isinstance(level, str):
        converted["defaultConfiguration"] = {"level": level}
    if isinstance(rule.get("properties"), dict):
        converted["properties"] = rule["properties"]
    converted["_formats"] = _dict(rule.get("messageFormats"))
    if isinstance(rule.get("shortDescription"), str):
        converted["shortDescription"] = {"text": rule["shortDescription"]}
    return converted


def _result(result: dict[str, Any], formats: dict[str, dict[str, Any]], index: dict[str, int]) -> dict[str, Any]:
    key = result.get("ruleKey") if result.get("ruleKey") in index else result.get("ruleId")
    converted: dict[str, Any] = {"ruleId": result.get("ruleId"), "message": {"text": _message(result, formats, key)}}
    if isinstance(key, str) and key in index:
        converted["ruleIndex"] = index[key]
    level = result.get("level")
    if level in _KIND_LEVELS:
        converted["kind"] = level
    elif isinstance(level, str):
        converted["level"] = level
    location = next(iter(_list(result.get("locations"))), None)
    physical = _dict(_dict(location).get("resultFile")) or _dict(_dict(location).get("analysisTarget"))
    if physical:
        region = dict(_dict(physical.get("region")))
        if isinstance(result.get("snippet"), str):
            region["snippet"] = {"text": result["snippet"]}
        artifact = {"uri": physical.get("uri"), "uriBaseId": physical.get("uriBaseId")}
        converted["locations"] = [{"physicalLocation": {"artifactLocation": artifact, "region": region}}]
    if _list(result.get("suppressionStates")):
        converted["suppressions"] = [{"kind": "inSource"}]
    if isinstance(result.get("baselineState"), str):
        converted["baselineState"] = result["baselineState"]
    if isinstance(result.get("properties"), dict):
        converted["properties"] = result["properties"]
    return converted


def _message(result: dict[str, Any], formats: dict[str, dict[str, Any]], key: Any) -> str | None:
    if isinstance(result.get("message"), str) and result["message"]:
        return str(result["message"])
    formatted = _dict(result.get("formattedRuleMessage"))
    template = formats.get(str(key), {}).get(str(formatted.get("formatId")))
    if not isinstance(template, str):
        return None
    arguments = [str(a) for a in _list(formatted.get("arguments"))]
    for index, argument in enumerate(arguments):
        template = template.replace("{" + str(index) + "}", argument)
    return template


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
