"""The file-level revert plan: which paths go back, which are already back, which conflict."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.github.reverts import (
    Entry,
    plan_revert,
    revert_branch,
    revert_message,
    revert_title,
    tree_edits,
)

SHA = "0123456789abcdef0123456789abcdef01234567"


def blob(sha: str, mode: str = "100644") -> Entry:
    return Entry(mode=mode, type="blob", sha=sha)


def test_changed_paths_are_added_modified_deleted_and_mode_changes() -> None:
    parent = {"a": blob("1"), "b": blob("2"), "c": blob("3"), "run.sh": blob("4")}
    culprit = {"a": blob("1x"), "c": blob("3"), "new": blob("5"), "run.sh": blob("4", "100755")}
    plan = plan_revert(parent, culprit, culprit)
    assert plan.changed == ("a", "b", "new", "run.sh")
    assert plan.restore == plan.changed and plan.conflicts == () and plan.already == ()


def test_a_path_changed_again_on_head_is_a_conflict_and_one_put_back_by_hand_is_done() -> None:
    parent = {"a": blob("1"), "b": blob("2"), "c": blob("3")}
    culprit = {"a": blob("1x"), "b": blob("2x"), "c": blob("3x")}
    head = {"a": blob("1y"), "b": blob("2"), "c": blob("3x")}
    plan = plan_revert(parent, culprit, head)
    assert (plan.restore, plan.already, plan.conflicts) == (("c",), ("b",), ("a",))
    # A path the culprit added is already reverted when head deleted it, and conflicts when head changed it.
    assert plan_revert({}, {"n": blob("9")}, {}).already == ("n",)
    assert plan_revert({}, {"n": blob("9")}, {"n": blob("8")}).conflicts == ("n",)


def test_edits_restore_the_parents_entry_or_delete() -> None:
    parent = {"a": blob("1", "100755")}
    assert tree_edits(("a", "gone"), parent) == [
        {"path": "a", "mode": "100755", "type": "blob", "sha": "1"},
        {"path": "gone", "mode": "100644", "type": "blob", "sha": None},
    ]


def test_names_titles_and_messages_follow_git_revert() -> None:
    assert revert_branch(SHA) == "gauntlet/revert-0123456789ab"
    assert revert_title("Fix  the\nthing") == 'Revert "Fix the thing"'
    assert revert_message("Fix it", SHA) == f'Revert "Fix it"\n\nThis reverts commit {SHA}.\n'


_paths = st.sampled_from(["a", "b", "c", "d/e", "d/f"])
_trees = st.dictionaries(_paths, st.sampled_from(["1", "2", "3"]).map(blob), max_size=5)


@given(parent=_trees, culprit=_trees, unrelated=_trees)
def test_without_conflicts_the_revert_gives_back_the_parents_version_of_every_changed_path(
    parent: dict[str, Entry], culprit: dict[str, Entry], unrelated: dict[str, Entry]
) -> None:
    # Head = culprit plus later changes to paths the culprit did not touch.
    changed = {p for p in parent.keys() | culprit.keys() if parent.get(p) != culprit.get(p)}
    head = dict(culprit)
    for path, entry in unrelated.items():
        if path not in changed:
            head[path] = entry
    plan = plan_revert(parent, culprit, head)
    assert plan.conflicts == () and set(plan.changed) == changed
    result = dict(head)
    for edit in tree_edits(plan.restore, parent):
        if edit["sha"] is None:
            result.pop(edit["path"], None)
        else:
            result[edit["path"]] = blob(edit["sha"], edit["mode"])
    for path in changed:
        assert result.get(path) == parent.get(path)
    for path in head.keys() - changed:
        assert result[path] == head[path]
