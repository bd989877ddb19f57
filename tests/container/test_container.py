"""The real Dockerfile, built on a local stand-in base and run as the Actions runner runs a Docker action.

The container reaches an in-process sandbox over the host network and must leave
what the action promises: outputs in ``$GITHUB_OUTPUT``, a job summary, and on
the pull request one sticky comment, one check run and the state branch. A second
step with the same event changes nothing. Where no Docker engine can start (no
root, no cgroup or overlay permission), the tests skip and say why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import github
import pytest
from docker_engine import (
    Engine,
    Image,
    Job,
    Run,
    run_as_runner,
)

from gauntlet import __version__
from gauntlet.demo.runner import parse_outputs
from gauntlet.sandbox import Sandbox

pytestmark = pytest.mark.slow

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"
DEMO = Path(__file__).resolve().parents[2] / "src" / "gauntlet" / "demo" / "data"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    """A sandbox with ``octo/app``, which the bot may write to."""
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n", "calc.py": "def add(a, b):\n    return a - b\n"})
        running.set_permission(REPO, BOT, "write")
        yield running
        assert not running.app.crashes, "sandbox handler crashed:\n" + "\n".join(running.app.crashes)


def as_owner(sandbox: Sandbox) -> github.Github:
    """PyGithub as the repository owner, without retries."""
    return github.Github(base_url=sandbox.url, auth=github.Auth.Token(OWNER), retry=None)


def open_pr(sandbox: Sandbox) -> tuple[int, str]:
    """A PR fixing ``add``; returns its number and head SHA."""
    repo = as_owner(sandbox).get_repo(REPO)
    main = sandbox.head(REPO)
    assert main is not None
    repo.create_git_ref("refs/heads/fix-add", main)
    sha = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b\n"}, "Fix add", branch="fix-add")
    number = repo.create_pull(title="Fix add", body="", head="fix-add", base="main").number
    return number, sha


def pull_request_step(sandbox: Sandbox, root: Path, number: int, sha: str) -> tuple[Job, dict[str, str]]:
    """The runner's folders and environment for a ``pull_request`` step with the demo's failing CI."""
    job = Job.make(root)
    event = {
        "action": "opened",
        "number": number,
        "pull_request": {
            "number": number,
            "user": {"login": "alice"},
            "head": {"sha": sha, "ref": "fix-add"},
            "base": {"sha": sandbox.head(REPO), "ref": "main"},
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    (job.workflow / "event.json").write_text(json.dumps(event), encoding="utf-8")
    for name, source in (("pytest.log", "pytest-iteration-1.log"), ("review.json", "review-iteration-1.json")):
        (job.workspace / name).write_bytes((DEMO / source).read_bytes())
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_SHA": sha,
        "GITHUB_API_URL": sandbox.url,
        "GITHUB_SERVER_URL": sandbox.url,
        "GITHUB_RUN_ID": "100",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_JOB": "gauntlet",
        "INPUT_GITHUB_TOKEN": BOT,
        "INPUT_LOGS": "*.log",
        "INPUT_FINDINGS": "review.json",
    }
    return job, env


def outputs(run: Run) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` of the run, read the way the runner reads it."""
    return parse_outputs(run.output_text)


def state_file(sandbox: Sandbox, path: str) -> Any:
    """A JSON file on the state branch."""
    content = as_owner(sandbox).get_repo(REPO).get_contents(path, ref="gauntlet-state")
    assert not isinstance(content, list)
    return json.loads(content.decoded_content)


def test_the_container_serves_a_pull_request_as_the_runner_runs_it(
    engine: Engine, image: Image, sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    number, sha = open_pr(sandbox)
    job, env = pull_request_step(sandbox, tmp_path / "step-1", number, sha)
    sandbox.clear_requests()

    run = run_as_runner(engine, image.tag, job, env)
    writes = [r for r in sandbox.requests() if r["method"] != "GET" and not r["path"].startswith("/_sandbox")]
    with capsys.disabled():  # the costs belong in every CI log
        print(
            f"\ncontainer: image {image.size_bytes / 1e6:.0f} MB (stand-in base); base {image.base_seconds:.0f}s, "
            f"build {image.build_seconds:.0f}s; step {run.seconds:.1f}s with {len(writes)} writes spaced 1s "
            f"apart, first output after {run.first_output_seconds or 0:.1f}s"
        )

    said = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"  # what the container said, for any failure below
    assert run.code == 0, said
    assert run.stdout.splitlines()[-1].startswith("gauntlet: fix_criticals (iteration 1)"), said
    values = outputs(run)
    assert values["action"] == "fix_criticals", said
    assert values["iteration"] == "1"
    assert int(values["criticals"]) >= 3
    assert json.loads(values["report"])["api_calls"] > 0
    repo = as_owner(sandbox).get_repo(REPO)
    comments = list(repo.get_issue(number).get_comments())
    assert [c.user.login for c in comments] == [BOT]
    assert f"<!-- gauntlet:key=pr-comment:{number} -->" in comments[0].body
    assert values["comment_url"] == comments[0].html_url
    checks = list(repo.get_commit(sha).get_check_runs())
    assert [(c.name, c.conclusion) for c in checks] == [("Gauntlet", "failure")]
    assert checks[0].output.annotations_count > 0
    assert "fix criticals" in run.summary.lower() or "fix_criticals" in run.summary
    assert state_file(sandbox, f"v1/prs/{number}.json")["iteration_count"] == 1

    # The runner retries a step with the same event: nothing new may appear on GitHub or in the state.
    again = run_as_runner(engine, image.tag, pull_request_step(sandbox, tmp_path / "step-2", number, sha)[0], env)

    assert again.code == 0, again.stderr
    assert [c.id for c in repo.get_issue(number).get_comments()] == [comments[0].id], again.stdout
    assert len(list(repo.get_commit(sha).get_check_runs())) == 1
    assert state_file(sandbox, f"v1/prs/{number}.json")["iteration_count"] == 1


def test_the_image_is_small_starts_fast_and_carries_no_compiler(engine: Engine, image: Image) -> None:
    version = engine.docker("run", "--rm", "--entrypoint", "gauntlet", image.tag, "--version", timeout=60)
    tools = engine.docker(
        "run", "--rm", "--entrypoint", "sh", image.tag, "-c", "command -v gcc cc clang make || true", timeout=60
    )

    assert version.strip() == f"gauntlet {__version__}"
    assert tools.strip() == "", f"a compiler or build tool is left in the image: {tools}"
    # The stand-in base alone (Debian's python3, pip and venv) is about 200 MB; Gauntlet adds its dependencies.
    assert image.size_bytes < 400e6, f"the image grew to {image.size_bytes / 1e6:.0f} MB"
