"""What a run leaves in the job: step outputs, workflow-command annotations and notices (DESIGN §8).

``$GITHUB_OUTPUT`` takes ``name=value`` lines; a value that may span lines goes in
a heredoc whose delimiter is random, so a value cannot end it early and inject
other outputs. Workflow commands escape ``%``, CR and LF in messages, and also
``:`` and ``,`` in properties. GitHub shows at most 10 error, 10 warning and 10
notice annotations per step; more would be dropped silently, so they are capped
here with a count of what was left out.
See https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions

``write_summary``: the job summary, written to ``$GITHUB_STEP_SUMMARY`` (not an API call).

The file belongs to this step alone, so it is overwritten, not appended to: a
run that retries its state commit re-applies its plan and must not repeat the
summary. GitHub refuses summaries over 1 MiB; the text is cut below that.
See https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from gauntlet.effects.base import EffectResult
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CheckAnnotation, Effect, WriteSummary
from gauntlet.report import RunReport
from gauntlet.untrusted import redact_json

__all__ = [
    "ANNOTATIONS_PER_LEVEL",
    "MAX_SUMMARY_BYTES",
    "annotation_commands",
    "cap_summary",
    "escape_data",
    "escape_property",
    "output_values",
    "write_outputs",
    "write_summary",
]


ANNOTATIONS_PER_LEVEL = 10

_COMMAND = {"failure": "error", "warning": "warning", "notice": "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_commands(annotations: Iterable[CheckAnnotation]) -> list[str]:
    """``::error file=…,line=…,title=…::message`` lines, at most 10 per level, then a notice of the rest."""
    lines: list[str] = []
    shown: dict[str, int] = {}
    dropped = 0
    for annotation in annotations:
        command = _COMMAND[annotation.annotation_level]
        if shown.get(command, 0) >= ANNOTATIONS_PER_LEVEL:
            dropped += 1
            continue
        shown[command] = shown.get(command, 0) + 1
        properties = ",".join(
            f"{key}={escape_property(str(value))}"
            for key, value in (
                ("file", annotation.path),
                ("line", annotation.start_line),
                ("endLine", annotation.end_line),
                ("title", annotation.title),
            )
        )
        lines.append(f"::{command} {properties}::{escape_data(annotation.message)}")
    if dropped:
        lines.append(f"::notice::{dropped} more findings are in the job summary (GitHub shows 10 per level)")
    return lines


def output_values(report: RunReport) -> dict[str, str]:
    """The action's outputs (DESIGN §8): scalars, and the whole report as JSON.

    ``comment_url``, ``revert_pr`` and ``issues`` come from the report's effect lines, which carry what
    each effect wrote or found.
    """
    decision = report.decision
    effects = report.effects
    comment_url = next((e.url for e in effects if e.type == "upsert_comment" and e.url), "")
    revert_pr = next((str(e.number) for e in effects if e.type == "open_revert_pr" and e.number), "")
    issues = ",".join(str(e.number) for e in effects if e.type == "file_issue" and e.number)
    return {
        "action": decision.action if decision else "",
        "iteration": str(decision.iteration) if decision else "",
        "criticals": str(decision.criticals) if decision else "0",
        "majors": str(decision.majors) if decision else "0",
        "minors": str(decision.minors) if decision else "0",
        "health": report.health.status,
        "recovery": report.recovery.action,
        "comment_url": comment_url,
        "revert_pr": revert_pr,
        "issues": issues,
        "report": redact_json(report.model_dump_json()),  # outputs show in logs: redacted like state (DESIGN §6)
    }


def write_outputs(path: Path, values: Mapping[str, str]) -> None:
    """Append outputs to ``$GITHUB_OUTPUT``; multi-line values in a heredoc with a random delimiter."""
    chunks = []
    for name, value in values.items():
        if "\n" in value or "\r" in value:
            delimiter = f"gauntlet_{secrets.token_hex(16)}"
            while delimiter in value:
                delimiter = f"gauntlet_{secrets.token_hex(16)}"
            chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            chunks.append(f"{name}={value}\n")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(chunks))


#: GitHub's limit is 1 MiB per step; keep clear of it.
MAX_SUMMARY_BYTES = 1024 * 1024 - 1024

_CUT = "\n\n…(cut: the job summary is limited to 1 MiB)\n"


def cap_summary(text: str) -> str:
    """``text`` cut on a character boundary so its UTF-8 encoding stays under :data:`MAX_SUMMARY_BYTES`."""
    data = text.encode()
    if len(data) <= MAX_SUMMARY_BYTES:
        return text
    room = MAX_SUMMARY_BYTES - len(_CUT.encode())
    return data[:room].decode(errors="ignore") + _CUT


def write_summary(path: Path | None, effect: Effect) -> EffectResult:
    """Write the rendered summary to the step's summary file (skipped outside GitHub Actions)."""
    assert isinstance(effect, WriteSummary)
    if path is None:
        return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="no $GITHUB_STEP_SUMMARY")
    path.write_text(cap_summary(body_of(effect)), encoding="utf-8")
    return EffectResult(type=effect.type, key=effect.key, status="created", url=str(path))
