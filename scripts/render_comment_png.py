"""Make the README picture, ``docs/pr-comment.png``: Gauntlet's sticky PR comment as the demo leaves it, rendered.

    .venv/bin/python scripts/render_comment_png.py                 # plays the demo, renders iteration 1's comment
    .venv/bin/python scripts/render_comment_png.py --body demo-out/pr-1-comment-iteration-2.md

The comment is the body the demo fetched back from the sandbox. A small renderer
turns the Markdown Gauntlet writes (headings, paragraphs with GitHub's line
breaks, tables, lists, ``<details>``, ``<sub>``, code spans, bold, links) into
HTML styled like a GitHub comment, and headless Chromium (Debian's ``chromium``)
takes the screenshot: once to measure the page's height, once to shoot it.
Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import html
import io
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The tags GitHub keeps from a comment that Gauntlet's templates use; any other markup is shown as text.
KEPT_TAGS = re.compile(r"&lt;(/?(?:details|summary|sub|br|b|i|code)\s*/?)&gt;")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=2",
)

CSS = """
body { margin: 0; padding: 16px; background: #ffffff; width: fit-content; }
.timeline { display: flex; gap: 16px; align-items: flex-start; }
.avatar { width: 40px; height: 40px; border-radius: 50%; background: #2da44e; color: #fff; flex: none;
  font: 600 18px/40px "DejaVu Sans", sans-serif; text-align: center; }
.comment { width: 820px; border: 1px solid #d0d7de; border-radius: 6px; color: #1f2328;
  font: 14px/1.5 "Liberation Sans", "DejaVu Sans", "Noto Color Emoji", sans-serif; }
.header { background: #f6f8fa; border-bottom: 1px solid #d0d7de; border-radius: 6px 6px 0 0; padding: 8px 16px;
  color: #59636e; }
.header b { color: #1f2328; }
.badge { border: 1px solid #d0d7de; border-radius: 2em; padding: 0 7px; font-size: 12px; margin-left: 4px; }
.body { padding: 16px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin: 0 0 16px; }
h3 { font-size: 1.25em; margin: 24px 0 16px; }
p, ul, table, details { margin: 0 0 16px; }
ul { padding-left: 2em; }
table { border-collapse: collapse; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
th { font-weight: 600; }
tr:nth-child(2n) td { background: #f6f8fa; }
code { font: 85% "DejaVu Sans Mono", monospace; background: rgba(129, 139, 152, .12); border-radius: 6px;
  padding: .2em .4em; }
sub { color: #59636e; }
summary { cursor: pointer; }
a { color: #0969da; text-decoration: none; }
"""


def inline(text: str) -> str:
    """Inline Markdown: code spans first (their text stays literal), then bold, italics and links."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        escaped = KEPT_TAGS.sub(r"<\1>", html.escape(part, quote=False))
        escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
        escaped = re.sub(r"(?<![\w*])_(.+?)_(?![\w*])", r"<em>\1</em>", escaped)
        escaped = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', escaped)
        out.append(escaped)
    return "".join(out)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _table(rows: list[str]) -> str:
    head, body = _cells(rows[0]), [_cells(r) for r in rows[2:]]
    th = "".join(f"<th>{inline(c)}</th>" for c in head)
    trs = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def _blocks(lines: list[str]) -> Iterator[str]:
    """Block-level Markdown, one HTML block at a time."""
    paragraph: list[str] = []

    def flush() -> Iterator[str]:
        if paragraph:
            yield "<p>" + "<br>".join(inline(p) for p in paragraph) + "</p>"
            paragraph.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        if not line.strip():
            yield from flush()
        elif heading:
            yield from flush()
            level = len(heading.group(1))
            yield f"<h{level}>{inline(heading.group(2))}</h{level}>"
        elif line.startswith("|") and index + 1 < len(lines) and re.match(r"^\|?\s*:?-{3}", lines[index + 1]):
            yield from flush()
            end = index
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            yield _table(lines[index:end])
            index = end
            continue
        elif re.match(r"^[-*] ", line):
            yield from flush()
            end = index
            while end < len(lines) and re.match(r"^[-*] ", lines[end]):
                end += 1
            yield "<ul>" + "".join(f"<li>{inline(item[2:])}</li>" for item in lines[index:end]) + "</ul>"
            index = end
            continue
        elif re.match(r"^</?(details|summary)", line):
            yield from flush()
            yield inline(line)
        else:
            paragraph.append(line)
        index += 1
    yield from flush()


def render_markdown(text: str) -> str:
    """The HTML of a comment body; HTML comments (Gauntlet's markers) are dropped, as GitHub hides them."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    return "\n".join(_blocks(text.splitlines()))


def page(body_html: str) -> str:
    """A page showing the body as a comment by github-actions on a pull request."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>{CSS}</style></head><body>
<div class="timeline"><div class="avatar">G</div><div class="comment">
<div class="header"><b>github-actions</b> <span class="badge">bot</span> commented</div>
<div class="body">{body_html}</div></div></div>
<script>document.body.setAttribute("data-height", document.body.scrollHeight)</script>
</body></html>"""


def chromium() -> str:
    """The Chromium binary on ``PATH`` (``apt-get install chromium``)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("render_comment_png: no chromium on PATH (apt-get install chromium)")


def screenshot(document: str, out: Path, width: int) -> None:
    """Render ``document`` with headless Chromium into ``out``, as tall as the page."""
    browser = chromium()
    with tempfile.TemporaryDirectory(prefix="gauntlet-render-") as scratch:
        source = Path(scratch) / "comment.html"
        source.write_text(document, encoding="utf-8")
        flags = [*CHROMIUM_FLAGS, f"--user-data-dir={scratch}/profile", f"--window-size={width},800"]
        dom = subprocess.run(
            [browser, *flags, "--dump-dom", source.as_uri()], capture_output=True, text=True, check=True, timeout=120
        ).stdout
        measured = re.search(r'data-height="(\d+)"', dom)
        if measured is None:
            raise SystemExit("render_comment_png: Chromium did not report the page height")
        height = int(measured.group(1))
        out.parent.mkdir(parents=True, exist_ok=True)
        flags[-1] = f"--window-size={width},{height}"
        subprocess.run(
            [browser, *flags, f"--screenshot={out.resolve()}", source.as_uri()],
            capture_output=True,
            check=True,
            timeout=120,
        )


def demo_comment(which: str) -> str:
    """Play the demo on a fresh sandbox and return the sticky comment it kept for ``which``."""
    from gauntlet.demo import tell
    from gauntlet.sandbox import Sandbox

    with tempfile.TemporaryDirectory(prefix="gauntlet-demo-") as folder, Sandbox.start() as sandbox:
        tell(sandbox, Path(folder), io.StringIO())
        return (Path(folder) / f"pr-1-comment-{which}.md").read_text(encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Render the comment and write the PNG."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--body", type=Path, help="a comment body the demo kept (default: play the demo)")
    parser.add_argument("--which", default="iteration-1", help="which kept comment when playing the demo")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "pr-comment.png")
    parser.add_argument("--width", type=int, default=920)
    args = parser.parse_args(argv)
    body = args.body.read_text(encoding="utf-8") if args.body else demo_comment(args.which)
    screenshot(page(render_markdown(body)), args.out, args.width)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
