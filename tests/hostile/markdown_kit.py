"""What a real CommonMark parser (markdown-it-py, GFM tables on) makes of a body: live mentions, HTML, blocks.

GitHub links ``@name`` in text that is not code, a link or HTML; ``live_mentions`` looks
exactly there. (A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

_PARSER = MarkdownIt("commonmark").enable("table")
_MENTION = re.compile(r"(?<![A-Za-z0-9_`])@[A-Za-z0-9]")
#: The HTML Gauntlet's own templates write; anything else in an HTML token came from input.
_OWN_HTML = re.compile(r"<!-- gauntlet:key=[^\s>]+ -->|</?(?:details|summary|sub|pre|br)>")
MARKER = re.compile(r"<!-- gauntlet:key=[^\s>]+ -->")


def tokens(body: str) -> list[Token]:
    """The block tokens of ``body``."""
    return _PARSER.parse(body)


def _inline_texts(body: str) -> Iterator[str]:
    for token in tokens(body):
        for child in token.children or ():
            if child.type == "text":
                yield child.content


def live_mentions(body: str) -> list[str]:
    """Text that GitHub would turn into a notification (outside code, links and HTML)."""
    return [m.group(0) for text in _inline_texts(body) for m in _MENTION.finditer(text)]


def foreign_html(body: str) -> list[str]:
    """HTML in ``body`` that no template wrote."""
    found = []
    for token in tokens(body):
        pieces = [token] if token.type == "html_block" else [c for c in token.children or () if c.type == "html_inline"]
        for piece in pieces:
            rest = _OWN_HTML.sub("", piece.content)
            if "<" in rest:
                found.append(rest.strip()[:80])
    return found


def blocks_with(body: str, sentinel: str) -> list[str]:
    """Headings, fences and code blocks whose text holds ``sentinel`` (text only input can carry)."""
    found: list[str] = []
    parsed = tokens(body)
    for index, token in enumerate(parsed):
        if _own_verdict(token):
            continue  # the check's verdict: Gauntlet's fence, input only as JSON data inside it
        if token.type in ("fence", "code_block") and sentinel in token.content:
            found.append(f"{token.type}: {token.content[:60]}")
        if token.type == "heading_open" and sentinel in parsed[index + 1].content:
            found.append(f"heading: {parsed[index + 1].content[:60]}")
    return found


def _own_verdict(token: Token) -> bool:
    if token.type != "fence" or token.info != "json":
        return False
    try:
        json.loads(token.content)
    except ValueError:
        return False
    return True


def markers(body: str) -> int:
    """How many Gauntlet markers ``body`` holds, as the marker finders read them."""
    return len(MARKER.findall(body))
