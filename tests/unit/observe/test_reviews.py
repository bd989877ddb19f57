"""Reading a PR's review threads from GitHub: the severity table from the config, and a token that may not read."""

from __future__ import annotations

from gauntlet.config import parse_config
from gauntlet.github.client import GitHubClient
from gauntlet.ingest.comment import DEFAULT_SEVERITY
from gauntlet.observe.github_facts import Remote
from gauntlet.observe.reviews import read_reviews, severity_table
from gauntlet.sandbox import Sandbox


def test_the_config_overrides_rows_of_the_table() -> None:
    table = severity_table(parse_config("reviews:\n  severity: {unlabelled: none, blocking: critical}\n").reviews)
    assert (table["unlabelled"], table["blocking"], table["nit"]) == (None, "critical", DEFAULT_SEVERITY["nit"])


def test_a_token_that_cannot_see_the_pr_reads_nothing_and_says_so() -> None:
    with Sandbox.start() as sandbox:
        sandbox.create_repo("octo/secret", {"a.py": "x = 1\n"}, private=True)
        remote = Remote(client=GitHubClient("outsider", sandbox.url, throttle=False), repository="octo/secret",
                        bot_login="github-actions[bot]")  # fmt: skip
        assert read_reviews(remote, 1, pr_author="octo", config=parse_config("").reviews) is None
