"""PHP: PHPUnit failures (``There was 1 failure:`` / ``1) Class::test``) and fatal errors."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import SectionParser, headline
from gauntlet.ingest.log.draft import Draft, Line, Sink, diagnostic
from gauntlet.models import Kind

__all__ = ["Php"]

_SECTION = re.compile(r"^There (?:was|were) \d+ (failure|error)s?:$")
_ITEM = re.compile(r"^(\d+)\) (\S+::\S+)$")
_WHERE = re.compile(r"^(/\S+?\.php|\S+?\.php):(\d+)$")
_FATAL = re.compile(r"^(?:PHP )?(Fatal|Parse) error:\s+(.*?) in (\S+?\.php)(?: on line |:)(\d+)")


class Php(SectionParser):
    """PHPUnit's failure and error sections, and PHP's fatal and parse errors."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "error:" in text and (fatal := _FATAL.match(text)):
            what, message, path, row = fatal.groups()
            kind: Kind = "build_error" if what == "Parse" else "crash"
            sink.emit(diagnostic("php", kind, message, number, path, row))
            return True
        if text.startswith("There ") and _SECTION.match(text):
            self._section = True
            return True
        if not self._section:
            return False
        if match := _ITEM.match(text):
            self._report(sink)
            name = match.group(2)
            self._draft = Draft("phpunit", "test_failure", "", number, number, test_id=name, key=f"phpunit:{name}")
            return True
        if text.startswith(("FAILURES!", "ERRORS!", "Tests: ")):
            self.close(sink)
            return True
        draft = self._draft
        if draft is not None and text.strip() and number - draft.start < 40:
            if where := _WHERE.match(text.strip()):
                if draft.path is None:
                    draft.path, draft.line, draft.end = where.group(1), int(where.group(2)), number
            elif not draft.message:
                draft.message, draft.end = text.strip(), number
        return True

    def _finish(self, draft: Draft) -> bool:
        headline(draft, draft.test_id)
        return True
