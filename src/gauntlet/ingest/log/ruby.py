"""Ruby: RSpec failures (``Failures:`` blocks, ``rspec ./spec/x_spec.rb:4``) and minitest."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, LineParser, SectionParser, headline
from gauntlet.ingest.log.draft import Draft, Line, Sink, diagnostic
from gauntlet.models import Kind

__all__ = ["Minitest", "Rspec", "RubyError"]

_ITEM = re.compile(r"^\s{2}(\d+)\) (.+)$")
_FAILURE_ERROR = re.compile(r"^\s+Failure/Error: (.*)$")
_WHERE = re.compile(r"^\s+# (\./\S+?\.rb):(\d+)")
_RERUN = re.compile(r"^rspec (\./\S+?\.rb)(?::(\d+)|\[[\d:]+\]) # (.*)$")


class Rspec(SectionParser):
    """RSpec's ``Failures:`` section; the ``rspec ./spec/...`` rerun lines only when no block was seen."""

    def __init__(self) -> None:
        super().__init__()
        self._after_failure = False
        self._rerun = False

    @property
    def active(self) -> bool:
        """True inside the Failures section or the rerun list."""
        return self._section or self._rerun

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text == "Failures:":
            self._section = True
            return True
        if text == "Failed examples:":
            self.close(sink)
            self._rerun = True
            return True
        if text.startswith("rspec ./") and (match := _RERUN.match(text)):
            path, row, title = match.groups()
            sink.emit(
                Draft(
                    "rspec",
                    "test_failure",
                    title,
                    number,
                    number,
                    path=path,
                    line=int(row) if row else None,
                    test_id=title,
                    key=f"rspec:{title}",
                )
            )
            return True
        self._rerun = self._rerun and not text.strip()
        if not self._section:
            return False
        if match := _ITEM.match(text):
            self._report(sink)
            title = match.group(2).strip()
            self._draft = Draft("rspec", "test_failure", "", number, number, test_id=title, key=f"rspec:{title}")
            return True
        if text.startswith(("Finished in", "Failed examples:")) or (text and not text[0].isspace()):
            self.close(sink)
            return False
        draft = self._draft
        if draft is None:
            return True
        if match := _FAILURE_ERROR.match(text):
            draft.message, draft.end = match.group(1), number
            self._after_failure = True
        elif match := _WHERE.match(text):
            if draft.line is None:
                draft.path, draft.line, draft.end = match.group(1), int(match.group(2)), number
            self._after_failure = False
        elif self._after_failure and text.strip():
            draft.message = f"{draft.message} {text.strip()}"[:300]
            draft.end = number
            self._after_failure = len(draft.message) < 200
        elif not text.strip():
            self._after_failure = False
        return True

    def _report(self, sink: Sink) -> None:
        self._after_failure = False
        super()._report(sink)

    def _finish(self, draft: Draft) -> bool:
        headline(draft, draft.test_id)
        return True


_MT_HEAD = re.compile(r"^\s*\d+\) (Failure|Error):$")
_MT_FRAME = re.compile(r"^\s+(\S+?\.rb):(\d+):in ")
# A spec's test is named for its sentence (``Money#test_0001_pads the cents``): spaces and all.
_MT_TEST = re.compile(r"^([\w:]+)#(\w[^\[\]]{0,300}?) \[(\S+?):(\d+)\]:?$|^([\w:]+)#(\w[^\[\]]{0,300}?):$")


class Minitest(BlockParser):
    """minitest's ``  1) Failure:`` / ``ClassTest#test_x [file.rb:12]:`` / message blocks."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if ("Failure:" in text or "Error:" in text) and _MT_HEAD.match(text):
            self.close(sink)
            self._draft = Draft("minitest", "test_failure", "", number, number)
            return True
        draft = self._draft
        if draft is None:
            return False
        if draft.test_id is None and (match := _MT_TEST.match(text)):
            klass, method, path, row, klass2, method2 = match.groups()
            draft.test_id = f"{klass or klass2}#{method or method2}"
            draft.key = f"minitest:{draft.test_id}"
            draft.path, draft.line = path, int(row) if row else None
            draft.end = number
            return True
        if number - draft.start > 20 or (not text.strip() and (draft.path is not None or number - draft.start > 12)):
            self.close(sink)
            return True
        if not text.strip():
            return True  # Ruby's error_highlight snippet stands between the message and the frame
        if frame := _MT_FRAME.match(text):
            if draft.path is None:
                draft.path, draft.line = frame.group(1), int(frame.group(2))
            return True
        if not draft.message:
            draft.message, draft.end = text.strip(), number
        return True

    def _finish(self, draft: Draft) -> bool:
        if not draft.test_id:
            return False  # a block whose test line never came names nothing
        headline(draft, draft.test_id)
        return True


_UNCAUGHT = re.compile(r"^(\S+?\.rb):(\d+):in [`'](.*?)': (.*) \(([A-Z]\w*(?:::\w+)*)\)$")
_RUBY_BUILD = ("SyntaxError", "LoadError", "NameError", "Gem::MissingSpecError", "Bundler::GemNotFound")


class RubyError(LineParser):
    """An uncaught Ruby exception: ``x.rb:3:in `<main>': message (NoMethodError)``."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.endswith(")") and ".rb:" in text and (match := _UNCAUGHT.match(text)):
            path, row, _, message, name = match.groups()
            # a library's own syntax error is one too (Liquid's ``Liquid::SyntaxError`` in a Jekyll template)
            syntax = name.rsplit("::", 1)[-1] in ("SyntaxError", "ParseError")
            kind: Kind = "build_error" if name in _RUBY_BUILD or syntax else "crash"
            sink.emit(diagnostic("ruby", kind, f"{name}: {message}", number, path, row))
            return True
        return False
