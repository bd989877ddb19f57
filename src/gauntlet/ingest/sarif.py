"""SARIF 2.1.0 (CodeQL, semgrep, ruff, eslint, bandit, ...): one finding per reported result.

Severity follows GitHub code scanning: a rule's ``security-severity`` puts the
result in a band (≥ 9.0 critical, ≥ 7.0 major, ≥ 4.0 minor, else nitpick);
otherwise the result's effective level (:func:`effective_level`, SARIF §3.27.10)
maps ``error/warning/note/none`` to ``major/minor/nitpick/nitpick``.
Results that are passes, absent from the baseline, or suppressed (unless the
suppression is ``rejected`` or ``underReview``, SARIF §3.35.3) are not findings.

Versions: 2.1.0 is the specification read here; 2.0.0 and the 2.2 drafts have
the same shape for everything read (2.0.0's ``tool.name``, ``fileLocation`` and
``resources.rules`` dictionary are taken for 2.1.0's ``tool.driver.name``,
``artifactLocation`` and driver rules); 1.0.0 is converted
(:mod:`gauntlet.ingest.sarif_v1`); any other version is refused with a message naming it.
https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import CappedList, load_json
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.sarif_v1 import convert_v1
from gauntlet.ingest.structured import Fingerprints, excerpt, kind_for_tool, logger, one_line, tool_name
from gauntlet.ingest.values import as_text, json_index, json_position
from gauntlet.models import Finding, Severity

__all__ = ["effective_level", "read_sarif", "security_band"]

_LEVELS: dict[str, Severity] = {"error": "major", "warning": "minor", "note": "nitpick", "none": "nitpick"}
_KEPT_SUPPRESSIONS = frozenset({"rejected", "underReview"})
_SKIPPED_KINDS = frozenset({"pass", "notApplicable"})
# Versions whose shape is 2.1.0's for what is read; the 2.2 drafts write "2.2" or "2.2.0".
_COMPATIBLE_VERSIONS = frozenset({"2.1.0", "2.0.0", "2.2", "2.2.0"})


def security_band(score: float) -> Severity:
    """Map a CVSS-like ``security-severity`` to a severity (GitHub's critical/high/medium/low bands)."""
    if score >= 9.0:
        return "critical"
    if score >= 7.0:
        return "major"
    if score >= 4.0:
        return "minor"
    return "nitpick"


def read_sarif(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failing result of every run.

    :param root: the repository's absolute path, to make absolute locations relative.
    :raises InputError: not JSON, not a SARIF log, or beyond the size limits.
    """
    max_items = max(4 * limits.max_findings, 10_000)
    document = load_json(stream, name, max_bytes=limits.max_document_bytes, max_items=max_items)
    runs = document.get("runs") if isinstance(document, dict) else None
    if not isinstance(runs, list):
        raise InputError(f'{name}: not a SARIF log (no "runs" array)')
    runs = _runs_of_version(document, runs, name)
    fingerprints = Fingerprints()
    emitted = 0
    for run in runs:
        if not isinstance(run, dict):
            continue
        results = run.get("results")
        if isinstance(results, CappedList) and results.dropped:
            logger.warning("%s: read the first %d results of a run, dropped %d", name, len(results), results.dropped)
        for finding in _run_findings(run, limits, root, fingerprints):
            yield finding
            emitted += 1
            if emitted >= limits.max_findings:
                logger.warning("%s: stopped after %d findings", name, emitted)
                return


def _runs_of_version(document: dict[str, Any], runs: list[Any], name: str) -> list[Any]:
    """The runs in 2.1.0's shape, or an error naming a version that has no defined reading."""
    version = document.get("version")
    if version is None or version in _COMPATIBLE_VERSIONS:
        return runs  # a missing version is read as 2.1.0, as GitHub code scanning does
    if version == "1.0.0":
        return [convert_v1(run) for run in runs if isinstance(run, dict)]
    shown = str(version)[:20]
    raise InputError(f"{name}: SARIF version {shown!r} is not read (2.1.0, 2.0.0 and 2.2 are; 1.0.0 is converted)")


def _run_findings(run: dict[str, Any], limits: Limits, root: str | None, fps: Fingerprints) -> Iterator[Finding]:
    driver = _dict(_dict(run.get("tool")).get("driver"))
    tool = tool_name(as_text(driver.get("name")) or as_text(_dict(run.get("tool")).get("name")))  # 2.0.0: tool.name
    rules = _Rules(run)
    locator = _Locator(run, root)
    for result in _list(run.get("results")):
        if isinstance(result, dict) and _is_failure(result):
            yield _to_finding(result, tool, rules, locator, limits, fps)


def effective_level(result: Mapping[str, Any], rule: Mapping[str, Any], override: str | None) -> str:
    """A result's level as SARIF 2.1.0 §3.27.10 defines it.

    :param result: the result object.
    :param rule: its rule's reportingDescriptor (``{}`` when unknown).
    :param override: the level an ``invocations[].ruleConfigurationOverrides`` entry (§3.20.5)
        sets for that rule, if any.
    """
    level = as_text(result.get("level"))
    if level is not None:
        return level
    kind = as_text(result.get("kind"))
    if kind is not None and kind != "fail":
        return "none"  # §3.27.9: a result that is not a failure (open, review, informational) has level none
    if override is not None:
        return override
    # §3.49.14 defaultConfiguration, its §3.50.3 level; absent everywhere, "warning" (§3.27.10).
    return as_text(_dict(rule.get("defaultConfiguration")).get("level")) or "warning"


def _is_failure(result: Mapping[str, Any]) -> bool:
    if result.get("kind") in _SKIPPED_KINDS or result.get("baselineState") == "absent":
        return False
    suppressions = _list(result.get("suppressions"))
    # An empty list means "no suppression"; a suppression without status is accepted (SARIF §3.34.3).
    return all(isinstance(s, dict) and s.get("status") in _KEPT_SUPPRESSIONS for s in suppressions)


def _to_finding(
    result: dict[str, Any], tool: str | None, rules: _Rules, locator: _Locator, limits: Limits, fps: Fingerprints
) -> Finding:
    rule = rules.find(result)
    rule_id = as_text(result.get("ruleId")) or as_text(rule.get("id")) or as_text(_dict(result.get("rule")).get("id"))
    level = effective_level(result, rule, rules.override(rule))
    properties = {**_dict(rule.get("properties")), **_dict(result.get("properties"))}
    tags = {str(t).lower() for t in _list(properties.get("tags"))}
    score = _float(properties.get("security-severity"))
    severity = security_band(score) if score is not None else _LEVELS.get(level, "minor")
    kind = kind_for_tool(tool, security="security" in tags or score is not None)
    short = as_text(_dict(rule.get("shortDescription")).get("text"))
    message = one_line(_message(result, rule) or short or rule_id or "SARIF result", limits)
    path, region, snippet = locator.locate(result)
    return Finding(
        fingerprint=fps("sarif", tool, kind, rule_id, path, message=message),
        source="sarif",
        tool=tool,
        kind=kind,
        severity=severity,
        path=path,
        line=json_position(region.get("startLine")) if path else None,
        end_line=json_position(region.get("endLine")) if path else None,
        column=json_position(region.get("startColumn")) if path else None,
        rule=rule_id[:200] if rule_id else None,
        message=message,
        excerpt=excerpt(snippet, limits),
    )


def _message(result: Mapping[str, Any], rule: Mapping[str, Any]) -> str | None:
    message = _dict(result.get("message"))
    text = as_text(message.get("text")) or as_text(message.get("markdown"))
    if text is None and as_text(message.get("id")):
        template = _dict(_dict(rule.get("messageStrings")).get(message["id"]))
        text = as_text(template.get("text"))
    if text is None:
        return None
    arguments = [str(a) for a in _list(message.get("arguments"))]
    # Placeholders are {0}, {1}, ... (SARIF §3.11.5); ``{{`` is a literal brace.
    return re.sub(r"\{(\d{1,9})\}", lambda m: _arg(arguments, int(m.group(1)), m.group(0)), text)


def _arg(arguments: list[str], index: int, default: str) -> str:
    return arguments[index] if index < len(arguments) else default


class _Rules:
    """Rule metadata of a run: by index in the driver or an extension, and by id; and level overrides."""

    def __init__(self, run: Mapping[str, Any]) -> None:
        tool = _dict(run.get("tool"))
        self._components = [_dict(tool.get("driver"))] + [_dict(e) for e in _list(tool.get("extensions"))]
        self._by_id: dict[str, dict[str, Any]] = {}
        for component in self._components:
            for rule in _list(component.get("rules")):
                if isinstance(rule, dict) and isinstance(rule.get("id"), str):
                    self._by_id.setdefault(rule["id"], rule)
        # SARIF 2.0.0 kept rules in run.resources.rules, a dictionary by id.
        for key, rule in _dict(_dict(run.get("resources")).get("rules")).items():
            if isinstance(rule, dict):
                self._by_id.setdefault(as_text(rule.get("id")) or key, rule)
        self._overrides = self._read_overrides(run)

    def find(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The reportingDescriptor of a result's rule (§3.27.5-§3.27.7), ``{}`` when the run has none."""
        reference = _dict(result.get("rule"))
        index = json_index(reference.get("index"))
        if index is None:
            index = json_index(result.get("ruleIndex"))
        found = self._at(index, reference)
        if found is not None:
            return found
        return self._by_hierarchical_id(as_text(result.get("ruleId")) or as_text(reference.get("id")))

    def override(self, rule: Mapping[str, Any]) -> str | None:
        """The level an invocation's ``ruleConfigurationOverrides`` (§3.20.5) sets for ``rule``, if any."""
        return self._overrides.get(id(rule)) if rule else None

    def _at(self, index: int | None, reference: Mapping[str, Any]) -> dict[str, Any] | None:
        component = json_index(_dict(reference.get("toolComponent")).get("index"))
        owner = (
            self._components[component + 1]
            if component is not None and component + 1 < len(self._components)
            else self._components[0]
        )
        rules = _list(owner.get("rules"))
        if index is not None and 0 <= index < len(rules) and isinstance(rules[index], dict):
            found: dict[str, Any] = rules[index]
            return found
        return None

    def _by_hierarchical_id(self, rule_id: str | None) -> dict[str, Any]:
        # §3.27.5: a ruleId is hierarchical, "CA2101/1" is a sub-rule of "CA2101", so
        # a result whose exact id has no descriptor takes its nearest ancestor's.
        while rule_id:
            found = self._by_id.get(rule_id)
            if found is not None:
                return found
            rule_id = rule_id.rpartition("/")[0]
        return {}

    def _read_overrides(self, run: Mapping[str, Any]) -> dict[int, str]:
        # §3.20.5: each configurationOverride (§3.51) names a rule by its descriptor reference
        # (§3.52: index and/or id, in the driver or a toolComponent) and gives it a configuration
        # whose level replaces the rule's defaultConfiguration for the run's results.
        overrides: dict[int, str] = {}
        for invocation in _list(run.get("invocations")):
            for entry in _list(_dict(invocation).get("ruleConfigurationOverrides")):
                descriptor = _dict(_dict(entry).get("descriptor"))
                level = as_text(_dict(_dict(entry).get("configuration")).get("level"))
                rule = self._at(json_index(descriptor.get("index")), descriptor)
                if rule is None:
                    rule = self._by_id.get(as_text(descriptor.get("id")) or "")
                if rule is not None and level is not None:
                    overrides[id(rule)] = level
        return overrides


class _Locator:
    """Turns a result's first physical location into a repository-relative path and region."""

    def __init__(self, run: Mapping[str, Any], root: str | None) -> None:
        self._bases = _dict(run.get("originalUriBaseIds"))
        self._artifacts = _list(run.get("artifacts"))
        self._root = root

    def locate(self, result: Mapping[str, Any]) -> tuple[str | None, dict[str, Any], str | None]:
        locations = _list(result.get("locations"))
        physical = _dict(_dict(locations[0]).get("physicalLocation")) if locations else {}
        # SARIF 2.0.0 named it fileLocation; 2.1.0 renamed it artifactLocation (§3.29.3).
        artifact = _dict(physical.get("artifactLocation") or physical.get("fileLocation"))
        index = json_index(artifact.get("index"))
        if not as_text(artifact.get("uri")) and index is not None and 0 <= index < len(self._artifacts):
            artifact = _dict(_dict(self._artifacts[index]).get("location"))
        region = _dict(physical.get("region"))
        snippet = as_text(_dict(region.get("snippet")).get("text")) or as_text(
            _dict(_dict(physical.get("contextRegion")).get("snippet")).get("text")
        )
        return self._path(as_text(artifact.get("uri")), as_text(artifact.get("uriBaseId"))), region, snippet

    def _path(self, uri: str | None, base_id: str | None) -> str | None:
        if not uri:
            return None
        if _is_relative(uri):
            base = self._resolve(base_id)
            if base is None:
                return repo_relative(uri)  # an unknown base (%SRCROOT%) is the checkout by convention
            joined = repo_relative(base.rstrip("/") + "/" + uri, root=self._root)
            return joined if joined is not None else repo_relative(uri)
        found = repo_relative(uri, root=self._root)
        for candidate in self._absolute_bases():
            if found is not None:
                break
            found = repo_relative(uri, root=candidate)
        return found

    def _resolve(self, base_id: str | None, depth: int = 0) -> str | None:
        entry = _dict(self._bases.get(base_id)) if base_id else {}
        uri = as_text(entry.get("uri"))
        if uri is None or depth > 8:
            return None
        if _is_relative(uri):
            parent = self._resolve(as_text(entry.get("uriBaseId")), depth + 1)
            return None if parent is None else parent.rstrip("/") + "/" + uri
        return uri

    def _absolute_bases(self) -> Iterator[str]:
        for base_id in self._bases:
            resolved = self._resolve(base_id)
            if resolved is not None:
                yield resolved


def _is_relative(uri: str) -> bool:
    return not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri) and not uri.startswith("/")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0.0 <= number <= 10.0 else None
