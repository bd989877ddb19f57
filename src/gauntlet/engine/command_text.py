"""The words of command replies: the help, the status and one line per accepted risk.

Plain strings, rendered as data by ``templates/reply.md.j2`` (never as template source).
"""

from __future__ import annotations

from gauntlet.config import CommandsConfig, Config
from gauntlet.engine.authorise import required_permission
from gauntlet.engine.commands import COMMAND_NAMES, CommandName
from gauntlet.engine.loop import decide_iteration
from gauntlet.state.pr import FindingRecord, PRRecord

__all__ = ["USAGE", "help_lines", "risk_line", "status_lines"]

#: Each command's usage and what it does (``docs/commands.md`` says more).
USAGE: dict[CommandName, tuple[str, str]] = {
    "help": ("/gauntlet help", "this list"),
    "status": ("/gauntlet status", "the latest iteration, accepted risks and recovery attempts"),
    "accept-risk": (
        "/gauntlet accept-risk [all|majors|minors|FINGERPRINT[,…]] [reason…]",
        "accept open findings (criticals only by fingerprint): one issue each, and the check stops failing on them",
    ),
    "retry": ("/gauntlet retry", "rerun the failed jobs of the latest workflow run"),
    "approve": ("/gauntlet approve PROPOSAL", "approve a self-healing proposal"),
    "reject": ("/gauntlet reject PROPOSAL [reason…]", "reject a self-healing proposal"),
    "reset": ("/gauntlet reset", "forget this pull request's recovery attempts after a human sorted it out"),
    "flaky": (
        "/gauntlet flaky TEST [reason…]",
        "mark a test flaky (by id or fingerprint): it fails no check, justifies no revert",
    ),
    "not-flaky": ("/gauntlet not-flaky TEST", "say a test is not flaky, whatever its history says"),
    "known": (
        "/gauntlet known TEST [reason…]",
        "file a known-failure issue from this PR's failure (by test id or fingerprint): matching failures stop "
        "failing checks while it is open",
    ),
}


def help_lines(config: CommandsConfig) -> tuple[str, ...]:
    """One line per command: usage, who may run it, what it does."""
    lines = []
    for name in COMMAND_NAMES:
        usage, what = USAGE[name]
        need = required_permission(name, config)
        who = "anyone" if need == "none" else f"{need} permission"
        lines.append(f"`{usage}` ({who}): {what}")
    return tuple(lines)


def risk_line(finding: FindingRecord) -> str:
    """One accepted finding: fingerprint, severity, kind, where and what."""
    where = f" in `{finding.path}{f':{finding.line}' if finding.line else ''}`" if finding.path else ""
    return f"`{finding.fingerprint[:12]}` {finding.severity} {finding.kind}{where}: {finding.message[:200]}"


def status_lines(pr: PRRecord | None, config: Config) -> tuple[str, ...]:
    """The PR's latest iteration, its open counts, accepted risks and recovery attempts."""
    current = pr.current if pr is not None else None
    if pr is None or current is None:
        return ("Gauntlet has not seen a CI run on this pull request yet.",)
    decision = decide_iteration(current, (risk.fingerprint for risk in pr.accepted_risks))
    lines = [
        f"Iteration {decision.iteration} on `{current.head_sha[:7]}`: {decision.action.replace('_', ' ')} "
        f"({decision.criticals} critical, {decision.majors} major, {decision.minors} minor open; "
        f"the check fails on {config.gauntlet.fail_on}).",
        f"{len(pr.accepted_risks)} accepted risk{'s' if len(pr.accepted_risks) != 1 else ''}; "
        f"{len(pr.attempts)} recovery attempt{'s' if len(pr.attempts) != 1 else ''} recorded.",
    ]
    lines.extend(f"`{risk.fingerprint[:12]}` accepted by {risk.by}" for risk in pr.accepted_risks[-10:])
    return tuple(lines)
