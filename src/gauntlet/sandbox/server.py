"""The socket layer: a threaded HTTP/1.1 server that routes to git, the control routes or the REST app."""

from __future__ import annotations

import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from gauntlet.sandbox.app import App, Context
from gauntlet.sandbox.faults import DROP, Faults
from gauntlet.sandbox.gitbackend import GIT_PATH, login_of, serve_git, token_from
from gauntlet.sandbox.http import GRAPHQL_PATH, ApiError, Headers, Request, Response, Router
from gauntlet.sandbox.requestlog import RequestLog

_REASONS = {302: "Found", 422: "Unprocessable Entity"}


class SandboxHTTPServer(ThreadingHTTPServer):
    """The HTTP server; one thread per connection."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # 32+ clients connecting at once must not be refused

    def __init__(self, address: tuple[str, int], app: App, control: Router, log: RequestLog, faults: Faults) -> None:
        super().__init__(address, SandboxHandler)
        self.app = app
        self.control = control
        self.log = log
        self.faults = faults

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up is its own business; anything else is a sandbox bug and is reported."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class SandboxHandler(BaseHTTPRequestHandler):
    """One connection; keep-alive as HTTP/1.1 clients expect."""

    server: SandboxHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Silence the default stderr access log: ``/_sandbox/requests`` is the log."""

    def do_GET(self) -> None:
        """Serve GET."""
        self._serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            # git sends large pushes chunked.
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        split = urlsplit(self.path)
        path = split.path
        body = self._read_body()
        host = self.headers.get("Host") or "{}:{}".format(*self.server.server_address[:2])
        base = f"{self.headers.get('X-Forwarded-Proto', 'http')}://{host}"
        headers = Headers(list(self.headers.items()))
        if GIT_PATH.match(path):
            result = serve_git(self.server.app.store, self.command, path, split.query, headers, body)
            self.server.log.add(self.command, path, result.status, split.query)
            self._send(result.status, result.headers, result.body)
            return
        token = token_from(headers)
        request = Request(
            method=self.command,
            path=path,
            query=dict(parse_qsl(split.query, keep_blank_values=True)),
            headers=headers,
            body=body,
            base=base,
            login=login_of(token),
            token=token,
        )
        if path.startswith("/_sandbox/"):
            self._respond(self._control(request))
            return
        faults = self.server.faults
        if faults.latency_seconds:
            time.sleep(faults.latency_seconds)  # the deliberate latency switch
        fault = faults.draw(path)
        if fault == DROP:
            self.server.log.add(self.command, path, 0, split.query)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault:
            response = faults.response(fault)
            resource = "graphql" if path == GRAPHQL_PATH else "core"
            response.headers.update(self.server.app.rate_headers(request.login, resource=resource))
        else:
            response = self.server.app.handle(request)[0]
        self.server.log.add(self.command, path, response.status, split.query)
        self._respond(response)

    def _control(self, request: Request) -> Response:
        matched = self.server.control.match(request.method, request.path)
        if matched is None:
            return ApiError(404, "Not Found").response()
        route, params = matched
        try:
            return route.handler(Context(request=request, params=params, store=self.server.app.store))
        except ApiError as exc:
            return exc.response()

    def _respond(self, response: Response) -> None:
        if response.raw is not None:
            payload = response.raw
        elif response.body is not None:
            payload = json.dumps(response.body).encode()
        else:
            payload = b""
        headers = {"Content-Type": response.content_type, **response.headers}
        self._send(response.status, headers, payload)

    def _send(self, status: int, headers: dict[str, str], payload: bytes) -> None:
        self.send_response(status, _REASONS.get(status))
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
