"""The daemon's HTTP endpoint: ``/metrics`` for Prometheus, ``/healthz`` (liveness), ``/readyz`` (readiness).

Served by ``monitor.http.BoundedServer`` on its own thread, so a busy pipeline never delays a scrape and
no client can hold the endpoint (connections, deadlines and sizes are bounded there). Liveness fails
when the main loop has not ticked for ``stall_after_s`` (a wedged process should be restarted);
readiness follows the source (open and, for Kafka, partitions assigned).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from monitor.http import ASGIApp, BoundedServer, Receive, Scope, Send

DEFAULT_STALL_AFTER_S = 120.0
_TEXT = b"text/plain; charset=utf-8"


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


def metrics_app(registry: CollectorRegistry, health: Health) -> ASGIApp:
    """The three endpoints as an ASGI app."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        if scope["method"] not in ("GET", "HEAD"):
            status, body, kind = 405, b"only GET\n", _TEXT
        elif path == "/metrics":
            status, body, kind = 200, generate_latest(registry), CONTENT_TYPE_LATEST.encode()
        elif path == "/healthz":
            ok = health.alive
            status, body, kind = (200, b"ok\n", _TEXT) if ok else (503, b"stalled\n", _TEXT)
        elif path == "/readyz":
            ok = health.ready()
            status, body, kind = (200, b"ready\n", _TEXT) if ok else (503, b"not ready\n", _TEXT)
        else:
            status, body, kind = 404, b"not found: try /metrics, /healthz or /readyz\n", _TEXT
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    return app


class MetricsServer:
    """A context manager that serves the registry and the probes until closed."""

    def __init__(self, registry: CollectorRegistry, health: Health, host: str, port: int) -> None:
        self._server = BoundedServer(metrics_app(registry, health), host, port, name="ragmon-metrics")

    @property
    def port(self) -> int:
        return self._server.port

    def __enter__(self) -> MetricsServer:
        self._server.__enter__()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.__exit__(exc_type, exc, tb)
