"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe``: no websocket, no package.

Chromium reads commands from its fd 3 and writes replies and events to its fd 4, each message JSON ended by a
NUL byte (the transport Puppeteer's ``pipe: true`` uses). Calls are synchronous: :meth:`Browser.call` writes a
command and reads messages until its reply, keeping every event it passes in :attr:`Browser.events`, so a test
can look at console messages and failed loads afterwards. Every wait is bounded.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["FLAGS", "Browser", "chromium"]

#: The flags the brief asks for: headless, no sandbox (root in CI), nothing that reaches the network.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def chromium() -> str | None:
    """Debian's Chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    """Chromium answered with an error, closed its pipe or did not answer in time."""


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, binary: str, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="gauntlet-chromium-")
        to_child, self._writer = os.pipe()
        self._reader, from_child = os.pipe()
        # bash (dash takes single-digit fds only) puts our pipe ends at the fds Chromium expects: 3 commands in,
        # 4 messages out.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{to_child} 4>&{from_child}', "bash", binary, *FLAGS,
             f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=None)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=None)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = "") -> Any:
        """Send one command (to the page's session unless ``session`` is ``None``) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None and (session or self.session):
            message["sessionId"] = session or self.session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str, since: int) -> dict[str, Any]:
        """The first ``event`` at or after index ``since`` of :attr:`events`, reading on until it comes."""
        deadline = time.monotonic() + self.timeout
        position = since
        while True:
            for item in self.events[position:]:
                if item.get("method") == event:
                    return item
            position = len(self.events)
            self.events.append(self._receive(deadline))

    def open(self, url: str, *, dark: bool = False, width: int = 1280, height: int = 900) -> None:
        """Load ``url`` in the given colour scheme and wait for its load event."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})  # fmt: skip
        scheme = "dark" if dark else "light"
        self.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        since = len(self.events)
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", since)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"evaluate: {details.get('exception', {}).get('description') or details.get('text')}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        """A PNG of the page from its top, past the viewport down to 1,400 px (the charts and the first rows)."""
        metrics = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": metrics["width"], "height": min(metrics["height"], 1400), "scale": 1}
        data = self.call("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(data["data"]))

    def close(self) -> None:
        """Ask Chromium to quit, and make sure it has."""
        with contextlib.suppress(BrowserError, OSError):  # it may be gone already; the wait below makes sure
            self.call("Browser.close", session=None)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._writer)
        os.close(self._reader)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from Chromium in time")
            ready, _, _ = select.select([self._reader], [], [], left)
            if ready:
                chunk = os.read(self._reader, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed the DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))
