"""The repository's configuration file, ``.github/gauntlet.yml``, as one validated model.

Each engine part owns one section; every section has the defaults of DESIGN §3,
so an empty file (or none) is a valid configuration.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from gauntlet.errors import ConfigError
from gauntlet.models import Kind, Permission, ReviewLabel, ReviewSeverity, Severity, Source
from gauntlet.vocabulary import ProvenanceWord

__all__ = [
    "CommandsConfig",
    "Config",
    "ContextRule",
    "FailOn",
    "GauntletConfig",
    "HealthConfig",
    "IssuesConfig",
    "ProvenanceConfig",
    "RecoveryConfig",
    "RevertConfig",
    "ReviewBots",
    "ReviewsConfig",
    "SelfHealConfig",
    "SeverityOverride",
    "config_schema",
    "load_config",
    "parse_config",
]

FailOn = Literal["criticals", "majors", "minors", "never"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GauntletConfig(_Section):
    """The per-PR loop (DESIGN §3)."""

    fail_on: FailOn = "criticals"
    max_iterations: int = Field(10, ge=1, le=1000)
    #: The provenances whose failures count toward ``fail_on`` (``docs/recovery.md``): by default what this
    #: change caused, or what nobody can tell yet; failures already on the default branch, or flaky, are reported.
    block_on: tuple[ProvenanceWord, ...] = ("new", "unknown")


class RecoveryConfig(_Section):
    """Attempts, retry budgets and circular-fix detection (``engine/recovery.py``, ``engine/circular.py``)."""

    #: Retries of a failed verification (lint, security, review) before a human is asked.
    verification_budget: int = Field(3, ge=0)
    #: Retries of a failure nobody could classify.
    unknown_budget: int = Field(2, ge=0)
    #: Reruns of the failed jobs after an infrastructure failure.
    infra_budget: int = Field(2, ge=0)
    #: How many consecutive head SHAs with the same failures make a circular fix.
    circular_window: int = Field(3, ge=2, le=20)
    #: Jaccard similarity of two failing-fingerprint sets that counts as "the same"; 1.0 is the same set.
    circular_similarity: float = Field(1.0, gt=0, le=1)


class RevertConfig(_Section):
    """Automatic revert PRs on the default branch (``engine/revert.py``)."""

    #: ``on`` opens revert PRs; ``shadow`` records what it would do; ``off`` asks a human instead.
    auto_revert: Literal["on", "shadow", "off"] = "on"
    #: A culprit older than this (committer date) is left to a human.
    max_age_hours: float = Field(24, gt=0)
    #: Revert PRs opened per UTC day, at most.
    max_reverts_per_day: int = Field(3, ge=0)
    #: Reruns of the failed jobs to confirm a breakage (a single red run never confirms one, DESIGN §3); a
    #: failing test asks for one or two more (``engine.revert.sightings_needed``). 0: wait for later runs instead.
    confirm_reruns: int = Field(1, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _retired(cls, data: Any) -> Any:
        if isinstance(data, dict) and "trust_single_suspect" in data:
            raise ValueError(
                "trust_single_suspect was removed: a single red run never confirms a breakage; "
                "Gauntlet reruns the failed jobs to confirm it instead (confirm_reruns)"
            )
        return data


class ProvenanceConfig(_Section):
    """When a test counts as flaky (``engine/outcomes.py``; the flaky-test issues of ``docs/recovery.md``)."""

    #: Flips between pass and fail per outcome, over the kept history, from which a test is flaky ...
    flaky_flip_rate: float = Field(0.2, gt=0, le=1)
    #: ... once it flipped at least this many times (one fix after a break is not flakiness).
    flaky_min_flips: int = Field(3, ge=2)
    #: Flaky-test issues: close after this many days without a flake; reopen a flake within ``reopen_days``.
    flaky_issue_close_days: int = Field(14, ge=1, le=365)
    flaky_issue_reopen_days: int = Field(10, ge=0, le=365)
    #: This many flaky tests of one component share one issue.
    flaky_issue_group: int = Field(10, ge=2)
    #: File an issue per flaky test on the default branch.
    flaky_issues: bool = True
    #: On a PR, rerun the failed jobs once when a test failure is new: a flake passes and turns ``flaky``.
    pr_rerun: bool = True


class SelfHealConfig(_Section):
    """Self-healing scans and proposals (DESIGN §3), learned rules and the rule bandit."""

    #: The global off switch: no proposals, no rollbacks (learning and verification records stay).
    enabled: bool = True
    window_days: int = Field(14, ge=1)
    #: Thresholds per (component, defect type) over the window: P0 → MAJOR, P1 or many P2 → MINOR, P2 → PATCH.
    major_p0: int = Field(1, ge=1)
    minor_p1: int = Field(1, ge=1)
    minor_p2: int = Field(5, ge=1)
    patch_p2: int = Field(3, ge=1)
    #: Distinct occasions (PRs, or days on a branch) a key needs before any threshold counts: self-healing is
    #: about defects that recur, and one failing PR (or one failure repeated) is not a recurrence.
    min_occasions: int = Field(2, ge=1)
    #: Observations of the component during a watch needed to call a proposal verified (else ``unverified``).
    min_observations: int = Field(3, ge=1)
    max_patch_per_day: int = Field(10, ge=0)
    max_minor_per_day: int = Field(3, ge=0)
    cooldown_hours: float = Field(24, ge=0)
    watch_days: int = Field(7, ge=1)
    #: Learned rules shown per error class in the sticky comment (chosen by Thompson sampling).
    rules_per_class: int = Field(3, ge=0, le=10)
    #: Maintainer-written rules per error class (e.g. ``test_failure``); they start with a stronger prior.
    curated_rules: dict[str, tuple[str, ...]] = {}


class HealthConfig(_Section):
    """Health thresholds (DESIGN §3)."""

    pressure_warn: float = 0.8
    pressure_block: float = 1.0
    #: Red for longer than this → warn.
    stall_hours: float = 24
    #: Fingerprints that flip between failing and passing this many times are called flaky → warn.
    flaky_flips: int = Field(3, ge=1)


class CommandsConfig(_Section):
    """``/gauntlet`` commands: the permission each needs, accepted risk and issue triage (``docs/commands.md``)."""

    enabled: bool = True
    #: The collaborator permission each command needs ("none": anyone who is not a bot).
    help: Permission = "none"
    status: Permission = "none"
    retry: Permission = "write"
    accept_risk: Permission = "maintain"
    approve: Permission = "maintain"
    reject: Permission = "maintain"
    reset: Permission = "maintain"
    #: ``/gauntlet flaky`` and ``/gauntlet not-flaky``: a maintainer's word on a test overrides its history.
    flaky: Permission = "maintain"
    #: ``/gauntlet known``: file a known-failure issue from a PR's failure (``docs/known-failures.md``).
    known: Permission = "maintain"
    #: The check's conclusion once accepted risks are all that keep it from passing.
    accepted_conclusion: Literal["neutral", "success"] = "neutral"
    #: Let the author of a PR accept its risks or approve what concerns it (off: someone else must).
    allow_self_approval: bool = False
    #: No longer read: an accepted-risk issue ends on evidence, never by time (docs/commands.md, Triage). Kept so
    #: configurations that set it still load.
    triage_days: int = Field(14, ge=1, le=365)


class IssuesConfig(_Section):
    """The issues Gauntlet files (``docs/effects.md``)."""

    #: Assign each issue to the users ``CODEOWNERS`` names for the finding's path.
    assign_owners: bool = True


class ReviewBots(_Section):
    """Review bots whose comments count, by login (``coderabbitai[bot]``)."""

    bots: list[str] = Field([], max_length=100)


class ReviewsConfig(_Section):
    """The pull request's own review comments and reviews as findings (docs/formats-and-configuration.md).

    ``from: [maintainers, {bots: [coderabbitai[bot]]}]``: ``maintainers`` are people whose
    ``author_association`` is ``OWNER``, ``MEMBER`` or ``COLLABORATOR``; bots count only when listed.
    ``severity`` overrides the severity table, label by label (``none``: conversation).
    """

    # "from" is a Python keyword: the field is from_, read and written as "from" (a dump loads back).
    model_config = ConfigDict(extra="forbid", frozen=True, serialize_by_alias=True)

    from_: list[Literal["maintainers"] | ReviewBots] = Field(["maintainers"], alias="from")
    severity: dict[ReviewLabel, ReviewSeverity] = {}

    @property
    def maintainers(self) -> bool:
        """Whether maintainers' comments count."""
        return "maintainers" in self.from_

    @property
    def bots(self) -> frozenset[str]:
        """The bot logins whose comments count, lower case."""
        return frozenset(b.lower() for entry in self.from_ if isinstance(entry, ReviewBots) for b in entry.bots)


class SeverityOverride(_Section):
    """Set the severity of the findings that match every given field (kind, tool, rule, path, source).

    ``rule`` and ``path`` are globs (``E5*``, ``tests/**``); names compare case-insensitively.
    The most specific override wins (most fields given); among equals, the later one.
    """

    kind: Kind | None = None
    tool: str | None = Field(None, min_length=1, max_length=64)
    rule: str | None = Field(None, min_length=1, max_length=200)
    path: str | None = Field(None, min_length=1, max_length=500)
    source: Source | None = None
    severity: Severity

    @model_validator(mode="after")
    def _needs_a_match(self) -> SeverityOverride:
        if self.specificity == 0:
            raise ValueError("give at least one of kind, tool, rule, path, source")
        return self

    @property
    def specificity(self) -> int:
        """How many fields this override matches on."""
        return sum(v is not None for v in (self.kind, self.tool, self.rule, self.path, self.source))


class ContextRule(_Section):
    """A context flag: findings that match it get at least ``priority`` (DESIGN §4: raise, never lower).

    Every list that is given must match (any of its entries); at least one must be given.
    ``paths`` and ``rules`` are globs; ``components`` are names from ``components``.
    """

    name: str = Field(min_length=1, max_length=64)
    priority: Literal["P0", "P1"]
    paths: list[str] = []
    components: list[str] = []
    kinds: list[Kind] = []
    tools: list[str] = []
    rules: list[str] = []
    min_severity: Severity | None = None
    default_branch_only: bool = False

    @model_validator(mode="after")
    def _needs_a_match(self) -> ContextRule:
        given = (self.paths, self.components, self.kinds, self.tools, self.rules, self.min_severity)
        if not any(given) and not self.default_branch_only:
            raise ValueError("give at least one of paths, components, kinds, tools, rules, min_severity")
        return self


class Config(_Section):
    """The whole configuration file."""

    paused: bool = False
    gauntlet: GauntletConfig = GauntletConfig()
    recovery: RecoveryConfig = RecoveryConfig()
    revert: RevertConfig = RevertConfig()
    provenance: ProvenanceConfig = ProvenanceConfig()
    selfheal: SelfHealConfig = SelfHealConfig()
    health: HealthConfig = HealthConfig()
    commands: CommandsConfig = CommandsConfig()
    issues: IssuesConfig = IssuesConfig()
    reviews: ReviewsConfig = ReviewsConfig()
    #: Severity overrides per kind/tool/rule/path (classify applies them before merging duplicates).
    severity: list[SeverityOverride] = []
    #: Component name → path globs, first match in file order (reports and self-healing group by component).
    components: dict[str, list[str]] = {}
    #: Context flags that raise the priority of matching findings.
    context: list[ContextRule] = []

    @field_validator("context")
    @classmethod
    def _known_components(cls, rules: list[ContextRule], info: ValidationInfo) -> list[ContextRule]:
        components = info.data.get("components", {})
        for rule in rules:
            unknown = [c for c in rule.components if c not in components]
            if unknown:
                raise ValueError(f"context {rule.name!r} names unknown components: {', '.join(unknown)}")
        return rules


def load_config(path: Path | None) -> Config:
    """Read and validate a configuration file; a missing ``path`` gives the defaults.

    :raises ConfigError: the file is not YAML or does not match the model; the
        message names the file, the line and the key.
    """
    if path is None or not path.exists():
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc
    return parse_config(text, str(path))


def parse_config(text: str, name: str = "gauntlet.yml") -> Config:
    """Validate the YAML ``text`` of a configuration file.

    Validation is strict (``"10"`` is not a number, ``yes`` is not a boolean) and
    YAML 1.1's ``on``/``off``/``yes``/``no`` stay strings, so ``auto_revert: off``
    means the word. Errors name the line of the offending key.

    :raises ConfigError: not YAML, a duplicate key, an unknown key or a wrong value.
    """
    import json

    import yaml
    from pydantic import ValidationError

    loader = _make_loader(text)
    loader.name = name  # marks in YAML errors name the file
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{name}: not valid YAML: {' '.join(str(exc).split())}") from exc
    finally:
        loader.dispose()
    if node is not None:
        _check_duplicates(node, name)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{name}:1: expected a mapping of settings at the top level")
    try:
        # Through JSON so strict mode accepts YAML lists for tuple fields; dates become their text.
        return Config.model_validate_json(json.dumps(data, default=str), strict=True)
    except ValidationError as exc:
        problem = exc.errors()[0]
        loc = [p for p in problem["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        key = ".".join(str(p) for p in loc) or "(top level)"
        line = _line_of(node, loc) if node is not None else 1
        message = "unknown key" if problem["type"] == "extra_forbidden" else problem["msg"]
        message = message.removeprefix("Value error, ")
        if problem["type"] not in ("extra_forbidden", "value_error") and loc:
            message += f" (got {json.dumps(problem.get('input'), default=str)[:80]})"
        raise ConfigError(f"{name}:{line}: {key}: {message}") from exc


def config_schema() -> dict[str, Any]:
    """The JSON schema of the configuration file (published as ``schema/gauntlet.schema.json``)."""
    schema = Config.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Gauntlet configuration (.github/gauntlet.yml)",
        **schema,
    }


def _loader_class() -> type[Any]:
    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader with YAML 1.2 booleans: only true/false, so ``off`` stays a string."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    for first in "tTfF":
        Loader.add_implicit_resolver(
            "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list(first)
        )
    return Loader


def _make_loader(text: str) -> Any:
    return _loader_class()(text)


def _check_duplicates(node: Any, name: str) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    raise ConfigError(f"{name}:{key.start_mark.line + 1}: {key.value}: duplicate key")
                seen.add(key.value)
            _check_duplicates(value, name)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicates(item, name)


def _line_of(node: Any, loc: list[int | str]) -> int:
    """The 1-based line of the key (or item) at ``loc``, or of its nearest existing parent."""
    import yaml

    mark = node.start_mark
    current = node
    for part in loc:
        if isinstance(current, yaml.MappingNode):
            pair = next(
                (p for p in current.value if isinstance(p[0], yaml.ScalarNode) and p[0].value == str(part)), None
            )
            if pair is None:
                break
            mark, current = pair[0].start_mark, pair[1]
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int) and part < len(current.value):
            current = current.value[part]
            mark = current.start_mark
        else:
            break
    return int(mark.line) + 1
