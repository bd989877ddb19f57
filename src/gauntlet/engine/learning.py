"""Learning (DESIGN §3): failure→fix pairs, learned rules with decaying confidence, and what a PR is shown.

Theory of operation. A blocking fingerprint that failed at one head SHA of a PR
and is gone at the next is a failure→fix pair: the fixing commit and the files
changed since the failing one (the observation's fix diff, ranked by what the
failure named: :mod:`gauntlet.engine.fixes`) are kept, and when the same
fingerprint fails again anywhere, the sticky comment says how it was fixed
before. A pair whose diff touched something the failure named also teaches a
rule ("when <class> fails in <component>, look at <files>"); one that touched
nothing it named is kept with low confidence, and teaches nothing; review findings teach the rule
their reviewer wrote in ``rule_learned``. The same (or a nearly identical) rule
reinforces the existing entry instead of adding one; its confidence is::

    (1 − e^(−n/5)) · e^(−days/30) · e^(−contradictions/2)

with ``n`` reinforcements, ``days`` since the last one, and a contradiction each
time a fix it came from did not hold. Each kind of learning keeps at most 100
entries; the least confident go first.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.engine import bandit, fixes, outcomes, relation, selfheal
from gauntlet.models import Finding, FixDiff, Kind, Observation, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.branch import RunRecord
from gauntlet.state.models import State
from gauntlet.state.pr import FindingRecord, IterationRecord
from gauntlet.state.shared import (
    MAX_FIXES,
    MAX_RULES_PER_KIND,
    MAX_TAUGHT,
    DefectLog,
    FixPair,
    LearnedRule,
    LearningBook,
    RuleKind,
)

__all__ = [
    "MERGE_SIMILARITY",
    "Lessons",
    "compact_learnings",
    "confidence",
    "diff_files",
    "error_class",
    "hints_for",
    "learn_from_pr",
    "learn_rule",
    "lessons_for",
    "record_branch_fixes",
    "record_fixes",
    "rules_by_class",
    "similarity",
    "sync_curated",
]

#: Two rules whose token sets overlap this much (Jaccard) are the same rule.
MERGE_SIMILARITY = 0.8
#: What a comment shows at most: earlier fixes, and error classes with rules.
MAX_HINTS = 5
MAX_CLASSES_SHOWN = 3
MAX_RULE_CHARS = 300
_WORD = re.compile(r"[a-z0-9_]+")
_BLOCKING = frozenset({"critical", "major"})


@dataclass(frozen=True)
class Lessons:
    """What the sticky comment shows from learning: earlier fixes and the rules the bandit chose."""

    hints: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()


def error_class(kind: Kind) -> str:
    """The error class rules and bandit arms are kept per (the finding kind, e.g. ``test_failure``)."""
    return kind


def confidence(rule: LearnedRule, now: datetime) -> float:
    """``(1 − e^(−n/5)) · e^(−days/30) · e^(−contradictions/2)`` (DESIGN §3)."""
    days = max(0.0, (now - rule.last_seen).total_seconds() / 86400)
    return (1 - math.exp(-rule.reinforcements / 5)) * math.exp(-days / 30) * math.exp(-rule.contradictions / 2)


def similarity(a: str, b: str) -> float:
    """Token-set (Jaccard) similarity of two texts, case-insensitive; 1.0 for two empty texts."""
    left, right = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)


def learn_rule(
    book: LearningBook, text: str, kind: RuleKind, classes: Iterable[str], now: datetime
) -> tuple[LearningBook, str]:
    """Add a rule, or reinforce the same (or a near-duplicate) one; return the book and the rule's id.

    The same words are the same rule wherever they come from; near-duplicates merge only within one kind
    and error class: "when lint fails, look at calc.py" and "when test_failure fails, look at calc.py"
    share most words but teach different things.
    """
    clean = " ".join(text.split())[:MAX_RULE_CHARS]
    wanted = sorted(set(classes))
    for rule in book.rules:
        alike = similarity(rule.text, clean)
        same_subject = rule.kind == kind and bool(set(rule.classes) & set(wanted))
        if alike == 1.0 or (same_subject and alike >= MERGE_SIMILARITY):
            merged = evolve(
                rule,
                reinforcements=rule.reinforcements + 1,
                last_seen=now,
                classes=sorted({*rule.classes, *wanted}),
            )
            return _with_rule(book, merged, now), rule.id
    ident = "R-" + hashlib.sha256(clean.lower().encode()).hexdigest()[:10]
    rule = LearnedRule(id=ident, text=clean, kind=kind, classes=wanted, first_seen=now, last_seen=now)
    return _with_rule(book, rule, now), ident


def sync_curated(book: LearningBook, curated: Mapping[str, Sequence[str]], now: datetime) -> LearningBook:
    """Make sure every rule of the ``curated_rules`` configuration is in the book, as a curated rule."""
    for context, texts in sorted(curated.items()):
        for text in texts:
            existing = next((r for r in book.rules if similarity(r.text, text) >= MERGE_SIMILARITY), None)
            if existing is not None and existing.kind == "curated" and context in existing.classes:
                continue
            if existing is not None:
                promoted = evolve(existing, kind="curated", classes=sorted({*existing.classes, context}))
                book = _with_rule(book, promoted, now)
            else:
                book, _ = learn_rule(book, text, "curated", [context], now)
    return book


def diff_files(diff: FixDiff | None, failed_sha: str, fixed_sha: str) -> tuple[str, ...]:
    """The files of ``diff`` when it spans exactly ``failed_sha`` → ``fixed_sha`` (else nothing is known)."""
    if diff is None or (diff.base_sha, diff.head_sha) != (failed_sha, fixed_sha):
        return ()
    return diff.files


def record_fixes(
    book: LearningBook,
    previous: IterationRecord | None,
    current: IterationRecord,
    place: str,
    diff: FixDiff | None,
    now: datetime,
    components: Mapping[str, Sequence[str]] = {},
    owners: Mapping[str, str] = {},
    *,
    passed: Collection[str] = (),
    flaky: Collection[str] = (),
) -> LearningBook:
    """Record the failure→fix pairs ``current`` shows at ``place``, and what contradicts earlier ones.

    A pair needs a blocking fingerprint of ``previous`` that ``current`` no longer has and that was really
    fixed (:func:`really_fixed`: ``passed`` lists the test ids the run's reports saw pass, ``flaky`` the
    fingerprints known flaky); its files come from ``diff`` (``previous``'s head to ``current``'s), ranked
    by what the failure named.
    The same fingerprint failing again at the fixing SHA (a later job) withdraws the pair;
    failing again at a later SHA counts as a contradiction of the rule it taught.
    """
    failing = {f.fingerprint for f in current.findings}
    kept = [
        p for p in book.fixes if not (p.place == place and p.fixed_sha == current.head_sha and p.fingerprint in failing)
    ]
    broken = [p for p in kept if p.place == place and p.fixed_sha != current.head_sha and p.fingerprint in current.new]
    book = evolve(book, fixes=kept)
    for pair in broken:
        book = _contradict(book, pair.rule)
    if previous is None:
        return book
    before = {f.fingerprint: f for f in previous.findings if f.severity in _BLOCKING and f.kind != "infra"}
    known = {(p.place, p.fingerprint, p.fixed_sha) for p in book.fixes}
    changed = diff_files(diff, previous.head_sha, current.head_sha)
    for fingerprint in current.fixed:
        record = before.get(fingerprint)
        if record is None or (place, fingerprint, current.head_sha) in known:
            continue
        if not really_fixed(fingerprint, record.test_id, passed, flaky):
            continue
        files, named = fixes.rank_files(changed, relation.named_by(record.path, record.test_id, record.frames))
        pair = FixPair(
            fingerprint=fingerprint,
            error_class=error_class(record.kind),
            place=place,
            failed_sha=previous.head_sha,
            fixed_sha=current.head_sha,
            files=files,
            confidence="high" if named else "low",
            named=named,
            summary=selfheal.summary_of(record.test_id, record.path, record.message),
            at=now,
        )
        book = _add_pair(book, pair, selfheal.component_of(record.path, record.test_id, components, owners), now)
    return book


def record_branch_fixes(
    book: LearningBook,
    defects: DefectLog,
    runs: Sequence[RunRecord],
    place: str,
    diff: FixDiff | None,
    now: datetime,
    flaky: Collection[str] = (),
) -> LearningBook:
    """Record the failure→fix pairs of a branch run that went green after a red run of the same job.

    A fingerprint known ``flaky`` (it failed and passed on one commit, or flips) fixed nothing by going away.

    :param defects: the defect log, which knows what each fingerprint seen at ``place`` was.
    :param runs: the branch's runs, the one just recorded last.
    :param place: ``branch:<name>``.
    :param diff: what changed from the red run's commit to the green one's.
    """
    if not runs or not runs[-1].green or not runs[-1].complete:
        return book
    current = runs[-1]
    previous = next((r for r in reversed(runs[:-1]) if r.job == current.job), None)
    if previous is None or previous.green or previous.head_sha == current.head_sha:
        return book
    known = {(p.place, p.fingerprint, p.fixed_sha) for p in book.fixes}
    seen = {e.fingerprint: e for e in defects.entries if e.place == place}
    changed = diff_files(diff, previous.head_sha, current.head_sha)
    for fingerprint in previous.failing:
        entry = seen.get(fingerprint)
        if entry is None or (place, fingerprint, current.head_sha) in known:
            continue
        if not really_fixed(fingerprint, None, (), flaky):
            continue
        files, named = fixes.rank_files(changed, relation.named_by(entry.path, None))
        pair = FixPair(
            fingerprint=fingerprint,
            error_class=entry.defect_type,
            place=place,
            failed_sha=previous.head_sha,
            fixed_sha=current.head_sha,
            files=files,
            confidence="high" if named else "low",
            named=named,
            summary=entry.summary or fingerprint,
            at=now,
        )
        book = _add_pair(book, pair, entry.component, now)
    return book


def really_fixed(fingerprint: str, test_id: str | None, passed: Collection[str], flaky: Collection[str]) -> bool:
    """True when a failure that went away was fixed, not merely absent.

    A flaky failure that did not recur fixed nothing. A test must pass under the same id: when the run's
    test reports list the tests that passed, a renamed or deleted test is not among them (without reports
    there is no telling, and the failure's absence is taken for a fix).
    """
    if fingerprint in flaky:
        return False
    return not (test_id and passed) or test_id in passed


def hints_for(book: LearningBook, findings: Iterable[FindingRecord], place: str, head_sha: str) -> tuple[str, ...]:
    """Earlier fixes of the failures in ``findings``, newest first, one per fingerprint."""
    hints: list[str] = []
    for f in findings:
        if f.severity not in _BLOCKING:
            continue
        pairs = [p for p in book.fixes if p.fingerprint == f.fingerprint and p.fixed_sha != head_sha]
        if not pairs:
            continue
        pair = pairs[-1]
        where = f"PR #{pair.place[3:]}" if pair.place.startswith("pr:") else pair.place.replace(":", " ", 1)
        files = ", ".join(pair.files[:5]) + (f" and {len(pair.files) - 5} more" if len(pair.files) > 5 else "")
        # A low-confidence pair's diff touched nothing the failure named: its files are no lesson.
        changed = f", which changed {files}" if files and pair.confidence == "high" else ""
        hints.append(f"{pair.summary.rstrip('.')} (failed before on {where}, fixed by {pair.fixed_sha[:7]}{changed})")
        if len(hints) == MAX_HINTS:
            break
    return tuple(hints)


def rules_by_class(book: LearningBook, now: datetime) -> dict[str, list[str]]:
    """Rule texts per error class, most confident first (what a self-healing proposal promotes)."""
    ranked = sorted(book.rules, key=lambda r: (-confidence(r, now), r.id))
    found: dict[str, list[str]] = {}
    for rule in ranked:
        for context in rule.classes:
            found.setdefault(context, []).append(rule.text)
    return found


def learn_from_pr(state: State, obs: Observation, *, config: Config, now: datetime, rng: np.random.Generator) -> State:
    """Fold in what a new PR observation teaches, after the loop merged it into ``state.pr``.

    Records defects and failure→fix pairs, learns review rules, rewards the rules shown on the previous
    iteration, and chooses (drawn from ``rng``) the rules this iteration's comment shows, remembered for
    their reward. Planning only reads the result (:func:`lessons_for`), so a re-plan learns nothing twice.
    """
    assert state.pr is not None and state.pr.current is not None
    place = f"pr:{state.pr.number}"
    current = state.pr.current
    previous = state.pr.iterations[-2] if len(state.pr.iterations) > 1 else None
    defects = selfheal.record_defects(
        state.defects, obs.findings, place, now, config.components, obs.changed_files, obs.owners
    )
    book = sync_curated(state.learnings, config.selfheal.curated_rules, now)
    book = record_fixes(
        book,
        previous,
        current,
        place,
        obs.fix_diff,
        now,
        config.components,
        obs.owners,
        passed=obs.passed_tests,
        flaky=outcomes.flaky_on_one_commit(state.pr.outcomes),
    )
    book = _learn_reviews(book, obs.findings, place, now)
    table = bandit.settle(state.bandit, place, current.head_sha, _classes(current.findings), book.rules)
    for context in _ranked_classes(current.findings):
        chosen = bandit.choose(table, book.rules, context, config.selfheal.rules_per_class, rng)
        table = bandit.remember(table, place, current.head_sha, context, chosen)
    return evolve(state, learnings=book, bandit=table, defects=defects)


def lessons_for(state: State) -> Lessons:
    """What the PR's sticky comment shows from learning, as folded in: hints from earlier fixes of its current
    findings and the rules chosen for its current iteration."""
    assert state.pr is not None and state.pr.current is not None
    place = f"pr:{state.pr.number}"
    current = state.pr.current
    by_id = {r.id: r for r in state.learnings.rules}
    shown = {s.context: s.rules for s in state.bandit.pending if (s.place, s.head_sha) == (place, current.head_sha)}
    rules = tuple(
        f"{context}: {by_id[rule].text}"
        for context in _ranked_classes(current.findings)
        for rule in shown.get(context, [])
        if rule in by_id
    )
    return Lessons(hints=hints_for(state.learnings, current.findings, place, current.head_sha), rules=rules)


def compact_learnings(book: LearningBook, now: datetime) -> LearningBook:
    """Drop learned rules whose confidence has decayed to almost nothing (curated rules stay)."""
    kept = [r for r in book.rules if r.kind == "curated" or confidence(r, now) >= 0.01]
    return book if len(kept) == len(book.rules) else evolve(book, rules=kept)


def _learn_reviews(book: LearningBook, findings: Iterable[Finding], place: str, now: datetime) -> LearningBook:
    """Learn each finding's ``rule_learned`` once per place: a finding reported again is not new evidence."""
    taught = list(book.taught)
    for f in findings:
        source = f"{place}:{f.fingerprint}"
        if f.rule_learned and f.rule_learned.strip() and source not in taught:
            book, _ = learn_rule(book, f.rule_learned, "review", [error_class(f.kind)], now)
            taught.append(source)
    if len(taught) == len(book.taught):
        return book
    return evolve(book, taught=keep_last(taught, MAX_TAUGHT))


def _classes(findings: Iterable[FindingRecord]) -> set[str]:
    return {error_class(f.kind) for f in findings if f.severity != "nitpick" and f.kind != "infra"}


def _ranked_classes(findings: Iterable[FindingRecord]) -> list[str]:
    counts = Counter(error_class(f.kind) for f in findings if f.severity != "nitpick" and f.kind != "infra")
    return [c for c, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))][:MAX_CLASSES_SHOWN]


def _add_pair(book: LearningBook, pair: FixPair, component: str, now: datetime) -> LearningBook:
    """Keep ``pair`` (bounded) and, when its diff touched what the failure named, learn the rule it teaches."""
    if pair.files and pair.confidence == "high":
        book, rule = learn_rule(book, _fix_rule_text(pair, component), "fix", [pair.error_class], now)
        pair = evolve(pair, rule=rule)
    return evolve(book, fixes=keep_last([*book.fixes, pair], MAX_FIXES))


def _fix_rule_text(pair: FixPair, component: str) -> str:
    relevant = pair.files[: min(pair.named, 3)]
    files = ", ".join(relevant)
    pronoun = "it" if len(relevant) == 1 else "them"
    return f"When {pair.error_class} fails in {component}, look at {files} first: an earlier fix changed {pronoun}."


def _contradict(book: LearningBook, rule_id: str | None) -> LearningBook:
    rules = [evolve(r, contradictions=r.contradictions + 1) if r.id == rule_id else r for r in book.rules]
    return evolve(book, rules=rules)


def _with_rule(book: LearningBook, rule: LearnedRule, now: datetime) -> LearningBook:
    rules = [r for r in book.rules if r.id != rule.id] + [rule]
    same_kind = [r for r in rules if r.kind == rule.kind]
    if len(same_kind) > MAX_RULES_PER_KIND:
        weakest = min(same_kind, key=lambda r: (confidence(r, now), r.last_seen, r.id))
        rules = [r for r in rules if r.id != weakest.id]
    return evolve(book, rules=rules)
