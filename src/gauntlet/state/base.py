"""The base of every state file: versioned, strict, bounded."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = ["Record", "StateFile", "keep_last"]

T = TypeVar("T")


class Record(BaseModel):
    """A value stored inside a state file: strict, so a typo in stored data is caught when read."""

    model_config = ConfigDict(extra="forbid")


class StateFile(Record):
    """A file on the state branch. ``schema_version`` lets later releases migrate old files."""

    schema_version: int = 1


def keep_last(items: list[T], limit: int) -> list[T]:
    """Return at most the ``limit`` newest items (the list is oldest first)."""
    return items[-limit:] if len(items) > limit else items
