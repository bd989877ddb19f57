"""A pull request's review comments and reviews, as GitHub's REST API lists them -> ``review`` findings.

Pure: API JSON in (untrusted: any item may be malformed and is then skipped), findings out.

- A **thread** (a comment and its replies, ``in_reply_to_id``) is one finding, keyed by its first comment's
  id, so an edit updates the finding instead of making a new one. Its severity is what the first comment's
  first line states (``ingest/comment.py``: Conventional Comments, severity words, bots' badges and
  headings), through the severity table; a comment that states nothing is ``unlabelled``.
- A **review**'s body is a finding when it states a severity, or when it requests changes (``changes_requested``)
  and its author has not approved since. Approvals, dismissed and pending reviews are not findings.
- A thread is **closed** (no finding, so ``fixed`` in the next iteration) when it is outdated (``position``
  and ``line`` are ``null``: its line left the diff), when the pull request's author replied that it is done
  (``done``, ``fixed``, ``addressed in <sha>``), or when its first comment was deleted.
- Only trusted authors count (:class:`Trust`); Gauntlet's own comments never do.

See https://docs.github.com/rest/pulls/comments and https://docs.github.com/rest/pulls/reviews.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gauntlet.ingest.comment import DEFAULT_SEVERITY, severity_of, stated_label
from gauntlet.ingest.fingerprint import make_fingerprint
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import excerpt, one_line
from gauntlet.ingest.values import as_text
from gauntlet.models import Finding, Kind, ReviewLabel, Severity

__all__ = ["TRUSTED_ASSOCIATIONS", "Trust", "answers", "review_findings"]

#: ``author_association`` values of people with a standing in the repository (owner, organisation member,
#: invited collaborator); ``CONTRIBUTOR``, ``FIRST_TIME_CONTRIBUTOR`` and ``NONE`` are anyone.
TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
_GAUNTLET_MARKER = "<!-- gauntlet:key="
_ANSWER = re.compile(
    r"^(?:done|fixed|addressed|resolved)\b(?!\s*\?)(?:\s+(?:in|by|with)\s+[0-9a-f]{7,40}\b)?(?![^.!,;:\s])", re.I
)
_LESSON = re.compile(r"^(?:lesson|rule)\s*:\s*(?P<rule>.+)$", re.I)
_EMPHASIS = re.compile(r"[*`~]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
# A thread's link goes into Markdown as a link target: nothing that could end it or start markup.
_URL = re.compile(r"https?://[^\s()<>|\[\]\"'`\\]{1,2000}")
_CWE = re.compile(r"\bCWE-(\d{1,5})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Trust:
    """Whose review comments count.

    :param maintainers: people (not bots) whose ``author_association`` is owner, member or collaborator.
    :param bots: bot logins that count (``coderabbitai[bot]``), compared case-insensitively.
    :param gauntlet_login: Gauntlet's own login: never counted, whatever the rest says.
    """

    maintainers: bool = True
    bots: frozenset[str] = frozenset()
    gauntlet_login: str = "github-actions[bot]"

    def trusts(self, user: Mapping[str, Any], association: str | None) -> bool:
        """Whether a comment by ``user`` (a ``simple-user``) with ``association`` counts."""
        login = (as_text(user.get("login")) or "").lower()
        if not login or login == self.gauntlet_login.lower():
            return False
        if user.get("type") == "Bot" or login.endswith("[bot]"):
            return login in {bot.lower() for bot in self.bots}
        return self.maintainers and association in TRUSTED_ASSOCIATIONS


def answers(body: str) -> bool:
    """Whether a reply says the thread was dealt with: ``done``, ``Fixed.``, ``addressed in 1a2b3c4``."""
    first = next((line.strip() for line in body.splitlines() if line.strip() and not line.startswith(">")), "")
    return bool(_ANSWER.match(_EMPHASIS.sub("", first)))


def review_findings(
    comments: Iterable[Any],
    reviews: Iterable[Any],
    *,
    pr_author: str | None,
    trust: Trust,
    severity: Mapping[ReviewLabel, Severity | None] = DEFAULT_SEVERITY,
    limits: Limits = DEFAULT_LIMITS,
) -> list[Finding]:
    """The open ``review`` findings of a pull request's review threads and reviews.

    :param comments: ``GET /pulls/{n}/comments`` items (every page).
    :param reviews: ``GET /pulls/{n}/reviews`` items (every page), oldest first.
    :param pr_author: the pull request's author, whose replies can close a thread; the author's own threads and
        reviews are notes to self, never findings that block their PR.
    :param trust: whose comments count.
    :param severity: the severity table (defaults, with the configuration's ``reviews.severity`` over them).
    """
    items = [c for c in comments if isinstance(c, dict) and isinstance(c.get("id"), int)]
    replies: dict[int, list[Mapping[str, Any]]] = {}
    for item in items:
        parent = item.get("in_reply_to_id")
        if isinstance(parent, int):
            replies.setdefault(parent, []).append(item)
    found: list[Finding] = []
    for item in items:
        if item.get("in_reply_to_id") is None and _open_thread(item, replies.get(item["id"], []), pr_author, trust):
            finding = _finding(item, ("thread", item["id"]), severity, limits, unlabelled=severity.get("unlabelled"))
            found.extend([finding] if finding else [])
    others = [r for r in reviews if isinstance(r, dict) and not _by(r, pr_author)]
    found.extend(_review_findings(others, trust, severity, limits))
    return found[: limits.max_findings]


def _by(item: Mapping[str, Any], login: str | None) -> bool:
    """True when ``item`` was written by ``login`` (GitHub logins compare without case)."""
    return bool(login) and (as_text(_user(item).get("login")) or "").lower() == (login or "").lower()


def _open_thread(
    root: Mapping[str, Any], replies: Sequence[Mapping[str, Any]], author: str | None, trust: Trust
) -> bool:
    if _by(root, author) or not trust.trusts(_user(root), as_text(root.get("author_association"))):
        return False  # the author's own thread is a note to self
    # Outdated: GitHub nulls both once the commented line is gone from the diff (file comments have neither).
    if root.get("subject_type") != "file" and root.get("position") is None and root.get("line") is None:
        return False
    by_author = [r for r in replies if _by(r, author)]
    return not any(answers(as_text(r.get("body")) or "") for r in by_author)


def _review_findings(
    reviews: Sequence[Mapping[str, Any]], trust: Trust, severity: Mapping[ReviewLabel, Severity | None], limits: Limits
) -> list[Finding]:
    approved_at: dict[str, int] = {}  # a reviewer's latest approval, by position in the (oldest-first) list
    for index, review in enumerate(reviews):
        if review.get("state") == "APPROVED":
            approved_at[(as_text(_user(review).get("login")) or "").lower()] = index
    found: list[Finding] = []
    for index, review in enumerate(reviews):
        state = review.get("state")
        login = (as_text(_user(review).get("login")) or "").lower()
        if state not in ("COMMENTED", "CHANGES_REQUESTED", "APPROVED") or approved_at.get(login, -1) > index:
            continue
        if not isinstance(review.get("id"), int) or not trust.trusts(
            _user(review), as_text(review.get("author_association"))
        ):
            continue
        fallback = severity.get("changes_requested") if state == "CHANGES_REQUESTED" else None
        finding = _finding(review, ("review", review["id"]), severity, limits, unlabelled=fallback)
        found.extend([finding] if finding else [])
    return found


def _finding(
    item: Mapping[str, Any],
    key: tuple[str, int],
    table: Mapping[ReviewLabel, Severity | None],
    limits: Limits,
    *,
    unlabelled: Severity | None,
) -> Finding | None:
    body = (as_text(item.get("body")) or "")[:65_536]
    url = as_text(item.get("html_url"))
    if _GAUNTLET_MARKER in body or not body.strip() or not url or not _URL.fullmatch(url):
        return None
    stated = stated_label(body)
    level = severity_of(stated, table) if stated else unlabelled
    if level is None:
        return None
    first = next((line for line in body.splitlines() if line.strip() and not line.startswith(">")), "")
    message = one_line((stated.subject if stated else "") or _EMPHASIS.sub("", first), limits) or "review comment"
    cwe = _CWE.search(body)
    kind: Kind = "security" if cwe or (stated and stated.category == "security") else "review"
    path = repo_relative(as_text(item.get("path")))
    line = _position(item.get("line")) or _position(item.get("original_line"))
    return Finding(
        fingerprint=make_fingerprint("github-review", *map(str, key)),
        source="review",
        tool=(as_text(_user(item).get("login")) or "").lower()[:64] or None,
        kind=kind,
        severity=level,
        path=path,
        line=line if path else None,
        rule=f"CWE-{cwe.group(1)}" if cwe else None,
        message=message,
        excerpt=excerpt(body, limits),
        category=stated.category if stated else None,
        rule_learned=_lesson(body, limits),
        url=url,
    )


def _lesson(body: str, limits: Limits) -> str | None:
    for line in body.splitlines():
        match = _LESSON.match(_EMPHASIS.sub("", line).strip())
        if match:
            return one_line(match.group("rule"), limits) or None
    return None


def _user(item: Mapping[str, Any]) -> Mapping[str, Any]:
    user = item.get("user")
    return user if isinstance(user, dict) else {}


def _position(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**31 else None
