"""Failed Kafka connection attempts close their sockets (kafka-python 3.0 leaks them; ragmon closes them)."""

from __future__ import annotations

import gc
import socket
import sys
from typing import Any

import pytest

from tests.support.quiet_kafka import KafkaConsumer, KafkaError

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return port


def test_refused_connects_leak_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """Consumers that cannot reach a broker leave no unclosed socket behind for the garbage collector."""
    leaked: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", leaked.append)
    port = _closed_port()
    for _ in range(2):
        with pytest.raises(KafkaError):
            KafkaConsumer(bootstrap_servers=f"127.0.0.1:{port}", bootstrap_timeout_ms=3000)
    gc.collect()
    assert [repr(u.exc_value) for u in leaked] == []
