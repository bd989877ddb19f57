"""Code owners of the paths an observation names, read from the checkout's CODEOWNERS."""

from __future__ import annotations

from pathlib import Path

from gauntlet.models import Finding
from gauntlet.observe.owners import assignees_of, owners_of


def finding(path: str | None = None, test_id: str | None = None) -> Finding:
    return Finding(
        fingerprint="f", source="log", kind="lint", severity="minor", path=path, test_id=test_id, message="m"
    )


def test_owners_come_from_the_first_codeowners_file_github_reads(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "CODEOWNERS").write_text("*  @octo\n/src/pay/ @octo/payments @alice\n/docs/\n")
    (tmp_path / "CODEOWNERS").write_text("* @ignored\n")
    found = owners_of(tmp_path, [finding("src/pay/charge.py"), finding(test_id="tests/test_x.py::t")], ["docs/a.md"])
    assert found == {"src/pay/charge.py": "@octo/payments", "tests/test_x.py": "@octo"}  # docs/ has no owner


def test_no_codeowners_file_means_no_owners(tmp_path: Path) -> None:
    assert owners_of(tmp_path, [finding("src/a.py")]) == {}


def test_assignees_are_the_users_of_each_finding_path_without_teams_or_mails(tmp_path: Path) -> None:
    (tmp_path / "CODEOWNERS").write_text("*  @octo\n/src/pay/ @octo/payments @alice bob@example.com @carol\n/docs/\n")
    found = assignees_of(tmp_path, [finding("src/pay/charge.py"), finding("docs/a.md"), finding("x.py"), finding()])
    assert found == {"src/pay/charge.py": ("alice", "carol"), "x.py": ("octo",)}  # docs/ has no owner
    assert assignees_of(tmp_path / "nowhere", [finding("x.py")]) == {}


def test_a_change_that_edits_codeowners_chooses_no_assignees(tmp_path: Path) -> None:
    (tmp_path / "CODEOWNERS").write_text("* @mallory\n")
    assert assignees_of(tmp_path, [finding("x.py")], ["src/x.py"]) == {"x.py": ("mallory",)}
    assert assignees_of(tmp_path, [finding("x.py")], ["src/x.py", "CODEOWNERS"]) == {}
