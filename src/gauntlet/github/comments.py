"""Comments Gauntlet writes on issues and PRs: the sticky PR comment and replies to commands (DESIGN §5).

A comment is Gauntlet's only if it carries the effect's hidden marker *and* was
written by Gauntlet's own identity: anyone can type a marker into a comment.
Lookup order: the id the state index remembers (one call), then the issue's
comments page by page (100 a page).

``react``: an emoji reaction on a command comment (🚀 or 😕, before anything else is done).

GitHub answers a repeated reaction with the existing one (200 instead of 201), so
creating is safe to repeat; the lookup only lets the report say ``unchanged``.
See https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from typing import Any

from gauntlet.effects.base import EffectResult, Existing, unchanged
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import (
    AnswerKnownRule,
    CommentOnPR,
    Effect,
    React,
    RecordKnownHit,
    ReplyToComment,
    UpsertComment,
)
from gauntlet.github.client import NotFound
from gauntlet.github.hub import Hub, find_earlier, paged
from gauntlet.models import evolve
from gauntlet.vocabulary import MARKER_PATTERN

__all__ = [
    "CommentGone",
    "KnownComment",
    "KnownHitComment",
    "KnownRuleAnswer",
    "ReactionHandler",
    "Reply",
    "StickyComment",
    "body_digest",
    "find_marked_comment",
    "marker_in",
]


def marker_in(body: str) -> str:
    """The hidden marker a rendered body starts with.

    :raises ValueError: the body carries no marker (a template bug).
    """
    found = MARKER_PATTERN.search(body)
    if found is None:
        raise ValueError("a body Gauntlet writes must carry a marker")
    return found.group()


def _authored(hub: Hub, comment: dict[str, Any], marker: str) -> bool:
    user = comment.get("user") or {}
    login = str(user.get("login", ""))
    return login.lower() == hub.bot_login.lower() and marker in str(comment.get("body") or "")


def _existing(comment: dict[str, Any]) -> Existing:
    return Existing(number=int(comment["id"]), url=comment.get("html_url"), body=comment.get("body"))


def find_marked_comment(hub: Hub, issue_number: int, marker: str, known: int | None) -> Existing | None:
    """Gauntlet's comment carrying ``marker`` on an issue or PR (the oldest), or ``None``.

    :param known: the comment id the state index holds, tried first.
    """
    prefix = f"/repos/{hub.repo.full_name}/issues"
    found = find_earlier(
        hub,
        None if known is None else f"{prefix}/comments/{known}",
        (f"{prefix}/{issue_number}/comments", {}),
        lambda comment: _authored(hub, comment, marker),
    )
    return None if found is None else _existing(found[0])


def _marked(hub: Hub, issue_number: int, marker: str) -> Iterator[dict[str, Any]]:
    """Gauntlet's comments carrying ``marker`` on an issue or PR, oldest first, page by page."""
    for comment in paged(hub, f"/repos/{hub.repo.full_name}/issues/{issue_number}/comments"):
        if _authored(hub, comment, marker):
            yield comment


def body_digest(body: str) -> str:
    """What the PR's record keeps of a comment's body: enough to tell whether it must change."""
    return hashlib.sha256(body.encode()).hexdigest()[:32]


class KnownComment(Existing):
    """The comment the PR's record names (nothing read): its id and the digest of the body Gauntlet wrote."""

    digest: str


def _write(hub: Hub, effect: Effect, issue_number: int, body: str, existing: Existing | None) -> EffectResult:
    """Create the comment, or edit the one found; an identical body is left alone."""
    prefix = f"/repos/{hub.repo.full_name}/issues"
    version = body_digest(body)
    if isinstance(existing, KnownComment) and existing.number is not None:
        if existing.digest == version:
            return EffectResult(
                type=effect.type, key=effect.key, status="unchanged", number=existing.number, version=version
            )
        try:
            edited = hub.client.request("PATCH", f"{prefix}/comments/{existing.number}", body={"body": body})
        except NotFound:  # deleted since: find it (or another copy) as a run without a record would
            existing = find_marked_comment(hub, issue_number, marker_in(body), None)
        else:
            return EffectResult(
                type=effect.type, key=effect.key, status="updated", version=version, **_identity(edited)
            )
    if existing is not None and existing.number is not None:
        if existing.body == body:
            return unchanged(effect, existing, version)
        edited = hub.client.request("PATCH", f"{prefix}/comments/{existing.number}", body={"body": body})
        return EffectResult(type=effect.type, key=effect.key, status="updated", version=version, **_identity(edited))
    marker = marker_in(body)

    def create() -> dict[str, Any]:
        created: dict[str, Any] = hub.client.request("POST", f"{prefix}/{issue_number}/comments", body={"body": body})
        return created

    def look() -> dict[str, Any] | None:
        found = find_marked_comment(hub, issue_number, marker, None)
        return None if found is None else {"id": found.number, "html_url": found.url}

    made = hub.client.create_once(f"comment on #{issue_number}", create, look)
    keeper = _settle(hub, issue_number, marker, int(made["id"]), body)
    return EffectResult(type=effect.type, key=effect.key, status="created", version=version, **_identity(keeper))


def _settle(hub: Hub, issue_number: int, marker: str, made: int, body: str) -> dict[str, Any]:
    """After creating: if a racing run created the same comment, keep the oldest and delete the others.

    Every racing run reaches the same verdict (the lowest id stays), so the PR ends up
    with one comment whichever run finishes first. Costs one listing, only when creating.
    """
    prefix = f"/repos/{hub.repo.full_name}/issues"
    ours = list(_marked(hub, issue_number, marker))
    if len(ours) <= 1:
        return next((c for c in ours if int(c["id"]) == made), {"id": made})
    keeper, *extra = sorted(ours, key=lambda c: int(c["id"]))
    for duplicate in extra:
        with contextlib.suppress(NotFound):  # the other run deleted it first
            hub.client.request("DELETE", f"{prefix}/comments/{int(duplicate['id'])}")
    if keeper.get("body") != body:
        keeper = hub.client.request("PATCH", f"{prefix}/comments/{int(keeper['id'])}", body={"body": body})
    return keeper


def _identity(comment: dict[str, Any]) -> dict[str, Any]:
    return {"number": int(comment["id"]), "url": comment.get("html_url")}


class StickyComment:
    """``upsert_comment``: the one comment per PR, edited in place; ``comment_mode`` decides how often."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The PR's sticky comment: as the PR's record names it (no call), else by its id or by listing.

        The record keeps the digest of the body last written, so an unchanged comment costs nothing and a
        changed one one edit; a comment deleted since is found again (or posted) when the edit answers 404.
        A PR whose record knows no comment gets one posted without listing first: the check after posting
        (``_settle``) keeps the oldest if a run that died before committing had posted one.
        """
        assert isinstance(effect, UpsertComment)
        if hub.comment_mode == "off":
            return None
        written = hub.written(effect.key)
        if written is not None:
            return KnownComment(number=written.number, digest=written.version)
        known = hub.known(effect.key)
        if known is None and hub.remembers():
            return None  # the PR's first run: only a run that died before its commit could have posted it
        return find_marked_comment(hub, effect.pr, marker_in(body_of(effect)), known)

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post or edit the comment (``always``: edit even when unchanged, so it shows the latest run)."""
        assert isinstance(effect, UpsertComment)
        if hub.comment_mode == "off":
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="comment_mode off")
        if effect.view.rules and hub.client.low_on_quota():
            # The learned rules are the part of the report that can wait: the next run with quota shows them.
            effect = evolve(effect, view=evolve(effect.view, rules=()))
        body = body_of(effect)
        if hub.comment_mode == "always" and isinstance(existing, KnownComment):
            existing = evolve(existing, digest="")
        elif hub.comment_mode == "always" and existing is not None:
            existing = evolve(existing, body=None)
        return _write(hub, effect, effect.pr, body, existing)


class Reply:
    """``reply_to_comment`` and ``comment_on_pr``: one comment per key, never posted twice."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The reply written earlier for this command (or the note for this ident), if any.

        A PR run whose record knows no such reply does not list the comments first: only a run that died
        before committing could have posted it, and the check after posting (``_settle``) removes the copy.
        """
        assert isinstance(effect, ReplyToComment | CommentOnPR)
        known = hub.known(effect.key)
        if known is None and hub.remembers():
            return None
        return find_marked_comment(hub, effect.issue_number, marker_in(body_of(effect)), known)

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post the reply, or bring the earlier one up to date."""
        assert isinstance(effect, ReplyToComment | CommentOnPR)
        return _write(hub, effect, effect.issue_number, body_of(effect), existing)


class KnownHitComment:
    """``record_known_hit``: one comment per PR (or branch) on a known-failure issue, edited in place.

    Found as the sticky comment is: what the record says it holds costs no call; a PR's first hit on the issue is
    posted without listing first (the check after posting keeps the oldest copy).
    """

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The comment this PR (or branch) wrote on the issue earlier, if any."""
        assert isinstance(effect, RecordKnownHit)
        written = hub.written(effect.key)
        if written is not None:
            return KnownComment(number=written.number, digest=written.version)
        known = hub.known(effect.key)
        if known is None and hub.remembers():
            return None
        return find_marked_comment(hub, effect.issue, marker_in(body_of(effect)), known)

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post the count, or edit the earlier comment when it changed (a deleted issue is skipped)."""
        assert isinstance(effect, RecordKnownHit)
        try:
            return _write(hub, effect, effect.issue, body_of(effect), existing)
        except NotFound:  # the issue was deleted or transferred since it was read
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="the issue is gone")


class KnownRuleAnswer:
    """``answer_known_rule``: says once, per version of the body, why a known-failure issue's rule is unusable.

    Always looked for on the issue (its key names the body's version, so what is found never needs editing):
    the engine stops planning it once the state index knows the answer.
    """

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The answer posted earlier for this version of the body, if any."""
        assert isinstance(effect, AnswerKnownRule)
        try:
            return find_marked_comment(hub, effect.issue, marker_in(body_of(effect)), hub.known(effect.key))
        except NotFound:
            return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post the answer unless it is there."""
        assert isinstance(effect, AnswerKnownRule)
        if existing is not None and existing.number is not None:
            return unchanged(effect, existing)
        try:
            return _write(hub, effect, effect.issue, body_of(effect), None)
        except NotFound:
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="the issue is gone")


class CommentGone(NotFound):
    """The command's comment no longer exists: someone deleted it before its run started."""


class ReactionHandler:
    """Adds Gauntlet's reaction to a comment once.

    Nothing is looked up first: GitHub answers a repeated reaction with the existing one (200, not 201), so
    posting is its own lookup (one call instead of two).
    """

    def _path(self, hub: Hub, effect: React) -> str:
        return f"/repos/{hub.repo.full_name}/issues/comments/{effect.comment_id}/reactions"

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """Nothing: the reaction's post finds an earlier one itself."""
        assert isinstance(effect, React)
        return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """React (GitHub keeps one reaction of a kind per user, so a repeat changes nothing).

        :raises CommentGone: the comment was deleted (GitHub answers 404 for its reactions).
        """
        assert isinstance(effect, React)
        try:
            status, _ = hub.client.send("POST", self._path(hub, effect), body={"content": effect.content})
        except NotFound as exc:
            raise CommentGone(f"comment {effect.comment_id} was deleted before Gauntlet could answer it") from exc
        return EffectResult(type=effect.type, key=effect.key, status="created" if status == 201 else "unchanged")
