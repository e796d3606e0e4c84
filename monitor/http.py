"""A bounded HTTP/1.1 server for ASGI apps, on its own thread: the metrics endpoint and the review web app.

A monitor's endpoint must answer its scraper while something on the network misbehaves, so every way a
client can hold the server is bounded:

- connections: ``max_connections``; past it, the oldest connection that is only waiting (idle between
  requests, or still sending its headers, after it was read once) is closed to make room, so a
  slowloris cannot starve a scraper; at twice the cap, with no such connection, a newcomer gets a 503;
- time: a request must arrive whole within ``request_deadline_s`` of its first byte, an idle keep-alive
  connection is closed after ``idle_timeout_s``, a response must be taken within the same deadline;
- size: headers over ``max_header_bytes``, bodies over ``max_body_bytes`` are refused (431, 413).

One thread runs one event loop for every connection, so the thread count does not grow with clients.
Parsing is h11's (the sans-I/O HTTP/1.1 implementation uvicorn uses). uvicorn itself is not used: it
has no deadline for receiving a request (its keep-alive timer restarts on every byte; uvicorn issue 157),
which is exactly what a slowloris exploits.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import unquote_to_bytes

import h11
import structlog

from monitor.exceptions import ConfigError

log = structlog.get_logger(__name__)
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_CONNECTIONS = 256
DEFAULT_REQUEST_DEADLINE_S = 5.0
DEFAULT_IDLE_TIMEOUT_S = 10.0
DEFAULT_MAX_HEADER_BYTES = 16 * 1024
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
_READ = 64 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one server."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    request_deadline_s: float = DEFAULT_REQUEST_DEADLINE_S
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


@dataclass(eq=False, slots=True)
class _Conn:
    writer: asyncio.StreamWriter
    opened: float = field(default_factory=time.monotonic)
    busy: bool = False  # a whole request arrived and the app is answering it
    read_once: bool = False  # its handler has read from it: it had its chance to send a request

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class BoundedServer:
    """Serves ``app`` on ``host:port`` from a daemon thread until closed; use it as a context manager.

    ``setting`` names the configuration field the address came from, so a port in use or a host that
    does not resolve is reported as one line naming it (``ConfigError``).
    """

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        *,
        limits: Limits = Limits(),  # noqa: B008 - a frozen value object
        name: str = "ragmon-http",
        setting: str = "metrics",
    ) -> None:
        self.app, self.host, self.limits, self.setting = app, host, limits, setting
        self._requested_port = port
        self._conns: set[_Conn] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self.refused = 0  # connections turned away or evicted (tests and logs)

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return int(self._server.sockets[0].getsockname()[1])

    def __enter__(self) -> BoundedServer:
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._thread.is_alive() and self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5.0)

    def _serve(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            self._server = loop.run_until_complete(self._start())
        except BaseException as exc:  # noqa: BLE001 - handed to the starting thread, raised there
            self._error = exc
            loop.close()
            self._ready.set()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            for conn in list(self._conns):
                conn.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(self._server.wait_closed())
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _start(self) -> asyncio.Server:
        where = f"{self.host}:{self._requested_port}"
        try:
            return await asyncio.start_server(
                self._handle,
                self.host,
                self._requested_port,
                backlog=self.limits.max_connections,
                limit=_READ,
            )
        except socket.gaierror as exc:
            raise ConfigError(f"{self.setting}_host: cannot resolve {self.host!r}: {exc.strerror}") from exc
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ConfigError(f"{self.setting}_port: cannot listen on {where}: {reason}") from exc

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = _Conn(writer)
        if not self._admit(conn):
            self.refused += 1
            await self._reply_and_close(writer, 503, b"busy: too many connections\n")
            return
        self._conns.add(conn)
        try:
            await self._converse(conn, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError, h11.ProtocolError):
            pass
        except Exception:  # noqa: BLE001 - a bug on one connection must not take the endpoint down
            log.exception("http_connection_failed")
        except asyncio.CancelledError:
            # Only at shutdown. Ending normally: asyncio's stream callback calls task.exception(),
            # which raises on a cancelled task inside a loop callback.
            pass
        finally:
            self._conns.discard(conn)
            conn.close()

    def _admit(self, conn: _Conn) -> bool:
        """Room for one more: past the cap, close the oldest connection that is only waiting (idle, or
        still sending its headers) and has been read at least once, so a connection accepted in the
        same burst as the newcomer keeps its chance to send its request. The hard cap is twice the soft
        one."""
        count = len(self._conns)
        if count < self.limits.max_connections:
            return True
        waiting = [c for c in self._conns if not c.busy and c.read_once]
        if waiting:
            oldest = min(waiting, key=lambda c: c.opened)
            self._conns.discard(oldest)
            oldest.close()
            self.refused += 1
            return True
        return count < 2 * self.limits.max_connections

    async def _converse(
        self, conn: _Conn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        h = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.max_header_bytes)
        while True:
            try:
                request, body = await self._receive(h, reader, conn)
            except _Refused as refused:
                await self._reply_and_close(writer, refused.status, f"{refused}\n".encode())
                return
            if request is None:
                return
            conn.busy = True
            await self._respond(h, writer, request, body)
            conn.busy = False
            if h.our_state is not h11.DONE or h.their_state is not h11.DONE:
                return
            h.start_next_cycle()
            conn.opened = time.monotonic()

    async def _receive(
        self, h: h11.Connection, reader: asyncio.StreamReader, conn: _Conn
    ) -> tuple[h11.Request | None, bytes]:
        """One whole request: the first byte within the idle timeout, the rest within the deadline."""
        request: h11.Request | None = None
        body = bytearray()
        deadline: float | None = None
        head = 0  # bytes read before the request line and headers were complete
        while True:
            try:
                event = h.next_event()
            except h11.RemoteProtocolError as exc:
                raise _Refused(exc.error_status_hint, f"bad request: {exc}") from exc
            if event is h11.NEED_DATA:
                wait = self.limits.idle_timeout_s if deadline is None else deadline - time.monotonic()
                data = await asyncio.wait_for(reader.read(_READ), max(wait, 0.0))
                conn.read_once = True
                if deadline is None:
                    deadline = time.monotonic() + self.limits.request_deadline_s
                head += len(data) if request is None else 0
                if head > self.limits.max_header_bytes + _READ:
                    raise _Refused(431, "request headers too large")
                h.receive_data(data)
                if not data and request is None:
                    return None, b""
                continue
            if isinstance(event, h11.Request):
                request = event
                if sum(len(k) + len(v) + 4 for k, v in event.headers) > self.limits.max_header_bytes:
                    raise _Refused(431, "request headers too large")
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > self.limits.max_body_bytes:
                    raise _Refused(413, "request body too large")
            elif isinstance(event, h11.EndOfMessage):
                return request, bytes(body)
            elif isinstance(event, h11.ConnectionClosed):
                return None, b""

    async def _respond(
        self, h: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
    ) -> None:
        status, headers, chunks = await self._call_app(request, body, writer)
        if not any(name.lower() == b"content-length" for name, _ in headers):
            headers.append((b"content-length", str(sum(len(c) for c in chunks)).encode()))
        out = h.send(h11.Response(status_code=status, headers=headers)) or b""
        out += b"".join(h.send(h11.Data(data=chunk)) or b"" for chunk in chunks if chunk)
        out += h.send(h11.EndOfMessage()) or b""
        writer.write(out)
        await asyncio.wait_for(writer.drain(), self.limits.request_deadline_s)

    async def _call_app(
        self, request: h11.Request, body: bytes, writer: asyncio.StreamWriter
    ) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]]:
        target = request.target
        path, _, query = target.partition(b"?")
        peer = writer.get_extra_info("peername") or ("", 0)
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": request.http_version.decode(),
            "method": request.method.decode(),
            "scheme": "http",
            # ASGI: percent-escapes decoded (a trace id in a review URL); raw_path keeps them.
            "path": unquote_to_bytes(path).decode("utf-8", errors="replace"),
            "raw_path": path,
            "query_string": query,
            "root_path": "",
            "headers": [(name.lower(), value) for name, value in request.headers],
            "client": (peer[0], peer[1]),
            "server": (self.host, self.port),
        }
        response: dict[str, Any] = {"status": 500, "headers": [], "chunks": []}
        sent_body = False
        answered = asyncio.Event()

        async def receive() -> Message:
            nonlocal sent_body
            if sent_body:
                # ASGI: a second receive waits for the disconnect. The response is buffered, so the
                # client is gone for the app once it has answered (Starlette's file and streaming
                # responses listen for this and would otherwise stop at once).
                await answered.wait()
                return {"type": "http.disconnect"}
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                response["status"] = int(message["status"])
                response["headers"] = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body":
                response["chunks"].append(bytes(message.get("body", b"")))

        try:
            await self.app(scope, receive, send)
        except Exception:  # noqa: BLE001 - one failing request answers 500; the server goes on
            return 500, [(b"content-type", b"text/plain; charset=utf-8")], [b"internal error\n"]
        finally:
            answered.set()
        return response["status"], response["headers"], response["chunks"]

    async def _reply_and_close(self, writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
        head = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n".encode()
        head += b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        head += f"content-length: {len(body)}\r\n\r\n".encode()
        with contextlib.suppress(Exception):
            writer.write(head + body)
            await asyncio.wait_for(writer.drain(), 1.0)
        with contextlib.suppress(Exception):
            writer.close()


_REASONS = {
    400: "Bad Request",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}
