"""ChatClient protocol handling, scripted with httpx.MockTransport: retries, circuit, parsing, secrets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, TypeVar

import httpx
import pytest
import structlog
from pydantic import BaseModel, SecretStr

from monitor.exceptions import JudgeOutputInvalid, JudgeRateLimited, JudgeTimeout, JudgeUnavailable
from monitor.judge import client as client_module
from monitor.judge.client import (
    ChatClient,
    ChatClientSettings,
    CircuitBreaker,
    parse_output,
    retry_after_seconds,
    strict_schema,
)
from monitor.judge.prompts import GroundingOut, RelevanceOut

T = TypeVar("T")
KEY = "sk-test-UNIT-4b1d-secret"
SETTINGS = ChatClientSettings(
    base_url="http://judge.invalid/v1",
    model="gpt-test",
    api_key=KEY,
    max_retries=2,
    backoff_base_s=0.001,
    backoff_max_s=0.005,
    circuit_failures=3,
    circuit_cooldown_s=60.0,
)
MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "data"}]


@pytest.fixture(autouse=True)
def _forget_output_modes() -> None:
    """Every test starts with nothing learned about the scripted endpoint."""
    client_module._ENDPOINT_MODES.clear()


class Answer(BaseModel):
    verdict: bool
    reasons: list[str]


Step = httpx.Response | Exception


class Script:
    """Hands out scripted responses in order and records every request."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else ok('{"verdict": true, "reasons": []}')
        if isinstance(step, Exception):
            raise step
        return step

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def ok(content: str, prompt: int = 11, completion: int = 7) -> httpx.Response:
    body = {
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
    }
    return httpx.Response(200, json=body)


def run(factory: Callable[[ChatClient], Coroutine[Any, Any, T]], script: Script, **overrides: Any) -> T:
    async def main() -> T:
        transport = httpx.MockTransport(script)
        async with ChatClient(replace(SETTINGS, **overrides), transport=transport) as client:
            return await factory(client)

    return asyncio.run(main())


def complete(client: ChatClient) -> Coroutine[Any, Any, tuple[Answer, Any]]:
    return client.complete(MESSAGES, Answer)


def test_success_returns_the_parsed_model_and_server_usage() -> None:
    """A 200 reply is validated into the schema; calls and tokens come from the server's usage."""
    script = Script(ok('{"verdict": false, "reasons": ["x"]}', prompt=120, completion=30))
    answer, usage = run(complete, script)
    assert answer == Answer(verdict=False, reasons=["x"])
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 120, 30)


def test_request_shape_bearer_key_model_and_schema() -> None:
    """The request carries the bearer key, the model, temperature 0 and a strict json_schema."""
    script = Script()
    run(complete, script)
    request, body = script.requests[0], script.bodies()[0]
    assert request.url.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "gpt-test" and body["temperature"] == 0.0
    assert body["response_format"]["json_schema"]["strict"] is True


def test_azure_style_key_header_extra_query_and_headers() -> None:
    """api_key_header sends the bare key; extra_query and extra_headers reach every request."""
    script = Script()
    run(
        complete,
        script,
        api_key=SecretStr(KEY),
        api_key_header="api-key",
        extra_query={"api-version": "2024-10-21"},
        extra_headers={"x-team": "rag"},
    )
    request = script.requests[0]
    assert request.headers["api-key"] == KEY and "authorization" not in request.headers
    assert request.url.params["api-version"] == "2024-10-21"
    assert request.headers["x-team"] == "rag"


def test_json_schema_off_sends_no_response_format() -> None:
    """json_schema='off' relies on instructions and tolerant parsing only."""
    script = Script()
    run(complete, script, json_schema="off")
    assert "response_format" not in script.bodies()[0]


def _format(body: dict[str, Any]) -> str:
    fmt = body.get("response_format")
    if fmt is None:
        return "prompt"
    return "json_object_schema" if fmt["type"] == "json_object" and "schema" in fmt else fmt["type"]


def test_json_schema_auto_falls_back_once_and_remembers() -> None:
    """A 400 on json_schema moves auto mode to llama-cpp's json_object+schema, for later calls too."""
    script = Script(httpx.Response(400, json={"error": {"message": "response_format not supported"}}))

    async def twice(client: ChatClient) -> None:
        await complete(client)
        await complete(client)

    run(twice, script)
    assert [_format(b) for b in script.bodies()] == [
        "json_schema",
        "json_object_schema",
        "json_object_schema",
    ]
    schema = script.bodies()[1]["response_format"]["schema"]
    assert schema == strict_schema(Answer)


def test_llama_cpp_500_on_response_format_falls_back_without_opening_the_circuit() -> None:
    """llama-cpp-python's HTTP 500 naming response_format is a refused form, not a sick server."""
    refused = {
        "error": {
            "message": "[{'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\"}]"
        }
    }
    script = Script(*[httpx.Response(500, json=refused)] * 3)

    async def three(client: ChatClient) -> str:
        for _ in range(3):
            await complete(client)
        return client.state

    assert run(three, script, circuit_failures=1) == "closed"
    assert [_format(b) for b in script.bodies()] == [
        "json_schema",
        "json_object_schema",
        "json_object",
        "prompt",
        "prompt",
        "prompt",
    ]


def test_the_learned_form_is_remembered_per_endpoint() -> None:
    """A second client for the same endpoint starts where the first one landed; another model does not."""
    run(complete, Script(httpx.Response(400, json={"error": {"message": "json_schema unsupported"}})))
    again = Script()
    run(complete, again)
    other = Script()
    run(complete, other, model="another-model")
    assert [_format(b) for b in again.bodies()] == ["json_object_schema"]
    assert [_format(b) for b in other.bodies()] == ["json_schema"]


def test_server_error_carries_the_servers_message() -> None:
    """A 5xx that is not about the output form keeps its retries, and its text reaches the error."""
    script = Script(*[httpx.Response(503, text="model is loading, try later")] * 3)
    with pytest.raises(JudgeUnavailable, match="503: model is loading, try later"):
        run(complete, script)
    detail = Script(*[httpx.Response(500, json={"detail": "CUDA out of memory"})] * 3)
    with pytest.raises(JudgeUnavailable, match="CUDA out of memory"):
        run(complete, detail)


def test_json_schema_on_does_not_fall_back() -> None:
    """json_schema='on' treats a 400 as a rejected request, without retrying."""
    script = Script(httpx.Response(400, json={"error": {"message": "bad schema"}}))
    with pytest.raises(JudgeUnavailable, match="bad schema"):
        run(complete, script, json_schema="on")
    assert len(script.requests) == 1


def test_server_error_then_success_is_retried() -> None:
    """A 500 is retried; only the successful call counts as a call."""
    script = Script(httpx.Response(500), httpx.Response(503), ok('{"verdict": true, "reasons": []}'))
    _, usage = run(complete, script)
    assert len(script.requests) == 3 and usage.calls == 1


def test_persistent_server_errors_raise_unavailable() -> None:
    """After max_retries the last 5xx leaves as JudgeUnavailable."""
    script = Script(*[httpx.Response(500)] * 3)
    with pytest.raises(JudgeUnavailable, match="500"):
        run(complete, script)
    assert len(script.requests) == 3


def test_persistent_429_raises_rate_limited() -> None:
    """429 on every attempt leaves as JudgeRateLimited."""
    script = Script(*[httpx.Response(429, headers={"Retry-After": "0"})] * 3)
    with pytest.raises(JudgeRateLimited):
        run(complete, script)
    assert len(script.requests) == 3


def test_retry_after_beyond_the_cap_fails_fast() -> None:
    """A Retry-After longer than retry_after_max_s is not slept through."""
    script = Script(httpx.Response(429, headers={"Retry-After": "3600"}))
    with pytest.raises(JudgeRateLimited):
        run(complete, script)
    assert len(script.requests) == 1


def test_timeouts_are_retried_then_raise_judge_timeout() -> None:
    """httpx timeouts are retried and finally translated to JudgeTimeout, chained to the cause."""
    script = Script(*[httpx.ReadTimeout("slow")] * 3)
    with pytest.raises(JudgeTimeout) as info:
        run(complete, script)
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    assert len(script.requests) == 3


def test_connection_errors_raise_unavailable() -> None:
    """A refused connection is retried and leaves as JudgeUnavailable."""
    script = Script(*[httpx.ConnectError("refused")] * 3)
    with pytest.raises(JudgeUnavailable, match="ConnectError"):
        run(complete, script)


def test_unauthorized_is_not_retried_and_hides_the_server_message() -> None:
    """401 fails at once; the server's message (which may echo the key) is not repeated."""
    script = Script(httpx.Response(401, json={"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with pytest.raises(JudgeUnavailable) as info:
        run(complete, script)
    assert len(script.requests) == 1 and KEY not in str(info.value)


def test_rejected_request_message_is_scrubbed_of_the_key() -> None:
    """A 4xx message that echoes the key is shown with the key masked."""
    script = Script(httpx.Response(404, json={"error": {"message": f"model not found for {KEY}"}}))
    with pytest.raises(JudgeUnavailable, match="model not found") as info:
        run(complete, script)
    assert KEY not in str(info.value)


def test_malformed_output_is_repaired_once() -> None:
    """Invalid JSON triggers one repair call that echoes the reply and names the error."""
    script = Script(ok('{"verdict": "maybe"}'), ok('```json\n{"verdict": true, "reasons": []}\n```'))
    answer, usage = run(complete, script)
    assert answer.verdict is True and usage.calls == 2 and usage.prompt_tokens == 22
    repair = script.bodies()[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"verdict": "maybe"}'}
    assert "verdict" in repair[-1]["content"]


def test_malformed_twice_raises_output_invalid() -> None:
    """A second invalid reply raises JudgeOutputInvalid; no third call is made."""
    script = Script(ok("no json here"), ok('{"verdict": true}'))
    with pytest.raises(JudgeOutputInvalid, match="reasons"):
        run(complete, script)
    assert len(script.requests) == 2


def test_non_chat_completion_body_is_output_invalid() -> None:
    """A 200 that is not a chat completion is a protocol error, not a retry."""
    script = Script(httpx.Response(200, text="<html>proxy login</html>"))
    with pytest.raises(JudgeOutputInvalid, match="not a chat completion"):
        run(complete, script)


def test_circuit_opens_after_consecutive_failures_and_stops_calling() -> None:
    """After circuit_failures failed attempts the client refuses without touching the server."""
    script = Script(*[httpx.Response(500)] * 10)

    async def scenario(client: ChatClient) -> tuple[str, int]:
        with pytest.raises(JudgeUnavailable):
            await complete(client)
        state, sent = client.state, len(script.requests)
        with pytest.raises(JudgeUnavailable, match="circuit is open"):
            await complete(client)
        assert len(script.requests) == sent
        return state, sent

    state, sent = run(scenario, script, max_retries=5)
    assert state == "open" and sent == 3


def test_breaker_half_open_admits_one_probe() -> None:
    """After the cool-down one probe goes out; success closes, failure reopens the circuit."""
    now = [0.0]
    breaker = CircuitBreaker(failures=2, cooldown_s=10.0, clock=lambda: now[0])

    async def scenario() -> None:
        breaker.failure(probe=False)
        assert breaker.state == "closed"
        breaker.failure(probe=False)
        assert breaker.state == "open"
        with pytest.raises(JudgeUnavailable):
            await breaker.acquire()
        now[0] = 10.0
        assert breaker.state == "half_open"
        assert await breaker.acquire() is True
        waiter = asyncio.ensure_future(breaker.acquire())
        await asyncio.sleep(0)
        assert not waiter.done(), "a second caller waits for the probe's outcome"
        breaker.failure(probe=True)
        with pytest.raises(JudgeUnavailable):
            await waiter
        assert breaker.state == "open"
        now[0] = 20.0
        probe = await breaker.acquire()
        waiter = asyncio.ensure_future(breaker.acquire())
        await asyncio.sleep(0)
        breaker.success(probe)
        assert await waiter is False and breaker.state == "closed"

    asyncio.run(scenario())


def test_breaker_counts_consecutive_failures_only() -> None:
    """A success in between resets the count."""
    breaker = CircuitBreaker(failures=2, cooldown_s=1.0)
    breaker.failure(probe=False)
    breaker.success(probe=False)
    breaker.failure(probe=False)
    assert breaker.state == "closed"


def test_using_a_closed_client_raises() -> None:
    """complete() after aclose() is a programming error."""

    async def scenario() -> None:
        client = ChatClient(SETTINGS, transport=httpx.MockTransport(Script()))
        await client.aclose()
        with pytest.raises(RuntimeError, match="closed"):
            await complete(client)

    asyncio.run(scenario())


def test_key_stays_out_of_reprs_logs_and_errors() -> None:
    """The API key appears in no repr, no log event and no exception text, even on failures."""
    script = Script(httpx.Response(500), httpx.ReadTimeout("t"), httpx.Response(429), httpx.Response(500))
    client = ChatClient(SETTINGS, transport=httpx.MockTransport(script))
    assert KEY not in repr(SETTINGS) and KEY not in repr(client)
    with structlog.testing.capture_logs() as logs, pytest.raises(JudgeUnavailable) as info:
        run(complete, script, max_retries=3, circuit_failures=10)
    assert logs, "retries should have been logged"
    texts = [str(info.value), repr(info.value), str(info.value.__cause__), json.dumps(logs, default=str)]
    assert all(KEY not in t for t in texts)
    asyncio.run(client.aclose())


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"verdict": true, "reasons": ["a"]}', True),
        ('```json\n{"verdict": false, "reasons": []}\n```', False),
        ('Here you go:\n{"verdict": true, "reasons": []}\nThanks!', True),
        ('```\n{"verdict": true, "reasons": [], "score": 1.0}\n```', True),
    ],
)
def test_parse_output_tolerates_fences_and_prose(content: str, expected: bool) -> None:
    """Fenced, prose-wrapped or extra-keyed JSON still validates."""
    assert parse_output(content, Answer).verdict is expected


@pytest.mark.parametrize("content", ["", "I cannot help with that.", '{"verdict": true', '{"reasons": []}'])
def test_parse_output_rejects_invalid(content: str) -> None:
    """No JSON object, truncated JSON or a missing field is a ValueError."""
    with pytest.raises(ValueError):
        parse_output(content, Answer)


@pytest.mark.parametrize("schema", [GroundingOut, RelevanceOut, Answer])
def test_strict_schema_is_openai_strict_compatible(schema: type[BaseModel]) -> None:
    """Every object lists all its properties as required and forbids extra keys; no titles."""

    def objects(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, list):
            return [o for item in node for o in objects(item)]
        if not isinstance(node, dict):
            return []
        own = [node] if "properties" in node else []
        return (
            own
            + [o for k, v in node.items() if k != "properties" for o in objects(v)]
            + [o for v in node.get("properties", {}).values() for o in objects(v)]
        )

    tree = strict_schema(schema)
    assert '"title"' not in json.dumps(tree)
    for obj in objects(tree):
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
        assert "title" not in obj


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_parsing(headers: dict[str, str], expected: float | None) -> None:
    """Retry-After as seconds, milliseconds or a past HTTP date; garbage is ignored."""
    assert retry_after_seconds(httpx.Headers(headers)) == expected
