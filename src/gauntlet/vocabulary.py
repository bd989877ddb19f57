"""The contract vocabulary: the words and names checks outside the code rely on (DESIGN §3, §4, §5, §8).

One module, importing nothing of Gauntlet's, so every layer reads it downward:
the verdicts of the run report, the gauntlet and recovery actions, failure types,
health, revert refusal reasons, the hidden markers, the ``v1/`` state paths and
the labels. Change a word only by adding one: stored state, markers already on
GitHub and users' workflows hold the old ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "BOT_LABEL",
    "LABELS",
    "MARKER_PATTERN",
    "SHARED_FILES",
    "Decision",
    "FailureType",
    "GauntletAction",
    "HealthStatus",
    "HealthVerdict",
    "MarkerKind",
    "ProvenanceReport",
    "ProvenanceWord",
    "RecoveryAction",
    "RecoveryVerdict",
    "RevertReason",
    "branch_path",
    "branch_slug",
    "event_part_path",
    "issue_labels",
    "marker_text",
    "pr_path",
    "severity_label",
]

# --- verdicts (the run report, DESIGN §8) -------------------------------------------------------------------

#: What the gauntlet loop asks of the PR's author for the current iteration (DESIGN §3).
GauntletAction = Literal["fix_criticals", "checkpoint_majors", "checkpoint_minors", "clean"]
RecoveryAction = Literal["rollback", "retry", "skip", "escalate", "continue"]
FailureType = Literal["broken_build", "verification_failed", "circular_fix", "infra", "unknown"]
HealthStatus = Literal["continue", "warn", "reflect", "block"]
#: Whose failure a failing finding is (DESIGN §3): caused by the change, already on the default branch, flaky,
#: nobody can tell yet, or matched by an open known-failure issue (DESIGN §5, ``docs/known-failures.md``).
ProvenanceWord = Literal["new", "preexisting", "flaky", "unknown", "known"]


class RevertReason(StrEnum):
    """Why Gauntlet did not revert (DESIGN §3); every refusal has exactly one."""

    INFRA = "infra"
    FLAKY = "flaky"
    NOT_CONFIRMED = "not_confirmed"
    AMBIGUOUS = "ambiguous"
    TOO_OLD = "too_old"
    NOAUTOREVERT = "noautorevert"
    IS_REVERT = "is_revert"
    ALREADY_REVERTED = "already_reverted"
    DAILY_CAP = "daily_cap"
    CONFLICT = "conflict"
    #: Every breaking failure matches an open known-failure issue (DESIGN §5): a maintainer said it is known.
    KNOWN = "known"


class _Verdict(BaseModel):
    # Built on first use: `gauntlet ingest` imports this module (through the config) but no verdict.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Decision(_Verdict):
    """The gauntlet loop's verdict for the current iteration."""

    action: GauntletAction
    iteration: int
    criticals: int
    majors: int
    minors: int


class RecoveryVerdict(_Verdict):
    """What recovery decided: ``failure_type`` is ``None`` when nothing failed."""

    failure_type: str | None = None
    action: RecoveryAction = "continue"
    reason: str = "nothing to recover from"
    attempt: int = 0
    budget: int | None = None


class HealthVerdict(_Verdict):
    """Health of the PR or repository, with every reason spelled out."""

    status: HealthStatus = "continue"
    reasons: tuple[str, ...] = ()


class ProvenanceReport(_Verdict):
    """``run --json`` ``provenance`` (DESIGN §8): counts per provenance word, and each failing fingerprint's word."""

    counts: dict[str, int] = {}
    fingerprints: dict[str, str] = {}


# --- markers (DESIGN §5) ---------------------------------------------------------------------------------------

MarkerKind = Literal[
    "pr-comment", "risk", "needs-human", "revert", "proposal", "flaky", "known-failure", "known-hit", "known-rule"
]
#: Any marker Gauntlet writes; it counts only on items Gauntlet's own identity authored.
MARKER_PATTERN = re.compile(r"<!-- gauntlet:key=[^\s>]+ -->")


def marker_text(key: str) -> str:
    """The hidden marker of an effect key (``<kind>:<id>``) that lets Gauntlet find a body it wrote."""
    return f"<!-- gauntlet:key={key} -->"


# --- state paths (DESIGN §4) -------------------------------------------------------------------------------------

#: Repository-wide files, by attribute of :class:`gauntlet.state.models.State`.
SHARED_FILES: dict[str, str] = {
    "defects": "v1/defects.json",
    "proposals": "v1/proposals.json",
    "learnings": "v1/learnings.json",
    "bandit": "v1/bandit.json",
    "index": "v1/index.json",
    "triage": "v1/triage.json",
}

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def branch_slug(name: str) -> str:
    """File name for a branch: ``/`` becomes ``--``, anything else unsafe is percent-encoded."""
    return "--".join(
        _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), part) for part in name.split("/")
    )


def pr_path(number: int) -> str:
    """Path of a PR's file on the state branch."""
    return f"v1/prs/{number}.json"


def branch_path(name: str) -> str:
    """Path of a branch's file on the state branch."""
    return f"v1/branches/{branch_slug(name)}.json"


def event_part_path(month: str, part: int) -> str:
    """Path of one part of the append-only event log (``v1/events/<yyyy-mm>.<n>.jsonl``)."""
    return f"v1/events/{month}.{part}.jsonl"


# --- labels (DESIGN §5) ------------------------------------------------------------------------------------------

#: Every issue Gauntlet files carries this label; issues are found again by listing it.
BOT_LABEL = "gauntlet"

#: Name -> (colour, description) of the labels Gauntlet uses.
LABELS: dict[str, tuple[str, str]] = {
    BOT_LABEL: ("5319e7", "Filed by Gauntlet"),
    "accepted-risk": ("fbca04", "A finding accepted as a risk with /gauntlet accept-risk"),
    "needs-human": ("d93f0b", "Gauntlet cannot resolve this on its own"),
    "flaky": ("c5def5", "A test that fails and passes without a change (docs/recovery.md)"),
    "known-failure": ("bfd4f2", "A known failure: matching failures do not block (docs/known-failures.md)"),
    "severity:critical": ("b60205", "Gauntlet severity: critical"),
    "severity:major": ("d93f0b", "Gauntlet severity: major"),
    "severity:minor": ("fbca04", "Gauntlet severity: minor"),
    "severity:nitpick": ("c2e0c6", "Gauntlet severity: nitpick"),
}


def severity_label(severity: str) -> str:
    """The label for a severity (``severity:<x>``)."""
    return f"severity:{severity.strip().lower()}"


#: The label of each kind of issue Gauntlet files.
_KIND_LABEL: dict[str, str] = {
    "risk": "accepted-risk",
    "needs-human": "needs-human",
    "flaky": "flaky",
    "known-failure": "known-failure",
}


def issue_labels(kind: str, severity: str | None, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The labels of an issue of ``kind``: ``gauntlet``, the kind's label, the severity's and ``extra``, once each."""
    names = [BOT_LABEL, _KIND_LABEL[kind]]
    if severity:
        names.append(severity_label(severity))
    # A bare severity name among the extras ("critical") means the severity label, not a label of its own.
    names.extend(severity_label(name) if f"severity:{name.lower()}" in LABELS else name for name in extra)
    return tuple(dict.fromkeys(names))
