"""The LLM judge over real HTTP against the scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import replace
from typing import Any, TypeVar

import pytest
import structlog

from monitor.embeddings import LocalE5Embedder
from monitor.exceptions import (
    JudgeError,
    JudgeOutputInvalid,
    JudgeRateLimited,
    JudgeTimeout,
    JudgeUnavailable,
)
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.cache import VerdictCache
from monitor.judge.client import ChatClient, ChatClientSettings
from monitor.judge.llm import LLMJudge
from monitor.judge.prompts import GROUNDING_SYSTEM, RELEVANCE_SYSTEM
from tests.support.scripted_llm import Recorded, Reply, ScriptedLLM, grounding_json, relevance_json

pytestmark = [pytest.mark.integration, pytest.mark.timeout(30)]

T = TypeVar("T")
KEY = "sk-integration-7f3e-DO-NOT-LEAK"
ITEM = JudgeInput(
    trace_id="t-ret-1",
    question="Đổi trả hàng trong bao nhiêu ngày?",
    answer="Bạn có thể đổi trả trong 7 ngày kể từ khi nhận hàng.",
    chunks=(
        JudgeChunk("c01", "Khách hàng được đổi trả trong 7 ngày kể từ ngày nhận hàng."),
        JudgeChunk("c02", "Phí vận chuyển do cửa hàng chịu khi sản phẩm bị lỗi."),
    ),
    language="vi",
)
CLAIM = "Khách hàng có thể đổi trả trong 7 ngày kể từ khi nhận hàng."
GROUNDED = Reply.json(grounding_json([(CLAIM, True, [1])], [1]))
REVERSE = Reply.json(
    relevance_json(["Đổi trả hàng trong mấy ngày?", "Thời hạn đổi trả là bao lâu?", "Có được đổi trả?"])
)


@pytest.fixture(scope="module")
def embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


@pytest.fixture
def server() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as llm:
        llm.on(GROUNDING_SYSTEM, GROUNDED)
        llm.on(RELEVANCE_SYSTEM, REVERSE)
        yield llm


def settings(server: ScriptedLLM, **overrides: Any) -> ChatClientSettings:
    base = ChatClientSettings(
        base_url=server.base_url,
        model="scripted-judge",
        api_key=KEY,
        timeout_s=2.0,
        max_retries=2,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        circuit_failures=3,
        circuit_cooldown_s=0.3,
    )
    return replace(base, **overrides)


def run(
    server: ScriptedLLM,
    embedder: LocalE5Embedder,
    body: Callable[[LLMJudge, ChatClient], Coroutine[Any, Any, T]],
    **overrides: Any,
) -> T:
    async def main() -> T:
        async with ChatClient(settings(server, **overrides)) as client:
            return await body(LLMJudge(client, embedder, "scripted-judge", VerdictCache()), client)

    return asyncio.run(main())


async def judge_once(judge: LLMJudge, client: ChatClient) -> JudgeResult:
    return await judge.judge(ITEM)


def test_judges_a_trace_over_http(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """Two calls with the bearer key and a json_schema; scores from verdicts; usage from the server."""
    result = run(server, embedder, judge_once)
    assert result.scores.faithfulness == 1.0 and result.scores.context_precision == 1.0
    assert result.scores.context_relevance == 0.5
    assert result.scores.answer_relevance is not None and result.scores.answer_relevance > 0.8
    assert result.usage.calls == 2 == len(server.requests)
    assert result.usage.prompt_tokens > 100 and result.usage.completion_tokens > 10
    for request in server.requests:
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.body["response_format"]["type"] == "json_schema"


def test_429_retry_after_is_honoured(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """After a 429 with Retry-After the next attempt waits at least that long."""
    server.script(GROUNDING_SYSTEM, Reply.rate_limited(0.4))
    result = run(server, embedder, judge_once)
    first, second = (r.received_at for r in server.calls(GROUNDING_SYSTEM))
    assert second - first >= 0.4
    assert result.scores.faithfulness == 1.0 and result.usage.calls == 2


def test_persistent_429_raises_rate_limited(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """429 on every attempt leaves as JudgeRateLimited."""
    server.on(GROUNDING_SYSTEM[:40], Reply.rate_limited(0))
    server.script(GROUNDING_SYSTEM, *[Reply.rate_limited(0)] * 3)
    with pytest.raises(JudgeRateLimited):
        run(server, embedder, judge_once)


def test_server_error_then_success(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """A 500 is retried and the trace is still judged."""
    server.script(RELEVANCE_SYSTEM, Reply.server_error(500), Reply.server_error(502))
    result = run(server, embedder, judge_once)
    assert len(server.calls(RELEVANCE_SYSTEM)) == 3 and result.scores.answer_relevance is not None


def test_timeouts_raise_judge_timeout(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """A server slower than the client timeout on every attempt gives JudgeTimeout."""
    server.script(GROUNDING_SYSTEM, *[Reply(delay_s=1.0)] * 2)
    with pytest.raises(JudgeTimeout):
        run(server, embedder, judge_once, timeout_s=0.2, max_retries=1)
    assert len(server.calls(GROUNDING_SYSTEM)) == 2


def test_timeout_then_success(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """One slow reply is retried."""
    server.script(GROUNDING_SYSTEM, Reply(delay_s=1.0))
    result = run(server, embedder, judge_once, timeout_s=0.2)
    assert result.scores.faithfulness == 1.0


def test_dropped_connection_is_retried(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """A connection closed without a reply is a transport error, retried like a 5xx."""
    server.script(GROUNDING_SYSTEM, Reply(drop=True))
    assert run(server, embedder, judge_once).scores.faithfulness == 1.0


def test_malformed_then_repaired(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """Malformed output gets one repair call, which succeeds; its tokens are counted."""
    server.script(GROUNDING_SYSTEM, Reply.malformed())
    result = run(server, embedder, judge_once)
    repair = server.calls(GROUNDING_SYSTEM)[1]
    assert repair.messages[-2]["role"] == "assistant" and "unfinished" in repair.messages[-2]["content"]
    assert result.usage.calls == 3 and result.scores.faithfulness == 1.0


def test_malformed_twice_is_output_invalid(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """Two malformed replies raise JudgeOutputInvalid after exactly two grounding calls."""
    server.script(GROUNDING_SYSTEM, Reply.malformed(), Reply(content='```json\n{"claims": 3}\n```'))
    with pytest.raises(JudgeOutputInvalid):
        run(server, embedder, judge_once)
    assert len(server.calls(GROUNDING_SYSTEM)) == 2


def test_json_schema_auto_falls_back_on_servers_without_it(embedder: LocalE5Embedder) -> None:
    """A server that rejects response_format is used with instructions and tolerant parsing instead."""

    def picky(request: Recorded) -> Reply:
        if "response_format" in request.body:
            return Reply(status=400, raw=b'{"error": {"message": "unsupported response_format"}}')
        return GROUNDED if GROUNDING_SYSTEM in request.system else REVERSE

    with ScriptedLLM(default=picky) as llm:
        result = run(llm, embedder, judge_once)
    assert result.scores.faithfulness == 1.0
    assert any("response_format" not in r.body for r in llm.requests)


def test_circuit_opens_then_half_open_probe_closes_it(embedder: LocalE5Embedder) -> None:
    """Consecutive 500s open the circuit (no more requests); after the cool-down a probe closes it."""
    healthy = [False]

    def flaky(request: Recorded) -> Reply:
        if not healthy[0]:
            return Reply.server_error()
        return GROUNDED if GROUNDING_SYSTEM in request.system else REVERSE

    async def scenario(judge: LLMJudge, client: ChatClient) -> tuple[list[str], int]:
        states = []
        with pytest.raises(JudgeUnavailable):
            await judge.judge(ITEM)
        states.append(client.state)
        sent = len(llm.requests)
        with pytest.raises(JudgeUnavailable, match="circuit"):
            await judge.judge(JudgeInput("t-2", "Q?", "A.", ITEM.chunks))
        assert len(llm.requests) == sent, "an open circuit sends nothing"
        healthy[0] = True
        await asyncio.sleep(0.35)
        states.append(client.state)
        result = await judge.judge(ITEM)
        states.append(client.state)
        assert result.scores.faithfulness == 1.0
        return states, len(llm.requests) - sent

    with ScriptedLLM(default=flaky) as llm:
        states, after = run(llm, embedder, scenario, max_retries=5)
    assert states == ["open", "half_open", "closed"]
    assert after == 2, "the probe and the call that waited for it, nothing more"


def test_key_never_leaks_into_logs_or_errors(server: ScriptedLLM, embedder: LocalE5Embedder) -> None:
    """Across retries, timeouts, a circuit opening and an invalid output, the key is never printed."""
    slow = Reply(delay_s=0.5)
    server.script(GROUNDING_SYSTEM, Reply.rate_limited(0), slow, Reply.malformed(), Reply.malformed())
    server.script(RELEVANCE_SYSTEM, *[Reply.server_error()] * 6)
    errors: list[JudgeError] = []

    async def scenario(judge: LLMJudge, client: ChatClient) -> None:
        for n in range(3):
            try:
                await judge.judge(JudgeInput(f"t-{n}", ITEM.question, ITEM.answer + str(n), ITEM.chunks))
            except JudgeError as exc:
                errors.append(exc)
        assert KEY not in repr(client) and KEY not in repr(client.settings)

    with structlog.testing.capture_logs() as logs:
        run(server, embedder, scenario, timeout_s=0.2, max_retries=2, circuit_failures=4)
    assert errors and logs
    chained = [str(e.__cause__) for e in errors] + [repr(e) for e in errors] + [str(e) for e in errors]
    assert all(KEY not in text for text in chained)
    assert KEY not in json.dumps(logs, default=str)


def test_throughput_is_bounded_by_max_concurrency(embedder: LocalE5Embedder) -> None:
    """With max_concurrency 2 and 0.2 s latency, at most 2 requests are in flight at once."""
    inflight: list[int] = []
    active = [0]

    def counting(request: Recorded) -> Reply:
        active[0] += 1
        inflight.append(active[0])
        time.sleep(0.2)
        active[0] -= 1
        return GROUNDED if GROUNDING_SYSTEM in request.system else REVERSE

    async def many(judge: LLMJudge, client: ChatClient) -> None:
        items = [JudgeInput(f"t-{i}", ITEM.question, f"{ITEM.answer} {i}", ITEM.chunks) for i in range(3)]
        await asyncio.gather(*(judge.judge(item) for item in items))

    with ScriptedLLM(default=counting) as llm:
        run(llm, embedder, many, max_concurrency=2)
    assert len(inflight) == 6 and max(inflight) <= 2
