"""The command line (DESIGN §8).

This is the only module that reads the process environment. Heavy imports
(numpy, PyGithub, Jinja2) happen inside the command that needs them, so
``gauntlet --help`` starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gauntlet import __version__
from gauntlet.errors import GauntletError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit code (0 done, 1 check failed, 2 bad input, 3 GitHub down)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args))
    except GauntletError as exc:
        print(f"gauntlet: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `gauntlet ingest --json | head`
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gauntlet",
        description="Classify CI failures and review findings, run the gauntlet loop, keep main green.",
    )
    parser.add_argument("--version", action="version", version=f"gauntlet {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    ingest = commands.add_parser("ingest", help="print the findings in logs and findings files")
    from gauntlet.ingest.formats import FORMATS

    ingest.add_argument("--format", choices=FORMATS, default="auto")
    ingest.add_argument("--json", action="store_true", help="one Finding per line")
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.set_defaults(handler=_ingest)

    sandbox = commands.add_parser("sandbox", help="a local GitHub stand-in for tests and the demo", add_help=False)
    sandbox.add_argument("sandbox_args", nargs=argparse.REMAINDER)
    sandbox.set_defaults(handler=_sandbox)

    return parser


def _ingest(args: argparse.Namespace) -> int:
    from gauntlet.ingest import ingest_file

    for path in args.paths:
        for finding in ingest_file(path, args.format):
            if args.json:
                print(finding.model_dump_json())
            else:
                where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "-")
                print(f"{finding.severity:8} {finding.kind:12} {where}  {finding.message}")
    return 0


def _sandbox(args: argparse.Namespace) -> int:
    from gauntlet.sandbox.cli import main as sandbox_main

    return sandbox_main(args.sandbox_args)
