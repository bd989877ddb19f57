"""``gauntlet report --html``: from a state folder or the state branch of a local clone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from statefiles import finding, iteration, write

from gauntlet.cli import main
from gauntlet.state.pr import PRRecord


def _state(root: Path) -> Path:
    return write(root, prs=[PRRecord(number=n, iterations=[iteration(1, "a", [finding("F")])]) for n in (1, 2)])


def test_it_writes_the_site_and_appends_the_trend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    code = main(["report", "--html", str(tmp_path / "site"), "--state-dir", str(_state(tmp_path / "s")),
                 "--summary", str(summary), "--site-url", "https://acme.github.io/w/",
                 "--now", "2026-12-01T08:00"])  # fmt: skip
    assert code == 0
    assert "(pull requests: 2, test outcomes: 2, flaky tests: 0)" in capsys.readouterr().out
    assert "State as of 2026-12-01 08:00 UTC." in (tmp_path / "site" / "pulls.html").read_text()
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert "No default-branch run recorded yet; 2 pull requests" in text and "https://acme.github.io/w/" in text


def test_it_names_the_files_it_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _state(tmp_path / "s")
    (state / "v1" / "prs" / "3.json").write_text("[]")
    assert main(["report", "--html", str(tmp_path / "site"), "--state-dir", str(state)]) == 0
    assert "skipped v1/prs/3.json" in capsys.readouterr().err
    assert "v1/prs/3.json" in (tmp_path / "site" / "index.html").read_text()


def test_an_unwritable_site_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    assert main(["report", "--html", str(tmp_path / "taken"), "--state-dir", str(_state(tmp_path / "s"))]) == 2
    assert "cannot write the dashboard to" in capsys.readouterr().err


def test_links_must_be_web_addresses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["report", "--html", str(tmp_path), "--repository-url", "javascript:alert(1)"])
    assert exit_.value.code == 2 and "not an http(s) URL" in capsys.readouterr().err


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_it_reads_the_state_branch_of_the_clone_it_runs_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "clone"
    _state(clone)
    _git(clone, "init", "-q", "-b", "gauntlet-state")
    _git(clone, "add", "v1")
    _git(clone, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "state")
    monkeypatch.chdir(clone)

    assert main(["report", "--html", str(tmp_path / "site"), "--state-branch", "gauntlet-state"]) == 0
    assert "pull requests: 2," in capsys.readouterr().out

    assert main(["report", "--html", str(tmp_path / "site"), "--state-branch", "no-such-branch"]) == 2
    assert "cannot read the state branch 'no-such-branch'" in capsys.readouterr().err
