"""Revert safety (DESIGN §3): revert a commit that broke the default branch only when it is safe.

Theory of operation
-------------------

A *breakage* is one red spell of one job on the default branch. Its *suspects*
are the first-parent commits after the job's last green commit, up to and
including the commit of its first red run (merge commits count as one change,
against their first parent). :func:`decide_revert` checks the rules below in this
order; the first that fails is the refusal, with a reason code
(:class:`RevertReason`) and a sentence a person can read::

    check                                                        refusal            action
    1. some failing finding is test_failure/build_error/         infra | not_confirmed  retry
       type_error/crash (infra, timeout, dependency, unknown
       never justify a revert)
    2. not every such fingerprint failed and passed on one of    flaky              skip
       the breakage's own commits (a flaky *history* does not
       count: a real bug in a flaky test is rerun and confirmed
       like any other failure)
   2b. not every one left matches an open known-failure issue    known              skip
       (engine/known.py); those that do are left out of the
       culprit search
    3. exactly one suspect, or exactly one of several comes      ambiguous          escalate
       closest to the failure (engine/relation.py: its file,
       its folder, the code under test by name)
    4. the culprit is not itself a revert                        is_revert          escalate
    5. no revert of it exists: no Gauntlet revert PR (open,      already_reverted   skip (escalate when a
       merged, or closed unmerged: never recreated) and no                          human closed ours)
       revert commit on the branch
    6. its message has no NOAUTOREVERT                           noautorevert       escalate
    7. it is at most max_age_hours old                           too_old            escalate
    8. the breakage is confirmed: a fingerprint failed in        not_confirmed      retry (rerun up to
       enough distinct observations (reruns of the same commit,                     three times, then
       or later runs): two for a compiler or type error, three                      escalate)
       for a test or crash in a file the culprit changed, four
       when it changed only the code near it
       (:func:`sightings_needed`); a single red run never
       confirms, and nothing confirms a culprit that changed
       nothing the failures point at (a flake that failed twice)
    9. no later commit changed a file the culprit changed        conflict           escalate
   10. fewer than max_reverts_per_day revert PRs today           daily_cap          escalate

Permanent refusals (4-7) come before confirmation, so Gauntlet never reruns a job
more than once to confirm a breakage it would not revert anyway; but it asks no
human about the default branch before one rerun has spoken
(:func:`gauntlet.engine.branch_run`): a one-off flake ends there. When every check passes the
culprit is reverted: ``auto_revert: on`` opens the revert PR, ``shadow`` only
records the decision, ``off`` asks a human instead. Everything here is pure: the
engine passes the branch history, the observed commits and the time in.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from gauntlet.config import RevertConfig
from gauntlet.engine import relation
from gauntlet.engine.recovery import BLOCKING_SEVERITIES, BREAKING_KINDS, INFRA_KINDS
from gauntlet.models import CommitFact, evolve
from gauntlet.state.branch import BranchRecord, Breakage, RunRecord, same_commit
from gauntlet.state.pr import FindingRecord
from gauntlet.vocabulary import RecoveryAction, RevertReason

__all__ = [
    "REFUSAL_ACTIONS",
    "RevertDecision",
    "decide_revert",
    "failing_files",
    "first_parent_chain",
    "identify_culprit",
    "sightings_needed",
    "suspects_between",
]


#: Observations of a failure that confirm a breakage at the least: the red run and its rerun.
CONFIRMING_SIGHTINGS = 2

#: Failure kinds that fail the same way on every run of the same commit (compilers, type checkers).
_DETERMINISTIC_KINDS = frozenset({"build_error", "type_error"})

#: What recovery does after each refusal (see the table in the module docstring).
REFUSAL_ACTIONS: dict[RevertReason, RecoveryAction] = {
    RevertReason.INFRA: "retry",
    RevertReason.FLAKY: "skip",
    RevertReason.KNOWN: "skip",
    RevertReason.NOT_CONFIRMED: "retry",
    RevertReason.AMBIGUOUS: "escalate",
    RevertReason.TOO_OLD: "escalate",
    RevertReason.NOAUTOREVERT: "escalate",
    RevertReason.IS_REVERT: "escalate",
    RevertReason.ALREADY_REVERTED: "skip",
    RevertReason.DAILY_CAP: "escalate",
    RevertReason.CONFLICT: "escalate",
}


class RevertDecision(BaseModel):
    """The outcome for one red run: revert ``culprit`` (``refusal`` is ``None``) or refuse, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    culprit: CommitFact | None = None
    refusal: RevertReason | None = None
    detail: str
    #: The suspects' SHAs, oldest first (empty when the history is unknown).
    suspects: tuple[str, ...] = ()
    #: The fingerprints the decision rests on.
    fingerprints: tuple[str, ...] = ()
    #: Set for ``already_reverted`` when a human closed Gauntlet's revert PR without merging it.
    declined: bool = False
    #: Reruns beyond ``confirm_reruns`` that confirming this breakage takes (see :func:`sightings_needed`).
    extra_reruns: int = 0

    @property
    def action(self) -> RecoveryAction:
        """``rollback`` for a revert, else the refusal's action (a declined revert needs a human)."""
        if self.refusal is None:
            return "rollback"
        if self.declined:
            return "escalate"
        return REFUSAL_ACTIONS[self.refusal]


def first_parent_chain(commits: Sequence[CommitFact]) -> list[CommitFact]:
    """Walk the first parents from the tip (``commits[0]``), newest first, as far as the facts reach."""
    by_sha = {c.sha: c for c in commits}
    chain: list[CommitFact] = []
    current = commits[0] if commits else None
    while current is not None and len(chain) < len(by_sha):
        chain.append(current)
        current = by_sha.get(current.parents[0]) if current.parents else None
    return chain


def suspects_between(chain: Sequence[CommitFact], last_good: str | None, first_red: str) -> list[CommitFact] | None:
    """The commits after ``last_good`` up to and including ``first_red``, oldest first.

    ``None`` when they cannot be known: no last-good commit, or the observed
    history does not reach from ``first_red`` back to it.
    """
    if last_good is None:
        return None
    start = next((i for i, c in enumerate(chain) if same_commit(c.sha, first_red)), None)
    if start is None:
        return None
    suspects: list[CommitFact] = []
    for commit in chain[start:]:
        if same_commit(commit.sha, last_good):
            return suspects[::-1]
        suspects.append(commit)
    return None


def failing_files(findings: Sequence[FindingRecord]) -> set[str]:
    """The repository paths the findings point at: a path, a test id's file, the files of its stack frames."""
    return relation.named_by_all([(f.path, f.test_id, f.frames) for f in findings])


def sightings_needed(culprit: CommitFact, finding: FindingRecord, *, flaky: bool = False) -> int | None:
    """How many observations of ``finding`` confirm it as ``culprit``'s breakage, or ``None`` if none ever do.

    A compiler's or type checker's error in a file near what the culprit changed confirms on its rerun
    (two sightings): they do not flake. A failing test or a crash does flake, and a flaky test that never
    flaked before fails its rerun too at its flake rate, so it takes a third sighting when the culprit
    changed the test's own file (or a frame's), and a fourth when it changed only something near it (the
    code under test, a file in the same folder): at a 20 % flake rate the coincidence is then 0.8 % and
    0.16 % of a new flaky test's first failures. A finding that names no file points nowhere and counts
    as pointing at the culprit. A culprit that changed nothing the failure names (closeness 0 in
    :mod:`gauntlet.engine.fixes`) is never confirmed: the reruns tell a flake, and a human decides the rest.
    """
    named = relation.named_by(finding.path, finding.test_id, finding.frames)
    close = relation.closeness(culprit.files, named) if named else relation.SAME_FILE
    if close == 0:
        return None
    if finding.kind in _DETERMINISTIC_KINDS:
        return CONFIRMING_SIGHTINGS
    # A test with a flaky history fails its reruns at its (known) flake rate: one more sighting keeps the
    # coincidence below an unknown test's bar, and consistent failure across them is still a break.
    return CONFIRMING_SIGHTINGS + (1 if close == relation.SAME_FILE else 2) + (1 if flaky else 0)


def identify_culprit(suspects: Sequence[CommitFact], files: set[str]) -> tuple[CommitFact | None, str]:
    """The one suspect to blame, or ``None`` with the reason it is ambiguous.

    Exactly one suspect is the culprit; among several (a push of several commits), the one that comes
    closest to the failing ``files`` by the commit↔failure relation (:mod:`gauntlet.engine.relation`),
    when no other comes as close: a code commit and a docs commit pushed together blame the code commit.
    """
    if len(suspects) == 1:
        return suspects[0], f"{_short(suspects[0])} is the only commit since the last green run"
    if not suspects:
        return None, "no commit since the last green run (the job went red on a commit it passed before)"
    scores = [relation.closeness(c.files, files) for c in suspects]
    best = max(scores)
    touching = [c for c, score in zip(suspects, scores, strict=True) if best and score == best]
    how = _HOW_CLOSE.get(best, "")
    if len(touching) == 1:
        return touching[0], f"{_short(touching[0])} is the only one of {len(suspects)} suspects that {how}"
    names = ", ".join(_short(c) for c in (touching or suspects))
    if touching:
        return None, f"{len(touching)} of {len(suspects)} suspects {how} ({names})"
    return None, f"none of the {len(suspects)} suspects ({names}) changed the failing files or the code they test"


#: How a suspect relates to the failure, by its :func:`gauntlet.engine.relation.closeness`.
_HOW_CLOSE = {
    relation.SAME_FILE: "changed the failing files",
    2: "changed a file next to the failing files",
    1: "changed the code under test",
}


def decide_revert(
    branch: BranchRecord,
    breakage: Breakage,
    findings: Sequence[FindingRecord],
    chain: Sequence[CommitFact],
    config: RevertConfig,
    now: datetime,
    flaky: Collection[str] = (),
    known: Collection[str] = (),
) -> RevertDecision:
    """Decide whether the culprit of ``breakage`` is reverted, or why not.

    :param branch: the branch history (runs, reverts, daily counts, known flaky fingerprints).
    :param breakage: the open breakage, with this observation already folded in.
    :param findings: the current observation's findings.
    :param chain: the observed first-parent history, newest first (may be empty).
    :param config: the revert settings.
    :param now: the time of the run.
    :param flaky: fingerprints the outcome history calls flaky (besides ``branch.flaky``): confirmed like any
        failure, with one more sighting (:func:`sightings_needed`).
    :param known: fingerprints an open known-failure issue matches: never this commit's to revert.
    """
    blocking = [f for f in findings if f.severity in BLOCKING_SEVERITIES]
    breaking = [f for f in blocking if f.kind in BREAKING_KINDS]
    if not breaking:
        kinds = ", ".join(sorted({f.kind for f in blocking})) or "no"
        code = RevertReason.INFRA if any(f.kind in INFRA_KINDS for f in blocking) else RevertReason.NOT_CONFIRMED
        return RevertDecision(refusal=code, detail=f"only {kinds} failures, which never justify a revert")
    # A flaky history proves nothing about this failure: only passing on the breakage's own commits does.
    # Everything else is rerun and confirmed like any failure (a real bug in a flaky test is a break).
    mine = {r.head_sha for r in branch.runs if r.observation in breakage.observations}
    runs = [r for r in branch.runs if r.job == breakage.job and r.head_sha in mine]
    real = [f for f in breaking if not _failed_and_passed(f.fingerprint, runs)]
    if not real:
        return RevertDecision(
            refusal=RevertReason.FLAKY,
            detail=f"all {len(breaking)} failing fingerprint(s) failed and passed on the same commit: "
            "flaky, not broken",
            fingerprints=_fps(breaking),
        )
    unknown = [f for f in real if f.fingerprint not in known]
    if not unknown:
        return RevertDecision(
            refusal=RevertReason.KNOWN,
            detail=f"all {len(real)} failing fingerprint(s) match open known-failure issues: known, not this change's",
            fingerprints=_fps(real),
        )
    real = unknown
    fps = _fps(real)
    if breakage.suspects is None:
        why = "the job was never seen green" if breakage.last_good is None else "the history since it is unknown"
        return RevertDecision(refusal=RevertReason.AMBIGUOUS, detail=f"no culprit: {why}", fingerprints=fps)
    suspects = breakage.suspects
    suspect_shas = tuple(c.sha for c in suspects)
    culprit, why = identify_culprit(suspects, failing_files(real))
    if culprit is None:
        return RevertDecision(refusal=RevertReason.AMBIGUOUS, detail=why, suspects=suspect_shas, fingerprints=fps)

    def refuse(code: RevertReason, detail: str, *, declined: bool = False) -> RevertDecision:
        return RevertDecision(
            culprit=culprit,
            refusal=code,
            detail=f"{why}; {detail}",
            suspects=suspect_shas,
            fingerprints=fps,
            declined=declined,
        )

    later = _later_than(culprit, suspects, chain)
    if culprit.reverts is not None or culprit.subject.startswith('Revert "'):
        return refuse(RevertReason.IS_REVERT, "it is itself a revert; reverting it again is for a human to decide")
    earlier = branch.revert_of(culprit.sha)
    if earlier is not None:
        pr = f"#{earlier.number}" if earlier.number else "the revert PR"
        if earlier.withdrawn:
            return refuse(
                RevertReason.ALREADY_REVERTED,
                f"Gauntlet withdrew {pr} when the breakage went away; now that it is back, a human decides",
                declined=True,
            )
        if earlier.status == "closed_unmerged":
            return refuse(
                RevertReason.ALREADY_REVERTED,
                f"a human closed {pr} without merging; it is never recreated",
                declined=True,
            )
        return refuse(RevertReason.ALREADY_REVERTED, f"{pr} for it is already {earlier.status}")
    human = next((c for c in later if c.reverts and same_commit(c.reverts, culprit.sha)), None)
    if human is not None:
        return refuse(RevertReason.ALREADY_REVERTED, f"{_short(human)} already reverts it")
    if culprit.noautorevert:
        return refuse(RevertReason.NOAUTOREVERT, "its message says NOAUTOREVERT")
    age = now - culprit.at
    if age > timedelta(hours=config.max_age_hours):
        hours = age.total_seconds() / 3600
        return refuse(RevertReason.TOO_OLD, f"it is {hours:.0f} h old (the limit is {config.max_age_hours:g} h)")
    if _only_docs(culprit, failing_files(real)):
        # Documentation alone does not fail a test elsewhere; a flaky test that failed on its rerun too does
        # (the README-only revert of issue 18). Rerun to learn it is flaky; then a human decides.
        return refuse(RevertReason.NOT_CONFIRMED, "it changed only documentation the failures do not point at")
    every = [r for r in branch.runs if r.job == breakage.job]
    known_flaky = (
        set(branch.flaky) | set(flaky) | {f.fingerprint for f in real if _failed_and_passed(f.fingerprint, every)}
    )
    needed = {f.fingerprint: sightings_needed(culprit, f, flaky=f.fingerprint in known_flaky) for f in real}
    bars = [n for n in needed.values() if n is not None]
    if not bars:
        decision = refuse(
            RevertReason.NOT_CONFIRMED,
            "it changed nothing the failures point at, which never confirms a revert; rerunning to tell a flake, "
            "then a human decides",
        )
        return evolve(decision, extra_reruns=1)
    if not any(n is not None and breakage.sightings.get(fp, 0) >= n for fp, n in needed.items()):
        decision = refuse(
            RevertReason.NOT_CONFIRMED, f"no failure has been seen {min(bars)} times yet; rerunning to confirm"
        )
        return evolve(decision, extra_reruns=min(bars) - CONFIRMING_SIGHTINGS)
    touched = set(culprit.files)
    clash = next((c for c in later if touched & set(c.files)), None)
    if clash is not None:
        files = ", ".join(sorted(touched & set(clash.files))[:5])
        return refuse(RevertReason.CONFLICT, f"{_short(clash)} changed the same files since ({files})")
    today = branch.daily.get(now.date().isoformat(), 0)
    if today >= config.max_reverts_per_day:
        return refuse(RevertReason.DAILY_CAP, f"{today} revert PR(s) today reach the daily cap")
    return RevertDecision(culprit=culprit, detail=why, suspects=suspect_shas, fingerprints=fps)


def _failed_and_passed(fingerprint: str, runs: Sequence[RunRecord]) -> bool:
    failed_on = {r.head_sha for r in runs if fingerprint in r.failing}
    return any(r.complete and r.head_sha in failed_on and fingerprint not in r.failing for r in runs)


def _later_than(culprit: CommitFact, suspects: Sequence[CommitFact], chain: Sequence[CommitFact]) -> list[CommitFact]:
    """Commits after the culprit: later suspects and whatever the observed history shows above it."""
    after = list(suspects[[c.sha for c in suspects].index(culprit.sha) + 1 :])
    position = next((i for i, c in enumerate(chain) if c.sha == culprit.sha), None)
    if position is not None:
        known = {c.sha for c in after}
        after.extend(c for c in chain[:position] if c.sha not in known)
    return after


_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")


def _only_docs(culprit: CommitFact, files: set[str]) -> bool:
    return bool(files and culprit.files) and not files & set(culprit.files) and all(map(_is_docs, culprit.files))


def _is_docs(path: str) -> bool:
    """True for documentation files: prose that no build or test reads (a guess that errs toward a human)."""
    name = path.rsplit("/", 1)[-1]
    return path.startswith("docs/") or name.lower().endswith(_DOC_SUFFIXES) or name in ("LICENSE", "AUTHORS")


def _fps(findings: Sequence[FindingRecord]) -> tuple[str, ...]:
    return tuple(sorted({f.fingerprint for f in findings}))


def _short(commit: CommitFact) -> str:
    return f"{commit.sha[:7]} ({commit.subject[:60]})"
