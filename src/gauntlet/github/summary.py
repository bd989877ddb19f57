"""``write_summary``: the job summary, written to ``$GITHUB_STEP_SUMMARY`` (not an API call).

The file belongs to this step alone, so it is overwritten, not appended to: a
run that retries its state commit re-applies its plan and must not repeat the
summary. GitHub refuses summaries over 1 MiB; the text is cut below that.
See https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary
"""

from __future__ import annotations

from pathlib import Path

from gauntlet.effects.base import EffectResult
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import Effect, WriteSummary

__all__ = ["MAX_SUMMARY_BYTES", "cap_summary", "write_summary"]

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
