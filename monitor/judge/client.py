"""An OpenAI-compatible Chat Completions client for the judge: one pooled httpx.AsyncClient, bounded
concurrency, retries with backoff and jitter (honouring Retry-After), a circuit breaker, and
structured output validated with pydantic plus one repair retry.

Works unchanged against OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server and LiteLLM
(docs/judge-endpoints.md). Failures leave as ``monitor.exceptions`` judge errors; the API key never
appears in a repr, a log line or an error message.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import httpx
import structlog
from pydantic import BaseModel, SecretStr, ValidationError

from monitor.exceptions import (
    JudgeError,
    JudgeOutputInvalid,
    JudgeRateLimited,
    JudgeTimeout,
    JudgeUnavailable,
)
from monitor.judge.base import Usage
from monitor.judge.prompts import REPAIR_USER, Message

log = structlog.get_logger(__name__)

T = TypeVar("T", bound=BaseModel)
JsonSchemaMode = Literal["auto", "on", "off"]
# How the reply's structure is asked for, best first: OpenAI's json_schema, llama-cpp-python's
# json_object with a schema, a plain JSON object, then the prompt's instructions alone.
OutputMode = Literal["json_schema", "json_object_schema", "json_object", "prompt"]
OUTPUT_MODES: tuple[OutputMode, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")
CircuitState = Literal["closed", "open", "half_open"]

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_CONNECT_TIMEOUT_S = 5.0
MAX_REPAIR_ECHO_CHARS = 4000
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
# What each endpoint (base URL, model) accepted, learned once per process and shared by its clients.
_ENDPOINT_MODES: dict[tuple[str, str], OutputMode] = {}
_DROP_SCHEMA_KEYS = {"title", "default", "minLength", "maxLength", "minItems", "maxItems", "description"}


@dataclass(frozen=True, slots=True)
class ChatClientSettings:
    """Where and how to call the judge model; ``api_key`` and ``extra_headers`` are kept out of reprs."""

    base_url: str
    model: str
    api_key: str | SecretStr | None = field(default=None, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_concurrency: int = 16
    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    circuit_failures: int = 5
    circuit_cooldown_s: float = 30.0
    extra_headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    extra_query: Mapping[str, str] = field(default_factory=dict)
    json_schema: JsonSchemaMode = "auto"
    # "Authorization" sends "Bearer <key>"; any other name (Azure: "api-key") sends the bare key.
    api_key_header: str = "Authorization"
    temperature: float | None = 0.0
    # A Retry-After longer than this fails fast as JudgeRateLimited instead of parking the trace.
    retry_after_max_s: float = 60.0


class CircuitBreaker:
    """Stops calls after ``failures`` consecutive failures; after ``cooldown_s`` lets one probe through.

    While the probe is out, other callers wait for its outcome instead of failing, so the two calls
    of one judged trace do not split into a probe and a refusal.
    """

    def __init__(self, failures: int, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._threshold = failures
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._probe: asyncio.Event | None = None

    @property
    def state(self) -> CircuitState:
        if self._opened_at is None:
            return "closed"
        return "half_open" if self._clock() - self._opened_at >= self._cooldown_s else "open"

    async def acquire(self) -> bool:
        """Wait until a call may go out and return whether it is the half-open probe; raise if open."""
        while True:
            state = self.state
            if state == "closed":
                return False
            if state == "open":
                raise JudgeUnavailable(
                    "judge circuit is open after repeated failures; not calling the server"
                )
            if self._probe is None:
                self._probe = asyncio.Event()
                return True
            await self._probe.wait()

    def success(self, probe: bool) -> None:
        self._failures, self._opened_at = 0, None
        self._end_probe()

    def failure(self, probe: bool) -> None:
        self._failures += 1
        if probe or self._failures >= self._threshold:
            if probe or self._opened_at is None:
                log.warning("judge_circuit_opened", consecutive_failures=self._failures)
            self._opened_at = self._clock()
        if probe:
            self._end_probe()

    def release(self, probe: bool) -> None:
        """End a call that neither proved nor disproved the server's health (429, 4xx, cancellation)."""
        if probe:
            self._end_probe()

    def _end_probe(self) -> None:
        if self._probe is not None:
            self._probe.set()
            self._probe = None


@dataclass(slots=True)
class _Attempt:
    """What one HTTP attempt produced: content on success, else an error and whether to retry."""

    content: str | None = None
    error: JudgeError | None = None
    cause: BaseException | None = None
    retryable: bool = False
    retry_after_s: float | None = None
    schema_rejected: bool = False


class ChatClient:
    """The judge's only door to the model server; enter it once (``async with``) and share it."""

    def __init__(
        self,
        settings: ChatClientSettings,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._key = _secret(settings.api_key)
        self._endpoint = (settings.base_url.rstrip("/"), settings.model)
        self._mode: OutputMode = {"off": "prompt", "on": "json_schema"}.get(
            settings.json_schema, _ENDPOINT_MODES.get(self._endpoint, "json_schema")
        )  # type: ignore[assignment]  # the dict's values are OutputModes
        self._slots = asyncio.Semaphore(settings.max_concurrency)
        self._breaker = CircuitBreaker(settings.circuit_failures, settings.circuit_cooldown_s, clock)
        self._closed = False
        self.totals = Usage()
        self._http = httpx.AsyncClient(
            base_url=settings.base_url.rstrip("/") + "/",
            headers=self._headers(),
            params=dict(settings.extra_query),
            timeout=httpx.Timeout(
                settings.timeout_s, connect=min(settings.timeout_s, DEFAULT_CONNECT_TIMEOUT_S)
            ),
            limits=httpx.Limits(
                max_connections=settings.max_concurrency, max_keepalive_connections=settings.max_concurrency
            ),
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"<ChatClient {self.settings.model} at {self._http.base_url} circuit={self.state}>"

    @property
    def state(self) -> CircuitState:
        """The circuit breaker's state: ``closed`` (calling), ``open`` (refusing), ``half_open`` (probing)."""
        return self._breaker.state

    @property
    def output_mode(self) -> OutputMode:
        """How structured output is requested now (``auto`` steps down when the server refuses a form)."""
        return self._mode

    @property
    def circuit_open(self) -> bool:
        """True while calls are refused; export as ``ragmon_judge_circuit_open``."""
        return self._breaker.state != "closed"

    async def __aenter__(self) -> ChatClient:
        self._check_open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        await self._http.aclose()

    async def complete(
        self, messages: Sequence[Message], schema: type[T], usage: Usage | None = None
    ) -> tuple[T, Usage]:
        """One structured completion: validated ``schema`` instance and the calls/tokens it cost.

        ``usage``, when given, is added to in place, so spend is counted even when this raises.
        """
        self._check_open()
        spent = usage if usage is not None else Usage()
        content = await self._chat(messages, schema, spent)
        try:
            return parse_output(content, schema), spent
        except ValueError as exc:
            log.info("judge_output_repair", schema=schema.__name__, error=_short_error(exc))
            repair = [
                *messages,
                {"role": "assistant", "content": content[:MAX_REPAIR_ECHO_CHARS]},
                {"role": "user", "content": REPAIR_USER.format(errors=_short_error(exc))},
            ]
        content = await self._chat(repair, schema, spent)
        try:
            return parse_output(content, schema), spent
        except ValueError as exc:
            raise JudgeOutputInvalid(f"{schema.__name__}: invalid after repair: {_short_error(exc)}") from exc

    async def _chat(self, messages: Sequence[Message], schema: type[BaseModel], usage: Usage) -> str:
        attempt = 0
        while True:
            mode = self._mode
            outcome = await self._attempt(self._body(messages, schema, mode), usage)
            if outcome.content is not None:
                return outcome.content
            if outcome.schema_rejected:
                self._step_down(mode)
                continue
            assert outcome.error is not None  # noqa: S101 - an attempt yields content or an error
            delay = self._delay(attempt, outcome)
            if delay is None:
                raise outcome.error from outcome.cause
            log.warning("judge_retry", attempt=attempt + 1, delay_s=round(delay, 3), error=str(outcome.error))
            await asyncio.sleep(delay)
            attempt += 1

    def _delay(self, attempt: int, outcome: _Attempt) -> float | None:
        """Seconds to wait before the next attempt, or ``None`` to give up."""
        s = self.settings
        if not outcome.retryable or attempt >= s.max_retries or self._breaker.state == "open":
            return None
        if outcome.retry_after_s is not None:
            if outcome.retry_after_s > s.retry_after_max_s:
                return None
            return outcome.retry_after_s + random.uniform(0, s.backoff_base_s)  # noqa: S311 - jitter
        cap = min(s.backoff_max_s, s.backoff_base_s * 2.0**attempt)
        return cap / 2 + random.uniform(0, cap / 2)  # noqa: S311 - jitter, not crypto

    async def _attempt(self, body: dict[str, Any], usage: Usage) -> _Attempt:
        probe = await self._breaker.acquire()
        try:
            async with self._slots:
                response = await self._http.post("chat/completions", json=body)
        except httpx.TimeoutException as exc:
            self._breaker.failure(probe)
            return _Attempt(
                error=JudgeTimeout(f"judge timed out after {self.settings.timeout_s}s"),
                cause=exc,
                retryable=True,
            )
        except httpx.RequestError as exc:
            self._breaker.failure(probe)
            error = JudgeUnavailable(f"judge connection failed: {type(exc).__name__}")
            return _Attempt(error=error, cause=exc, retryable=True)
        except BaseException:
            self._breaker.release(probe)
            raise
        return self._classify(response, body, usage, probe)

    def _classify(
        self, response: httpx.Response, body: dict[str, Any], usage: Usage, probe: bool
    ) -> _Attempt:
        status = response.status_code
        if status == 200:
            self._breaker.success(probe)
            return _Attempt(content=self._content(response, usage))
        if (
            status in (400, 422, 500)
            and "response_format" in body
            and self.settings.json_schema == "auto"
            and _rejects_format(response)
        ):
            # llama-cpp-python answers an unknown response_format with a 500: not a sick server.
            self._breaker.release(probe)
            log.warning("judge_output_format_unsupported", status=status, detail=self._detail(response)[2:])
            return _Attempt(schema_rejected=True)
        if status >= 500:
            self._breaker.failure(probe)
            error = JudgeUnavailable(f"judge server error {status}{self._detail(response)}")
            return _Attempt(error=error, retryable=True)
        self._breaker.release(probe)
        if status == 429:
            return _Attempt(
                error=JudgeRateLimited("judge rate limited (429)"),
                retryable=True,
                retry_after_s=retry_after_seconds(response.headers),
            )
        return _Attempt(error=JudgeUnavailable(f"judge request rejected ({status}){self._detail(response)}"))

    def _content(self, response: httpx.Response, usage: Usage) -> str:
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            counts = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise JudgeOutputInvalid("judge response is not a chat completion") from exc
        for target in (usage, self.totals):
            target.calls += 1
            target.prompt_tokens += _int(counts.get("prompt_tokens"))
            target.completion_tokens += _int(counts.get("completion_tokens"))
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, str) else ""

    def _detail(self, response: httpx.Response) -> str:
        """The server's error message for a rejected request, minus anything that could be the key."""
        if response.status_code in (401, 403):
            return ""
        message = _error_text(response)[:300]
        if not message:
            return ""
        return ": " + (message.replace(self._key, "***") if self._key else message)

    def _step_down(self, rejected: OutputMode) -> None:
        """The server refused ``rejected``: use the next form, for this endpoint, from now on."""
        following = OUTPUT_MODES[min(OUTPUT_MODES.index(rejected) + 1, len(OUTPUT_MODES) - 1)]
        if OUTPUT_MODES.index(following) > OUTPUT_MODES.index(self._mode):
            self._mode = following
            _ENDPOINT_MODES[self._endpoint] = following
            log.info("judge_output_mode", endpoint=self._endpoint[0], mode=following)

    def _body(self, messages: Sequence[Message], schema: type[BaseModel], mode: OutputMode) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.settings.model, "messages": list(messages)}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "strict": True, "schema": strict_schema(schema)},
            }
        elif mode == "json_object_schema":
            body["response_format"] = {"type": "json_object", "schema": strict_schema(schema)}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _headers(self) -> dict[str, str]:
        headers = dict(self.settings.extra_headers)
        if self._key:
            name = self.settings.api_key_header
            headers[name] = f"Bearer {self._key}" if name.lower() == "authorization" else self._key
        return headers

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("ChatClient is closed")


def parse_output(content: str, schema: type[T]) -> T:
    """Validate the model's JSON, tolerating ```json fences and prose around one JSON object."""
    text = content.strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith("{"):
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start:
            raise ValueError("no JSON object in the reply")
        text = text[start : end + 1]
    return schema.model_validate_json(text)


@functools.cache
def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in OpenAI strict form: every field required, no extra keys, no titles.

    Cached per schema class (building it costs milliseconds); callers must not mutate the result.
    """
    return _strict(schema.model_json_schema())  # type: ignore[no-any-return]


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in _DROP_SCHEMA_KEYS}
    if "properties" in out:
        out["properties"] = {k: _strict(v) for k, v in node["properties"].items()}
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or a date."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(float(raw_ms) / 1000, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - time.time(), 0.0)


def _short_error(exc: ValueError) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or 'root'}: {e['msg']}" for e in exc.errors()[:3]]
        return "; ".join(parts)
    return str(exc)[:200]


def _secret(value: str | SecretStr | None) -> str | None:
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _rejects_format(response: httpx.Response) -> bool:
    """Whether a 400/422/500 is about structured output, not e.g. a prompt over the context length.

    A 500 must name the field (llama-cpp-python: "... 'response_format', 'type') Input should be 'text'
    or 'json_object'"); a 400/422 may just say "schema" or "structured".
    """
    text = response.text.lower()
    words: tuple[str, ...] = ("response_format", "json_schema", "json_object")
    if response.status_code != 500:
        words += ("schema", "structured")
    return any(word in text for word in words)


def _error_text(response: httpx.Response) -> str:
    """The server's own words: OpenAI's ``error.message``, FastAPI's ``detail``, else the raw body."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message") is not None:
            return str(error["message"])
        if isinstance(error, str):
            return error
        if data.get("detail") is not None:
            return str(data["detail"])
    return response.text.strip()
