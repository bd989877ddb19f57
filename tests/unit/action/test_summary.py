"""The job summary stays under GitHub's 1 MiB, cut on a character boundary."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.action.outputs import MAX_SUMMARY_BYTES, cap_summary


def test_a_short_summary_is_unchanged() -> None:
    assert cap_summary("## Gauntlet\n") == "## Gauntlet\n"


@settings(deadline=None, max_examples=20)
@given(st.sampled_from(["a", "é", "€", "😀"]), st.integers(min_value=0, max_value=4096))
def test_a_long_summary_is_cut_under_the_limit(char: str, extra: int) -> None:
    text = char * (MAX_SUMMARY_BYTES // len(char.encode()) + extra)

    capped = cap_summary(text)

    assert len(capped.encode()) <= MAX_SUMMARY_BYTES
    assert capped.endswith("limited to 1 MiB)\n") or capped == text
