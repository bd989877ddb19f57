"""CODEOWNERS: GitHub's documented examples, last match wins, users only for assignment."""

from __future__ import annotations

import pytest

from gauntlet.github.codeowners import assignable, owners_for, parse_codeowners

# The example file from GitHub's "About code owners" page (abridged), whose comments state the expected owners.
GITHUB_EXAMPLE = """\
# These owners will be the default owners for everything in the repo.
*       @global-owner1 @global-owner2

# Order is important; the last matching pattern takes the most precedence.
*.js    @js-owner #This is an inline comment.

*.go docs@example.com

*.txt @octo-org/octocats

/build/logs/ @doctocat

docs/*  docs@example.com

apps/ @octocat

/docs/ @doctocat

/scripts/ @doctocat @octocat

**/logs @octocat

/apps/ @octocat
/apps/github
"""


@pytest.mark.parametrize(
    ("path", "owners"),
    [
        ("README.md", ("@global-owner1", "@global-owner2")),
        ("src/app.js", ("@js-owner",)),
        ("main.go", ("docs@example.com",)),
        ("notes/todo.txt", ("@octo-org/octocats",)),
        ("build/logs/out.log", ("@octocat",)),  # /build/logs/ matches, but the later **/logs wins
        ("build/other/out.log", ("@global-owner1", "@global-owner2")),
        ("docs/getting-started.md", ("@doctocat",)),  # /docs/ comes after docs/*
        ("docs/build-app/troubleshooting.md", ("@doctocat",)),
        ("src/apps/x.py", ("@octocat",)),  # apps/ at any depth
        ("scripts/deploy.sh", ("@doctocat", "@octocat")),
        ("deeply/nested/logs/a.txt", ("@octocat",)),
        ("apps/github/main.py", ()),  # a pattern without owners leaves the path unowned
        ("apps/other/main.py", ("@octocat",)),
    ],
)
def test_github_documented_example(path: str, owners: tuple[str, ...]) -> None:
    assert owners_for(parse_codeowners(GITHUB_EXAMPLE), path) == owners


def test_star_slash_owns_only_direct_files() -> None:
    rules = parse_codeowners("docs/* @docs\n")
    assert owners_for(rules, "docs/a.md") == ("@docs",)
    assert owners_for(rules, "docs/guide/a.md") == ()


def test_star_does_not_cross_directories_but_double_star_does() -> None:
    rules = parse_codeowners("/src/*.py @flat\n/lib/**/*.py @deep\n")
    assert owners_for(rules, "src/a.py") == ("@flat",)
    assert owners_for(rules, "src/pkg/a.py") == ()
    assert owners_for(rules, "lib/a.py") == ("@deep",)
    assert owners_for(rules, "lib/x/y/a.py") == ("@deep",)
    assert owners_for(rules, "lib/x/y/a.pyc") == ()


def test_anchored_directory_owns_everything_below_it() -> None:
    rules = parse_codeowners("/build/logs/ @doctocat\n")
    assert owners_for(rules, "build/logs/deep/er.log") == ("@doctocat",)
    assert owners_for(rules, "x/build/logs/out.log") == ()
    assert owners_for(rules, "build/logs") == ()  # the directory itself is not a file it owns


def test_last_match_wins_even_when_less_specific() -> None:
    rules = parse_codeowners("/src/core/ @core\n*.py @python\n")
    assert owners_for(rules, "src/core/engine.py") == ("@python",)
    assert owners_for(rules, "src/core/engine.rs") == ("@core",)


def test_paths_are_case_sensitive_and_leading_slash_is_ignored() -> None:
    rules = parse_codeowners("/Docs/ @docs\n")
    assert owners_for(rules, "/Docs/a.md") == ("@docs",)
    assert owners_for(rules, "docs/a.md") == ()


def test_unsupported_syntax_and_comments_are_skipped() -> None:
    rules = parse_codeowners("# comment\n\n!secret.txt @nobody\n[ab].txt @nobody\n\\#hash.md @hash\n")
    assert [rule.pattern for rule in rules] == ["#hash.md"]
    assert owners_for(rules, "#hash.md") == ("@hash",)
    assert owners_for(rules, "secret.txt") == ()


def test_question_mark_matches_one_character_within_a_segment() -> None:
    rules = parse_codeowners("/v?.txt @v\n")
    assert owners_for(rules, "v1.txt") == ("@v",)
    assert owners_for(rules, "v12.txt") == ()
    assert owners_for(rules, "v/.txt") == ()


def test_only_users_can_be_assigned() -> None:
    owners = ("@alice", "@octo-org/team", "bob@example.com", "@alice", "@carol-2")
    assert assignable(owners) == ("alice", "carol-2")
