"""Known failures (DESIGN §5, ``docs/known-failures.md``): which failures an open ``known-failure`` issue matches,
the hits recorded on each issue, and the answers to issues whose rule cannot be used.

Theory of operation, per run that read the open known-failure issues (``Observation.known_failures``)::

    a failing finding (critical or major, a CI failure)    -> matched against every rule, oldest issue first;
        the first rule whose message, pattern, path and      its provenance is ``known`` (engine/provenance.py)
        kind all match
    a fresh observation with matches for issue N          -> the record's hit on N counts one more run, and one
                                                             comment on N per PR (or branch) says how many
    an issue whose block cannot be used                   -> one answer on it per version of its body, at most
                                                             MAX_ANSWERS a run; the rule is skipped

A run that did not read the issues (a ``/gauntlet`` command) keeps the matches the PR's record holds. Closing
the issue ends the rule: the next run that reads the issues no longer sees it. Pure: the rules come as data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gauntlet.classify.globs import glob_matches
from gauntlet.effects.models import AnswerKnownRule, RecordKnownHit
from gauntlet.engine.provenance import has_provenance
from gauntlet.known import MAX_KNOWN_ISSUES, MAX_TEXT_CHARS, KnownFailures, KnownRule, pattern_search
from gauntlet.models import Finding
from gauntlet.state.known import MAX_KNOWN_HITS, KnownHit, KnownMatch
from gauntlet.state.pr import FindingRecord

__all__ = ["MAX_ANSWERS", "answers", "count_hits", "hit_effects", "match", "notes"]

#: Answers to unusable rules planned by one run, at most (each may cost a lookup of the issue's comments).
MAX_ANSWERS = 3


def match(findings: Sequence[FindingRecord | Finding], rules: Sequence[KnownRule]) -> dict[str, KnownMatch]:
    """The failing findings (critical or major CI failures) that a rule matches: fingerprint -> the issue.

    :param findings: the run's findings (a ``Finding`` adds its excerpt to the text searched).
    :param rules: the open known-failure issues' rules; the oldest issue that matches wins.
    """
    if not rules:
        return {}
    ordered = sorted(rules, key=lambda r: r.issue)
    searches = {r.pattern: pattern_search(r.pattern) for r in ordered if r.pattern is not None}
    found: dict[str, KnownMatch] = {}
    for finding in findings:
        record = finding if isinstance(finding, FindingRecord) else FindingRecord.of(finding)
        if record.severity not in ("critical", "major") or not has_provenance(record):
            continue
        text = _text(finding)
        for rule in ordered:
            if _matches(rule, record, text, searches):
                found[record.fingerprint] = KnownMatch(issue=rule.issue, url=rule.url)
                break
    return found


def _text(finding: FindingRecord | Finding) -> str:
    excerpt = finding.excerpt if isinstance(finding, Finding) else ""
    return f"{finding.message}\n{excerpt}"[:MAX_TEXT_CHARS]


def _matches(rule: KnownRule, finding: FindingRecord, text: str, searches: Mapping[str, object]) -> bool:
    if rule.kind is not None and finding.kind != rule.kind:
        return False
    if rule.path is not None:
        # A test failure's path may be where it raised (``calc.py``); its test file counts too.
        paths = {p for p in (finding.path, (finding.test_id or "").split("::", 1)[0]) if p}
        if not any(glob_matches(rule.path, path) for path in paths):
            return False
    if rule.message is not None and rule.message.casefold() not in text.casefold():
        return False
    if rule.pattern is not None:
        search = searches[rule.pattern]
        assert callable(search)
        return bool(search(text))
    return True


def count_hits(hits: Mapping[str, KnownHit], matched: Mapping[str, KnownMatch], head_sha: str) -> dict[str, KnownHit]:
    """The hits after one fresh run: each issue that matched a failure of the run counts one run more.

    Call it once per observation (a redelivered one is not fresh), so the counts are runs, not deliveries.
    """
    issues = sorted({m.issue for m in matched.values()})
    if not issues:
        return dict(hits)
    updated = {key: hit for key, hit in hits.items() if int(key) not in issues}
    for issue in issues:
        before = hits.get(str(issue))
        updated[str(issue)] = KnownHit(issue=issue, count=(before.count if before else 0) + 1, last_sha=head_sha)
    # Bounded: the issues hit most recently stay (the ones just hit are last in insertion order).
    return dict(list(updated.items())[-MAX_KNOWN_HITS:])


def hit_effects(
    hits: Mapping[str, KnownHit], matched: Mapping[str, KnownMatch], *, pr: int | None = None, branch: str | None = None
) -> tuple[RecordKnownHit, ...]:
    """One comment per known-failure issue this run matched, saying how often the PR (or branch) hit it.

    Only issues matched now: a closed issue gets no more comments. Planned on every run that matched, so a rerun
    finds the comment unchanged (its record keeps what it holds) and a new hit edits it in place.
    """
    now = {m.issue for m in matched.values()}
    return tuple(
        RecordKnownHit(issue=hit.issue, pr=pr, branch=branch, count=hit.count, last_sha=hit.last_sha)
        for hit in sorted(hits.values(), key=lambda h: h.issue)
        if hit.issue in now
    )


def answers(known: KnownFailures | None, answered: Mapping[str, int]) -> tuple[AnswerKnownRule, ...]:
    """Answers to the issues whose rule cannot be used, at most :data:`MAX_ANSWERS`, none already answered.

    :param answered: the effect keys the state knows a number for (an answer found once is not planned again).
    """
    if known is None:
        return ()
    planned = (AnswerKnownRule(issue=p.issue, version=p.version, reason=p.reason) for p in known.problems)
    return tuple(effect for effect in planned if effect.key not in answered)[:MAX_ANSWERS]


def notes(read: KnownFailures | None) -> tuple[str, ...]:
    """What the report says of the known-failure issues read: that some were left out, or could not be used."""
    if read is None:
        return ()
    said = []
    if read.more:
        said.append(
            f"{MAX_KNOWN_ISSUES} or more known-failure issues are open: only the newest {read.read} were read "
            "as rules (docs/known-failures.md)."
        )
    if read.problems:
        numbers = ", ".join(f"#{p.issue}" for p in read.problems[:10])
        said.append(f"Known-failure issues whose rule cannot be used (answered on each): {numbers}.")
    return tuple(said)
