"""Artifact archives: the zip bytes GitHub would serve for an artifact's files."""

from __future__ import annotations

import io
import zipfile


def zip_files(files: dict[str, bytes]) -> bytes:
    """A deterministic zip of ``name -> bytes`` (fixed timestamps, so sizes and bytes are stable)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()
