"""The one error tree of Gauntlet.

Every error Gauntlet raises on purpose derives from :class:`GauntletError`; only
:func:`gauntlet.cli.main` turns one into an exit code. Anything else is a bug and
crashes loudly::

    GauntletError
    ├── InputError          bad input file, payload or argument      (exit 2)
    ├── ConfigError         bad configuration or action input        (exit 2)
    ├── StateConflict       the state changed under us; re-read it   (internal, retried)
    └── GitHubUnavailable   GitHub still failing after retries       (exit 3)

Foreign errors (PyGithub, git, the file system) are translated at the edge that
calls them, never deeper in.
"""

from typing import ClassVar

__all__ = ["ConfigError", "GauntletError", "GitHubUnavailable", "InputError", "StateConflict"]


class GauntletError(Exception):
    """Base class; ``exit_code`` is what the command line exits with."""

    exit_code: ClassVar[int] = 1


class InputError(GauntletError):
    """An input (file, event payload, argument) cannot be used."""

    exit_code: ClassVar[int] = 2


class ConfigError(GauntletError):
    """The configuration file or an action input is invalid."""

    exit_code: ClassVar[int] = 2


class StateConflict(GauntletError):
    """The stored state moved since it was read; the run must re-read and retry."""

    exit_code: ClassVar[int] = 3


class GitHubUnavailable(GauntletError):
    """GitHub kept failing after every retry."""

    exit_code: ClassVar[int] = 3
