"""GitHub event payloads -> :class:`~gauntlet.models.EventFacts`: what the event says about the run.

Payloads are untrusted JSON (DESIGN §6): read defensively, every field optional
until proven otherwise. A payload is decoded once into a :class:`Delivery`; the
routing, the facts and the ``issue_comment`` reader all read that.
See https://docs.github.com/webhooks/webhook-events-and-payloads
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gauntlet.errors import InputError
from gauntlet.ingest.values import position
from gauntlet.models import EventFacts
from gauntlet.untrusted import scrub

__all__ = ["Delivery", "event_facts", "read_delivery"]

#: Events whose payload carries the ``pull_request`` (the review events too: a review names its PR and head).
_PULL_EVENTS = ("pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment")
# A SHA is hex; letters and digits are what the check needs: nothing that could reshape an API path.
_SHA = re.compile(r"[0-9A-Za-z]{1,64}")


@dataclass(frozen=True)
class Delivery:
    """One delivered event: its name, its decoded payload, and where the payload came from (for messages)."""

    name: str | None
    data: Mapping[str, Any]
    origin: str = "event payload"
    #: Why the payload could not be decoded; routing still works (as for an empty payload), reading facts raises.
    problem: str | None = None

    @property
    def action(self) -> str | None:
        """The payload's ``action`` (``None`` for events without one)."""
        action = self.data.get("action")
        return action if isinstance(action, str) else None

    @classmethod
    def of(cls, name: str | None, payload: bytes, origin: str = "event payload") -> Delivery:
        """Decode ``payload`` (the bytes at ``GITHUB_EVENT_PATH``); an undecodable one keeps its :attr:`problem`.

        An ignored event is ignored whatever its payload, so a bad payload is an error only once
        something reads it (:meth:`checked`).
        """
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError) as exc:
            return cls(name=name, data={}, origin=origin, problem=f"{origin}: not valid JSON: {exc}")
        if not isinstance(data, dict):
            return cls(name=name, data={}, origin=origin, problem=f"{origin}: expected a JSON object")
        return cls(name=name, data=data, origin=origin)

    def checked(self) -> Mapping[str, Any]:
        """The decoded payload.

        :raises InputError: the payload is not a JSON object.
        """
        if self.problem is not None:
            raise InputError(self.problem)
        return self.data


def read_delivery(name: str | None, path: Path | None) -> Delivery:
    """The event at ``path`` (an empty payload when there is none: a run on files alone).

    :raises InputError: the file cannot be read.
    """
    if path is None:
        return Delivery(name=name, data={})
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the event payload: {exc.strerror}") from exc
    return Delivery.of(name, payload, str(path))


#: The branch GitHub's merge queue tests a group on: ``gh-readonly-queue/<base branch>/pr-<n>-<base sha>``.
_QUEUE_BRANCH = re.compile(r"gh-readonly-queue/(?P<base>.+)/pr-\d+-[0-9a-f]+")


def queue_base(branch: Any) -> str | None:
    """The branch a merge queue branch merges into (``None``: not a merge queue branch)."""
    found = _QUEUE_BRANCH.fullmatch(branch) if isinstance(branch, str) else None
    return found.group("base") if found else None


def _get(payload: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def event_facts(delivery: Delivery) -> EventFacts:
    """Extract repository, PR, branch and SHAs from a delivered event.

    An event without a name but with a payload is read as ``pull_request`` (a CI step
    passing its own event file).

    :raises InputError: the payload is not a JSON object, or has values of the wrong type.
    """
    event_name = delivery.name or "pull_request"
    data = delivery.checked()
    facts: dict[str, Any] = {
        "event": event_name,
        "action": delivery.action,
        "repository": _get(data, "repository", "full_name"),
        "default_branch": _get(data, "repository", "default_branch"),
    }
    if event_name in _PULL_EVENTS:
        facts |= {
            "pr": _get(data, "pull_request", "number") or data.get("number"),
            "pr_author": _get(data, "pull_request", "user", "login"),
            "head_sha": _get(data, "pull_request", "head", "sha"),
            "base_sha": _get(data, "pull_request", "base", "sha"),
            "branch": _get(data, "pull_request", "head", "ref"),
        }
    elif event_name == "push":
        ref = data.get("ref") or ""
        facts |= {
            "head_sha": data.get("after"),
            "base_sha": data.get("before"),
            "branch": ref.removeprefix("refs/heads/") if isinstance(ref, str) else None,
        }
    elif event_name == "workflow_run":
        run = data.get("workflow_run") or {}
        prs = _get(run, "pull_requests") or []
        facts |= {
            "head_sha": _get(run, "head_sha"),
            "branch": _get(run, "head_branch"),
            "pr": _get(prs[0], "number") if prs and isinstance(prs, list) else None,
            "run_id": str(run["id"]) if isinstance(run, dict) and "id" in run else None,
            "run_attempt": str(run.get("run_attempt", 1)) if isinstance(run, dict) else None,
            "workflow": _get(run, "name"),
            # Read to spare calls, never needed: a value of another type is as good as none.
            "trigger": _text(_get(run, "event")),
            "conclusion": _text(_get(run, "conclusion")),
        }
        if facts["trigger"] == "merge_group":
            facts["queue_base"] = queue_base(facts["branch"])
    elif event_name == "merge_group":
        group = data.get("merge_group")
        if not isinstance(group, dict):
            raise InputError(f"{delivery.origin}: the merge_group payload has no merge_group object")
        head_ref, base_ref = _get(group, "head_ref"), _get(group, "base_ref")
        facts |= {
            "head_sha": _get(group, "head_sha"),
            "base_sha": _get(group, "base_sha"),
            "branch": head_ref.removeprefix("refs/heads/") if isinstance(head_ref, str) else None,
            "queue_base": base_ref.removeprefix("refs/heads/") if isinstance(base_ref, str) else None,
        }
        if not facts["head_sha"] or not facts["queue_base"]:
            raise InputError(f"{delivery.origin}: the merge_group payload names no head_sha or base_ref")
    elif event_name == "issue_comment":
        login = _get(data, "issue", "user", "login")
        facts["pr_author"] = login if isinstance(login, str) and login else None
    if not isinstance(facts.get("head_sha") or "", str) or isinstance(facts.get("pr"), bool):
        raise InputError(f"{delivery.origin}: unexpected types in the {event_name} payload")
    # What becomes an API path must be what GitHub sends (DESIGN §6): a SHA a word, a number a number.
    for key in ("head_sha", "base_sha"):
        value = facts.get(key)
        if value is not None and not (isinstance(value, str) and _SHA.fullmatch(value)):
            raise InputError(f"{delivery.origin}: {key} is not a commit SHA")
    if facts.get("pr") is not None and position(facts["pr"]) is None:
        raise InputError(f"{delivery.origin}: {facts['pr']!r:.40} is not a pull request number")
    facts = {key: scrub(value) if isinstance(value, str) else value for key, value in facts.items()}
    try:
        return EventFacts.model_validate(facts, strict=True)
    except ValidationError as exc:
        where = ", ".join(".".join(str(p) for p in error["loc"]) for error in exc.errors())
        raise InputError(f"{delivery.origin}: unexpected types in the {event_name} payload ({where})") from exc
