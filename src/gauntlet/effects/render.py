"""Rendering bodies from ``templates/`` through Jinja2's sandbox (DESIGN §6).

Untrusted text only ever reaches a template as data. Every value printed with
``{{ }}`` passes through :func:`neutralise` (the environment's ``finalize``), so
secrets, HTML, block syntax, code fences and ``@mentions`` from input cannot change
what a body says or does; the rendered body is redacted once more before it is
written (``docs/security.md``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from gauntlet.untrusted import redact
from gauntlet.vocabulary import marker_text

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

__all__ = ["MAX_BODY_CHARS", "marker", "neutralise", "render", "templates_dir"]

#: GitHub refuses issue, PR and comment bodies longer than this.
MAX_BODY_CHARS = 65_536

# GitHub links ``@name`` and ``@org/team`` where ``@`` follows no word character; a zero-width space after
# the ``@`` leaves the text readable and links nobody. (Wrapping the name in backticks does not do: inside
# a template's own code span the backticks close the span and leave the name live.)
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_FENCE = re.compile(r"`{3,}|~{3,}")
# What opens a block when it starts a line: indentation (code blocks), ATX headings, setext underlines,
# thematic breaks, list bullets. As an entity the character reads the same and opens nothing.
_LINE_START = re.compile(r"(?m:^)[ \t#=+*_-]")
_ENTITY = {char: f"&#{ord(char)};" for char in " \t#=+*_-"}


def neutralise(value: Any) -> Any:
    """Make an untrusted value safe to place anywhere in Markdown: no secret, HTML, block syntax, fence or ping.

    The result is the same whether the template puts the value in prose, a table cell, a code span
    or ``<pre>``: secrets are redacted, ``&``, ``<`` and ``>`` become entities, a space, tab, ``#``, ``=``,
    ``-``, ``+``, ``*`` or ``_`` that starts a line becomes an entity (no code block, heading, rule or list),
    runs of three backticks or tildes are broken (no fence), and ``@name`` is broken (no ping).
    Values Gauntlet built itself (:class:`~markupsafe.Markup`, such as :func:`marker` and macro
    output) pass unchanged; the result is Markup so autoescaping does not escape it twice.
    """
    if not isinstance(value, str) or isinstance(value, Markup):
        return value
    text = redact(value).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _LINE_START.sub(lambda m: _ENTITY[m.group(0)], text)
    text = _FENCE.sub(lambda m: "\u200b".join(m.group(0)), text)
    return Markup(_MENTION.sub("@\u200b", text))


def marker(kind: str, ident: str) -> Markup:
    """The hidden marker that lets Gauntlet find a body it wrote (DESIGN §5, contract)."""
    return Markup(marker_text(f"{kind}:{ident}"))


def templates_dir() -> Path:
    """Where the templates are: packaged next to the code in a wheel, at the repository top in a checkout."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "templates"


@cache
def _environment() -> SandboxedEnvironment:
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(
        loader=FileSystemLoader(templates_dir()),
        undefined=StrictUndefined,
        finalize=neutralise,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # On, so macro output is Markup and passes finalize unchanged; finalize escapes the rest.
        autoescape=True,
    )
    env.globals["marker"] = marker
    return env


def render(template: str, **context: Any) -> str:
    """Render ``template`` with ``context`` as data; the result is redacted once more and cut to GitHub's limit."""
    body = redact(_environment().get_template(template).render(**context))
    if len(body) > MAX_BODY_CHARS:
        notice = "\n\n…(truncated: the full report is in the job summary)\n"
        body = body[: MAX_BODY_CHARS - len(notice)] + notice
    return body
