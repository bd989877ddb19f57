"""The verdict people act on (issue 32), through the Action: a comment that lists each failure once under whose
it is, with a headline that agrees with the check, and a check whose summary ends with the JSON verdict."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
from scenario import Scenario, main_with_a_flake_and_a_break, pr_with_lucky_rerun_by_a_person

from gauntlet.effects.verdict import verdict_schema

_VERDICT = re.compile(r"\n```json\n(.*)\n```\n\Z", re.S)


def _verdict(output: Any) -> dict[str, Any]:
    """The verdict from the check run's output text (the contract's place), the same as the summary's last block."""
    found = _VERDICT.search(output.text or "")
    assert found is not None, (output.text or "")[-500:]
    assert (output.summary or "").endswith(found.group(0)), "the summary ends with the verdict too"
    verdict: dict[str, Any] = json.loads(found.group(1))
    jsonschema.validate(verdict, verdict_schema())
    return verdict


def test_a_new_a_preexisting_and_a_flaky_failure_are_listed_once_each_and_one_is_the_prs(world: Scenario) -> None:
    main_with_a_flake_and_a_break(world)
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    pr = pr_with_lucky_rerun_by_a_person(world, number, sha, "pytest-add-divide-broken.log")

    [comment] = world.comments(number)
    body = comment.body
    assert "**1 failure is yours**; 2 are not yours (1 flaky, 1 failing on the default branch): fix 1." in body
    for test in ("test_add", "test_divide", "test_lucky"):
        assert body.count(f"tests/test_calc.py::{test}`") == 1, test
    [check] = world.check_runs(sha)
    assert check.conclusion == "failure"
    verdict = _verdict(check.output)
    words = {f["test_id"].rsplit("::", 1)[-1]: (f["provenance"], f["blocks"]) for f in verdict["findings"]}
    assert words == {"test_add": ("new", True), "test_divide": ("preexisting", False), "test_lucky": ("flaky", False)}
    assert verdict["conclusion"] == check.conclusion and verdict["pr"] == number
    assert "1 failure is yours" in pr.summary


def test_with_only_failures_that_are_not_the_prs_the_check_passes_and_the_comment_asks_for_no_fix(
    world: Scenario,
) -> None:
    main_with_a_flake_and_a_break(world)
    number, sha = world.open_pr("docs", {"README.md": "# app\n\nMore words.\n"})
    pr = pr_with_lucky_rerun_by_a_person(world, number, sha, "pytest-divide-broken.log")

    [check] = world.check_runs(sha)
    assert check.conclusion == "success"
    body = world.comments(number)[0].body
    assert "**Nothing of yours is failing: you can merge.**" in body
    assert "must be fixed" not in body and "fix criticals" not in body
    assert _verdict(check.output)["conclusion"] == "success"
    assert "Nothing of yours is failing" in (check.output.summary or "") and "Nothing of yours is failing" in pr.summary
