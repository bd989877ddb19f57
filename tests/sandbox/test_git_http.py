"""git clone/fetch/push over smart HTTP, and git and the Git Data API seeing one repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import github
from github import InputGitTreeElement

from gauntlet.sandbox import Sandbox

BOT = "github-actions[bot]"


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git with a clean, prompt-free environment."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


def test_clone_push_and_api_agree(sandbox: Sandbox, gh: github.Github, repo_name: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    git(tmp_path, "clone", "--quiet", sandbox.git_url(repo_name, BOT), str(work))
    assert (work / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    (work / "pushed.txt").write_text("from git\n")
    git(work, "add", "pushed.txt")
    git(work, "commit", "--quiet", "-m", "Pushed with git")
    git(work, "push", "--quiet", "origin", "HEAD:main", "HEAD:refs/heads/topic")
    local_head = git(work, "rev-parse", "HEAD").stdout.strip()
    repo = gh.get_repo(repo_name)
    assert repo.get_branch("main").commit.sha == local_head
    assert repo.get_branch("topic").commit.sha == local_head
    assert repo.get_contents("pushed.txt").decoded_content == b"from git\n"

    # And the other way: a commit made through the API is what git fetches.
    parent = repo.get_git_commit(local_head)
    tree = repo.create_git_tree([InputGitTreeElement("api.txt", "100644", "blob", content="api\n")], parent.tree)
    made = repo.create_git_commit("From the API", tree, [parent])
    repo.get_git_ref("heads/main").edit(made.sha)
    git(work, "fetch", "--quiet", "origin")
    assert git(work, "rev-parse", "origin/main").stdout.strip() == made.sha
    assert git(work, "show", "origin/main:api.txt").stdout == "api\n"


def test_push_needs_write(sandbox: Sandbox, repo_name: str, tmp_path: Path) -> None:
    work = tmp_path / "w"
    git(tmp_path, "clone", "--quiet", sandbox.git_url(repo_name), str(work))  # public: anonymous read
    git(work, "commit", "--quiet", "--allow-empty", "-m", "nope")
    anonymous = git(work, "push", "origin", "HEAD:main", check=False)
    assert anonymous.returncode != 0
    reader = git(work, "push", sandbox.git_url(repo_name, "reader"), "HEAD:main", check=False)
    assert reader.returncode != 0 and "403" in reader.stderr
    assert git(work, "push", "--quiet", sandbox.git_url(repo_name, "octo"), "HEAD:main").returncode == 0


def test_a_session_token_clones_and_pushes_as_its_login(sandbox: Sandbox, repo_name: str, tmp_path: Path) -> None:
    work = tmp_path / "w"
    git(tmp_path, "clone", "--quiet", sandbox.git_url(repo_name, f"{BOT}:job-7"), str(work))
    git(work, "commit", "--quiet", "--allow-empty", "-m", "from a job")
    git(work, "push", "--quiet", "origin", "HEAD:main")  # the bot's write permission, not an unknown user's read
    assert sandbox.head(repo_name) == git(work, "rev-parse", "HEAD").stdout.strip()
    reader = git(work, "push", sandbox.git_url(repo_name, "reader:job-7"), "HEAD:refs/heads/r", check=False)
    assert reader.returncode != 0 and "403" in reader.stderr


def test_private_clone_needs_read(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.create_repo("octo/hidden", {"a": "a"}, private=True)
    denied = git(tmp_path, "clone", sandbox.git_url("octo/hidden", "stranger"), str(tmp_path / "x"), check=False)
    assert denied.returncode != 0
    git(tmp_path, "clone", "--quiet", sandbox.git_url("octo/hidden", "octo"), str(tmp_path / "y"))
    assert (tmp_path / "y" / "a").read_text() == "a"
    log = sandbox.requests()
    assert any(e["path"].endswith("/info/refs") and e["status"] == 200 for e in log)
