"""The metrics endpoint under hostile clients, on a real loopback socket: bounded threads, bounded time.

A slowloris (hundreds of connections trickling header bytes) and 64 concurrent scrapers at once: every
scrape is answered, no thread is started per connection, slow clients are cut at the request deadline.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client import CollectorRegistry, Counter

from monitor.exceptions import ConfigError
from monitor.http import BoundedServer, Limits
from monitor.server import Health, MetricsServer, metrics_app

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
LIMITS = Limits(max_connections=128, request_deadline_s=2.0, idle_timeout_s=3.0)


@pytest.fixture
def server() -> Iterator[BoundedServer]:
    registry = CollectorRegistry()
    Counter("probe", "A sample counter.", registry=registry).inc()
    health = Health()
    health.ready = lambda: True
    with BoundedServer(metrics_app(registry, health), "127.0.0.1", 0, limits=LIMITS) as running:
        yield running


def _get(port: int, path: str = "/metrics", timeout: float = 5.0) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_endpoints(server: BoundedServer) -> None:
    """/metrics serves the registry, the probes answer, anything else is a 404."""
    status, body = _get(server.port)
    assert status == 200 and b"probe_total 1.0" in body
    assert _get(server.port, "/healthz")[0] == 200
    assert _get(server.port, "/readyz")[0] == 200
    assert _get(server.port, "/nope")[0] == 404


def test_keep_alive_serves_several_requests_on_one_connection(server: BoundedServer) -> None:
    """A scraper that keeps its connection open is served again and again."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    for _ in range(5):
        conn.request("GET", "/metrics")
        response = conn.getresponse()
        assert response.status == 200 and response.read()
    conn.close()


def test_oversized_headers_are_refused(server: BoundedServer) -> None:
    """Headers over the limit get a 4xx, not a server that buffers them."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
    reply = sock.recv(100)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 4")


def _slowloris(port: int, count: int, stop: threading.Event, cut: list[int]) -> None:
    """``count`` connections sending one header byte each half second until ``stop``; count the ones cut."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        socks.append(sock)
    while not stop.is_set():
        for sock in list(socks):
            try:
                sock.sendall(b"X")
            except OSError:
                socks.remove(sock)
                sock.close()
                cut[0] += 1
        time.sleep(0.5)
    for sock in socks:
        sock.close()


def test_slowloris_and_64_scrapers(server: BoundedServer) -> None:
    """300 trickling connections and 64 concurrent scrapers: every scrape answered, no thread per client."""
    before = {t.ident for t in threading.enumerate()}
    stop, cut = threading.Event(), [0]
    attacker = threading.Thread(target=_slowloris, args=(server.port, 300, stop, cut), name="test-slowloris")
    attacker.start()
    time.sleep(1.0)
    with ThreadPoolExecutor(max_workers=64, thread_name_prefix="test-scraper") as pool:
        results = list(pool.map(lambda _: _get(server.port)[0], range(64 * 5)))
    server_threads = [
        t for t in threading.enumerate() if t.ident not in before and not t.name.startswith("test-")
    ]
    time.sleep(LIMITS.request_deadline_s + 1.5)  # every trickler has outlived the request deadline
    stop.set()
    attacker.join(timeout=30)
    assert results == [200] * len(results)
    assert server_threads == []  # the server runs on the one thread it started with
    assert cut[0] >= 250  # slow clients are cut (evicted or timed out), not kept


def test_port_in_use_names_the_setting() -> None:
    """A port already taken is a one-line ConfigError naming metrics_port."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        with pytest.raises(ConfigError, match=r"^metrics_port: cannot listen on 127\.0\.0\.1:\d+"):
            with MetricsServer(CollectorRegistry(), Health(), "127.0.0.1", port):
                pass
    finally:
        taken.close()


def test_unresolvable_host_names_the_setting() -> None:
    """A host that does not resolve is a one-line ConfigError naming metrics_host."""
    with pytest.raises(ConfigError, match="^metrics_host: cannot resolve 'no-such-host.invalid'"):
        with MetricsServer(CollectorRegistry(), Health(), "no-such-host.invalid", 0):
            pass
