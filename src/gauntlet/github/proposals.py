"""Self-healing proposal PRs: learned rules promoted into the agent-rules file, and their rollbacks (DESIGN §3).

A proposal edits one file, the repository's agent-rules file (the first that exists of ``AGENTS.md``,
``CLAUDE.md``, ``.github/copilot-instructions.md``, ``.cursor/rules/gauntlet.mdc``; else ``AGENTS.md`` is
created), and only between Gauntlet's own markers (:mod:`gauntlet.github.rules_file`). It is committed with the
Git Data API on the fixed branch ``gauntlet/proposal-<id>`` and opened as a PR for a person to merge.

A rollback is a revert PR of the merged proposal: the proposal PR's merge commit is reverted file by file against
its first parent (:func:`gauntlet.github.reverts.build_revert`), on ``gauntlet/proposal-<id>-rollback``. If the
rules file changed since, that is a conflict and a needs-human issue is filed instead.

Like every PR Gauntlet opens, a proposal is found again by its branch in any state, and a proposal closed
without merging is never opened again.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING
from urllib.parse import quote

from gauntlet.effects.base import EffectResult, Existing, Status
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import Effect, OpenProposalPR
from gauntlet.github.client import NotFound, Rejected
from gauntlet.github.pulls import FoundPull, find_pull, open_pull, push_branch
from gauntlet.github.reverts import build_revert, not_built, revert_title
from gauntlet.github.rules_file import DEFAULT_RULES_FILE, RULES_FILES, RulesFileError, missing_rules, with_rules
from gauntlet.models import ProposalPRFact, ProposalPRState
from gauntlet.state.models import State

if TYPE_CHECKING:
    from gauntlet.github.hub import Hub

__all__ = ["ProposalHandler", "proposal_branch", "proposal_pr_facts", "proposal_title", "read_rules_file"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def proposal_branch(proposal_id: str, *, rollback: bool = False) -> str:
    """The fixed branch of a proposal (or of its rollback)."""
    return f"gauntlet/proposal-{_UNSAFE.sub('-', proposal_id)}" + ("-rollback" if rollback else "")


def proposal_pr_facts(hub: Hub, state: State) -> tuple[ProposalPRFact, ...]:
    """What GitHub says about the PR of each pending proposal: open, merged (and when) or closed unmerged.

    One call per pending proposal when the state index knows its PR's number, else one listing by its branch.
    """
    facts: list[ProposalPRFact] = []
    for proposal in state.proposals.proposals:
        if proposal.status != "pending":
            continue
        pull = find_pull(hub, f"proposal:{proposal.id}", proposal_branch(proposal.id))
        if pull is None:
            continue
        word: ProposalPRState = "open" if pull.state == "open" else "merged" if pull.merged else "closed"
        facts.append(ProposalPRFact(proposal_id=proposal.id, number=pull.number, state=word, merged_at=pull.merged_at))
    return tuple(facts)


def proposal_title(effect: OpenProposalPR) -> str:
    """``Gauntlet proposal <id> (<level>): rules for <component> / <defect type>``."""
    view = effect.view
    return f"Gauntlet proposal {view.proposal_id} ({view.level}): rules for {view.component} / {view.defect_type}"


def read_rules_file(hub: Hub, ref: str) -> tuple[str, str | None]:
    """The rules file to edit on ``ref`` and its text (``None`` when it must be created).

    :raises RulesFileError: the file is not UTF-8 text GitHub returns inline.
    """
    for path in RULES_FILES:
        try:
            content = hub.client.request(
                "GET", f"/repos/{hub.repo.full_name}/contents/{quote(path)}", params={"ref": ref}
            )
        except NotFound:
            continue
        if not isinstance(content, dict) or content.get("encoding") != "base64":
            raise RulesFileError(f"{path} is not a file GitHub returns inline (a directory, or over 1 MB)")
        try:
            return path, base64.b64decode(str(content.get("content", ""))).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise RulesFileError(f"{path} is not UTF-8 text") from exc
    return DEFAULT_RULES_FILE, None


def _result(effect: Effect, status: Status, pull: Existing | None = None, detail: str = "") -> EffectResult:
    number, url = (pull.number, pull.url) if pull is not None else (None, None)
    return EffectResult(type=effect.type, key=effect.key, status=status, number=number, url=url, detail=detail)


class ProposalHandler:
    """``open_proposal_pr``: one PR per proposal (and one per rollback), never reopened once closed."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The proposal (or rollback) PR opened earlier, in any state."""
        assert isinstance(effect, OpenProposalPR)
        return find_pull(hub, effect.key, proposal_branch(effect.proposal_id, rollback=effect.rollback_of is not None))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Reuse the PR found, or commit the rules (or the rollback) and open it."""
        assert isinstance(effect, OpenProposalPR)
        if isinstance(existing, FoundPull):
            if existing.state == "open":
                return _result(effect, "unchanged", existing, "open PR reused")
            if existing.merged:
                return _result(effect, "unchanged", existing, "already merged")
            return _result(effect, "skipped", existing, "closed without merging: never recreated")
        if effect.rollback_of is not None:
            return self._rollback(hub, effect, effect.rollback_of)
        return self._propose(hub, effect)

    def _propose(self, hub: Hub, effect: OpenProposalPR) -> EffectResult:
        repo = f"/repos/{hub.repo.full_name}"
        head = str(hub.client.request("GET", f"{repo}/git/ref/heads/{quote(effect.base, safe='/')}")["object"]["sha"])
        try:
            path, text = read_rules_file(hub, head)
            if not missing_rules(text or "", effect.rules):
                return _result(effect, "skipped", detail=f"the rules are already in {path}")
            updated = with_rules(text or "", effect.rules)
        except RulesFileError as exc:
            return _result(effect, "failed", detail=str(exc))
        head_tree = hub.client.request("GET", f"{repo}/git/commits/{head}")["tree"]["sha"]
        entry = {"path": path, "mode": "100644", "type": "blob", "content": updated}
        tree = hub.client.request("POST", f"{repo}/git/trees", body={"base_tree": head_tree, "tree": [entry]})
        message = f"{proposal_title(effect)}\n\nGauntlet edits only its own section of {path}.\n"
        commit = hub.client.request(
            "POST", f"{repo}/git/commits", body={"message": message, "tree": tree["sha"], "parents": [head]}
        )
        return self._open(hub, effect, str(commit["sha"]), proposal_title(effect), body_of(effect))

    def _rollback(self, hub: Hub, effect: OpenProposalPR, proposal_id: str) -> EffectResult:
        merged = find_pull(hub, f"proposal:{proposal_id}", proposal_branch(proposal_id))
        if merged is None or not merged.merged or not merged.merge_commit_sha:
            return _result(effect, "skipped", detail=f"proposal {proposal_id} was not merged: nothing to roll back")
        sha = merged.merge_commit_sha
        built = build_revert(hub, sha, effect.base, merged.title)
        skipped = not_built(hub, effect, built, merged.title, effect.view.evidence)
        if skipped is not None:
            return skipped
        # First, so the line git and people look for survives even a body cut to GitHub's limit.
        body = f"This reverts commit {sha}.\n\n{body_of(effect)}"
        return self._open(hub, effect, built.sha, revert_title(merged.title), body)

    def _open(self, hub: Hub, effect: OpenProposalPR, sha: str, title: str, body: str) -> EffectResult:
        branch = proposal_branch(effect.proposal_id, rollback=effect.rollback_of is not None)
        push_branch(hub, branch, sha)
        try:
            pull = open_pull(hub, effect.key, branch, effect.base, title, body)
        except Rejected as exc:
            return _result(effect, "failed", detail=str(exc))
        return _result(effect, "created", pull)
