"""Gauntlet: a CI bot that keeps main green and reviews honest.

The pipeline runs in one direction (DESIGN §2)::

    ingest -> classify -> engine -> plan -> apply -> commit state

Each stage lives in its own sub-package; :mod:`gauntlet.cli` is the only module that reads the process environment.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
