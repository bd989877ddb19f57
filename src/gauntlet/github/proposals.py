"""Self-healing proposal PRs: learned rules promoted into the agent-rules file, and their rollbacks (DESIGN §3).

A proposal edits one file, the repository's agent-rules file (the first that exists of ``AGENTS.md``,
``CLAUDE.md``, ``.github/copilot-instructions.md``, ``.cursor/rules/gauntlet.mdc``; else ``AGENTS.md`` is
created), and only between Gauntlet's own markers (:mod:`gauntlet.github.rules_file`). It is committed on the
fixed branch ``gauntlet/proposal-<id>`` and opened as a PR for a person to merge.

Each proposal costs three calls: the branch (``POST git/refs`` at the base's head), the edit (``PUT contents``,
which commits on that branch against the file's blob SHA) and the PR. What every proposal of a scan shares is
read once per run: the base's head and which rules file exists there, with its text (:class:`BaseFiles`).

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
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from gauntlet.effects.base import EffectResult, Existing, Status
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import Effect, OpenProposalPR
from gauntlet.github.client import NotFound, Rejected
from gauntlet.github.pulls import FoundPull, claim_branch, find_pull, known_pull, open_pull
from gauntlet.github.reverts import build_revert, not_built, revert_title
from gauntlet.github.rules_file import DEFAULT_RULES_FILE, RULES_FILES, RulesFileError, missing_rules, with_rules
from gauntlet.models import ProposalPRFact, ProposalPRState
from gauntlet.state.models import State

if TYPE_CHECKING:
    from gauntlet.github.hub import Hub

__all__ = [
    "BaseFiles",
    "ProposalHandler",
    "proposal_branch",
    "proposal_pr_facts",
    "proposal_title",
    "read_rules_file",
]

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


@dataclass(frozen=True)
class BaseFiles:
    """What a proposal edits, as the base branch has it: its head, the rules file, its text and blob SHA."""

    head: str
    path: str
    #: ``None`` when no rules file exists and :data:`DEFAULT_RULES_FILE` is created.
    text: str | None
    blob: str | None


def read_rules_file(hub: Hub, ref: str) -> tuple[str, str | None, str | None]:
    """The rules file to edit on ``ref``, its text and blob SHA (``None``, ``None`` when it must be created).

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
            text = base64.b64decode(str(content.get("content", ""))).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise RulesFileError(f"{path} is not UTF-8 text") from exc
        return path, text, str(content.get("sha") or "") or None
    return DEFAULT_RULES_FILE, None, None


def _result(effect: Effect, status: Status, pull: Existing | None = None, detail: str = "") -> EffectResult:
    number, url = (pull.number, pull.url) if pull is not None else (None, None)
    return EffectResult(type=effect.type, key=effect.key, status=status, number=number, url=url, detail=detail)


def _reused(effect: Effect, pull: FoundPull) -> EffectResult:
    """The result for a PR opened earlier: reused while open, never reopened once closed."""
    if pull.state == "open":
        return _result(effect, "unchanged", pull, "open PR reused")
    if pull.merged:
        return _result(effect, "unchanged", pull, "already merged")
    return _result(effect, "skipped", pull, "closed without merging: never recreated")


class ProposalHandler:
    """``open_proposal_pr``: one PR per proposal (and one per rollback), never reopened once closed."""

    def __init__(self) -> None:
        # A scan opens several proposals on the same base: its head and rules file are read once a run.
        self._bases: dict[str, BaseFiles] = {}

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """The proposal (or rollback) PR the state index names; an unnamed one is looked for if its branch exists."""
        assert isinstance(effect, OpenProposalPR)
        return known_pull(hub, effect.key, _branch(effect))

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Reuse the PR found, or commit the rules (or the rollback) and open it."""
        assert isinstance(effect, OpenProposalPR)
        if isinstance(existing, FoundPull):
            return _reused(effect, existing)
        if effect.rollback_of is not None:
            return self._rollback(hub, effect, effect.rollback_of)
        return self._propose(hub, effect)

    def _base(self, hub: Hub, base: str) -> BaseFiles:
        if base not in self._bases:
            repo = f"/repos/{hub.repo.full_name}"
            head = str(hub.client.request("GET", f"{repo}/git/ref/heads/{quote(base, safe='/')}")["object"]["sha"])
            path, text, blob = read_rules_file(hub, head)
            self._bases[base] = BaseFiles(head=head, path=path, text=text, blob=blob)
        return self._bases[base]

    def _propose(self, hub: Hub, effect: OpenProposalPR) -> EffectResult:
        try:
            base = self._base(hub, effect.base)
            if not missing_rules(base.text or "", effect.rules):
                # This proposal's own PR, merged by a run that lost it from the state, says more than that.
                earlier = find_pull(hub, effect.key, _branch(effect))
                if earlier is not None:
                    return _reused(effect, earlier)
                return _result(effect, "skipped", detail=f"the rules are already in {base.path}")
            updated = with_rules(base.text or "", effect.rules)
        except RulesFileError as exc:
            return _result(effect, "failed", detail=str(exc))
        branch = _branch(effect)
        earlier = claim_branch(hub, effect.key, branch, base.head)
        if earlier is not None:
            return _reused(effect, earlier)
        body: dict[str, str] = {
            "message": f"{proposal_title(effect)}\n\nGauntlet edits only its own section of {base.path}.\n",
            "content": base64.b64encode(updated.encode("utf-8")).decode("ascii"),
            "branch": branch,
        }
        if base.blob is not None:
            body["sha"] = base.blob
        hub.client.request("PUT", f"/repos/{hub.repo.full_name}/contents/{quote(base.path)}", body=body)
        return self._open(hub, effect, proposal_title(effect), body_of(effect))

    def _rollback(self, hub: Hub, effect: OpenProposalPR, proposal_id: str) -> EffectResult:
        merged = find_pull(hub, f"proposal:{proposal_id}", proposal_branch(proposal_id))
        if merged is None or not merged.merged or not merged.merge_commit_sha:
            return _result(effect, "skipped", detail=f"proposal {proposal_id} was not merged: nothing to roll back")
        sha = merged.merge_commit_sha
        built = build_revert(hub, sha, effect.base, merged.title)
        skipped = not_built(hub, effect, built, merged.title, effect.view.evidence)
        if skipped is not None:
            return skipped
        earlier = claim_branch(hub, effect.key, _branch(effect), built.sha)
        if earlier is not None:
            return _reused(effect, earlier)
        # First, so the line git and people look for survives even a body cut to GitHub's limit.
        body = f"This reverts commit {sha}.\n\n{body_of(effect)}"
        return self._open(hub, effect, revert_title(merged.title), body)

    def _open(self, hub: Hub, effect: OpenProposalPR, title: str, body: str) -> EffectResult:
        try:
            pull = open_pull(hub, effect.key, _branch(effect), effect.base, title, body)
        except Rejected as exc:
            return _result(effect, "failed", detail=str(exc))
        return _result(effect, "created", pull)


def _branch(effect: OpenProposalPR) -> str:
    return proposal_branch(effect.proposal_id, rollback=effect.rollback_of is not None)
