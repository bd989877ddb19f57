"""Applying a plan: find, then perform, in plan order, so a rerun is a no-op; through the local and dry-run
backends (real files in a temporary folder).

(The local backend's tests live here, not in ``test_local.py``: ``tests/unit/state/`` has one, and the test
folders are not packages.)
"""

from __future__ import annotations

from pathlib import Path

from gauntlet.effects.base import apply
from gauntlet.effects.bodies import body_of
from gauntlet.effects.dryrun import DryRunBackend
from gauntlet.effects.local import LocalBackend
from gauntlet.effects.models import CloseIssue, React
from gauntlet.models import evolve

FIXED = CloseIssue(kind="needs-human", ident="main:ci/test", reason="The branch is green again.")
REACT = React(comment_id=7, content="eyes")


def test_a_plan_applied_twice_writes_once_and_reports_unchanged(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path / "out")
    first = apply([FIXED, REACT], backend)
    assert [(r.type, r.key, r.status) for r in first] == [
        ("close_issue", "needs-human:main:ci/test", "created"),
        ("react", "reaction:7:eyes", "created"),
    ]
    written = backend.path_for(FIXED)
    assert written.parent == tmp_path / "out"
    assert written.read_text(encoding="utf-8") == body_of(FIXED)
    before = written.stat().st_mtime_ns

    again = apply([FIXED, REACT], backend)
    assert [r.status for r in again] == ["unchanged", "unchanged"]
    assert written.stat().st_mtime_ns == before


def test_a_changed_body_updates_the_same_file(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path)
    apply([FIXED], backend)
    changed = evolve(FIXED, reason="Reverted by hand.")
    (result,) = apply([changed], backend)
    assert result.status == "updated"
    assert result.url == str(backend.path_for(FIXED))
    assert "Reverted by hand." in backend.path_for(FIXED).read_text(encoding="utf-8")
    assert len(list(tmp_path.iterdir())) == 1


def test_a_key_never_names_a_file_outside_the_folder(tmp_path: Path) -> None:
    hostile = CloseIssue(kind="risk", ident="../../etc/passwd", reason="no")
    path = LocalBackend(tmp_path).path_for(hostile)
    assert path.parent == tmp_path
    assert "/" not in path.name


def test_a_dry_run_plans_everything_and_touches_nothing(tmp_path: Path) -> None:
    results = apply([FIXED, REACT], DryRunBackend())
    assert [(r.key, r.status) for r in results] == [
        ("needs-human:main:ci/test", "planned"),
        ("reaction:7:eyes", "planned"),
    ]
    assert all(r.url is None and r.number is None for r in results)
    assert not list(tmp_path.iterdir())
