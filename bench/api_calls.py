"""Print the API calls of every run kind against its budget, and 32 concurrent PR runs (docs/scale.md).

All figures come from the sandbox's request log (every HTTP request Gauntlet sent, retries included). Each
run kind shows two figures: the HTTP requests **sent**, and the calls **counted** against the rate limit, which
leaves out the conditional requests GitHub answered ``304 Not Modified`` (free, docs/scale.md), and how many of
them were GraphQL queries (the run's start query, ``github/start.py``: GitHub counts it against GraphQL's own
budget, but here it is a call like any other). Budgets are judged on the counted calls:

- **per run kind**: the demo's story (``gauntlet demo``) played with each run's requests counted: a green
  ``main`` run, PR iterations 1 and 2, a ``/gauntlet`` command (the repository's first: shown, not judged; the
  budget is judged on a later one, :func:`steady_command`), the red ``main`` runs that ask for reruns and the
  one that opens a revert PR, the nightly scan (its budget grows by 3 per proposal it opens), also with 10,000
  other PRs in the state; and a scan that opens 3 proposal PRs (``bench/scan_calls.py``). The ``main`` runs and
  the scans get their requests listed one by one (``--requests``: every run kind's);
- **typical PR run** (iteration 2 of a failing PR), alone and with 10,000 other PRs in the state: the same;
- **32 PR runs at once** (threads in one process, one sandbox) against the same 32 runs one after another:
  the calls and the wall time of each, and the CPU time the process used.

    .venv/bin/python bench/api_calls.py            # everything (about 3 minutes on 2 busy cores)
    .venv/bin/python bench/api_calls.py --quick    # without the 10,000-PR case
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import github
from scan_calls import scan_with_proposals

from gauntlet.action.entry import run_action
from gauntlet.demo.printing import Narrator
from gauntlet.demo.story import MAINTAINER, STEPS, Story
from gauntlet.demo.world import REPOSITORY, ActionRun, World
from gauntlet.errors import GauntletError
from gauntlet.pipeline import Clock
from gauntlet.sandbox import Sandbox
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import PRRecord

REPO = "octo/app"
BOT = "github-actions[bot]"
DEMO = Path(__file__).resolve().parents[1] / "src" / "gauntlet" / "demo" / "data"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def action_env(
    sandbox: Sandbox, workspace: Path, event: str, payload: object, run_id: int, repository: str = REPO, **inputs: str
) -> dict[str, str]:
    """The environment GitHub gives the action for ``event`` (its payload written into ``workspace``).

    Each job gets a new ``GITHUB_TOKEN``, and GitHub binds an ``ETag`` to the token that read it: the token is
    the bot's, but its own for ``run_id`` (the sandbox's ``login:session`` tokens). No bench reruns a job.
    """
    (workspace / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(workspace / "event.json"),
        "GITHUB_REPOSITORY": repository,
        "GITHUB_API_URL": sandbox.url,
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_WORKSPACE": str(workspace),
        "INPUT_GITHUB_TOKEN": f"{BOT}:run-{run_id}",
        **inputs,
    }


def _run(
    sandbox: Sandbox,
    folder: Path,
    number: int,
    sha: str,
    run_id: int,
    iteration: int,
    review: bytes | None = None,
    *,
    review_comments: bool = True,
) -> int:
    workspace = folder / f"run-{run_id}"
    workspace.mkdir(parents=True)
    (workspace / "pytest.log").write_bytes((DEMO / f"pytest-iteration-{iteration}.log").read_bytes())
    review = review if review is not None else (DEMO / f"review-iteration-{iteration}.json").read_bytes()
    (workspace / "review.json").write_bytes(review)
    payload = {
        "action": "synchronize",
        "pull_request": {"number": number, "head": {"sha": sha, "ref": "feature"}, "user": {"login": "alice"}},
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    env = action_env(sandbox, workspace, "pull_request", payload, run_id, INPUT_LOGS="pytest.log")
    env["INPUT_FINDINGS"] = "review.json"
    env["INPUT_REVIEW_COMMENTS"] = "true" if review_comments else "false"
    clock = Clock(now=NOW, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
    try:
        return run_action(env, clock, io.StringIO())
    except GauntletError as exc:
        print(f"run failed: {exc}", file=sys.stderr)
        return exc.exit_code


def _crowd(sandbox: Sandbox, others: int, repository: str = REPO) -> None:
    """Put ``others`` PR records (and an issue each in the index) on the state branch, keeping Gauntlet's trailers."""
    head = sandbox.store.repo(*repository.split("/"))
    assert head is not None
    sha = head.git.ref("refs/heads/gauntlet-state")
    assert sha is not None
    message = head.git.read_commit(sha).message
    stored = [e.sha for e in head.git.ls_tree(sha, path="v1/index.json")]
    index = json.loads(head.git.read_blob(stored[0])) if stored else {"schema_version": 1, "entries": {}}
    files: dict[str, str | bytes | None] = {}
    for number in range(1000, 1000 + others):
        comment = 10_000_000 + number
        record = PRRecord(
            number=number, iteration_count=3, comment_id=comment, effects={f"pr-comment:{number}": comment}
        )
        files[f"v1/prs/{number}.json"] = record.model_dump_json(indent=1) + "\n"
        index["entries"][f"risk:{number:016x}"] = number
    files["v1/index.json"] = json.dumps(index, indent=1) + "\n"
    # The crowd's commit is built on the head, like a branch run's: it carries the head's trailers as they hold
    # after it (the index exists now), not a PR run's Gauntlet-Base (its parent is its base).
    lines = [line for line in message.splitlines() if not line.startswith("Gauntlet-Base:")]
    shared = next((line for line in lines if line.startswith("Gauntlet-Shared:")), "Gauntlet-Shared:")
    listed = sorted({*shared.removeprefix("Gauntlet-Shared:").split(), "v1/index.json"})
    lines = [f"Gauntlet-Shared: {' '.join(listed)}" if line == shared else line for line in lines]
    subject = "\n".join(lines).replace("gauntlet:", "bench: crowd the state;", 1) + "\n"
    sandbox.commit(repository, files, subject, branch="gauntlet-state")


def _pull_request(sandbox: Sandbox) -> tuple[github.Github, int, str]:
    """``REPO`` with a PR from ``feature``: the owner's client, the PR's number and its first head.

    The state branch holds the default branch's record, as in any repository where Gauntlet also runs on
    ``main`` (without it, each PR run would read it and be answered 404, which no ``ETag`` can spare).
    """
    sandbox.create_repo(REPO, {"README.md": "# app\n", "calc.py": "def add(a, b):\n    return a - b\n"})
    sandbox.set_permission(REPO, BOT, "write")
    main = BranchRecord(name="main").model_dump_json(indent=1) + "\n"
    files: dict[str, str | bytes | None] = {"README.md": "state\n", "v1/branches/main.json": main}
    sandbox.commit(REPO, files, "gauntlet: start\n\nGauntlet-Shared: \n", branch="gauntlet-state")
    owner = github.Github(base_url=sandbox.url, auth=github.Auth.Token("octo"), seconds_between_writes=None)
    owner.get_repo(REPO).create_git_ref("refs/heads/feature", sandbox.head(REPO) or "")
    first = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b  # 1\n"}, branch="feature")
    number = owner.get_repo(REPO).create_pull(title="Fix add", body="", head="feature", base="main").number
    return owner, number, first


def typical_run(others: int, *, review_comments: bool = True) -> Counter[str]:
    """The requests of iteration 2 of a PR, with ``others`` other PRs in the state.

    :param review_comments: the input of that name: read the PR's review comments and reviews (2 calls).
    """
    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        _, number, first = _pull_request(sandbox)
        assert _run(sandbox, Path(tmp), number, first, 1, 1, review_comments=review_comments) == 0
        if others:
            _crowd(sandbox, others)
        second = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b  # 2\n"}, branch="feature")
        sandbox.clear_requests()
        again = _run(sandbox, Path(tmp), number, second, 2, 2, review=SECOND_REVIEW, review_comments=review_comments)
        assert again == 0
        return tally(sandbox.requests())


def _command(sandbox: Sandbox, folder: Path, number: int, text: str, run_id: int, *, counted: bool = False) -> int:
    """The maintainer ``maya`` comments ``text`` on PR ``number``, and Gauntlet runs on the ``issue_comment``.

    :param counted: forget the requests served so far once the comment is made: only Gauntlet's are left.
    """
    sandbox.set_permission(REPO, MAINTAINER, "maintain")
    issue = sandbox.pygithub(MAINTAINER).get_repo(REPO).get_issue(number)
    comment = issue.create_comment(text)
    workspace = folder / f"run-{run_id}"
    workspace.mkdir(parents=True)
    payload = {"action": "created", "comment": comment.raw_data, "issue": issue.raw_data,
               "repository": {"full_name": REPO, "default_branch": "main"}}  # fmt: skip
    env = action_env(sandbox, workspace, "issue_comment", payload, run_id)
    clock = Clock(now=NOW, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
    if counted:
        sandbox.clear_requests()
    return run_action(env, clock, io.StringIO())


#: Iteration 2's review in :func:`steady_command`: the demo's minor, and a new one.
SECOND_REVIEW = json.dumps(
    {
        "issues": [
            {
                "reviewer": "style-reviewer",
                "severity": "medium",
                "category": "maintainability",
                "location": "calc.py:1",
                "description": "Public functions lack type hints.",
            },
            {
                "reviewer": "docs-reviewer",
                "severity": "medium",
                "category": "documentation",
                "location": "calc.py:2",
                "description": "add() has no docstring.",
            },
        ]
    }
).encode()


def steady_command(others: int = 0) -> Counter[str]:
    """The requests of a ``/gauntlet`` command on an existing state: not the repository's first.

    A PR's iteration 1 has a minor review finding, which the maintainer accepts (the repository's first command:
    its labels are created, the permission read); the PR's iteration 2 brings another minor (a second reviewer's),
    and the maintainer accepts it too. That second ``accept-risk`` is measured: it files its issue, as a
    typical one does, in a repository that has the labels already.

    :param others: PR records (each with an issue in the index) put on the state branch before the command.
    """
    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        _, number, first = _pull_request(sandbox)
        assert _run(sandbox, Path(tmp), number, first, 1, 1) == 0
        assert _command(sandbox, Path(tmp), number, "/gauntlet accept-risk minors the style pass", 10) == 0
        second = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b  # 2\n"}, branch="feature")
        assert _run(sandbox, Path(tmp), number, second, 2, 2, review=SECOND_REVIEW) == 0
        if others:
            _crowd(sandbox, others)
        text = "/gauntlet accept-risk minors docstrings come with the docs pass"
        assert _command(sandbox, Path(tmp), number, text, 11, counted=True) == 0
        requests = tally(sandbox.requests())
        filed = [i for i in sandbox.pygithub(MAINTAINER).get_repo(REPO).get_issues(state="all") if i.user.login == BOT]
        assert len(filed) == 2, "each accept-risk filed its issue"
        return requests


def _template(path: str) -> str:
    parts = path.split("/")
    return "/".join(p if not (p.isdigit() or len(p) == 40 or "..." in p) else "{id}" for p in parts)


#: The suffix of a request GitHub answered 304 Not Modified: sent, not counted against the rate limit.
FREE = " (304, free)"


def tally(requests: list[dict[str, Any]]) -> Counter[str]:
    """Requests by method and path template; the 304s apart (their key ends with :data:`FREE`)."""
    return Counter(f"{r['method']} {_template(r['path'])}" + (FREE if r.get("status") == 304 else "") for r in requests)


def counted_calls(requests: Counter[str]) -> int:
    """The calls counted against the rate limits: every request but the 304s, a GraphQL query too."""
    return sum(n for key, n in requests.items() if not key.endswith(FREE))


def graphql_calls(requests: Counter[str]) -> int:
    """The GraphQL queries among them: GitHub counts each against GraphQL's own budget (1 point each here)."""
    return sum(n for key, n in requests.items() if key.startswith("POST /graphql"))


#: Budgets per run kind (issue 21): calls at most. The scan's grows by 3 per proposal it opens. The first run
#: of all creates the state branch (3 writes, once per repository), like a PR's first iteration: no budget.
BUDGETS = {
    "green main run": 5,
    "PR run, iteration 2": 6,
    # Judged on a later command (``steady_command``); the repository's first pays its labels and permission once.
    "/gauntlet command, steady state": 6,
    "red main run, revert PR": 12,
    "nightly scan": 12,
    # Not a budget of the issue: a red run that asks for a rerun is a red main run too.
    "red main run, rerun to confirm": 12,
}
#: The run kinds of issue 21 whose requests are always listed (besides the typical PR run).
MAIN_KINDS = ("green main run", "red main run, rerun to confirm", "red main run, revert PR", "nightly scan")


def green_again(story: Story, folder: Path) -> None:
    """Not a step of the demo: one more commit on main, green, on the state the first run created."""
    notes = folder / "NOTES.md"
    notes.write_text("# Notes\n", encoding="utf-8")
    sha = story.world.push(MAINTAINER, "main", {"NOTES.md": notes}, "Add notes")
    story.main_ci(sha, "main", 50)


def _kind(done: ActionRun, earlier: list[str]) -> str:
    """What kind of run ``done`` was, from its event and its effects (the demo's story decides the order)."""
    if done.event == "schedule":
        return "nightly scan"
    if done.event == "issue_comment":
        return "/gauntlet command, first (demo)"
    if done.event == "pull_request":
        return f"PR run, iteration {sum(1 for k in earlier if k.startswith('PR run')) + 1}"
    effects = {e.get("type") for e in done.effects}
    if "open_revert_pr" in effects:
        return "red main run, revert PR"
    if "rerun_failed_jobs" in effects:
        return "red main run, rerun to confirm"
    if "green main run, first of all" not in " ".join(earlier):
        return "green main run, first of all"
    return "green main run"


@dataclass
class _CountingWorld(World):
    """The demo's world, counting each action run's requests on the sandbox."""

    counted: list[tuple[str, Counter[str]]] | None = None

    def act(self, event: str, payload: Any, **kwargs: Any) -> ActionRun:
        self.sandbox.clear_requests()
        done = super().act(event, payload, **kwargs)
        requests = tally(self.sandbox.requests())
        if self.counted is not None:
            self.counted.append((_kind(done, [k for k, _ in self.counted]), requests))
        return done


def run_kinds(crowd: int = 0) -> list[tuple[str, int, int | None, Counter[str]]]:
    """Each run of the demo story: its kind, counted calls, budget (``None``: none) and requests.

    :param crowd: PR records (each with an issue in the index) put on the state branch after the first step.
    """
    counted: list[tuple[str, Counter[str]]] = []
    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bodies").mkdir()
        world = _CountingWorld(sandbox=sandbox, folder=Path(tmp), counted=counted)
        story = Story(world=world, narrator=Narrator(out=io.StringIO(), folder=Path(tmp) / "bodies"))
        try:
            for number, step in enumerate(STEPS):
                step(story)
                if number == 0 and crowd:
                    _crowd(sandbox, crowd, repository=REPOSITORY)
                if number == 0:
                    green_again(story, Path(tmp))
        finally:
            world.close()
        proposals = len(story.world.runs[-1].report.get("proposals", []) or [])
    rows = []
    for kind, requests in counted:
        budget = BUDGETS.get(kind)
        if budget is not None and kind == "nightly scan":
            budget += 3 * proposals
        rows.append(
            (
                kind if kind != "nightly scan" else f"nightly scan ({proposals} proposals)",
                counted_calls(requests),
                budget,
                requests,
            )
        )
    return rows


@dataclass(frozen=True)
class Crowd:
    """Many PR runs of iteration 1 on one sandbox: the calls and the wall time."""

    calls: int
    sent: int
    wall: float
    slowest: float
    cpu: float
    lost: int


def crowd(count: int, *, at_once: bool) -> Crowd:
    """``count`` PRs each get their first Gauntlet run, all at once (threads) or one after another.

    Nothing may be lost: every PR ends with its record and its comment.
    """
    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        sandbox.create_repo(REPO, {"README.md": "# app\n", "calc.py": "def add(a, b):\n    return a - b\n"})
        sandbox.set_permission(REPO, BOT, "write")
        owner = github.Github(base_url=sandbox.url, auth=github.Auth.Token("octo"), seconds_between_writes=None)
        repo = owner.get_repo(REPO)
        main = sandbox.head(REPO) or ""
        heads: list[tuple[int, str]] = []
        for n in range(count):
            repo.create_git_ref(f"refs/heads/f{n}", main)
            sha = sandbox.commit(REPO, {"calc.py": f"def add(a, b):\n    return a + b  # {n}\n"}, branch=f"f{n}")
            heads.append((repo.create_pull(title=f"PR {n}", body="", head=f"f{n}", base="main").number, sha))
        # The state branch exists already, as in any repository after its first run.
        sandbox.commit(
            REPO, {"README.md": "state\n"}, "gauntlet: start\n\nGauntlet-Shared: \n", branch="gauntlet-state"
        )
        sandbox.clear_requests()
        times: list[float] = []

        def one(index: int) -> None:
            number, sha = heads[index]
            started = time.monotonic()
            _run(sandbox, Path(tmp), number, sha, 100 + index, 1)
            times.append(time.monotonic() - started)

        cpu, started = _cpu(), time.monotonic()
        _each(count, one, at_once=at_once)
        wall, cpu = time.monotonic() - started, _cpu() - cpu
        requests = tally(sandbox.requests())
        lost = sum(1 for number, _ in heads if not _landed(sandbox, owner, number))
        calls, sent = counted_calls(requests), sum(requests.values())
        return Crowd(calls=calls, sent=sent, wall=wall, slowest=max(times), cpu=cpu, lost=lost)


def _cpu() -> float:
    """CPU seconds of this process (the runs and the sandbox's threads) and its children (the sandbox's git)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _each(count: int, work: Callable[[int], None], *, at_once: bool) -> None:
    if not at_once:
        for index in range(count):
            work(index)
        return
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _landed(sandbox: Sandbox, owner: github.Github, number: int) -> bool:
    """The PR has its record on the state branch and exactly one Gauntlet comment."""
    head = sandbox.store.repo("octo", "app")
    assert head is not None
    sha = head.git.ref("refs/heads/gauntlet-state") or ""
    stored = head.git.ls_tree(sha, path=f"v1/prs/{number}.json")
    comments = [c for c in owner.get_repo(REPO).get_issue(number).get_comments() if c.user.login == BOT]
    return bool(stored) and len(comments) == 1


def main() -> None:
    """Print every budget, the typical run with 1 and 10,001 PRs, and the concurrent figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the 10,000-PR case")
    parser.add_argument("--runs", type=int, default=32, help="concurrent PR runs")
    parser.add_argument("--only-concurrent", action="store_true", help="only the concurrent figures")
    parser.add_argument("--requests", action="store_true", help="list each run kind's requests")
    args = parser.parse_args()
    if not args.only_concurrent:
        _kinds_and_typical(quick=args.quick, verbose=args.requests)

    _concurrent(args.runs)


def _kinds_and_typical(*, quick: bool, verbose: bool) -> None:
    kinds = run_kinds()
    crowded = run_kinds(10_000) if not quick else []
    print("Per run kind (the demo story); budgets are judged on the counted calls (304s are free), GraphQL")
    print("queries included (GitHub counts those against GraphQL's own budget)")
    print(f"{'run':40} {'sent':>5} {'counted':>8} {'GraphQL':>8} {'10,001 PRs':>11} {'budget':>7}")
    for number, (kind, calls, budget, requests) in enumerate(kinds):
        sent, ql = sum(requests.values()), graphql_calls(requests)
        more = crowded[number][1] if crowded else "-"
        if budget is None:
            print(f"{kind:40} {sent:>5} {calls:>8} {ql:>8} {more:>11} {'-':>7}")
        else:
            over = calls > budget or (crowded and crowded[number][1] > budget)
            print(f"{kind:40} {sent:>5} {calls:>8} {ql:>8} {more:>11} {budget:>7}  {'OVER' if over else 'ok'}")
        for key in sorted(requests) if verbose else ():
            print(f"    {requests[key]:>3} {key}")
        if kind.startswith("/gauntlet command"):
            _steady_row(verbose, quick=quick)
    proposals = scan_with_proposals(3)
    many = scan_with_proposals(3, crowd=10_000) if not quick else Counter[str]()
    calls, budget = counted_calls(proposals), 12 + 3 * 3
    over = calls > budget or counted_calls(many) > budget
    print(
        f"{'nightly scan opening 3 proposal PRs':40} {sum(proposals.values()):>5} {calls:>8} "
        f"{graphql_calls(proposals):>8} {counted_calls(many) if many else '-':>11} {budget:>7}  "
        f"{'OVER' if over else 'ok'}"
    )
    for number, (kind, _, _, requests) in enumerate(kinds):
        if kind.startswith(MAIN_KINDS):
            _breakdown(kind, requests, crowded[number][3] if crowded else Counter[str]())
    _breakdown("nightly scan opening 3 proposal PRs", proposals, many)
    small = typical_run(0)
    large = typical_run(10_000) if not quick else Counter[str]()
    _breakdown("Typical PR run (iteration 2 of a failing PR)", small, large, budget=6)
    plain = typical_run(0, review_comments=False)
    plain_large = typical_run(10_000, review_comments=False) if not quick else Counter[str]()
    _breakdown("The same, with review_comments: false (no review reads)", plain, plain_large, budget=6)


def _steady_row(verbose: bool, *, quick: bool) -> None:
    """The ``/gauntlet`` command the budget is judged on: a later one, on an existing state (``steady_command``)."""
    kind = "/gauntlet command, steady state"
    requests = steady_command()
    calls, budget = counted_calls(requests), BUDGETS[kind]
    crowded = counted_calls(steady_command(10_000)) if not quick else None
    verdict = "OVER" if calls > budget or (crowded or 0) > budget else "ok"
    more = crowded if crowded is not None else "-"
    ql = graphql_calls(requests)
    print(f"{kind:40} {sum(requests.values()):>5} {calls:>8} {ql:>8} {more:>11} {budget:>7}  {verdict}")
    for key in sorted(requests) if verbose else ():
        print(f"    {requests[key]:>3} {key}")


def _breakdown(title: str, small: Counter[str], large: Counter[str], budget: int | None = None) -> None:
    """One run's requests by endpoint, with 1 PR and with 10,001 PRs in the state (``-`` when not measured)."""
    print(f"\n{title}")
    print(f"{'request':74} {'1 PR':>6} {'10,001 PRs':>11}")
    for key in sorted(set(small) | set(large)):
        print(f"{_short(key):74} {small[key]:>6} {large[key] if large else '-':>11}")
    print(f"{'HTTP requests sent':74} {sum(small.values()):>6} {sum(large.values()) if large else '-':>11}")
    heavy = counted_calls(large) if large else "-"
    against = "counted against the rate limit" + (f" (budget {budget})" if budget is not None else "")
    print(f"{against:74} {counted_calls(small):>6} {heavy:>11}")


def _short(request: str) -> str:
    """``GET /repos/o/r/x`` as ``GET x`` (the repository is the same in every row), a shard as ``{run}``."""
    method, _, path = request.partition(" ")
    parts = path.split("/")
    if not path.startswith("/repos/") or len(parts) <= 4:
        return request
    parts = parts[4:]
    if parts[:3] == ["contents", "v1", "shards"] and len(parts) == 4:
        parts[3] = "{run}.json" + (FREE if parts[3].endswith(FREE) else "")
    return f"{method} {'/'.join(parts)}"


def _concurrent(runs: int) -> None:
    alone = crowd(1, at_once=False)
    serial = crowd(runs, at_once=False)
    together = crowd(runs, at_once=True)
    print(f"\n{runs} PR runs (iteration 1 each)")
    print(
        f"{'':20} {'sent':>5} {'counted':>8} {'per run':>8} {'wall s':>7} {'slowest run s':>14} {'CPU s':>6} "
        f"{'lost':>5}"
    )
    for name, figures in (("one run alone", alone), ("one after another", serial), ("all at once", together)):
        per = figures.calls / (1 if figures is alone else runs)
        print(
            f"{name:20} {figures.sent:>5} {figures.calls:>8} {per:>8.1f} {figures.wall:>7.1f} "
            f"{figures.slowest:>14.1f} {figures.cpu:>6.1f} {figures.lost:>5}"
        )
    ratio = together.calls / serial.calls
    bound = 3 * alone.wall + together.cpu
    print(f"counted calls at once / one after another: {ratio:.2f} (budget 1.30)")
    print(
        f"slowest concurrent run {together.slowest:.1f} s; bound 3 x one run ({alone.wall:.1f} s) + CPU "
        f"({together.cpu:.1f} s) = {bound:.1f} s: {'ok' if together.slowest <= bound else 'OVER'}"
    )


if __name__ == "__main__":
    main()
