"""``gauntlet report --html DIR``: a static dashboard of the state (DESIGN §8).

Theory of operation, one direction like the pipeline:

- :mod:`~gauntlet.dashboard.source` reads the state folder (or a git ref of the state branch) one file at a
  time; a file that does not parse is reported and skipped, never fatal.
- :mod:`~gauntlet.dashboard.outcomes` turns what the state holds into per-test pass/fail outcomes and tallies
  them (the only module that knows where outcomes come from).
- :mod:`~gauntlet.dashboard.figures` reduces each file to the rows and numbers the pages show, so memory
  holds rows, not records.
- :mod:`~gauntlet.dashboard.charts` lays out inline SVG charts as plain shapes.
- :mod:`~gauntlet.dashboard.site` renders the pages through Jinja2's sandbox with HTML autoescaping (state
  holds attacker-written text: it is only ever data) and :mod:`~gauntlet.dashboard.trend` the job summary.
"""

from __future__ import annotations

from gauntlet.dashboard.site import build_site

__all__ = ["build_site"]
