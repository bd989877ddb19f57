"""Accepted-risk and needs-human issues: filed once per key, found again, commented on when they recur.

Theory of operation (DESIGN §5): an issue is found again before anything is created, first through the state
index (``hub.known(key)``), then by listing the repository's open AND closed issues labelled ``gauntlet`` (never
the search API, whose secondary limits bite). Each page of that listing is a conditional request whose answer is
remembered, reduced to what the lookup needs (number, state, author, marker keys, labels), in the PR's record: a
page unchanged since is a free 304, and exact, since a page that changed in any way comes back whole. A marker
counts only on an issue Gauntlet's own identity authored:
anyone can type ``<!-- gauntlet:key=... -->`` into an issue. A recurrence comments on the existing issue,
reopening it only when Gauntlet closed it (a person's close is a decision to respect), and never files a second
one. Every comment is posted once: an identical comment by Gauntlet already on the issue is not repeated, so a run
killed half-way and run again adds nothing.

Labels Gauntlet puts on what it files, created before use (DESIGN §5).

Creating an issue with a label that does not exist makes GitHub invent it with a grey colour and no
description; Gauntlet creates its labels first so they are recognisable and documented.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from gauntlet.effects.base import EffectResult, Existing, Status
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CloseIssue, Effect, FileIssue
from gauntlet.effects.render import render
from gauntlet.github.client import NotFound, Rejected
from gauntlet.github.codeowners import CODEOWNERS_PATHS, MAX_ASSIGNEES, assignable, owners_for, parse_codeowners
from gauntlet.github.hub import PAGE_SIZE, is_ours, marker_keys, paged
from gauntlet.untrusted import REDACTED, redact
from gauntlet.vocabulary import BOT_LABEL, LABELS, issue_labels

if TYPE_CHECKING:
    from gauntlet.github.hub import Hub

__all__ = [
    "MAX_ASSIGNEES",
    "MAX_TITLE_CHARS",
    "CloseIssueHandler",
    "FileIssueHandler",
    "FoundIssue",
    "code_owners",
    "comment_once",
    "ensure_labels",
    "file_issue",
    "find_issue",
    "issue_title",
]


#: Titles are one line and short enough to read in a list (GitHub allows 256).
MAX_TITLE_CHARS = 120

_PREFIX = re.compile(r"^\s*\[Gauntlet/[^\]]*\]\s*", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")


class FoundIssue(Existing):
    """An issue Gauntlet filed earlier, with what a recurrence needs to know."""

    state: str = "open"
    closed_by: str | None = None
    #: How many comments the issue had when it was read (``None``: not said).
    comments: int | None = None


def _login(item: dict[str, Any], field: str = "user") -> str | None:
    user = item.get(field)
    return str(user["login"]) if isinstance(user, dict) and "login" in user else None


def issue_title(effect: FileIssue) -> str:
    """``[Gauntlet/<severity>] <what>`` on one line, at most :data:`MAX_TITLE_CHARS` characters."""
    label = effect.view.severity or effect.kind
    prefix = f"[Gauntlet/{label}] "
    # Titles are written as is (no template): redacted here like every body (DESIGN §6).
    what = _WHITESPACE.sub(" ", _PREFIX.sub("", redact(effect.title))).strip() or _WHITESPACE.sub(
        " ", redact(effect.view.summary)
    )
    what = what.strip() or effect.key
    room = MAX_TITLE_CHARS - len(prefix)
    if len(what) > room:
        what = what[: room - 1].rstrip() + "…"
    return prefix + what


def _found(hub: Hub, issue: dict[str, Any], *, listed: bool) -> FoundIssue:
    closed_by = _login(issue, "closed_by")
    if listed and issue.get("state") == "closed":
        # A listing leaves closed_by out (or null): only the issue itself says who closed it.
        single = hub.client.request("GET", f"/repos/{hub.repo.full_name}/issues/{issue['number']}")
        closed_by = _login(single, "closed_by")
    return FoundIssue(
        number=int(issue["number"]),
        url=issue.get("html_url"),
        body=issue.get("body"),
        state=str(issue.get("state", "open")),
        closed_by=closed_by,
        comments=issue["comments"] if isinstance(issue.get("comments"), int) else None,
    )


def find_issue(hub: Hub, key: str, labels: set[str] | None = None) -> FoundIssue | None:
    """The issue Gauntlet filed for ``key``: by the state index, else by listing issues labelled ``gauntlet``.

    The listing is read page by page, each page conditionally (:func:`_marked_page`): a page unchanged since
    the PR's last read of it is a free 304, answered with what that read kept.

    :param hub: the repository, Gauntlet's identity and the state index.
    :param key: the effect key (``risk:<id>`` or ``needs-human:<id>``).
    :param labels: gains the names of the labels on the issues listed (labels that exist, lower case).
    """
    prefix = f"/repos/{hub.repo.full_name}/issues"
    number = hub.known(key)
    if number is not None:
        try:
            issue = hub.client.request("GET", f"{prefix}/{number}")
        except NotFound:
            issue = None  # deleted or transferred: the listing may still hold another
        # The issues endpoints also return pull requests.
        if isinstance(issue, dict) and "pull_request" not in issue and is_ours(_login(issue), hub.bot_login):
            if labels is not None:
                labels.update(str(label.get("name", "")).lower() for label in issue.get("labels") or ())
            return _found(hub, issue, listed=False)
    page = 1
    while True:
        listed = _marked_page(hub, page)
        if labels is not None:
            labels.update(listed["labels"])
        for item in listed["issues"]:
            if not item["pull"] and is_ours(item["user"], hub.bot_login) and key in item["keys"]:
                return _found(hub, {**item, "html_url": item["url"]}, listed=True)
        if listed["count"] < PAGE_SIZE:
            return None
        page += 1


def _marked_page(hub: Hub, page: int) -> dict[str, Any]:
    """One page of the issues labelled ``gauntlet`` (open and closed), as the lookup by marker needs it.

    A conditional read (``GitHubClient.read``) that keeps, of the page, only what the lookup uses: how many items
    it had (another page follows a full one), the labels they carry, and each item that carries a marker, by
    number, state, author, address, comment count and marker keys. Whose it is is decided when it is used, not
    kept: the same kept page serves whatever ``bot_login`` a run has. 100 such items fit the 32 KiB a remembered
    answer may take, so a page unchanged since the PR's last run costs nothing. The first page costs nothing
    either when the run's start query read it (``Hub.first_issues``); GraphQL lists no pull requests, so its page
    reaches at least as far as REST's first, and REST's second page follows on from it.
    """
    if page == 1 and hub.first_issues is not None:  # the run's start query read it
        items, more = hub.first_issues
        listed = _marked_items(items)
        return {**listed, "count": max(listed["count"], PAGE_SIZE)} if more else listed
    path = f"/repos/{hub.repo.full_name}/issues"
    params = {"state": "all", "labels": BOT_LABEL, "per_page": PAGE_SIZE, "page": page}
    _, kept = hub.client.read(path, params=params, keep=_marked_items)
    if not isinstance(kept, dict) or REDACTED in json.dumps(kept):
        # A remembered page is stored redacted, like every state file: one whose keys or labels redaction
        # touched could miss an issue, so the page is read whole instead (never a second issue filed).
        return _marked_items(hub.client.request("GET", path, params=params))
    return kept


def _marked_items(items: Any) -> dict[str, Any]:
    """What :func:`_marked_page` keeps of a listing page (anything but a list reads as an empty page)."""
    listed = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    labels = {str(label.get("name", "")).lower() for item in listed for label in item.get("labels") or ()}
    marked = []
    for item in listed:
        body = item.get("body")
        keys = list(marker_keys(body)) if isinstance(body, str) else []
        if keys and isinstance(item.get("number"), int):
            marked.append(
                {
                    "number": item["number"],
                    "state": str(item.get("state", "open")),
                    "user": _login(item),
                    "url": item.get("html_url"),
                    "comments": item.get("comments") if isinstance(item.get("comments"), int) else None,
                    "pull": "pull_request" in item,
                    "keys": keys,
                }
            )
    return {"count": len(items) if isinstance(items, list) else 0, "labels": sorted(labels), "issues": marked}


def code_owners(hub: Hub, path: str) -> tuple[str, ...]:
    """The users ``CODEOWNERS`` names for ``path`` on the default branch (teams and e-mails left out).

    Each place GitHub looks is read conditionally: the file found is remembered with its ``ETag`` (in the PR's
    record, where the run keeps one), so the PR's next issue reads it again for free while it is unchanged.
    The places before it are asked every time: a file added there since wins, as on GitHub.
    """
    for location in CODEOWNERS_PATHS:
        try:
            _, kept = hub.client.read(f"/repos/{hub.repo.full_name}/contents/{location}", keep=_codeowners_text)
        except NotFound:
            continue
        if not isinstance(kept, dict):
            continue  # not a file GitHub could use (a directory, or too large to be sent inline)
        if not isinstance(kept.get("text"), str):
            return ()
        return assignable(owners_for(parse_codeowners(kept["text"]), path))[:MAX_ASSIGNEES]
    return ()


def _codeowners_text(content: Any) -> dict[str, str | None] | None:
    """What a read of the file keeps: its text (``None``: undecodable), or nothing when it is not a file's."""
    if not isinstance(content, dict) or content.get("encoding") != "base64":
        return None
    try:
        return {"text": base64.b64decode(str(content.get("content", ""))).decode("utf-8", errors="replace")}
    except binascii.Error:
        return {"text": None}


def comment_once(hub: Hub, number: int, body: str, *, comments: int | None = None) -> bool:
    """Post ``body`` on issue or PR ``number`` unless Gauntlet already posted exactly it; return whether it did.

    :param comments: how many comments the issue had when this run read it: with none there is nothing to list.
    """
    path = f"/repos/{hub.repo.full_name}/issues/{number}/comments"
    for comment in paged(hub, path) if comments != 0 else ():
        if is_ours(_login(comment), hub.bot_login) and comment.get("body") == body:
            return False
    hub.client.request("POST", path, body={"body": body})
    return True


def _result(effect: Effect, status: Status, found: Existing, detail: str = "") -> EffectResult:
    return EffectResult(
        type=effect.type, key=effect.key, status=status, number=found.number, url=found.url, detail=detail
    )


def file_issue(hub: Hub, effect: FileIssue) -> EffectResult:
    """File the issue for ``effect``, or note the recurrence on the one filed earlier (find, then perform)."""
    handler = FileIssueHandler()
    return handler.perform(hub, effect, handler.find(hub, effect))


class FileIssueHandler:
    """Files an accepted-risk or needs-human issue once; a recurrence comments (and reopens what Gauntlet closed)."""

    def __init__(self) -> None:
        # The labels seen on Gauntlet's issues while looking for one: they need no listing before use.
        self._labels: set[str] | None = None

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The issue filed earlier for the effect's key, if any."""
        self._labels = set()
        return find_issue(hub, effect.key, self._labels)

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """File the issue, or note the recurrence on the one found."""
        assert isinstance(effect, FileIssue)
        if existing is None or existing.number is None:
            return self._file(hub, effect)
        return self._recur(hub, effect, existing)

    def _file(self, hub: Hub, effect: FileIssue) -> EffectResult:
        labels = issue_labels(effect.kind, effect.view.severity, effect.labels)
        ensure_labels(hub, labels, present=self._labels)
        prefix = f"/repos/{hub.repo.full_name}/issues"
        payload = {"title": issue_title(effect), "body": body_of(effect), "labels": list(labels)}

        def create() -> FoundIssue:
            return _found(hub, hub.client.request("POST", prefix, body=payload), listed=False)

        made = hub.client.create_once(f"file issue {effect.key}", create, lambda: find_issue(hub, effect.key))
        owners = _assignees(hub, effect)
        if owners:
            # Added after creating: GitHub drops logins it cannot assign here, where a create naming one fails.
            hub.client.request("POST", f"{prefix}/{made.number}/assignees", body={"assignees": list(owners)})
        return _result(effect, "created", made, "assigned " + ", ".join(owners) if owners else "")

    def _recur(self, hub: Hub, effect: FileIssue, existing: Existing) -> EffectResult:
        assert existing.number is not None
        found = existing
        if not isinstance(found, FoundIssue):
            issue = hub.client.request("GET", f"/repos/{hub.repo.full_name}/issues/{existing.number}")
            found = _found(hub, issue, listed=False)
        done: list[str] = []
        if effect.recurrence_note:
            body = render("issue_recurrence.md.j2", note=effect.recurrence_note)
            if comment_once(hub, existing.number, body, comments=found.comments):
                done.append("commented")
        note = ""
        if found.state == "closed" and is_ours(found.closed_by, hub.bot_login):
            hub.client.request("PATCH", f"/repos/{hub.repo.full_name}/issues/{existing.number}", body={"state": "open"})
            done.append("reopened")
        elif found.state == "closed":
            note = "left closed: a person closed it"
        return _result(effect, "updated" if done else "unchanged", found, "; ".join([*done, note]).strip("; "))


def _assignees(hub: Hub, effect: FileIssue) -> tuple[str, ...]:
    """Whom to assign a new issue to: the owners the effect names (from a PR run's checkout), else the code owners
    ``CODEOWNERS`` on the default branch names for its path; nobody with ``issues.assign_owners: false``."""
    if not hub.assign_owners or not effect.view.path:
        return ()
    if effect.assignees is not None:
        return effect.assignees[:MAX_ASSIGNEES]
    return code_owners(hub, effect.view.path)


class CloseIssueHandler:
    """Closes an issue Gauntlet filed, with a comment saying why; a closed or unknown issue is left alone."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The issue filed earlier under the same key, if any."""
        return find_issue(hub, effect.key)

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Comment the reason (once) and close the issue."""
        assert isinstance(effect, CloseIssue)
        if existing is None or existing.number is None:
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="no issue to close")
        if isinstance(existing, FoundIssue) and existing.state == "closed":
            return _result(effect, "unchanged", existing, "already closed")
        comments = existing.comments if isinstance(existing, FoundIssue) else None
        comment_once(hub, existing.number, body_of(effect), comments=comments)
        hub.client.request(
            "PATCH",
            f"/repos/{hub.repo.full_name}/issues/{existing.number}",
            body={"state": "closed", "state_reason": "completed"},
        )
        return _result(effect, "updated", existing, "closed")


def ensure_labels(hub: Hub, names: Iterable[str], present: set[str] | None = None) -> list[str]:
    """Create whichever of ``names`` the repository lacks; return the ones created.

    Without ``present``, one listing call, then one call per missing label. With ``present`` (the labels seen on
    Gauntlet's issues while looking for one), those need nothing and each other one is created straight away:
    a label Gauntlet's issues do not carry is almost always one it never created. A label that exists already
    (422 ``already_exists``, or created meanwhile by a concurrent run) counts as present.

    :param present: label names known to exist, lower case.
    """
    path = f"/repos/{hub.repo.full_name}/labels"
    have = present if present is not None else {str(label["name"]).lower() for label in paged(hub, path)}
    created: list[str] = []
    for name in dict.fromkeys(names):
        if name.lower() in have:
            continue
        colour, description = LABELS.get(name, ("ededed", "Used by Gauntlet"))
        try:
            hub.client.request("POST", path, body={"name": name, "color": colour, "description": description})
        except Rejected:
            continue  # it exists: created by hand, or meanwhile by a concurrent run
        created.append(name)
    return created
