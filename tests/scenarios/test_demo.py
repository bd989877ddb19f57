"""``gauntlet demo`` end to end, in-process: the story's effects are really on the sandbox, and it says what it did.

The demo runs once for the module (it takes a while); each test looks at one part of the story on the sandbox it
ran on, through PyGithub as the maintainer, and at what the demo printed and kept.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from github.Repository import Repository

from gauntlet.cli import main
from gauntlet.demo import tell
from gauntlet.demo.printing import Tally
from gauntlet.demo.story import Story
from gauntlet.demo.world import BOT, DATA, DEVELOPER, MAINTAINER, REPOSITORY
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import ContractRecorder

pytestmark = pytest.mark.slow

#: The rule the security reviewer taught on the PR (review-iteration-1.json), which the nightly scan proposes.
RULE = "Raise ValueError for invalid arguments instead of leaking ZeroDivisionError."


@dataclass
class Played:
    """A finished demo: its sandbox (still running), story, tally, printed text, folder and duration."""

    sandbox: Sandbox
    story: Story
    tally: Tally
    text: str
    folder: Path
    seconds: float
    recorder: ContractRecorder

    @property
    def repo(self) -> Repository:
        return self.sandbox.pygithub(MAINTAINER).get_repo(REPOSITORY)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    folder = tmp_path_factory.mktemp("demo-out")
    out = io.StringIO()
    recorder = ContractRecorder()
    with Sandbox.start() as sandbox:
        sandbox.observe(recorder)
        started = time.monotonic()
        story, tally = tell(sandbox, folder, out)
        seconds = time.monotonic() - started
        yield Played(sandbox, story, tally, out.getvalue(), folder, seconds, recorder)
        assert not sandbox.app.crashes, "sandbox handler crashed:\n" + "\n".join(sandbox.app.crashes)


def test_the_repository_was_pushed_with_git_and_ci_was_green_on_main(played: Played) -> None:
    repo = played.repo
    first = list(repo.get_commits(sha="main"))[-1]
    assert first.commit.message == "Start the calculator"
    assert first.commit.author.name == MAINTAINER, "made by git with the maintainer's identity, not by the API"
    assert repo.get_contents("tests/test_calc.py", ref=first.sha).decoded_content.startswith(b"from calc import")
    [check] = [c for c in repo.get_commit(first.sha).get_check_runs() if c.name == "Gauntlet"]
    assert check.conclusion == "success"


def test_the_pr_gets_one_sticky_comment_edited_in_place_across_iterations(played: Played) -> None:
    pull = played.repo.get_pull(1)
    assert pull.user.login == DEVELOPER
    mine = [c for c in pull.as_issue().get_comments() if c.user.login == BOT]
    sticky = [c for c in mine if "<!-- gauntlet:key=pr-comment:1 -->" in c.body]
    assert len(sticky) == 1
    assert "iteration 2" in sticky[0].body and "Fixed since the last iteration" in sticky[0].body
    kept = played.folder / "pr-1-comment-iteration-1.md"
    assert "iteration 1" in kept.read_text() and "test_add" in kept.read_text(), "iteration 1 kept as it was"
    assert played.tally.comment_edits >= 2, "iteration 2 and the accepted risk edit the same comment"
    first_head, fixed_head = (c.sha for c in pull.get_commits())
    assert [c.conclusion for c in played.repo.get_commit(first_head).get_check_runs()] == ["failure"]
    assert [c.conclusion for c in played.repo.get_commit(fixed_head).get_check_runs()] == ["success"]


def test_each_action_run_has_its_own_token_so_no_earlier_runs_etag_is_answered_304(played: Played) -> None:
    # Each job gets a new GITHUB_TOKEN and GitHub binds an ETag to its token: what a run remembered from an
    # earlier one is a full answer. The PR's runs read the state and the reviews in their start query (GraphQL).
    assert len(played.story.world.runs) >= 5
    assert [r for r in played.sandbox.requests() if r["status"] == 304] == []
    assert not any("/pulls/1/reviews" in r["path"] for r in played.sandbox.requests())
    assert sum(r["path"] == "/graphql" and r["status"] == 200 for r in played.sandbox.requests()) >= 5


def test_the_maintainer_accepts_the_minor_risk_and_an_issue_is_filed(played: Played) -> None:
    [issue] = list(played.repo.get_issues(state="all", labels=["accepted-risk"]))
    assert issue.user.login == BOT
    assert "Public functions lack type hints." in issue.title
    assert "Accepted by `maya`" in issue.body and "typing pass" in issue.body
    sticky = next(c for c in played.repo.get_issue(1).get_comments() if "pr-comment:1 -->" in c.body)
    assert "accepted by `maya`" in sticky.body and f"(tracked in #{issue.number})" in sticky.body
    assert "typing pass" in sticky.body and "Public functions lack type hints." in sticky.body
    assert "the check and the sticky comment answer the command" in played.text
    assert (played.folder / f"issue-{issue.number}-accepted-risk.md").read_text() == issue.body
    head = played.repo.get_pull(1).head.sha
    [check] = list(played.repo.get_commit(head).get_check_runs())
    assert "accepted by `maya`" in check.output.summary, "the check run was updated with the accepted risk"
    assert f"(tracked in #{issue.number})" in check.output.summary


def test_the_broken_main_gets_a_revert_pr_of_the_culprit_after_last_good(played: Played) -> None:
    repo = played.repo
    culprit = repo.get_branch("main").commit
    assert culprit.commit.message == "Use operator functions" and culprit.commit.author.name == DEVELOPER
    [revert] = [p for p in repo.get_pulls(state="all") if p.head.ref.startswith("gauntlet/revert-")]
    assert revert.user.login == BOT and revert.title == 'Revert "Use operator functions"'
    assert f"This reverts commit {culprit.sha}." in revert.body
    assert [f.filename for f in revert.get_files()] == ["calc.py"]
    reverted = repo.get_contents("calc.py", ref=revert.head.sha)
    assert not isinstance(reverted, list)
    assert reverted.decoded_content == (DATA / "main" / "calc.py").read_bytes(), "back to the last-good version"
    [check] = [c for c in repo.get_commit(culprit.sha).get_check_runs() if c.name == "Gauntlet"]
    assert check.conclusion == "failure"
    assert f"last-good {culprit.parents[0].sha[:7]}" in played.text
    assert not played.story.notes, "every step of the story is available"


def test_the_nightly_scan_proposes_only_what_recurred_and_says_why(played: Played) -> None:
    # The PR's failing test broke main too: two occasions, P0 on main, so one MAJOR proposal asks a human.
    proposals = [p for p in played.repo.get_pulls(state="all") if p.head.ref.startswith("gauntlet/proposal-")]
    assert proposals == []
    issues = [i for i in played.repo.get_issues(state="all") if "needs a human (SH-" in i.title]
    [issue] = issues
    assert "<!-- gauntlet:key=needs-human:proposal-SH-1 -->" in issue.body
    # Both of PR #1's failing tests test calc.py: one component (the code under test), one line per occasion.
    assert "calc/test_failure keeps recurring" in issue.body
    assert "P1 on PR #1: tests/test_calc.py::test_" in issue.body
    assert "P0 on main on " in issue.body and "/gauntlet approve SH-1" in issue.body
    assert "why: 2 occasions in the last 14 days (1 × P0, 1 × P1)" in played.text
    # The reviewer's rule was seen on one PR: no proposal, and the scan's account says so.
    assert (
        "why not: calc/review: no proposal, seen on 1 occasion(s) (a proposal needs a recurrence: 2 distinct PRs "
        "or days)" in played.text
    )
    book = json.loads((played.folder / "state" / "v1" / "proposals.json").read_text())["proposals"]
    assert [(p["id"], p["level"], p["status"]) for p in book] == [("SH-1", "MAJOR", "needs_human")]
    assert all(RULE not in p["rules"] for p in book)


def test_the_summary_table_matches_the_sandbox(played: Played) -> None:
    tally, repo = played.tally, played.repo
    # Six events, and the three confirming reruns of step 5's failed jobs (a failing test takes four sightings).
    assert tally.runs == 9
    assert tally.state_commits == len(list(repo.get_commits(sha="gauntlet-state"))) >= 9
    mine = [i for i in repo.get_issues(state="all") if i.user.login == BOT]
    assert tally.issues == sum(1 for i in mine if i.pull_request is None)
    assert tally.pull_requests == sum(1 for i in mine if i.pull_request is not None)
    assert tally.check_runs == 4 and tally.api_calls > 50
    for what, count in tally.rows():
        assert re.search(rf"{re.escape(what)}\s+{count}\n", played.text), what


def test_the_story_is_printed_in_order_with_where_to_look_and_takes_under_a_minute(played: Played) -> None:
    numbers = [int(m) for m in re.findall(r"^(\d)\. ", played.text, flags=re.MULTILINE)]
    assert numbers == [1, 2, 3, 4, 5, 6]
    assert f"{played.sandbox.url}/repos/{REPOSITORY}/pulls/1" in played.text
    assert str(played.folder) in played.text
    assert played.seconds < 60


def test_every_sandbox_response_in_the_demo_has_githubs_shape(played: Played) -> None:
    problems = [f"{m.method} {m.template} -> {m.status}" for m in played.recorder.mismatches]
    assert not problems


def test_the_command_line_plays_the_demo_into_a_relative_folder_it_may_reuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `make demo` passes `--out demo-out`, relative to the checkout
    stale = tmp_path / "out" / "state" / "v1" / "prs" / "9.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")  # left by an earlier demo

    assert main(["demo", "--out", "out"]) == 0

    printed = capsys.readouterr().out
    assert "What Gauntlet did" in printed and "Not yet available" not in printed
    kept = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "pr-1-comment-iteration-2.md" in kept and "state" in kept
    # 3 checks, 3 sticky comments, 2 issues, 1 revert PR, the known-failure issue's hit comment, the state
    # branch, the dashboard (the command is answered by the check and the sticky comment: no reply)
    assert len(kept) == 12
    assert "dashboard" in kept and f"{tmp_path / 'out' / 'dashboard' / 'index.html'}" in printed
    assert not stale.exists(), "the state folder is this run's state branch, nothing else"


def test_the_state_branch_is_left_checked_out_beside_the_bodies(played: Played) -> None:
    state = played.folder / "state"
    assert (state / "README.md").is_file()
    record = json.loads((state / "v1" / "prs" / "1.json").read_text())
    assert [len(i["fixed"]) for i in record["iterations"]] == [0, 6]
    proposals = json.loads((state / "v1" / "proposals.json").read_text())["proposals"]
    assert [p["status"] for p in proposals] == ["needs_human"]
    assert not (state / ".git").exists()


def test_the_demo_ends_with_the_dashboard_of_its_story(played: Played) -> None:
    site = played.folder / "dashboard"
    assert sorted(p.name for p in site.iterdir()) == [
        "branch.html", "failures.html", "flaky.html", "index.html", "proposals.html", "pulls.html", "style.css",
    ]  # fmt: skip
    branch = json.loads((played.folder / "state" / "v1" / "branches" / "main.json").read_text())
    [revert] = branch["reverts"]
    index = json.loads((played.folder / "state" / "v1" / "index.json").read_text())["entries"]
    page = (site / "branch.html").read_text()
    assert f"#{index['revert:' + revert['culprit'][:12]]}" in page and revert["culprit"][:7] in page
    proposals = json.loads((played.folder / "state" / "v1" / "proposals.json").read_text())["proposals"]
    assert all(p["id"] in (site / "proposals.html").read_text() for p in proposals)
    assert "#1" in (site / "pulls.html").read_text()


def test_after_a_green_main_run_the_prs_failures_are_its_own_and_ci_names_every_run(played: Played) -> None:
    first = (played.folder / "pr-1-comment-iteration-1.md").read_text(encoding="utf-8")
    assert "**3 failures are yours**; 1 is not yours (1 known): fix 3." in first and "**Yours** (3)" in first
    assert "No history yet" not in first
    # The known-failure issue the maintainer filed matches test_divide_by_zero: linked, and the hit recorded.
    assert "`tests/test_calc.py::test_divide_by_zero`" in first.split("**Known failures")[1]
    assert "(matches known-failure issue [#2](" in first
    hit = (played.folder / "issue-2-known-hit.md").read_text(encoding="utf-8")
    assert "matched 1 time in #1" in hit
    state = played.folder / "state" / "v1"
    jobs = {
        run["job"]
        for path in (state / "branches" / "main.json", state / "prs" / "1.json")
        for run in json.loads(path.read_text(encoding="utf-8")).get("runs", [])
    } | {
        test["job"]
        for path in (state / "branches" / "main.json", state / "prs" / "1.json")
        for test in json.loads(path.read_text(encoding="utf-8"))["outcomes"]["tests"]
    }
    assert jobs == {"CI/test"}, "main (workflow_run) and the PR (a step of CI's job) share CI's key"
    bodies = "".join(p.read_text(encoding="utf-8") for p in played.folder.glob("*.md"))
    assert "`gauntlet`" not in bodies and "Gauntlet/gauntlet" not in bodies
