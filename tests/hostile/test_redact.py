"""The redactor on its own: every shape, keys cut apart, masks across read boundaries, linear time, no false alarms."""

from __future__ import annotations

import io
import json
import random
import time
from datetime import UTC, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from secrets_kit import MAKERS, in_context, leaked, make_secrets

from gauntlet.effects.render import render
from gauntlet.ingest.redact import MaskWatch, redact_finding
from gauntlet.models import Finding
from gauntlet.state.codec import encode_events, encode_file
from gauntlet.state.events import Event
from gauntlet.state.pr import AcceptedRisk, PRRecord
from gauntlet.untrusted import REDACTED, SECRET_SHAPES, Masks, redact, redact_json

SECRETS = make_secrets(7)


@pytest.mark.parametrize("kind", sorted(set(MAKERS) - {"masked value"}))
def test_each_shape_is_redacted_in_running_text(kind: str) -> None:
    value = in_context(SECRETS)[kind]
    text = f"step failed: {value} (see above)"

    out = redact(text)

    assert leaked(out, {kind: SECRETS[kind]}) == [], out
    assert out.startswith("step failed: ") and REDACTED in out


def test_the_table_names_each_shape_once() -> None:
    kinds = [kind for kind, _, _ in SECRET_SHAPES]
    assert len(kinds) == len(set(kinds)) and all(hints for _, hints, _ in SECRET_SHAPES)


def test_a_key_cut_by_colour_codes_and_timestamps_goes_whole() -> None:
    key = SECRETS["private key"].splitlines()
    stamp = "2026-11-29T12:00:00.0000000Z "
    cut = [f"\x1b[31m{key[0][:18]}\x1b[0m{key[0][18:]}", *key[1:]]
    text = "\n".join(stamp + line for line in cut)

    assert leaked(redact(text), SECRETS) == []


def test_a_key_whose_begin_line_an_excerpt_cut_off_still_goes() -> None:
    body = SECRETS["private key"].splitlines()[3:]

    assert leaked(redact("\n".join(["E   assert ok", *body])), SECRETS) == []


def test_an_unterminated_key_goes_to_the_end_but_nothing_before_it() -> None:
    key = SECRETS["private key"].rsplit("-----END", 1)[0]

    assert redact("before\n" + key) == "before\n" + REDACTED


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f9a02c1d7e4b5a6c8d9e0f1a2b3c4d5e6f7a8b9 fixed it",  # SHAs and fingerprints are hex
        "fingerprint 535b8c731f99af30 iteration 2",
        "tests/test_api.py::test_error_handling PASSED [ 50%]",
        "author: alice, max_tokens: 100",
        "see https://github.com/octo/app/pull/3 and git@github.com:octo/app.git",
        "sha256:" + "ab" * 32,
    ],
)
def test_ordinary_ci_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "shape",
    [
        "a" * 70_000,
        "eyJ" * 23_000,
        "a://" * 17_000,
        "password" * 8_000,
        "@" * 70_000,
        "ghp_" * 17_000,
        "-----END RSA PRIVATE KEY-----\n" * 2_300,
        "\x1b[" * 35_000,
    ],
)
def test_redaction_is_linear_on_hostile_shapes(shape: str) -> None:
    started = time.perf_counter()
    redact(shape)
    assert time.perf_counter() - started < 1.0


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200), st.sampled_from(sorted(set(MAKERS) - {"masked value"})), st.text(max_size=200))
# An escape eats the URL's first letter and joins what is left to a digit: no word boundary before the scheme.
@example(before="0\x1b", kind="password in url", after="")
def test_a_secret_anywhere_in_any_text_is_gone_and_redaction_is_idempotent(before: str, kind: str, after: str) -> None:
    value = in_context(SECRETS)[kind]
    out = redact(f"{before} {value}\n{after}")
    assert leaked(out, {kind: SECRETS[kind]}) == []
    assert redact(out) == out


def test_masks_are_seen_across_read_boundaries() -> None:
    value = "mask-" + "".join(random.Random(3).choices("abcdefgh", k=20))
    data = b"x" * 70_000 + b"\n::add-mask::" + value.encode() + b"\r\nmore\n"
    stream = io.BytesIO(data)
    watch = MaskWatch(stream)
    while watch.read(70_010):  # the command is cut in two by the read boundary
        pass
    watch.finish()

    assert watch.masks.values == {value}
    assert redact(f"login {value} failed", watch.masks) == f"login {REDACTED} failed"


def test_masks_are_bounded_and_short_values_ignored() -> None:
    masks = Masks(["ab", *(f"value-{i}" for i in range(5000))])
    assert "ab" not in masks.values and len(masks.values) == 1000


def test_every_text_field_of_a_finding_is_redacted() -> None:
    token = SECRETS["github ghs"]
    finding = Finding(
        fingerprint="f",
        source="junit",
        tool=token,
        kind="test_failure",
        severity="critical",
        path=f"src/{token}.py",
        test_id=f"t[{token}]",
        rule=token,
        message=token,
        excerpt=token,
        job=token,
        category=token,
        rule_learned=token,
    )

    clean = redact_finding(finding)

    assert token not in clean.model_dump_json() and clean.fingerprint == "f"


def test_bodies_and_state_files_are_redacted_at_the_write_even_when_ingest_missed() -> None:
    token, key = SECRETS["github ghp"], SECRETS["private key"]
    at = datetime(2026, 11, 29, tzinfo=UTC)
    record = PRRecord(
        number=1, accepted_risks=[AcceptedRisk(fingerprint="f", by="mia", reason=f"{token} {key}", at=at)]
    )

    body = render("close_issue.md.j2", reason=f"closing {token}\n{key}")
    state = encode_file(record)
    events = encode_events([Event(at=at, kind="effect", key="k", data={"detail": f"{token} {key}"})])

    assert leaked(body, SECRETS) == []
    assert leaked(state.decode(), SECRETS) == [] and leaked(events.decode(), SECRETS) == []
    assert PRRecord.model_validate_json(state).accepted_risks[0].reason == f"{REDACTED} {REDACTED}"
    assert all(json.loads(line) for line in events.splitlines())


def test_redact_json_keeps_the_document_valid_and_clean_documents_byte_identical() -> None:
    clean = json.dumps({"a": "plain", "n": [1, 2]}, indent=1)
    dirty = json.dumps({"a": f"x {SECRETS['private key'].rsplit('-----END', 1)[0]}", "b": "after"}, indent=1)

    assert redact_json(clean) == clean
    out = json.loads(redact_json(dirty))
    assert out == {"a": f"x {REDACTED}", "b": "after"}


@pytest.mark.parametrize(
    "between", [" ", " and ", "; its secret is ", " | ", "\n  secret: ", " (rotated) then later the pair's secret "]
)
def test_an_aws_secret_after_its_key_id_goes_whatever_stands_between(between: str) -> None:
    key_id, secret = "AKIAQX7TESTKEYID0001", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    clean = redact(f"was {key_id}{between}{secret}, now gone; commit {'0123456789abcdef' * 2}01234567 stays")
    assert key_id not in clean and secret not in clean
    assert between.strip() in clean and f"{'0123456789abcdef' * 2}01234567" in clean
