"""A local GitHub stand-in for tests and the demo: REST over real bare git repositories.

See ``README.md`` in this folder. Production code never imports this package.
"""

from gauntlet.sandbox.seed import JobSeed, RunSeed
from gauntlet.sandbox.service import Sandbox

__all__ = ["JobSeed", "RunSeed", "Sandbox"]
