"""Circular-fix detection: the same failing fingerprints on new commits, or two sets alternating."""

from __future__ import annotations

import pytest

from gauntlet.engine.circular import detect, similarity


def history(*sets: str) -> list[tuple[str, frozenset[str]]]:
    """One failing set per commit, written as strings of one-letter fingerprints ("" is green)."""
    return [(f"sha{i:02d}" + "0" * 34, frozenset(s)) for i, s in enumerate(sets)]


def test_the_same_set_on_three_new_commits_is_a_repeat() -> None:
    found = detect(history("x", "ab", "ab", "ab"))
    assert found is not None
    assert found.pattern == "repeat"
    assert found.fingerprints == ("a", "b")
    assert len(found.shas) == 3
    assert "3 new commits in a row" in found.reason


def test_two_commits_are_not_yet_circular() -> None:
    assert detect(history("ab", "ab")) is None


def test_a_green_commit_in_between_breaks_the_pattern() -> None:
    assert detect(history("ab", "", "ab", "ab")) is None


def test_a_different_set_is_not_a_repeat() -> None:
    assert detect(history("ab", "ab", "abc")) is None


def test_alternating_sets_are_an_oscillation() -> None:
    found = detect(history("a", "b", "a", "b"))
    assert found is not None
    assert found.pattern == "oscillation"
    assert found.fingerprints == ("a", "b")
    assert "alternate" in found.reason


def test_oscillation_needs_two_different_non_empty_sets() -> None:
    assert detect(history("a", "", "a", "")) is None
    assert detect(history("a", "b", "a", "c")) is None


def test_only_the_newest_commits_count() -> None:
    assert detect(history("ab", "ab", "ab", "c")) is None


def test_the_window_is_configurable() -> None:
    assert detect(history("a", "a"), window=2) is not None
    assert detect(history("a", "a", "a"), window=4) is None


def test_similarity_tolerates_a_changed_fingerprint_only_when_asked() -> None:
    noisy = history("abcde", "abcdf", "abcdg")
    assert detect(noisy) is None
    found = detect(noisy, threshold=0.6)
    assert found is not None and found.pattern == "repeat"


def test_similarity_is_jaccard_on_fingerprints() -> None:
    assert similarity(frozenset("ab"), frozenset("ab")) == 1.0
    assert similarity(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    assert similarity(frozenset(), frozenset()) == 1.0
    assert similarity(frozenset("a"), frozenset()) == 0.0


def test_a_threshold_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        detect(history("a"), threshold=0)
