"""The HTTP endpoint: ``/metrics`` for Prometheus, ``/healthz`` (liveness) and ``/readyz`` (readiness).

Served from a daemon thread so a busy pipeline never delays a scrape. Liveness fails when the main
loop has not ticked for ``stall_after_s`` (a wedged process should be restarted); readiness follows
the source (open and, for Kafka, partitions assigned).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

DEFAULT_STALL_AFTER_S = 120.0


class Health:
    """Shared state the loop updates and the probes read."""

    def __init__(self, stall_after_s: float = DEFAULT_STALL_AFTER_S) -> None:
        self.ready: Callable[[], bool] = lambda: False
        self._tick = time.monotonic()
        self._stall_after_s = stall_after_s

    def tick(self) -> None:
        self._tick = time.monotonic()

    @property
    def alive(self) -> bool:
        return time.monotonic() - self._tick < self._stall_after_s


class MetricsServer:
    """A context manager that serves the registry and the probes until closed."""

    def __init__(self, registry: CollectorRegistry, health: Health, host: str, port: int) -> None:
        handler = _handler(registry, health)
        self._httpd = ThreadingHTTPServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ragmon-http", daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def __enter__(self) -> MetricsServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(registry: CollectorRegistry, health: Health) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(200, generate_latest(registry), CONTENT_TYPE_LATEST)
            elif path == "/healthz":
                ok = health.alive
                self._send(200 if ok else 503, b"ok\n" if ok else b"stalled\n")
            elif path == "/readyz":
                ok = health.ready()
                self._send(200 if ok else 503, b"ready\n" if ok else b"not ready\n")
            else:
                self._send(404, b"not found: try /metrics, /healthz or /readyz\n")

        def _send(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None  # scrapes every few seconds would drown the structured log

    return Handler
