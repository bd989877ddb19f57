"""Parsing /gauntlet commands: only at the start of a line, in order, unknown -> help, accept-risk scopes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.engine.commands import COMMAND_NAMES, MAX_COMMANDS, MAX_LINE_CHARS, parse_commands

OPEN = ["3f9a02c1d4e5f607", "77bd0e4a11223344", "77bd0e4b99887766"]


def names(body: str) -> list[str]:
    return [c.name for c in parse_commands(body, OPEN)]


def test_every_command_is_recognised() -> None:
    body = "\n".join(
        [
            "/gauntlet help",
            "/gauntlet status",
            "/gauntlet accept-risk",
            "/gauntlet retry",
            "/gauntlet approve P-1",
            "/gauntlet reject P-1",
            "/gauntlet reset",
            "/gauntlet flaky tests/test_x.py::test_y",
            "/gauntlet not-flaky 3f9a02c1",
            "/gauntlet known tests/test_x.py::test_y upstream bug",
        ]
    )
    assert names(body) == list(COMMAND_NAMES)


def test_commands_only_at_the_start_of_a_line() -> None:
    body = "please run /gauntlet retry\n> /gauntlet reset\n`/gauntlet reset`\n    /gauntlet reset\n\t/gauntlet reset"
    assert names(body) == []


def test_up_to_three_spaces_of_indent_still_count() -> None:
    assert names("   /gauntlet retry") == ["retry"]


def test_the_prefix_must_be_a_whole_word() -> None:
    assert names("/gauntletretry\n/gauntlet-reset") == []


def test_fenced_code_holds_examples_not_commands() -> None:
    body = "try this:\n```\n/gauntlet reset\n```\n~~~~\n/gauntlet reset\n```\n~~~~\n/gauntlet status"
    assert names(body) == ["status"]


def test_several_commands_run_in_the_order_written() -> None:
    assert names("/gauntlet reset\nthanks!\n/gauntlet status\n/gauntlet retry") == ["reset", "status", "retry"]


def test_unknown_and_bare_commands_get_the_help() -> None:
    unknown, bare = parse_commands("/gauntlet deploy prod\n/gauntlet")
    assert (unknown.name, unknown.unknown) == ("help", "deploy")
    assert (bare.name, bare.unknown) == ("help", None)


def test_command_words_are_case_insensitive_and_lines_are_quoted_trimmed() -> None:
    (command,) = parse_commands("  /gauntlet RETRY   \r")
    assert command.name == "retry"
    assert command.line == "/gauntlet RETRY"


def test_commands_per_comment_are_bounded() -> None:
    assert len(parse_commands("/gauntlet status\n" * (MAX_COMMANDS * 5))) == MAX_COMMANDS


def test_long_lines_are_cut_before_parsing() -> None:
    (command,) = parse_commands("/gauntlet accept-risk majors " + "x" * 10_000)
    assert len(command.line) == MAX_LINE_CHARS
    assert len(command.reason) < MAX_LINE_CHARS


def test_accept_risk_keyword_scopes() -> None:
    for scope in ("all", "majors", "minors", "MAJORS"):
        (command,) = parse_commands(f"/gauntlet accept-risk {scope} the vendor fixes it", OPEN)
        assert command.scope == scope.lower()
        assert command.fingerprints == ()
        assert command.reason == "the vendor fixes it"


def test_accept_risk_without_scope_takes_every_word_as_reason() -> None:
    (command,) = parse_commands("/gauntlet accept-risk known issue in vendored code", OPEN)
    assert (command.scope, command.fingerprints, command.reason) == ("all", (), "known issue in vendored code")


def test_accept_risk_by_fingerprint_prefixes() -> None:
    (command,) = parse_commands("/gauntlet accept-risk 3f9a02c1,77bd0e4a flaky upstream", OPEN)
    assert command.fingerprints == ("3f9a02c1d4e5f607", "77bd0e4a11223344")
    assert command.reason == "flaky upstream"


def test_a_prefix_shorter_than_eight_is_reason_text() -> None:
    (command,) = parse_commands("/gauntlet accept-risk 3f9a02c fine", OPEN)
    assert (command.fingerprints, command.scope, command.reason) == ((), "all", "3f9a02c fine")


def test_a_prefix_matching_no_open_finding_is_reason_text() -> None:
    (command,) = parse_commands("/gauntlet accept-risk deadbeef00 fine", OPEN)
    assert (command.fingerprints, command.scope, command.reason) == ((), "all", "deadbeef00 fine")


def test_every_prefix_of_a_list_must_match() -> None:
    (command,) = parse_commands("/gauntlet accept-risk 3f9a02c1,deadbeef ok", OPEN)
    assert command.fingerprints == ()
    assert command.reason == "3f9a02c1,deadbeef ok"


def test_a_shared_prefix_names_every_finding_it_matches() -> None:
    (command,) = parse_commands("/gauntlet accept-risk 77bd0e4", OPEN)
    assert command.fingerprints == ()  # seven characters: not a fingerprint
    (command,) = parse_commands("/gauntlet accept-risk 77bd0e4a", OPEN)
    assert command.fingerprints == ("77bd0e4a11223344",)


def test_approve_and_reject_need_a_proposal_id() -> None:
    approve, reject, missing, bad = parse_commands(
        "/gauntlet approve P-12\n/gauntlet reject P-12 not now\n/gauntlet approve\n/gauntlet reject {{7*7}}"
    )
    assert (approve.proposal, approve.problem) == ("P-12", None)
    assert (reject.proposal, reject.reason) == ("P-12", "not now")
    assert missing.problem is not None
    assert bad.problem is not None
    assert bad.proposal is None


@given(st.text(max_size=2000))
def test_any_text_parses_into_bounded_commands(body: str) -> None:
    commands = parse_commands(body, OPEN)
    assert len(commands) <= MAX_COMMANDS
    for command in commands:
        assert command.name in COMMAND_NAMES
        assert command.line.startswith("/gauntlet")
        assert len(command.line) <= MAX_LINE_CHARS
        assert set(command.fingerprints) <= set(OPEN)


@given(st.lists(st.sampled_from(["help", "status", "retry", "reset", "bogus"]), max_size=MAX_COMMANDS))
def test_order_is_kept(words: list[str]) -> None:
    body = "\n".join(f"/gauntlet {w}" for w in words)
    assert names(body) == ["help" if w == "bogus" else w for w in words]


def test_secrets_in_a_command_line_are_redacted() -> None:
    token = "ghp_" + "A1b2" * 10
    (command,) = parse_commands(f"/gauntlet accept-risk majors leaked {token} password=hunter22 " + "x" * 400)
    assert token not in command.line
    assert token not in command.reason
    assert "hunter22" not in command.line
    assert "[REDACTED]" in command.reason
