"""Hostile inputs for every channel Gauntlet reads: each findings format, job logs, comments, event fields.

Every document carries the same attack, spread over every field a format has (message,
test id, path, rule id, excerpt, tool name, numbers): the secrets of
:mod:`secrets_kit`, mentions, raw HTML, headings and fences, template syntax, a fake
Gauntlet marker, lone surrogates and NULs where the format can hold them, numbers of
thousands of digits, and paths from outside the workspace. ``SENTINEL`` marks text
only input can carry. (A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from xml.sax.saxutils import quoteattr

from secrets_kit import in_context

SENTINEL = "HOSTILE"
HUGE = "9" * 5000  # past Python's 4,300-digit int-string limit
OUTSIDE_PATHS = (
    "C:/Users/runneradmin/secret/app.py",
    "C:\\Users\\runneradmin\\secret\\app.py",
    "\\\\fileserver\\share\\app.py",
    "/etc/passwd",
    "../../../../etc/passwd",
    "src/../../outside.py",
    "~/.ssh/id_rsa",
)
WORKSPACE_PATHS = {
    "/home/runner/work/app/app/src/inside.py": "src/inside.py",
    "D:\\a\\app\\app\\src\\inside.py": "src/inside.py",
}


def attack(secrets: Mapping[str, str], *, multiline: bool = True) -> str:
    """The hostile text: every secret in the context it is printed in, and markup of every kind."""
    head = (
        f"{SENTINEL} @everyone @octo-org/core-team @alice <img src=x onerror=alert(1)> <script>x()</script> "
        "{{ 7*7 }} {% raw %} <!-- gauntlet:key=pr-comment:1 --> [link](javascript:alert(1))"
    )
    # The masked value only goes where its ``::add-mask::`` is (the log, JUnit's system-out).
    values = " ".join(v for k, v in in_context(secrets).items() if k not in ("private key", "masked value"))
    if not multiline:
        return f"{head} {values}"
    blocks = [
        head,
        f"# {SENTINEL} heading",
        f"{SENTINEL} setext",
        "===",
        f"```{SENTINEL}",
        f"~~~ {SENTINEL}",
        f"    {SENTINEL} indented",
        f"<details>{SENTINEL}</details>",
        values,
        secrets["private key"],
        f"| {SENTINEL} | cell |",
    ]
    return "\n".join(blocks)


def token_path(secrets: Mapping[str, str]) -> str:
    """A repository-relative path that carries a token (a test fixture folder named after it, say)."""
    return f"src/{secrets['github ghp']}/@everyone/app.py"


def sarif(secrets: Mapping[str, str]) -> bytes:
    """SARIF 2.1.0 with the attack in the tool, rule ids, messages, paths and snippets."""
    text = attack(secrets)
    result = {
        "ruleId": f"@everyone/{secrets['github ghu']}",
        "level": "error",
        "message": {"text": text + " \ud800 \u0000"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": token_path(secrets)},
                    "region": {"startLine": 3, "startColumn": 2, "snippet": {"text": text}},
                }
            }
        ],
    }
    outside = [
        {**result, "locations": [{"physicalLocation": {"artifactLocation": {"uri": path}, "region": {"startLine": 1}}}]}
        for path in (*OUTSIDE_PATHS, *WORKSPACE_PATHS)
    ]
    doc = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": f"semgrep @everyone {secrets['npm']}", "rules": [{"id": "@everyone"}]}},
                "results": [result, *outside],
            }
        ],
    }
    return json.dumps(doc).encode()


def junit(secrets: Mapping[str, str]) -> bytes:
    """JUnit XML with the attack in names, classnames, files, failure messages and bodies, and huge numbers."""
    text = attack(secrets)
    name = f"test_x[@everyone-{secrets['github ghs']}]"
    cases = [
        f"<testcase classname={quoteattr('tests.test_app')} name={quoteattr(name)}"
        f" file={quoteattr(token_path(secrets))} line={quoteattr(HUGE)} time={quoteattr(HUGE)}>"
        f"<failure message={quoteattr(text)} type={quoteattr('@everyone')}><![CDATA[{text}]]></failure>"
        f"<system-out><![CDATA[::add-mask::{secrets['masked value']}\n{text}\n{secrets['masked value']}]]></system-out>"
        "</testcase>",
        *(
            f"<testcase classname='tests.t' name='test_path_{i}' file={quoteattr(path)} line='2'>"
            f"<failure message='boom'>boom</failure></testcase>"
            for i, path in enumerate((*OUTSIDE_PATHS, *WORKSPACE_PATHS))
        ),
    ]
    return (
        f'<?xml version="1.0"?><testsuites><testsuite name={quoteattr(text)} tests="{HUGE}">'
        + "".join(cases)
        + "</testsuite></testsuites>"
    ).encode()


def review(secrets: Mapping[str, str]) -> bytes:
    """Gauntlet's review JSON with the attack in every text field and a location of thousands of digits."""
    text = attack(secrets)
    items = [
        {
            "reviewer": f"@everyone {secrets['slack']}",
            "severity": severity,
            "category": category,
            "location": location,
            "description": text + " \ud800\u0000",
            "rule_learned": text,
            "why_it_matters": text,
            "cwe": "CWE-89",
        }
        for severity, category, location in [
            ("critical", "security", f"{token_path(secrets)}:{HUGE}"),
            ("major", "bug", f"src/app.py:{HUGE}-{HUGE}"),
            ("minor", "style", "C:/Users/runneradmin/app.py:3"),
        ]
    ]
    return json.dumps({"issues": items}).encode()


def rdjson(secrets: Mapping[str, str]) -> bytes:
    """reviewdog rdjson with the attack in messages, codes, sources and paths."""
    text = attack(secrets)
    diagnostic = {
        "message": text,
        "location": {"path": token_path(secrets), "range": {"start": {"line": 2, "column": 1}}},
        "severity": "ERROR",
        "code": {"value": f"@everyone-{secrets['stripe']}"},
        "source": {"name": f"@everyone {secrets['google api key']}"},
    }
    outside = [{**diagnostic, "location": {"path": path}} for path in OUTSIDE_PATHS]
    return json.dumps({"source": {"name": "linter @alice"}, "diagnostics": [diagnostic, *outside]}).encode()


def checkstyle(secrets: Mapping[str, str]) -> bytes:
    """Checkstyle XML with the attack in file names, messages and sources, and huge line numbers."""
    text = attack(secrets)
    return (
        f'<?xml version="1.0"?><checkstyle version="4.3"><file name={quoteattr(token_path(secrets))}>'
        f"<error line={quoteattr(HUGE)} column={quoteattr(HUGE)} severity='error' message={quoteattr(text)}"
        f" source={quoteattr('@everyone.' + secrets['pypi'])}/></file>"
        + "".join(
            f"<file name={quoteattr(path)}><error line='1' severity='error' message='m' source='s'/></file>"
            for path in OUTSIDE_PATHS
        )
        + "</checkstyle>"
    ).encode()


def comments(secrets: Mapping[str, str]) -> bytes:
    """A GitHub comments export (REST shape) whose comments state severities.

    (A comment holding a marker is taken for Gauntlet's own report and skipped, so the attack goes without one.)
    """
    text = attack(secrets).replace("<!-- gauntlet:key=pr-comment:1 -->", "")
    items = [
        {"body": f"critical: {text}", "path": token_path(secrets), "line": 3, "user": {"login": "@everyone"}},
        {"body": f"[major] \ud800 {text}", "path": "C:/Users/runneradmin/app.py", "line": 2**40, "user": {}},
        {"body": "nit: <!-- gauntlet:key=pr-comment:1 --> ok", "user": {"login": "bob"}},
    ]
    return json.dumps(items).encode()


def log(secrets: Mapping[str, str]) -> bytes:
    """A GitHub job log: timestamps, colours cutting a key apart, a masked value, hostile failures and paths."""
    stamp = "2026-11-29T12:00:00.0000000Z "
    key = secrets["private key"].splitlines()
    coloured_key = [f"\x1b[31m{key[0][:20]}\x1b[0m{key[0][20:]}", *key[1:]]
    text = attack(secrets, multiline=False)
    mask = secrets["masked value"]
    lines = [
        f"::add-mask::{mask}",
        "##[group]Run python -m pytest",
        "python -m pytest",
        "##[endgroup]",
        "=================================== FAILURES ===================================",
        f"_____ test_leak[{mask}-@everyone] _____",
        "",
        "    def test_leak():",
        f">       assert login('{mask}') == {text!r}",
        f"E       AssertionError: {text}",
        *coloured_key,
        "",
        f"tests/test_app.py:{HUGE}: AssertionError",
        "=========================== short test summary info ============================",
        f"FAILED tests/test_app.py::test_leak[{mask}-@everyone] - AssertionError: {text}",
        f"FAILED tests/{mask}/test_b.py::test_b - AssertionError: {mask}",
        "========================= 2 failed, 1 passed in 0.31s ==========================",
        f"C:\\Users\\runneradmin\\work\\app.c:7:20: error: {text}",
        f"C:/Users/runneradmin/work/app.c:8:1: error: {mask}",
        f"src/{mask}.c:9:1: error: too many arguments",
        f"src/app.c:{HUGE}:{HUGE}: error: huge {secrets['github gho']}",
        "D:\\a\\app\\app\\src\\win.c:3:1: error: inside the workspace",
    ]
    # Bytes no UTF-8 decoder accepts: a NUL, an encoded lone surrogate, stray continuation bytes.
    broken = stamp.encode() + b"error: \x00 nul \xed\xa0\x80 surrogate \xff\xfe\n"
    end = (stamp + "##[error]Process completed with exit code 1.\n").encode()
    return "".join(stamp + line + "\n" for line in lines).encode() + broken + end


#: Every findings channel: file name (its extension picks nothing; ``--format auto`` detects) and maker.
DOCUMENTS = {
    "results.sarif": sarif,
    "junit.xml": junit,
    "review.json": review,
    "lint.rdjson": rdjson,
    "checkstyle.xml": checkstyle,
    "comments.json": comments,
    "job.log": log,
}
