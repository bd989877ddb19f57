"""The text of each effect, rendered from its template. Shared by every backend."""

from __future__ import annotations

from markupsafe import Markup

from gauntlet.effects.models import (
    AnswerKnownRule,
    CloseIssue,
    CommentOnPR,
    Effect,
    FileIssue,
    OpenProposalPR,
    OpenRevertPR,
    React,
    RecordKnownHit,
    ReplyToComment,
    RerunFailedJobs,
    SetCheck,
    UpsertComment,
    WithdrawRevertPR,
    WriteSummary,
)
from gauntlet.effects.render import render
from gauntlet.effects.verdict import with_verdict

__all__ = ["body_of"]


def body_of(effect: Effect) -> str:
    """Render the body an effect writes (comment, check or job summary, issue, PR, reply)."""
    match effect:
        case UpsertComment():
            return render("pr_comment.md.j2", view=effect.view, key=str(effect.pr))
        case SetCheck():
            return with_verdict(render("check.md.j2", view=effect.view), effect)
        case WriteSummary():
            return render("summary.md.j2", view=effect.view)
        case FileIssue():
            # The block is built by known.block_text: JSON whose fence-, ping- and HTML-characters are escapes.
            block = Markup(effect.view.known_block)
            return render("issue.md.j2", view=effect.view, kind=effect.kind, ident=effect.ident, block=block)
        case OpenRevertPR():
            return render("revert_pr.md.j2", view=effect.view, key=effect.culprit[:12])
        case OpenProposalPR():
            return render("proposal_pr.md.j2", view=effect.view, rollback_of=effect.rollback_of)
        case ReplyToComment():
            return render("reply.md.j2", view=effect.view, key=effect.key.split(":", 1)[1])
        case CommentOnPR():
            return render("note.md.j2", view=effect.view, ident=effect.ident)
        case CloseIssue() | WithdrawRevertPR():
            return render("close_issue.md.j2", reason=effect.reason)
        case RecordKnownHit():
            return render(
                "known_hit.md.j2",
                key=effect.key.split(":", 1)[1],
                count=effect.count,
                pr=effect.pr,
                branch=effect.branch,
                last_sha=effect.last_sha,
            )
        case AnswerKnownRule():
            return render("known_rule.md.j2", key=effect.key.split(":", 1)[1], reason=effect.reason)
        case React() | RerunFailedJobs():
            return ""
