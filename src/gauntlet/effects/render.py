"""Rendering bodies from ``templates/`` through Jinja2's sandbox (DESIGN §6).

Untrusted text only ever reaches a template as data. Every value printed with
``{{ }}`` passes through :func:`neutralise` (the environment's ``finalize``), so
HTML, code fences and ``@mentions`` from input cannot change what a body does.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from gauntlet.vocabulary import marker_text

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

__all__ = ["MAX_BODY_CHARS", "marker", "neutralise", "render", "templates_dir"]

#: GitHub refuses issue, PR and comment bodies longer than this.
MAX_BODY_CHARS = 65_536

_MENTION = re.compile(r"(?<![\w`])@([A-Za-z0-9][A-Za-z0-9-]{0,38}(?:/[A-Za-z0-9_.-]+)?(?:\[bot\])?)")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_MARKER_TEXT = re.compile(r"<!--|-->")


def neutralise(value: Any) -> Any:
    """Make an untrusted value safe to place in Markdown: no HTML, no fences, no pings.

    Values Gauntlet built itself (:class:`~markupsafe.Markup`, such as :func:`marker` and macro
    output) pass unchanged; the result is Markup so autoescaping does not escape it twice.
    """
    if not isinstance(value, str) or isinstance(value, Markup):
        return value
    text = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKER_TEXT.sub("", text)
    text = _FENCE.sub(lambda m: "\u200b".join(m.group(1)), text)
    return Markup(_MENTION.sub(lambda m: f"`@{m.group(1)}`", text))


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
    """Render ``template`` with ``context`` as data; the result is cut to GitHub's body limit."""
    body = _environment().get_template(template).render(**context)
    if len(body) > MAX_BODY_CHARS:
        notice = "\n\n…(truncated: the full report is in the job summary)\n"
        body = body[: MAX_BODY_CHARS - len(notice)] + notice
    return body
