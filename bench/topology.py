"""Gauntlet in the workflows the README documents: whose failure it is, flakes, duplicates, leaks (issue 29).

Usage::

    .venv/bin/python bench/topology.py [--streams 200] [--seed 5] [--quick]

Each setup is read from ``examples/workflows/`` (which workflow runs Gauntlet for which event, and how: as a
step of CI's job, or from ``workflow_run`` with ``download_logs``), then played through
:func:`gauntlet.action.entry.run_action` on the sandbox with real pytest output
(``tests/scenarios/main_branch/logs``):

- ``step``: pull-request.yml (Gauntlet the last step of CI's ``test`` job on PRs and in the merge queue) with
  default-branch.yml watching main from ``workflow_run``;
- ``workflow_run``: the recommended deployment, gauntlet.yml judging every CI run of ci.yml;
- ``step + push``: the step kept on pushes to main too (the pairing as it was): each main run reaches Gauntlet
  twice, and must be one observation.

First ``--histories`` default-branch histories, each from a green main (``MAIN_TRUTHS``): a push of 1-3
commits one of which breaks ``test_add`` (its revert expected), two commits that both change the code under
test (a person decides), a flake of ``test_lucky``, a flake of ``test_add`` itself (whose later breaks must
still be reverted), or a group through the merge queue that lands on main. People merge the revert PR or
fix main, and close the issue. Printed: bad reverts, culprits reverted, breaks left with neither a revert
nor an issue, issues or reverts on histories that broke nothing, and needs-human issues filed before a
rerun had spoken.

Then main goes green, then breaks ``test_divide`` for real. Then ``--streams`` pull requests, each a stream with a
truth: a regression (``test_add`` broken: ``new``), a failure main already has (``preexisting``), a flake
(``test_lucky`` fails, passes when rerun: ``flaky``, must not block), or a regression beside the preexisting
failure; every tenth stream goes through the merge queue instead. GitHub is played as it behaves: a rerun of
failed jobs makes a new attempt of the CI run, where a flake passes and a real failure fails again; a step
cannot rerun its own run, so there a person reruns a red run once (counted apart).

Printed per setup: provenance accuracy of the failing findings (at each stream's last run), regressions marked
``new``, flakes not blocking (without a person, and after one rerun by a person), merge groups judged right,
duplicate observations on main, records or bodies naming Gauntlet's own job, and API calls per run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "scenarios"))

from mainline import LOGS  # noqa: E402
from scenario import REPO, Outcome, Scenario, start  # noqa: E402

from gauntlet.sandbox import JobSeed  # noqa: E402
from gauntlet.state.branch import BranchRecord  # noqa: E402

WORKFLOWS = ROOT / "examples" / "workflows"
#: Gauntlet's own workflow and job where it runs on its own: neither may reach a record or a body.
OWN = {"workflow": "Gauntlet on main", "job": "gauntlet-own-job"}
#: The repository's configuration: every run of the bench happens on one day (the sandbox's clock), where a
#: real repository spreads its histories over months, so the daily cap on revert PRs (3) is lifted.
CONFIG_FILE, CONFIG = ".github/gauntlet.yml", "revert:\n  max_reverts_per_day: 1000\n"
TRUTHS = ("regression", "preexisting", "flake", "regression+preexisting")
#: Each truth: the logs of the first attempt, of a rerun, and the words of its failing tests at the end.
PLAYS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]] = {
    "regression": (("pytest-add-broken.log",), ("pytest-add-broken.log",), {"test_add": "new"}),
    "preexisting": (("pytest-divide-broken.log",), ("pytest-divide-broken.log",), {"test_divide": "preexisting"}),
    "flake": (("pytest-lucky-flaky.log",), ("pytest-pass.log",), {"test_lucky": "flaky"}),
    "regression+preexisting": (
        ("pytest-add-divide-broken.log",),
        ("pytest-add-divide-broken.log",),
        {"test_add": "new", "test_divide": "preexisting"},
    ),
}


def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    return {("on" if key is True else key): value for key, value in data.items()}


@dataclass(frozen=True)
class Setup:
    """How the documented workflows deliver each event to Gauntlet, as read from their files."""

    name: str
    #: Events Gauntlet sees as a step of CI's job, and whether that step also runs on pushes to main.
    step_events: frozenset[str]
    #: Events whose CI run Gauntlet judges from ``workflow_run`` (by the CI run's trigger).
    watched: frozenset[str]


def setups() -> list[Setup]:
    """The documented setups, from ``examples/workflows/``."""
    step = _load("pull-request.yml")
    main = _load("default-branch.yml")
    ci, gauntlet = _load("ci.yml"), _load("gauntlet.yml")
    [step_if] = [
        s.get("if", "")
        for job in step["jobs"].values()
        for s in job["steps"]
        if str(s.get("uses", "")).startswith("your-org/gauntlet@")
    ]
    step_triggers = {e for e in step["on"] if "push" not in e or "!= 'push'" not in step_if}
    main_watch = {"push"} if main["on"]["workflow_run"].get("branches") == ["main"] else set()
    recommended = set(ci["on"]) if gauntlet["on"]["workflow_run"]["workflows"] == [ci["name"]] else set()
    return [
        Setup("step", frozenset(step_triggers), frozenset(main_watch)),
        Setup("workflow_run", frozenset(), frozenset(recommended)),
        Setup("step + push", frozenset({*step_triggers, "push"}), frozenset(main_watch)),
    ]


@dataclass
class Tally:
    """What one setup's streams came to."""

    failing: int = 0
    right: int = 0
    regressions: int = 0
    regressions_new: int = 0
    #: Regressions of a test that has a flaky history on main (a rerun tells them from a flake).
    flaky_regressions: int = 0
    flaky_regressions_new: int = 0
    flakes: int = 0
    flakes_green: int = 0
    flakes_green_after_person: int = 0
    groups: int = 0
    groups_right: int = 0
    main_histories: int = 0
    breaks: int = 0
    breaks_handled: int = 0
    attributable: int = 0
    culprits_reverted: int = 0
    bad_reverts: int = 0
    false_alarms: int = 0
    early_issues: int = 0
    duplicates: int = 0
    leaks: int = 0
    runs: int = 0
    calls: int = 0
    words: Counter[str] = field(default_factory=Counter)


class Player:
    """One setup on one sandbox: main's history, then the streams."""

    def __init__(self, world: Scenario, setup: Setup, tally: Tally) -> None:
        self.world, self.setup, self.tally = world, setup, tally
        self.next_run = 1000
        #: The tests main's histories made flaky (failed, then passed on the same commit).
        self.flaky_history: set[str] = set()

    def act(self, event: str, payload: dict[str, Any], **kwargs: Any) -> Outcome:
        before = len(self.world.sandbox.requests())
        files = {CONFIG_FILE: CONFIG, **kwargs.pop("files", {})}
        outcome = self.world.run(event, payload, files=files, **kwargs)
        assert outcome.code == 0, outcome.error or outcome.stdout[-2000:]
        self.tally.runs += 1
        self.tally.calls += len(self.world.sandbox.requests()) - before
        return outcome

    def ci(self, sha: str, branch: str, trigger: str, logs: tuple[str, ...], pulls: tuple[int, ...] = ()) -> int:
        """CI's run on ``sha``: one job, ``test``, whose log is ``logs``; returns the run id."""
        text = "".join((LOGS / log).read_text(encoding="utf-8") for log in logs)
        conclusion = "success" if logs == ("pytest-pass.log",) else "failure"
        job = JobSeed(name="test", conclusion=conclusion, log=text)
        seeded = self.world.sandbox.seed_run(
            REPO, jobs=[job], head_branch=branch, head_sha=sha, event=trigger, pull_numbers=pulls
        )
        return int(seeded.id)

    def deliver(self, trigger: str, payload: dict[str, Any], run: int, logs: tuple[str, ...]) -> list[Outcome]:
        """Gauntlet's runs for CI run ``run`` (attempt as the sandbox has it), in every way the setup delivers."""
        done = []
        attempt = self.world.owner.get_repo(REPO).get_workflow_run(run).run_attempt
        if trigger in self.setup.step_events:
            files = {f"{n}.log": (LOGS / log).read_text(encoding="utf-8") for n, log in enumerate(logs)}
            inputs = {"logs": "*.log", "findings": ""}
            done.append(self.act(trigger, payload, files=files, inputs=inputs, run_id=run, attempt=attempt))
        if trigger in self.setup.watched:
            event = _workflow_run(self.world, run)
            watch = {"download_logs": "true", "logs": "", "findings": ""}
            self.next_run += 1
            done.append(self.act("workflow_run", event, inputs=watch, run_id=self.next_run, **OWN))
        return done

    def play(
        self,
        trigger: str,
        payload: dict[str, Any],
        sha: str,
        branch: str,
        plays: tuple[Any, ...],
        after: Callable[[int], None] = lambda reruns: None,
        **kw: Any,
    ) -> tuple[int, list[Outcome], bool]:
        """A CI run and its reruns as GitHub makes them: Gauntlet asks (``rerun_failed_jobs`` created), the next
        attempt runs ``plays[1]``'s logs. ``after(reruns)`` looks at GitHub after each attempt was judged.
        Returns the CI run, Gauntlet's runs of the last attempt and whether a rerun happened."""
        first, again = plays[0], plays[1]
        run = self.ci(sha, branch, trigger, first, **kw)
        outcomes = self.deliver(trigger, payload, run, first)
        after(0)
        reran = False
        for reruns in range(1, MAX_RERUNS + 1):
            asked = any(
                e["type"] == "rerun_failed_jobs" and e["status"] == "created" for o in outcomes for e in _effects(o)
            )
            if not asked:
                break
            reran = True
            self.finish(run, again)
            outcomes = self.deliver(trigger, payload, run, again)
            after(reruns)
        return run, outcomes, reran

    def finish(self, run: int, logs: tuple[str, ...]) -> None:
        text = "".join((LOGS / log).read_text(encoding="utf-8") for log in logs)
        conclusion = "success" if logs == ("pytest-pass.log",) else "failure"
        self.world.sandbox.finish_jobs(REPO, run, {"test": (conclusion, text)})


def _effects(outcome: Outcome) -> list[dict[str, Any]]:
    return list(outcome.report.get("effects", [])) if outcome.outputs.get("report") else []


def _workflow_run(world: Scenario, run_id: int) -> dict[str, Any]:
    run = world.owner.get_repo(REPO).get_workflow_run(run_id)
    return {"action": "completed", "workflow_run": run.raw_data, "repository": _repository()}


def _repository() -> dict[str, str]:
    return {"full_name": REPO, "default_branch": "main"}


def _push(sha: str, before: str) -> dict[str, Any]:
    return {"ref": "refs/heads/main", "after": sha, "before": before, "repository": _repository()}


def _words(world: Scenario, outcome: Outcome, sha: str) -> dict[str, str]:
    """Each failing test's provenance in the verdict that ends the check on ``sha``."""
    checks = world.check_runs(sha)
    if not checks:
        return {}
    text = checks[0].output.text or ""  # the verdict (DESIGN §5)
    block = text.rsplit("```json\n", 1)[-1].rsplit("\n```", 1)[0]
    verdict = json.loads(block)
    return {
        str(f["test_id"]).rsplit("::", 1)[-1]: str(f["provenance"]) for f in verdict["findings"] if f.get("test_id")
    }


def _main(player: Player) -> None:
    """Main goes green, then a commit breaks test_divide for real (delivered as the setup delivers pushes)."""
    world = player.world
    green = world.sandbox.head(REPO) or ""
    player.play("push", _push(green, "0" * 40), green, "main", (("pytest-pass.log",), ("pytest-pass.log",)))
    broken = world.sandbox.commit(REPO, {"calc.py": "def divide(a, b):\n    return a // b + 1\n"}, "Break divide")
    player.play("push", _push(broken, green), broken, "main", (("pytest-divide-broken.log",),) * 2)


def _stream(player: Player, n: int, truth: str, queued: bool) -> None:
    world, tally = player.world, player.tally
    first, again, expected = PLAYS[truth]
    if queued:
        base = world.sandbox.head(REPO) or ""
        branch = f"gh-readonly-queue/main/pr-{n + 100}-{base}"
        world.owner.get_repo(REPO).create_git_ref(f"refs/heads/{branch}", base)
        sha = world.sandbox.commit(REPO, {f"docs/q{n}.md": "x\n"}, f"Merge pull request #{n + 100}", branch=branch)
        group = {"head_sha": sha, "head_ref": f"refs/heads/{branch}", "base_sha": base, "base_ref": "refs/heads/main"}
        payload = {"action": "checks_requested", "merge_group": group, "repository": _repository()}
        _, outcomes, _ = player.play("merge_group", payload, sha, branch, (first, again))
        if not outcomes:
            return
        tally.groups += 1
        conclusion = world.check_runs(sha)[0].conclusion if world.check_runs(sha) else None
        tally.groups_right += conclusion == ("failure" if "regression" in truth else "success")
        return
    number, sha = world.open_pr(f"s{n}", {f"src/s{n}.py": "X = 1\n"})
    payload = world.pull_request_event(number, sha, "opened")
    run, outcomes, _ = player.play("pull_request", payload, sha, f"s{n}", (first, again), pulls=(number,))
    if not outcomes:
        return
    words = _words(world, outcomes[-1], sha)
    final_green = bool(world.check_runs(sha)) and world.check_runs(sha)[0].conclusion == "success"
    if truth == "flake":
        tally.flakes += 1
        tally.flakes_green += final_green
        if not final_green:  # a person reruns the red run's failed jobs once, as people do
            world.owner.get_repo(REPO).get_workflow_run(run).rerun_failed_jobs()
            player.finish(run, again)
            player.deliver("pull_request", payload, run, again)
            final_green = world.check_runs(sha)[0].conclusion == "success"
        tally.flakes_green_after_person += final_green
        words = _words(world, outcomes[-1], sha) if final_green else words
    for test, word in expected.items():
        tally.failing += 1
        got = words.get(test, "missing" if truth != "flake" or not final_green else "flaky")
        tally.right += got == word
        tally.words[f"{word}->{got}"] += 1
        if word == "new":
            if test in player.flaky_history:
                tally.flaky_regressions += 1
                tally.flaky_regressions_new += got == "new"
            else:
                tally.regressions += 1
                tally.regressions_new += got == "new"


def _audit(player: Player) -> None:
    """Duplicate observations on main, and Gauntlet's own names anywhere it wrote."""
    world, tally = player.world, player.tally
    record = BranchRecord.model_validate_json(world.state_file("v1/branches/main.json") or b"")
    # One CI run (its id and attempt) recorded under two observations is a duplicate.
    seen = Counter(r.observation.split(":")[1:3].__str__() for r in record.runs)
    tally.duplicates += sum(count - 1 for count in seen.values() if count > 1)
    texts = [data.decode("utf-8", "replace") for data in world.state_files().values()]
    repo = world.owner.get_repo(REPO)
    for issue in repo.get_issues(state="all"):
        texts += [issue.body or "", *(c.body or "" for c in issue.get_comments())]
    written = "\n".join(texts)
    tally.leaks += written.count(OWN["job"]) + written.count(OWN["workflow"])


#: Default-branch histories, each from a green main: what is pushed, and how CI's ``test`` job goes.
#: ``break``: 1-3 commits, one breaks ``add`` in calc.py (the code ``tests/test_calc.py`` tests), the rest
#: docs: attributable, so its revert is expected. ``ambiguous``: two commits both change calc.py, one breaks
#: it: a person decides. ``flake``: ``test_lucky`` fails once and passes when rerun. ``flake-add``: the test
#: a real break fails later (``test_add``) fails once and passes when rerun: its flaky history must not
#: switch off protection. ``queued``: a group goes through the merge queue (its run flaky or green) and
#: lands on main.
MAIN_TRUTHS = ("break", "break", "ambiguous", "flake", "flake-add", "queued")
_RED = ("pytest-add-broken.log",)
#: Reruns GitHub makes of one run when Gauntlet asks (its confirmation asks at most four: a test with a flaky
#: history whose culprit changed the code under test).
MAX_RERUNS = 6
_GREEN = ("pytest-pass.log",)


def _history(player: Player, h: int, truth: str, rng: np.random.Generator) -> None:
    """One default-branch history played through the setup, then main made green again as people would."""
    world, tally = player.world, player.tally
    repo = world.owner.get_repo(REPO)
    base = world.sandbox.head(REPO) or ""
    calc = world.file_at("calc.py", base) or ""
    culprits: set[str] = set()
    if truth == "queued":
        _queued(player, h, base, flaky=bool(rng.integers(2)))
        return
    commits = int(rng.integers(1, 4)) if truth == "break" else 2 if truth == "ambiguous" else int(rng.integers(1, 3))
    breaker = {"break": int(rng.integers(commits)), "ambiguous": 1}.get(truth, -1)
    tip = base
    for c in range(commits):
        if c == breaker:
            files = {"calc.py": f"def add(a, b):\n    return a - b - {h + 1}\n"}
        elif truth == "ambiguous":
            files = {"calc.py": calc + f"\n\ndef mul{h}(a, b):\n    return a * b\n"}
        else:
            files = {f"docs/h{h}-{c}.md": "Notes\n"}
        tip = world.sandbox.commit(REPO, files, f"History {h}: change {c}")
        if c == breaker:
            culprits.add(tip)
    plays = {
        "break": (_RED, _RED),
        "ambiguous": (_RED, _RED),
        "flake": (("pytest-lucky-flaky.log",), _GREEN),
        "flake-add": (_RED, _GREEN),
    }[truth]
    issues_before = {i.number for i in repo.get_issues(state="all", labels=["needs-human"])}

    def early(reruns: int) -> None:
        # A needs-human issue about main while a confirmation rerun is still to come is filed too early.
        fresh = [i for i in repo.get_issues(state="all", labels=["needs-human"]) if i.number not in issues_before]
        if fresh and reruns == 0:
            tally.early_issues += len(fresh)

    player.play("push", _push(tip, base), tip, "main", plays, after=early)
    player.flaky_history |= {"flake": {"test_lucky"}, "flake-add": {"test_add"}}.get(truth, set())
    reverts = [p for p in repo.get_pulls(state="open") if p.head.ref.startswith("gauntlet/revert-")]
    reverted = {p.head.ref.removeprefix("gauntlet/revert-") for p in reverts}
    tally.bad_reverts += sum(1 for r in reverted if not any(c.startswith(r) for c in culprits))
    filed = [i for i in repo.get_issues(state="open", labels=["needs-human"]) if i.number not in issues_before]
    tally.main_histories += 1
    if culprits:
        tally.breaks += 1
        hit = any(c.startswith(r) for c in culprits for r in reverted)
        tally.breaks_handled += hit or bool(filed)
        if truth == "break":
            tally.attributable += 1
            tally.culprits_reverted += hit
    else:
        tally.false_alarms += bool(filed) + len(reverted)
    # People merge the revert PR, or fix main themselves; then main is green again.
    for pull in reverts:
        pull.merge()
    if world.file_at("calc.py", world.sandbox.head(REPO) or "") != calc:
        world.sandbox.commit(REPO, {"calc.py": calc}, f"History {h}: fix add")
    for issue in filed:
        issue.edit(state="closed")
    green = world.sandbox.head(REPO) or ""
    if green != tip:
        player.play("push", _push(green, tip), green, "main", (_GREEN, _GREEN))


def _queued(player: Player, h: int, base: str, *, flaky: bool) -> None:
    """A group through the merge queue: judged against its base, then fast-forwarded onto main."""
    world, tally = player.world, player.tally
    repo = world.owner.get_repo(REPO)
    branch = f"gh-readonly-queue/main/pr-{h + 5000}-{base}"
    repo.create_git_ref(f"refs/heads/{branch}", base)
    sha = world.sandbox.commit(REPO, {f"docs/g{h}.md": "x\n"}, f"Merge pull request #{h + 5000}", branch=branch)
    group = {"head_sha": sha, "head_ref": f"refs/heads/{branch}", "base_sha": base, "base_ref": "refs/heads/main"}
    payload = {"action": "checks_requested", "merge_group": group, "repository": _repository()}
    first = ("pytest-lucky-flaky.log",) if flaky else _GREEN
    _, outcomes, _ = player.play("merge_group", payload, sha, branch, (first, _GREEN))
    if outcomes:
        tally.groups += 1
        checks = world.check_runs(sha)
        tally.groups_right += bool(checks) and checks[0].conclusion == "success"
    repo.get_git_ref("heads/main").edit(sha)
    player.play("push", _push(sha, base), sha, "main", (_GREEN, _GREEN))
    tally.main_histories += 1


def bench(streams: int, seed: int, histories: int = 0) -> dict[str, Tally]:
    """Play every setup: ``histories`` default-branch histories, then main's break and the PR streams."""
    rng = np.random.default_rng(seed)
    plan = [(str(rng.choice(TRUTHS)), n % 10 == 9) for n in range(streams)]
    mains = [str(rng.choice(MAIN_TRUTHS)) for _ in range(histories)]
    tallies: dict[str, Tally] = {}
    for setup in setups():
        tally = Tally()
        with tempfile.TemporaryDirectory(prefix="gauntlet-topology-") as folder, start(Path(folder)) as world:
            player = Player(world, setup, tally)
            shapes = np.random.default_rng(seed + 1)  # the same histories in every setup
            if mains:  # main's first run is green: its last good commit is known before anything breaks
                green = world.sandbox.head(REPO) or ""
                player.play("push", _push(green, "0" * 40), green, "main", (_GREEN, _GREEN))
            for h, truth in enumerate(mains):
                _history(player, h, truth, shapes)
            _main(player)
            for n, (truth, queued) in enumerate(plan):
                _stream(player, n, truth, queued)
            _audit(player)
        tallies[setup.name] = tally
    return tallies


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}% ({part}/{whole})" if whole else "    - (0/0)"


def main(argv: list[str] | None = None) -> int:
    """Print the figures per setup; exit 1 when a regression was not marked ``new``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--histories", type=int, default=100, help="default-branch histories per setup")
    parser.add_argument("--quick", action="store_true", help="20 streams, 12 histories")
    args = parser.parse_args(argv)
    streams, histories = (20, 12) if args.quick else (args.streams, args.histories)
    started = time.monotonic()
    tallies = bench(streams, args.seed, histories)
    rows = [
        ("provenance right", lambda t: _pct(t.right, t.failing)),
        ("regressions marked new", lambda t: _pct(t.regressions_new, t.regressions)),
        ("  of a test flaky on main", lambda t: _pct(t.flaky_regressions_new, t.flaky_regressions)),
        ("PR flakes not blocking", lambda t: _pct(t.flakes_green, t.flakes)),
        ("  after one rerun by a person", lambda t: _pct(t.flakes_green_after_person, t.flakes)),
        ("merge groups judged right", lambda t: _pct(t.groups_right, t.groups)),
        ("main histories", lambda t: f"{t.main_histories}"),
        ("  bad reverts", lambda t: f"{t.bad_reverts}"),
        ("  culprits reverted", lambda t: _pct(t.culprits_reverted, t.attributable)),
        ("  breaks with a revert or issue", lambda t: _pct(t.breaks_handled, t.breaks)),
        ("  issues/reverts on a green history", lambda t: f"{t.false_alarms}"),
        ("  issues before a rerun", lambda t: f"{t.early_issues}"),
        ("duplicate observations on main", lambda t: f"{t.duplicates}"),
        ("Gauntlet's own job named", lambda t: f"{t.leaks}"),
        ("API calls per run", lambda t: f"{t.calls / max(t.runs, 1):.1f} ({t.runs} runs)"),
    ]
    names = list(tallies)
    print(f"{histories} default-branch histories and {streams} PR streams per setup (seed {args.seed}),")
    print("played through run_action on the sandbox")
    print(f"{'':34}" + "".join(f"{name:>24}" for name in names))
    for label, cell in rows:
        print(f"{label:34}" + "".join(f"{cell(tallies[name]):>24}" for name in names))
    for name in names:
        wrong = {k: v for k, v in tallies[name].words.items() if k.split("->")[0] != k.split("->")[1]}
        if wrong:
            print(f"{name}: wrong words {dict(wrong)}")
    print(f"done in {time.monotonic() - started:.0f} s")
    return 0 if all(t.regressions_new == t.regressions for t in tallies.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
