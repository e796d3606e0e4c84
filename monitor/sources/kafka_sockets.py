"""Close the socket of a failed Kafka connection attempt (kafka-python 3.0 leaves it open).

``kafka.net.inet.KafkaNetSocket.sock_connect`` raises on a refused or timed-out connect without closing
the socket it was given, and ``create_connection`` drops it: every failed attempt leaks a file
descriptor. A daemon retrying through a broker outage runs out of them in hours, and the garbage
collector's ``ResourceWarning`` made a test fail at random under load. ``install()`` wraps the method so
the socket is closed on any failure; it is applied once, when ragmon's Kafka source is imported.
Remove it once kafka-python closes the socket itself (tests/integration/test_kafka_sockets.py).
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from typing import Any

from kafka.net import inet

_MARK = "_ragmon_closes_failed_sockets"


def install() -> None:
    """Wrap ``KafkaNetSocket.sock_connect`` once per process."""
    cls: Any = inet.KafkaNetSocket
    if getattr(cls.sock_connect, _MARK, False):
        return
    original: Callable[..., Awaitable[socket.socket]] = cls.sock_connect

    async def sock_connect(
        self: Any, net: Any, sock: socket.socket, *args: Any, **kwargs: Any
    ) -> socket.socket:
        try:
            return await original(self, net, sock, *args, **kwargs)
        except BaseException:
            sock.close()
            raise

    setattr(sock_connect, _MARK, True)
    cls.sock_connect = sock_connect


install()
