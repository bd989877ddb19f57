"""Release steps of .github/workflows/release.yml: check a tag against the package version, pin action.yml.

    python docker/release.py version v1.2.3              prints 1.2.3, or fails if the tag is not v<version>
    python docker/release.py pin-action IMAGE action.yml  rewrites `image: Dockerfile` to `image: docker://IMAGE`

A released action runs a prebuilt image instead of building the Dockerfile on every
run; users pin it with `uses: owner/gauntlet@v1.2.3`. Standard library only: the
release job runs it before anything is installed.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_IMAGE_LINE = re.compile(r"^(?P<indent>\s+)image:\s*['\"]?Dockerfile['\"]?\s*$", re.MULTILINE)


class ReleaseError(Exception):
    """The release cannot go on; the message says why."""


def package_version(root: Path = ROOT) -> str:
    """The version in pyproject.toml, which must equal ``gauntlet.__version__``.

    :raises ReleaseError: the two disagree, or ``__version__`` is not a plain string literal.
    """
    declared = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    module = ast.parse((root / "src" / "gauntlet" / "__init__.py").read_text(encoding="utf-8"))
    found = [
        node.value.value
        for node in module.body
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    if found != [declared]:
        raise ReleaseError(f"pyproject.toml says {declared}, gauntlet.__version__ says {found or 'nothing'}")
    return str(declared)


def tag_version(tag: str, root: Path = ROOT) -> str:
    """The version a release tag names, checked against the package.

    :param tag: the pushed tag, ``v`` and the version (``v1.2.3``), or a full ``refs/tags/v1.2.3``.
    :raises ReleaseError: the tag is not ``v<version>`` of this package.
    """
    name = tag.removeprefix("refs/tags/")
    version = package_version(root)
    if name != f"v{version}":
        raise ReleaseError(f"tag {name!r} does not match the package version {version} (expected v{version})")
    return version


def pin_action(text: str, image: str) -> str:
    """action.yml with its one ``image: Dockerfile`` replaced by ``image: docker://IMAGE``.

    :raises ReleaseError: there is not exactly one such line (already pinned, or not a Docker action).
    """
    if not re.fullmatch(r"[a-z0-9][a-z0-9./_-]*:v[0-9A-Za-z._-]+", image):
        raise ReleaseError(f"{image!r} is not a lower-case image reference with a v<version> tag")
    matches = _IMAGE_LINE.findall(text)
    if len(matches) != 1:
        raise ReleaseError(f"expected one `image: Dockerfile` line in action.yml, found {len(matches)}")
    return _IMAGE_LINE.sub(lambda m: f"{m.group('indent')}image: docker://{image}", text)


def main(argv: Sequence[str]) -> int:
    """Run one release step; 0 on success, 1 with the reason on stderr, 2 on bad usage."""
    try:
        match list(argv):
            case ["version", tag]:
                print(tag_version(tag))
            case ["pin-action", image, path]:
                action = Path(path)
                action.write_text(pin_action(action.read_text(encoding="utf-8"), image), encoding="utf-8")
            case _:
                print(__doc__, file=sys.stderr)
                return 2
    except ReleaseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
