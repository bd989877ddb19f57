"""Revert PRs, built with the Git Data API as a file-level revert (DESIGN §5). No checkout, no force-push.

Theory of operation. The culprit ``C`` is compared with its FIRST parent ``P`` (culprits are counted on
first-parent history, so a merge is reverted against the branch it was merged into). Every path whose blob
differs between ``P`` and ``C`` is a path ``C`` changed. For each such path the base branch's head ``H``
decides:

- ``H`` still has ``C``'s version: the path goes back to ``P``'s version (deleted if ``P`` did not have it);
- ``H`` already has ``P``'s version: nothing to do for it (reverted by hand);
- anything else: the path changed again since the culprit. That is a conflict: no PR, a needs-human issue
  naming the conflicting paths instead.

The revert commit is ``H``'s tree with those paths replaced, parented on ``H``, pushed to the fixed branch
``gauntlet/revert-<sha>`` and opened as ``Revert "<subject>"`` with ``This reverts commit <sha>.`` in the body. A
revert PR already open for the culprit is reused; one closed without merging is never recreated (a person
decided against it).

Cost. When the culprit is still the head (``H`` is ``C``, the usual case for a break caught by its own run),
every path ``C`` changed goes back to ``P``'s version and nothing else differs: the revert's tree is ``P``'s
tree, which the run's history already read (``OpenRevertPR.parent_tree``). Building it then takes one read of
the ref and one ``POST git/commits``. Otherwise the three trees are read and compared as above.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from gauntlet.effects.base import EffectResult, Existing, Status
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import Effect, FileIssue, OpenRevertPR, WithdrawRevertPR
from gauntlet.effects.views import IssueView
from gauntlet.github.client import NotFound, Rejected
from gauntlet.github.hub import is_ours
from gauntlet.github.issues import comment_once, file_issue
from gauntlet.github.pulls import FoundPull, claim_branch, find_pull, is_pull_ours, known_pull, open_pull
from gauntlet.models import RevertPRFact, RevertPRState
from gauntlet.untrusted import redact

if TYPE_CHECKING:
    from gauntlet.github.hub import Hub

__all__ = [
    "SHORT_SHA",
    "Built",
    "Entry",
    "RevertHandler",
    "RevertPlan",
    "WithdrawHandler",
    "build_revert",
    "conflict_issue",
    "not_built",
    "plan_revert",
    "read_tree",
    "revert_branch",
    "revert_message",
    "revert_pr_facts",
    "revert_title",
    "tree_edits",
]

#: Characters of the culprit's SHA in its branch name and effect key.
SHORT_SHA = 12


@dataclass(frozen=True)
class Entry:
    """One file of a tree: mode, object type and object SHA."""

    mode: str
    type: str
    sha: str


Tree = Mapping[str, Entry]


@dataclass(frozen=True)
class RevertPlan:
    """What reverting the culprit on the current head means, path by path."""

    changed: tuple[str, ...]
    restore: tuple[str, ...]
    already: tuple[str, ...]
    conflicts: tuple[str, ...]


@dataclass(frozen=True)
class Built:
    """The outcome of :func:`build_revert`: a commit to push, or why there is none."""

    outcome: Literal["commit", "conflict", "empty", "already", "too_large"]
    reverted: str
    sha: str = ""
    paths: tuple[str, ...] = ()


def revert_branch(culprit: str) -> str:
    """The fixed branch of the revert PR for ``culprit``."""
    return f"gauntlet/revert-{culprit[:SHORT_SHA]}"


def revert_title(subject: str) -> str:
    """``Revert "<subject>"``, like ``git revert``; redacted, since titles and commit messages are written as is."""
    return f'Revert "{" ".join(redact(subject).split())}"'


def revert_message(subject: str, culprit: str) -> str:
    """The revert commit's message, like ``git revert``'s."""
    return f"{revert_title(subject)}\n\nThis reverts commit {culprit}.\n"


def plan_revert(parent: Tree, culprit: Tree, head: Tree) -> RevertPlan:
    """Sort the paths the culprit changed into restore / already reverted / conflict (pure).

    :param parent: the culprit's first parent's files.
    :param culprit: the culprit's files.
    :param head: the base branch head's files.
    """
    changed = tuple(sorted(path for path in parent.keys() | culprit.keys() if parent.get(path) != culprit.get(path)))
    restore, already, conflicts = [], [], []
    for path in changed:
        now = head.get(path)
        if now == culprit.get(path):
            restore.append(path)
        elif now == parent.get(path):
            already.append(path)
        else:
            conflicts.append(path)
    return RevertPlan(changed=changed, restore=tuple(restore), already=tuple(already), conflicts=tuple(conflicts))


def tree_edits(paths: tuple[str, ...], parent: Tree) -> list[dict[str, Any]]:
    """``POST git/trees`` entries putting ``paths`` back to ``parent`` (``sha: null`` deletes a path)."""
    edits: list[dict[str, Any]] = []
    for path in paths:
        entry = parent.get(path)
        if entry is None:
            edits.append({"path": path, "mode": "100644", "type": "blob", "sha": None})
        else:
            edits.append({"path": path, "mode": entry.mode, "type": entry.type, "sha": entry.sha})
    return edits


def read_tree(hub: Hub, rev: str) -> tuple[str, dict[str, Entry]] | None:
    """The tree SHA of commit ``rev`` and its files (blobs and submodules, not directories).

    ``None`` when GitHub truncated the listing (over 100,000 entries or 7 MB): the revert cannot then be
    computed file by file.
    """
    tree = hub.client.request("GET", f"/repos/{hub.repo.full_name}/git/trees/{rev}", params={"recursive": "1"})
    if tree.get("truncated"):
        return None
    files = {
        str(item["path"]): Entry(mode=str(item["mode"]), type=str(item["type"]), sha=str(item["sha"]))
        for item in tree["tree"]
        if item.get("type") != "tree"
    }
    return str(tree["sha"]), files


def build_revert(hub: Hub, culprit: str, base: str, subject: str, *, parent_tree: str | None = None) -> Built:
    """Build (but do not push) the revert commit of ``culprit`` on top of ``base``'s head.

    :param culprit: the full SHA of the commit to revert.
    :param base: the branch the revert goes into.
    :param subject: the culprit's subject line, for the commit message.
    :param parent_tree: the tree SHA of the culprit's first parent, when known and the culprit changed files:
        while the culprit is ``base``'s head, the revert is that tree (module docstring).
    """
    repo = f"/repos/{hub.repo.full_name}"
    head_sha = str(hub.client.request("GET", f"{repo}/git/ref/heads/{quote(base, safe='/')}")["object"]["sha"])
    if parent_tree is not None and head_sha == culprit:
        return _commit_revert(hub, culprit, subject, parent_tree, head_sha, ())
    commit = hub.client.request("GET", f"{repo}/git/commits/{culprit}")
    parents = commit.get("parents") or []
    if not parents:
        return Built(outcome="empty", reverted=culprit)  # a root commit: there is nothing before it to go back to
    revs = (str(parents[0]["sha"]), culprit, head_sha)
    read = {rev: read_tree(hub, rev) for rev in dict.fromkeys(revs)}  # the head is often the culprit itself
    trees = [read[rev] for rev in revs]
    if None in trees:
        return Built(outcome="too_large", reverted=culprit)
    (_, before), (_, after), (head_tree, now) = (t for t in trees if t is not None)
    plan = plan_revert(before, after, now)
    if not plan.changed:
        return Built(outcome="empty", reverted=culprit)
    if plan.conflicts:
        return Built(outcome="conflict", reverted=culprit, paths=plan.conflicts)
    if not plan.restore:
        return Built(outcome="already", reverted=culprit, paths=plan.already)
    tree = hub.client.request(
        "POST", f"{repo}/git/trees", body={"base_tree": head_tree, "tree": tree_edits(plan.restore, before)}
    )
    return _commit_revert(hub, culprit, subject, str(tree["sha"]), head_sha, plan.restore)


def _commit_revert(hub: Hub, culprit: str, subject: str, tree: str, head: str, paths: tuple[str, ...]) -> Built:
    made = hub.client.request(
        "POST",
        f"/repos/{hub.repo.full_name}/git/commits",
        body={"message": revert_message(subject, culprit), "tree": tree, "parents": [head]},
    )
    return Built(outcome="commit", reverted=culprit, sha=str(made["sha"]), paths=paths)


def conflict_issue(
    repository: str, sha: str, subject: str, paths: tuple[str, ...], evidence: tuple[str, ...] = ()
) -> FileIssue:
    """The needs-human issue filed instead of a revert of ``sha`` that does not apply cleanly.

    :param paths: the files changed again since ``sha``.
    :param evidence: the failing runs and findings that asked for the revert.
    """
    short = sha[:SHORT_SHA]
    view = IssueView(
        repository=repository,
        summary=f"Gauntlet could not revert {short} ({subject}): files it changed have changed since.",
        commit=sha,
        decision="no revert PR (reason: conflict)",
        evidence=(*(f"changed again since {short}: `{path}`" for path in paths), *evidence),
        resolve="revert or fix the commit by hand; Gauntlet will not open a revert PR for it.",
    )
    return FileIssue(
        kind="needs-human", ident=f"revert-conflict-{short}", title=f"Revert of {short} conflicts: {subject}", view=view
    )


_REASONS = {
    "empty": "the commit changed no files",
    "already": "already reverted on the base branch",
    "too_large": "the repository tree is too large to revert file by file",
}


def not_built(hub: Hub, effect: Effect, built: Built, subject: str, evidence: tuple[str, ...]) -> EffectResult | None:
    """``None`` when ``built`` is a commit; else the skipped result, after filing the issue a conflict needs.

    :param subject: the reverted commit's subject, for the issue.
    :param evidence: the failing runs and findings that asked for the revert, for the issue.
    """
    if built.outcome == "commit":
        return None
    if built.outcome != "conflict":
        return EffectResult(type=effect.type, key=effect.key, status="skipped", detail=_REASONS[built.outcome])
    repository = hub.repo.full_name
    filed = file_issue(hub, conflict_issue(repository, built.reverted, subject, built.paths, evidence))
    return EffectResult(
        type=effect.type,
        key=effect.key,
        status="skipped",
        url=filed.url,
        detail=f"conflict: {', '.join(built.paths)}; needs-human issue #{filed.number}",
    )


def _author(hub: Hub, effect: OpenRevertPR) -> str | None:
    """The culprit's author's login, as GitHub's commit named it in the run's history (which maps e-mails to users).

    Nobody (no review request) when GitHub knew no user for it, a bot, or Gauntlet itself.
    """
    login = effect.view.author
    if login is None or login.endswith("[bot]") or is_ours(login, hub.bot_login):
        return None
    return str(login)


def revert_pr_facts(hub: Hub, known: Mapping[str, int]) -> tuple[RevertPRFact, ...]:
    """What GitHub says now about the revert PRs the state knows (one call each), for the engine's revert safety.

    The engine refuses to revert a culprit again (``already_reverted``) or after a person closed its revert PR,
    and ends a breakage whose revert PR was merged; this is what it reads. The state holds every revert PR's
    number (the branch record, and the index for one whose run died before saving the record), so no listing
    is needed; a PR that is not Gauntlet's from its fixed branch (the number was reused) says nothing.

    :param known: culprit SHA (or its first :data:`SHORT_SHA` characters) -> PR number, for the PRs to read.
    """
    facts: list[RevertPRFact] = []
    for culprit, number in sorted(known.items()):
        try:
            pull = hub.client.request("GET", f"/repos/{hub.repo.full_name}/pulls/{int(number)}")
        except NotFound:
            continue
        if not isinstance(pull, dict) or not is_pull_ours(hub, pull, revert_branch(culprit)):
            continue
        state: RevertPRState = "open" if pull.get("state") == "open" else "closed_unmerged"
        if pull.get("merged_at"):
            state = "merged"
        facts.append(RevertPRFact(culprit=culprit[:SHORT_SHA], number=int(pull["number"]), state=state))
    return tuple(facts)


class RevertHandler:
    """``open_revert_pr``: one revert PR per culprit, ever."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The revert PR the state index names for the culprit; an unnamed one is looked for if its branch exists."""
        assert isinstance(effect, OpenRevertPR)
        return known_pull(hub, effect.key, revert_branch(effect.culprit))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Reuse, refuse (closed unmerged), or build and open the revert PR; a conflict files an issue instead."""
        assert isinstance(effect, OpenRevertPR)
        if isinstance(existing, FoundPull):
            return self._existing(effect, existing)
        built = build_revert(hub, effect.culprit, effect.base, effect.view.subject, parent_tree=effect.parent_tree)
        branch = revert_branch(effect.culprit)
        if built.outcome != "commit":
            # Nothing to push: a revert PR a run opened and lost from the state (merged, say) says more than that.
            found = find_pull(hub, effect.key, branch)
            if found is not None:
                return self._existing(effect, found)
        skipped = not_built(hub, effect, built, effect.view.subject, (*effect.view.failing_runs, *effect.view.evidence))
        if skipped is not None:
            return skipped
        earlier = claim_branch(hub, effect.key, branch, built.sha)
        if earlier is not None:
            return self._existing(effect, earlier)
        try:
            pull = open_pull(hub, effect.key, branch, effect.base, revert_title(effect.view.subject), body_of(effect))
        except Rejected as exc:
            return EffectResult(type=effect.type, key=effect.key, status="failed", detail=str(exc))
        detail = self._request_review(hub, effect, pull)
        return EffectResult(
            type=effect.type, key=effect.key, status="created", number=pull.number, url=pull.url, detail=detail
        )

    def _existing(self, effect: OpenRevertPR, pull: FoundPull) -> EffectResult:
        status: Status
        if pull.state == "open":
            status, detail = "unchanged", "open revert PR reused"
        elif pull.merged:
            status, detail = "unchanged", "revert PR already merged"
        else:
            status, detail = "skipped", "revert PR was closed without merging: never recreated"
        return EffectResult(
            type=effect.type, key=effect.key, status=status, number=pull.number, url=pull.url, detail=detail
        )

    def _request_review(self, hub: Hub, effect: OpenRevertPR, pull: FoundPull) -> str:
        login = _author(hub, effect)
        if login is None:
            return ""
        try:
            hub.client.request(
                "POST",
                f"/repos/{hub.repo.full_name}/pulls/{pull.number}/requested_reviewers",
                body={"reviewers": [login]},
            )
        except (Rejected, NotFound):
            # GitHub refuses a reviewer who is not a collaborator or who opened the PR. The PR stands either
            # way: a missing review request must not fail (or, on a re-run, repeat) the revert.
            return f"review not requested from {login}"
        return f"review requested from {login}"


class WithdrawHandler:
    """``withdraw_revert_pr``: close Gauntlet's still-open revert PR, saying why; anything else is left alone."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The revert PR opened for the culprit, in any state."""
        assert isinstance(effect, WithdrawRevertPR)
        return find_pull(hub, f"revert:{effect.culprit[:12]}", revert_branch(effect.culprit))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Comment the reason (once) and close the PR; a merged or closed one is never touched (nor reopened)."""
        assert isinstance(effect, WithdrawRevertPR)
        if not isinstance(existing, FoundPull) or existing.number is None:
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="no revert PR to withdraw")
        if existing.state != "open":
            detail = "revert PR already merged" if existing.merged else "revert PR already closed"
            return EffectResult(
                type=effect.type, key=effect.key, status="unchanged", number=existing.number, detail=detail
            )
        comment_once(hub, existing.number, body_of(effect))
        hub.client.request("PATCH", f"/repos/{hub.repo.full_name}/pulls/{existing.number}", body={"state": "closed"})
        return EffectResult(
            type=effect.type,
            key=effect.key,
            status="updated",
            number=existing.number,
            url=existing.url,
            detail="closed",
        )
