"""GitHub event payloads -> the identity part of an :class:`~gauntlet.models.Observation`.

Payloads are untrusted JSON (DESIGN §6): read defensively, every field optional
until proven otherwise. See https://docs.github.com/webhooks/webhook-events-and-payloads
"""

from __future__ import annotations

import json
import re
from typing import Any

from gauntlet.errors import InputError
from gauntlet.ingest.values import position, scrub

__all__ = ["EventFacts", "event_facts"]

EventFacts = dict[str, Any]
_SHA = re.compile(r"[0-9a-fA-F]{7,64}")


def _get(payload: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload


def event_facts(event_name: str, payload: bytes, origin: str = "event payload") -> EventFacts:
    """Extract repository, PR, branch and SHAs from an event payload.

    :raises InputError: the payload is not a JSON object, or lacks what the event needs.
    """
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{origin}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{origin}: expected a JSON object")
    facts: EventFacts = {
        "event": event_name,
        "repository": _get(data, "repository", "full_name"),
        "default_branch": _get(data, "repository", "default_branch"),
    }
    if event_name in ("pull_request", "pull_request_target"):
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
            "branch": ref.removeprefix("refs/heads/"),
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
        }
    facts = {k: v for k, v in facts.items() if v is not None}
    if not isinstance(facts.get("head_sha", ""), str) or ("pr" in facts and not isinstance(facts["pr"], int)):
        raise InputError(f"{origin}: unexpected types in the {event_name} payload")
    # What becomes an API path must be what GitHub sends (DESIGN §6): a SHA is hex, a number a number.
    for key in ("head_sha", "base_sha"):
        if key in facts and not (isinstance(facts[key], str) and _SHA.fullmatch(facts[key])):
            raise InputError(f"{origin}: {key} is not a commit SHA")
    if "pr" in facts and position(facts["pr"]) is None:
        raise InputError(f"{origin}: {facts['pr']!r:.40} is not a pull request number")
    return {k: scrub(v) if isinstance(v, str) else v for k, v in facts.items()}
