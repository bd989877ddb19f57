"""Comments Gauntlet writes on issues and PRs: the sticky PR comment and replies to commands (DESIGN §5).

A comment is Gauntlet's only if it carries the effect's hidden marker *and* was
written by Gauntlet's own identity: anyone can type a marker into a comment.
Lookup order: the id the state index remembers (one call), then the issue's
comments page by page (100 a page).

``react``: an emoji reaction on a command comment (👀 on receipt, then 🚀 or 😕).

GitHub answers a repeated reaction with the existing one (200 instead of 201), so
creating is safe to repeat; the lookup only lets the report say ``unchanged``.
See https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CommentOnPR, Effect, React, ReplyToComment, UpsertComment
from gauntlet.github.client import NotFound
from gauntlet.github.hub import Hub, find_earlier, paged
from gauntlet.models import evolve
from gauntlet.vocabulary import MARKER_PATTERN

__all__ = ["CommentGone", "ReactionHandler", "Reply", "StickyComment", "find_marked_comment", "marker_in"]


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


def _write(hub: Hub, effect: Effect, issue_number: int, body: str, existing: Existing | None) -> EffectResult:
    """Create the comment, or edit the one found; an identical body is left alone."""
    prefix = f"/repos/{hub.repo.full_name}/issues"
    if existing is not None and existing.number is not None:
        if existing.body == body:
            return EffectResult(
                type=effect.type, key=effect.key, status="unchanged", number=existing.number, url=existing.url
            )
        edited = hub.client.request("PATCH", f"{prefix}/comments/{existing.number}", body={"body": body})
        return EffectResult(type=effect.type, key=effect.key, status="updated", **_identity(edited))
    marker = marker_in(body)

    def create() -> dict[str, Any]:
        created: dict[str, Any] = hub.client.request("POST", f"{prefix}/{issue_number}/comments", body={"body": body})
        return created

    def look() -> dict[str, Any] | None:
        found = find_marked_comment(hub, issue_number, marker, None)
        return None if found is None else {"id": found.number, "html_url": found.url}

    made = hub.client.create_once(f"comment on #{issue_number}", create, look)
    keeper = _settle(hub, issue_number, marker, int(made["id"]), body)
    return EffectResult(type=effect.type, key=effect.key, status="created", **_identity(keeper))


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
        """The PR's sticky comment: by the id in the state index, else by listing the PR's comments."""
        assert isinstance(effect, UpsertComment)
        if hub.comment_mode == "off":
            return None
        return find_marked_comment(hub, effect.pr, marker_in(body_of(effect)), hub.known(effect.key))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post or edit the comment (``always``: edit even when unchanged, so it shows the latest run)."""
        assert isinstance(effect, UpsertComment)
        if hub.comment_mode == "off":
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="comment_mode off")
        body = body_of(effect)
        if hub.comment_mode == "always" and existing is not None:
            existing = evolve(existing, body=None)
        return _write(hub, effect, effect.pr, body, existing)


class Reply:
    """``reply_to_comment`` and ``comment_on_pr``: one comment per key, never posted twice."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The reply written earlier for this command (or the note for this ident), if any."""
        assert isinstance(effect, ReplyToComment | CommentOnPR)
        return find_marked_comment(hub, effect.issue_number, marker_in(body_of(effect)), hub.known(effect.key))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Post the reply, or bring the earlier one up to date."""
        assert isinstance(effect, ReplyToComment | CommentOnPR)
        return _write(hub, effect, effect.issue_number, body_of(effect), existing)


class CommentGone(NotFound):
    """The command's comment no longer exists: someone deleted it before its run started."""


class ReactionHandler:
    """Adds Gauntlet's reaction to a comment once."""

    def _path(self, hub: Hub, effect: React) -> str:
        return f"/repos/{hub.repo.full_name}/issues/comments/{effect.comment_id}/reactions"

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """Gauntlet's reaction of this kind on the comment, if it is there (one call).

        :raises CommentGone: the comment was deleted (GitHub answers 404 for its reactions).
        """
        assert isinstance(effect, React)
        try:
            reactions = hub.client.request("GET", self._path(hub, effect), params={"content": effect.content})
        except NotFound as exc:
            raise CommentGone(f"comment {effect.comment_id} was deleted before Gauntlet could answer it") from exc
        for reaction in reactions:
            if str((reaction.get("user") or {}).get("login", "")).lower() == hub.bot_login.lower():
                return Existing(number=int(reaction["id"]))
        return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """React, unless the reaction is already there."""
        assert isinstance(effect, React)
        if existing is not None:
            return EffectResult(type=effect.type, key=effect.key, status="unchanged")
        hub.client.request("POST", self._path(hub, effect), body={"content": effect.content})
        return EffectResult(type=effect.type, key=effect.key, status="created")
