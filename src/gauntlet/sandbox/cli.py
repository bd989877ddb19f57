"""``gauntlet sandbox serve``: print the base URL, then serve until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gauntlet sandbox", description="A local GitHub stand-in.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the sandbox; the first stdout line is its base URL")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--data", type=Path, default=None, help="keep the bare repositories here")
    serve.add_argument("--latency-ms", type=int, default=0)
    serve.add_argument("--fault-rate", type=float, default=0.0)
    serve.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: list[str]) -> int:
    """Run ``gauntlet sandbox ...``; returns the exit code (2 on bad arguments)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    from gauntlet.sandbox.service import Sandbox

    sandbox = Sandbox(
        host=args.host,
        port=args.port,
        data_dir=args.data,
        latency_ms=args.latency_ms,
        fault_rate=args.fault_rate,
        seed=args.seed,
    )
    print(sandbox.url, flush=True)

    def stop(signum: int, frame: FrameType | None) -> None:
        # shutdown() waits for serve_forever to return, so it must run off the serving thread.
        threading.Thread(target=sandbox.stop, daemon=True).start()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        sandbox.serve_forever()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    sys.stdout.flush()
    return 0
