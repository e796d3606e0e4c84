"""Metrics endpoint under attack: scrape latency with 64 concurrent scrapers, quiet vs during a slowloris.

Prints one JSON line: p50/p99 scrape latency (wall, ms) in both conditions, their ratio, the server's
thread count during the attack (the server runs one thread whatever the clients), and how many
trickling connections were cut. The goal is p99 under attack < 1 s; as every timing here, it is
reported, never asserted.
"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from prometheus_client import CollectorRegistry, Counter

from monitor.http import BoundedServer
from monitor.server import Health, metrics_app

pytestmark = [pytest.mark.bench, pytest.mark.timeout(300)]
SCRAPERS = 64
SCRAPES = 64 * 20
SLOW_CONNECTIONS = 400


def _scrape(port: int) -> float:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return (time.perf_counter() - started) * 1000


def _latencies(port: int) -> list[float]:
    with ThreadPoolExecutor(max_workers=SCRAPERS, thread_name_prefix="bench-scraper") as pool:
        return sorted(pool.map(lambda _: _scrape(port), range(SCRAPES)))


def _p(values: list[float], q: float) -> float:
    return round(values[min(len(values) - 1, int(q * len(values)))], 2)


def _trickle(port: int, stop: threading.Event, cut: list[int]) -> None:
    socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(SLOW_CONNECTIONS)]
    for sock in socks:
        sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    while not stop.is_set() and socks:
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


def test_bench_metrics_endpoint_under_slowloris() -> None:
    registry = CollectorRegistry()
    for n in range(200):
        Counter(f"series_{n}", "A series.", ["label"], registry=registry).labels("x").inc()
    with BoundedServer(metrics_app(registry, Health()), "127.0.0.1", 0) as server:
        quiet = _latencies(server.port)
        stop, cut = threading.Event(), [0]
        attacker = threading.Thread(target=_trickle, args=(server.port, stop, cut), name="bench-slowloris")
        attacker.start()
        time.sleep(1.0)
        attacked = _latencies(server.port)
        threads = sum(1 for t in threading.enumerate() if not t.name.startswith(("bench-", "MainThread")))
        stop.set()
        attacker.join(timeout=30)
    line = {
        "bench": "metrics_endpoint_slowloris",
        "scrapers": SCRAPERS,
        "slow_connections": SLOW_CONNECTIONS,
        "quiet_p50_ms": _p(quiet, 0.5),
        "quiet_p99_ms": _p(quiet, 0.99),
        "attacked_p50_ms": _p(attacked, 0.5),
        "attacked_p99_ms": _p(attacked, 0.99),
        "p99_ratio": round(_p(attacked, 0.99) / max(_p(quiet, 0.99), 1e-9), 2),
        "mean_attacked_ms": round(statistics.fmean(attacked), 2),
        "threads_besides_the_test": threads,
        "slow_connections_cut": cut[0],
    }
    print("\n" + json.dumps(line))
